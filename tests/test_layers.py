"""Imports flow one way (ARCHITECTURE.md): each layer imports only the layers below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "mnemir"
LEAF = {"errors", "_paths"}
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
    "integrations": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory"},
    "eval": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory"},
    "server": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory", "eval"},
    "cli": {"ir", "ontology", "embed", "understand", "store", "retrieve", "lifecycle", "memory", "eval",
            "integrations", "server"},
}


#: importing the package root (``import mnemir``, ``from mnemir import Memory``) pulls in the facade
ROOT = "memory"


def _package_of(dotted: str) -> str | None:
    """The mnemir package (first level below ``mnemir``) a dotted module name lives in, or None if not mnemir."""
    parts = dotted.split(".")
    if parts[0] != "mnemir":
        return None
    return parts[1] if len(parts) > 1 else ROOT


def imported_packages(path: Path, source: str | None = None) -> set[str]:
    """The mnemir packages a module at ``path`` imports (its text, or ``source`` in its place)."""
    module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
    found = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                anchor = module.split(".")[: -node.level]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [base] if node.module or not node.level else [f"{base}.{a.name}" for a in node.names]
            found |= {p for p in map(_package_of, names) if p}
        elif isinstance(node, ast.Import):
            found |= {p for p in (_package_of(a.name) for a in node.names) if p}
    return found


@pytest.mark.parametrize(("source", "expected"), [
    ("import mnemir", {"memory"}),
    ("from mnemir import Memory", {"memory"}),
    ("from mnemir.memory.core import Memory", {"memory"}),
    ("from .. import memory", {"memory"}),
    ("from ..memory import core", {"memory"}),
    ("from . import filters", {"store"}),
    ("import numpy", set()),
])
def test_imported_packages_sees_every_form(source: str, expected: set[str]) -> None:
    probe = SRC / "store" / "_probe.py"  # read as mnemir.store._probe; nothing is written
    assert imported_packages(probe, source) == expected


def test_errors_is_a_leaf() -> None:
    assert imported_packages(SRC / "errors.py") == set()


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layer_imports_only_what_is_below(package: str) -> None:
    allowed = ALLOWED[package] | LEAF | {package}
    for path in (SRC / package).rglob("*.py"):
        bad = imported_packages(path) - allowed
        assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)}; {package} may import {sorted(allowed)}"


def test_every_package_has_a_rule() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - {"demo"} <= set(ALLOWED), packages - set(ALLOWED)
