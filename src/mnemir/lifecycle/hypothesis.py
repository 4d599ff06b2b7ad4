"""Hypotheses: confidence moves with evidence (odds times a likelihood ratio); promotion only by confirmation."""

from __future__ import annotations

import math
from datetime import datetime

from mnemir.errors import ValidationError
from mnemir.ir import Action, Content, HistoryEntry, MemIR, MemoryStatus, Metadata, Source, new_id
from mnemir.lifecycle.records import changed, entry, is_live, short, start_of, with_relation

MIN_CONFIDENCE = 0.01
MAX_CONFIDENCE = 0.99
#: the confidence a Hypothesis starts with when it has none (the ontology default)
DEFAULT_CONFIDENCE = 0.3
MAX_EVIDENCE_ITEMS = 50


def updated_confidence(confidence: float, *, supports: bool, ratio: float, weight: float = 1.0) -> float:
    """Bayes in odds form: supporting evidence multiplies the odds by ``ratio ** weight``, contradicting divides."""
    if weight <= 0 or not math.isfinite(weight):
        raise ValidationError("evidence weight must be a positive number", field="weight", value=weight,
                              allowed="> 0")
    c = min(max(confidence, MIN_CONFIDENCE), MAX_CONFIDENCE)
    odds = c / (1.0 - c)
    factor = ratio ** weight
    odds = odds * factor if supports else odds / factor
    return round(min(max(odds / (1.0 + odds), MIN_CONFIDENCE), MAX_CONFIDENCE), 4)


def check_hypothesis(record: MemIR) -> None:
    if record.type != "Hypothesis":
        raise ValidationError("not a Hypothesis", field="type", value=record.type, allowed=["Hypothesis"],
                              id=record.id)


def apply_evidence(hypothesis: MemIR, *, supports: bool, evidence: str, ratio: float, now: datetime, actor: str,
                   weight: float = 1.0, source_id: str | None = None) -> tuple[MemIR, HistoryEntry]:
    """The hypothesis after one piece of evidence, and the history entry saying so."""
    check_hypothesis(hypothesis)
    if not isinstance(evidence, str) or not evidence.strip():
        raise ValidationError("evidence must be a non-empty string", field="evidence", value=evidence)
    before = float(hypothesis.properties.get("confidence", DEFAULT_CONFIDENCE))
    after = updated_confidence(before, supports=supports, ratio=ratio, weight=weight)
    label = "supports" if supports else "contradicts"
    items = [*list(hypothesis.properties.get("evidence") or []), f"{label}: {short(evidence, 300)}"]
    updated = changed(hypothesis, now, properties={"confidence": after, "evidence": items[-MAX_EVIDENCE_ITEMS:]})
    if source_id is not None:
        updated = with_relation(updated, source_id, "supported_by" if supports else "contradicted_by")
    history = entry(hypothesis, updated, Action.updated, now=now, actor=actor,
                    reason=f"evidence {label} ({before:.2f} -> {after:.2f}): {short(evidence)}",
                    related=[source_id] if source_id else [])
    return updated, history


def promote(hypothesis: MemIR, *, now: datetime, actor: str, confidence: float = 0.9,
            source: str = "user") -> tuple[MemIR, MemIR, HistoryEntry]:
    """Confirmation turns a Hypothesis into a Fact: returns (fact, the superseded hypothesis, its history)."""
    check_hypothesis(hypothesis)
    if not is_live(hypothesis):
        raise ValidationError("only a live hypothesis can be confirmed", field="status", value=hypothesis.status.value,
                              allowed=["active", "disputed"], id=hypothesis.id)
    props = hypothesis.properties
    for name in ("entity", "attribute", "value"):
        if not props.get(name):
            raise ValidationError(f"a hypothesis needs {name!r} to become a Fact", field=f"properties.{name}",
                                  value=props.get(name), allowed="a non-empty string", id=hypothesis.id)
    fact = MemIR(
        id=new_id(), content=Content(text=hypothesis.content.text, summary=hypothesis.content.summary), type="Fact",
        properties={"entity": props["entity"], "attribute": props["attribute"], "value": props["value"],
                    "confidence": confidence, "source": source},
        scope=hypothesis.scope,
        metadata=Metadata(created_at=now, updated_at=now,
                          source=Source(speaker=source if source in ("user", "assistant") else None,
                                        session_id=hypothesis.scope.session_id, creator=actor, at=now)),
        valid_from=max(now, start_of(hypothesis)),
    )
    fact = with_relation(fact, hypothesis.id, "supersedes", {"reason": "hypothesis confirmed"})
    fact = with_relation(fact, hypothesis.id, "promoted_from")
    retired = changed(hypothesis, now, status=MemoryStatus.superseded, valid_to=fact.valid_from)
    history = entry(hypothesis, retired, Action.superseded, now=now, actor=actor,
                    reason=f"confirmed and promoted to Fact {fact.id}", related=[fact.id])
    return fact, retired, history
