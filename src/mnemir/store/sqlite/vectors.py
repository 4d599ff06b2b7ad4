"""Exact vector search: an in-process matrix of every vector, with each row's scope beside it.

The cache holds, ordered by ``rid``, every vector of the store's model and, per
row, small integer codes of the record's ``user_id``, ``agent_id``,
``session_id``, ``type`` and ``status``. A search is:

* scope, types and statuses only (what recall asks most): numpy boolean masks
  over the codes pick the candidate rows, no SQL at all (:meth:`VectorCache.scope_positions`);
* anything else (``where``, ``ids``, ``valid_at``): SQL picks the candidate rows;

then one matrix-vector product over the candidates -> ``argpartition``. Exact
whatever the filter's selectivity, and both ways score the same rows the same way.

The cache is kept in step with the database through ``meta.write_seq``: every
write transaction bumps it and stamps what it touched with it (``embeddings.seq``
for new vectors, ``records.seq`` for every written record, ``deleted.seq`` for
every hard-deleted one), so a reader (this process or another) loads just what
changed since the sequence number it holds, in the same read transaction as its
search (one snapshot). Row ids (``records.rid``) are never reused. A deleted
record's row is masked out at once and its memory given back once deleted rows
make up a sixteenth of the cache (amortised: one copy of the matrix per many deletes).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors
from mnemir.store.base import ANY, Selection
from mnemir.store.sqlite import signs
from mnemir.store.sqlite.prop_filters import PropertyColumns
from mnemir.store.sqlite.quantised import MAX_QUERIES, Quantised, kernels
from mnemir.store.sqlite.signs import SignPlan

if TYPE_CHECKING:
    from mnemir.store.sqlite.cache_file import CacheFile

#: above this share of the cache, scoring every row and picking the candidates beats gathering them first
#: (gathering copies rows and is memory-bound: measured on 2 cores, the two cross at about 15 %)
SCORE_ALL_SHARE = 0.15
#: :meth:`VectorCache.top_k_many`: queries scored together per matrix product, and how far below the k-th best
#: product score a row is still rescored exactly (two float32 dot products of 512-number unit vectors differ by at
#: most about 512 * 2**-24 * 2 = 6e-5)
MANY_CHUNK = 64
MARGIN = 1e-3
#: from this many rows in scope one query is also narrowed by a matrix-vector product first (BLAS, one thread) and
#: only its candidates are scored row by row: the product reads the rows faster than einsum (512-d float32 unit
#: vectors, one thread, the whole narrowing against einsum alone: 1k rows 0.11 -> 0.08 ms, 10k 1.28 -> 0.96 ms in
#: cache; the 10k product alone with cold caches 1.2-2.0 ms against einsum's 2.6-3.0); a small scope is left to
#: einsum alone
NARROW_ONE_FROM = 1024
#: from this many rows in scope the narrowing of a few queries (a governed ``add``'s duplicate search, one search
#: of a large scope) is an exact bound from the rows' int8 copy (:mod:`mnemir.store.sqlite.quantised`, where
#: numkong is installed) instead of the float32 product
QUANTISED_FROM = 2048
#: the per-row scope columns the cache keeps (records columns)
SCOPE_COLUMNS = ("user_id", "agent_id", "session_id", "type", "status")
#: give deleted rows' memory back once they are this share of the cache
COMPACT_SHARE = 1 / 16
#: selections whose positions are remembered until the cache changes
MEMO = 8
#: a sync that appended at most this many rows extends the remembered scope selections row by row in Python (numpy
#: masks cost more than they save on a handful of rows)
FEW_APPENDED = 32

Positions = npt.NDArray[np.intp]

_blas_limit: Any = None


def one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """numpy's BLAS held at one thread for a matrix product (``threadpoolctl``, when installed; found once): on the
    busy cores of a shared machine, a threaded product of 64 queries by 10k rows spent 2-3x the CPU of one thread
    (the threads spin while they wait for each other)."""
    global _blas_limit
    if _blas_limit is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - installed with the default embedder's fast extra
            _blas_limit = False
        else:
            _blas_limit = ThreadpoolController().limit
    return _blas_limit(limits=1, user_api="blas") if _blas_limit else contextlib.nullcontext()


class CodeBook:
    """Small integer codes for the distinct values of one column, ``None`` included; codes are never reused."""

    def __init__(self) -> None:
        self._codes: dict[str | None, int] = {}

    def encode(self, values: Sequence[str | None]) -> npt.NDArray[np.int32]:
        codes = self._codes
        return np.fromiter((codes.setdefault(v, len(codes)) for v in values), dtype=np.int32, count=len(values))

    def find(self, values: Sequence[str | None]) -> list[int]:
        """The codes of the values seen so far (a value never stored selects nothing)."""
        return [self._codes[v] for v in values if v in self._codes]


class VectorCache:
    """Every vector of the store's embedding model, as one float32 matrix ordered by ``rid``, and each row's scope.

    ``file``: the cache file beside the store (:mod:`mnemir.store.sqlite.cache_file`), read instead of SQLite at
    the first sync when it is sound."""

    def __init__(self, file: CacheFile | None = None) -> None:
        self.file = file
        self._reset(None)

    def _reset(self, model: str | None) -> None:
        self.model = model
        self.seq = -1
        self.size = 0
        self.rids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.matrix: Vectors = np.zeros((0, 0), dtype=np.float32)
        #: the row's record exists (False: deleted, or its scope not loaded yet)
        self.live: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self.codes = {c: np.zeros(0, dtype=np.int32) for c in SCOPE_COLUMNS}
        self.books = {c: CodeBook() for c in SCOPE_COLUMNS}
        self.dead = 0
        #: rid -> position (-1: none), built when first needed after the rows moved or grew
        self._lookup: npt.NDArray[np.intp] | None = None
        #: indexed properties, as more columns of ``codes`` (``p:KEY:...``)
        self.props = PropertyColumns()
        #: sign codes of the rows, word-major (words, capacity), and the mean they are taken against
        #: (:mod:`mnemir.store.sqlite.signs`; None until a search wants them); ``sign_plan``: their calibration
        self.signs: npt.NDArray[np.uint64] | None = None
        #: positions of recent selections (repr -> positions), valid until the next sync that loads anything
        self._memo: dict[str, Positions] = {}
        self._memo_selections: dict[str, Selection] = {}
        #: rows were reordered or dropped during the current sync (remembered positions cannot be extended)
        self._moved = False
        self.sign_mean: Vectors | None = None
        self.sign_plan: SignPlan | None = None
        #: the rows' int8 copy for the exact first pass of large searches (None until a search wants it; dropped
        #: when rows move, made again at the next such search)
        self.quantised: Quantised | None = None

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def capacity(self) -> int:
        return len(self.rids)

    # -- keeping in step ---------------------------------------------------------------
    def sync(self, conn: sqlite3.Connection) -> None:
        """Load what was written since the last sync (everything the first time or after a model change)."""
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('write_seq', 'embedding_model')"))
        model, seq = meta.get("embedding_model"), int(meta.get("write_seq", "0"))
        if model != self.model:
            self._reset(model)
        if seq == self.seq or model is None:
            return
        scopes = {key: self._memo[key] for key in self._memo if key.startswith("scope:")}
        self._memo.clear()
        if self.seq < 0 and self.file is not None:
            self.file.load(conn, self, model, seq)  # on success the cache is the file's (its seq), caught up below
        first = self.seq < 0
        before, self._moved = self.size, False
        self._load_vectors(conn, model)
        written = self._load_scopes(conn)
        self.props.load(conn, self, self.seq, appended_from=0 if first or self._moved else before)
        deleted = 0 if first else self._drop_deleted(conn)  # a first load never sees deleted rows
        self.seq = seq
        if not (first or self._moved or deleted or (len(written) and written.min() < before)):
            self._extend_scopes(scopes, before)
        self._memo_selections = {k: v for k, v in self._memo_selections.items() if k in self._memo}
        if self.file is not None and not first:
            self.file.note_sync(len(written), deleted)

    def _extend_scopes(self, scopes: dict[str, Positions], before: int) -> None:
        """Keep the remembered scope selections across a sync that only appended rows (a write of new records):
        their positions plus the new rows inside them, instead of masks over every row again."""
        few = self.size - before <= FEW_APPENDED
        if few:  # a write of a few records (remember, one add): their codes as Python ints, tested row by row
            new_rows = list(zip(self.live[before : self.size].tolist(),
                                *(self.codes[c][before : self.size].tolist() for c in SCOPE_COLUMNS), strict=True))
        for key, pos in scopes.items():
            selection = self._memo_selections.get(key)
            if selection is None:
                continue
            if few:
                wanted = self._scope_codes(selection)
                at = [] if wanted is None else [before + i for i, row in enumerate(new_rows) if row[0] and all(
                    row[1 + SCOPE_COLUMNS.index(column)] in codes for column, codes in wanted)]
                if not at:
                    self._remember(key, pos, selection)
                    continue
                added = np.array(at, dtype=np.intp)
            else:
                mask = self._scope_mask(selection, before, self.size)
                added = before + np.flatnonzero(mask) if mask is not None else np.zeros(0, dtype=np.intp)
            self._remember(key, _extended(pos, added), selection)

    def _load_vectors(self, conn: sqlite3.Connection, model: str) -> None:
        if self.seq < 0:  # everything: one pass over the table in rid order
            found = conn.execute("SELECT rid, vector FROM embeddings WHERE model_id = ? ORDER BY rid",
                                 (model,)).fetchall()
        else:
            # what changed since, through the seq index (sorted here: asking SQL for rid order makes it scan the
            # whole table in that order instead, ~1 s per sync at 100k rows)
            found = conn.execute("SELECT rid, vector FROM embeddings INDEXED BY embeddings_seq WHERE seq > ? AND "
                                 "model_id = ?", (self.seq, model)).fetchall()
        if found:
            rids = np.fromiter((r for r, _ in found), dtype=np.int64, count=len(found))
            dim = len(found[0][1]) // 4
            matrix = np.frombuffer(b"".join(b for _, b in found), dtype="<f4").reshape(len(found), dim)
            if len(rids) > 1 and np.any(rids[1:] < rids[:-1]):
                order = np.argsort(rids, kind="stable")
                rids, matrix = rids[order], matrix[order]
            self._merge(rids, matrix.astype(np.float32, copy=False))

    def _load_scopes(self, conn: sqlite3.Connection) -> Positions:
        """Read the scope of the records written since the last sync; their positions."""
        columns = ", ".join(SCOPE_COLUMNS)
        # a first load reads the table in rid order; later ones only the rows written since (records_seq index)
        # (a bound value, not a literal: one statement SQLite prepares once and keeps in the connection's cache)
        found = conn.execute(f"SELECT rid, {columns} FROM records").fetchall() if self.seq < 0 else \
            conn.execute(f"SELECT rid, {columns} FROM records WHERE seq > ?", (self.seq,)).fetchall()
        if not found:
            return np.zeros(0, dtype=np.intp)
        rids = np.fromiter((row[0] for row in found), dtype=np.int64, count=len(found))
        pos, known = self.positions(rids)
        pos = pos[known]
        for i, column in enumerate(SCOPE_COLUMNS, start=1):
            values = [row[i] for row in found]
            self.codes[column][pos] = self.books[column].encode(values)[known]
        self.live[pos] = True
        return pos

    def _drop_deleted(self, conn: sqlite3.Connection) -> int:
        """Mask out the rows deleted since the last sync; how many of the cache's rows that were."""
        found = conn.execute("SELECT rid FROM deleted WHERE seq > ?", (self.seq,)).fetchall()
        if not found:
            return 0
        pos, known = self.positions(np.array([r for (r,) in found], dtype=np.int64))
        pos = pos[known]
        dropped = int(np.count_nonzero(self.live[pos]))
        self.dead += dropped
        self.live[pos] = False
        if self.dead > COMPACT_SHARE * self.size:
            self._compact()
        return dropped

    def _compact(self) -> None:
        """Keep only the rows of records that exist (a copy of the matrix: hence only now and then)."""
        keep = np.flatnonzero(self.live[: self.size])
        self._lookup, self._moved = None, True
        self.rids, self.matrix, self.live = self.rids[keep], self.matrix[keep], self.live[keep]
        self.codes = {c: codes[keep] for c, codes in self.codes.items()}
        self.quantised = None
        if self.signs is not None:
            self.signs = np.ascontiguousarray(self.signs[:, keep])
        self.size, self.dead = len(keep), 0

    def _merge(self, rids: npt.NDArray[np.int64], rows: Vectors) -> None:
        pos, known = self.positions(rids)
        if known.any():
            self.matrix[pos[known]] = rows[known]
            if self.quantised is not None:
                self.quantised.replace(pos[known], rows[known])
            if self.signs is not None and self.sign_mean is not None:
                self.signs[:, pos[known]] = signs.encode(rows[known], self.sign_mean)
        new_rids, new_rows = rids[~known], rows[~known]
        if not len(new_rids):
            return
        start = self.size
        self._resize(start + len(new_rids), rows.shape[1])
        self.rids[start : self.size] = new_rids
        self.matrix[start : self.size] = new_rows
        if self.signs is not None and self.sign_mean is not None:
            self.signs[:, start : self.size] = signs.encode(new_rows, self.sign_mean)
        self.live[start : self.size] = False  # until its scope is loaded
        if start and new_rids[0] < self.rids[start - 1]:  # defensive (rids only grow): keep the order by rid
            self._lookup, self._moved = None, True
            order = np.argsort(self.rids[: self.size], kind="stable")
            self.rids, self.matrix, self.live = self.rids[order], self.matrix[order], self.live[order]
            self.codes = {c: codes[order] for c, codes in self.codes.items()}
            self.quantised = None
            if self.signs is not None:
                self.signs = np.ascontiguousarray(self.signs[:, order])
        elif self._lookup is not None:  # appended rows: extend the rid -> position table instead of rebuilding it
            top = int(new_rids[-1]) + 1
            if top > len(self._lookup):
                grown = np.full(room_for(top, len(self._lookup)), -1, dtype=np.intp)
                grown[: len(self._lookup)] = self._lookup
                self._lookup = grown
            self._lookup[new_rids] = np.arange(start, self.size, dtype=np.intp)

    def _resize(self, size: int, dim: int) -> None:
        """Make room for ``size`` rows, growing geometrically so that appends stay cheap, with room to spare
        (:func:`room_for`): a store loaded whole must not copy its matrix at the first write after."""
        if size > self.capacity:
            self.reserve(room_for(size, self.capacity), dim)
        self.size = size

    def reserve(self, capacity: int, dim: int) -> None:
        """Make the arrays hold ``capacity`` rows (the rows beyond :attr:`size` are never read)."""
        self.rids = _grown(self.rids[: self.size], capacity)
        self.live = _grown(self.live[: self.size], capacity)
        self.codes = {c: _grown(codes[: self.size], capacity) for c, codes in self.codes.items()}
        matrix = np.empty((capacity, dim), dtype=np.float32)  # not zeroed: only the first size rows are read
        if self.size:
            matrix[: self.size] = self.matrix[: self.size]
        self.matrix = matrix
        if self.signs is not None:
            grown = np.zeros((self.signs.shape[0], capacity), dtype=np.uint64)
            grown[:, : self.size] = self.signs[:, : self.size]
            self.signs = grown

    # -- searching -----------------------------------------------------------------------
    def positions(self, rids: npt.NDArray[np.int64]) -> tuple[Positions, npt.NDArray[np.bool_]]:
        """Row positions of ``rids`` and which of them the cache holds (unknown ones get position 0)."""
        if not self.size:
            return np.zeros(len(rids), dtype=np.intp), np.zeros(len(rids), dtype=bool)
        if self._lookup is None:  # rid -> position, one gather per lookup instead of a binary search per rid
            self._lookup = np.full(int(self.rids[self.size - 1]) + 1, -1, dtype=np.intp)
            self._lookup[self.rids[: self.size]] = np.arange(self.size, dtype=np.intp)
        rids = np.asarray(rids, dtype=np.int64)
        pos = np.full(len(rids), -1, dtype=np.intp)
        inside = (rids >= 0) & (rids < len(self._lookup))
        pos[inside] = self._lookup[rids[inside]]
        known = pos >= 0
        pos[~known] = 0
        return pos, known

    def rid_positions(self, rids: npt.NDArray[np.int64]) -> Positions:
        """The positions of the live rows among ``rids`` (what SQL selected)."""
        pos, known = self.positions(rids)
        pos = pos[known]
        return pos[self.live[pos]]

    @staticmethod
    def answers(selection: Selection) -> bool:
        """Whether :meth:`scope_positions` can answer the selection alone (no ``where``, ``ids``, ``valid_at``)."""
        return selection.where is None and selection.ids is None and selection.valid_at is None

    def _remembered(self, kind: str, selection: Selection) -> tuple[str, Positions | None]:
        key = f"{kind}:{selection!r}"
        return key, self._memo.get(key)

    def _remember(self, key: str, pos: Positions, selection: Selection | None = None) -> Positions:
        """Keep ``pos`` for the same selection until the cache changes (a recall asks for one scope several
        times; scope selections are carried over a sync that only appends rows); the last MEMO selections only.
        Callers never modify positions."""
        if len(self._memo) >= MEMO:
            oldest = next(iter(self._memo))
            self._memo.pop(oldest)
            self._memo_selections.pop(oldest, None)
        pos.flags.writeable = False
        self._memo[key] = pos
        if selection is not None:
            self._memo_selections[key] = selection
        return pos

    def filtered_positions(self, selection: Selection, conn: sqlite3.Connection | None = None) -> Positions | None:
        """Positions of the live rows of a selection whose ``where`` names indexed properties only (scope, types
        and statuses as :meth:`scope_positions`); None when the filter needs SQL. With ``conn``, JSON properties
        the filter names are indexed in the cache first (:meth:`PropertyColumns.adopt`)."""
        if selection.where is None or selection.ids is not None or selection.valid_at is not None:
            return None
        key, known = self._remembered("filtered", selection)
        if known is not None:
            return known
        if conn is not None:
            adopted = len(self.props.adopted)
            self.props.adopt(conn, self, selection.where)
            if self.file is not None and len(self.props.adopted) > adopted:
                self.file.stale = True  # worth keeping: written at close
        mask = self.props.mask(selection.where, self)
        if mask is None:
            return None
        scope = self.scope_positions(selection.with_(where=None))
        return self._remember(key, scope[mask[scope]])

    def scope_positions(self, selection: Selection) -> Positions:
        """The positions of the live rows inside a scope/types/statuses selection (see :meth:`answers`), by the
        rule of :func:`mnemir.store.sql_filters.compile_selection`."""
        key, known = self._remembered("scope", selection)
        if known is not None:
            return known
        mask = self._scope_mask(selection, 0, self.size)
        if mask is None:
            return np.zeros(0, dtype=np.intp)
        return self._remember(key, np.flatnonzero(mask), selection)

    def _scope_codes(self, selection: Selection) -> list[tuple[str, dict[int, None]]] | None:
        """Per restricted scope column, the codes a row of the selection may hold (in the values' order); None when
        a value was never stored (no row can be inside)."""
        wanted: list[tuple[str, list[str | None]]] = []
        if selection.user_id is not ANY:
            wanted.append(("user_id", [selection.user_id]))  # type: ignore[list-item]
        for column in ("agent_id", "session_id"):
            value = getattr(selection, column)
            if value is not ANY and value is not None:  # restrict only when given
                wanted.append((column, [value]))
        if selection.types is not None:
            wanted.append(("type", list(selection.types)))
        wanted.append(("status", [str(s) for s in selection.statuses]))
        out = []
        for column, values in wanted:
            codes = self.books[column].find(values)
            if not codes:
                return None
            out.append((column, dict.fromkeys(codes)))
        return out

    def _scope_mask(self, selection: Selection, lo: int, hi: int) -> npt.NDArray[np.bool_] | None:
        """Which of the rows ``lo:hi`` are live and inside the selection (None: none can be, a value never
        stored)."""
        wanted = self._scope_codes(selection)
        if wanted is None:
            return None
        mask = self.live[lo:hi].copy()
        for column, found in wanted:
            codes = list(found)
            column_codes = self.codes[column][lo:hi]
            match = column_codes == codes[0]
            for code in codes[1:]:
                match |= column_codes == code
            mask &= match
        return mask

    def top_k(self, pos: Positions, query: Vectors, k: int) -> list[tuple[int, float]]:
        """(rid, cosine) of the ``k`` best rows at positions ``pos``, best first; ties broken by rid. Exact."""
        if not len(pos) or k <= 0:
            return []
        # einsum's own SIMD loop, not BLAS: a threaded BLAS matrix-vector product stalls for milliseconds when
        # the cores are busy, and one pass over memory is all this needs
        if len(pos) > SCORE_ALL_SHARE * self.size:
            scores = np.einsum("ij,j->i", self.matrix[: self.size], query)[pos]
        else:
            scores = np.einsum("ij,j->i", np.take(self.matrix, pos, axis=0), query)
        if k < len(pos):
            best = np.argpartition(-scores, k - 1)[:k]
        else:
            best = np.arange(len(pos))
        chosen_rids, chosen_scores = self.rids[pos[best]], scores[best]
        order = np.lexsort((chosen_rids, -chosen_scores))
        return [(int(chosen_rids[i]), float(chosen_scores[i])) for i in order]


    def top_k_many(self, pos: Positions, queries: Sequence[Vectors], k: int) -> list[list[tuple[int, float]]]:
        """:meth:`top_k` of each query, the same answers: the scope's rows are scored for all queries in one matrix
        product, which only narrows each query's candidates (every row whose product score is within
        :data:`MARGIN` of the k-th best, a bound far above the rounding of two float32 dot products of unit
        vectors); the candidates are then scored exactly as :meth:`top_k` scores them (row by row, one query at a
        time), and where the exact k-th score is tied with a row beyond it (which of the tied rows ``top_k``
        keeps depends on the whole array), that query is answered by :meth:`top_k` itself. One query is narrowed the
        same way (a matrix-vector product) where the scope has :data:`NARROW_ONE_FROM` rows or more (a governed
        ``add``'s duplicate search, a search of a large scope); below that it is :meth:`top_k`."""
        if not len(pos) or k <= 0 or k >= len(pos) or (len(queries) < 2 and len(pos) < NARROW_ONE_FROM):
            return [self.top_k(pos, query, k) for query in queries]
        # a scope of most of the cache is scored in place, the products of the rows outside it dropped after (as
        # top_k does): gathering its rows first copied them all, a fresh array of the scope's size at every call
        # (0.14-0.2 s CPU for 10k rows of 512 numbers on this machine, against 0.01-0.02 s for the product)
        whole = len(pos) > SCORE_ALL_SHARE * self.size
        everything = whole and len(pos) == self.size and bool(pos[0] == 0) and bool(pos[-1] == self.size - 1) \
            and bool(np.all(pos[1:] > pos[:-1]))  # every row, in order: no column to drop or reorder
        quantised = self._quantised() if len(pos) >= QUANTISED_FROM and 0 < len(queries) <= MAX_QUERIES else None
        narrowed = None if quantised is None else quantised.candidates(
            np.vstack(queries).astype(np.float32, copy=False), pos, whole=whole, everything=everything, k=k,
            margin=MARGIN)
        rows: Vectors | None = None
        out: list[list[tuple[int, float]]] = []
        for lo in range(0, len(queries), MANY_CHUNK):
            chunk = np.vstack(queries[lo : lo + MANY_CHUNK]).astype(np.float32, copy=False)
            found = None if narrowed is None else narrowed[lo : lo + MANY_CHUNK]
            if found is None:
                if rows is None:
                    rows = self.matrix[: self.size] if whole else np.take(self.matrix, pos, axis=0)
                with one_blas_thread():
                    # one query: a matrix-vector product (a one-row matrix product may not be routed to it)
                    approx = (rows @ chunk[0])[None, :] if len(chunk) == 1 else chunk @ rows.T  # (queries, rows)
                if whole and not everything:
                    approx = approx[:, pos]  # (queries, the scope's rows), in the order of pos
                kth = np.partition(approx, len(pos) - k, axis=1)[:, len(pos) - k]
                at, cols = np.nonzero(approx >= (kth - MARGIN)[:, None])  # row-major: by query, columns in order
                found = np.split(cols, np.flatnonzero(np.diff(at)) + 1) if len(at) else []
                if len(found) != len(chunk):  # a query without candidates (a score not finite): one by one
                    found = [np.flatnonzero(approx[j] >= kth[j] - MARGIN) for j in range(len(chunk))]
            out.extend(self._rescored(pos, queries[lo : lo + MANY_CHUNK], found, k))
        return out

    def _rescored(self, pos: Positions, queries: Sequence[Vectors], found: Sequence[npt.NDArray[np.intp]],
                  k: int) -> list[list[tuple[int, float]]]:
        """Each query's best ``k`` among its candidates ``found`` (indices into ``pos``), scored exactly as
        :meth:`top_k` scores them: einsum's value for a row is its own dot product, whichever rows are scored with
        it, so every query's candidates are scored in one call ("ij,ij->i" over the candidates' rows beside their
        query: the same per-row loop as "ij,j->i", the same bits) and ranked in one sort by (query, score
        descending, rid). Where the exact k-th score ties with a candidate beyond it (which of the tied rows
        ``top_k`` keeps depends on the whole array), or a score is not finite, that query is answered by
        :meth:`top_k` itself. Queries of different dtypes (einsum computes in the wider one) are scored one by
        one."""
        if not queries:
            return []
        stacked = np.asarray(queries[0])
        if len(queries) > 1 and any(np.asarray(q).dtype != stacked.dtype or np.ndim(q) != 1 for q in queries):
            return [self._rescored(pos, [q], [near], k)[0] for q, near in zip(queries, found, strict=True)]
        stacked = np.vstack(queries)
        sizes = np.fromiter((len(near) for near in found), dtype=np.intp, count=len(found))
        flat = np.concatenate(found) if len(found) else np.zeros(0, dtype=np.intp)
        owner = np.repeat(np.arange(len(found)), sizes)
        scores = np.einsum("ij,ij->i", self.matrix[pos[flat]], stacked[owner])
        rids = self.rids[pos[flat]]
        order = np.lexsort((rids, -scores, owner))  # within each query: best first, ties by rid
        ranked_scores, ranked_rids = scores[order].tolist(), rids[order].tolist()
        finite = np.isfinite(scores)
        bad = set(owner[~finite].tolist()) if not np.all(finite) else set()
        out: list[list[tuple[int, float]]] = []
        start = 0
        for j, size in enumerate(sizes.tolist()):
            if j in bad or (size > k and ranked_scores[start + k - 1] == ranked_scores[start + k]):
                out.append(self.top_k(pos, queries[j], k))
            else:
                top = start + min(k, size)
                out.append(list(zip(ranked_rids[start:top], ranked_scores[start:top], strict=True)))
            start += size
        return out

    def _quantised(self) -> Quantised | None:
        """The rows' int8 copy, caught up with the appended rows (made at the first call); None without numkong or
        once a row was not finite."""
        if kernels() is None or not self.size:
            return None
        if self.quantised is None or self.quantised.rows.shape[1] != self.dim or self.quantised.upto > self.size:
            self.quantised = Quantised.of(self.matrix, self.size)
        else:
            self.quantised.follow(self.matrix, self.size)
        return self.quantised if self.quantised.sound else None


