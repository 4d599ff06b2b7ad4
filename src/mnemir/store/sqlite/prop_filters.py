"""Filters on indexed properties answered from the vector cache, without SQL.

The ``props`` side table holds one row per value of every indexed property (the ontology's ``core`` and
``filterable`` ones). The vector cache keeps, beside each vector, per indexed property three small integer columns
(in :attr:`VectorCache.codes`, so that they follow its growth and compaction):

* ``p:KEY:t``: 1 + the code of the row's text scalar (0: none),
* ``p:KEY:n``: 1 + the code of its number scalar (booleans as 0/1, as in the side table; 0: none),
* ``p:KEY:x``: bit 1 the property is present, bit 2 it is a list or a value that compares with nothing.

A ``where`` whose conditions all name such properties becomes a numpy boolean mask: equality and ranges are looked
up over the distinct values (a small table per property), then gathered by code. The meaning is the SQL
compiler's (:mod:`mnemir.store.sqlite.dialect`, ``IndexedProperties``), which is that of
:func:`mnemir.store.filters.matches`; anything else (record fields, unindexed properties, a property that holds a
list somewhere in the store) returns None and the store selects the candidates in SQL as before.

Kept in step like the scope codes: rows of records written since the cache's sequence are read again (their
columns cleared first: a rewrite may drop a property); a change of the indexed set reloads every row.
"""

from __future__ import annotations

import json
import operator
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.errors import ValidationError
from mnemir.store.filters import And, Cmp, FilterNode, Not, Or
from mnemir.store.sqlite.dialect import json_path
from mnemir.store.sqlite.rows import SCALAR, property_rows

Mask = npt.NDArray[np.bool_]
PRESENT, MULTI = 1, 2
#: a filter estimated to keep fewer rows than this share of the cache goes to SQL: the (key, value) index finds a few
#: rows faster than masks over every row (0.26 vs 0.62 ms CPU at 0.1 % of 100k rows; the gap grows with the store)
SQL_BELOW = 0.01
#: JSON properties a cache indexes on first use, at most (three int32 columns each: 12 bytes per row)
MAX_ADOPTED = 16
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {"$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt,
                                                  "$lte": operator.le}


class _Values:
    """Distinct values of one kind (text or number) of one property, with their codes (1-based)."""

    def __init__(self, numeric: bool) -> None:
        self.numeric = numeric
        self.codes: dict[Any, int] = {}
        self.values: list[Any] = []
        self._table: np.ndarray | None = None
        #: rows holding each code (index = code; index 0 unused)
        self.counts = np.zeros(1, dtype=np.int64)

    def code(self, value: Any) -> int:
        found = self.codes.get(value)
        if found is None:
            self.values.append(value)
            found = self.codes[value] = len(self.values)
            self._table = None
            if found >= len(self.counts):
                self.counts = np.concatenate([self.counts, np.zeros(len(self.counts), dtype=np.int64)])
        return found

    def forget(self, codes: npt.NDArray[np.int32]) -> None:
        """Rows holding these codes were rewritten (codes 0: none)."""
        codes = codes[codes > 0]
        if len(codes):
            self.counts -= np.bincount(codes, minlength=len(self.counts))[: len(self.counts)]

    def table(self) -> np.ndarray:
        """The values as an array, index = code (index 0: a placeholder that matches nothing)."""
        if self._table is None:
            if self.numeric:
                self._table = np.array([np.nan, *self.values], dtype=np.float64)
            else:
                self._table = np.array(["", *self.values], dtype=object)
        return self._table

    def lut(self, test: Callable[[np.ndarray], Any]) -> Mask:
        """code -> whether the value passes ``test`` (code 0 never does)."""
        table = self.table()
        with np.errstate(invalid="ignore"):
            out = np.asarray(test(table[1:]), dtype=bool)
        return np.concatenate([[False], out])


