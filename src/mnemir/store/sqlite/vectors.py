"""Exact vector search: an in-process matrix of every vector, scored on the rows SQL selected.

A search is: SQL picks the candidate rows (scope, types, statuses, ``where``,
ids, ``valid_at``) -> their rows in the cached matrix -> one matrix-vector
product -> ``argpartition``. Exact whatever the filter's selectivity.

The cache is kept in step with the database through ``meta.vector_seq``: every
write transaction that stores vectors bumps it and stamps its rows with it, so a
reader (this process or another) loads just the rows newer than the ones it
holds, in the same read transaction as its candidate query (one snapshot).
Row ids (``records.rid``) are never reused, so a deleted record's stale row in
the cache is harmless: SQL never selects it again.

:func:`plan_search` is the seam for an approximate index for large unfiltered
scopes (a later step); today every plan is exact.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors

#: below this many candidates exact scoring is fast enough that an ANN index would not pay off
ANN_MIN_CANDIDATES = 200_000
#: above this share of the cache, scoring every row and picking the candidates beats gathering them first
#: (gathering copies rows and is memory-bound: measured on 2 cores, the two cross at about 15 %)
SCORE_ALL_SHARE = 0.15


@dataclass(frozen=True)
class SearchPlan:
    method: Literal["exact", "ann"]
    candidates: int
    reason: str


class AnnIndex(Protocol):
    """What an approximate index must offer to be planned in (none exists yet)."""

    def search(self, rids: npt.NDArray[np.int64], query: Vectors, k: int) -> list[tuple[int, float]]:
        """(rid, cosine) of about the ``k`` best among ``rids``, best first."""
        ...


def plan_search(candidates: int, *, ann_available: bool = False,
                min_ann_candidates: int = ANN_MIN_CANDIDATES) -> SearchPlan:
    """Exact for selective filters and small stores; ANN (when an index exists) for very large candidate sets."""
    if ann_available and candidates >= min_ann_candidates:
        return SearchPlan("ann", candidates, f"{candidates} candidates >= {min_ann_candidates}")
    reason = "no ANN index" if not ann_available else f"{candidates} candidates < {min_ann_candidates}"
    return SearchPlan("exact", candidates, reason)


class VectorCache:
    """Every vector of the store's embedding model, as one float32 matrix ordered by ``rid``."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, model: str | None) -> None:
        self.model = model
        self.seq = -1
        self.size = 0
        self.rids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.matrix: Vectors = np.zeros((0, 0), dtype=np.float32)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def sync(self, conn: sqlite3.Connection) -> None:
        """Load the vectors written since the last sync (all of them the first time or after a model change)."""
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('vector_seq', 'embedding_model')"))
        model, seq = meta.get("embedding_model"), int(meta.get("vector_seq", "0"))
        if model != self.model:
            self._reset(model)
        if seq == self.seq or model is None:
            return
        found = conn.execute("SELECT rid, vector FROM embeddings WHERE seq > ? AND model_id = ? ORDER BY rid",
                             (self.seq, model)).fetchall()
        if found:
            rids = np.fromiter((r for r, _ in found), dtype=np.int64, count=len(found))
            dim = len(found[0][1]) // 4
            matrix = np.frombuffer(b"".join(b for _, b in found), dtype="<f4").reshape(len(found), dim)
            self._merge(rids, matrix.astype(np.float32, copy=False))
        self.seq = seq

    def _merge(self, rids: npt.NDArray[np.int64], rows: Vectors) -> None:
        if self.size == 0:
            self.rids, self.matrix, self.size = rids.copy(), rows.copy(), len(rids)
            return
        pos, known = self.positions(rids)
        self.matrix[pos[known]] = rows[known]
        new_rids, new_rows = rids[~known], rows[~known]
        if not len(new_rids):
            return
        if new_rids[0] > self.rids[self.size - 1]:  # the usual case: rids only grow
            self._append(new_rids, new_rows)
        else:  # defensive: keep the order by rid
            all_rids = np.concatenate([self.rids[: self.size], new_rids])
            all_rows = np.vstack([self.matrix[: self.size], new_rows])
            order = np.argsort(all_rids, kind="stable")
            self.rids, self.matrix, self.size = all_rids[order], all_rows[order], len(all_rids)

    def _append(self, rids: npt.NDArray[np.int64], rows: Vectors) -> None:
        need = self.size + len(rids)
        if need > len(self.rids):  # grow geometrically so appends stay cheap
            capacity = max(need, int(len(self.rids) * 1.5) + 16)
            grown_rids = np.zeros(capacity, dtype=np.int64)
            grown_rids[: self.size] = self.rids[: self.size]
            grown = np.zeros((capacity, self.dim), dtype=np.float32)
            grown[: self.size] = self.matrix[: self.size]
            self.rids, self.matrix = grown_rids, grown
        self.rids[self.size : need] = rids
        self.matrix[self.size : need] = rows
        self.size = need

    def positions(self, rids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """Row positions of ``rids`` and which of them the cache holds."""
        held = self.rids[: self.size]
        pos = np.searchsorted(held, rids)
        pos = np.minimum(pos, max(self.size - 1, 0))
        known = held[pos] == rids if self.size else np.zeros(len(rids), dtype=bool)
        return pos, known

    def top_k(self, rids: npt.NDArray[np.int64], query: Vectors, k: int) -> list[tuple[int, float]]:
        """(rid, cosine) of the ``k`` best among ``rids``, best first; ties broken by rid. Exact."""
        pos, known = self.positions(rids)
        pos = pos[known]
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
        chosen_rids = self.rids[pos[best]]
        order = np.lexsort((chosen_rids, -scores[best]))
        return [(int(chosen_rids[i]), float(scores[best][i])) for i in order]