G = TypeVar("G", bound=np.generic)


def _extended(pos: Positions, added: Positions) -> Positions:
    """``pos`` followed by ``added``, without copying ``pos`` when it is the head of a buffer with room after it
    (appends are amortised: a large scope is not copied at every write). Earlier results stay valid: they are views
    of the part of the buffer that is never written again."""
    n, k = len(pos), len(added)
    base = pos.base
    if isinstance(base, np.ndarray) and base.ndim == 1 and base.dtype == np.intp and pos.flags.c_contiguous \
            and base.__array_interface__["data"][0] == pos.__array_interface__["data"][0] and n + k <= len(base) \
            and base.flags.writeable and base[n:].size >= k:
        base[n : n + k] = added
        return base[: n + k]
    buffer = np.empty(room_for(n + k, n), dtype=np.intp)
    buffer[:n] = pos
    buffer[n : n + k] = added
    return buffer[: n + k]


def room_for(size: int, capacity: int) -> int:
    """The capacity to grow to for ``size`` rows: half as much again as now, and a sixteenth more than asked
    (plus 1024), so that the first appends after a whole load find room."""
    return max(size + size // 16 + 1024, int(capacity * 1.5) + 16)


def _grown(values: npt.NDArray[G], capacity: int) -> npt.NDArray[G]:
    out = np.zeros(capacity, dtype=values.dtype)
    out[: len(values)] = values
    return out
