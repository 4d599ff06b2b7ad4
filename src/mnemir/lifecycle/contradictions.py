"""Contradictions by type rules, and how each strategy resolves them.

Rules (all deterministic, no LLM):

* ``fact_value``: two Facts with the same entity and attribute and different values (single-valued attributes),
  said of the same person: "my sister is a nurse" never contradicts "my brother is a programmer", whatever
  entity and attribute the extractor gave them (:func:`~mnemir.lifecycle.terms.same_subject`).
* ``preference_flip``: two Preferences on the same subject with a different preference_type.
* declared :class:`ConflictPair` s across types (an allergy Fact vs a liking Preference for the same food).
* ``hypothesis_evidence``: a Fact and a Hypothesis about the same entity and attribute; the Fact is evidence
  for or against the Hypothesis, and never the other way round.

An EmotionalState never supersedes anything and a Hypothesis never overrides a Fact. A contradiction read from
dialogue with low confidence disputes and asks; it does not supersede (:func:`may_supersede`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemir.ir import Action, HistoryEntry, MemIR, MemoryStatus
from mnemir.lifecycle.config import ConflictPair, LifecycleConfig, Strategy
from mnemir.lifecycle.events import EventKind, GovernanceEvent
from mnemir.lifecycle.hypothesis import apply_evidence
from mnemir.lifecycle.records import changed, entry, is_live, same_scope, short, start_of, with_relation
from mnemir.lifecycle.terms import has_cjk, people_named, said_by_other_people, same_subject, terms_overlap
from mnemir.ontology import norm_key
from mnemir.retrieve.persons import is_relation
from mnemir.retrieve.ranking import confidence_of, is_about_user

NEVER_SUPERSEDES = ("EmotionalState", "DialogueAct")


@dataclass(frozen=True)
class Conflict:
    """``new`` (being written) meets ``old`` (stored, live) under ``rule``."""

    rule: str
    new: MemIR
    old: MemIR
    strategy: Strategy | None
    question: str | None = None
    #: for hypothesis_evidence: whether the fact supports the hypothesis
    supports: bool = False


@dataclass
class Resolution:
    new: MemIR
    old: MemIR
    new_history: list[HistoryEntry] = field(default_factory=list)
    old_history: list[HistoryEntry] = field(default_factory=list)
    old_changed: bool = True
    event: GovernanceEvent | None = None


# -- detection ---------------------------------------------------------------------------------
def _same(a: MemIR, b: MemIR, *props: str) -> bool:
    return all(norm_key(a.properties.get(p)) and norm_key(a.properties.get(p)) == norm_key(b.properties.get(p))
               for p in props)


def _single_valued(record: MemIR, config: LifecycleConfig) -> bool:
    multi = {norm_key(a) for a in config.multi_valued_attributes}
    return norm_key(record.properties.get("attribute")) not in multi


def _side_matches(record: MemIR, type_name: str, where: Mapping[str, Any]) -> bool:
    if record.type != type_name:
        return False
    for prop, wanted in where.items():
        options = wanted if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
        if norm_key(record.properties.get(prop)) not in {norm_key(o) for o in options}:
            return False
    return True


def pair_question(pair: ConflictPair, a: MemIR, b: MemIR) -> str:
    a_term, b_term = str(a.properties.get(pair.a_term, "")), str(b.properties.get(pair.b_term, ""))
    template = pair.question_zh if has_cjk(a.text + b.text + a_term + b_term) else pair.question_en
    return template.format(a_term=a_term, b_term=b_term, a_text=short(a.text), b_text=short(b.text))


def value_question(old: MemIR, new: MemIR) -> str:
    if has_cjk(old.text + new.text):
        return f"之前记录的是「{short(old.text)}」，现在是「{short(new.text)}」，哪个是对的？"
    return f"Earlier I noted \"{short(old.text)}\", now \"{short(new.text)}\". Which one is right?"


def _pair_conflict(pair: ConflictPair, new: MemIR, old: MemIR) -> Conflict | None:
    for a, b in ((new, old), (old, new)):
        if _side_matches(a, pair.a_type, pair.a_where) and _side_matches(b, pair.b_type, pair.b_where):
            facts = [r for r in (a, b) if r.type == "Fact"]
            if all(is_about_user(f) for f in facts) and terms_overlap(a.properties.get(pair.a_term),
                                                                       b.properties.get(pair.b_term)):
                return Conflict(pair.name, new, old, pair.strategy, pair_question(pair, a, b))
    return None


def find_conflicts(new: MemIR, candidates: Sequence[MemIR], config: LifecycleConfig) -> list[Conflict]:
    """Every live memory in ``candidates`` that ``new`` contradicts (or, for hypotheses, bears on)."""
    out: list[Conflict] = []
    for old in candidates:
        if old.id == new.id or not is_live(old) or not same_scope(new, old):
            continue
        if said_by_other_people(new, old):
            continue  # two speakers of a transcript: each says what holds of themselves (docs/decisions/0087)
        conflict = _type_conflict(new, old, config)
        if conflict is None:
            for pair in config.conflict_pairs:
                conflict = _pair_conflict(pair, new, old)
                if conflict is not None:
                    break
        if conflict is not None:
            out.append(conflict)
    return out


def _type_conflict(new: MemIR, old: MemIR, config: LifecycleConfig) -> Conflict | None:
    kinds = {new.type, old.type}
    if kinds <= {"Fact", "Hypothesis"} and not same_subject(new.content.text, old.content.text) \
            and not same_named_person(new, old):
        return None  # said of different people: both can be true
    if (kinds == {"Fact"} and _same(new, old, "entity", "attribute") and _single_valued(new, config)
            and norm_key(new.properties.get("value")) != norm_key(old.properties.get("value"))):
        return Conflict("fact_value", new, old, config.policy("Fact").on_conflict, value_question(old, new))
    if kinds == {"Fact", "Hypothesis"} and _same(new, old, "entity", "attribute"):
        agree = norm_key(new.properties.get("value")) == norm_key(old.properties.get("value"))
        if agree or _single_valued(new, config):
            return Conflict("hypothesis_evidence", new, old, None, supports=agree)
    if (kinds == {"Preference"} and _same(new, old, "subject")
            and norm_key(new.properties.get("preference_type")) != norm_key(old.properties.get("preference_type"))):
        return Conflict("preference_flip", new, old, config.policy("Preference").on_conflict,
                        value_question(old, new))
    return None


#: two statements whose entity is the same named person ("my cousin Ilse lives in Bremen" / "Ilse moved to Kassel":
#: both read as entity "ilse") are about the same person, though only one names the relation (docs/decisions/0069)
NAMED_PERSON_IS_SUBJECT = True
#: entities that name no one in particular (the user, a fact about nothing read)
_NO_ONE = frozenset({"user", "general", "family", "the user", "me", "i", "我", "用户"})


def same_named_person(a: MemIR, b: MemIR) -> bool:
    """Both are about the same named person: the same entity, a name (not the user, not a relation word), and no
    two different relations named ("my sister Anna" and "my colleague Anna" are two people)."""
    if not NAMED_PERSON_IS_SUBJECT:
        return False
    entity = norm_key(a.properties.get("entity"))
    if not entity or entity in _NO_ONE or entity != norm_key(b.properties.get("entity")) or is_relation(entity):
        return False
    named_a, named_b = people_named(a.content.text), people_named(b.content.text)
    return not named_a or not named_b or named_a == named_b


# -- resolution --------------------------------------------------------------------------------
def _trust_source(record: MemIR) -> str | None:
    source = record.properties.get("source")
    return source if isinstance(source, str) else record.metadata.source.speaker


def extraction_confidence(record: MemIR) -> float | None:
    """How sure the understanding step was of a memory it read from dialogue (None: not read from dialogue)."""
    read = record.metadata.extra.get("extraction")
    value = read.get("confidence") if isinstance(read, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def may_supersede(new: MemIR, old: MemIR, config: LifecycleConfig) -> tuple[bool, str]:
    """Whether ``new`` is trusted enough to replace ``old`` (recency alone is not enough)."""
    if new.type in NEVER_SUPERSEDES:
        return False, f"a {new.type} never supersedes anything"
    if new.type == "Hypothesis" and old.type == "Fact":
        return False, "a Hypothesis never overrides a Fact"
    new_trust, old_trust = config.trust_of(_trust_source(new)), config.trust_of(_trust_source(old))
    if new_trust < old_trust:
        return False, f"source {_trust_source(new)!r} is trusted less than {_trust_source(old)!r}"
    read = extraction_confidence(new)
    if read is not None and read < config.supersede_min_extraction_confidence:
        return False, (f"it was read from dialogue with confidence {read:.2f}, below "
                       f"{config.supersede_min_extraction_confidence:.2f}")
    c_new, c_old = confidence_of(new), confidence_of(old)
    if c_new is not None and c_old is not None and c_new + config.supersede_confidence_margin < c_old:
        return False, f"confidence {c_new:.2f} is well below {c_old:.2f}"
    return True, "newer, and at least as trusted and confident"


def resolve(conflict: Conflict, config: LifecycleConfig, *, now: datetime, actor: str) -> Resolution:
    """Apply the conflict's strategy. ``conflict.new`` may already carry earlier resolutions' changes."""
    if conflict.rule == "hypothesis_evidence":
        return _evidence(conflict, config, now=now, actor=actor)
    strategy = conflict.strategy or "dispute"
    if strategy == "supersede":
        allowed, why = may_supersede(conflict.new, conflict.old, config)
        if allowed:
            return _supersede(conflict, now=now, actor=actor, why=why)
        return _dispute(conflict, "clarify", now=now, actor=actor, why=f"not superseded: {why}")
    return _dispute(conflict, strategy, now=now, actor=actor, why=strategy)


def supersede_pair(newer: MemIR, older: MemIR, *, now: datetime, actor: str,
                   reason: str) -> tuple[MemIR, MemIR, HistoryEntry]:
    """``newer`` replaces ``older`` from ``newer``'s start: (newer with a supersedes link, older closed, history)."""
    end = max(start_of(newer), start_of(older))
    closed = changed(older, now, status=MemoryStatus.superseded, valid_to=end)
    linked = with_relation(newer, older.id, "supersedes", {"reason": reason})
    return linked, closed, entry(older, closed, Action.superseded, now=now, actor=actor,
                                 reason=f"superseded by {newer.id}: {reason}", related=[newer.id])


