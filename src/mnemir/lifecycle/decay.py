"""Time: per-type recall weight decay and retention (archive) decisions, as pure functions of a record and now."""

from __future__ import annotations

from datetime import datetime

from mnemir.ir import MemIR
from mnemir.lifecycle.config import LifecycleConfig, TypePolicy
from mnemir.lifecycle.records import is_live, last_refreshed, start_of
from mnemir.ontology import parse_timestamp
from mnemir.ontology.enums import CLOSED_STATUSES


def decay_weight(record: MemIR, now: datetime, config: LifecycleConfig | None = None) -> float:
    """The lifecycle decay weight in [0, 1]: halves every ``half_life`` since the memory was last refreshed.

    A measure for callers (``Memory.decay_weight``), separate from recall: role-aware ranking fades memories
    with its own :class:`~mnemir.retrieve.ranking.RankingConfig` settings, and archiving is decided by the
    retention rules below (``archive_after``, ``archive_closed_after``), not by this weight.

    EmotionalState (half-life 6 h by default) counts from when it was felt, so a furious outburst weighs 1/16
    after a day; a Preference counts from its last confirmation and never drops below its floor.
    """
    policy = (config or LifecycleConfig()).policy(record.type)
    if policy.half_life is None:
        return 1.0
    since = start_of(record) if record.type == "EmotionalState" else last_refreshed(record)
    age = max((now - since).total_seconds(), 0.0)
    fraction = 0.5 ** (age / policy.half_life.total_seconds())
    return round(policy.weight_floor + (1.0 - policy.weight_floor) * fraction, 6)


def expired_by_age(record: MemIR, now: datetime, policy: TypePolicy) -> bool:
    """EmotionalState / DialogueAct style: archived ``archive_after`` since it became valid."""
    return policy.archive_after is not None and is_live(record) and now - start_of(record) >= policy.archive_after


def closed_at(record: MemIR) -> datetime | None:
    """When a task was completed or failed (its ``completed_at``, else its last update), None if open."""
    if record.properties.get("status") not in CLOSED_STATUSES:
        return None
    return parse_timestamp(record.properties.get("completed_at")) or record.metadata.updated_at


def recently_used(record: MemIR, now: datetime, policy: TypePolicy) -> bool:
    used = record.metadata.last_accessed_at
    window = policy.keep_if_used_within
    return window is not None and used is not None and now - used < window


def closed_task_expired(record: MemIR, now: datetime, policy: TypePolicy) -> bool:
    """A completed/failed task is archived ``archive_closed_after`` after closing, unless recently used."""
    if policy.archive_closed_after is None or not is_live(record):
        return False
    closed = closed_at(record)
    return closed is not None and now - closed >= policy.archive_closed_after and not recently_used(
        record, now, policy)


def hypothesis_refuted(record: MemIR, config: LifecycleConfig) -> bool:
    confidence = record.properties.get("confidence")
    return (record.type == "Hypothesis" and is_live(record) and isinstance(confidence, (int, float))
            and confidence <= config.hypothesis_refuted_below)


def fact_recheck_due(record: MemIR, now: datetime, config: LifecycleConfig) -> bool:
    if record.type != "Fact" or not is_live(record):
        return False
    checked = record.metadata.extra.get("confidence_checked_at")
    return now - (parse_timestamp(checked) or start_of(record)) >= config.fact_recheck_every
