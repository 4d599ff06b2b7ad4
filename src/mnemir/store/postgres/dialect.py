"""The PostgreSQL side of the filter compiler (:mod:`mnemir.store.sql_filters`): record fields and JSONB properties.

Every property lives in ``records.props`` (JSONB) under one GIN index
(``jsonb_path_ops``). Equality and membership on strings, numbers and booleans
compile to containment (``props @> '{"k": v}'`` for a scalar, ``'{"k": [v]}'``
for a list item), which that index answers for any property, core or not;
ranges and substrings read the value with ``->``/``->>`` after the scope
indexes have narrowed the rows. Semantics are those of
:func:`mnemir.store.filters.matches`, and of the SQLite backend: booleans
equal and compare as 1/0, numbers compare as numbers, strings by code point
(``COLLATE "C"``), a list never compares with ``$gt``/``$lt``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemir.errors import ValidationError
from mnemir.store.sql_filters import Dialect, Params, PropertyAccess, Scalar, is_number

#: record fields -> SQL giving exactly what :func:`mnemir.store.filters.record_value` gives (times at seconds)
_SECONDS = """to_char({c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"""
_RECORD_FIELDS = {
    "@type": "{a}.type",
    "@created_at": _SECONDS.format(c="{a}.created_at"),
    "@updated_at": _SECONDS.format(c="{a}.updated_at"),
    "@valid_from": _SECONDS.format(c="{a}.valid_from"),
    "@valid_to": _SECONDS.format(c="{a}.valid_to"),
    "@speaker": "({a}.record #>> '{{metadata,source,speaker}}')",
    "@session_id": "({a}.record #>> '{{metadata,source,session_id}}')",
    "@creator": "({a}.record #>> '{{metadata,source,creator}}')",
}


def sql_text(value: str) -> str:
    """A SQL string literal inside a statement that also has ``%s`` parameters (so ``%`` is doubled)."""
    if "\x00" in value:
        raise ValidationError("a property name may not hold NUL characters", field=value, value=value)
    return "'" + value.replace("'", "''").replace("%", "%%") + "'"


def _equal_forms(value: Scalar) -> list[Any]:
    """The JSON values that equal ``value`` in Python: True == 1 == 1.0, False == 0."""
    if isinstance(value, bool):
        return [value, int(value)]
    if is_number(value) and value in (0, 1):
        return [value, bool(value)]
    return [value]


def containment_shapes(name: str, values: Sequence[Scalar]) -> list[str]:
    """The JSON documents (as text) whose containment (``props @> shape``), any of them, is ``name`` equal to one of
    ``values``: the value itself or a list holding it, in each of its equal forms. Values are scalars (the filter
    parser refuses lists and objects)."""
    forms = [form for v in values for form in _equal_forms(v)]
    return [json.dumps(s) for s in [{name: form} for form in forms] + [{name: [form]} for form in forms]]


def number_of(expr: str) -> str:
    """A JSONB value as a number when it is a number or a boolean (1/0), else NULL."""
    return (f"(CASE jsonb_typeof({expr}) WHEN 'number' THEN ({expr})::numeric "
            f"WHEN 'boolean' THEN ({expr})::boolean::int END)")


def text_of(expr: str) -> str:
    """A JSONB value as text when it is a string, else NULL."""
    return f"(CASE jsonb_typeof({expr}) WHEN 'string' THEN ({expr}) #>> '{{}}' END)"


class JsonbProperties(PropertyAccess):
    def __init__(self, alias: str) -> None:
        self.column = f"{alias}.props"

    def _value(self, name: str, p: Params) -> str:
        return f"({self.column} -> {sql_text(name)})"

    def equals_any(self, name: str, values: Sequence[Scalar], p: Params) -> str:
        sql_text(name)  # refuses a name PostgreSQL cannot hold
        parts = [f"{self.column} @> {p(shape)}::jsonb" for shape in containment_shapes(name, values)]
        return "(" + " OR ".join(parts) + ")"

    def compare(self, name: str, op: str, value: Scalar, p: Params) -> str:
        value_expr = self._value(name, p)
        if is_number(value):
            return f"({number_of(value_expr)} {op} {p(value)}::numeric)"
        return f"({text_of(value_expr)} COLLATE \"C\" {op} {p(value)}::text)"

    def exists(self, name: str, p: Params) -> str:
        return f"(COALESCE(jsonb_typeof({self._value(name, p)}), 'null') <> 'null')"

    def contains(self, name: str, value: str, p: Params) -> str:
        value_expr = self._value(name, p)
        return (f"(CASE jsonb_typeof({value_expr}) WHEN 'string' THEN strpos({value_expr} #>> '{{}}', {p(value)}) > 0 "
                f"WHEN 'array' THEN {value_expr} @> jsonb_build_array({p(value)}::text) ELSE FALSE END)")


class PostgresDialect(Dialect):
    placeholder = "%({})s"  # named: psycopg's pyformat
    false = "FALSE"
    record_fields = _RECORD_FIELDS

    def substring(self, haystack: str, needle: str) -> str:
        return f"strpos({haystack}, {needle}::text) > 0"

    def properties(self, name: str, alias: str) -> PropertyAccess:
        return JsonbProperties(alias)

    def time_value(self, when: datetime) -> datetime:
        return when

    def id_list(self, column: str, ids: Sequence[str], p: Params) -> str:
        return f"{column} = ANY({p(list(ids))}::text[])" if ids else self.false


def order_expressions(name: str, alias: str) -> list[str]:
    """Sort keys for property ``name`` that order like the SQLite backend: missing (or null) last, then numbers and
    booleans numerically, then strings by code point, then anything else."""
    value = f"({alias}.props -> {sql_text(name)})"
    return [f"(COALESCE(jsonb_typeof({value}), 'null') = 'null')",
            f"(CASE jsonb_typeof({value}) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 WHEN 'string' THEN 1 ELSE 2 END)",
            number_of(value), f"{text_of(value)} COLLATE \"C\"", f"({value})::text COLLATE \"C\""]
