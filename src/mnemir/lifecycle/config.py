"""Lifecycle configuration: per-type policies, contradiction strategies and conflict pairs.

Every number here is a default taken from the seed article (section 6.1) or a
conservative choice where the seed is silent; all of it is configurable through
``MemoryConfig(lifecycle=LifecycleConfig(...))``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.ontology.attributes import MULTI_VALUED_ATTRIBUTES

#: what to do when a new memory contradicts a live one
Strategy = Literal["supersede", "dispute", "clarify"]
STRATEGIES: tuple[str, ...] = ("supersede", "dispute", "clarify")

#: a fact checker: given a Fact and now, return its re-checked confidence (or None: no opinion)
FactChecker = Callable[[MemIR, datetime], float | None]


def check_strategy(value: str, field_name: str) -> str:
    if value not in STRATEGIES:
        raise ValidationError("unknown contradiction strategy", field=field_name, value=value, allowed=list(STRATEGIES))
    return value


@dataclass(frozen=True)
class TypePolicy:
    """How one memory type is governed."""

    #: properties that must be equal (after normalisation) for two memories to be the same; None: never merge
    merge_keys: tuple[str, ...] | None = ()
    #: the content similarity (cosine) two memories with equal keys still need to merge
    merge_min_similarity: float = 0.35
    #: the similarity needed to merge when the type has no keys or the keys are missing
    merge_text_similarity: float = 0.95
    #: only candidates whose property ``status`` is one of these merge (e.g. open tasks); None: any
    merge_open_statuses: tuple[str, ...] | None = None
    #: a [0, 1] property that a repeat raises (strength of a preference, confidence of a fact)
    reinforce: str | None = None
    #: how far a repeat moves ``reinforce`` towards 1 (x -> x + step * (1 - x))
    reinforce_step: float = 0.25
    #: strategy when a memory of this type contradicts one of the same type
    on_conflict: Strategy = "supersede"
    #: the lifecycle decay weight (``Memory.decay_weight``) halves every ``half_life`` since the memory was last
    #: refreshed; None: no decay. Separate from recall: ranking fades memories by its own
    #: ``RankingConfig`` half-lives and never reads this; archiving follows ``archive_after`` /
    #: ``archive_closed_after`` below, not this weight
    half_life: timedelta | None = None
    #: the decay weight never goes below this floor
    weight_floor: float = 0.0
    #: archived this long after it became valid (EmotionalState, DialogueAct); None: never by age
    archive_after: timedelta | None = None
    #: closed (completed/failed) tasks are archived this long after closing
    archive_closed_after: timedelta | None = None
    #: ... unless accessed within this window
    keep_if_used_within: timedelta | None = None

    def __post_init__(self) -> None:
        check_strategy(self.on_conflict, "on_conflict")
        for name in ("merge_min_similarity", "merge_text_similarity", "reinforce_step", "weight_floor"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValidationError(f"{name} must be in [0, 1]", field=name, value=value, allowed="[0, 1]")
        for name in ("half_life", "archive_after", "archive_closed_after", "keep_if_used_within"):
            value = getattr(self, name)
            if value is not None and value <= timedelta(0):
                raise ValidationError(f"{name} must be positive", field=name, value=str(value),
                                      allowed="a positive timedelta or None")


@dataclass(frozen=True)
class ConflictPair:
    """A declared contradiction across types, e.g. an allergy Fact vs a liking Preference for the same food.

    ``a_where`` / ``b_where`` are exact property matches (a list value means "one of"); the two sides conflict
    when their ``a_term`` and ``b_term`` properties mention the same thing (see :func:`terms_overlap`).
    """

    name: str
    a_type: str
    a_where: Mapping[str, Any]
    a_term: str
    b_type: str
    b_where: Mapping[str, Any]
    b_term: str
    strategy: Strategy = "clarify"
    #: question templates with {a_term} {b_term} {a_text} {b_text}; zh used when the texts are Chinese
    question_en: str = "Earlier: \"{a_text}\". Now: \"{b_text}\". These conflict about {a_term}; which is right?"
    question_zh: str = "记录里有「{a_text}」，又有「{b_text}」，关于{a_term}两者矛盾，以哪个为准？"

    def __post_init__(self) -> None:
        check_strategy(self.strategy, f"conflict_pairs.{self.name}.strategy")


ALLERGY_VS_LIKING = ConflictPair(
    name="allergy_vs_liking",
    a_type="Fact", a_where={"attribute": ["allergy", "allergies", "allergic_to", "过敏", "过敏原", "过敏史"]},
    a_term="value",
    b_type="Preference", b_where={"preference_type": "like"}, b_term="subject",
    question_en="You mentioned an allergy to {a_term}, but also that you like {b_term}. Should I avoid {b_term}?",
    question_zh="你提到对{a_term}过敏，但也说喜欢{b_term}。以后需要帮你避开{b_term}吗？",
)

DIETARY_VS_LIKING = ConflictPair(
    name="diet_vs_liking",
    a_type="Fact", a_where={"attribute": ["diet_restriction", "dietary_restriction", "cannot_eat", "忌口", "不能吃"]},
    a_term="value",
    b_type="Preference", b_where={"preference_type": "like"}, b_term="subject",
    question_en="You said you cannot have {a_term}, but also that you like {b_term}. Which should I go by?",
    question_zh="你说过不能吃{a_term}，但也说喜欢{b_term}，以哪个为准？",
)

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)

DEFAULT_POLICIES: dict[str, TypePolicy] = {
    # facts: kept; a repeat corroborates; a different value for a single-valued attribute supersedes
    "Fact": TypePolicy(merge_keys=("entity", "attribute", "value"), reinforce="confidence", reinforce_step=0.2,
                       on_conflict="supersede"),
    # preferences: a repeat raises strength and refreshes; a flip supersedes (people change their minds);
    # the weight fades slowly from the last confirmation but never below half
    "Preference": TypePolicy(merge_keys=("subject", "preference_type"), reinforce="strength", on_conflict="supersede",
                             half_life=180 * DAY, weight_floor=0.5),
    # open tasks with the same goal text are the same request asked twice
    "Task": TypePolicy(merge_keys=(), merge_text_similarity=0.92, merge_open_statuses=("pending", "in_progress"),
                       archive_closed_after=7 * DAY, keep_if_used_within=7 * DAY),
    "Plan": TypePolicy(merge_keys=("associated_task_id", "order"), merge_min_similarity=0.6),
    # an emotion is a moment: never merged, never supersedes; its weight as the current mood fades within a day,
    # but what happened stays findable (recall fades it as a mood, it does not hide the event): not archived by age
    "EmotionalState": TypePolicy(merge_keys=None, half_life=6 * HOUR),
    # what was said, verbatim: never merged away (two people may say the same words), never archived by age
    "Episode": TypePolicy(merge_keys=None),
    # dialogue acts live in their session
    "DialogueAct": TypePolicy(merge_keys=None, archive_after=DAY),
    "ContextualFrame": TypePolicy(merge_keys=("frame_type", "topic"), merge_min_similarity=0.5),
    # a repeated hypothesis is supporting evidence
    "Hypothesis": TypePolicy(merge_keys=("entity", "attribute", "value"), reinforce="confidence",
                             reinforce_step=0.15, merge_min_similarity=0.5),
}

#: user-defined types: merge only near-identical text, no decay
FALLBACK_POLICY = TypePolicy(merge_keys=(), merge_text_similarity=0.97)


#: how much each source is trusted when facts disagree (higher wins); unknown sources count as 1
DEFAULT_TRUST: dict[str, int] = {"user": 2, "external": 2, "assistant": 1}


@dataclass(frozen=True)
class LifecycleConfig:
    policies: Mapping[str, TypePolicy] = field(default_factory=lambda: dict(DEFAULT_POLICIES))
    conflict_pairs: tuple[ConflictPair, ...] = (ALLERGY_VS_LIKING, DIETARY_VS_LIKING)
    multi_valued_attributes: frozenset[str] = MULTI_VALUED_ATTRIBUTES
    trust: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_TRUST))
    #: a newer contradicting memory supersedes only if its confidence is not lower than the old one's by more
    supersede_confidence_margin: float = 0.2
    #: a contradiction read from dialogue with a lower type confidence than this disputes and asks instead
    supersede_min_extraction_confidence: float = 0.6
    #: what happens to a task's open plan steps when the task completes / fails
    steps_on_task_completed: Literal["complete", "archive", "keep"] = "complete"
    steps_on_task_failed: Literal["fail", "archive", "keep"] = "fail"
    #: hypotheses at or below this confidence are refuted and archived by maintain()
    hypothesis_refuted_below: float = 0.05
    #: the likelihood ratio one piece of evidence carries by default (odds multiply / divide by it)
    evidence_ratio: float = 2.0
    #: facts are re-checked by ``fact_checker`` this often (maintain() only calls it when one is set)
    fact_recheck_every: timedelta = 90 * DAY
    fact_checker: FactChecker | None = None
    #: records changed per store transaction in maintain() / migrations
    batch_size: int = 500

    def __post_init__(self) -> None:
        if not 0.0 <= self.supersede_confidence_margin <= 1.0:
            raise ValidationError("supersede_confidence_margin must be in [0, 1]",
                                  field="supersede_confidence_margin", value=self.supersede_confidence_margin)
        if not 0.0 <= self.supersede_min_extraction_confidence <= 1.0:
            raise ValidationError("supersede_min_extraction_confidence must be in [0, 1]",
                                  field="supersede_min_extraction_confidence",
                                  value=self.supersede_min_extraction_confidence, allowed="[0, 1]")
        if self.evidence_ratio <= 1.0:
            raise ValidationError("evidence_ratio must be > 1", field="evidence_ratio", value=self.evidence_ratio,
                                  allowed="> 1")
        if self.batch_size < 1:
            raise ValidationError("batch_size must be >= 1", field="batch_size", value=self.batch_size)
        for name, allowed in (("steps_on_task_completed", ("complete", "archive", "keep")),
                              ("steps_on_task_failed", ("fail", "archive", "keep"))):
            if getattr(self, name) not in allowed:
                raise ValidationError(f"unknown {name}", field=name, value=getattr(self, name), allowed=list(allowed))

    def policy(self, type_name: str) -> TypePolicy:
        return self.policies.get(type_name, FALLBACK_POLICY)

    def with_policy(self, type_name: str, **changes: Any) -> LifecycleConfig:
        """A copy with one type's policy changed, e.g. ``with_policy("Fact", on_conflict="clarify")``."""
        policies = dict(self.policies)
        policies[type_name] = replace(self.policy(type_name), **changes)
        return replace(self, policies=policies)

    def trust_of(self, source: str | None) -> int:
        return self.trust.get(source or "", 1)
