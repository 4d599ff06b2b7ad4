"""Small pure helpers for changing records and describing the change in history."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mnemir.ir import Action, HistoryEntry, MemIR, Relationship
from mnemir.store.base import LIVE_STATUSES


def start_of(record: MemIR) -> datetime:
    """When a memory became true (valid_from, else its creation)."""
    return record.valid_from or record.metadata.created_at


def last_refreshed(record: MemIR) -> datetime:
    """When a memory was last confirmed or changed (a repeat refreshes it)."""
    return max(record.metadata.updated_at, start_of(record))


def is_live(record: MemIR) -> bool:
    return record.status in LIVE_STATUSES


def same_scope(a: MemIR, b: MemIR) -> bool:
    """Governance never crosses users or agents (sessions are shared: a preference outlives its session)."""
    return a.scope.user_id == b.scope.user_id and a.scope.agent_id == b.scope.agent_id


def changed(record: MemIR, now: datetime, *, properties: Mapping[str, Any] | None = None,
            metadata: Mapping[str, Any] | None = None, **fields: Any) -> MemIR:
    """A copy with ``fields`` replaced, ``properties`` merged (None removes) and ``updated_at`` = now."""
    update: dict[str, Any] = dict(fields)
    if properties is not None:
        props = dict(record.properties)
        for key, value in properties.items():
            if value is None:
                props.pop(key, None)
            else:
                props[key] = value
        update["properties"] = props
    meta_update: dict[str, Any] = {"updated_at": max(now, record.metadata.updated_at)}
    meta_update.update(metadata or {})
    update["metadata"] = record.metadata.model_copy(update=meta_update)
    # model_copy skips validation; valid_from/valid_to order is checked by the caller's invariants
    return record.model_copy(update=update)


def with_relation(record: MemIR, target: str, relation: str, properties: Mapping[str, Any] | None = None) -> MemIR:
    """A copy with one more relationship (no duplicate of the same target and relation)."""
    if any(r.target == target and r.relation == relation for r in record.relationships):
        return record
    rel = Relationship(target=target, relation=relation, properties=dict(properties or {}))
    return record.model_copy(update={"relationships": [*record.relationships, rel]})


def diff(old: MemIR, new: MemIR) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parts of a record that changed, as (before, after) in JSON form."""
    a, b = old.to_dict(), new.to_dict()
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for key in ("type", "content", "status", "valid_from", "valid_to", "relationships"):
        if a.get(key) != b.get(key):
            before[key], after[key] = a.get(key), b.get(key)
    pa, pb = a["properties"], b["properties"]
    keys = sorted(k for k in set(pa) | set(pb) if pa.get(k) != pb.get(k))
    if keys:
        before["properties"] = {k: pa.get(k) for k in keys}
        after["properties"] = {k: pb.get(k) for k in keys}
    return before, after


def entry(old: MemIR | None, new: MemIR, action: Action, *, now: datetime, actor: str, reason: str,
          related: tuple[str, ...] | list[str] = (), extra: Mapping[str, Any] | None = None) -> HistoryEntry:
    """A history entry for a change from ``old`` to ``new`` (``old`` None: creation)."""
    if old is None:
        before, after = None, {"type": new.type, "properties": new.properties, "status": new.status.value}
    else:
        before, after = diff(old, new)
    if extra:
        after = {**(after or {}), **extra}
    return HistoryEntry(memory_id=new.id, at=now, action=action, reason=reason, actor=actor, before=before or None,
                        after=after or None, related_ids=list(related))


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
