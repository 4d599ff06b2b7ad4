"""Checking an unsure intent against the evidence: which family of memories answers the query best?

The intent (a learned model's reading of the query's wording) is a prior. When its confidence is low, the memories
are heard: which family's best memory is closest to the query. A task family loses ground unless the intent guessed
a task question or the best task matches the query clearly better than any other memory (a task that shares the
entity of a fact question is the collapse to avoid); feelings take over only when the intent guessed them. The
active frame speaks for "what is this session about?".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from mnemir.ontology.enums import OPEN_STATUSES
from mnemir.retrieve.learned import FAMILIES, OUTCOMES, SAID, RoleModel, family_features
from mnemir.retrieve.ranking import (
    TASK_KINDS,
    TASK_TYPES,
    Candidate,
    IntentLike,
    RankingConfig,
    frame_active,
    relevance,
    task_status,
)

#: memory families a query may be about, the types in each and the kind of query that asks for them
FAMILY_TYPES: dict[str, tuple[str, ...]] = {
    "fact": ("Fact", "Hypothesis"),
    "task": TASK_TYPES,
    "preference": ("Preference", "Fact"),
    "emotion": ("EmotionalState",),
    "frame": ("ContextualFrame",),
}
KIND_FAMILY: dict[str, str] = {"fact_lookup": "fact", "preference": "preference", "frame": "frame",
                               **{kind: "task" for kind in TASK_KINDS}}


@dataclass(frozen=True)
class Settled:
    kind: str
    types: tuple[str, ...]
    switched: bool
    note: str | None = None
    #: the probability that the answer is of the settled kind's family (the learned role model's); None: the
    #: intent's own confidence stands
    confidence: float | None = None


def family_of(type_name: str) -> str | None:
    if type_name in ("Fact", "Hypothesis"):
        return "fact"
    if type_name in TASK_TYPES:
        return "task"
    if type_name == "Preference":
        return "preference"
    if type_name == "EmotionalState":
        return "emotion"
    if type_name == "ContextualFrame":
        return "frame"
    return None


def settle(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig,
           now: datetime) -> Settled:
    """The kind and types to rank for: the intent's, unless it is unsure and another family matches better.
    Only a frame in force at ``now`` speaks for the frame family (an ended one does not answer "this meeting")."""
    keep = Settled(intent.kind, tuple(intent.types), False)
    if intent.confidence >= config.trust_intent:
        return keep
    best: dict[str, tuple[float, Candidate]] = {}
    for c in pool:
        family = family_of(c.record.type)
        if family is None or c.via is not None or (family == "frame" and not frame_active(c.record, now)):
            continue
        rel, _ = relevance(c, intent, config)
        if family not in best or rel > best[family][0]:
            best[family] = (rel, c)
    own = KIND_FAMILY.get(intent.kind)
    if own != "task" and len(best) > 1 and not _clear_lead(best, "task", config.task_lead):
        best.pop("task", None)  # unsure, not asked about tasks: a task sharing the topic is the collapse to avoid
    # a guess of "feelings" that is not a long shot lets the memories decide; feelings never win by similarity alone
    feelings_asked = intent.kind == "emotion" and intent.confidence >= config.feeling_guess_confidence
    votes = {family: rel + _prior(family, intent.kind in TASK_KINDS, feelings_asked, config)
             for family, (rel, _) in best.items()}
    if not votes:
        return keep
    target = max(votes, key=lambda f: votes[f])
    if target == own or best[target][0] < config.min_relevance:
        return keep
    if own is not None and own in votes and votes[target] <= votes[own] + config.switch_margin:
        return keep
    witness = best[target][1]
    kind = _kind_for(target, intent.kind, witness)
    types = tuple(dict.fromkeys([*FAMILY_TYPES[target], *intent.types]))
    note = (f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); the closest memories are of type "
            f"{witness.record.type}; ranked as {kind}")
    return Settled(kind, types, True, note)


def _clear_lead(best: dict[str, tuple[float, Candidate]], family: str, margin: float) -> bool:
    """Whether ``family``'s best memory matches the query better than every other family's by ``margin``."""
    if family not in best:
        return False
    others = [rel for f, (rel, _) in best.items() if f != family]
    return best[family][0] >= max(others, default=0.0) + margin


def _prior(family: str, tasks_asked: bool, feelings_asked: bool, config: RankingConfig) -> float:
    """What the unsure intent's own guess still counts for, in relevance units."""
    if family == "task":
        return config.cue_weight if tasks_asked else -config.cue_weight
    if family == "emotion":
        return config.cue_weight if feelings_asked else -1.0  # never by similarity alone
    return 0.0


def _kind_for(family: str, intent_kind: str, witness: Candidate | None) -> str:
    if family == "fact":
        return "fact_lookup"
    if family in ("preference", "emotion", "frame"):
        return family
    if intent_kind in TASK_KINDS:
        return intent_kind
    if witness is None:
        return "task_status"
    return "open_tasks" if task_status(witness.record) in OPEN_STATUSES else "task_status"


