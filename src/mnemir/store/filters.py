"""The ``where`` filter language, parsed and checked against the ontology.

Syntax (MongoDB-like)::

    {"status": "pending"}                              equality (enum values normalised: "未开始" -> pending)
    {"status": {"$in": ["pending", "in_progress"]}}    $in / $nin
    {"strength": {"$gte": 0.5}}                         $gt $gte $lt $lte on numbers and dates
    {"deadline": {"$exists": true}}                     $exists
    {"subject": {"$contains": "咖啡"}}                  substring (strings) or membership (lists)
    {"$or": [{...}, {...}]}, {"$and": [...]}, {"$not": {...}}
    {"@created_at": {"$gte": "2026-11-01"}}            record fields start with "@"

Record fields: ``@type @created_at @updated_at @valid_from @valid_to @speaker @session_id @creator``.
An unknown property or operator is an error, never an empty result. Parsing
yields a small AST that each backend compiles (SQL for both SQLite and
PostgreSQL) and that :func:`matches` evaluates in Python (for tests and
in-memory checks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir.record import check_unicode
from mnemir.ontology import Ontology, PropertySpec, parse_when

COMPARISONS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$contains")
LOGICAL = ("$and", "$or", "$not")
RECORD_FIELDS: dict[str, str] = {
    "@type": "str",
    "@created_at": "datetime",
    "@updated_at": "datetime",
    "@valid_from": "datetime",
    "@valid_to": "datetime",
    "@speaker": "str",
    "@session_id": "str",
    "@creator": "str",
}


@dataclass(frozen=True)
class Cmp:
    """``field op value``. ``kind`` is the property kind (decides numeric vs text comparison)."""

    field: str
    op: str
    value: Any
    kind: str

    @property
    def is_record_field(self) -> bool:
        return self.field.startswith("@")


@dataclass(frozen=True)
class And:
    items: tuple[FilterNode, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[FilterNode, ...]


@dataclass(frozen=True)
class Not:
    item: FilterNode


FilterNode = Cmp | And | Or | Not


def parse_filter(where: Mapping[str, Any] | None, ontology: Ontology,
                 types: Iterable[str] | None = None) -> FilterNode | None:
    """Parse and validate ``where`` against the properties of ``types`` (all types when None)."""
    if where is None:
        return None
    if not isinstance(where, Mapping):
        raise ValidationError("where must be an object", field="where", value=where,
                              allowed="a mapping like {'status': 'pending'}")
    type_list = tuple(types) if types else None
    node = _parse_mapping(where, ontology, type_list, "where")
    return node


def _parse_mapping(where: Mapping[str, Any], ontology: Ontology, types: tuple[str, ...] | None,
                   path: str) -> FilterNode:
    items: list[FilterNode] = []
    for key, value in where.items():
        if not isinstance(key, str):
            raise ValidationError("filter keys must be strings", field=path, value=key)
        here = f"{path}.{key}"
        if key in ("$and", "$or"):
            if not isinstance(value, (list, tuple)) or not value:
                raise ValidationError(f"{key} needs a non-empty list of filters", field=here, value=value)
            parts = tuple(_parse_any(v, ontology, types, f"{here}[{i}]") for i, v in enumerate(value))
            items.append(And(parts) if key == "$and" else Or(parts))
        elif key == "$not":
            items.append(Not(_parse_any(value, ontology, types, here)))
        elif key.startswith("$"):
            raise ValidationError(f"unknown operator {key!r}", field=here, value=key, allowed=[*LOGICAL])
        else:
            items.extend(_parse_field(key, value, ontology, types, here))
    if not items:
        raise ValidationError("empty filter", field=path, value=dict(where), allowed="at least one condition")
    return items[0] if len(items) == 1 else And(tuple(items))


def _parse_any(value: Any, ontology: Ontology, types: tuple[str, ...] | None, path: str) -> FilterNode:
    if not isinstance(value, Mapping):
        raise ValidationError("expected a filter object", field=path, value=value)
    return _parse_mapping(value, ontology, types, path)


def _spec_for(name: str, ontology: Ontology, types: tuple[str, ...] | None, path: str) -> PropertySpec:
    if name.startswith("@"):
        if name not in RECORD_FIELDS:
            raise ValidationError(f"unknown record field {name!r}", field=path, value=name,
                                  allowed=sorted(RECORD_FIELDS))
        return PropertySpec(name, RECORD_FIELDS[name])  # type: ignore[arg-type]
    try:
        return ontology.property_spec(name, types)
    except ValidationError as exc:
        raise ValidationError(exc.message.split(";")[0], field=path, value=name, allowed=exc.allowed) from None


def _parse_field(name: str, cond: Any, ontology: Ontology, types: tuple[str, ...] | None,
                 path: str) -> list[FilterNode]:
    spec = _spec_for(name, ontology, types, path)
    if not isinstance(cond, Mapping):
        return [Cmp(name, "$eq", _value(spec, cond, path), spec.kind)]
    if not cond:
        raise ValidationError("empty condition", field=path, value=dict(cond), allowed=list(COMPARISONS))
    out: list[FilterNode] = []
    for op, operand in cond.items():
        here = f"{path}.{op}"
        if op not in COMPARISONS:
            raise ValidationError(f"unknown operator {op!r}", field=here, value=op, allowed=list(COMPARISONS))
        if op in ("$in", "$nin"):
            if not isinstance(operand, (list, tuple)):
                raise ValidationError(f"{op} needs a list", field=here, value=operand, allowed="a list of values")
            out.append(Cmp(name, op, tuple(_value(spec, v, here) for v in operand), spec.kind))
        elif op == "$exists":
            if not isinstance(operand, bool):
                raise ValidationError("$exists needs true or false", field=here, value=operand, allowed=[True, False])
            out.append(Cmp(name, op, operand, spec.kind))
        elif op == "$contains":
            if spec.kind not in ("str", "text", "list", "json", "id"):
                raise ValidationError(f"$contains does not apply to {spec.kind} property {name!r}", field=here,
                                      value=operand, allowed="string or list properties")
            if not isinstance(operand, str) or not operand:
                raise ValidationError("$contains needs a non-empty string", field=here, value=operand)
            out.append(Cmp(name, op, operand, spec.kind))
        elif op in ("$gt", "$gte", "$lt", "$lte"):
            if spec.kind not in ("float", "int", "datetime", "date_or_datetime"):
                raise ValidationError(f"{op} needs a number or date property; {name!r} is {spec.kind}", field=here,
                                      value=operand, allowed="number or date properties")
            out.append(Cmp(name, op, _value(spec, operand, here), spec.kind))
        else:
            out.append(Cmp(name, op, _value(spec, operand, here), spec.kind))
    return out


def _value(spec: PropertySpec, value: Any, path: str) -> Any:
    if value is None:
        raise ValidationError("null is not a filter value; use {'$exists': false}", field=path, value="null")
    if isinstance(value, str):
        check_unicode(value, path)
    if spec.kind == "datetime":
        return parse_when(value, path, allow_date=True)  # a date bound is allowed when filtering
    if spec.kind == "list":
        out = PropertySpec(spec.name, spec.item_kind, enum=spec.enum).coerce(value, path)
    else:
        out = spec.coerce(value, path)
    if isinstance(out, (list, tuple, dict)):
        # a 'json' property accepts any value, but the backends compare scalars only (so that they all agree)
        raise ValidationError("a filter value must be a single scalar; use $in for several values", field=path,
                              value=value, allowed="string, number or boolean")
    return out


# -- evaluation in Python (used for checks and by tests as the reference) -------------------
def record_value(record: Any, name: str) -> Any:
    if not name.startswith("@"):
        return record.properties.get(name)
    from mnemir.ontology import format_datetime

    if name == "@type":
        return record.type
    if name in ("@created_at", "@updated_at"):
        return format_datetime(getattr(record.metadata, name[1:]))
    if name in ("@valid_from", "@valid_to"):
        value = getattr(record, name[1:])
        return format_datetime(value) if value is not None else None
    source = record.metadata.source
    return {"@speaker": source.speaker, "@session_id": source.session_id, "@creator": source.creator}[name]


def matches(node: FilterNode | None, record: Any) -> bool:
    if node is None:
        return True
    if isinstance(node, And):
        return all(matches(n, record) for n in node.items)
    if isinstance(node, Or):
        return any(matches(n, record) for n in node.items)
    if isinstance(node, Not):
        return not matches(node.item, record)
    have = record_value(record, node.field)
    op, want = node.op, node.value
    if op == "$exists":
        return (have is not None) == want
    # $ne / $nin are the exact negations of $eq / $in (Mongo): a missing property matches them,
    # and on a list they mean "does not hold the value"
    if op == "$ne":
        return not _equals(have, want)
    if op == "$nin":
        return not any(_equals(have, v) for v in want)
    if have is None:
        return False
    if op == "$eq":
        return _equals(have, want)
    if op == "$in":
        return any(_equals(have, v) for v in want)
    if op == "$contains":  # substring of a string, member of a list; nothing else contains anything
        return want in have if isinstance(have, (str, list)) else False
    try:
        return bool({"$gt": have > want, "$gte": have >= want, "$lt": have < want, "$lte": have <= want}[op])
    except TypeError:
        return False


def _equals(have: Any, want: Any) -> bool:
    """Equality on a scalar, membership on a list; a missing value equals nothing."""
    if have is None:
        return False
    if isinstance(have, list):
        return want in have
    return bool(have == want)
