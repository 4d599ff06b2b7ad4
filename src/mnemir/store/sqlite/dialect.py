"""The SQLite side of the filter compiler: record fields, core properties (indexed side table) and the rest (JSON).

Core properties live in ``props (rid, key, item, tval, nval)`` with an index on
(key, value): a filter on them becomes ``r.rid IN (SELECT rid FROM props ...)``,
which SQLite can drive from the index. Every other property is reached with
``json_extract``/``json_each`` on ``records.props``. Both paths implement the
same semantics (those of :func:`mnemir.store.filters.matches`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import datetime

from mnemir.errors import ValidationError
from mnemir.store.sql_filters import COMPARE_SQL, Dialect, Params, PropertyAccess, Scalar, is_number
from mnemir.store.sqlite.rows import ITEM, SCALAR, iso

#: record fields -> SQL; stored times have microseconds, filters compare at seconds like record_value()
_RECORD_FIELDS = {
    "@type": "{a}.type",
    "@created_at": "substr({a}.created_at, 1, 19) || 'Z'",
    "@updated_at": "substr({a}.updated_at, 1, 19) || 'Z'",
    "@valid_from": "substr({a}.valid_from, 1, 19) || 'Z'",
    "@valid_to": "substr({a}.valid_to, 1, 19) || 'Z'",
    "@speaker": "{a}.speaker",
    "@session_id": "{a}.source_session_id",
    "@creator": "{a}.creator",
}

#: record time fields stored as fixed-width text columns (see SQLiteDialect.time_range)
_TIME_COLUMNS = {"@created_at": "created_at", "@updated_at": "updated_at", "@valid_from": "valid_from",
                 "@valid_to": "valid_to"}

#: SQLite json_type() names of values that compare as numbers (booleans are 1/0 in SQL and in Python)
_NUMBER_TYPES = "('integer', 'real', 'true', 'false')"


def sql_text(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def json_path(name: str) -> str:
    """The SQL literal of the JSON path to a top-level property."""
    if '"' in name or "\\" in name or any(ord(ch) < 32 for ch in name):
        raise ValidationError("a property name used in a filter or ordering may not hold quotes, backslashes or "
                              "control characters", field=name, value=name)
    return sql_text(f'$."{name}"')


class JsonProperties(PropertyAccess):
    """Properties read from the JSON object in ``records.props``."""

    def __init__(self, alias: str) -> None:
        self.column = f"{alias}.props"

    def _parts(self, name: str) -> tuple[str, str, str]:
        path = json_path(name)
        return (f"json_type({self.column}, {path})", f"json_extract({self.column}, {path})",
                f"json_each({self.column}, {path})")

    def equals_any(self, name: str, values: Sequence[Scalar], p: Params) -> str:
        kind, value, items = self._parts(name)
        wanted = p.many(values)  # named placeholders: one binding serves both branches
        return (f"CASE {kind} WHEN 'array' THEN EXISTS (SELECT 1 FROM {items} j WHERE j.type NOT IN "
                f"('array', 'object', 'null') AND j.value IN ({wanted})) WHEN 'object' THEN 0 "
                f"ELSE {value} IN ({wanted}) END")

    def compare(self, name: str, op: str, value: Scalar, p: Params) -> str:
        kind, stored, _ = self._parts(name)
        family = _NUMBER_TYPES if is_number(value) else "('text')"
        return f"({kind} IN {family} AND {stored} {op} {p(value)})"

    def exists(self, name: str, p: Params) -> str:
        kind, _, _ = self._parts(name)
        return f"COALESCE({kind}, 'null') != 'null'"

    def contains(self, name: str, value: str, p: Params) -> str:
        kind, stored, items = self._parts(name)
        return (f"CASE {kind} WHEN 'text' THEN instr({stored}, {p(value)}) > 0 WHEN 'array' THEN EXISTS "
                f"(SELECT 1 FROM {items} j WHERE j.type = 'text' AND j.value = {p(value)}) ELSE 0 END")


class IndexedProperties(PropertyAccess):
    """Core properties, read from the ``props`` side table through its (key, value) indexes."""

    def __init__(self, alias: str) -> None:
        self.rid = f"{alias}.rid"

    def _rows(self, name: str, p: Params) -> str:
        """The start of ``rid IN (SELECT ...)``; the caller appends its condition and ``)``."""
        return f"{self.rid} IN (SELECT rid FROM props WHERE key = {p(name)} AND "

    def equals_any(self, name: str, values: Sequence[Scalar], p: Params) -> str:
        texts = [v for v in values if not is_number(v)]
        numbers = [v for v in values if is_number(v)]
        parts = []
        head = self._rows(name, p)
        # scalars and list items alike; OPAQUE rows hold no value, so they never equal anything
        if texts:
            parts.append(f"{head}tval IN ({p.many(texts)}))")
        if numbers:
            parts.append(f"{head}nval IN ({p.many(numbers)}))")
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def compare(self, name: str, op: str, value: Scalar, p: Params) -> str:
        column = "nval" if is_number(value) else "tval"
        head = self._rows(name, p)
        return f"{head}{column} {op} {p(value)} AND item = {SCALAR})"

    def exists(self, name: str, p: Params) -> str:
        return f"{self._rows(name, p)}1)"

    def contains(self, name: str, value: str, p: Params) -> str:
        head, needle = self._rows(name, p), p(value)
        return f"{head}((item = {SCALAR} AND instr(tval, {needle}) > 0) OR (item = {ITEM} AND tval = {needle})))"


class SQLiteDialect(Dialect):
    """``indexed`` names the properties that the ``props`` table holds for every record."""

    record_fields = _RECORD_FIELDS

    def __init__(self, indexed: Collection[str]) -> None:
        self.indexed = frozenset(indexed)

    def substring(self, haystack: str, needle: str) -> str:
        return f"instr({haystack}, {needle}) > 0"

    def time_range(self, field: str, op: str, value: object, p: Params, alias: str) -> str | None:
        """Compare the stored column itself, so an index on it can serve the range.

        Stored times are fixed-width ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; filters compare at seconds
        (``T(x) = x[:19] + 'Z'``). A date bound (10 chars) is a prefix of both forms, so ``T(x) op d`` is
        ``x op d``. A second bound ``B + 'Z'`` gives ``x[:19] op B``: ``>=``/``<`` are ``x >= B``/``x < B``, and
        ``>``/``<=`` must step past every stored time of that second: ``x >= B~``/``x < B~`` ('~' sorts after
        the '.' that follows the seconds).
        """
        column = _TIME_COLUMNS.get(field)
        if column is None or not isinstance(value, str):
            return None
        if len(value) == 10:
            bound, sql_op = value, COMPARE_SQL.get(op)
        elif len(value) == 20 and value.endswith("Z"):
            second = value[:19]
            bound, sql_op = {"$gte": (second, ">="), "$lt": (second, "<"), "$gt": (second + "~", ">="),
                             "$lte": (second + "~", "<")}.get(op, (second, None))
        else:
            return None
        return f"{alias}.{column} {sql_op} {p(bound)}" if sql_op else None

    def properties(self, name: str, alias: str) -> PropertyAccess:
        return IndexedProperties(alias) if name in self.indexed else JsonProperties(alias)

    def time_value(self, when: datetime) -> str:
        return iso(when)

    def id_list(self, column: str, ids: Sequence[str], p: Params) -> str:
        if len(ids) <= 200:
            return super().id_list(column, ids, p)
        return f"{column} IN (SELECT value FROM json_each({p(json.dumps(list(ids)))}))"
