"""Role-aware ranking: what a memory is *for* in answering this query, and how much it counts.

Pure functions of candidate records, their similarity to the query, the intent and ``now``. The rules are the
seed's (sections 2 and 3): a task is not a fact, a past preference is soft context below the user's present
state, an emotion is a moment that fades and is never evidence, a fact's confidence and source matter, and the
active contextual frame demotes memories tied to another frame. Every number is in :class:`RankingConfig`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Protocol

from mnemir.errors import ValidationError
from mnemir.ir import MemIR, MemoryStatus
from mnemir.ontology import norm_key, parse_deadline
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES
from mnemir.retrieve.lexical import ENUM_LIKE, shared_terms
from mnemir.retrieve.wording import asks_about_now, points_here
from mnemir.store.filters import FilterNode, matches
from mnemir.understand.entities import aliases
from mnemir.understand.lexicon import main_language

#: the roles a recalled memory plays, in the order a Context presents them
RECALL_ROLES = ("answer", "current", "task", "background", "caution", "hypothesis", "context", "dialogue")
TASK_TYPES = ("Task", "Plan")
TASK_KINDS = ("open_tasks", "task_status", "plan")
#: roles that answer the query (the intent's types fit them); the others are context around the answer
#: the query kinds that ask for a settled record (a fact, a task, a plan): what was said with a feeling counts less
#: for them (advice, preference and general questions weigh the user's state, feelings included)
CALM_KINDS = ("fact_lookup", "open_tasks", "task_status", "plan")
ANSWER_ROLES = ("answer", "task", "hypothesis", "dialogue")
#: words that name the user as the entity of a Fact, in :func:`~mnemir.ontology.norm_key` form ("The User" ->
#: "theuser"); ranking and lifecycle conflict rules share this one definition
SELF_ENTITIES = frozenset(norm_key(w) for w in ("user", "the user", "me", "i", "myself", "self", "我", "用户", "本人",
                                                "自己"))
#: a memory reached by a relationship inherits this share of its parent's relevance per step
LINK_DECAY = 0.75
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


class IntentLike(Protocol):
    """What ranking reads of a :class:`mnemir.understand.RetrievalIntent`."""

    query: str
    types: tuple[str, ...]
    where: dict[str, Any] | None
    kind: str
    entities: tuple[str, ...]
    time_range: tuple[datetime | None, datetime | None] | None
    confidence: float


def _offsets() -> dict[str, dict[str, float]]:
    """Per query kind, a score offset per role: the role order the seed asks for, softly."""
    base = {"answer": 0.0, "current": 0.0, "task": -0.15, "background": -0.08, "caution": -0.2,
            "hypothesis": -0.1, "context": -0.2, "dialogue": -0.3}
    out = {kind: dict(base) for kind in ("fact_lookup", "open_tasks", "task_status", "preference", "emotion",
                                         "plan", "frame", "general")}
    for kind in TASK_KINDS:
        out[kind]["task"] = 0.1
    out["preference"].update(current=0.12, background=0.0)
    out["general"].update(current=0.05)
    out["emotion"].update(answer=0.1)
    out["frame"].update(context=0.1)
    return out


@dataclass(frozen=True)
class RankingConfig:
    """Every knob of role-aware ranking (defaults tuned on the collapse benchmark: on its train split, and also in
    response to results on what is now its dev split; docs/EVALUATION.md).

    The half-lives here are recall's own fading; the lifecycle's per-type ``half_life`` (``LifecycleConfig``,
    ``Memory.decay_weight``) is a separate measure that ranking does not read.
    """

    #: an emotional state's weight halves every ``emotion_half_life`` (a moment, not a trait)
    emotion_half_life: timedelta = 12 * HOUR
    #: below this faded weight an emotion is flagged faded (no longer the present mood)
    emotion_min_weight: float = 0.25
    #: an emotion asked about as an event (not as the mood) counts at least this much of its relevance, however old
    emotion_event_weight: float = 0.35
    #: a fresh emotion still counts this much of its relevance (damped: never evidence)
    emotion_damping: float = 0.5
    #: when the query asks about feelings, they fade this much more slowly
    emotion_answer_half_life: timedelta = 120 * DAY
    #: facts about the user stated this recently are the user's present state
    present_window: timedelta = 14 * DAY
    #: preferences lose weight slowly with age, down to ``preference_floor``
    preference_half_life: timedelta = 365 * DAY
    preference_floor: float = 0.75
    #: two preferences at least this similar are about the same thing: the older one is likely outdated
    stale_preference_similarity: float = 0.5
    #: ... or at least this similar when the newer one says the habit changed ("switched to", "改成", "现在")
    changed_preference_similarity: float = 0.25
    #: asked how the user feels now, an earlier feeling at least this similar to a later one has passed
    passed_feeling_similarity: float = 0.4
    #: how much an outdated (replaced) memory still counts
    outdated_factor: float = 0.3
    #: a fact below this confidence is labelled unconfirmed
    unconfirmed_below: float = 0.5
    #: the confidence assumed for a fact that states none, when facts are weighed against each other
    assumed_confidence: float = 0.7
    #: two facts disagree on the same entity and attribute: one this much less confident than the best is
    #: unconfirmed (and loses ``unconfirmed_penalty``); a closer one is taken as replaced by the best
    conflict_confidence_gap: float = 0.2
    unconfirmed_penalty: float = 0.15
    #: a fact at least this confident outranks every guess and unconfirmed fact about the same entity
    confident_fact: float = 0.8
    #: the least relevance (cosine + keyword bonus) a memory needs to be recalled
    min_relevance: float = 0.2
    #: the user's present state needs less: it matters even when it shares few words with the query (so does what
    #: was said in the active frame, for a query that points at it: "this one", "here", "今天")
    current_min_relevance: float = 0.08
    #: the embedder's cosine across languages (an English query, a Chinese memory) is scaled by this: loosely
    #: related texts in two languages score like close ones in one
    cross_language_factor: float = 0.8
    #: a thin answer is topped up with memories under the floors down to this relevance, labelled weak
    weak_min_relevance: float = 0.05
    #: the best keyword match in the scope (text rank 1, any type) that shares a topic word with the query counts at
    #: least this much (the embedder misses some plain matches: "Where is the offsite being held?" / "The offsite is
    #: at ..."); the role gates and ranking still decide whether and where it is shown
    keyword_anchor: float = 0.22
    #: an open task surfaces in a non-task query only when it is this close to the query
    task_context_similarity: float = 0.6
    #: memories tied to another contextual frame than the active one count this much
    other_frame_factor: float = 0.35
    #: memories tied to the active frame count this much
    active_frame_factor: float = 1.15
    #: a disputed memory counts this much (and is labelled uncertain)
    disputed_factor: float = 0.85
    #: a memory whose time falls outside the intent's time range counts this much
    out_of_range_factor: float = 0.5
    #: score bonus for keyword (BM25) agreement, by text rank
    text_bonus_top3: float = 0.08
    text_bonus_top10: float = 0.04
    #: score bonus for a memory of an intended type that matches the intent's property filter
    where_bonus: float = 0.1
    #: score bonus per query entity found in the memory (at most two count)
    entity_bonus: float = 0.04
    #: multiplier for types outside the intent's types (the widened part)
    widened_type_fit: float = 0.6
    #: ... but a fact answers a status question nearly as well as the task: it may record the outcome ("笔试过了")
    outcome_fact_fit: float = 0.85
    #: an utterance kept verbatim (an Episode) from which no typed memory was read: its role is unknown, not wrong,
    #: so it is not weighed as low as a type outside the intent's (0.8: chosen between 0.6 and 0.8 on the continuity
    #: train split; docs/decisions/0023)
    episode_fit: float = 0.8
    #: a memory said with a feeling (an EmotionalState was read from the same utterance: an outburst, a complaint)
    #: counts this much for a question that asks for a fact or a task (``CALM_KINDS``), not about the past: a calm
    #: statement of the same thing is the better evidence (heat overstates), and the feeling is its own memory.
    #: Soft: nothing else close, it is still found. 1.0 (off): 0.8 gained nothing on the collapse suite end to end
    #: (train or dev) and cost on the continuity files (decision 0038)
    felt_fit: float = 1.0
    #: ... and an utterance from which only a feeling was read is weighed as that feeling (damped as the present
    #: mood, never under ``emotion_event_weight``) instead of as an utterance of unknown role (``episode_fit``)
    felt_episode_as_feeling: bool = True
    #: ... in proportion to the intent's confidence (False: fully for every calm question)
    felt_by_confidence: bool = False
    #: ... and only beside a calm memory of the same thing: one said without a feeling, from another utterance, at
    #: least this similar (cosine) to it (0: wherever a feeling was read). Off by default: 0.5 gains on the
    #: continuity files and loses the collapse suite's end-to-end gain (decision 0038)
    felt_beside_calm: float = 0.0
    #: below this intent confidence, the intent is checked against which family of memories matches best
    trust_intent: float = 0.7
    #: ... where an unsure intent's guess of "feelings" counts as asking about feelings from this confidence on
    feeling_guess_confidence: float = 0.4
    #: how much the unsure intent's own guess (a task or feeling question) still counts in that check, in relevance
    #: units
    cue_weight: float = 0.1
    #: in task queries, tasks lose up to this share of their weight with age (recent ones are what is meant)
    task_age_weight: float = 0.15
    task_half_life: timedelta = 30 * DAY
    #: unsure and without task wording, tasks still answer when the best task leads every other family by this much
    task_lead: float = 0.1
    #: ... and another family must match better by this much to take over
    switch_margin: float = 0.02
    #: for a status question, tasks this far below the best-matching task are about something else
    status_focus_margin: float = 0.15
    #: ... and for an unsure guess of "what is left", open tasks this far below the best-matching one
    open_focus_margin: float = 0.2
    #: the least final score a recalled memory needs (after role weighting, fading and demotions)
    min_score: float = 0.15
    #: at most this many present-state memories are lifted above background preferences
    max_current_lifted: int = 2
    role_offsets: Mapping[str, Mapping[str, float]] = field(default_factory=_offsets)

    def __post_init__(self) -> None:
        for name in ("felt_episode_as_feeling", "felt_by_confidence"):
            if not isinstance(getattr(self, name), bool):
                raise ValidationError(f"{name} must be true or false", field=name, value=getattr(self, name),
                                      allowed="a bool")
        for name in ("emotion_half_life", "emotion_answer_half_life", "present_window", "preference_half_life",
                     "task_half_life"):
            value = getattr(self, name)
            if not isinstance(value, timedelta) or value <= timedelta(0):
                raise ValidationError(f"{name} must be a positive timedelta", field=name, value=str(value),
                                      allowed="a positive timedelta")
        for name in ("emotion_min_weight", "emotion_event_weight", "emotion_damping", "preference_floor", "outdated_factor",
                     "other_frame_factor", "disputed_factor", "out_of_range_factor", "widened_type_fit",
                     "assumed_confidence", "confident_fact", "passed_feeling_similarity",
                     "changed_preference_similarity", "stale_preference_similarity", "conflict_confidence_gap",
                     "task_lead", "feeling_guess_confidence", "trust_intent", "keyword_anchor", "outcome_fact_fit",
                     "episode_fit", "felt_fit", "felt_beside_calm",
                     "weak_min_relevance", "cross_language_factor", "status_focus_margin", "open_focus_margin"):
            self._check_range(name, 0.0, 1.0)

    def _check_range(self, name: str, low: float, high: float) -> None:
        value = getattr(self, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise ValidationError(f"{name} must be a number in [{low:g}, {high:g}]", field=name, value=value,
                                  allowed=f"[{low:g}, {high:g}]")


@dataclass
class Candidate:
    """A memory that might be recalled, with the signals that found it."""

    record: MemIR
    similarity: float = 0.0
    vector_rank: int | None = None
    text_rank: int | None = None
    #: its keyword (BM25) score where the keyword search found it (what places it among the utterances)
    text_score: float | None = None
    #: reached by following a relationship: (relation, from id, depth)
    via: tuple[str, str, int] | None = None
    #: the best score of the memory this one was reached from
    parent_relevance: float = 0.0
    #: said with a feeling: a feeling (EmotionalState) was read from the same utterance (set by
    #: :func:`~mnemir.retrieve.fusion.fold_episodes`)
    felt: bool = False

    @property
    def id(self) -> str:
        return self.record.id


@dataclass
class Scored:
    candidate: Candidate
    role: str
    score: float
    relevance: float = 0.0
    #: relevance after the role's weighting, fading and demotions (what the floor judges; score adds the
    #: role's offset to it, which only orders)
    strength: float = 0.0
    reasons: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    #: listed whatever its final strength (an open task answering "what is left", a recent feeling answering
    #: "how am I?", the frame in force and what was said in it for "what is this session about?", a memory standing
    #: in for one it replaced)
    listed: bool = False
    #: the id of the newer memory that replaced this one (set when it is demoted as outdated)
    replaced_by: str | None = None
    #: its score before it was demoted as replaced (what its replacement may stand in with)
    score_before_replaced: float | None = None
    #: it passed the present state's lower relevance floor (the user's own state): its score floor is lowered alike
    present_floor: bool = False

    @property
    def record(self) -> MemIR:
        return self.candidate.record


@dataclass(frozen=True)
class FrameState:
    """The active contextual frame (if any) and which memories are tied to which frame."""

    active: MemIR | None = None
    #: memory id -> ids of the frames it is tied to
    ties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    topics: Mapping[str, str] = field(default_factory=dict)


# -- small helpers -------------------------------------------------------------------------------
def age_of(record: MemIR, now: datetime) -> timedelta:
    return max(now - record.metadata.created_at, timedelta(0))


def halving(age: timedelta, half_life: timedelta) -> float:
    return float(0.5 ** (age / half_life))


def confidence_of(record: MemIR) -> float | None:
    value = record.properties.get("confidence")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def norm_text(value: Any) -> str:
    return " ".join(str(value).lower().split()) if value is not None else ""


def is_about_user(record: MemIR) -> bool:
    """Whether a Fact is about the user: no entity, a self word ("me", "我") or the user's own id (compared as
    :func:`~mnemir.ontology.norm_key`, so spacing, case and punctuation do not matter)."""
    entity = record.properties.get("entity")
    key = norm_key(entity)
    return entity is None or key in SELF_ENTITIES or key == norm_key(record.scope.user_id)


#: possessive self-reference ("my ...", "the user's ...", "我的...", "我..." but not the plural "我们"): a fact about
#: something of the user's (a part of the body, what the user is doing) is the user's own state
_OWN = re.compile(r"^(?:my|the user's|user's)\s|^我(?!们)", re.I)


def is_user_state(record: MemIR) -> bool:
    """Whether a Fact states the user's own condition: :func:`is_about_user`, or something of the user's named
    with a possessive ("my right shoulder", "我的右肩"). Ranking's present state only; the lifecycle's conflict
    rules keep the strict check."""
    entity = record.properties.get("entity")
    return is_about_user(record) or (isinstance(entity, str) and _OWN.search(entity.strip()) is not None)


def task_status(record: MemIR) -> str | None:
    status = record.properties.get("status")
    return status if isinstance(status, str) else None


def role_of(record: MemIR, intent: IntentLike, now: datetime, config: RankingConfig, type_role: str) -> str:
    """The role a memory plays for this query (the type's default role, refined by state and kind)."""
    # asked for advice ("should we...?", "要不要..."), what is true around the user now (a child's sprained wrist,
    # guests staying over) is present state too, not only what is true of the user
    if record.type == "Fact" and (is_user_state(record) or intent.kind == "preference") \
            and age_of(record, now) <= config.present_window \
            and (record.valid_to is None or record.valid_to > now):
        return "current"
    if record.type == "EmotionalState":
        return "answer" if intent.kind == "emotion" else "caution"
    if record.type == "Preference":
        return "background"
    if record.type in TASK_TYPES:
        return "task"
    return {"answer": "answer", "background": "background", "caution": "caution", "task": "task",
            "context": "context", "dialogue": "dialogue", "hypothesis": "hypothesis"}.get(type_role, "answer")


# -- gates: what may not be recalled at all for this query -------------------------------------
def gate(c: Candidate, role: str, intent: IntentLike, where: FilterNode | None, now: datetime,
         config: RankingConfig, *, filler: bool = False) -> str | None:
    """Why ``c`` must not be recalled for this query, or None when it may (``filler``: as a weak filler of a thin
    answer)."""
    record = c.record
    if record.type in TASK_TYPES:
        return _task_gate(c, intent, where, config, filler)
    if record.type == "ContextualFrame" and intent.kind != "frame":
        return "a frame is context, shown apart" if frame_active(record, now) else "an inactive frame"
    if record.type == "DialogueAct" and "DialogueAct" not in intent.types:
        return "a dialogue act is not knowledge"
    return None


def _task_gate(c: Candidate, intent: IntentLike, where: FilterNode | None, config: RankingConfig,
               filler: bool) -> str | None:
    status = task_status(c.record)
    asked_for = c.record.type in intent.types and where is not None and matches(where, c.record)
    if intent.kind == "task_status":
        return None
    if status in CLOSED_STATUSES:
        if asked_for and intent.kind in TASK_KINDS:
            return None
        return f"a {status} task does not answer this query"
    if intent.kind in TASK_KINDS or (intent.types and intent.types[0] in TASK_TYPES):
        return None
    if c.similarity >= config.task_context_similarity and intent.kind != "fact_lookup":
        return None
    return "a task is not an answer to this kind of query"


def frame_active(record: MemIR, now: datetime) -> bool:
    """A frame is in force unless marked inactive or past its valid_to."""
    return bool(record.properties.get("active", True)) and (record.valid_to is None or record.valid_to > now)


def _ago(age: timedelta) -> str:
    if age < HOUR:
        return f"{max(int(age.total_seconds() // 60), 0)} min ago"
    if age < DAY:
        return f"{int(age / HOUR)} h ago"
    days = age.days
    return f"{days} days ago" if days < 60 else f"{days // 30} months ago"


# -- scoring -------------------------------------------------------------------------------------
def relevance(c: Candidate, intent: IntentLike, config: RankingConfig) -> tuple[float, list[str]]:
    """How close a memory is to the query, before roles: cosine + keyword and entity agreement."""
    reasons = []
    value = max(c.similarity, 0.0)
    if c.vector_rank is not None:
        reasons.append(f"semantic similarity {c.similarity:.2f}")
    if value and config.cross_language_factor < 1.0 and across_languages(intent.query, c.record.text):
        value *= config.cross_language_factor
        reasons.append(f"across languages (similarity x {config.cross_language_factor:g})")
    if c.text_rank is not None:
        bonus = config.text_bonus_top3 if c.text_rank <= 3 else config.text_bonus_top10 if c.text_rank <= 10 else 0
        if bonus:
            value += bonus
            reasons.append(f"keyword match (text rank {c.text_rank})")
    if c.text_rank == 1 and value < config.keyword_anchor:
        shared = shared_terms(intent.query, c.record)
        if shared:
            value = config.keyword_anchor
            reasons.append("the best keyword match (" + ", ".join(sorted(shared)[:3]) + ")")
    found = [e for e in intent.entities if e and mentions(c.record, e)]
    if found:
        value += config.entity_bonus * min(len(found), 2)
        reasons.append("mentions " + ", ".join(found[:2]))
    if c.via is not None:
        inherited = linked_relevance(c)
        if inherited > value:
            value = inherited
        reasons.append(f"linked by {c.via[0]} from {c.via[1]}")
    return value, reasons


def linked_relevance(c: Candidate) -> float:
    """What a memory reached by a relationship inherits: its parent's relevance, shrinking with each step."""
    return c.parent_relevance * LINK_DECAY ** c.via[2] if c.via is not None else 0.0


def across_languages(a: str, b: str) -> bool:
    """Whether two texts are mostly written in different scripts (a text with no letters is in neither)."""
    la, lb = main_language(a), main_language(b)
    return bool(la and lb and la != lb)


def mentions(record: MemIR, entity: str) -> bool:
    """Whether the memory names ``entity`` (or one of its zh/en aliases) in its text or a descriptive property."""
    haystacks = [record.content.text] + [v for k, v in record.properties.items()
                                         if isinstance(v, str) and k not in ENUM_LIKE]
    for name in {entity, *aliases(entity)}:
        pattern = _entity_pattern(name)
        if any(pattern.search(h) for h in haystacks):
            return True
    return False


@lru_cache(maxsize=1024)
def _entity_pattern(name: str) -> re.Pattern[str]:
    """Latin names match as whole words ("pro" is not in "in_progress"); CJK names as substrings."""
    escaped = re.escape(name)
    if name.isascii():
        return re.compile(rf"(?<![A-Za-z0-9]){escaped}(?![A-Za-z0-9])", re.IGNORECASE)
    return re.compile(escaped)


def score_candidate(c: Candidate, role: str, intent: IntentLike, where: FilterNode | None, now: datetime,
                    config: RankingConfig, frames: FrameState, *, past: bool, floor_off: bool = False) -> Scored | None:
    """The role-aware score of one admitted candidate, or None when it is not relevant enough. ``past``: the
    query asks about an earlier moment (:func:`~mnemir.retrieve.wording.asks_about_past`, read once per query)."""
    record = c.record
    rel, reasons = relevance(c, intent, config)
    present_feeling = _present_feeling(record, intent, now, config) and not past
    # the user's own present state matters even in few shared words; other present facts must match like any other
    own_state = role == "current" and is_user_state(record)
    floor = config.current_min_relevance if own_state or present_feeling else config.min_relevance
    if _said_in_active_frame(record, frames) and points_here(intent.query):
        floor = min(floor, config.current_min_relevance)  # "this one", "here": what is said in the frame in force
    listed = _answers_whatever_its_wording(record, role, intent, where, frames, config)
    if listed:
        floor = 0.0
    listed = listed or present_feeling  # a recent feeling answers "how am I?" whatever its wording
    if rel < floor and not floor_off:
        return None
    flags: list[str] = []
    in_session = intent.kind == "frame" and _said_in_active_frame(record, frames)
    factor = _type_fit(record, intent, config) if role in ANSWER_ROLES and not in_session else 1.0
    if in_session:
        reasons.append("said in the session asked about")  # what the meeting or lesson is about includes its content
    elif role in ANSWER_ROLES and record.type == "Episode":
        reasons.append("what was said, verbatim (" + ("only a feeling was read from it)" if c.felt else
                                                      "no typed memory read from it answers)"))
    elif role in ANSWER_ROLES and record.type not in intent.types:
        reasons.append(f"widened beyond the intended types ({record.type})")
    bonus = 0.0
    if where is not None and record.type in intent.types and matches(where, record):
        bonus += config.where_bonus
        reasons.append("matches the intent's property filter")
    factor *= _state_factor(record, role, intent, now, config, reasons, flags)
    if not past:  # "上回": the ended frame is what is asked about
        factor *= _frame_factor(record, frames, config, reasons, flags)
    factor *= _time_factor(record, intent, now, config, reasons)
    if c.felt and record.type != "EmotionalState" and intent.kind in CALM_KINDS and not past:
        factor *= _felt_factor(record, intent, now, config, reasons)
    offset = config.role_offsets.get(intent.kind, {}).get(role, 0.0)
    strength = (rel + bonus) * factor
    return Scored(c, role, round(strength + offset, 4), rel, round(strength, 4), reasons, flags, listed,
                  present_floor=own_state)


def _answers_whatever_its_wording(record: MemIR, role: str, intent: IntentLike, where: FilterNode | None,
                                  frames: FrameState, config: RankingConfig) -> bool:
    """An open task answers "what is left"; the frame in force and what was said in it answer "what are we working
    on?" (when the intent is sure, or the query points at the situation: an unsure guess of "frame" without "today"
    or "here" is often a fact question)."""
    if intent.kind == "open_tasks" and role == "task":
        return matches(where, record) if where is not None else task_status(record) in OPEN_STATUSES
    if intent.kind == "frame" and frames.active is not None and (intent.confidence >= config.trust_intent
                                                                 or points_here(intent.query)):
        return record.id == frames.active.id or _said_in_active_frame(record, frames)
    return False


def _said_in_active_frame(record: MemIR, frames: FrameState) -> bool:
    return frames.active is not None and frames.active.id in frames.ties.get(record.id, frozenset())


def _present_feeling(record: MemIR, intent: IntentLike, now: datetime, config: RankingConfig) -> bool:
    """A recent feeling answers a question about feelings even in other words ("how am I holding up?"); not a
    question about an earlier moment ("那天", "when they first told me": the caller checks)."""
    return record.type == "EmotionalState" and intent.kind == "emotion" and age_of(record, now) <= config.present_window


def _felt_factor(record: MemIR, intent: IntentLike, now: datetime, config: RankingConfig,
                 reasons: list[str]) -> float:
    """What a memory said with a feeling counts for a calm question (a fact or a task asked for, not about the
    past). An utterance from which only a feeling was read is that feeling, said: it is weighed as the feeling is
    (damped as the present mood, fading to an event; :func:`_state_factor`) instead of as an utterance of unknown
    role. A memory of another type read alongside a feeling counts ``felt_fit``. With ``felt_by_confidence`` (off by
    default: decision 0035) the factor applies in proportion to the intent's confidence."""
    if record.type == "Episode" and config.felt_episode_as_feeling:
        weight = halving(age_of(record, now), config.emotion_half_life)
        full = min(max(config.emotion_damping * weight, config.emotion_event_weight) / config.episode_fit, 1.0)
        what = "said with a feeling, and only the feeling was read from it: weighed as the feeling"
    else:
        full, what = config.felt_fit, "said with a feeling: a calm question, calm evidence first"
        if full >= 1.0:
            return 1.0  # counts fully: nothing to say
    factor = 1.0 - float(intent.confidence) * (1.0 - full) if config.felt_by_confidence else full
    reasons.append(f"{what} (x {factor:.2f})")
    return factor


def _type_fit(record: MemIR, intent: IntentLike, config: RankingConfig) -> float:
    if record.type in intent.types:
        return max(1.0 - 0.08 * intent.types.index(record.type), 0.7)
    if intent.kind == "task_status" and record.type == "Fact":
        return config.outcome_fact_fit
    if record.type == "Episode":
        return config.episode_fit
    return config.widened_type_fit


def _state_factor(record: MemIR, role: str, intent: IntentLike, now: datetime, config: RankingConfig,
                  reasons: list[str], flags: list[str]) -> float:
    """Type-specific weight: emotions fade and are damped, facts by confidence, preferences age slowly."""
    age = age_of(record, now)
    factor = 1.0
    if record.type == "EmotionalState":
        if intent.kind == "emotion":
            factor = 0.6 + 0.4 * halving(age, config.emotion_answer_half_life)
            if age > config.present_window and asks_about_now(intent.query):
                factor *= config.out_of_range_factor
                reasons.append(f"a feeling from {_ago(age)}: the question asks about now")
        else:
            # fading weakens a feeling as the present mood; what happened stays an event that can be asked about
            weight = halving(age, config.emotion_half_life)
            factor = max(config.emotion_damping * weight, config.emotion_event_weight)
            reasons.append(f"a feeling from {_ago(age)}: damped as the present mood, weight {weight:.2f}"
                           + ("; kept as an event" if config.emotion_damping * weight < config.emotion_event_weight
                              else ""))
            flags.append("faded" if weight < config.emotion_min_weight else "emotion")
    elif record.type in ("Fact", "Hypothesis"):
        conf = confidence_of(record)
        if conf is not None:
            factor = 0.6 + 0.4 * conf
            if conf < config.unconfirmed_below or record.type == "Hypothesis":
                flags.append("unconfirmed")
                reasons.append(f"low confidence {conf:.2f}: unconfirmed")
        if role == "current":
            reasons.append("the user's present state" if is_user_state(record) else "a present circumstance")
    elif record.type == "Preference":
        factor = config.preference_floor + (1 - config.preference_floor) * halving(age, config.preference_half_life)
    elif record.type in TASK_TYPES:
        if intent.kind in TASK_KINDS:
            factor = 1 - config.task_age_weight * (1 - halving(age, config.task_half_life))
        status = task_status(record)
        if status in OPEN_STATUSES:
            reasons.append(f"open task ({status})")
        elif status:
            reasons.append(f"{status} task")
    if record.status == MemoryStatus.disputed:
        factor *= config.disputed_factor
        flags.append("uncertain")
        reasons.append("disputed: contradicted by another memory")
    return factor


def _frame_factor(record: MemIR, frames: FrameState, config: RankingConfig, reasons: list[str],
                  flags: list[str]) -> float:
    if frames.active is None:
        return 1.0
    if record.id == frames.active.id:
        reasons.append("the contextual frame in force now")
        return config.active_frame_factor
    tied = frames.ties.get(record.id, frozenset())
    if not tied:
        return 1.0
    if frames.active.id in tied:
        reasons.append("belongs to the active frame")
        return config.active_frame_factor
    topic = next((frames.topics.get(f) for f in tied if frames.topics.get(f)), None)
    reasons.append(f"belongs to another frame ({topic})" if topic else "belongs to another frame")
    flags.append("other_frame")
    return config.other_frame_factor


def _time_factor(record: MemIR, intent: IntentLike, now: datetime, config: RankingConfig,
                 reasons: list[str]) -> float:
    """A past time range ("last week") judges when a memory was made; a range reaching into the future ("this
    week") only favours tasks due in it (it says when something should happen, not when it was said)."""
    span = intent.time_range
    if not span:
        return 1.0
    start, end = span
    if end is not None and end <= now:
        # what happened in a past period is often told after it (a March mishap reported in April): only what was
        # said before the period began cannot report it
        when = record.metadata.created_at
        if start is not None and when < start:
            reasons.append("outside the asked time range")
            return config.out_of_range_factor
        reasons.append("inside the asked time range" if when < end else "said after the asked time range began")
        return 1.0
    due = parse_deadline(record.properties.get("deadline"))
    if due is not None and (start is None or due >= start) and (end is None or due <= end):
        reasons.append("due inside the asked time range")
        return 1.1
    return 1.0
