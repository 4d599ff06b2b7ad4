"""Memory over each backend: ``backend_mem`` opens a Memory on SQLite and on the embedded PostgreSQL server."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mnemir

_STORE_TESTS = str(Path(__file__).resolve().parents[1] / "store")
if _STORE_TESTS not in sys.path:  # the one session-wide PostgreSQL server of the store tests (postgres_cases.py)
    sys.path.insert(0, _STORE_TESTS)

OpenMemory = Callable[..., mnemir.Memory]


def location(backend: str, directory: Path, name: str = "mem") -> str:
    if backend == "postgres":
        from postgres_cases import database_url

        return database_url(directory, name)
    return str(directory / name)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_mem(backend: str, tmp_path: Path, embedder: Any) -> Iterator[OpenMemory]:
    opened: list[mnemir.Memory] = []

    def _open(name: str = "mem", **options: Any) -> mnemir.Memory:
        memory = mnemir.open(location(backend, tmp_path, name), embedder=embedder, **options)
        opened.append(memory)
        return memory

    yield _open
    for memory in opened:
        memory.close()


@pytest.fixture
def backend_mem(open_mem: OpenMemory) -> mnemir.Memory:
    return open_mem()
