"""Checking the items of :meth:`mnemir.Memory.add_many` before anything is written.

Every item is turned into a record (and its vector checked, where the caller gave vectors) first; the first bad
item raises a :class:`~mnemir.errors.ValidationError` whose ``field`` names it (``items[3].properties.entity``,
``vectors[3]``) and whose ``index`` is its position. Only then are the records written, in one store transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.embed.base import Vectors
from mnemir.errors import ValidationError
from mnemir.ir import MemIR, Relationship, new_id
from mnemir.ir.record import parse_record

#: the keys an item of ``add_many`` may hold: the per-record arguments of ``add``
ITEM_KEYS = ("text", "type", "properties", "summary", "speaker", "turn", "relationships", "id", "valid_from")


def item_record(i: int, item: Any, *, user: str | None, agent: str | None, session: str | None, now: datetime,
                creator: str) -> MemIR:
    """The record for ``items[i]`` (as :meth:`Memory.add` builds it from its arguments)."""
    where = f"items[{i}]"
    if not isinstance(item, Mapping):
        raise ValidationError(f"{where} must be a mapping of add()'s arguments", field=where, value=item,
                              allowed=list(ITEM_KEYS), index=i)
    unknown = sorted(str(k) for k in item if k not in ITEM_KEYS)
    if unknown:
        raise ValidationError(f"{where} has an unknown key {unknown[0]!r} (scope, time and creator are arguments of "
                              "add_many, the same for every item)", field=f"{where}.{unknown[0]}", value=unknown[0],
                              allowed=list(ITEM_KEYS), index=i)
    for key in ("text", "type"):
        if key not in item:
            raise ValidationError(f"{where} needs {key!r}", field=f"{where}.{key}", value=None, index=i)
    text = item["text"]
    if not isinstance(text, str):
        raise ValidationError(f"{where}.text must be a string", field=f"{where}.text", value=text, allowed="string",
                              index=i)
    properties = item.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise ValidationError(f"{where}.properties must be a mapping", field=f"{where}.properties", value=properties,
                              allowed="a mapping of property names to values", index=i)
    relationships = item.get("relationships") or ()
    if isinstance(relationships, (str, bytes, Mapping)) or not isinstance(relationships, Iterable):
        raise ValidationError(f"{where}.relationships must be a list", field=f"{where}.relationships",
                              value=relationships, allowed="a list of relationships", index=i)
    speaker, turn = item.get("speaker"), item.get("turn")
    try:
        return parse_record({
            "id": item["id"] if item.get("id") is not None else new_id(),
            "content": {"text": text, "summary": item.get("summary")},
            "type": item["type"], "properties": dict(properties),
            "scope": {"user_id": user, "agent_id": agent, "session_id": session},
            "metadata": {"created_at": now, "updated_at": now,
                         "source": {"speaker": speaker, "session_id": session, "turn": turn, "creator": creator,
                                    "at": now}},
            "relationships": [r.model_dump() if isinstance(r, Relationship) else r for r in relationships],
            "valid_from": item.get("valid_from") or now,
        })
    except ValidationError as exc:
        raise at_item(exc, i) from None


def at_item(exc: ValidationError, i: int) -> ValidationError:
    """``exc`` (about one record) as an error about ``items[i]``: the field gets the item's prefix, and the index."""
    located = f"items[{i}].{_item_field(exc.field)}" if exc.field else f"items[{i}]"
    context = {k: v for k, v in exc.context.items() if k not in ("field", "value", "allowed", "index")}
    message = exc.message.replace(f"field={exc.field}", f"field={located}") if exc.field else exc.message
    return ValidationError(f"items[{i}]: {message}", field=located, value=exc.value, allowed=exc.allowed,
                           index=i, **context)


def _item_field(field: str) -> str:
    """A record field as the item's key: ``content.text`` is the item's ``text``, ``scope.*`` stays."""
    for record_field, key in (("content.text", "text"), ("content.summary", "summary"),
                              ("metadata.source.speaker", "speaker"), ("metadata.source.turn", "turn")):
        if field == record_field or field.startswith(record_field + "."):
            return key + field[len(record_field):]
    return field


def check_vectors(vectors: Any, count: int, dim: int) -> list[Vectors]:
    """The caller's vectors, one per item, as float32 rows of the embedder's dimension (``vectors[i]`` names a bad
    one)."""
    if isinstance(vectors, (str, bytes, Mapping)):
        raise ValidationError("vectors must be one vector per item", field="vectors", value=type(vectors).__name__,
                              allowed=f"an array of shape ({count}, {dim})")
    rows = list(vectors)
    if len(rows) != count:
        raise ValidationError(f"vectors holds {len(rows)} vectors for {count} items", field="vectors",
                              value=len(rows), allowed=count)
    out: list[Vectors] = []
    for i, row in enumerate(rows):
        try:
            arr = np.asarray(row, dtype=np.float32)
        except (TypeError, ValueError):
            raise ValidationError("a vector must be a row of numbers", field=f"vectors[{i}]", value=row,
                                  index=i) from None
        if arr.shape != (dim,):
            raise ValidationError(f"vectors[{i}] has shape {arr.shape}; the embedder's vectors have {dim} numbers",
                                  field=f"vectors[{i}]", value=f"shape {arr.shape}", allowed=f"shape ({dim},)",
                                  index=i)
        if not np.all(np.isfinite(arr)) or not np.any(arr):
            raise ValidationError(f"vectors[{i}] must hold finite numbers, not all zero", field=f"vectors[{i}]",
                                  value="NaN, inf or all zeros", index=i)
        out.append(arr)
    return out


def duplicate_ids(records: list[MemIR]) -> None:
    seen: dict[str, int] = {}
    for i, record in enumerate(records):
        if record.id in seen:
            raise ValidationError(f"items[{i}] repeats the id {record.id!r} of items[{seen[record.id]}]",
                                  field=f"items[{i}].id", value=record.id, allowed="ids unique within the call",
                                  index=i)
        seen[record.id] = i
