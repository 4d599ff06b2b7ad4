"""Facts weighed against each other by confidence: a stated 0.0 is a confidence, not a missing one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mnemir.ir import Content, MemIR, Metadata, Scope
from mnemir.retrieve.judgements import demote_replaced
from mnemir.retrieve.ranking import Candidate, RankingConfig, Scored

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def fact(value: str, confidence: float | None, days_ago: int) -> Scored:
    at = NOW - timedelta(days=days_ago)
    props = {"entity": "Bob", "attribute": "employer", "value": value,
             **({"confidence": confidence} if confidence is not None else {})}
    record = MemIR(content=Content(text=f"Bob works at {value}"), type="Fact", properties=props,
                   scope=Scope(user_id="alice"), metadata=Metadata(created_at=at, updated_at=at))
    return Scored(Candidate(record, similarity=0.6), "answer", 0.6, 0.6, 0.6)


@pytest.mark.parametrize("newer_confidence", [0.0, 0.1])
def test_a_stated_low_confidence_is_not_raised_to_the_default(newer_confidence: float) -> None:
    config = RankingConfig()
    older = fact("Acme", 0.5, days_ago=10)
    newer = fact("Initech", newer_confidence, days_ago=1)  # newer, but stated as (almost) certainly wrong
    demote_replaced([older, newer], {}, config)
    assert "outdated" not in older.flags, "the better-supported fact is kept"
    assert "unconfirmed" in newer.flags and newer.score == pytest.approx(0.6 - config.unconfirmed_penalty)


def test_a_fact_without_confidence_gets_the_assumed_one() -> None:
    config = RankingConfig()
    older = fact("Acme", 0.95, days_ago=10)
    newer = fact("Initech", None, days_ago=1)  # assumed 0.7: 0.25 below the stated 0.95
    demote_replaced([older, newer], {}, config)
    assert "unconfirmed" in newer.flags and "outdated" not in older.flags
    closer = RankingConfig(conflict_confidence_gap=0.3)  # now the gap is too small: the newer one replaces
    older, newer = fact("Acme", 0.95, days_ago=10), fact("Initech", None, days_ago=1)
    demote_replaced([older, newer], {}, closer)
    assert "outdated" in newer.flags and newer.replaced_by == older.record.id
