"""The facade: ``Memory`` composes the store, the embedder, the ontology and the feature mixins."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mnemir.embed import Embedder, make_embedder
from mnemir.memory.aio import AsyncMemory
from mnemir.memory.config import MemoryConfig, default_location, resolve_sqlite_path
from mnemir.memory.core import MemoryCore
from mnemir.memory.lifecycle import LifecycleMixin
from mnemir.memory.recall import RecallMixin
from mnemir.memory.understanding import UnderstandingMixin
from mnemir.ontology import Ontology
from mnemir.store.base import Store


class Memory(LifecycleMixin, RecallMixin, UnderstandingMixin, MemoryCore):
    """Typed long-term memory. Create one with :func:`mnemir.open`."""


def open(path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None,
         ontology: Ontology | None = None, packs: Iterable[str] = (), config: MemoryConfig | None = None) -> Memory:
    """Open (or create) a memory store.

    ``path``: a directory (holding ``memory.db``), a ``.db`` file, or ``postgresql://...``.
    Omitted: ``$MNEMIR_PATH`` or the user's data directory.
    """
    config = config or MemoryConfig()
    if ontology is None:
        ontology = Ontology(packs=(*config.packs, *packs))
        for file in config.ontology_files:
            ontology.load_file(file)
    else:
        for pack in packs:
            ontology.load_pack(pack)
    embedder = embedder or make_embedder(config.embedder)
    store = _open_store(os.fspath(path) if path is not None else None, ontology, config)
    try:
        return Memory(store, embedder=embedder, ontology=ontology, config=config)
    except BaseException:
        store.close()
        raise


def _open_store(target: str | None, ontology: Ontology, config: MemoryConfig) -> Store:
    """The backend for a location: ``postgresql://`` URLs go to PostgreSQL, anything else is a SQLite path."""
    if target is not None and target.startswith(("postgresql://", "postgres://")):
        from mnemir.store.postgres import PostgresStore  # psycopg is imported only when connecting

        return PostgresStore(target, ontology=ontology)
    from mnemir.store.sqlite import SQLiteStore

    return SQLiteStore(resolve_sqlite_path(target), ontology=ontology, busy_timeout_s=config.busy_timeout_s,
                       ann=config.ann, synchronous=config.sqlite_synchronous)


async def open_async(path: str | os.PathLike[str] | None = None, **kwargs: Any) -> AsyncMemory:
    """Like :func:`open`, for asyncio code: ``async with await mnemir.open_async(path) as mem: ...``."""
    import asyncio

    return AsyncMemory(await asyncio.to_thread(open, path, **kwargs))


__all__ = ["AsyncMemory", "Memory", "MemoryConfig", "default_location", "open", "open_async"]
