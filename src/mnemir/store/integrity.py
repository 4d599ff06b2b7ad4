"""``check``: do records, vectors, the text index, properties, relationships and history agree?

Two parts. :func:`contract_findings` uses only the store contract, so it runs on any backend: every record (any
scope, any status) has one vector of the store's model and dimension, and its relationships as the store
returns them are the record's own. Each backend adds what only its tables can show (``Store._check_tables``):
rows without their record, a record row that disagrees with its document, full-text and property rows that do
not match, history rows of memories that no longer exist but are more than a content-free tombstone.

Run it on a quiet store: a write made while it runs can show up as a finding (the table part reads one snapshot;
the contract part reads in batches).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemir.ir import Action, HistoryEntry, MemIR, MemoryStatus

if TYPE_CHECKING:
    from mnemir.store.base import Store

#: records read per batch by the contract part
BATCH = 500
#: at most this many findings of one kind are kept (the count is exact)
KEEP_PER_KIND = 20


@dataclass(frozen=True)
class Finding:
    """One disagreement: ``kind`` (a stable name, e.g. ``missing_vector``), the memory (or row) it concerns."""

    kind: str
    id: str | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "detail": self.detail}


@dataclass
class CheckReport:
    """What :meth:`mnemir.Memory.check` found. ``ok`` when nothing disagrees."""

    backend: str
    #: what was looked at: records, vectors, text rows, property rows, relationships, history rows, tombstones
    counts: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    #: findings per kind (exact, while ``findings`` keeps the first few of each kind)
    totals: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.totals

    def add(self, kind: str, id: str | None, detail: str) -> None:
        self.totals[kind] = self.totals.get(kind, 0) + 1
        if self.totals[kind] <= KEEP_PER_KIND and Finding(kind, id, detail) not in self.findings:
            self.findings.append(Finding(kind, id, detail))

    def extend(self, findings: Iterable[Finding]) -> None:
        for f in findings:
            self.add(f.kind, f.id, f.detail)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "backend": self.backend, "counts": dict(self.counts), "problems": dict(self.totals),
                "findings": [f.to_dict() for f in self.findings]}

    def render(self) -> str:
        lines = [f"store check ({self.backend}): " + ("consistent" if self.ok else
                                                      f"{sum(self.totals.values())} problem(s)")]
        lines.append("  looked at: " + ", ".join(f"{n} {what}" for what, n in self.counts.items()))
        for kind, n in sorted(self.totals.items()):
            lines.append(f"  {kind}: {n}")
            for f in self.findings:
                if f.kind == kind:
                    lines.append(f"    - {f.id or '-'}: {f.detail}")
        return "\n".join(lines)


def is_tombstone(entry: HistoryEntry) -> bool:
    """A hard delete's history entry: id, time, actor and reason, no content."""
    return entry.action == Action.deleted and entry.before is None and entry.after is None


def check_history_of_absent(report: CheckReport, memory_id: str, entries: list[HistoryEntry]) -> None:
    """History of a memory that is not stored: only tombstones may remain (a hard delete purges the rest)."""
    if not entries or not all(is_tombstone(e) for e in entries):
        kept = sorted({e.action.value for e in entries if not is_tombstone(e)})
        report.add("history_without_record", memory_id,
                   f"history of a memory that is not stored holds more than a tombstone ({', '.join(kept)})")


def check_record_history(report: CheckReport, record: MemIR, entries: list[HistoryEntry]) -> None:
    for e in entries:
        if e.memory_id != record.id:
            report.add("history_misfiled", record.id, f"history entry {e.id} names memory {e.memory_id}")


def contract_findings(store: Store, report: CheckReport) -> None:
    """The part of the check that the store contract can answer (any backend)."""
    from mnemir.store.base import ANY, Selection

    model, dim_text = store.get_meta("embedding_model"), store.get_meta("embedding_dim")
    dim = int(dim_text) if dim_text is not None else None
    selection = Selection(user_id=ANY, statuses=tuple(MemoryStatus))
    batch: list[MemIR] = []
    n_records = n_edges = 0

    def flush() -> None:
        nonlocal n_edges
        ids = [r.id for r in batch]
        vectors = store.vectors(ids)
        edges: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for e in store.edges(ids, direction="out"):
            edges.setdefault(e.source, []).append((e.relation, e.target, e.properties))
        n_edges += sum(len(v) for v in edges.values())
        histories = store.histories(ids)
        for rec in batch:
            vec = vectors.get(rec.id)
            if vec is None:
                report.add("missing_vector", rec.id, "the record has no vector")
            elif dim is not None and len(vec) != dim:
                report.add("vector_dimension", rec.id, f"{len(vec)} dimensions, the store's model makes {dim}")
            own = [(r.relation, r.target, r.properties) for r in rec.relationships]
            if edges.get(rec.id, []) != own:
                report.add("relationships_mismatch", rec.id,
                           f"{len(edges.get(rec.id, []))} relationship rows, the record holds {len(own)}")
            check_record_history(report, rec, histories.get(rec.id, []))
        batch.clear()

    for rec in store.iter_select(selection, batch=BATCH):
        n_records += 1
        batch.append(rec)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    if n_records and model is None:
        report.add("missing_model", None, "the store holds records but names no embedding model")
    report.counts.setdefault("records", n_records)
    report.counts.setdefault("relationships", n_edges)


def check_store(store: Store) -> CheckReport:
    report = CheckReport(backend=store.capabilities.name)
    store._check_tables(report)
    contract_findings(store, report)
    return report


def check_history_rows(report: CheckReport, rows: Iterable[tuple[str, str]], ids: set[str]) -> tuple[int, int]:
    """Check every history row (memory id, entry JSON), in memory order: readable, filed under the memory it
    names, and, for a memory no longer stored, a content-free tombstone only. Returns (rows read, memories
    with history but no record)."""
    absent: dict[str, list[HistoryEntry]] = {}
    count = 0
    for memory_id, entry in rows:
        count += 1
        try:
            parsed = HistoryEntry.model_validate_json(entry)
        except Exception as exc:
            report.add("unreadable_history", memory_id, f"{type(exc).__name__}: {str(exc)[:120]}")
            continue
        if parsed.memory_id != memory_id:
            report.add("history_misfiled", memory_id, f"history entry {parsed.id} names memory {parsed.memory_id}")
        if memory_id not in ids:
            absent.setdefault(memory_id, []).append(parsed)
    for memory_id, entries in absent.items():
        check_history_of_absent(report, memory_id, entries)
    return count, len(absent)
