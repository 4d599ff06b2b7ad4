"""One PostgreSQL connection per store object: transactions that retry on serialization failures and deadlocks.

Several processes (and store objects) may write one database at once;
PostgreSQL's MVCC does the coordination. A write transaction that loses a
race (deadlock, serialization failure) is rolled back and run again with
backoff, until a deadline. A read runs in one REPEATABLE READ, READ ONLY
transaction, so its statements (e.g. counting candidates, then scoring them)
see one snapshot. A connection the server dropped is reopened on next use.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from mnemir.errors import ConflictError, MissingDependencyError, MnemirError, StoreError, ValidationError

try:
    import psycopg
    from psycopg import errors as pg_errors
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError("the PostgreSQL backend", "psycopg", extra="postgres") from exc

T = TypeVar("T")
Cursor = Any  # psycopg.Cursor[tuple[Any, ...]]

#: the int4 class of the per-scope advisory locks ("mnem"): the two-int4 key space is apart from the bigint keys
SCOPE_CLASS = 0x6D6E656D
_LOCK_SQL: dict[str, Callable[[Any], tuple[str, list[Any]]]] = {
    "x": lambda k: ("SELECT pg_advisory_xact_lock(%s)", [k]),
    "s": lambda k: ("SELECT pg_advisory_xact_lock_shared(%s)", [k]),
    "scope": lambda k: ("SELECT pg_advisory_xact_lock(%s, %s)", list(k)),
}


def scope_key(user: str | None) -> int:
    """The int4 key of one user scope's advisory lock (``None``: the memories with no user)."""
    name = b"\x00" if user is None else b"u" + user.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(name, digest_size=4).digest(), "big", signed=True)


_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected, pg_errors.LockNotAvailable)


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"


