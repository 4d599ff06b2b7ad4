"""The backend contract: a few typed operations every store implements.

Conveniences (scoped get, get-or-raise, iteration in batches) live once here
in :class:`Store`; a backend implements the abstract methods only and declares
its :class:`Capabilities`. One conformance suite (``tests/store``) runs
against every backend.

Scope rule: ``Selection.user_id`` is strict (``None`` means "records with no
user"); ``agent_id`` and ``session_id`` restrict only when given. Use
:data:`ANY` to lift a restriction deliberately (admin listing, export).
"""

from __future__ import annotations

import abc
import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from mnemir.embed.base import Vectors
from mnemir.errors import NotFoundError, ValidationError
from mnemir.ir import HistoryEntry, MemIR, MemoryStatus, ensure_aware
from mnemir.store.filters import FilterNode

if TYPE_CHECKING:
    from mnemir.store.integrity import CheckReport



class _Any:
    _instance: _Any | None = None

    def __new__(cls) -> _Any:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ANY"


#: lifts a scope restriction in a Selection
ANY: Final = _Any()

#: statuses a normal read sees; archived/superseded/deleted need asking for
LIVE_STATUSES: tuple[MemoryStatus, ...] = (MemoryStatus.active, MemoryStatus.disputed)


@dataclass(frozen=True)
class Selection:
    """Which records an operation may see."""

    user_id: str | _Any | None = None
    agent_id: str | _Any | None = ANY
    session_id: str | _Any | None = ANY
    types: tuple[str, ...] | None = None
    statuses: tuple[MemoryStatus, ...] = LIVE_STATUSES
    where: FilterNode | None = None
    ids: tuple[str, ...] | None = None
    #: as-of: only records valid at this instant (valid_from <= t < valid_to); statuses still apply
    valid_at: datetime | None = None

    def with_(self, **changes: Any) -> Selection:
        return replace(self, **changes)

    def admits(self, record: MemIR) -> bool:
        """Whether a record is inside this selection: scope, types, statuses, ids and ``valid_at``, as the
        backends select (everything but ``where``: :func:`mnemir.store.filters.matches` checks that)."""
        if self.user_id is not ANY and self.user_id != record.scope.user_id:
            return False
        for wanted, have in ((self.agent_id, record.scope.agent_id), (self.session_id, record.scope.session_id)):
            if wanted is not ANY and wanted is not None and wanted != have:
                return False
        if self.types is not None and record.type not in self.types:
            return False
        if self.ids is not None and record.id not in self.ids:
            return False
        if self.valid_at is not None and not record.is_valid_at(ensure_aware(self.valid_at, "valid_at")):
            return False
        return record.status in self.statuses


@dataclass(frozen=True)
class Capabilities:
    """What a backend declares about itself (``Store.capabilities``), for whoever picks a backend; the
    conformance tests check each declaration against the backend's behaviour. The library does not branch on
    them: each backend plans its own searches (PostgreSQL with :mod:`mnemir.store.planner`; SQLite always
    scores exactly)."""

    name: str
    #: filtered vector search is exact (recall 1.0 against brute force), unless an ANN index (below) answers
    exact_filtered_vectors: bool = True
    #: an approximate index can be built on request for very large candidate sets (``build_ann_index``)
    ann: bool = False
    #: languages the full-text index handles well
    text_languages: tuple[str, ...] = ("en", "zh")


#: a position in the order (created_at, id): where the next page of :meth:`Store.iter_select` starts
Keyset = tuple[datetime, str]


@dataclass
class Write:
    """A record to insert or replace. ``vector=None`` keeps the stored vector (the text did not change)."""

    record: MemIR
    vector: Vectors | None = None
    history: list[HistoryEntry] = field(default_factory=list)


@dataclass(frozen=True)
class Edge:
    source: str
    relation: str
    target: str
    properties: dict[str, Any] = field(default_factory=dict)