class PropertyColumns:
    """The indexed properties of the rows of one :class:`~mnemir.store.sqlite.vectors.VectorCache`, and the JSON
    properties indexed here the first time a filter names them (:meth:`adopt`)."""

    def __init__(self) -> None:
        self.indexed_key: str | None = None  # meta.indexed_properties the columns were loaded for
        #: the store's indexed properties (the props table holds them)
        self.indexed: frozenset[str] = frozenset()
        #: JSON properties indexed in this cache only, from records.props, since a filter first named them
        self.adopted: set[str] = set()
        self.text: dict[str, _Values] = {}
        self.numbers: dict[str, _Values] = {}
        #: keys holding a list (or an opaque value) in some row: filters on them go to SQL
        self.multi: set[str] = set()
        #: the indexed keys :meth:`_columns` last gave columns (the same object: nothing to add at every sync)
        self._columned: frozenset[str] | None = None

    @property
    def keys(self) -> frozenset[str]:
        return self.indexed | self.adopted

    def reset(self, cache: Any) -> None:
        for name in [c for c in cache.codes if c.startswith("p:")]:
            del cache.codes[name]
        self.__init__()  # type: ignore[misc]

    # -- keeping in step ---------------------------------------------------------------------
    def load(self, conn: sqlite3.Connection, cache: Any, since: int, appended_from: int = 0) -> None:
        """Read the property rows of records written after ``since`` (every row when ``since`` < 0).
        ``appended_from``: the cache's rows from this position on were appended since (they hold no values yet:
        nothing to clear)."""
        found = conn.execute("SELECT value FROM meta WHERE key = 'indexed_properties'").fetchone()
        indexed = found[0] if found else "[]"
        if indexed != self.indexed_key:
            if self.indexed_key is not None:
                self.reset(cache)
            since = -1
            self.indexed_key, self.indexed = indexed, frozenset(json.loads(indexed))
        self._columns(cache, self.indexed)
        if since >= 0:
            rewritten = np.array([r for (r,) in conn.execute("SELECT rid FROM records WHERE seq > ?", (since,))],
                                 dtype=np.int64)
            pos, known = cache.positions(rewritten)
            pos = pos[known]
            pos = pos[pos < appended_from] if appended_from else pos  # rows written before, now rewritten
            for key in self.keys if len(pos) else ():
                if not cache.codes[f"p:{key}:x"][pos].any():
                    continue  # no value held (e.g. rows new since): the text and number codes are 0 too
                self.text[key].forget(cache.codes[f"p:{key}:t"][pos])
                self.numbers[key].forget(cache.codes[f"p:{key}:n"][pos])
                for suffix in ("t", "n", "x"):
                    cache.codes[f"p:{key}:{suffix}"][pos] = 0
            rows = conn.execute("SELECT rid, key, item, tval, nval FROM props WHERE rid IN "
                                "(SELECT rid FROM records WHERE seq > ?)", (since,)).fetchall()
            if self.adopted:  # not in the props table: read from the records' JSON
                adopted = sorted(self.adopted)
                for rid, props in conn.execute("SELECT rid, props FROM records WHERE seq > ?", (since,)):
                    rows += property_rows(rid, json.loads(props), adopted)
        else:
            rows = conn.execute("SELECT rid, key, item, tval, nval FROM props").fetchall()
        self._fill(rows, cache)

    def _columns(self, cache: Any, keys: Iterable[str]) -> None:
        if isinstance(keys, frozenset) and keys is self._columned:
            return  # every one of these keys has its columns (they are never removed but by reset)
        for key in keys:
            for suffix in ("t", "n", "x"):
                if f"p:{key}:{suffix}" not in cache.codes:
                    cache.codes[f"p:{key}:{suffix}"] = np.zeros(cache.capacity, dtype=np.int32)
            self.text.setdefault(key, _Values(False))
            self.numbers.setdefault(key, _Values(True))
        if isinstance(keys, frozenset):
            self._columned = keys

    def adopt(self, conn: sqlite3.Connection, cache: Any, node: FilterNode | None) -> None:
        """Index, in this cache, the JSON properties that ``node`` names and nothing indexes yet (read once from
        ``records.props``, then kept in step by :meth:`load`), so that this and later filters on them are masks
        instead of a ``json_extract`` of every row; at most :data:`MAX_ADOPTED` of them."""
        wanted = sorted(_properties(node) - self.keys)
        if not wanted or cache.seq < 0 or len(self.adopted) + len(wanted) > MAX_ADOPTED:
            return
        rows: list[tuple[Any, ...]] = []
        for key in wanted:
            try:
                path = json_path(key)
            except ValidationError:
                return  # the SQL compiler names the bad property
            found = conn.execute(f"SELECT rid, json_type(props, {path}), json_extract(props, {path}) FROM records "
                                 f"WHERE json_type(props, {path}) NOT IN ('null')").fetchall()
            for rid, kind, value in found:
                held = json.loads(value) if kind in ("array", "object") else value
                rows += property_rows(rid, {key: held}, (key,))
        self.adopted.update(wanted)
        self._columns(cache, wanted)
        self._fill(rows, cache)

    def _fill(self, rows: list[tuple[Any, ...]], cache: Any) -> None:
        """Set the columns from side-table rows (rid, key, item, tval, nval)."""
        if not rows:
            return
        rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        pos, known = cache.positions(rids)
        for (_, key, item, tval, nval), at, ok in zip(rows, pos.tolist(), known.tolist(), strict=True):
            if not ok or key not in self.keys:
                continue
            flags = cache.codes[f"p:{key}:x"]
            flags[at] |= PRESENT
            if item != SCALAR:
                flags[at] |= MULTI
                self.multi.add(key)
            elif tval is not None:
                values = self.text[key]
                code = cache.codes[f"p:{key}:t"][at] = values.code(tval)
                values.counts[code] += 1
            elif nval is not None:
                values = self.numbers[key]
                code = cache.codes[f"p:{key}:n"][at] = values.code(nval)
                values.counts[code] += 1

    # -- filtering ---------------------------------------------------------------------------
    def mask(self, node: FilterNode, cache: Any) -> Mask | None:
        """The rows (of ``cache``, up to its size) the filter admits, or None: this filter needs SQL, or SQL's
        indexes answer it faster (a selective filter: see :data:`SQL_BELOW`)."""
        if self.estimate(node) < SQL_BELOW * cache.size:
            return None
        return self._mask(node, cache)

    def estimate(self, node: FilterNode) -> float:
        """An upper bound of the rows a filter keeps, from the per-value row counts (inf: unknown)."""
        if isinstance(node, And):
            return min(self.estimate(n) for n in node.items)
        if not isinstance(node, Cmp) or node.is_record_field or node.field not in self.indexed:
            return float("inf")  # adopted properties too: SQL has no index on them
        text, numbers = self.text[node.field], self.numbers[node.field]
        if node.op in ("$eq", "$in"):
            values = [node.value] if node.op == "$eq" else list(node.value)
            total = 0
            for v in values:
                if isinstance(v, str):
                    total += int(text.counts[text.codes[v]]) if v in text.codes else 0
                else:
                    wanted = float(v)
                    lut = numbers.lut(lambda t: t == wanted)  # noqa: B023 - used at once
                    total += int(numbers.counts[: len(lut)][lut].sum())
            return float(total)
        if node.op in _COMPARE and isinstance(node.value, int | float):
            test, value = _COMPARE[node.op], float(node.value)
            lut = numbers.lut(lambda t: test(t, value))
            return float(numbers.counts[: len(lut)][lut].sum())
        return float("inf")

    def _mask(self, node: FilterNode, cache: Any) -> Mask | None:
        if isinstance(node, And | Or):
            masks = [self._mask(n, cache) for n in node.items]
            if any(m is None for m in masks):
                return None
            out = masks[0].copy()  # type: ignore[union-attr]
            for m in masks[1:]:
                if isinstance(node, And):
                    out &= m  # type: ignore[operator]
                else:
                    out |= m  # type: ignore[operator]
            return out
        if isinstance(node, Not):
            inner = self._mask(node.item, cache)
            return None if inner is None else ~inner
        if not isinstance(node, Cmp) or node.is_record_field or node.field not in self.keys or \
                node.field in self.multi:
            return None
        return self._compare(node, cache)

    def _column(self, cache: Any, key: str, suffix: str) -> npt.NDArray[np.int32]:
        return cache.codes[f"p:{key}:{suffix}"][: cache.size]

    def _equals_any(self, key: str, values: tuple[Any, ...] | list[Any], cache: Any) -> Mask:
        out = np.zeros(cache.size, dtype=bool)
        texts = [v for v in values if isinstance(v, str)]
        numbers = [v for v in values if isinstance(v, int | float)]
        if texts:
            codes = [self.text[key].codes[v] for v in texts if v in self.text[key].codes]
            if len(codes) == 1:
                out |= self._column(cache, key, "t") == codes[0]
            elif codes:
                out |= np.isin(self._column(cache, key, "t"), codes)
        if numbers:
            wanted = np.array([float(v) for v in numbers])
            out |= self.numbers[key].lut(lambda table: np.isin(table, wanted))[self._column(cache, key, "n")]
        return out

    def _compare(self, node: Cmp, cache: Any) -> Mask | None:
        key, op, value = node.field, node.op, node.value
        if op == "$exists":
            present = (self._column(cache, key, "x") & PRESENT) != 0
            return present if value else ~present
        if op in ("$eq", "$ne"):
            mask = self._equals_any(key, [value], cache)
            return ~mask if op == "$ne" else mask
        if op in ("$in", "$nin"):
            mask = self._equals_any(key, list(value), cache)
            return ~mask if op == "$nin" else mask
        if op in _COMPARE:
            test = _COMPARE[op]
            if isinstance(value, int | float):  # booleans too (0/1, as in the side table)
                lut = self.numbers[key].lut(lambda table: test(table, float(value)))
                return lut[self._column(cache, key, "n")]
            if isinstance(value, str):
                lut = self.text[key].lut(lambda table: np.array([test(v, value) for v in table], dtype=bool))
                return lut[self._column(cache, key, "t")]
            return None
        if op == "$contains" and isinstance(value, str):
            lut = self.text[key].lut(lambda table: np.array([value in v for v in table], dtype=bool))
            return lut[self._column(cache, key, "t")]
        return None


def _properties(node: FilterNode | None) -> set[str]:
    """The JSON properties a filter names (record fields aside)."""
    if node is None:
        return set()
    if isinstance(node, And | Or):
        return set().union(*(_properties(n) for n in node.items))
    if isinstance(node, Not):
        return _properties(node.item)
    if isinstance(node, Cmp) and not node.is_record_field:
        return {node.field}
    return set()
