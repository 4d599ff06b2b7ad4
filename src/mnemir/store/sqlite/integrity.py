"""The SQLite part of ``check`` (:mod:`mnemir.store.integrity`): every table against the records, in one snapshot."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from mnemir.store import records
from mnemir.store.integrity import CheckReport, check_history_rows
from mnemir.store.sqlite import rows

#: the records columns that repeat what the document says (rid, seq and fts_key are the store's own)
_ROW_COLUMNS = ("id", "type", "status", "user_id", "agent_id", "session_id", "created_at", "updated_at", "valid_from",
                "valid_to", "speaker", "source_session_id", "creator", "props")


def check(conn: sqlite3.Connection, report: CheckReport) -> None:
    found = conn.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in found] != ["ok"]:
        report.add("file_corrupt", None, "; ".join(str(r[0]) for r in found[:5]))
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    model, dim = meta.get("embedding_model"), meta.get("embedding_dim")
    indexed = sorted(json.loads(meta.get("indexed_properties", "[]")))

    rids: dict[int, str] = {}
    columns = ", ".join(_ROW_COLUMNS)
    docs = dict(conn.execute("SELECT rid, record FROM documents"))
    for rid, fts_key, *values in conn.execute(f"SELECT rid, fts_key, {columns} FROM records"):
        mid = values[0]
        rids[rid] = mid
        data = docs.pop(rid, None)
        if data is None:
            report.add("record_without_document", mid, f"records row {rid} has no document")
            continue
        try:
            record = records.load_record(data, checked=True)
        except Exception as exc:
            report.add("unreadable_document", mid, f"{type(exc).__name__}: {str(exc)[:120]}")
            continue
        want = rows.record_row(record)
        wrong = [c for c, v in zip(_ROW_COLUMNS, values, strict=True) if want[c] != v]
        if wrong:
            report.add("record_row_mismatch", mid, f"columns {', '.join(wrong)} disagree with the document")
        if fts_key is not None and fts_key != records.fts_key(record):
            report.add("text_index_stale", mid, "the full-text row was made from another text")
        _check_props(conn, report, rid, mid, record.properties, indexed)
        _check_edges(conn, report, mid, record)
    for rid in docs:
        report.add("document_without_record", str(rid), f"documents row {rid} has no record")

    vectors = 0
    for rid, model_id, vdim, length in conn.execute("SELECT rid, model_id, dim, length(vector) FROM embeddings"):
        vectors += 1
        mid = rids.get(rid)
        if mid is None:
            report.add("vector_without_record", str(rid), "embeddings row of no record")
            continue
        if model_id != model or str(vdim) != dim:
            report.add("vector_model", mid, f"vector of {model_id!r} ({vdim}-d); the store's model is {model!r} "
                                             f"({dim}-d)")
        if length != 4 * vdim:
            report.add("vector_length", mid, f"{length} bytes for {vdim} float32 values")
    have_vector = {rid for (rid,) in conn.execute("SELECT rid FROM embeddings")}
    for rid in rids.keys() - have_vector:
        report.add("missing_vector", rids[rid], "the record has no vector")

    fts_rows = {rid for (rid,) in conn.execute("SELECT rowid FROM fts")}
    for rid in fts_rows - rids.keys():
        report.add("text_row_without_record", str(rid), "a full-text row of no record")
    for rid in rids.keys() - fts_rows:
        report.add("record_not_in_text_index", rids[rid], "the record has no full-text row")
    orphans = conn.execute("SELECT DISTINCT rid FROM props WHERE rid NOT IN (SELECT rid FROM records)").fetchall()
    for (rid,) in orphans:
        report.add("property_row_without_record", str(rid), "property rows of no record")
    for (rid,) in conn.execute("SELECT rid FROM deleted WHERE rid IN (SELECT rid FROM records)"):
        report.add("deleted_row_still_stored", rids.get(rid), "a hard-deleted row is still a record")
    ids = set(rids.values())
    for (source,) in conn.execute("SELECT DISTINCT source FROM relationships"):
        if source not in ids:
            report.add("relationship_without_record", source, "relationship rows of no record")

    history_rows = conn.execute("SELECT memory_id, entry FROM history ORDER BY memory_id, at, seq")
    n_history, n_absent = check_history_rows(report, history_rows, ids)
    report.counts.update({"records": len(rids), "vectors": vectors, "text rows": len(fts_rows),
                          "property rows": _count(conn, "props"), "relationships": _count(conn, "relationships"),
                          "history rows": n_history, "tombstoned memories": n_absent})


def _check_props(conn: sqlite3.Connection, report: CheckReport, rid: int, mid: str, properties: dict[str, Any],
                 indexed: list[str]) -> None:
    want = sorted(map(_key, rows.property_rows(rid, properties, indexed)))
    have = sorted(map(_key, conn.execute("SELECT rid, key, item, tval, nval FROM props WHERE rid = ?", (rid,))))
    if want != have:
        report.add("property_rows_mismatch", mid, f"{len(have)} property rows differ from the {len(want)} the record makes")


def _key(row: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(repr(v) for v in row)


def _check_edges(conn: sqlite3.Connection, report: CheckReport, mid: str, record: Any) -> None:
    have = conn.execute("SELECT source, pos, relation, target, properties FROM relationships WHERE source = ? "
                        "ORDER BY pos", (mid,)).fetchall()
    if [tuple(r) for r in have] != [tuple(r) for r in records.edge_rows(record)]:
        report.add("relationships_mismatch", mid, f"{len(have)} relationship rows, the record holds "
                                                  f"{len(record.relationships)}")


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
