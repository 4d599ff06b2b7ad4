"""Query intent: which memory types answer a query, and which filters and order apply.

``RetrievalIntent`` is a plain, visible object: recall reads it, a caller may
inspect it, print it, or change any part with :meth:`RetrievalIntent.override`.
The kind is predicted by the shipped softmax model (sentence vector + cue
features); the filters come from precise rules (task status words, a fact's
attribute, a preference's polarity, dates such as "上周" / "last week").
When the model is unsure, ``types`` widens to cover the two likeliest kinds and
property filters are dropped (a filter that is wrong hides the answer).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemir.embed.base import Embedder
from mnemir.errors import ValidationError
from mnemir.ontology.enums import OPEN_STATUSES
from mnemir.understand.dates import local_now, time_range
from mnemir.understand.entities import find_entities
from mnemir.understand.extract import check_text
from mnemir.understand.fill import fact_attribute
from mnemir.understand.lexicon import CUES, language_of
from mnemir.understand.model import SoftmaxModel, boosted, load_model

__all__ = ["INTENT_KINDS", "KIND_TYPES", "IntentRecognizer", "RetrievalIntent"]

INTENT_KINDS = ("fact_lookup", "open_tasks", "task_status", "preference", "emotion", "plan", "frame", "general")
CONTENT_TYPES = ("Fact", "Preference", "Task", "Plan", "EmotionalState", "ContextualFrame", "Hypothesis")
#: the types that answer each kind of query, best first
KIND_TYPES: dict[str, tuple[str, ...]] = {
    "fact_lookup": ("Fact", "Hypothesis"),
    "open_tasks": ("Task", "Plan"),
    "task_status": ("Task", "Plan"),
    "preference": ("Preference", "Fact"),
    "emotion": ("EmotionalState",),
    "plan": ("Plan", "Task"),
    "frame": ("ContextualFrame",),
    "general": CONTENT_TYPES,
}
#: attributes that answer the same question ("what do I do?" is answered by a job or an employer)
_ATTRIBUTE_FAMILIES = {"occupation": ["occupation", "employer"], "employer": ["occupation", "employer"],
                       "residence": ["residence", "hometown"], "hometown": ["hometown", "residence"]}
UNSURE_BELOW = 0.5


@dataclass(frozen=True)
class RetrievalIntent:
    """What a query asks of memory. Every field may be overridden."""

    query: str
    types: tuple[str, ...]
    where: dict[str, Any] | None = None
    order_by: tuple[tuple[str, bool], ...] = ()
    kind: str = "general"
    entities: tuple[str, ...] = ()
    attribute: str | None = None
    time_range: tuple[datetime | None, datetime | None] | None = None
    confidence: float = 1.0
    language: str = "en"
    reasons: tuple[str, ...] = field(default_factory=tuple)
    #: the model's probability of every kind, best first (``kind`` and ``confidence`` are its first): the intent is a
    #: probability over roles, which recall reads softly (empty when the intent was built by hand)
    kinds: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.types, (str, bytes)) or not self.types:
            raise ValidationError("an intent needs at least one memory type", field="types", value=self.types,
                                  allowed="a non-empty tuple of type names")
        object.__setattr__(self, "types", tuple(self.types))
        if self.where is not None and not isinstance(self.where, dict):
            raise ValidationError("where must be a dict or None", field="where", value=self.where, allowed="dict")
        if self.kind not in INTENT_KINDS:
            raise ValidationError("unknown intent kind", field="kind", value=self.kind, allowed=list(INTENT_KINDS))
        object.__setattr__(self, "order_by", tuple((str(f), bool(asc)) for f, asc in self.order_by))
        object.__setattr__(self, "kinds", tuple((str(kd), float(p)) for kd, p in self.kinds))

    def override(self, **changes: Any) -> RetrievalIntent:
        """A copy with some fields changed, e.g. ``intent.override(types=("Fact",), where=None)``."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ValidationError("unknown intent field", field=unknown[0], value=unknown[0],
                                  allowed=[f.name for f in dataclasses.fields(self)])
        reasons = (*self.reasons, "overridden: " + ", ".join(sorted(changes)))
        if "kinds" not in changes and {"kind", "types", "confidence"} & set(changes):
            changes["kinds"] = ()  # the model's distribution no longer describes an intent changed by hand
        return dataclasses.replace(self, **{"reasons": reasons, **changes})

    def to_dict(self) -> dict[str, Any]:
        span = None
        if self.time_range is not None:
            span = [t.isoformat() if t is not None else None for t in self.time_range]
        return {"query": self.query, "kind": self.kind, "types": list(self.types), "where": self.where,
                "order_by": [list(o) for o in self.order_by], "entities": list(self.entities),
                "attribute": self.attribute, "time_range": span, "confidence": round(self.confidence, 3),
                "language": self.language, "reasons": list(self.reasons),
                "kinds": {kd: round(p, 3) for kd, p in self.kinds}}


