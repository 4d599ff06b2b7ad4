"""Merge instead of duplicate: is a new memory the same as a stored one, and what does the merge look like.

Two memories are the same when they have the same type and scope, the type's key properties are equal after
normalisation, and their texts are close enough in meaning. A type without keys (or a record missing them)
needs near-identical text.

Closeness in meaning is never enough on its own: a merge loses one of the two texts, so anything that tells two
memories apart keeps them apart, however similar they are (:func:`telling_apart`). Every merge keeps the whole
merged record in the target's history, so :func:`unmerged` can restore both.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from mnemir.ir import Action, HistoryEntry, MemIR
from mnemir.lifecycle.config import TypePolicy
from mnemir.lifecycle.records import changed, entry, is_live, same_scope, short
from mnemir.ontology import norm_key


def keys_of(record: MemIR, keys: Sequence[str]) -> tuple[str, ...] | None:
    """The normalised key values, or None when one is missing."""
    values = tuple(norm_key(record.properties.get(k)) for k in keys)
    return values if all(values) else None


#: properties that weigh or date a memory (a repeat reinforces or refreshes them); they never tell two apart
WEIGHT_PROPERTIES = frozenset({"confidence", "strength", "intensity", "priority", "source", "status", "completed_at",
                               "evidence", "active"})
#: runs of digits, with the separators of dates, times, amounts and versions ("2026-03-04", "10:30", "1,500", "v2.1")
_DIGITS = re.compile(r"\d+(?:[.,:/\-]\d+)*")
#: Chinese numerals that count or date something: the numeral is followed by a unit, date or time character
_CJK_NUMERALS = re.compile(r"[零〇一二两三四五六七八九十百千万]+(?=[月日号点个次年岁周天位张件台块元层楼路]|小时|分钟)")
#: identifier-like tokens: letters and digits mixed ("A12", "KL-2041", "room 4b"), emails, web addresses
_IDENTIFIERS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|\b(?=\w*\d)(?=\w*[^\W\d_])\w+\b")
#: capitalised words that do not start a sentence: in English these are names (people, places, products)
_NAMES = re.compile(r"(?<![.!?:;]\s)(?<!^)(?<![.!?:;])\b[A-Z][\w'-]*")


_PRONOUN_I = frozenset({"I", "I'm", "I'll", "I've", "I'd"})


@functools.lru_cache(maxsize=4096)
def _details(text: str) -> dict[str, tuple[str, ...]]:
    """What in a text names one particular thing: numbers, identifiers and names (sorted, so order is ignored).
    Kept for the latest texts (a batch compares each item with its neighbours, which are often the same records);
    the callers only read what it returns."""
    text = unicodedata.normalize("NFKC", text)  # full-width digits and letters read as their ASCII forms
    names = [n for n in _NAMES.findall(" ".join(text.split())) if n not in _PRONOUN_I]
    return {"numbers": tuple(sorted(_DIGITS.findall(text) + _CJK_NUMERALS.findall(text))),
            "identifiers": tuple(sorted(i.lower() for i in _IDENTIFIERS.findall(text))),
            "names": tuple(sorted(n.lower() for n in names))}


def telling_apart(new: MemIR, old: MemIR) -> str | None:
    """Why two memories of one type are different memories, or None when nothing tells them apart.

    Differing numbers, dates, identifiers or names in the texts, differing extracted entities, and any property
    both records hold with different values (weights such as confidence aside) keep them apart."""
    mine, theirs = _details(new.content.text), _details(old.content.text)
    for kind, values in mine.items():
        if values != theirs[kind]:
            return f"different {kind}: {list(values)} vs {list(theirs[kind])}"
    for name in sorted(set(new.properties) & set(old.properties) - WEIGHT_PROPERTIES):
        a, b = new.properties[name], old.properties[name]
        if norm_key(a) != norm_key(b) and a != b:
            return f"different {name}: {a!r} vs {b!r}"
    entities = [set(r.metadata.extra.get("entities") or ()) for r in (new, old)]
    if all(entities) and entities[0] != entities[1]:
        return f"different entities: {sorted(entities[0])} vs {sorted(entities[1])}"
    return None


def is_duplicate(new: MemIR, old: MemIR, similarity: float, policy: TypePolicy) -> bool:
    """Whether ``new`` repeats ``old`` (given the cosine similarity of their texts)."""
    return _is_duplicate(new, _Mine.of(new, policy), old, similarity, policy)


class _Mine:
    """What :func:`is_duplicate` reads of the new record, made once for all its candidates."""

    def __init__(self, text: str, keys: tuple[str, ...] | None) -> None:
        self.text, self.keys = text, keys

    @classmethod
    def of(cls, new: MemIR, policy: TypePolicy) -> _Mine:
        return cls(norm_key(new.text), keys_of(new, policy.merge_keys) if policy.merge_keys else None)


def _is_duplicate(new: MemIR, mine: _Mine, old: MemIR, similarity: float, policy: TypePolicy) -> bool:
    if policy.merge_keys is None or new.type != old.type or not same_scope(new, old) or not is_live(old):
        return False
    if policy.merge_open_statuses is not None and old.properties.get("status") not in policy.merge_open_statuses:
        return False
    # what would make them one memory is checked before what tells them apart (the texts' details): the answer is
    # the same, and most candidates (a batch's neighbours) fail the cheaper test
    if new.properties == old.properties and mine.text == norm_key(old.text):
        same = True
    else:
        old_keys = keys_of(old, policy.merge_keys) if policy.merge_keys else None
        if mine.keys is not None and old_keys is not None:
            same = mine.keys == old_keys and similarity >= policy.merge_min_similarity
        else:
            same = similarity >= policy.merge_text_similarity
    return same and telling_apart(new, old) is None


def find_duplicate(new: MemIR, candidates: Sequence[MemIR], similarity: Mapping[str, float],
                   policy: TypePolicy) -> MemIR | None:
    """The stored memory ``new`` repeats (the most similar, then the most recently updated), or None."""
    mine = _Mine.of(new, policy)
    matches = [c for c in candidates
               if c.id != new.id and _is_duplicate(new, mine, c, similarity.get(c.id, 0.0), policy)]
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
                    extra={"merged_text": new.text, "merged_source": source.model_dump(mode="json"),
                           "merged_record": new.to_dict()})
    return merged, history


def unmerged(target: MemIR, merge: HistoryEntry, *, now: datetime, actor: str) -> tuple[MemIR, MemIR, HistoryEntry]:
    """Undo one merge recorded in ``target``'s history: (the target as it was before it, the merged record
    restored under its own id, the target's history entry).

    A property the merge filled or reinforced goes back to its value before the merge unless it was changed again
    since; relationships the merge brought along and the merged source are removed."""
    after = merge.after or {}
    data = after.get("merged_record")
    if not isinstance(data, dict):
        raise ValueError(f"history entry {merge.id} keeps no merged record (a merge stored before unmerge existed)")
    restored = MemIR.from_dict(data)
    before_props = (merge.before or {}).get("properties") or {}
    after_props = after.get("properties") or {}
    props: dict[str, Any] = {}
    for name, value in before_props.items():
        if target.properties.get(name) == after_props.get(name):  # unchanged since the merge
            props[name] = value  # None removes a property the merge filled in
    brought = {(r.target, r.relation) for r in restored.relationships}
    kept_relations = [r for r in target.relationships if (r.target, r.relation) not in brought]
    source = after.get("merged_source")
    sources = [s for s in target.metadata.merged_sources if s.model_dump(mode="json") != source]
    reverted = changed(target, now, properties=props, metadata={"merged_sources": sources},
                       relationships=kept_relations)
    history = entry(target, reverted, Action.restored, now=now, actor=actor,
                    reason=f"unmerged: {restored.id} restored as a memory of its own", related=[restored.id])
    return reverted, restored, history


def _unit(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
