"""Every SQL statement the PostgreSQL backend issues for a user's operations is either scoped by that user
(``r.user_id = ...``: the distribution column of the sharded layout in docs/SCALING.md) or one of the documented
id-keyed or global statements. Statements are captured from the real driver (psycopg's cursor) while a session of
writes, selections, searches, edges, histories, vectors, meta and deletes runs on a real server; a statement the
list does not know fails the test, so a new unscoped query cannot slip in unnoticed (add it to docs/SCALING.md and
here, or scope it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from store_cases import MODEL, ONTOLOGY, open_backend, record, unit

import mnemir
from mnemir.ir import Action, HistoryEntry
from mnemir.ontology import Ontology
from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter

#: the write path's statements on rows the same call writes or deletes, keyed by memory id or rid: the records row
#: carries its user_id as a value; history, relationships and embeddings have no user_id column yet (docs/SCALING.md,
#: "Id-keyed statements": the schema step that remains before a sharded cluster can route these)
WRITE_PATH = [
    r"^INSERT INTO records \(id, type, status, user_id,",  # carries user_id as a value
    r"^INSERT INTO history \(id, memory_id, at, entry\)",
    r"^INSERT INTO embeddings \(rid, model_id, embedding\)",
    r"^INSERT INTO relationships \(source, pos, relation, target, properties\)",
    r"^DELETE FROM relationships WHERE source = ANY",
    r"^DELETE FROM records WHERE id = ANY",
    r"^DELETE FROM history WHERE memory_id = ANY",  # a hard delete's purge
    r"^SELECT rid FROM records WHERE id = ANY\(%s::text\[\]\) ORDER BY id FOR UPDATE",  # row locks, in id order
    r"^DELETE FROM embeddings WHERE rid = ANY",
    r"^SELECT rid FROM embeddings WHERE rid = ANY",
]
#: schema, transactions, locks, statistics, meta (a reference table on a cluster) and the test harness
GLOBAL = [
    r"^(BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)",
    r"^SELECT (key, )?value FROM meta WHERE key",
    r"^INSERT INTO meta \(key, value\)",
    r"^SELECT pg_advisory_xact_lock",
    r"^SELECT reltuples FROM pg_class",
    r"^SELECT set_config\(",
    r"^ANALYZE records, embeddings",
    r"^SELECT max\(version\) FROM schema_migrations",
    r"^(CREATE|ALTER|SELECT 1 FROM pg_|SELECT version FROM schema_migrations|INSERT INTO schema_migrations)",
    r"^SELECT to_regclass",
    r"^SELECT indexname FROM pg_indexes WHERE tablename = 'records'",
    r"^SELECT DISTINCT datname FROM pg_stat_activity",  # the test harness's database housekeeping, not the store
    r"^(DROP|CREATE) DATABASE ",  # the test harness
]
SCOPED = re.compile(r"\br\.user_id (= %\(p\d+\)s|IS NULL)")
#: statements that read the tenant tables (what a scoped operation must never read unscoped)
READS = re.compile(r"^SELECT .*\bFROM (records|history|relationships|embeddings)\b")


def _unscoped(statements: list[str]) -> list[str]:
    return [s for s in statements if not SCOPED.search(s) and not any(re.search(p, s) for p in WRITE_PATH + GLOBAL)]


def _normal(query: object) -> str:
    return " ".join(re.sub(r"--[^\n]*", "", str(query)).split())


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def record_execute(self, query, params=None, **kw):  # type: ignore[no-untyped-def]
        statements.append(_normal(query))
        return execute(self, query, params, **kw)

    def record_executemany(self, query, params_seq, **kw):  # type: ignore[no-untyped-def]
        statements.append(_normal(query))
        return executemany(self, query, params_seq, **kw)

    monkeypatch.setattr(psycopg.Cursor, "execute", record_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", record_executemany)
    return statements


def test_every_statement_is_scoped_or_documented(tmp_path: Path, captured: list[str]) -> None:
    store = open_backend("postgres", tmp_path)
    rng = np.random.default_rng(1)
    alice = [record(f"alice likes tea {i}", "Fact", {"entity": f"e{i % 3}"}, user="alice", id=f"a{i}",
                    relationships=[{"relation": "about", "target": "a0"}] if i else []) for i in range(6)]
    bob = [record("bob likes coffee", "Fact", user="bob", id="b0")]
    store.write([Write(r, v, [HistoryEntry(memory_id=r.id, action=Action.created)])
                 for r, v in zip(alice + bob, unit(rng, 7), strict=True)], model_id=MODEL)
    scoped_from = len(captured)
    for selection in (Selection(user_id="alice"), Selection(user_id="alice", types=("Fact",)),
                      Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY))):
        store.select(selection, order_by=[("@created_at", False)], limit=3)
        store.count(selection)
        store.vector_search(selection, unit(rng)[0], 3)
        store.text_search(selection, "tea", 3)
    store.fetch(["a1", "a2"], user="alice")
    store.edges(["a1"], direction="both", user="alice")
    store.histories(["a1", "b0"], user="alice")
    store.vectors(["a1"], user="alice")
    scoped = captured[scoped_from:]
    store.get_meta("embedding_model")
    store.set_meta("note", "x")
    store.write([], model_id=MODEL, delete_ids=["a5"])
    store.close()

    selection_statements = [s for s in scoped if READS.search(s)]
    assert len(selection_statements) >= 16  # 4 searches x 3 selections, and the four reads by id
    for statement in selection_statements:
        assert SCOPED.search(statement), f"a read without the user scope: {statement}"
    unknown = _unscoped(captured)
    assert not unknown, "statements neither scoped by user nor documented in docs/SCALING.md:\n" + "\n".join(unknown)


def test_a_users_session_reads_only_by_user(tmp_path: Path, captured: list[str], embedder: Any) -> None:
    """A representative session of one user through Memory (add with links, get, update, search, recall, history,
    soft and hard delete, list, count): every statement that reads records, history, relationships or embeddings
    carries the user, and every other one is a documented write-path or global statement."""
    ontology = Ontology()
    mem = mnemir.Memory(open_backend("postgres", tmp_path, ontology=ontology), embedder=embedder, ontology=ontology)
    try:
        mem.add("Bob's PIN is 4417", "Fact", {"entity": "Bob", "attribute": "pin", "value": "4417"}, user="bob")
        start = len(captured)
        trip = mem.add("Trip to Oslo in March", "Plan", {"order": 1}, user="alice")
        tea = mem.add("Alice drinks green tea", "Preference", {"subject": "green tea", "preference_type": "like"},
                      user="alice", relationships=[{"relation": "related_to_entity", "target": trip.id}])
        mem.get(tea.id, user="alice")
        mem.update(tea.id, properties={"strength": 0.9}, user="alice")
        mem.search("tea", user="alice", k=3)
        mem.recall("what does Alice like to drink?", user="alice", k=3)
        mem.history(tea.id, user="alice")
        mem.list(user="alice")
        mem.count(user="alice")
        mem.delete(trip.id, user="alice")
        mem.delete(tea.id, user="alice", hard=True)
        session = captured[start:]
    finally:
        mem.close()
    reads = [s for s in session if READS.search(s) and not any(re.search(p, s) for p in WRITE_PATH)]
    assert len(reads) >= 10
    unscoped = [s for s in reads if not SCOPED.search(s)]
    assert not unscoped, "reads of the tenant tables without the user:\n" + "\n".join(unscoped)
    unknown = _unscoped(session)
    assert not unknown, "statements neither scoped by user nor documented in docs/SCALING.md:\n" + "\n".join(unknown)