class Store(abc.ABC):
    """A memory store backend."""

    capabilities: Capabilities
    #: one write transaction at a time for the whole store (SQLite: one writer per file): concurrent ``add`` calls
    #: of one ``Memory`` then gain from sharing a transaction (``MemoryConfig.group_commit``)
    one_writer: bool = False

    def writing_here(self) -> bool:
        """Whether the calling thread holds this store's write transaction (inside :meth:`exclusive`)."""
        return False

    # -- the contract ---------------------------------------------------
    @abc.abstractmethod
    def write(self, writes: Sequence[Write], *, model_id: str, delete_ids: Sequence[str] = ()) -> None:
        """Insert or replace records, their vectors, text index, properties, edges and history, and hard-delete
        ``delete_ids``: all in ONE transaction. A hard delete purges: the record, its vector, text index,
        properties, its own relationships and every history row it had before this call go; only the history
        entries written for it in this same call stay (the caller's tombstone, which holds no content). A new record without a vector is an error. Refuses vectors of
        another model than the store's (ModelMismatchError)."""

    @abc.abstractmethod
    def fetch(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> list[MemIR]:
        """Records by id, in the order asked, silently skipping unknown ids. ``user`` (the tenant, as
        ``Selection.user_id``: ``None`` is records with no user) keeps only that user's records, in the query itself
        (a sharded PostgreSQL routes on it); :data:`ANY`, the default, checks no scope (callers do it)."""

    @abc.abstractmethod
    def select(self, selection: Selection, *, order_by: Sequence[tuple[str, bool]] = (), limit: int | None = None,
               offset: int = 0, _after: Keyset | None = None) -> list[MemIR]:
        """Records matching the selection. ``order_by`` items are (field, ascending); fields are property names
        or the record fields ``@created_at``, ``@updated_at``, ``@valid_from``. Ties are broken by creation time,
        then id.

        ``_after`` (for :meth:`iter_select`): only records that come after this (created_at, id) in the order
        ``@created_at`` ascending, then id; ``order_by`` must be exactly ``[("@created_at", True)]``."""

    @abc.abstractmethod
    def count(self, selection: Selection) -> int: ...

    @abc.abstractmethod
    def vector_search(self, selection: Selection, query: Vectors, k: int) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the k nearest records inside the selection, best first. Exact."""

    def vector_search_many(self, selection: Selection, queries: Sequence[Vectors],
                           k: int) -> list[list[tuple[str, float]]]:
        """:meth:`vector_search` of each query in ``queries`` inside one selection, in order: exactly what the
        calls one by one return (a backend may answer them together: one read, the scope resolved once)."""
        return [self.vector_search(selection, query, k) for query in queries]

    def select_many(self, selections: Sequence[Selection], *, limit: int | None = None) -> list[list[MemIR]]:
        """:meth:`select` of each selection (default order, ``limit``), in order: exactly what the calls one by
        one return (a backend may answer them in one read)."""
        return [self.select(selection, limit=limit) for selection in selections]

    @abc.abstractmethod
    def text_search(self, selection: Selection, query: str, k: int) -> list[tuple[str, float]]:
        """(id, BM25 score, higher is better) of the k best full-text matches inside the selection."""

    @abc.abstractmethod
    def edges(self, ids: Sequence[str], *, relations: Sequence[str] | None = None,
              direction: str = "out", user: str | _Any | None = ANY) -> list[Edge]:
        """Relationships leaving (``out``), entering (``in``) or touching (``both``) the given records. ``user``:
        only edges whose source record is that user's (see :meth:`fetch`)."""

    def edge_counts(self, ids: Sequence[str], *, relations: Sequence[str] | None = None, direction: str = "in",
                    user: str | _Any | None = ANY, at_most: int | None = None) -> dict[str, int]:
        """How many of :meth:`edges`' edges (the same arguments; ``direction`` "in" or "out") meet each of the
        given records: id -> count, ids without any left out. Lets a reader skip the edges of a record that many
        meet (an imported document read into hundreds of memories) without reading them; a backend counts them
        in its query, this default reads them. ``at_most``: a reader that only asks "more than N?" gets
        ``min(count, N + 1)``, and a backend may stop counting there (a record met by thousands costs N + 1)."""
        if direction not in ("in", "out"):
            raise ValidationError("direction must be 'in' or 'out' for edge_counts", field="direction",
                                  value=direction)
        from mnemir.store import checks  # checks reads this module

        checks.at_most(at_most)
        wanted = set(ids)
        counts = Counter(end for e in self.edges(ids, relations=relations, direction=direction, user=user)
                         if (end := e.target if direction == "in" else e.source) in wanted)
        return {k: n if at_most is None else min(n, at_most + 1) for k, n in counts.items()}

    @abc.abstractmethod
    def histories(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, list[HistoryEntry]]:
        """Every recorded change to each of the given memories, oldest first (ids without history are absent).
        ``user``: only memories that user holds (a hard-deleted memory's tombstone has no holder: only :data:`ANY`
        reads it)."""

    @abc.abstractmethod
    def vectors(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, Vectors]:
        """The stored vectors of the given records (``user``: see :meth:`fetch`)."""

    @abc.abstractmethod
    def get_meta(self, key: str) -> str | None: ...

    @abc.abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abc.abstractmethod
    def close(self) -> None: ...

    # -- conveniences (once, for every backend) ---------------------------
    def get(self, memory_id: str, selection: Selection | None = None) -> MemIR:
        found = self.fetch([memory_id], user=selection.user_id if selection is not None else ANY)
        if not found or (selection is not None and not selection.admits(found[0])):
            raise NotFoundError(f"no memory with id {memory_id!r} in this scope", id=memory_id)
        return found[0]

    def history(self, memory_id: str, *, user: str | _Any | None = ANY) -> list[HistoryEntry]:
        """Every recorded change to a memory, oldest first (``user``: see :meth:`histories`)."""
        if not isinstance(memory_id, str):
            raise ValidationError("memory_id must be a string", field="memory_id", value=memory_id)
        return self.histories([memory_id], user=user).get(memory_id, [])

    def iter_select(self, selection: Selection, batch: int = 1000) -> Iterator[MemIR]:
        """Every record of the selection, oldest first (then by id), ``batch`` records per query. Each page starts
        after the previous page's last (created_at, id) instead of at an offset, so that a walk over n records
        reads n rows, not n² / batch."""
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValidationError("batch must be a whole number >= 1", field="batch", value=batch)
        after: Keyset | None = None
        while True:
            rows = self.select(selection, order_by=[("@created_at", True)], limit=batch, _after=after)
            yield from rows
            if len(rows) < batch:
                return
            after = (rows[-1].metadata.created_at, rows[-1].id)

    @property
    def model_id(self) -> str | None:
        return self.get_meta("embedding_model")

    @contextlib.contextmanager
    def exclusive(self, scope: str | _Any | None = ANY) -> Iterator[None]:
        """A block whose reads and writes no other writer can interleave with: a read-modify-write inside it
        cannot lose a concurrent update. ``scope``: the one user scope the block reads and writes (``None``: the
        memories with no user); a backend may then let blocks of other scopes run at the same time. ``ANY``
        (default): the block may touch every scope. SQLite holds one write transaction for the block (the whole
        file, whatever the scope); PostgreSQL one transaction under advisory locks (per scope). The default (a
        backend without it) only runs the block."""
        yield

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A block whose reads all see one committed state, whatever is written meanwhile (an export). The
        default (a backend without it) only runs the block."""
        yield

    def check(self) -> CheckReport:
        """Whether records, vectors, the text index, properties, relationships and history agree
        (:mod:`mnemir.store.integrity`). Reads only; run it on a quiet store."""
        from mnemir.store.integrity import check_store

        return check_store(self)

    def _check_tables(self, report: CheckReport) -> None:  # noqa: B027 - optional: backends add their part
        """The backend's own part of :meth:`check`: what only its tables can show (nothing by default)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TenantReads(Store):
    """``store`` with its id-keyed reads (``fetch``, ``edges``, ``histories``, ``vectors``) kept to one user, so that
    every statement a scoped operation sends carries the tenant (a sharded PostgreSQL routes on it; see
    docs/SCALING.md). Everything else goes to ``store`` unchanged. Made by :func:`tenant_reads`."""

    def __init__(self, store: Store, user: str | None) -> None:
        self.store, self.user = store, user
        self.capabilities = store.capabilities

    def __getattr__(self, name: str) -> Any:  # backend attributes (last_search_path, ...)
        return getattr(self.store, name)

    def write(self, writes: Sequence[Write], *, model_id: str, delete_ids: Sequence[str] = ()) -> None:
        self.store.write(writes, model_id=model_id, delete_ids=delete_ids)

    def fetch(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> list[MemIR]:
        return self.store.fetch(ids, user=self.user if user is ANY else user)

    def select(self, selection: Selection, *, order_by: Sequence[tuple[str, bool]] = (), limit: int | None = None,
               offset: int = 0, _after: Keyset | None = None) -> list[MemIR]:
        return self.store.select(selection, order_by=order_by, limit=limit, offset=offset, _after=_after)

    def count(self, selection: Selection) -> int:
        return self.store.count(selection)

    def vector_search(self, selection: Selection, query: Vectors, k: int) -> list[tuple[str, float]]:
        return self.store.vector_search(selection, query, k)

    def vector_search_many(self, selection: Selection, queries: Sequence[Vectors],
                           k: int) -> list[list[tuple[str, float]]]:
        return self.store.vector_search_many(selection, queries, k)

    def select_many(self, selections: Sequence[Selection], *, limit: int | None = None) -> list[list[MemIR]]:
        return self.store.select_many(selections, limit=limit)

    def text_search(self, selection: Selection, query: str, k: int) -> list[tuple[str, float]]:
        return self.store.text_search(selection, query, k)

    def edges(self, ids: Sequence[str], *, relations: Sequence[str] | None = None, direction: str = "out",
              user: str | _Any | None = ANY) -> list[Edge]:
        return self.store.edges(ids, relations=relations, direction=direction, user=self.user if user is ANY else user)

    def edge_counts(self, ids: Sequence[str], *, relations: Sequence[str] | None = None, direction: str = "in",
                    user: str | _Any | None = ANY, at_most: int | None = None) -> dict[str, int]:
        return self.store.edge_counts(ids, relations=relations, direction=direction,
                                      user=self.user if user is ANY else user, at_most=at_most)

    def histories(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, list[HistoryEntry]]:
        return self.store.histories(ids, user=self.user if user is ANY else user)

    def vectors(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, Vectors]:
        return self.store.vectors(ids, user=self.user if user is ANY else user)

    def get_meta(self, key: str) -> str | None:
        return self.store.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.store.set_meta(key, value)

    def close(self) -> None:  # the view owns nothing
        pass

    @contextlib.contextmanager
    def exclusive(self, scope: str | _Any | None = ANY) -> Iterator[None]:
        with self.store.exclusive(scope):  # writes are not narrowed by the view: the caller's scope stands
            yield

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        with self.store.snapshot():
            yield


def tenant_reads(store: Store, user: str | _Any | None) -> Store:
    """``store`` with id-keyed reads kept to ``user`` (:class:`TenantReads`); ``store`` itself for :data:`ANY`."""
    if user is ANY or (isinstance(store, TenantReads) and store.user == user):
        return store
    if isinstance(store, TenantReads):
        store = store.store
    assert not isinstance(user, _Any)
    return TenantReads(store, user)