def _supersede(conflict: Conflict, *, now: datetime, actor: str, why: str) -> Resolution:
    new, old = conflict.new, conflict.old
    reason = f"{conflict.rule}; {why}"
    if start_of(new) >= start_of(old):
        linked, closed, history = supersede_pair(new, old, now=now, actor=actor, reason=reason)
        event = GovernanceEvent("superseded", new.id, f"{new.id} superseded {old.id} ({conflict.rule}): "
                                f"\"{short(old.text)}\" -> \"{short(new.text)}\".", old.id, conflict.rule)
        return Resolution(linked, closed, [], [history], True, event)
    # the new record describes an earlier time than the stored one: it goes straight into history
    linked, closed, history = supersede_pair(old, new, now=now, actor=actor, reason=reason)
    event = GovernanceEvent("stored_as_history", new.id, f"{new.id} is older than {old.id} and was stored as "
                            f"history ({conflict.rule}).", old.id, conflict.rule)
    return Resolution(closed, linked, [history], [entry(old, linked, Action.updated, now=now, actor=actor,
                                                        reason=f"supersedes the older {new.id}",
                                                        related=[new.id])], True, event)


def _dispute(conflict: Conflict, strategy: str, *, now: datetime, actor: str, why: str) -> Resolution:
    new, old = conflict.new, conflict.old
    question = conflict.question if strategy == "clarify" else None
    props = {"rule": conflict.rule, **({"question": question} if question else {})}
    new2 = with_relation(changed(new, now, status=MemoryStatus.disputed), old.id, "contradicts", props)
    old2 = with_relation(changed(old, now, status=MemoryStatus.disputed), new.id, "contradicts", props)
    reason = f"contradicts {new.id} ({conflict.rule}); {why}"
    kind: EventKind = "clarify" if question else "disputed"
    event = GovernanceEvent(kind, new.id, f"{new.id} and {old.id} contradict each other ({conflict.rule}); "
                            "both are marked disputed.", old.id, conflict.rule, question)
    return Resolution(new2, old2, [], [entry(old, old2, Action.disputed, now=now, actor=actor, reason=reason,
                                             related=[new.id])], True, event)


def _evidence(conflict: Conflict, config: LifecycleConfig, *, now: datetime, actor: str) -> Resolution:
    """A Fact bears on a Hypothesis: the hypothesis' confidence moves; the fact is untouched."""
    new, old = conflict.new, conflict.old
    fact, hypothesis = (new, old) if new.type == "Fact" else (old, new)
    moved, history = apply_evidence(hypothesis, supports=conflict.supports, evidence=f"Fact: {fact.text}",
                                    ratio=config.evidence_ratio, now=now, actor=actor, source_id=fact.id)
    verb = "supports" if conflict.supports else "contradicts"
    event = GovernanceEvent("evidence", new.id, f"Fact {fact.id} {verb} Hypothesis {hypothesis.id}; confidence "
                            f"now {moved.properties['confidence']:.2f}.", old.id, conflict.rule)
    if hypothesis is new:
        return Resolution(moved, old, [history], [], False, event)
    return Resolution(new, moved, [], [history], True, event)
