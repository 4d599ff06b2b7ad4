"""Typed configuration with defaults, resolved at the edges (open(), the CLI)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mnemir.lifecycle.config import LifecycleConfig
from mnemir.retrieve.search import FusionConfig

ENV_PATH = "MNEMIR_PATH"
DB_FILENAME = "memory.db"


@dataclass(frozen=True)
class MemoryConfig:
    #: embedder name for mnemir.embed.make_embedder ("use", "e5", "openai")
    embedder: str = "use"
    #: domain packs to load ("coding", "health")
    packs: tuple[str, ...] = ()
    #: user type files (YAML/JSON) to load
    ontology_files: tuple[str, ...] = ()
    fusion: FusionConfig = field(default_factory=FusionConfig)
    #: seconds a writer waits for another process's lock before retrying
    busy_timeout_s: float = 10.0
    #: lifecycle governance: per-type merge/decay/retention policies, contradiction strategies, conflict pairs
    lifecycle: LifecycleConfig = field(default_factory=LifecycleConfig)
    #: SQLite: answer vector searches over large, weakly filtered scopes (50,000 rows and more) from an approximate
    #: index kept beside the store (extra ``ann``; recall >= 0.98 by calibration, exact scoring otherwise). Worth it
    #: from a few hundred thousand memories in one scope; PostgreSQL builds its own on request
    ann: bool = False
    #: SQLite: what a write survives once ``add`` / ``add_many`` / ``remember`` returned. "normal": a crash of the
    #: process (the commit is in the write-ahead log); a crash of the operating system or a power cut may lose the
    #: last commits, never half of one. "full": those too (an fsync of the log at every commit; costs the disk's
    #: flush time per write call). PostgreSQL: the server's ``synchronous_commit`` decides (on by default: "full")
    sqlite_synchronous: str = "normal"
    #: SQLite: ``add`` calls that arrive from other threads (or AsyncMemory tasks) while a write is in flight are
    #: governed and written together in ONE transaction, in arrival order, each returning (or raising) only once
    #: that transaction has committed (decision 0113): the decisions are those of the calls made one after another
    #: in that order; one bad call fails only itself. A lone caller writes at once, as before. False: each call
    #: takes the store's lock in turn and commits alone
    group_commit: bool = True


def default_location() -> Path:
    """``$MNEMIR_PATH``, else ``$XDG_DATA_HOME/mnemir``, else ``~/.local/share/mnemir``."""
    env = os.environ.get(ENV_PATH)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mnemir"


def resolve_sqlite_path(path: str | os.PathLike[str] | None) -> Path:
    """A directory holds ``memory.db``; a path ending in .db/.sqlite/.sqlite3 is the file itself."""
    target = Path(path).expanduser() if path is not None else default_location()
    if target.suffix.lower() in (".db", ".sqlite", ".sqlite3"):
        target.parent.mkdir(parents=True, exist_ok=True)
        return target
    target.mkdir(parents=True, exist_ok=True)
    return target / DB_FILENAME
