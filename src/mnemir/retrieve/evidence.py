"""Checking an unsure intent against the evidence: which family of memories answers the query best?

The intent is a prior. When its confidence is low, two witnesses are heard: the memories (which family's best
memory is closest to the query) and the query's own wording, read with the understanding layer's cue lexicon
(a question about tasks says so: "了吗", "进展", "what's left", "did you ..."). A task family without a task cue
loses ground, since a task that shares the entity of a fact question is the collapse to avoid, unless the best
task matches the query clearly better than any other memory (the question is about that task, in words the
lexicon does not know: "Where do things stand with the visa letter?"). Feelings take over only when the query asks
about feelings ("how did I feel", "心情", "how am I holding up", "我是什么感受", an emotion word). A question asking
for advice ("should we ...?", "要不要...") is answered by preferences and the present state. The active frame speaks
for "what is this session about?" (the wording patterns live in :mod:`mnemir.retrieve.wording`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from mnemir.ontology.enums import OPEN_STATUSES
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
from mnemir.retrieve.wording import (
    ADVICE_FORM,
    DOING_FORM,
    FACT_FORM,
    FEELING_WORDS,
    NEXT_FORM,
    PROGRESS_FORM,
    REACTION_FORM,
    REMAINING_FORM,
    STILL_FORM,
    WH_DID,
    asks_about_now,
)
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


#: per cue family, the question forms read beside the lexicon's cue groups
FORMS: dict[tuple[str, ...], tuple[tuple[str, re.Pattern[str]], ...]] = {
    TASK_CUES: (("progress_form", PROGRESS_FORM), ("doing_form", DOING_FORM), ("remaining_form", REMAINING_FORM),
                ("next_form", NEXT_FORM)),
    FEELING_CUES: (("reaction_form", REACTION_FORM), ("feeling_word", FEELING_WORDS)),
}


def cues(query: str, groups: tuple[str, ...]) -> list[str]:
    found = [g for g in groups if CUES[g].search(query)]
    if "status_q" in found and not CUES["status_q"].search(WH_DID.sub(" ", query)):
        # only the "did" of a wh-question: it asks what happened, not whether it is done (read here, not in the
        # lexicon's cue, which is also a feature the intent model was trained on)
        found.remove("status_q")
    return found + [name for name, form in FORMS.get(groups, ()) if form.search(query)]


def settle(intent: IntentLike, pool: Iterable[Candidate], config: RankingConfig,
           now: datetime) -> Settled:
    """The kind and types to rank for: the intent's, unless it is unsure and another family matches better.
    Only a frame in force at ``now`` speaks for the frame family (an ended one does not answer "this meeting")."""
    keep = Settled(intent.kind, tuple(intent.types), False)
    if intent.confidence >= config.trust_intent:
        return keep
    task_words, feeling_words = cues(intent.query, TASK_CUES), cues(intent.query, FEELING_CUES)
    if feeling_words and set(task_words) == {"progress_form"}:
        task_words = []  # "劲头咋样": the generic "how is it going" asks about the feeling named beside it
    if (intent.kind == "emotion" and feeling_words) or (intent.kind == "plan" and "next_form" in task_words):
        return keep  # the guess and the wording agree
    if ADVICE_FORM.search(intent.query) and not task_words and not feeling_words:
        if intent.kind == "preference":
            return keep
        types = tuple(dict.fromkeys([*FAMILY_TYPES["preference"], *intent.types]))
        return Settled("preference", types, True, f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); "
                       "the query asks for advice: answered by preferences and the present state")
    best: dict[str, tuple[float, Candidate]] = {}
    for c in pool:
        family = family_of(c.record.type)
        if family is None or c.via is not None or (family == "frame" and not frame_active(c.record, now)):
            continue
        rel, _ = relevance(c, intent, config)
        if family not in best or rel > best[family][0]:
            best[family] = (rel, c)
    if not task_words and len(best) > 1 and (FACT_FORM.search(intent.query)
                                             or not _clear_lead(best, "task", config.task_lead)):
        best.pop("task", None)  # unsure, and the wording does not ask about tasks: a task cannot take over
    # a guess of "feelings" that is not a long shot counts like a feeling word: the memories then decide
    feelings_asked = bool(feeling_words) or (intent.kind == "emotion"
                                             and intent.confidence >= config.feeling_guess_confidence) \
        or _how_it_goes_now(intent.query, task_words)
    # "还差哪几步", "is it still hanging over me" asks what stands in the way in so many words: heard more clearly
    # than other task cues (the lexicon's listing words, "due" or "截止", also ask for a date a fact holds)
    listing = "remaining_form" in task_words
    votes = {family: rel + _cue_bonus(family, bool(task_words), feelings_asked, config)
             * (config.remaining_cue_factor if listing and family == "task" else 1.0)
             for family, (rel, _) in best.items()}
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


def _how_it_goes_now(query: str, task_words: list[str]) -> bool:
    """"这两天练面试还卡壳吗？", "Where am I at with Gary these days?": asked about now, with no fact or task wording,
    how something is going for the user is often a feeling put in other words."""
    return asks_about_now(query) and bool(STILL_FORM.search(query)) and not FACT_FORM.search(query) \
        and set(task_words) <= {"progress_form"}


def _clear_lead(best: dict[str, tuple[float, Candidate]], family: str, margin: float) -> bool:
    """Whether ``family``'s best memory matches the query better than every other family's by ``margin``."""
    if family not in best:
        return False
    others = [rel for f, (rel, _) in best.items() if f != family]
    return best[family][0] >= max(others, default=0.0) + margin


def _cue_bonus(family: str, tasks_asked: bool, feelings_asked: bool, config: RankingConfig) -> float:
    if family == "task":
        return config.cue_weight if tasks_asked else -config.cue_weight
    if family == "emotion":
        return config.cue_weight if feelings_asked else -1.0  # never by similarity alone
    return 0.0


def _refine_task_kind(intent: IntentLike, task_words: list[str], keep: Settled) -> Settled:
    """An unsure task intent: "what's left" is open tasks, "did ... / 了吗" is a task's status."""
    if intent.kind not in ("open_tasks", "task_status"):
        return keep
    listing = "list_q" in task_words or "remaining_form" in task_words
    wanted = "open_tasks" if listing and "status_q" not in task_words else \
        "task_status" if "status_q" in task_words and not listing else intent.kind
    if wanted == intent.kind:
        return keep
    return Settled(wanted, keep.types, True, f"the intent was unsure ({intent.kind}, p={intent.confidence:.2f}); "
                   f"the wording asks {'what is left' if wanted == 'open_tasks' else 'about a status'}")


def _kind_for(family: str, intent_kind: str, witness: Candidate, task_words: list[str]) -> str:
    if family == "fact":
        return "fact_lookup"
    if family in ("preference", "emotion"):
        return family
    if family == "frame":
        return "frame"
    if "next_form" in task_words:
        return "plan"
    if {"list_q", "doing_form", "remaining_form"} & set(task_words) and "status_q" not in task_words:
        return "open_tasks"
    if "status_q" in task_words:
        return "task_status"
    if intent_kind in TASK_KINDS:
        return intent_kind
    return "open_tasks" if task_status(witness.record) in OPEN_STATUSES else "task_status"
