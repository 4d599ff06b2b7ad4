"""The approximate index for large scopes: an HNSW graph (usearch) kept as a rebuildable cache file beside the store.

Exact scoring (:mod:`mnemir.store.sqlite.vectors`) costs one pass over the candidate rows: 14 ms for 100k rows of
512-d on this project's 2-core machine, ten times that at 1M. For large, weakly filtered candidate sets the store
can ask this index instead. The rules:

* **Planned by cardinality.** The candidate set is known exactly before scoring (numpy masks or SQL); only sets of
  at least ``min_candidates`` rows that are at least ``min_share`` of the cache go to the index. Selective
  filters keep exact scoring (they are cheap: few rows to gather).
* **Exact scores, never fewer hits.** The index proposes ``ceil(k / share * OVERSAMPLE) + k`` rows of the whole
  store; those inside the selection are re-scored exactly from the in-process matrix. When fewer than
  ``min(k, candidates)`` of them are inside the selection, the search falls back to exact scoring.
* **Calibrated recall.** After a build, the search width (``expansion_search``) is raised until recall@10 against
  exact scoring reaches ``target_recall`` + 0.01 on sample queries (stored vectors, perturbed, and mid-points of
  two stored vectors); if no width reaches it, or the index is not faster than exact scoring at that width, the
  index is marked unusable and every search stays exact. The measured recall and width are kept in the file.
* **A cache, never the truth.** The file ``<store>.ann`` holds a header (the store's ``ann_uid`` and the
  ``write_seq`` it reflects, model, dimension, calibration, a CRC of the payload) and the serialised graph, written
  atomically. It survives restarts; on load it is checked (CRC, store identity, model, dimension, sequence not
  ahead of the store) and rebuilt when anything is off (a corrupt, foreign or stale-beyond-repair file).
* **Follows every writer.** Before each use the index catches up with ``meta.write_seq`` (writes of this process
  or any other): vectors written since its sequence (``embeddings.seq``) are replaced, hard-deleted rows removed;
  when more than a quarter of the rows changed it is rebuilt. Deleted or out-of-scope rows it still holds can
  never be returned (the cache's live mask and the selection decide), they only cost recall until the catch-up.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
import uuid
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors
from mnemir.errors import MissingDependencyError
from mnemir.store.sqlite.signs import calibration_queries
from mnemir.store.sqlite.vectors import Positions, VectorCache

#: candidate sets smaller than this are scored exactly (exact costs ~1.4 ms per 10k rows of 512-d here)
MIN_CANDIDATES = 50_000
#: ... and so are selections that keep less than this share of the store (oversampling would grow too large)
MIN_SHARE = 0.1
#: the index proposes this many times k / share rows (selection share), so that k of them fall inside the selection
OVERSAMPLE = 2.0
#: at least this many times k proposals are re-scored exactly: the 8-bit distances rank near-ties loosely, the
#: exact scores of a few hundred rows cost little next to the graph search (which visits ``width`` nodes anyway)
RESCORED = 20
#: recall@10 the calibration must reach (+ CALIBRATION_MARGIN) for the index to be used at all
TARGET_RECALL = 0.98
CALIBRATION_MARGIN = 0.01
#: search widths tried by the calibration, in order
WIDTHS = (32, 64, 128, 256, 512, 1024, 2048)
#: sample queries of the calibration
CALIBRATION_QUERIES = 64
#: the index is used only when it beats exact scoring on the calibration queries (tests switch this off to force
#: the index on stores too small for it to pay off)
REQUIRE_FASTER = True
#: rebuild instead of catching up when more than this share of the rows changed
REBUILD_SHARE = 0.25
#: the graph's scalar type and insertion width: 8-bit components make distances ~3x cheaper than float32 to compute
#: and a width of 64 halves the build again (one thread: ~1,300 against ~210 vectors/s of 512-d on this project's
#: shared 2-core machine); the proposals are re-scored exactly from the float32 matrix, and the calibration widens
#: the search until recall reaches the target, so the coarser graph costs search width, never recall
DTYPE, CONNECTIVITY, EXPANSION_ADD = "i8", 16, 64
FORMAT = 2
#: vectors per insert call of a build
BUILD_SLICE = 50_000
MAGIC = b"MNEMIR-ANN\n"


def _usearch() -> Any:
    try:
        from usearch.index import Index
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("the approximate vector index", "usearch", "ann") from exc
    return Index


@dataclass
class Header:
    format: int
    store_uid: str
    seq: int
    model: str
    dim: int
    count: int
    width: int
    recall: float
    usable: bool
    reason: str
    #: vectors are multiplied by this before entering the 8-bit graph (components of unit vectors are small: without
    #: it, most would round to a few levels of the 256)
    scale: float = 1.0
    crc: int = 0


class AnnIndex:
    """The HNSW cache of one SQLite store (``path``: the index file). Used inside the store's read transactions."""

    def __init__(self, path: Path, *, min_candidates: int = MIN_CANDIDATES, min_share: float = MIN_SHARE,
                 target_recall: float = TARGET_RECALL) -> None:
        self.Index = _usearch()
        self.path = path
        self.min_candidates, self.min_share, self.target_recall = min_candidates, min_share, target_recall
        self.index: Any = None
        self.header: Header | None = None
        self.dirty = False
        #: what the last search did ("ann", "exact: <why>"), for benchmarks and tests
        self.last_path = "exact"
        self.builds = 0

    # -- planning ------------------------------------------------------------------------
    def wanted(self, candidates: int, size: int) -> bool:
        return candidates >= self.min_candidates and size > 0 and candidates / size >= self.min_share

    # -- searching -----------------------------------------------------------------------
    def top_k(self, conn: sqlite3.Connection, cache: VectorCache, pos: Positions, query: Vectors,
              k: int) -> list[tuple[int, float]] | None:
        """(rid, exact cosine) of the best ``k`` rows among ``pos``, or None: score exactly instead."""
        if not self.ensure(conn, cache):
            self.last_path = f"exact: {self.header.reason if self.header else 'no index'}"
            return None
        assert self.header is not None
        share = len(pos) / cache.size
        count = min(max(math.ceil(k / share * OVERSAMPLE) + k, RESCORED * k), len(self.index))
        self.index.expansion_search = max(self.header.width, count)
        rids = self._propose(query, count, self.header.scale)
        at, known = cache.positions(rids)
        inside = np.zeros(cache.size, dtype=bool)
        inside[pos] = True
        at = at[known]
        at = at[inside[at]]
        if len(at) < min(k, len(pos)):
            self.last_path = "exact: too few proposals inside the selection"
            return None
        scores = np.einsum("ij,j->i", cache.matrix[at], query)  # exact scores of the proposed rows
        chosen_rids = cache.rids[at]
        order = np.lexsort((chosen_rids, -scores))[:k]
        self.last_path = "ann"
        return [(int(chosen_rids[i]), float(scores[i])) for i in order]

    def _propose(self, query: Vectors, count: int, scale: float) -> npt.NDArray[np.int64]:
        found = self.index.search(_scaled(query, scale), count)
        return np.asarray(found.keys, dtype=np.int64)

    # -- keeping in step -----------------------------------------------------------------
    def ensure(self, conn: sqlite3.Connection, cache: VectorCache) -> bool:
        """Make the index reflect the cache (same write_seq): load, catch up or rebuild. Whether it is usable."""
        uid = _store_uid(conn)
        if self.header is None or self.header.store_uid != uid or self.header.model != cache.model or \
                self.header.dim != cache.dim:
            self._load(uid, cache)
        if self.header is not None and self.header.seq > cache.seq:
            self.index, self.header = None, None  # a file from a future that never happened (store restored)
        if self.header is None:
            self._build(conn, cache, uid)
        elif self.header.seq < cache.seq:
            self._catch_up(conn, cache, uid)
        assert self.header is not None
        return self.header.usable

    def _load(self, uid: str, cache: VectorCache) -> None:
        self.index, self.header = None, None
        try:
            data = self.path.read_bytes()
        except OSError:
            return
        try:
            if not data.startswith(MAGIC):
                raise ValueError("not an index file")
            end = data.index(b"\n", len(MAGIC))
            header = Header(**json.loads(data[len(MAGIC) : end]))
            payload = memoryview(data)[end + 1 :]
            if header.format != FORMAT or zlib.crc32(payload) != header.crc:
                raise ValueError("corrupt")
            if header.store_uid != uid or header.model != cache.model or header.dim != cache.dim:
                raise ValueError("another store or model")
            index = self.Index.restore(bytes(payload)) if header.count else None
        except (ValueError, TypeError, KeyError, json.JSONDecodeError, RuntimeError):
            return  # rebuilt by the caller
        if header.count and (index is None or len(index) != header.count):
            return
        self.index, self.header = index, header

    def recalibrate(self, conn: sqlite3.Connection, cache: VectorCache) -> dict[str, Any]:
        """Calibrate the loaded graph again (after a change of the search rules), without rebuilding it."""
        if self.header is None:
            self._load(_store_uid(conn), cache)
        if self.header is None or self.index is None:
            return self.describe()
        live = np.flatnonzero(cache.live[: cache.size])
        width, recall, usable, reason = self._calibrate(cache, live, self.header.scale)
        self.header.width, self.header.recall, self.header.usable, self.header.reason = width, recall, usable, reason
        self.save()
        return self.describe()

    def _build(self, conn: sqlite3.Connection, cache: VectorCache, uid: str) -> None:
        live = np.flatnonzero(cache.live[: cache.size])
        index = self.Index(ndim=cache.dim, metric="ip", dtype=DTYPE, connectivity=CONNECTIVITY,
                           expansion_add=EXPANSION_ADD)
        scale = _scale_for(cache.matrix, live)
        # one thread: a concurrent insert builds a different graph on every run, so what the index finds (and
        # whether it matches exact scoring) would change from one build to the next; in slices, so that the
        # scaled copy stays small (inserting slice after slice is the same sequence of inserts)
        for lo in range(0, len(live), BUILD_SLICE):
            at = live[lo : lo + BUILD_SLICE]
            index.add(cache.rids[at].astype(np.uint64), _scaled(cache.matrix[at], scale), threads=1)
        self.index = index
        self.builds += 1
        width, recall, usable, reason = self._calibrate(cache, live, scale)
        self.header = Header(FORMAT, uid, cache.seq, str(cache.model), cache.dim, len(index), width, recall, usable,
                             reason, scale)
        self.save()

    def _calibrate(self, cache: VectorCache, live: Positions, scale: float,
                   k: int = 10) -> tuple[int, float, bool, str]:
        """The search width to use: twice the smallest width whose recall@k reaches the target on sample queries
        (queries far from any stored vector are harder than the samples: hence the factor), and whether the index
        beats exact scoring at that width. Each query is answered as :meth:`top_k` answers an unfiltered search:
        ``RESCORED * k`` proposals, re-scored exactly."""
        if len(live) < 2 * k:
            return WIDTHS[0], 1.0, False, "too few rows"
        rng = np.random.default_rng(len(live))
        queries = calibration_queries(cache.matrix, live, rng, CALIBRATION_QUERIES)
        matrix, alive = cache.matrix[: cache.size], cache.live[: cache.size]
        began = time.perf_counter()
        exact = []
        for q in queries:
            scores = np.einsum("ij,j->i", matrix, q)
            scores[~alive] = -np.inf
            exact.append(set(cache.rids[np.argpartition(-scores, k - 1)[:k]].tolist()))
        exact_s = (time.perf_counter() - began) / len(queries)

        def measure(width: int) -> tuple[float, float]:
            self.index.expansion_search = max(width, k)
            began = time.perf_counter()
            found = []
            for q in queries:
                at, known = cache.positions(self._propose(q, min(RESCORED * k, len(self.index)), scale))
                at = at[known]
                best = at[np.argsort(-np.einsum("ij,j->i", cache.matrix[at], q), kind="stable")[:k]]
                found.append(set(cache.rids[best].tolist()))
            ann_s = (time.perf_counter() - began) / len(queries)
            return float(np.mean([len(f & e) / k for f, e in zip(found, exact, strict=True)])), ann_s

        recall = 0.0
        for width in WIDTHS:
            recall, _ = measure(width)
            if recall >= self.target_recall + CALIBRATION_MARGIN:
                width = min(2 * width, WIDTHS[-1])
                recall, ann_s = measure(width)
                if REQUIRE_FASTER and ann_s >= exact_s:
                    return width, recall, False, f"not faster than exact at width {width}"
                return width, recall, True, f"recall@{k} {recall:.3f} at width {width}"
        return WIDTHS[-1], recall, False, f"recall@{k} {recall:.3f} below {self.target_recall} at every width"

    def _catch_up(self, conn: sqlite3.Connection, cache: VectorCache, uid: str) -> None:
        assert self.header is not None
        since = self.header.seq
        changed = np.array([r for (r,) in conn.execute(
            "SELECT rid FROM embeddings WHERE seq > ? AND model_id = ?", (since, cache.model))], dtype=np.int64)
        gone = np.array([r for (r,) in conn.execute("SELECT rid FROM deleted WHERE seq > ?", (since,))],
                        dtype=np.int64)
        if len(changed) + len(gone) > REBUILD_SHARE * max(self.header.count, 1) or self.index is None:
            self._build(conn, cache, uid)
            return
        stale = np.concatenate([changed, gone]).astype(np.uint64)
        if len(stale):
            held = np.array([self.index.contains(key) for key in stale.tolist()], dtype=bool)
            if held.any():
                self.index.remove(stale[held])
        at, known = cache.positions(changed)
        at = at[known]
        at = at[cache.live[at]]
        if len(at):
            self.index.add(cache.rids[at].astype(np.uint64), _scaled(cache.matrix[at], self.header.scale), threads=1)
        self.header.seq, self.header.count = cache.seq, len(self.index)
        self.dirty = True

    def save(self) -> None:
        """Write the file atomically (a reader never sees half of it; the last writer wins)."""
        if self.header is None:
            return
        payload = bytes(self.index.save()) if self.index is not None and len(self.index) else b""
        self.header.crc = zlib.crc32(payload)
        tmp = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(MAGIC + json.dumps(asdict(self.header)).encode() + b"\n")
                fh.write(payload)
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)  # a cache: not being able to keep it is not an error
            return
        self.dirty = False

    def close(self) -> None:
        if self.dirty:
            self.save()

    def describe(self) -> dict[str, Any]:
        return asdict(self.header) if self.header else {}


def _scale_for(matrix: Vectors, live: Positions) -> float:
    """The factor that brings nearly all components (all but one in 10,000, clipped) to [-1, 1]: the 8-bit graph
    stores ``round(127 * x)``."""
    if not len(live):
        return 1.0
    sample = matrix[live[:: max(1, len(live) // 2000)]]
    top = float(np.quantile(np.abs(sample), 0.9999))
    return 1.0 / top if top > 0 else 1.0


def _scaled(rows: Vectors, scale: float) -> Vectors:
    return np.clip(rows * np.float32(scale), -1.0, 1.0).astype(np.float32)


def _store_uid(conn: sqlite3.Connection) -> str:
    """The store's identity (meta ``ann_uid``), so that an index file is never used for another store. Written by
    :func:`ensure_store_uid` when the index is first enabled."""
    found = conn.execute("SELECT value FROM meta WHERE key = 'ann_uid'").fetchone()
    return str(found[0]) if found else ""


def ensure_store_uid(conn: sqlite3.Connection) -> None:
    """Give the store an identity for its index files (inside a write transaction)."""
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('ann_uid', ?)", (uuid.uuid4().hex,))
