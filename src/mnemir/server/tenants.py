"""Where each tenant's memories live, and the server's settings.

A tenant is a store of its own: with keys configured, tenant ``acme`` is the SQLite store
``<store dir>/tenants/acme/``. Its users, agents and sessions are scopes inside that store, as in any store.
Keeping tenants in separate files makes isolation structural: memory ids are unique per store, not across
stores, and an id, a filter, a graph walk, a search, an export or an import runs against one tenant's store and
cannot name a record of another. Without keys the server serves the store at ``--path`` itself, to localhost
only (the ``local`` tenant).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemir.errors import ConfigError
from mnemir.memory import Memory, MemoryConfig
from mnemir.memory import open as open_memory
from mnemir.memory.config import resolve_sqlite_path
from mnemir.server.keys import check_tenant
from mnemir.server.pending import Pending

LOCAL = "local"


@dataclass(frozen=True)
class ServerConfig:
    """Settings of ``mnemir serve`` (limits apply per request)."""

    #: the store (directory, .db file or postgresql:// URL); None: the default location
    path: str | None = None
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    #: largest JSON request body (bytes); larger ones get 413
    max_body_bytes: int = 1 << 20
    #: largest import body (bytes)
    max_import_bytes: int = 64 << 20
    #: deepest nesting of a JSON request body; deeper ones get 422
    max_depth: int = 24
    #: a Fact or Hypothesis under this confidence goes to the review queue
    low_confidence: float = 0.6
    #: keys file; None: beside the store (``keys.db``)
    keys_path: str | None = None


@dataclass(frozen=True)
class Layout:
    """Files of a served store: the keys file and the folder of tenant stores."""

    store: str | None
    keys: Path | None
    tenants: Path | None


def layout(config: ServerConfig) -> Layout:
    target = config.path if config.path is not None else None
    if target is not None and target.startswith(("postgresql://", "postgres://")):
        keys = Path(config.keys_path) if config.keys_path else None
        return Layout(target, keys, None)
    db = resolve_sqlite_path(target)
    if db.name == "memory.db":
        base = db.parent
        return Layout(os.fspath(db), Path(config.keys_path) if config.keys_path else base / "keys.db",
                      base / "tenants")
    return Layout(os.fspath(db), Path(config.keys_path) if config.keys_path else db.with_suffix(".keys.db"),
                  db.parent / f"{db.stem}.tenants")


class Tenant:
    """One tenant's memory, the lock its writes take, and its pending confirmations."""

    def __init__(self, name: str, memory: Memory, pending: Path | None = None) -> None:
        self.name = name
        self.memory = memory
        #: writes are serialised per store: governance reads the store before it writes (merge, supersede)
        self.write_lock = threading.RLock()
        #: confirmations remember() asked for, by id, until answered (``pending``: the file that keeps them)
        self.confirmations = Pending(pending)

    def close(self) -> None:
        with self.write_lock:  # a write in flight finishes before its store closes
            self.memory.close()
            self.confirmations.close()


class Tenants:
    """Opens each tenant's store on first use; all share one embedder."""

    def __init__(self, config: ServerConfig, *, multi: bool, embedder: Any = None) -> None:
        self.config = config
        self.multi = multi
        self._layout: Layout | None = None  # found on first use (finding it creates the store's folder)
        if multi and self.layout.tenants is None:
            raise ConfigError("API keys (tenants) need a SQLite store: each tenant gets a store of its own "
                              "beside it; serve a PostgreSQL store without keys (localhost only)",
                              field="path", value=config.path)
        self._lock = threading.Lock()
        self._open: dict[str, Tenant] = {}
        self._embedder: Any = embedder

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = layout(self.config)
        return self._layout

    def get(self, name: str) -> Tenant:
        with self._lock:
            tenant = self._open.get(name)
            if tenant is None:
                memory = self._open_memory(name)
                tenant = self._open[name] = Tenant(name, memory, self._pending_file(name))
            return tenant

    def _location(self, name: str) -> str | None:
        if self.multi:
            check_tenant(name)
            assert self.layout.tenants is not None
            return os.fspath(self.layout.tenants / name)
        return self.layout.store

    def _open_memory(self, name: str) -> Memory:
        memory = open_memory(self._location(name), embedder=self._embedder, config=self.config.memory)
        self._embedder = memory.embedder
        return memory

    def _pending_file(self, name: str) -> Path | None:
        """``pending.db`` beside the tenant's SQLite file (None for PostgreSQL: kept in memory)."""
        location = self._location(name)
        if location is None or location.startswith(("postgresql://", "postgres://")):
            return None
        db = resolve_sqlite_path(location)
        return db.parent / "pending.db" if db.name == "memory.db" else db.with_suffix(".pending.db")

    def opened(self) -> list[Tenant]:
        with self._lock:
            return list(self._open.values())

    def close(self) -> None:
        with self._lock:
            for tenant in self._open.values():
                tenant.close()
            self._open.clear()