#: precise cues that raise one kind's probability (the model sees the whole query; these see exact wording)
_KIND_RULES: dict[str, re.Pattern[str]] = {
    "open_tasks": re.compile(r"让你(?:帮我)?(?:做|办|弄|处理|跟进)的|交代(?:给)?你的|待办|还有(?:哪些|什么|啥)(?:事|任务|活)|"
                             r"没(?:做|完成|办|处理|弄)完?的(?:事|任务|活)|\b(?:on my (?:list|plate)|to-?dos?|still (?:need|have) to|"
                             r"pending|outstanding|what'?s left|haven'?t (?:finished|done)|asked you to do)\b", re.I),
    "preference": re.compile(r"我(?:最)?(?:喜欢|爱|偏好|讨厌|不喜欢|爱吃|爱喝).{0,8}(?:什么|哪|啥)|\bdo i (?:like|love|prefer|enjoy|"
                             r"hate)\b|\bmy favou?rite\b|\bwhat .{0,25}\b(?:do i|i) (?:like|love|prefer|enjoy)\b", re.I),
    "emotion": re.compile(r"(?:为什么|为啥).{0,6}(?:生气|难过|焦虑|烦|开心|伤心|紧张|委屈|沮丧|激动)|心情|情绪|"
                          r"\bwhy was i (?:so )?(?:angry|upset|sad|anxious|stressed|mad|happy|down)\b|\bmood\b", re.I),
    "fact_lookup": re.compile(r"天气|气温|下雨吗|\bweather\b|\bforecast\b|我住(?:在)?哪|\bwhere do i live\b", re.I),
    "plan": re.compile(r"下一步|步骤|\bnext step\b|\bthe steps\b", re.I),
}
RULE_BOOST = 0.35

_LIKE_Q = re.compile(r"喜欢|爱|偏好|最爱|\b(?:like|love|enjoy|prefer|favou?rite|fan of)\b", re.I)


def _rule_kinds(query: str) -> list[str]:
    return [kind for kind, pattern in _KIND_RULES.items() if pattern.search(query)]


class IntentRecognizer:
    """Query -> RetrievalIntent, offline (the shipped model + rules)."""

    def __init__(self, embedder: Embedder, model: SoftmaxModel | None = None) -> None:
        self.embedder = embedder
        self.model = model if model is not None else load_model("intent")
        self.model.check(embedder)

    def predict_kinds(self, query: str) -> list[tuple[str, float]]:
        """Kinds with probabilities, best first: the model's, raised where a precise rule matches."""
        return self._rank(query)[0]

    def _rank(self, query: str) -> tuple[list[tuple[str, float]], list[str]]:
        """(kinds with probabilities best first, the kinds whose precise rule matched)."""
        vector = self.embedder.embed_query(query)[None, :]
        ruled = _rule_kinds(query)
        return boosted(self.model.predict(vector, [query])[0], dict.fromkeys(ruled, RULE_BOOST)), ruled

    def recognize(self, query: str, now: datetime | None = None) -> RetrievalIntent:
        query = check_text(query, "query")
        now = local_now(now)
        ranked, ruled = self._rank(query)
        kind, confidence = ranked[0]
        reasons = [f"kind {kind} (p={confidence:.2f})"]
        if kind in ruled:
            reasons.append(f"wording typical of {kind}")
        types = KIND_TYPES[kind]
        unsure = confidence < UNSURE_BELOW
        if unsure:
            second = ranked[1][0]
            types = tuple(dict.fromkeys([*types, *KIND_TYPES[second]]))
            reasons.append(f"unsure: widened to {second} types too, no property filters")
        where, order_by, attribute = self._filters(kind, query)
        if unsure:
            where = None
        elif where:
            reasons.append("filter " + ", ".join(sorted(where)))
        span = time_range(query, now)
        if span is not None:
            reasons.append(f"time range {span[0].date()}..{span[1].date()}")
        entities = tuple(dict.fromkeys(e.key for e in find_entities(query)))
        return RetrievalIntent(query=query, types=types, where=where, order_by=order_by, kind=kind,
                               entities=entities, attribute=attribute, time_range=span, confidence=confidence,
                               language=language_of(query), reasons=tuple(reasons), kinds=tuple(ranked))

    @staticmethod
    def _filters(kind: str, query: str) -> tuple[dict[str, Any] | None, tuple[tuple[str, bool], ...], str | None]:
        if kind == "open_tasks":
            return {"status": {"$in": list(OPEN_STATUSES)}}, (("deadline", True),), None
        if kind == "task_status":
            return None, (("@updated_at", False),), None
        if kind == "fact_lookup":
            attribute, _ = fact_attribute(query)
            if attribute == "general":
                return None, (), None
            family = _ATTRIBUTE_FAMILIES.get(attribute)
            where = {"attribute": {"$in": family}} if family else {"attribute": attribute}
            return where, (), attribute
        if kind == "preference":
            if CUES["dislike"].search(query):
                return {"preference_type": "dislike"}, (("strength", False),), None
            if _LIKE_Q.search(query):
                return {"preference_type": {"$in": ["like", "neutral"]}}, (("strength", False),), None
            return None, (("strength", False),), None
        if kind == "plan":
            return None, (("order", True),), None
        if kind in ("emotion", "frame"):
            return None, (("@created_at", False),), None
        return None, (), None
