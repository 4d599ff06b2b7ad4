"""Shared fixtures: one real default embedder per test session, real stores in temp dirs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import mnemir
from mnemir.embed import USEEmbedder, default_embedder

#: a fixed clock for deterministic tests
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def embedder() -> USEEmbedder:
    """The real default embedder, loaded once."""
    return default_embedder()


@pytest.fixture
def now() -> datetime:
    return NOW


@pytest.fixture
def mem(tmp_path: Path, embedder: USEEmbedder) -> Iterator[mnemir.Memory]:
    memory = mnemir.open(tmp_path / "mem", embedder=embedder)
    yield memory
    memory.close()