class Connection:
    def __init__(self, url: str, *, retry_for_s: float, connect_timeout_s: float) -> None:
        self.url = url
        self.where = redact(url)
        self.retry_for_s = retry_for_s
        self.connect_timeout_s = connect_timeout_s
        self.lock = threading.RLock()
        #: depth of the exclusive() block the thread holding ``lock`` is in (0: none)
        self._held = 0
        #: the advisory locks the exclusive() block holds: ("x" | "s", key) or ("scope", (class, key))
        self._locks: set[tuple[str, Any]] = set()
        self._conn: psycopg.Connection[Any] | None = None
        self._closed = False
        self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(self.url, autocommit=False, connect_timeout=max(1, int(self.connect_timeout_s)),
                                   application_name="mnemir")
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {self.where}: {str(exc).strip()}",
                             url=self.where) from exc
        self._conn = conn
        return conn

    def _live(self) -> psycopg.Connection[Any]:
        if self._closed:
            raise StoreError(f"the PostgreSQL store {self.where} is closed", url=self.where)
        if self._conn is None or self._conn.closed or self._conn.broken:
            return self._connect()
        return self._conn

    def write(self, operation: str, body: Callable[[Cursor], T]) -> T:
        """Run ``body`` in one read-write transaction: all of it commits or none of it."""
        return self._transaction(operation, body, None)

    def read(self, operation: str, body: Callable[[Cursor], T]) -> T:
        """Run ``body`` in one read-only snapshot."""
        return self._transaction(operation, body, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")

    @contextlib.contextmanager
    def exclusive(self, key: int | None, operation: str = "exclusive section", *,
                  scope_key: int | None = None) -> Iterator[None]:
        """Hold ONE transaction for the whole block, after taking the transaction-level advisory lock ``key``:
        reads and writes made through this connection inside it join that transaction, and another block with
        the same key waits for it to commit. Rolls back if the block raises. Nested blocks join the outer one
        (taking the locks they need that the outer one does not hold).

        ``scope_key`` (an int4): lock one scope only: ``key`` is taken shared and ``(key's class, scope_key)``
        exclusively, so blocks of other scopes run at the same time while a block without ``scope_key`` (the
        whole database) still waits for all of them, and they for it.
        ``key=None``: a read-only REPEATABLE READ snapshot instead (every read in the block sees one state)."""
        wanted = self._locks_for(key, scope_key)
        with self.lock:
            if self._held:
                conn = self._live()
                whole = any(kind == "x" for kind, _ in self._locks)  # the whole database: nothing to add
                missing = [] if whole else [lock for lock in wanted if lock not in self._locks]
                try:
                    for lock in missing:  # a wider block inside a narrower one: take what it adds
                        conn.execute(*_LOCK_SQL[lock[0]](lock[1]))
                        self._locks.add(lock)
                except psycopg.Error as exc:
                    raise self._error(operation, exc) from exc
                self._held += 1
                try:
                    yield
                finally:
                    self._held -= 1
                return
            conn = self._live()
            try:
                if key is None:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                for lock in wanted:
                    conn.execute(*_LOCK_SQL[lock[0]](lock[1]))
            except psycopg.Error as exc:
                self._rollback(conn)
                raise self._error(operation, exc) from exc
            self._held = 1
            self._locks = set(wanted)
            try:
                yield
                self._held = 0
                conn.commit()
            except BaseException as exc:
                self._held = 0
                self._rollback(conn)
                if isinstance(exc, psycopg.Error) and not isinstance(exc, MnemirError):
                    raise self._error(operation, exc) from exc
                raise
            finally:
                self._locks = set()

    @staticmethod
    def _locks_for(key: int | None, scope_key: int | None) -> list[tuple[str, Any]]:
        """The advisory locks a block takes, in the order taken (the database's key first, always)."""
        if key is None:
            return []
        if scope_key is None:
            return [("x", key)]
        return [("s", key), ("scope", (SCOPE_CLASS, scope_key))]

    def _transaction(self, operation: str, body: Callable[[Cursor], T], begin: str | None) -> T:
        deadline = time.monotonic() + self.retry_for_s
        delay = 0.005
        with self.lock:
            if self._held:  # inside exclusive(): join its transaction (no retry: the whole block would need it)
                try:
                    with self._live().cursor() as cur:
                        return body(cur)
                except psycopg.Error as exc:
                    raise self._error(operation, exc) from exc
            while True:
                conn = self._live()
                try:
                    with conn.cursor() as cur:
                        if begin is not None:
                            cur.execute(begin)
                        result = body(cur)
                    conn.commit()
                    return result
                except BaseException as exc:
                    self._rollback(conn)
                    if isinstance(exc, MnemirError):
                        raise
                    if not isinstance(exc, psycopg.Error):
                        raise
                    if not isinstance(exc, _RETRYABLE):
                        raise self._error(operation, exc) from exc
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"PostgreSQL store {self.where}: {operation} gave up after {self.retry_for_s:g}s of "
                            "conflicts with other writers; nothing was written by this call, try again",
                            url=self.where, operation=operation,
                        ) from exc
                time.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, 0.25)

    def _error(self, operation: str, exc: psycopg.Error) -> MnemirError:
        if isinstance(exc, pg_errors.UntranslatableCharacter | pg_errors.CharacterNotInRepertoire) or \
                "\\u0000" in str(exc) or "0x00" in str(exc):
            return ValidationError("PostgreSQL cannot store NUL characters (\\x00) in text", field=operation,
                                   value="text holding \\x00", allowed="text without NUL characters")
        if isinstance(exc, pg_errors.InsufficientPrivilege) and "row-level security" in str(exc):
            # a tenant connection (row-level security) wrote a row of another user's scope, or over one it
            # cannot see (an id another user holds)
            return ConflictError(f"PostgreSQL store {self.where}: {operation} refused by row-level security: the "
                                 "row belongs to another user than the one this connection acts for",
                                 operation=operation, sqlstate=exc.sqlstate)
        if isinstance(exc, pg_errors.UniqueViolation):  # an id another writer (or scope) holds
            return ConflictError(f"PostgreSQL store {self.where}: {operation}: {str(exc).strip()}",
                                 operation=operation, sqlstate=exc.sqlstate)
        return StoreError(f"PostgreSQL store {self.where}: {operation} failed: {str(exc).strip()}", url=self.where,
                          operation=operation, sqlstate=exc.sqlstate)

    @staticmethod
    def _rollback(conn: psycopg.Connection[Any]) -> None:
        if conn.closed or conn.broken:
            return
        with contextlib.suppress(psycopg.Error):  # the original error is the one to report
            conn.rollback()

    def close(self) -> None:
        with self.lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None
