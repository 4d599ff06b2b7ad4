"""One SQLite connection shared by a store object: WAL, a lock, and transactions that retry when busy.

Several processes (an agent, the CLI, a notebook) may use one database file.
WAL lets readers and one writer proceed together; ``busy_timeout`` makes SQLite
wait for the write lock; and every transaction here is retried with backoff
when SQLite still answers "busy"/"locked", until a deadline. A caller sees either
success or a :class:`~mnemir.errors.StoreError` saying the store stayed busy,
never SQLite's "database is locked".
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from mnemir.errors import MnemirError, StoreError

T = TypeVar("T")

_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (primary codes; extended codes keep them in the low byte)

#: ``PRAGMA synchronous`` settings a store may be opened with (WAL mode), and what a committed write survives:
#: "normal" (the default): a crash of the process at any point (the commit is in the write-ahead log, which the
#: operating system holds); a crash of the operating system or a power cut may lose the last commits (never half of
#: one, and the file is never corrupted). "full": also the operating system's crash and a power cut (the log is
#: fsynced at every commit), where the disk honours fsync.
SYNCHRONOUS = ("normal", "full")
#: pages the write-ahead log may hold before a commit copies it into the database file (SQLite's default: 1,000).
#: A governed ``add`` commits ~37 pages of 8 KiB, so the default made every ~27th commit a checkpoint (two fsyncs and
#: ~1,000 page writes); at 8,192 (a log of up to 64 MiB) a checkpoint comes every ~220 commits and writes the pages
#: that every commit touches (the newest index leaves, meta) once instead of eight times (decision 0108). What a
#: commit survives does not change: a checkpoint only moves committed pages from the log into the file.
WAL_AUTOCHECKPOINT = 8192


def is_busy(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class Connection:
    """A sqlite3 connection used by one thread at a time (guarded by a lock)."""

    def __init__(self, path: Path, *, busy_timeout_s: float, retry_for_s: float,
                 synchronous: str = "normal") -> None:
        self.path = path
        self.synchronous = synchronous
        self.busy_timeout_s = busy_timeout_s
        self.retry_for_s = retry_for_s
        self.lock = threading.RLock()
        #: depth of the exclusive() block the thread holding ``lock`` is in (0: none)
        self._held = 0
        self._holder: int | None = None  # the thread whose transaction is held
        self._checkpoint_due = False
        self._conn: sqlite3.Connection | None = None
        self._conn = self._retry("open", self._open)

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None,
                               check_same_thread=False)
        try:
            # a new file only (ignored later): 512-d float32 vectors (2 KiB) fit three to an 8 KiB page, one to 4 KiB
            conn.execute("PRAGMA page_size=8192")
            conn.execute("PRAGMA journal_mode=WAL").fetchall()
            conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: the narrow records table stays in memory at 100k
            conn.execute(f"PRAGMA synchronous={self.synchronous.upper()}")  # one of SYNCHRONOUS (checked by the store)
            conn.execute("PRAGMA foreign_keys=OFF")
            conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT}")
            # freed space is overwritten with zeros: what is deleted (or replaced) leaves the file, not just the index
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_s * 1000)}")
        except BaseException:
            conn.close()
            raise
        return conn

    @property
    def held(self) -> bool:
        """Whether a transaction of :meth:`exclusive` or :meth:`snapshot` is open."""
        return bool(self._held)

    @property
    def held_here(self) -> bool:
        """Whether the calling thread holds the transaction of :meth:`exclusive` or :meth:`snapshot`."""
        return bool(self._held) and self._holder == threading.get_ident()

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def raw(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the SQLite store {self.path} is closed", path=str(self.path))
        return self._conn

    def write(self, operation: str, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` in one ``BEGIN IMMEDIATE`` transaction; all of it commits or none of it."""
        return self._transaction(operation, body, "BEGIN IMMEDIATE")

    def read(self, operation: str, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` in one read transaction (a consistent snapshot across its statements)."""
        return self._transaction(operation, body, "BEGIN")

    def exclusive(self, operation: str = "exclusive section") -> contextlib.AbstractContextManager[None]:
        """Hold ONE write transaction (``BEGIN IMMEDIATE``) for the whole block: every read and write made through
        this connection inside it joins that transaction, and no other connection can write until it ends. A
        read-modify-write (reinforce a memory, move a task) done inside cannot lose another process's update.
        Commits when the block ends; rolls everything back if it raises. Nested blocks join the outer one."""
        return self._hold("BEGIN IMMEDIATE", operation)

    def snapshot(self, operation: str = "snapshot") -> contextlib.AbstractContextManager[None]:
        """Hold ONE read transaction for the whole block: every read inside it sees the same committed state,
        whatever other connections write meanwhile (WAL keeps that state for it). Nested blocks join it."""
        return self._hold("BEGIN", operation)

    @contextlib.contextmanager
    def _hold(self, begin: str, operation: str) -> Iterator[None]:
        with self.lock:
            if self._held:
                self._held += 1
                try:
                    yield
                finally:
                    self._held -= 1
                return
            conn = self.raw
            self._retry(operation, lambda: conn.execute(begin))
            if begin == "BEGIN":  # a deferred transaction takes its snapshot at the first read: take it now
                self._retry(operation, lambda: conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall())
            self._held, self._holder = 1, threading.get_ident()
            try:
                yield
            except BaseException:
                self._held, self._holder = 0, None
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            self._held, self._holder = 0, None
            try:
                self._retry(f"{operation} (commit)", lambda: conn.execute("COMMIT"))
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            if self._checkpoint_due:
                self.checkpoint()

    def _transaction(self, operation: str, body: Callable[[sqlite3.Connection], T], begin: str) -> T:
        with self.lock:
            conn = self.raw
            if self._held:  # inside exclusive(): join its transaction
                try:
                    return body(conn)
                except MnemirError:
                    raise
                except sqlite3.Error as exc:
                    raise StoreError(f"SQLite store {self.path}: {operation} failed: {exc}", path=str(self.path),
                                     operation=operation) from exc

            def attempt() -> T:
                conn.execute(begin)
                try:
                    result = body(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        with contextlib.suppress(sqlite3.Error):  # the original error is the one to report
                            conn.execute("ROLLBACK")
                    raise
                return result

            return self._retry(operation, attempt)

    def _retry(self, operation: str, attempt: Callable[[], T]) -> T:
        deadline = time.monotonic() + self.retry_for_s
        delay = 0.002
        while True:
            try:
                return attempt()
            except MnemirError:
                raise
            except sqlite3.Error as exc:
                if not is_busy(exc):
                    raise StoreError(
                        f"SQLite store {self.path}: {operation} failed: {exc}", path=str(self.path),
                        operation=operation,
                    ) from exc
                if time.monotonic() >= deadline:
                    raise StoreError(
                        f"SQLite store {self.path}: {operation} gave up after {self.retry_for_s:g}s because other "
                        "connections kept the store busy; nothing was written by this call, try again",
                        path=str(self.path), operation=operation, busy=True,
                    ) from None
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.25)

    def checkpoint(self) -> bool:
        """Copy the write-ahead log into the database file and truncate it (so pages freed by a hard delete
        survive in neither). False when another connection's open read kept part of the log."""
        with self.lock:
            if self._held:  # not inside a transaction: after it commits
                self._checkpoint_due = True
                return False
            self._checkpoint_due = False
            try:
                busy, _, _ = self.raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.Error:
                return False
            return not busy

    def close(self) -> None:
        with self.lock:
            if self._conn is None:
                return
            with contextlib.suppress(sqlite3.Error):  # an optimisation hint only; closing matters more
                self._conn.execute("PRAGMA optimize")
            self._conn.close()
            self._conn = None