def role_evidence(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig,
                  now: datetime, felt_as_feeling: bool = False) -> list[tuple[str, float, int | None, int | None]]:
    """(family, relevance, vector rank, text rank) of every candidate that belongs to a family (not reached by a
    link; a frame only while in force) or is an utterance kept verbatim (:data:`SAID`): what the role model hears of
    the memories. ``felt_as_feeling``: an utterance said with a feeling (``Candidate.felt``) is heard as that
    feeling (the emotion family), as a store typed by hand holds the feeling and no utterance."""
    out = []
    for c in pool:
        family = (("emotion" if felt_as_feeling and c.felt else SAID) if c.record.type == "Episode"
                  else family_of(c.record.type))
        if family is None or c.via is not None or (family == "frame" and not frame_active(c.record, now)):
            continue
        out.append((family, relevance(c, intent, config)[0], c.vector_rank, c.text_rank))
    return out


def settle_learned(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig, now: datetime,
                   model: RoleModel, switch_at: float = 0.5, widen_at: float = 0.25,
                   felt_as_feeling: bool = False) -> Settled:
    """The kind, types and confidence to rank for, from the learned role model (:class:`RoleModel`): the intent's
    whole distribution over kinds and how well each family's memories match, together. The answer's most likely
    family takes over from the intent's kind when its probability reaches ``switch_at`` and the intent does not rank
    its type as intended already (a preference question ranks the user's present state, a Fact, as intended) and the
    intent is unsure (below ``RankingConfig.trust_intent``); the
    types of every other family at least ``widen_at`` likely are ranked as intended too; the confidence is the
    probability that the answer's type is among the intended ones. An intent of no family ("general") that no family
    reaches ``switch_at`` for is kept as it is."""
    pool = list(pool)
    probs = role_probabilities(intent, pool, config, now, model, felt_as_feeling)
    target = max(FAMILIES, key=lambda f: probs[f])
    own = KIND_FAMILY.get(intent.kind)
    covered = own is not None and FAMILY_TYPES[target][0] in intent.types
    # a sure intent keeps its kind (the memories then only weigh how sure it is): the role model learned on files full
    # of traps worded like another kind, and overruling a sure reading cost "what is left" in conversations
    switched = (target != own and not covered and probs[target] >= switch_at
                and intent.confidence < config.trust_intent)
    family = target if switched else own
    if family is None:
        return Settled(intent.kind, tuple(intent.types), False)
    kind = intent.kind
    if switched:
        witness = max((c for c in pool if family_of(c.record.type) == target and c.via is None),
                      key=lambda c: relevance(c, intent, config)[0], default=None)
        kind = _kind_for(target, intent.kind, witness)
    first = list(FAMILY_TYPES[family]) if switched else [t for t in intent.types if t in FAMILY_TYPES[family]]
    others = [f for f in sorted(FAMILIES, key=lambda f: -probs[f]) if f != family and probs[f] >= widen_at]
    types = tuple(dict.fromkeys([*(first or FAMILY_TYPES[family]), *(FAMILY_TYPES[f][0] for f in others)]))
    note = _role_note(intent, probs) + (f"; ranked as {kind}" if switched else "")
    return Settled(kind, types, switched or types != tuple(intent.types), note, intended_share(probs, types))


def role_probabilities(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig, now: datetime,
                       model: RoleModel, felt_as_feeling: bool = False) -> dict[str, float]:
    """The role model's probability that the answer is of each family, for this intent and these candidates."""
    return model.probabilities(family_features(intent, role_evidence(intent, pool, config, now, felt_as_feeling),
                                               config.min_relevance))


def intended_share(probs: dict[str, float], types: Iterable[str]) -> float:
    """How likely the answer's type is among ``types``: the probability of every family whose first type is in it."""
    wanted = set(types)
    return round(min(sum(p for f, p in probs.items() if f in FAMILY_TYPES and FAMILY_TYPES[f][0] in wanted), 1.0), 4)


def confidence_learned(intent: IntentLike, settled: Settled, pool: Iterable[Candidate], config: RankingConfig,
                       now: datetime, model: RoleModel, felt_as_feeling: bool = False) -> Settled:
    """``settled`` (the hand rules' kind and types) with the role model's confidence: how likely the answer's type is
    among the types it ranks as intended, the intent's distribution and the memories heard together."""
    probs = role_probabilities(intent, pool, config, now, model, felt_as_feeling)
    note = "; ".join(n for n in (settled.note, _role_note(intent, probs)) if n)
    return replace(settled, note=note, confidence=intended_share(probs, settled.types))


def _role_note(intent: IntentLike, probs: dict[str, float]) -> str:
    spread = ", ".join(f"{f} {probs[f]:.2f}" for f in sorted(OUTCOMES, key=lambda f: -probs.get(f, 0.0))
                       if probs.get(f, 0.0) >= 0.05)
    return f"the answer's role, read from the intent ({intent.kind}, p={intent.confidence:.2f}) and the memories: {spread}"
