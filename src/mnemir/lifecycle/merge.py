"""Merge instead of duplicate: is a new memory the same as a stored one, and what does the merge look like.

Two memories are the same when they have the same type and scope, the type's key properties are equal after
normalisation, and their texts are close enough in meaning. A type without keys (or a record missing them)
needs near-identical text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from mnemir.ir import Action, HistoryEntry, MemIR
from mnemir.lifecycle.config import TypePolicy
from mnemir.lifecycle.records import changed, entry, is_live, same_scope, short
from mnemir.ontology import norm_key


def keys_of(record: MemIR, keys: Sequence[str]) -> tuple[str, ...] | None:
    """The normalised key values, or None when one is missing."""
    values = tuple(norm_key(record.properties.get(k)) for k in keys)
    return values if all(values) else None


def is_duplicate(new: MemIR, old: MemIR, similarity: float, policy: TypePolicy) -> bool:
    """Whether ``new`` repeats ``old`` (given the cosine similarity of their texts)."""
    if policy.merge_keys is None or new.type != old.type or not same_scope(new, old) or not is_live(old):
        return False
    if policy.merge_open_statuses is not None and old.properties.get("status") not in policy.merge_open_statuses:
        return False
    if norm_key(new.text) == norm_key(old.text) and new.properties == old.properties:
        return True
    new_keys = keys_of(new, policy.merge_keys) if policy.merge_keys else None
    old_keys = keys_of(old, policy.merge_keys) if policy.merge_keys else None
    if new_keys is not None and old_keys is not None:
        return new_keys == old_keys and similarity >= policy.merge_min_similarity
    return similarity >= policy.merge_text_similarity


def find_duplicate(new: MemIR, candidates: Sequence[MemIR], similarity: Mapping[str, float],
                   policy: TypePolicy) -> MemIR | None:
    """The stored memory ``new`` repeats (the most similar, then the most recently updated), or None."""
    matches = [c for c in candidates if c.id != new.id and is_duplicate(new, c, similarity.get(c.id, 0.0), policy)]
    if not matches:
        return None
    return max(matches, key=lambda c: (similarity.get(c.id, 0.0), c.metadata.updated_at, c.id))


def reinforced(old: float | None, new: float | None, step: float) -> float:
    """A repeat moves the value towards 1: take the larger, then x + step * (1 - x)."""
    base = max(v for v in (old, new, 0.5 if old is None and new is None else None) if v is not None)
    return round(min(1.0, base + step * (1.0 - base)), 4)


def merge_into(target: MemIR, new: MemIR, policy: TypePolicy, *, now: datetime,
               actor: str) -> tuple[MemIR, HistoryEntry]:
    """``target`` updated by its repeat ``new``: reinforced, refreshed, missing properties filled, provenance kept."""
    props: dict[str, object] = {k: v for k, v in new.properties.items() if k not in target.properties}
    if policy.reinforce is not None:
        props[policy.reinforce] = reinforced(_unit(target.properties.get(policy.reinforce)),
                                             _unit(new.properties.get(policy.reinforce)), policy.reinforce_step)
    source = new.metadata.source
    if source.at is None:
        source = source.model_copy(update={"at": now})
    relations = [r for r in new.relationships if r.target != target.id and r not in target.relationships]
    merged = changed(target, now, properties=props,
                     metadata={"merged_sources": [*target.metadata.merged_sources, source]},
                     relationships=[*target.relationships, *relations])
    history = entry(target, merged, Action.merged, now=now, actor=actor,
                    reason=f"repeated: {short(new.text)}", related=[new.id],
                    extra={"merged_text": new.text, "merged_source": source.model_dump(mode="json")})
    return merged, history


def _unit(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
