"""maintain(now): apply the time policies through the store contract. Idempotent and safe to interrupt.

Each rule selects its candidates with a store filter (so a second run reads little), decides with the pure
predicates of :mod:`mnemir.lifecycle.decay`, and the runner writes the changes in batches, one transaction
each. Re-running with the same ``now`` finds nothing left to do; an interrupted run is finished by the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir import Action, HistoryEntry, MemIR, MemoryStatus
from mnemir.lifecycle.config import FactChecker, LifecycleConfig
from mnemir.lifecycle.decay import (
    closed_task_expired,
    expired_by_age,
    fact_recheck_due,
    hypothesis_refuted,
)
from mnemir.lifecycle.records import changed, entry, is_live, start_of
from mnemir.lifecycle.tasks import is_overdue, overdue_bound
from mnemir.ontology import Ontology, earlier, format_datetime
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES
from mnemir.store.base import ANY, LIVE_STATUSES, Selection, Store, Write, _Any
from mnemir.store.filters import parse_filter

Change = tuple[MemIR, HistoryEntry]
EXAMPLES = 10


@dataclass
class MaintenanceReport:
    """What one maintain() run did (or, with ``dry_run``, would do)."""

    now: datetime
    dry_run: bool = False
    #: action -> type -> how many memories
    actions: dict[str, dict[str, int]] = field(default_factory=dict)
    #: action -> a few affected ids
    examples: dict[str, list[str]] = field(default_factory=dict)
    #: open tasks past their deadline (reported, not changed)
    overdue: list[str] = field(default_factory=list)
    scanned: int = 0
    seconds: float = 0.0

    def count(self, action: str | None = None) -> int:
        rows = [self.actions.get(action, {})] if action else list(self.actions.values())
        return sum(n for row in rows for n in row.values())

    @property
    def changed(self) -> int:
        return self.count()

    @property
    def counts(self) -> dict[str, int]:
        return {a: sum(t.values()) for a, t in self.actions.items()}

    def _add(self, action: str, record: MemIR) -> None:
        row = self.actions.setdefault(action, {})
        row[record.type] = row.get(record.type, 0) + 1
        ids = self.examples.setdefault(action, [])
        if len(ids) < EXAMPLES:
            ids.append(record.id)

    def to_dict(self) -> dict[str, Any]:
        return {"now": self.now.isoformat(), "dry_run": self.dry_run, "changed": self.changed,
                "counts": self.counts, "actions": self.actions, "examples": self.examples,
                "overdue": self.overdue, "scanned": self.scanned, "seconds": round(self.seconds, 3)}

    def render(self) -> str:
        head = f"maintain({self.now.isoformat()}){' [dry run]' if self.dry_run else ''}: "
        if not self.actions:
            lines = [head + f"nothing to do ({self.scanned} candidates checked, {self.seconds:.2f}s)"]
        else:
            verb = "would change" if self.dry_run else "changed"
            lines = [head + f"{verb} {self.changed} memories ({self.scanned} candidates checked, "
                     f"{self.seconds:.2f}s)"]
            for action, row in sorted(self.actions.items()):
                detail = ", ".join(f"{t} {n}" for t, n in sorted(row.items()))
                lines.append(f"  {action}: {sum(row.values())} ({detail})")
        if self.overdue:
            lines.append(f"  overdue tasks: {len(self.overdue)} ({', '.join(self.overdue[:EXAMPLES])})")
        return "\n".join(lines)


@dataclass
class _Context:
    store: Store
    ontology: Ontology
    config: LifecycleConfig
    now: datetime
    user: str | _Any | None
    actor: str
    #: ids archived earlier in this run (so that a dry run sees steps follow their task)
    archived: set[str] = field(default_factory=set)
    scanned: int = 0
    #: every record as the rules read it: a change is written only if the record is still that (compare-and-swap)
    seen: dict[str, MemIR] = field(default_factory=dict)

    def select(self, types: tuple[str, ...], where: dict[str, Any] | None = None) -> list[MemIR]:
        known = tuple(t for t in types if t in self.ontology)
        if not known:
            return []
        node = parse_filter(where, self.ontology, known) if where else None
        rows = self.store.select(Selection(user_id=self.user, types=known, statuses=LIVE_STATUSES, where=node))
        self.scanned += len(rows)
        self.seen.update((r.id, r) for r in rows)
        return rows

    def archive(self, record: MemIR, reason: str) -> Change:
        new = changed(record, self.now, status=MemoryStatus.archived)
        return new, entry(record, new, Action.archived, now=self.now, actor=self.actor, reason=reason)


def _older_than(cutoff: datetime) -> dict[str, Any]:
    bound = format_datetime(cutoff)
    return {"$or": [{"@valid_from": {"$lt": bound}}, {"@created_at": {"$lt": bound}}]}


# -- rules: each yields the changes it wants -------------------------------------------------------
def expired(ctx: _Context) -> Iterator[Change]:
    """Types with an ``archive_after`` (EmotionalState after a day) are archived when that time has passed."""
    for type_name, policy in ctx.config.policies.items():
        if policy.archive_after is None or type_name == "DialogueAct":
            continue
        for rec in ctx.select((type_name,), _older_than(earlier(ctx.now, policy.archive_after))):
            if expired_by_age(rec, ctx.now, policy):
                yield ctx.archive(rec, f"{type_name} older than {policy.archive_after}")


def stale_dialogue(ctx: _Context) -> Iterator[Change]:
    """Dialogue acts are session-scoped: archived once a later session started, or after ``archive_after``."""
    policy = ctx.config.policy("DialogueAct")
    acts = ctx.select(("DialogueAct",))
    latest: dict[tuple[str | None, str | None], tuple[datetime, str | None]] = {}
    for rec in acts:
        key = (rec.scope.user_id, rec.scope.agent_id)
        start = start_of(rec)
        if key not in latest or start > latest[key][0]:
            latest[key] = (start, rec.scope.session_id)
    for rec in acts:
        current = latest[(rec.scope.user_id, rec.scope.agent_id)][1]
        if expired_by_age(rec, ctx.now, policy):
            yield ctx.archive(rec, f"dialogue act older than {policy.archive_after}")
        elif rec.scope.session_id is not None and current is not None and rec.scope.session_id != current:
            yield ctx.archive(rec, f"session {rec.scope.session_id} ended (a later session {current} started)")


def closed_tasks(ctx: _Context) -> Iterator[Change]:
    policy = ctx.config.policy("Task")
    if policy.archive_closed_after is None:
        return
    for rec in ctx.select(("Task",), {"status": {"$in": list(CLOSED_STATUSES)}}):
        if closed_task_expired(rec, ctx.now, policy):
            yield ctx.archive(rec, f"task {rec.properties.get('status')} more than {policy.archive_closed_after} "
                                   "ago and not used since")


def steps_with_task(ctx: _Context) -> Iterator[Change]:
    """Plan steps are archived with their task."""
    steps = ctx.select(("Plan",), {"associated_task_id": {"$exists": True}})
    task_ids = sorted({str(s.properties["associated_task_id"]) for s in steps})
    tasks = {t.id: t for t in ctx.store.fetch(task_ids)}
    for step in steps:
        tid = str(step.properties["associated_task_id"])
        task = tasks.get(tid)
        if tid in ctx.archived or (task is not None and not is_live(task)):
            status = "archived" if task is None or tid in ctx.archived else task.status.value
            yield ctx.archive(step, f"its task {tid} is {status}")


def refuted_hypotheses(ctx: _Context) -> Iterator[Change]:
    bound = ctx.config.hypothesis_refuted_below
    for rec in ctx.select(("Hypothesis",), {"confidence": {"$lte": bound}}):
        if hypothesis_refuted(rec, ctx.config):
            yield ctx.archive(rec, f"refuted (confidence <= {bound})")


def recheck_facts(ctx: _Context, checker: FactChecker | None) -> Iterator[Change]:
    """Facts are kept; a configured checker re-rates their confidence every ``fact_recheck_every``."""
    if checker is None:
        return
    for rec in ctx.select(("Fact",), _older_than(earlier(ctx.now, ctx.config.fact_recheck_every))):
        if not fact_recheck_due(rec, ctx.now, ctx.config):
            continue
        rated = checker(rec, ctx.now)
        props: dict[str, Any] = {}
        if rated is not None:
            if isinstance(rated, bool) or not isinstance(rated, (int, float)) or not 0.0 <= rated <= 1.0:
                raise ValidationError("fact_checker must return a confidence in [0, 1] or None",
                                      field="fact_checker", value=rated, allowed="[0, 1] or None")
            props["confidence"] = round(float(rated), 4)
        extra = {**rec.metadata.extra, "confidence_checked_at": format_datetime(ctx.now)}
        new = changed(rec, ctx.now, properties=props, metadata={"extra": extra})
        yield new, entry(rec, new, Action.updated, now=ctx.now, actor=ctx.actor,
                         reason=f"confidence re-checked: {rec.properties.get('confidence')} -> "
                                f"{new.properties.get('confidence')}")


def overdue_tasks(store: Store, ontology: Ontology, now: datetime, user: str | _Any | None) -> list[MemIR]:
    """Open tasks whose deadline has passed, most overdue first."""
    where = parse_filter({"status": {"$in": list(OPEN_STATUSES)}, "deadline": {"$lt": overdue_bound(now)}}, ontology,
                         ("Task",))
    rows = store.select(Selection(user_id=user, types=("Task",), statuses=LIVE_STATUSES, where=where))
    found = [r for r in rows if is_overdue(r, now)]
    return sorted(found, key=lambda r: (str(r.properties.get("deadline")), r.id))


# -- the runner ------------------------------------------------------------------------------------
def run_maintenance(store: Store, ontology: Ontology, config: LifecycleConfig, *, now: datetime,
                    user: str | _Any | None = ANY, dry_run: bool = False, actor: str = "maintain",
                    fact_checker: FactChecker | None = None, model_id: str) -> MaintenanceReport:
    started = time.perf_counter()
    report = MaintenanceReport(now=now, dry_run=dry_run)
    ctx = _Context(store, ontology, config, now, user, actor)
    checker = fact_checker or config.fact_checker
    rules: list[tuple[str, Callable[[], Iterator[Change]]]] = [
        ("archive_expired", lambda: expired(ctx)),
        ("archive_stale_dialogue", lambda: stale_dialogue(ctx)),
        ("archive_refuted_hypothesis", lambda: refuted_hypotheses(ctx)),
        ("archive_closed_task", lambda: closed_tasks(ctx)),
        # after closed tasks: steps follow the tasks archived just before
        ("archive_step_with_task", lambda: steps_with_task(ctx)),
        ("recheck_fact", lambda: recheck_facts(ctx, checker)),
    ]
    for action, rule in rules:
        batch: list[Write] = []
        for new, history in rule():
            report._add(action, new)
            if new.status == MemoryStatus.archived:
                ctx.archived.add(new.id)
            batch.append(Write(new, None, [history]))
            if len(batch) >= config.batch_size:
                _flush(store, batch, dry_run, model_id, ctx.seen)
        _flush(store, batch, dry_run, model_id, ctx.seen)
    report.overdue = [t.id for t in overdue_tasks(store, ontology, now, user)]
    report.scanned = ctx.scanned
    report.seconds = time.perf_counter() - started
    return report


def _flush(store: Store, batch: list[Write], dry_run: bool, model_id: str, seen: dict[str, MemIR]) -> None:
    """Write one batch in one transaction, leaving out every record another writer changed since the rules read
    it (its change would overwrite that writer's; the next run reconsiders it)."""
    if batch and not dry_run:
        users = {w.record.scope.user_id for w in batch}
        with store.exclusive(users.pop() if len(users) == 1 else ANY):  # one user's batch locks that scope only
            current = {r.id: r for r in store.fetch([w.record.id for w in batch])}
            fresh = [w for w in batch if current.get(w.record.id) == seen.get(w.record.id)]
            store.write(fresh, model_id=model_id)
    batch.clear()
