"""Without its extra, an integration fails on import with a message naming the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

import mnemir


@pytest.mark.parametrize(("module", "package", "extra"), [
    ("mnemir.integrations.mcp", "mcp", "mcp"),
    ("mnemir.integrations.langgraph", "langgraph", "langgraph"),
])
def test_a_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch, module: str, package: str, extra: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")] or [package]:
        monkeypatch.setitem(sys.modules, name, None)  # what an environment without the package looks like
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(mnemir.MissingDependencyError) as missing:
        importlib.import_module(module)
    assert f"pip install 'mnemir[{extra}]'" in str(missing.value)
    assert missing.value.context == {"package": package, "extra": extra}
    assert isinstance(missing.value, ImportError)  # `except ImportError` still works for callers


def test_the_package_itself_needs_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for package in ("mcp", "langgraph"):
        monkeypatch.setitem(sys.modules, package, None)
    monkeypatch.delitem(sys.modules, "mnemir.integrations", raising=False)
    assert importlib.import_module("mnemir.integrations").__doc__
