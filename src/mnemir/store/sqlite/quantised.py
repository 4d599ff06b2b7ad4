"""An exact first pass in 8-bit integers: which rows can be among a query's best ``k``, from a quarter of the bytes.

An exact search of a large scope reads every row of the float32 matrix once (10k rows of 512-d: 20 MB, 1.2 ms in
cache and ~2 ms cold on this project's shared machine). Beside the matrix the vector cache can keep an int8 copy of
each row, ``r = clip(round(x * c), -127, 127)`` with one factor ``c`` for the store, and for each row two numbers:
``err = |x - r / c|`` (what rounding and clipping lost) and ``norm = |r / c|``. For a query ``q`` quantised the same
way (``p``, with ``qerr = |q - p / c|``), Cauchy-Schwarz bounds the true score:

    |q . x - (p . r) / c**2|  <=  |q| * err  +  qerr * norm

The integer products are computed by numkong's int8 kernels (a dependency of usearch, the ``ann`` extra; VNNI
where the CPU has it): one query against 10k rows 0.4 ms in cache (the float32 product: 1.2-1.5 ms). Only a few
queries at a time (:data:`MAX_QUERIES`): for many, the float32 matrix product is as cheap. A row whose upper bound is below the
``k``-th largest lower bound cannot be among the best ``k`` (nor tied with the ``k``-th); every other row is a
candidate, and the candidates are scored exactly, as before (:meth:`VectorCache.top_k_many`). The answer is the
exact search's answer by construction; the bounds only decide how many rows are rescored (for unit vectors of
512-d, ``err`` is ~0.009: rows within ~0.04 of the ``k``-th score).

Without numkong (or with rows that are not finite) nothing is quantised and the float32 product narrows as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors

#: the integer levels on each side of zero
LEVELS = 127
#: the factor ``c`` brings all but this share of a sample's components into [-1, 1] (the rest are clipped: their
#: loss is in ``err``, so clipping costs tightness, never exactness)
CLIP_QUANTILE = 0.9999
#: the first pass answers at most this many queries at once: one pass over the int8 rows per query (~0.4 ms at
#: 10k rows); for more, the float32 matrix product of all of them is cheaper (numkong's packed int8 product of 200
#: queries by 10k rows took 3-9 ms, but picking each query's candidates from it another ~30 ms, against 18-30 ms for
#: the whole float32 narrowing)
MAX_QUERIES = 7
#: rows quantised per step (its float64 temporaries stay small: 8,192 x 512 x 8 bytes each)
SLICE = 8192

_numkong: Any = None


def kernels() -> Any:
    """numkong, or None where it is not installed (then searches narrow with the float32 product)."""
    global _numkong
    if _numkong is None:
        try:
            import numkong
        except ImportError:  # pragma: no cover - depends on the environment
            _numkong = False
        else:
            _numkong = numkong
    return _numkong or None


class Quantised:
    """The int8 copy of a cache's first ``upto`` rows, their ``err`` and ``norm``; ``factor``: ``c`` above."""

    def __init__(self, dim: int, factor: float) -> None:
        self.factor = float(factor)
        self.rows: npt.NDArray[np.int8] = np.zeros((0, dim), dtype=np.int8)
        self.err: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self.norm: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self.upto = 0
        #: False once a row was not finite (its bound would be NaN): the cache stops using the copy
        self.sound = True
        #: the last whole-copy products (query levels, upto, version, products): a recall searches one query twice
        #: over the same rows (every type, then what was said), and the second pass is then a column pick
        self._last: tuple[bytes, int, int, npt.NDArray[np.float32]] | None = None
        #: bumped whenever a quantised row changes or is added (a remembered product is then stale)
        self._version = 0

    @classmethod
    def of(cls, matrix: Vectors, size: int) -> Quantised:
        """A copy for the first ``size`` rows of ``matrix``, its factor taken from a sample of them."""
        sample = np.abs(matrix[: size : max(1, size // 2000)])
        top = float(np.quantile(sample, CLIP_QUANTILE)) if sample.size else 0.0
        factor = LEVELS / top if np.isfinite(top) and top > 0 else float(LEVELS)
        out = cls(int(matrix.shape[1]), factor)
        out.follow(matrix, size)
        return out

    def quantise(self, rows: npt.ArrayLike) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64],
                                               npt.NDArray[np.float64]]:
        """(int8 rows, err, norm) of float rows."""
        rows64 = np.asarray(rows, dtype=np.float64)
        levels = np.clip(np.rint(rows64 * self.factor), -LEVELS, LEVELS)
        back = levels / self.factor
        err = np.sqrt(np.einsum("ij,ij->i", rows64 - back, rows64 - back))
        norm = np.sqrt(np.einsum("ij,ij->i", back, back))
        return levels.astype(np.int8), err, norm

    def follow(self, matrix: Vectors, size: int) -> None:
        """Quantise the rows appended since (``upto`` up to ``size``)."""
        if size <= self.upto:
            return
        self._version += 1
        if size > len(self.rows):
            capacity = max(size + size // 16 + 1024, int(len(self.rows) * 1.5) + 16)
            rows = np.zeros((capacity, self.rows.shape[1]), dtype=np.int8)
            rows[: self.upto] = self.rows[: self.upto]
            err, norm = np.zeros(capacity), np.zeros(capacity)
            err[: self.upto], norm[: self.upto] = self.err[: self.upto], self.norm[: self.upto]
            self.rows, self.err, self.norm = rows, err, norm
        for lo in range(self.upto, size, SLICE):
            hi = min(size, lo + SLICE)
            self.rows[lo:hi], self.err[lo:hi], self.norm[lo:hi] = self.quantise(matrix[lo:hi])
        self.sound = self.sound and bool(np.all(np.isfinite(self.err[self.upto : size])))
        self.upto = size

    def replace(self, pos: npt.NDArray[np.intp], rows: Vectors) -> None:
        """Rows at ``pos`` were given new vectors (those already quantised are quantised again)."""
        inside = pos < self.upto
        if inside.any():
            self._version += 1
            at = pos[inside]
            self.rows[at], self.err[at], self.norm[at] = self.quantise(rows[inside])
            self.sound = self.sound and bool(np.all(np.isfinite(self.err[at])))

    def candidates(self, queries: Vectors, pos: npt.NDArray[np.intp], *, whole: bool, everything: bool, k: int,
                   margin: float) -> list[npt.NDArray[np.intp]] | None:
        """For each query (rows of ``queries``), the indices into ``pos`` of the rows that can be among its best ``k``
        by exact score: every row whose upper bound is within ``margin`` of the ``k``-th largest lower bound.
        ``whole``: score every quantised row in place and keep the columns of ``pos`` after (a scope of most of the
        cache; ``everything``: ``pos`` is every row in order); otherwise the rows of ``pos`` are gathered first.
        None: not answerable here (no kernels, more than :data:`MAX_QUERIES` queries, a row or query not finite)."""
        nk = kernels()
        if nk is None or not self.sound or len(queries) > MAX_QUERIES:
            return None
        queries64 = np.asarray(queries, dtype=np.float64)
        if not np.all(np.isfinite(queries64)):
            return None
        levels, qerr, _ = self.quantise(queries64)
        qnorm = np.sqrt(np.einsum("ij,ij->i", queries64, queries64))
        products = self._products(nk, levels) if whole else self._products_of(nk, levels,
                                                                              np.take(self.rows, pos, axis=0))
        if whole and not everything:
            products = products[:, pos]  # (queries, the scope's rows in the order of pos)
        # The k-th largest lower bound is at least the smallest lower bound of any k rows: those of the k largest
        # products (``limit``). A row can be among the best k only when its upper bound reaches it: first the rows
        # whose product reaches it less the largest bound of any row (one integer comparison per row; floored, in
        # product units), then each of those by its own bound. (Integer products are exact in float32 up to
        # ~1,040-d; beyond, their rounding is far below ``margin``.)
        n, scale = products.shape[1], self.factor * self.factor
        err, norm = self.err[pos], self.norm[pos]
        most = qnorm * float(err.max()) + qerr * float(norm.max())
        top = np.argpartition(products, n - k, axis=1)[:, n - k :]
        out = []
        for j in range(len(levels)):
            at = top[j]
            limit = float(np.min(products[j, at] / scale - (qnorm[j] * err[at] + qerr[j] * norm[at])))
            floor = np.floor((limit - most[j] - margin) * scale - 1.0)
            near = np.flatnonzero(products[j] >= floor)
            upper = products[j, near] / scale + (qnorm[j] * err[near] + qerr[j] * norm[near])
            out.append(near[upper >= limit - margin])
        return out

    def _products(self, nk: Any, levels: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """The queries' products with every quantised row; the last ones are reused while no row changed."""
        key = repr(levels.shape).encode() + levels.tobytes()
        last = self._last
        if last is not None and last[0] == key and last[1] == self.upto and last[2] == self._version:
            return last[3]
        products = self._products_of(nk, levels, self.rows[: self.upto])
        products.flags.writeable = False  # shared by the searches that reuse it
        self._last = (key, self.upto, self._version, products)
        return products

    @staticmethod
    def _products_of(nk: Any, levels: npt.NDArray[np.int8], rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        return np.vstack([np.asarray(nk.cdist(levels[j : j + 1], rows, metric="dot", out_dtype="float32"))
                          for j in range(len(levels))])
