"""Compile a :class:`~mnemir.store.base.Selection` and its ``where`` AST to a SQL condition.

Shared by the SQL backends. What is common lives here: the scope rule, statuses,
``valid_at``, the meaning of every operator (``$ne`` is ``NOT $eq``, ``$in`` on a
list is membership, an empty ``$in`` matches nothing ...) and three-valued-logic
safety. What differs between SQLite and PostgreSQL (placeholders, JSON functions,
how a property is stored) is behind :class:`Dialect` and :class:`PropertyAccess`.

The records table is expected to have the columns ``id, type, status, user_id,
agent_id, session_id, created_at, valid_from, valid_to`` (times as values that
compare chronologically with :meth:`Dialect.time_value`).

Every compiled condition agrees with :func:`mnemir.store.filters.matches`; the
store conformance tests check that on random stores and filters.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir import MemoryStatus, ensure_aware
from mnemir.store.base import ANY, Selection, _Any
from mnemir.store.filters import And, Cmp, FilterNode, Not, Or

Scalar = str | int | float | bool

#: filter operator -> SQL comparison
COMPARE_SQL = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


class Params:
    """Collects bound values while SQL text is built; each call returns a *named* placeholder, so the order in
    which SQL fragments are assembled never matters. ``template`` is ``":{}"`` (SQLite) or ``"%({})s"``
    (psycopg)."""

    def __init__(self, template: str = ":{}") -> None:
        self.template = template
        self.values: dict[str, Any] = {}

    def __call__(self, value: Any) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return self.template.format(name)

    def many(self, values: Sequence[Any]) -> str:
        return ", ".join(self(v) for v in values)


class PropertyAccess(abc.ABC):
    """How one backend reaches a property's stored value. Each method returns a SQL condition that may be
    NULL only where "false" is meant (the compiler guards negations)."""

    @abc.abstractmethod
    def equals_any(self, name: str, values: Sequence[Scalar], p: Params) -> str:
        """A scalar equal to one of ``values``, or a list holding one of them. ``values`` is not empty."""

    @abc.abstractmethod
    def compare(self, name: str, op: str, value: Scalar, p: Params) -> str:
        """A scalar (never a list) of the same family as ``value`` (number or text) with ``value op stored``
        true. ``op`` is one of ``> >= < <=``, read as ``stored op value``."""

    @abc.abstractmethod
    def exists(self, name: str, p: Params) -> str:
        """The property is present and not null."""

    @abc.abstractmethod
    def contains(self, name: str, value: str, p: Params) -> str:
        """A string holding ``value`` as a substring, or a list holding ``value`` as an item."""


class Dialect(abc.ABC):
    """The backend-specific part of the compiler."""

    placeholder = ":{}"
    false = "0"
    #: ``@field`` -> a SQL template (``{a}``: the records table's alias) giving the field exactly as
    #: :func:`mnemir.store.filters.record_value` does
    record_fields: Mapping[str, str] = {}

    def params(self) -> Params:
        return Params(self.placeholder)

    def record_field(self, name: str, alias: str) -> str:
        try:
            return self.record_fields[name].format(a=alias)
        except KeyError:
            raise ValidationError(f"unknown record field {name!r}", field=name, value=name,
                                  allowed=sorted(self.record_fields)) from None

    @abc.abstractmethod
    def substring(self, haystack: str, needle: str) -> str:
        """Case-sensitive substring test (no LIKE wildcards)."""

    @abc.abstractmethod
    def properties(self, name: str, alias: str) -> PropertyAccess:
        """How to reach property ``name`` (an indexed side table, or JSON)."""

    @abc.abstractmethod
    def time_value(self, when: datetime) -> Any:
        """The bound value that compares chronologically with the stored time columns."""

    def time_range(self, field: str, op: str, value: Any, p: Params, alias: str) -> str | None:
        """An index-friendly form of a range comparison on a record time field, or None (use record_field)."""
        return None

    def id_list(self, column: str, ids: Sequence[str], p: Params) -> str:
        return f"{column} IN ({p.many(ids)})" if ids else self.false

    def negate(self, condition: str) -> str:
        # NOT NULL is NULL (excluded), so a NULL inside a negation must first become false
        return f"NOT COALESCE(({condition}), {self.false})"


# -- where ---------------------------------------------------------------------
def compile_filter(node: FilterNode, dialect: Dialect, p: Params, alias: str = "r") -> str:
    if isinstance(node, And):
        return "(" + " AND ".join(compile_filter(n, dialect, p, alias) for n in node.items) + ")"
    if isinstance(node, Or):
        return "(" + " OR ".join(compile_filter(n, dialect, p, alias) for n in node.items) + ")"
    if isinstance(node, Not):
        return dialect.negate(compile_filter(node.item, dialect, p, alias))
    if isinstance(node, Cmp):
        return _compile_record_field(node, dialect, p, alias) if node.is_record_field else \
            _compile_property(node, dialect, p, alias)
    raise ValidationError("not a filter node", field="where", value=node, allowed="Cmp, And, Or, Not")


def _compile_record_field(node: Cmp, dialect: Dialect, p: Params, alias: str) -> str:
    expr = dialect.record_field(node.field, alias)
    op, value = node.op, node.value
    if op == "$exists":
        return f"{expr} IS {'NOT ' if value else ''}NULL"
    if op in ("$eq", "$ne"):
        cond = f"{expr} = {p(value)}"
    elif op in ("$in", "$nin"):
        cond = f"{expr} IN ({p.many(value)})" if value else dialect.false
    elif op in COMPARE_SQL:
        return dialect.time_range(node.field, op, value, p, alias) or f"{expr} {COMPARE_SQL[op]} {p(value)}"
    elif op == "$contains":
        return dialect.substring(expr, p(value))
    else:
        raise ValidationError(f"unknown operator {op!r}", field=node.field, value=op)
    return dialect.negate(cond) if op in ("$ne", "$nin") else cond


def _compile_property(node: Cmp, dialect: Dialect, p: Params, alias: str) -> str:
    access = dialect.properties(node.field, alias)
    op, value = node.op, node.value
    if op == "$exists":
        cond = access.exists(node.field, p)
        return cond if value else dialect.negate(cond)
    if op in ("$eq", "$ne"):
        cond = access.equals_any(node.field, [value], p)
    elif op in ("$in", "$nin"):
        cond = access.equals_any(node.field, list(value), p) if value else dialect.false
    elif op in COMPARE_SQL:
        return access.compare(node.field, COMPARE_SQL[op], value, p)
    elif op == "$contains":
        return access.contains(node.field, value, p)
    else:
        raise ValidationError(f"unknown operator {op!r}", field=node.field, value=op)
    return dialect.negate(cond) if op in ("$ne", "$nin") else cond


def record_order_fields(alias: str) -> dict[str, str]:
    """The record fields ``select(order_by=...)`` accepts, as columns of the records table."""
    return {name: f"{alias}.{name[1:]}" for name in ("@created_at", "@updated_at", "@valid_from", "@valid_to", "@type")}


def is_number(value: Any) -> bool:
    """Numbers (and booleans, which equal 0/1 in Python as in SQL) compare numerically; the rest as text."""
    return isinstance(value, (int, float))


# -- selection -----------------------------------------------------------------
def compile_selection(selection: Selection, dialect: Dialect, p: Params, alias: str = "r") -> str:
    """The WHERE condition for a selection (scope, types, statuses, ids, valid_at, where)."""
    check_selection(selection)
    a = alias
    parts: list[str] = []
    if selection.user_id is None:
        parts.append(f"{a}.user_id IS NULL")
    elif selection.user_id is not ANY:
        parts.append(f"{a}.user_id = {p(selection.user_id)}")
    for column, wanted in (("agent_id", selection.agent_id), ("session_id", selection.session_id)):
        if wanted is not ANY and wanted is not None:  # restrict only when given
            parts.append(f"{a}.{column} = {p(wanted)}")
    if selection.types is not None:
        parts.append(f"{a}.type IN ({p.many(selection.types)})" if selection.types else dialect.false)
    statuses = [str(s) for s in selection.statuses]
    parts.append(f"{a}.status IN ({p.many(statuses)})" if statuses else dialect.false)
    if selection.ids is not None:
        parts.append(dialect.id_list(f"{a}.id", selection.ids, p))
    if selection.valid_at is not None:
        t = dialect.time_value(ensure_aware(selection.valid_at, "valid_at"))
        parts.append(f"COALESCE({a}.valid_from, {a}.created_at) <= {p(t)}")
        parts.append(f"({a}.valid_to IS NULL OR {a}.valid_to > {p(t)})")
    if selection.where is not None:
        parts.append(compile_filter(selection.where, dialect, p, alias))
    return " AND ".join(parts)


def check_selection(selection: Selection) -> None:
    """Refuse malformed selections with an error naming the field (never a silent empty result)."""
    if not isinstance(selection, Selection):
        raise ValidationError("expected a Selection", field="selection", value=selection)
    for name in ("user_id", "agent_id", "session_id"):
        value = getattr(selection, name)
        if not (value is None or isinstance(value, (str, _Any))):
            raise ValidationError(f"{name} must be a string, None or ANY", field=name, value=value)
    if selection.types is not None and not _strings(selection.types):
        raise ValidationError("types must be a tuple of type names", field="types", value=selection.types)
    allowed = [s.value for s in MemoryStatus]
    if isinstance(selection.statuses, str) or not all(s in allowed for s in selection.statuses):
        raise ValidationError("unknown status in statuses", field="statuses", value=selection.statuses,
                              allowed=allowed)
    if selection.ids is not None and not _strings(selection.ids):
        raise ValidationError("ids must be a tuple of memory ids", field="ids", value=selection.ids)
    if selection.valid_at is not None and not isinstance(selection.valid_at, datetime):
        raise ValidationError("valid_at must be a timezone-aware datetime", field="valid_at",
                              value=selection.valid_at)
    if selection.where is not None and not isinstance(selection.where, (Cmp, And, Or, Not)):
        raise ValidationError("where must be a parsed filter (mnemir.store.filters.parse_filter)", field="where",
                              value=selection.where)


def owner_condition(column: str, user: str | _Any | None, p: Params) -> str:
    """The tenant condition an id-keyed statement adds (`` AND <column> = <user>``), or "" for :data:`ANY` (no
    scope). ``None`` means records with no user, as in ``Selection.user_id``."""
    if user is ANY:
        return ""
    if user is None:
        return f" AND {column} IS NULL"
    if not isinstance(user, str):
        raise ValidationError("user must be a string, None or ANY", field="user", value=user)
    return f" AND {column} = {p(user)}"


def _strings(values: object) -> bool:
    return isinstance(values, (tuple, list)) and all(isinstance(v, str) for v in values)
