"""Checking an unsure intent against the evidence: which family of memories answers the query best?

The intent is a prior. When its confidence is low, the memories themselves testify: if the best-matching fact
is clearly closer to the query than the best-matching task, a query labelled "task status" is really a fact
question (and the other way round). Feelings never take over this way: an outburst shares its words with
calm questions about the same thing, which is exactly the collapse to avoid.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mnemir.retrieve.ranking import TASK_KINDS, TASK_TYPES, Candidate, IntentLike, RankingConfig, relevance, task_status

#: memory families a query may be about, the types in each and the kind of query that asks for them
FAMILY_TYPES: dict[str, tuple[str, ...]] = {
    "fact": ("Fact", "Hypothesis"),
    "task": TASK_TYPES,
    "preference": ("Preference", "Fact"),
}
KIND_FAMILY: dict[str, str] = {"fact_lookup": "fact", "preference": "preference",
                               **{kind: "task" for kind in TASK_KINDS}}


@dataclass(frozen=True)
class Settled:
    kind: str
    types: tuple[str, ...]
    switched: bool
    note: str | None = None


def family_of(type_name: str) -> str | None:
    if type_name in ("Fact", "Hypothesis"):
        return "fact"
    if type_name in TASK_TYPES:
        return "task"
    if type_name == "Preference":
        return "preference"
    return None


def settle(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig) -> Settled:
    """The kind and types to rank for: the intent's, unless it is unsure and another family matches better."""
    keep = Settled(intent.kind, tuple(intent.types), False)
    if intent.confidence >= config.trust_intent or intent.kind == "emotion":
        return keep
    best: dict[str, tuple[float, Candidate]] = {}
    for c in pool:
        family = family_of(c.record.type)
        if family is None or c.via is not None:
            continue
        rel, _ = relevance(c, intent, config)
        if family not in best or rel > best[family][0]:
            best[family] = (rel, c)
    if not best:
        return keep
    target, (top, witness) = max(best.items(), key=lambda kv: kv[1][0])
    own = KIND_FAMILY.get(intent.kind)
    if target == own or top < config.min_relevance:
        return keep
    if own is not None and top <= best.get(own, (0.0, witness))[0] + config.switch_margin:
        return keep
    kind = _kind_for(target, intent.kind, witness)
    types = tuple(dict.fromkeys([*FAMILY_TYPES[target], *intent.types]))
    note = (f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); the memories that match best are "
            f"of type {witness.record.type}, so this was ranked as {kind}")
    return Settled(kind, types, True, note)


def _kind_for(family: str, intent_kind: str, witness: Candidate) -> str:
    if family == "fact":
        return "fact_lookup"
    if family == "preference":
        return "preference"
    if intent_kind in TASK_KINDS:
        return intent_kind
    return "open_tasks" if task_status(witness.record) in ("pending", "in_progress") else "task_status"
