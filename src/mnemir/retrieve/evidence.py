"""Checking an unsure intent against the evidence: which family of memories answers the query best?

The intent is a prior. When its confidence is low, two witnesses are heard: the memories (which family's best
memory is closest to the query) and the query's own wording, read with the understanding layer's cue lexicon
(a question about tasks says so: "了吗", "进展", "what's left", "did you ..."). A task family without a task cue
loses ground, since a task that shares the entity of a fact question is the collapse to avoid. Feelings take
over only when the query asks about feelings ("how did I feel", "心情").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mnemir.retrieve.ranking import TASK_KINDS, TASK_TYPES, Candidate, IntentLike, RankingConfig, relevance, task_status
from mnemir.understand.lexicon import CUES

#: cue groups that mark a question about tasks, about what is left, or about feelings
TASK_CUES = ("status_q", "list_q", "plan_q", "done", "progress", "abandon")
FEELING_CUES = ("feeling",)

#: memory families a query may be about, the types in each and the kind of query that asks for them
FAMILY_TYPES: dict[str, tuple[str, ...]] = {
    "fact": ("Fact", "Hypothesis"),
    "task": TASK_TYPES,
    "preference": ("Preference", "Fact"),
    "emotion": ("EmotionalState",),
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
    if type_name == "EmotionalState":
        return "emotion"
    return None


def cues(query: str, groups: tuple[str, ...]) -> list[str]:
    return [g for g in groups if CUES[g].search(query)]


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
    task_words, feeling_words = cues(intent.query, TASK_CUES), cues(intent.query, FEELING_CUES)
    if not task_words and len(best) > 1:
        best.pop("task", None)  # unsure, and the wording does not ask about tasks: a task cannot take over
    votes = {family: rel + _cue_bonus(family, task_words, feeling_words, config) for family, (rel, _) in best.items()}
    if not votes:
        return keep
    target = max(votes, key=lambda f: votes[f])
    own = KIND_FAMILY.get(intent.kind)
    if own == "task" and "task" not in votes and best[target][0] >= config.min_relevance:
        own = None  # the intent's own family was ruled out by the wording
    if target == own:
        return _refine_task_kind(intent, task_words, keep)
    if best[target][0] < config.min_relevance:
        return keep
    if own is not None and own in votes and votes[target] <= votes[own] + config.switch_margin:
        return _refine_task_kind(intent, task_words, keep)
    witness = best[target][1]
    kind = _kind_for(target, intent.kind, witness, task_words)
    types = tuple(dict.fromkeys([*FAMILY_TYPES[target], *intent.types]))
    heard = f"; cues: {', '.join(task_words + feeling_words)}" if task_words or feeling_words else "; no task cue"
    note = (f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); the closest memories are of type "
            f"{witness.record.type}{heard}; ranked as {kind}")
    return Settled(kind, types, True, note)


def _cue_bonus(family: str, task_words: list[str], feeling_words: list[str], config: RankingConfig) -> float:
    if family == "task":
        return config.cue_weight if task_words else -config.cue_weight
    if family == "emotion":
        return config.cue_weight if feeling_words else -1.0  # never by similarity alone
    return 0.0


def _refine_task_kind(intent: IntentLike, task_words: list[str], keep: Settled) -> Settled:
    """An unsure task intent: "what's left" is open tasks, "did ... / 了吗" is a task's status."""
    if intent.kind not in ("open_tasks", "task_status"):
        return keep
    wanted = "open_tasks" if "list_q" in task_words and "status_q" not in task_words else \
        "task_status" if "status_q" in task_words and "list_q" not in task_words else intent.kind
    if wanted == intent.kind:
        return keep
    return Settled(wanted, keep.types, True, f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); "
                   f"the wording asks {'what is left' if wanted == 'open_tasks' else 'about a status'}")


def _kind_for(family: str, intent_kind: str, witness: Candidate, task_words: list[str]) -> str:
    if family == "fact":
        return "fact_lookup"
    if family in ("preference", "emotion"):
        return family
    if "list_q" in task_words and "status_q" not in task_words:
        return "open_tasks"
    if "status_q" in task_words:
        return "task_status"
    if intent_kind in TASK_KINDS:
        return intent_kind
    return "open_tasks" if task_status(witness.record) in ("pending", "in_progress") else "task_status"
