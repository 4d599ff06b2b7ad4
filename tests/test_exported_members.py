"""`mnemir.__all__` is the public surface: everything in it exists, everything public is in it."""

from __future__ import annotations

import mnemir


def test_all_names_exist() -> None:
    for name in mnemir.__all__:
        assert hasattr(mnemir, name), name


def test_public_names_are_all_exported() -> None:
    public = {name for name in dir(mnemir) if not name.startswith("_")}
    subpackages = {"cli", "embed", "errors", "eval", "ir", "lifecycle", "memory", "ontology", "retrieve", "store",
                   "understand", "demo", "integrations", "server"}
    assert public - subpackages - {"__version__"} <= set(mnemir.__all__), public - subpackages - set(mnemir.__all__)


def test_errors_share_one_root() -> None:
    for name in mnemir.__all__:
        obj = getattr(mnemir, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, mnemir.MnemirError), name


def test_memory_offers_add_many_sync_and_async() -> None:
    from mnemir.memory.aio import async_methods

    assert callable(mnemir.Memory.add_many)
    assert {"add", "add_many"} <= async_methods(mnemir.Memory)
