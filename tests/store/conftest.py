"""Store fixtures: each test that uses ``store`` or ``open_store`` runs once per backend in ``BACKENDS``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_cases import BACKENDS, OpenStore, open_backend

from mnemir.store.base import Store


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_store(backend: str, tmp_path: Path) -> Iterator[OpenStore]:
    """Open a store of the current backend; the same ``name`` reopens the same database."""
    opened: list[Store] = []

    def _open(name: str = "store", **options: Any) -> Store:
        store = open_backend(backend, tmp_path, name, **options)
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: OpenStore) -> Store:
    return open_store()
