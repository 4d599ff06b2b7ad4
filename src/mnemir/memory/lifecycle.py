"""The lifecycle face of ``Memory``: write-time governance, tasks, history, as-of, maintain, hypotheses, migrations.

Write-time results are visible two ways: every decision is recorded in the history of the memories it touched
(``history(id)``), and the decisions of the latest write through this object are in
:attr:`LifecycleMixin.last_write_report` (a :class:`~mnemir.lifecycle.WriteReport`: merged / superseded /
disputed events and clarification questions). ``last_write_report`` is kept per thread and per asyncio task: callers
sharing one ``Memory`` each read the decisions of their own latest write.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemir.embed.base import Vectors
from mnemir.errors import ConflictError, NotFoundError, ValidationError
from mnemir.ir import Action, HistoryEntry, MemIR, MemoryStatus, Scope
from mnemir.lifecycle import (
    Governor,
    LifecycleConfig,
    MaintenanceReport,
    Migration,
    MigrationReport,
    WriteReport,
    apply_evidence,
    decay_weight,
    promote,
    run_maintenance,
    run_migration,
    transition,
)
from mnemir.lifecycle.config import FactChecker
from mnemir.lifecycle.contradictions import supersede_pair
from mnemir.lifecycle.events import GovernanceEvent
from mnemir.lifecycle.evolution import uncovered_changes
from mnemir.lifecycle.maintenance import overdue_tasks
from mnemir.lifecycle.merge import unmerged
from mnemir.lifecycle.migrations import applied_migrations, upgrade_record
from mnemir.lifecycle.records import changed, entry, is_live, start_of
from mnemir.lifecycle.tasks import STEP_TYPES, cascade_to_steps, check_task
from mnemir.memory.core import resolve_now, serialized
from mnemir.ontology import Ontology
from mnemir.retrieve.graph import STEP_RELATIONS
from mnemir.retrieve.search import SearchHit
from mnemir.store.base import ANY, LIVE_STATUSES, Selection, Write, _Any
from mnemir.store.filters import parse_filter

#: each Memory's latest write report per context: a thread and an asyncio task each see their own latest write's
#: (keyed by the object's report key, never by id(): a later object may reuse an id)
_REPORTS: ContextVar[dict[int, WriteReport | None]] = ContextVar("mnemir_write_reports")
_REPORT_KEYS = itertools.count()
#: while :meth:`LifecycleMixin._gathering_reports` runs in a context: every report of the block, in order
_GATHERED: ContextVar[dict[int, list[WriteReport]]] = ContextVar("mnemir_gathered_reports")

if TYPE_CHECKING:
    from mnemir.memory.core import MemoryCore

    _Base = MemoryCore
else:
    _Base = object

@dataclass(frozen=True)
class OpenConflict:
    """Two live memories marked disputed against each other, with the question to settle it (if any)."""

    a: MemIR
    b: MemIR
    rule: str
    question: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(), "rule": self.rule, "question": self.question}


class LifecycleMixin(_Base):
    """Lifecycle governance for :class:`mnemir.Memory` (first in its MRO)."""

    #: (ontology key, parsed filter conditions) kept across governors (:meth:`_governor`)
    _parsed_conditions: tuple[tuple[int, str], dict[tuple[Any, ...], Any]] | None = None

    @property
    def last_write_report(self) -> WriteReport | None:
        """What governance decided in the calling thread's (or asyncio task's) latest write through this object (a
        whole ``remember`` counts as one): callers writing at once each read their own write's decisions."""
        return _REPORTS.get({}).get(self._report_key())

    @last_write_report.setter
    def last_write_report(self, report: WriteReport | None) -> None:
        key = self._report_key()
        _REPORTS.set({**_REPORTS.get({}), key: report})  # a new mapping: contexts never share one
        gathered = _GATHERED.get({}).get(key)
        if report is not None and gathered is not None:
            gathered.append(report)

    def _report_key(self) -> int:
        key: int | None = self.__dict__.get("_report_key_")
        if key is None:
            key = self.__dict__.setdefault("_report_key_", next(_REPORT_KEYS))
        return key

    @contextmanager
    def _gathering_reports(self) -> Iterator[WriteReport]:
        """Collect the events of every write made in the block into one report (also left as
        ``last_write_report`` when the block ends), so a call made of several writes reports all of them."""
        key, gathered = self._report_key(), list[WriteReport]()
        outer = _GATHERED.set({**_GATHERED.get({}), key: gathered})
        whole = WriteReport()
        try:
            yield whole
        finally:
            _GATHERED.reset(outer)
            whole.events[:] = [e for r in gathered for e in r.events]
            self.last_write_report = whole

    def _changed_by(self, report: WriteReport) -> tuple[list[MemIR], list[str]]:
        """The stored memories a write changed besides the ones it created (superseded, disputed, merged into,
        hypotheses moved by evidence), and a note for each naming the rule that fired."""
        ids: dict[str, str] = {}
        for event in report.events:
            if event.kind in ("superseded", "stored_as_history", "disputed", "clarify", "evidence") and event.other_id:
                ids.setdefault(event.other_id, f"{event.kind} by rule {event.rule or 'unnamed'}: {event.message}")
            elif event.kind == "merged":
                ids.setdefault(event.memory_id, f"merged by rule {event.rule or 'merge'}: {event.message}")
        records = self.store.fetch(list(ids))
        return records, [ids[r.id] for r in records]

    # -- configuration -------------------------------------------------------------------
    @property
    def lifecycle_config(self) -> LifecycleConfig:
        config = getattr(self.config, "lifecycle", None)
        return config if isinstance(config, LifecycleConfig) else LifecycleConfig()

    def _governor(self) -> Governor:
        """A governor over this memory's store; the filter conditions it parses are kept for the next one while the
        ontology is the same (version and object): a condition parses the same then, and the keys, attributes and
        enum values governance asks about come back call after call (one ``add`` is one governor)."""
        key = (id(self.ontology), self.ontology.version)
        memo = self._parsed_conditions
        if memo is None or memo[0] != key:
            memo = self._parsed_conditions = (key, {})
        return Governor(self.store, self.ontology, self.embedder, self.lifecycle_config, parsed=memo[1])

    # -- write-time governance (called by MemoryCore._commit) ----------------------------
    def _govern(self, records: list[MemIR], *, now: datetime, actor: str,
                vectors: Mapping[str, Vectors] | None = None) -> tuple[list[Write], dict[str, str]]:
        writes, report = self._governor().govern(records, now=now, actor=actor, vectors=vectors)
        self.last_write_report = report
        merged = {e.other_id: e.memory_id for e in report.merged if e.other_id is not None}
        return writes, merged

    def _govern_each(self, records: list[MemIR], *, stamps: Mapping[str, tuple[datetime, str]],
                     vectors: Mapping[str, Vectors] | None = None
                     ) -> tuple[list[Write], dict[str, tuple[MemIR, WriteReport]]]:
        decided: dict[str, tuple[MemIR, int, int]] = {}
        now, actor = stamps[records[0].id]
        writes, report = self._governor().govern(records, now=now, actor=actor, vectors=vectors, stamps=stamps,
                                                 decided=decided)
        # each call's own decisions, handed to its caller (``add`` keeps them as that caller's latest write)
        return writes, {rid: (stands, WriteReport(report.events[start:end]))
                        for rid, (stands, start, end) in decided.items()}

    def _keep_report(self, report: WriteReport | None) -> None:
        if report is not None:
            self.last_write_report = report

    # -- history and time ----------------------------------------------------------------
    def history(self, id: str, *, user: str | _Any | None = None) -> list[HistoryEntry]:
        """Every recorded change to a memory (what, when, why, by what), oldest first."""
        try:
            self.get(id, user=user, include_deleted=True)
        except NotFoundError:
            # a hard-deleted memory keeps its history; only an unrestricted caller may read it
            entries = self.store.history(id) if user is ANY else []
            if not entries:
                raise
            return entries
        return self.store.history(id, user=user)

    def as_of(self, when: datetime, query: str = "", *, types: Iterable[str] | None = None,
              where: Mapping[str, Any] | None = None, user: str | _Any | None = None, k: int = 10) -> list[SearchHit]:
        """Search among the memories that were valid at ``when`` (superseded and archived ones included)."""
        return self.search(query, types=types, where=where, user=user, k=k, as_of=when)

    def decay_weight(self, record: MemIR, *, now: datetime | None = None) -> float:
        """The record's lifecycle decay weight in [0, 1] under its type's policy (``LifecycleConfig`` half_life and
        weight_floor). Not used by recall: ``recall`` fades memories by its own ``RankingConfig``; and not what
        archives them: ``maintain`` follows the retention rules (``archive_after``, ``archive_closed_after``)."""
        return decay_weight(record, resolve_now(now), self.lifecycle_config)

    # -- tasks ---------------------------------------------------------------------------
    @serialized
    def update_task(self, id: str, *, status: str, user: str | _Any | None = None, now: datetime | None = None,
                    reason: str = "", actor: str = "api") -> MemIR:
        """Move a Task through pending -> in_progress -> completed | failed (reopen/retry allowed).

        An invalid transition raises InvalidTransitionError. Closing a task closes (or archives, per
        ``LifecycleConfig.steps_on_task_*``) its open plan steps in the same transaction.
        """
        now = resolve_now(now)
        task = self.get(id, user=user)
        check_task(task)
        moved, history = transition(task, status, now=now, actor=actor, reason=reason)
        report = WriteReport()
        if history is None:
            self.last_write_report = report
            return task
        writes = [Write(moved, None, [history])]
        report.events.append(GovernanceEvent("status_changed", id, f"task {id}: {history.reason}."))
        config = self.lifecycle_config
        for step, step_history in cascade_to_steps(moved, self._steps_of(moved), now=now, actor=actor,
                                                   on_completed=config.steps_on_task_completed,
                                                   on_failed=config.steps_on_task_failed):
            writes.append(Write(step, None, [step_history]))
            report.events.append(GovernanceEvent("status_changed", step.id, f"step {step.id}: {step_history.reason}.",
                                                 id))
        self._write(writes)
        self.last_write_report = report
        return moved

    def _steps_of(self, task: MemIR) -> list[MemIR]:
        where = parse_filter({"associated_task_id": task.id}, self.ontology, STEP_TYPES)
        scope = Selection(user_id=task.scope.user_id, types=STEP_TYPES, statuses=LIVE_STATUSES, where=where)
        steps = {s.id: s for s in self.store.select(scope)}
        linked = [e.source for e in self.store.edges([task.id], relations=STEP_RELATIONS, direction="in")]
        for rec in self.store.fetch([i for i in linked if i not in steps]):
            if rec.type in STEP_TYPES and scope.admits(rec):
                steps[rec.id] = rec
        return sorted(steps.values(), key=lambda s: (s.properties.get("order") or 0, s.id))

    def overdue_tasks(self, *, user: str | _Any | None = None, now: datetime | None = None) -> list[MemIR]:
        """Open tasks past their deadline (a date deadline ends at the end of that day, UTC)."""
        self._selection(user=user)  # validates the scope value
        return overdue_tasks(self.store, self.ontology, resolve_now(now), user)

    # -- supersession and conflicts ------------------------------------------------------
    @serialized
    def supersede(self, old_id: str, new_record: MemIR | Mapping[str, Any], *, user: str | _Any | None = None,
                  now: datetime | None = None, reason: str = "", actor: str = "api") -> MemIR:
        """Replace a memory explicitly: the new one links ``supersedes``, the old one gets valid_to and stays
        as history (reachable by ``history`` and ``as_of``). Both are written in one transaction."""
        now = resolve_now(now)
        old = self.get(old_id, user=user)
        if not is_live(old):
            raise ConflictError(f"memory {old_id} is {old.status.value}; only a live memory can be superseded",
                                id=old_id, status=old.status.value)
        record = new_record if isinstance(new_record, MemIR) else MemIR.from_dict(
            {"memir_version": "1.0", **dict(new_record)})
        if record.scope == Scope():
            record = record.model_copy(update={"scope": old.scope})
        if record.scope.user_id != old.scope.user_id:
            raise ValidationError("the new record must be in the same user scope as the one it supersedes",
                                  field="scope.user_id", value=record.scope.user_id, allowed=[old.scope.user_id])
        if record.valid_from is None:
            record = record.model_copy(update={"valid_from": max(now, start_of(old))})
        prepared = self._prepare(record, now, actor)
        linked, closed, history = supersede_pair(prepared, old, now=now, actor=actor,
                                                 reason=reason or "explicitly superseded")
        created = entry(None, linked, Action.created, now=now, actor=actor,
                        reason=f"supersedes {old_id}" + (f": {reason}" if reason else ""), related=[old_id])
        self._write([Write(linked, None, [created]), Write(closed, None, [history])])
        self.last_write_report = WriteReport([GovernanceEvent("superseded", linked.id,
                                                              f"{linked.id} superseded {old_id}.", old_id,
                                                              "explicit")])
        return linked

    @serialized
    def unmerge(self, id: str, merged_id: str | None = None, *, user: str | _Any | None = None,
                now: datetime | None = None, reason: str = "", actor: str = "api") -> MemIR:
        """Undo a merge into memory ``id``: the merged memory comes back under its own id (returned) and ``id``
        loses what the merge gave it. ``merged_id`` names which merge (default: the latest). Both records are
        written in one transaction, and the merged memory's vector is made again from its text."""
        now = resolve_now(now)
        target = self.get(id, user=user)
        merges = [h for h in self.store.history(id) if h.action == Action.merged
                  and (merged_id is None or merged_id in h.related_ids)]
        if not merges:
            raise NotFoundError(f"memory {id} holds no merge" + (f" of {merged_id}" if merged_id else ""),
                                id=id, merged_id=merged_id)
        merge = merges[-1]
        restored_id = merge.related_ids[0] if merge.related_ids else None
        if restored_id is not None and self.store.fetch([restored_id]):
            raise ConflictError(f"memory {restored_id} exists already; that merge was undone before",
                                id=restored_id)
        try:
            reverted, restored, history = unmerged(target, merge, now=now, actor=actor)
        except ValueError as exc:
            raise ConflictError(str(exc), id=id, history_id=merge.id) from exc
        note = f"unmerged from {id}" + (f": {reason}" if reason else "")
        created = entry(None, restored, Action.restored, now=now, actor=actor, reason=note, related=[id])
        self._write([Write(reverted, None, [history]), Write(restored, None, [created])])
        self.last_write_report = WriteReport([GovernanceEvent("resolved", restored.id,
                                                              f"{restored.id} restored from {id}.", id, "unmerge")])
        return restored

    def conflicts(self, *, user: str | _Any | None = None) -> list[OpenConflict]:
        """Disputed pairs still open in this scope, each with its clarification question when there is one."""
        selection = self._selection(user=user, statuses=[MemoryStatus.disputed])
        disputed = {r.id: r for r in self.store.select(selection, order_by=[("@created_at", True)])}
        out: list[OpenConflict] = []
        seen: set[tuple[str, str]] = set()
        for rec in disputed.values():
            for rel in rec.relations("contradicts"):
                other = disputed.get(rel.target)
                pair = tuple(sorted((rec.id, rel.target)))
                if other is None or pair in seen:
                    continue
                seen.add((pair[0], pair[1]))
                out.append(OpenConflict(rec, other, str(rel.properties.get("rule", "")),
                                        rel.properties.get("question")))
        return out

    @serialized
    def resolve_conflict(self, keep_id: str, drop_id: str, *, user: str | _Any | None = None,
                         now: datetime | None = None, reason: str = "", actor: str = "api") -> MemIR:
        """Settle a dispute: ``keep_id`` becomes active again and supersedes ``drop_id``."""
        now = resolve_now(now)
        keep, drop = self.get(keep_id, user=user), self.get(drop_id, user=user)
        if not any(r.target == drop_id for r in keep.relations("contradicts")):
            raise ValidationError(f"{keep_id} and {drop_id} are not in dispute", field="drop_id", value=drop_id,
                                  allowed=[r.target for r in keep.relations("contradicts")])
        why = reason or "conflict resolved"
        active = changed(keep, now, status=MemoryStatus.active) if keep.status == MemoryStatus.disputed else keep
        linked, closed, history = supersede_pair(active, drop, now=now, actor=actor, reason=why)
        kept_history = entry(keep, linked, Action.restored if keep.status != linked.status else Action.updated,
                             now=now, actor=actor, reason=f"{why}; kept over {drop_id}", related=[drop_id])
        self._write([Write(linked, None, [kept_history]), Write(closed, None, [history])])
        self.last_write_report = WriteReport([GovernanceEvent("resolved", keep_id, f"kept {keep_id}, "
                                                              f"superseded {drop_id}.", drop_id, "resolution")])
        return linked

    # -- hypotheses ----------------------------------------------------------------------
    @serialized
    def add_evidence(self, hypothesis_id: str, *, supports: bool, evidence: str, weight: float = 1.0,
                     user: str | _Any | None = None, now: datetime | None = None, actor: str = "api") -> MemIR:
        """Move a Hypothesis' confidence with one piece of evidence (odds x or / the configured ratio ** weight).

        Never promotes it: only :meth:`confirm_hypothesis` turns a Hypothesis into a Fact."""
        if not isinstance(supports, bool):
            raise ValidationError("supports must be true or false", field="supports", value=supports,
                                  allowed=[True, False])
        now = resolve_now(now)
        hypothesis = self.get(hypothesis_id, user=user)
        moved, history = apply_evidence(hypothesis, supports=supports, evidence=evidence, weight=weight,
                                        ratio=self.lifecycle_config.evidence_ratio, now=now, actor=actor)
        self._write([Write(moved, None, [history])])
        self.last_write_report = WriteReport([GovernanceEvent("evidence", hypothesis_id, history.reason)])
        return moved

    @serialized
    def confirm_hypothesis(self, id: str, *, user: str | _Any | None = None, now: datetime | None = None,
                           confidence: float = 0.9, source: str = "user", actor: str = "api") -> MemIR:
        """Promote a confirmed Hypothesis to a Fact (the Fact supersedes it; the usual fact rules then apply)."""
        now = resolve_now(now)
        hypothesis = self.get(id, user=user)
        fact, retired, history = promote(hypothesis, now=now, actor=actor, confidence=confidence, source=source)
        prepared = self._prepare(fact, now, actor)
        writes, report = self._governor().govern([prepared], now=now, actor=actor, skip_ids={id})
        result = next((w.record for w in writes if w.record.id == prepared.id), None)
        if result is None:  # merged into an existing identical Fact: that one now stands for the hypothesis
            result = writes[0].record
            history = history.model_copy(update={"reason": f"confirmed; merged into Fact {result.id}",
                                                 "related_ids": [result.id]})
        writes.append(Write(retired, None, [history]))
        self._write(writes)
        report.events.append(GovernanceEvent("superseded", result.id, f"Hypothesis {id} confirmed as Fact "
                                             f"{result.id}.", id, "confirmation"))
        self.last_write_report = report
        return result

    # -- maintenance and ontology evolution ------------------------------------------------
    def maintain(self, *, now: datetime | None = None, user: str | _Any | None = ANY, dry_run: bool = False,
                 fact_checker: FactChecker | None = None) -> MaintenanceReport:
        """Apply the time policies (decay/archive/expire/re-check). Idempotent; safe to interrupt and re-run.
        Each batch is one transaction that leaves out the records another writer changed meanwhile."""
        self._selection(user=user)
        return run_maintenance(self.store, self.ontology, self.lifecycle_config, now=resolve_now(now), user=user,
                               dry_run=dry_run, fact_checker=fact_checker, model_id=self.embedder.model_id)

    @serialized
    def migrate_ontology(self, migration: Migration | Mapping[str, Any], *, previous: Ontology | None = None,
                         now: datetime | None = None, dry_run: bool = False,
                         actor: str = "migration") -> MigrationReport:
        """Upgrade stored memories after a type/property rename or split or an enum value rename.

        With ``previous`` (the ontology the memories were written under), every breaking change between it and
        the current ontology must be covered by a step, or nothing is written. Every upgraded record is checked
        against the current ontology before anything is written; the migration is logged (``migrations()``)
        and running it again does nothing."""
        if not isinstance(migration, Migration):
            migration = Migration.from_dict(migration)
        if previous is not None:
            uncovered = uncovered_changes(previous, self.ontology, migration)
            if uncovered:
                raise ValidationError(f"migration {migration.id} leaves breaking ontology changes unhandled: "
                                      f"{'; '.join(uncovered)}", field="migration.steps", value=migration.id,
                                      allowed="a rename/split step for each removed name")
        return run_migration(self.store, self.ontology, migration, now=resolve_now(now), actor=actor, dry_run=dry_run,
                             model_id=self.embedder.model_id, batch_size=self.lifecycle_config.batch_size)

    def _import_upgrader(self) -> Callable[[MemIR], MemIR]:
        """Imported records from before this store's ontology migrations are read under the current names (the
        migration log is read once per import, not once per record)."""
        migrations = [Migration.from_dict(item) for item in applied_migrations(self.store)]
        version = self.ontology.version

        def upgrade(record: MemIR) -> MemIR:
            if not migrations or record.metadata.ontology_version == version:
                return record
            return upgrade_record(record, migrations)

        return upgrade

    def migrations(self) -> list[dict[str, Any]]:
        """The log of applied ontology migrations, oldest first."""
        return applied_migrations(self.store)
