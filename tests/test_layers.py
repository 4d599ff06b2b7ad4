"""Imports flow one way (ARCHITECTURE.md): each layer imports only the layers below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "mnemir"
LEAF = {"errors"}
#: what each package may import besides itself and the leaf modules
ALLOWED = {
    "ir": set(),
    "ontology": {"ir"},
    "embed": {"ir", "ontology"},
    "understand": {"ir", "ontology", "embed"},
    "store": {"ir", "ontology", "embed"},
    "retrieve": {"ir", "ontology", "embed", "understand", "store"},
    "lifecycle": {"ir", "ontology", "embed", "store", "retrieve"},
    "memory": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle"},
    "eval": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory"},
    "cli": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory", "eval"},
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mnemir."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("mnemir.")}
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layer_imports_only_what_is_below(package: str) -> None:
    allowed = ALLOWED[package] | LEAF | {package}
    for path in (SRC / package).rglob("*.py"):
        bad = imported_packages(path) - allowed
        assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)}; {package} may import {sorted(allowed)}"


def test_every_package_has_a_rule() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - {"demo"} <= set(ALLOWED), packages - set(ALLOWED)
