"""Every SQL statement the PostgreSQL backend issues for a user's operations is either scoped by that user
(``r.user_id = ...``: the distribution column of the sharded layout in docs/SCALING.md) or one of the documented
id-keyed or global statements. Statements are captured from the real driver (psycopg's cursor) while a session of
writes, selections, searches, edges, histories, vectors, meta and deletes runs on a real server; a statement the
list does not know fails the test, so a new unscoped query cannot slip in unnoticed (add it to docs/SCALING.md and
here, or scope it)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import psycopg
import pytest
from store_cases import MODEL, ONTOLOGY, open_backend, record, unit

from mnemir.ir import Action, HistoryEntry
from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter

#: statements keyed by memory ids or rids (a tenant's ids: routed by id in the sharded layout, see
#: docs/SCALING.md "Id-keyed statements"), and global ones (meta, schema, planner statistics: reference tables)
ID_KEYED = [
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
    r"^SELECT id, record::text FROM records WHERE id = ANY",
    r"^SELECT source, relation, target, properties::text FROM relationships WHERE",
    r"^SELECT memory_id, entry::text FROM history WHERE memory_id = ANY",
    r"^SELECT r\.id, e\.embedding::real\[\] FROM records r JOIN embeddings e ON e\.rid = r\.rid WHERE r\.id = ANY",
]
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
SCOPED = re.compile(r"\br\.user_id = %\(p\d+\)s")


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
    scoped = captured[scoped_from:]
    store.fetch(["a1", "a2"])
    store.edges(["a1"], direction="both")
    store.histories(["a1", "b0"])
    store.vectors(["a1"])
    store.get_meta("embedding_model")
    store.set_meta("note", "x")
    store.write([], model_id=MODEL, delete_ids=["a5"])
    store.close()

    selection_statements = [s for s in scoped if "FROM records r" in s and "WHERE" in s]
    assert len(selection_statements) >= 12  # select, count, vector and text search for each of three selections
    for statement in selection_statements:
        assert SCOPED.search(statement), f"a selection statement without the user scope: {statement}"
    unknown = [s for s in captured if not SCOPED.search(s)
               and not any(re.search(p, s) for p in ID_KEYED + GLOBAL)]
    assert not unknown, "statements neither scoped by user nor documented in docs/SCALING.md:\n" + "\n".join(unknown)
