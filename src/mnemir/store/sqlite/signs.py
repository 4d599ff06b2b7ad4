"""Approximate search for large candidate sets: one sign bit per dimension, then exact rescoring.

Exact scoring reads every candidate's float32 row (2 KiB at 512-d): at 1M rows and a 15 % filter that is 300 MB
per query, ~100-300 ms on this project's 2-core machine. Beside its float32 matrix the vector cache can keep a
*sign code* of each row: bit ``j`` is set when component ``j`` is above the store's mean vector (64 bytes at
512-d, 1/32 of the row). A search over a large candidate set then

1. counts, for every candidate, the bits where its code differs from the query's (Hamming distance, in blocks that
   stay in the CPU cache, over codes stored word-major so that each pass is one vectorised loop);
2. keeps the ``rescore`` candidates of smallest distance (a histogram of the distances, 0..dim, gives the
   threshold in one pass: no sort);
3. scores those exactly from the float32 matrix and returns the best ``k``: every score returned is exact.

**Calibrated, or not used.** When the codes are built (at the first search that wants them) the rescoring depth
is chosen on sample queries (stored vectors 45 degrees off, and means of three stored vectors), answered over the
whole cache and over a random 15 % of it: the smallest depth whose recall@10 against exact scoring reaches
:data:`TARGET_RECALL` + :data:`CALIBRATION_MARGIN` in both. If none does, the codes are marked unusable and every
search stays exact. The calibration is repeated when the cache has doubled since.

**Never fewer hits.** At least ``k`` candidates (all of them, when fewer) are rescored. The codes follow the
cache row for row (new, replaced and compacted rows), so deleted or out-of-scope rows are never candidates.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors

if TYPE_CHECKING:
    from mnemir.store.sqlite.vectors import Positions, VectorCache

#: candidate sets at least this large are answered from the codes (smaller ones are cheap to score exactly)
MIN_CANDIDATES = 30_000
#: rescoring depths the calibration tries, in order
DEPTHS = (200, 400, 800, 1600, 3200, 6400)
TARGET_RECALL = 0.98
CALIBRATION_MARGIN = 0.01
CALIBRATION_QUERIES = 64
#: share of the cache of the calibration's filtered case
CALIBRATION_SHARE = 0.15
#: rows per block of the distance computation (the block's codes and distances stay in the CPU cache)
BLOCK = 32_768
#: above this share of the cache, distances are computed for every row and the candidates' taken from them
#: (gathering codes row by row costs more than the whole pass)
ALL_ROWS_SHARE = 0.3
ENCODE_SLICE = 65_536


@dataclass
class SignPlan:
    #: candidates rescored exactly per search
    depth: int
    recall: float
    usable: bool
    reason: str
    #: cache rows at calibration (recalibrated when the cache has doubled)
    size: int
    seconds: float

    def describe(self) -> dict[str, Any]:
        return asdict(self)


def words(dim: int) -> int:
    return (dim + 63) // 64


def encode(rows: Vectors, mean: Vectors) -> npt.NDArray[np.uint64]:
    """Sign codes of ``rows``: (words, len(rows)) uint64, word-major."""
    bits = np.packbits(np.asarray(rows, dtype=np.float32) > mean, axis=1)
    width = words(len(mean)) * 8
    if bits.shape[1] != width:
        bits = np.pad(bits, ((0, 0), (0, width - bits.shape[1])))
    return np.ascontiguousarray(bits.view(np.uint64).T)


def build(cache: VectorCache) -> None:
    """Give the cache sign codes for every row (the mean vector from a sample of the live rows)."""
    live = np.flatnonzero(cache.live[: cache.size])
    sample = cache.matrix[live[:: max(1, len(live) // 20_000)]] if len(live) else cache.matrix[:1]
    mean = np.asarray(sample.mean(axis=0), dtype=np.float32)
    codes = np.zeros((words(cache.dim), cache.capacity), dtype=np.uint64)
    for lo in range(0, cache.size, ENCODE_SLICE):
        hi = min(cache.size, lo + ENCODE_SLICE)
        codes[:, lo:hi] = encode(cache.matrix[lo:hi], mean)
    cache.signs, cache.sign_mean = codes, mean


def distances(codes: npt.NDArray[np.uint64], query: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint16]:
    """Hamming distance of each column of ``codes`` (words, n) to ``query`` (words,)."""
    n = codes.shape[1]
    out = np.zeros(n, dtype=np.uint16)
    x = np.empty(min(BLOCK, n), dtype=np.uint64)
    b = np.empty(min(BLOCK, n), dtype=np.uint8)
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
        xs, bs, acc = x[: hi - lo], b[: hi - lo], out[lo:hi]
        for w in range(codes.shape[0]):
            np.bitwise_xor(codes[w, lo:hi], query[w], out=xs)
            np.bitwise_count(xs, out=bs)
            np.add(acc, bs, out=acc)
    return out


def nearest(dist: npt.NDArray[np.uint16], depth: int) -> npt.NDArray[np.intp]:
    """Indices of the ``depth`` smallest distances (all of them when fewer; ties at the threshold by index)."""
    if depth >= len(dist):
        return np.arange(len(dist))
    counts = np.cumsum(np.bincount(dist))
    threshold = int(np.searchsorted(counts, depth))  # the smallest t with count(dist <= t) >= depth
    chosen = np.flatnonzero(dist <= threshold)
    if len(chosen) > depth:  # drop the last of the rows tied at the threshold
        tied = np.flatnonzero(dist[chosen] == threshold)
        chosen = np.delete(chosen, tied[len(tied) - (len(chosen) - depth):])
    return chosen


def top_k(cache: VectorCache, pos: Positions, query: Vectors, k: int, depth: int) -> list[tuple[int, float]]:
    """(rid, exact cosine) of the best ``k`` rows among ``pos``, best first (ties by rid), from the ``depth``
    candidates nearest by sign code."""
    return _rescored(cache, pos, _candidate_distances(cache, pos, query), query, k, depth)


def top_k_many(cache: VectorCache, pos: Positions, queries: Sequence[Vectors], k: int,
               depth: int) -> list[list[tuple[int, float]]]:
    """:func:`top_k` of each query: the codes of ``pos`` gathered once (not once per query); each query's Hamming
    distances, candidates and exact scores are then those :func:`top_k` computes for it alone."""
    assert cache.signs is not None and cache.sign_mean is not None
    if len(queries) < 2 or len(pos) == cache.size or len(pos) > ALL_ROWS_SHARE * cache.size:
        return [top_k(cache, pos, query, k, depth) for query in queries]  # nothing gathered per query to share
    coded = encode(np.vstack(queries), cache.sign_mean)
    codes = np.take(cache.signs, pos, axis=1)
    return [_rescored(cache, pos, distances(codes, coded[:, i]), query, k, depth) for i, query in enumerate(queries)]


def _candidate_distances(cache: VectorCache, pos: Positions, query: Vectors) -> npt.NDArray[np.uint16]:
    assert cache.signs is not None and cache.sign_mean is not None
    q = encode(query[None, :], cache.sign_mean)[:, 0]
    if len(pos) == cache.size:  # every row (positions are sorted and unique)
        return distances(cache.signs[:, : cache.size], q)
    if len(pos) > ALL_ROWS_SHARE * cache.size:
        return distances(cache.signs[:, : cache.size], q)[pos]
    return distances(np.take(cache.signs, pos, axis=1), q)


def _rescored(cache: VectorCache, pos: Positions, dist: npt.NDArray[np.uint16], query: Vectors, k: int,
              depth: int) -> list[tuple[int, float]]:
    at = pos[nearest(dist, max(depth, k))]
    scores = np.einsum("ij,j->i", np.take(cache.matrix, at, axis=0), query)
    rids = cache.rids[at]
    order = np.lexsort((rids, -scores))[:k]
    return [(int(rids[i]), float(scores[i])) for i in order]



def calibration_queries(matrix: Vectors, live: Positions, rng: np.random.Generator,
                        count: int) -> Vectors:
    """Sample queries for calibrating an approximate search on the stored vectors: half are a stored vector moved 45
    degrees off in a random direction, half the mean of three stored vectors (both unit length)."""
    picks = live[rng.integers(0, len(live), size=(count, 3))]
    half = count // 2
    queries = matrix[picks[:, 0]].copy()
    queries[half:] += matrix[picks[half:, 1]] + matrix[picks[half:, 2]]
    noise = rng.standard_normal(queries[:half].shape).astype(np.float32)
    queries[:half] += noise / np.linalg.norm(noise, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return queries

def calibrate(cache: VectorCache, k: int = 10) -> SignPlan:
    """The smallest rescoring depth whose recall@k reaches the target on sample queries (see the module doc)."""
    began = time.perf_counter()
    live = np.flatnonzero(cache.live[: cache.size])
    if len(live) < max(2 * k, MIN_CANDIDATES // 10):
        return SignPlan(DEPTHS[0], 1.0, False, "too few rows", cache.size, 0.0)
    rng = np.random.default_rng(len(live))
    queries = calibration_queries(cache.matrix, live, rng, CALIBRATION_QUERIES)
    subset = np.sort(rng.choice(live, size=max(k, int(CALIBRATION_SHARE * len(live))), replace=False))
    matrix = cache.matrix[: cache.size]
    cases = []
    for q in queries:
        scores = np.einsum("ij,j->i", matrix, q)
        for pos in (live, subset):
            s = scores[pos]
            truth = set(cache.rids[pos[np.argpartition(-s, k - 1)[:k]]].tolist())
            cases.append((q, pos, truth, _candidate_distances(cache, pos, q)))
    recall = 0.0
    for depth in DEPTHS:
        found = []
        for q, pos, truth, dist in cases:
            got = {rid for rid, _ in _rescored(cache, pos, dist, q, k, depth)}
            found.append(len(got & truth) / k)
        recall = float(np.min([np.mean(found[0::2]), np.mean(found[1::2])]))
        if recall >= TARGET_RECALL + CALIBRATION_MARGIN:
            return SignPlan(depth, recall, True, f"recall@{k} {recall:.3f} rescoring {depth}", cache.size,
                            time.perf_counter() - began)
    return SignPlan(DEPTHS[-1], recall, False, f"recall@{k} {recall:.3f} below {TARGET_RECALL} rescoring "
                    f"{DEPTHS[-1]}", cache.size, time.perf_counter() - began)


def ensure(cache: VectorCache) -> SignPlan:
    """The cache's codes and calibration, built (or recalibrated, once the cache has doubled) when needed."""
    if not hasattr(np, "bitwise_count"):  # numpy < 2.0: no vectorised popcount; searches stay exact
        return SignPlan(DEPTHS[0], 0.0, False, "needs numpy >= 2.0 (bitwise_count)", cache.size, 0.0)
    if cache.signs is None:
        build(cache)
        cache.sign_plan = None
    plan = cache.sign_plan
    if plan is None or cache.size > 2 * plan.size:
        plan = cache.sign_plan = calibrate(cache)
    return plan
