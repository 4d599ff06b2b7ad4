"""The PostgreSQL part of ``check`` (:mod:`mnemir.store.integrity`): every table against the records, in one
snapshot."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from mnemir.store import records
from mnemir.store.integrity import CheckReport, check_history_rows
from mnemir.store.postgres.text import tsvector_literal

Cursor = Any
_BATCH = 500


def check(cur: Cursor, report: CheckReport) -> None:
    cur.execute("SELECT key, value FROM meta")
    meta = dict(cur.fetchall())
    model, dim = meta.get("embedding_model"), meta.get("embedding_dim")
    cur.execute("SELECT rid, id, type, status, user_id, agent_id, session_id, created_at, updated_at, valid_from, "
                "valid_to, props::text, record::text FROM records")
    found = cur.fetchall()
    rids: dict[int, str] = {}
    literals: list[tuple[str, str]] = []
    edges = _edges(cur)
    for rid, mid, type_, status, user, agent, session, created, updated, vfrom, vto, props, data in found:
        rids[rid] = mid
        try:
            record = records.load_record(data, checked=True)
        except Exception as exc:
            report.add("unreadable_document", mid, f"{type(exc).__name__}: {str(exc)[:120]}")
            continue
        scope, meta_ = record.scope, record.metadata
        want = (record.id, record.type, str(record.status), scope.user_id, scope.agent_id, scope.session_id,
                meta_.created_at, meta_.updated_at, record.valid_from, record.valid_to, record.properties)
        have = (mid, type_, status, user, agent, session, created, updated, vfrom, vto, json.loads(props))
        wrong = [name for name, a, b in zip(("id", "type", "status", "user_id", "agent_id", "session_id", "created_at",
                                             "updated_at", "valid_from", "valid_to", "props"), want, have, strict=True)
                 if not _same(a, b)]
        if wrong:
            report.add("record_row_mismatch", mid, f"columns {', '.join(wrong)} disagree with the document")
        own = [(rel.relation, rel.target, rel.properties) for rel in record.relationships]
        if edges.pop(mid, []) != own:
            report.add("relationships_mismatch", mid, f"relationship rows differ from the record's {len(own)}")
        # lexemes only: JSONB keeps properties in its own key order, so positions of property words can move
        literals.append((mid, tsvector_literal(*records.fts_columns(record))))
    for source in edges:
        report.add("relationship_without_record", source, "relationship rows of no record")
    for start in range(0, len(literals), _BATCH):
        chunk = literals[start:start + _BATCH]
        cur.execute("SELECT x.id FROM unnest(%s::text[], %s::text[]) AS x(id, lit) JOIN records r ON r.id = x.id "
                    "WHERE strip(r.tsv) <> strip(x.lit::tsvector)", [[m for m, _ in chunk], [t for _, t in chunk]])
        for (mid,) in cur.fetchall():
            report.add("text_index_stale", mid, "the full-text vector was made from another text")

    cur.execute("SELECT rid, model_id, vector_dims(embedding) FROM embeddings")
    vectors = cur.fetchall()
    for rid, model_id, vdim in vectors:
        mid = rids.get(rid)
        if mid is None:
            report.add("vector_without_record", str(rid), "embeddings row of no record")
        elif model_id != model or str(vdim) != dim:
            report.add("vector_model", mid, f"vector of {model_id!r} ({vdim}-d); the store's model is {model!r} "
                                             f"({dim}-d)")
    for rid in rids.keys() - {rid for rid, _, _ in vectors}:
        report.add("missing_vector", rids[rid], "the record has no vector")

    _check_tenants(cur, report)
    ids = set(rids.values())
    cur.execute("SELECT memory_id, entry::text FROM history ORDER BY memory_id, at, seq")
    n_history, n_absent = check_history_rows(report, cur.fetchall(), ids)
    report.counts.update({"records": len(rids), "vectors": len(vectors), "text rows": len(literals),
                          "relationships": _count(cur, "relationships"),
                          "history rows": n_history, "tombstoned memories": n_absent})


#: rows kept under another tenant than their record's (the distribution column of docs/SCALING.md, "A cluster"):
#: a record's tenant is its user (NO_USER for none), and its vector, edges and history live with it
_TENANTS = """
SELECT 'records', r.id FROM records r WHERE r.tenant <> COALESCE(r.user_id, '')
UNION ALL SELECT 'embeddings', r.id FROM embeddings e JOIN records r ON r.rid = e.rid WHERE e.tenant <> r.tenant
UNION ALL SELECT 'relationships', r.id FROM relationships x JOIN records r ON r.id = x.source WHERE x.tenant <> r.tenant
UNION ALL SELECT 'history', r.id FROM history h JOIN records r ON r.id = h.memory_id WHERE h.tenant <> r.tenant
/* check: tenants */"""


def _check_tenants(cur: Cursor, report: CheckReport) -> None:
    cur.execute(_TENANTS)
    for table, mid in cur.fetchall():
        report.add("wrong_tenant", mid, f"{table} row kept under another tenant than the record's user")


def _edges(cur: Cursor) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    cur.execute('SELECT source, relation, target, properties::text FROM relationships ORDER BY source, pos')
    out: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for source, relation, target, props in cur.fetchall():
        out.setdefault(source, []).append((relation, target, json.loads(props)))
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a == b
    return bool(a == b)


def _count(cur: Cursor, table: str) -> int:
    cur.execute(f"SELECT count(*) FROM {table}")
    return int(cur.fetchone()[0])
