"""The tenant column of the sharded layout (docs/SCALING.md, "A cluster"): a store written by schema version 1 (no
tenant column) opens, is back-filled and keeps working; the step is harmless when run again; every key starts with
the tenant; a memory keeps the user (so the shard) it was first written with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from postgres_cases import database_url
from store_cases import MODEL, ONTOLOGY, open_backend, record, unit

from mnemir.errors import ConflictError, StoreError
from mnemir.ir import Action, HistoryEntry
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.postgres import PostgresStore, schema
from mnemir.store.postgres.store import _prepare


def _write_v1(cur: Any, writes: list[Write]) -> None:
    """Rows as mnemir wrote them under schema version 1 (the statements of that version, without a tenant)."""
    for i, w in enumerate(writes):
        p = _prepare(w, i, skip_record=False)
        cur.execute("INSERT INTO records (id, type, status, user_id, agent_id, session_id, created_at, updated_at, "
                    "valid_from, valid_to, props, record, tsv) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                    "%s::jsonb, %s::jsonb, %s::tsvector) RETURNING rid", p.row)
        rid = cur.fetchone()[0]
        cur.execute("INSERT INTO embeddings (rid, model_id, embedding) VALUES (%s, %s, %s::vector)",
                    [rid, MODEL, p.vector])
        for edge in p.edges:
            cur.execute("INSERT INTO relationships (source, pos, relation, target, properties) VALUES "
                        "(%s, %s, %s, %s, %s::jsonb)", edge)
        for h in p.history:
            cur.execute("INSERT INTO history (id, memory_id, at, entry) VALUES (%s, %s, %s, %s::jsonb)", h)


def _columns_of_keys(cur: Any) -> dict[str, list[str]]:
    """{constraint name: its columns} for the primary and unique keys of the tenant tables."""
    cur.execute("SELECT c.conname, a.attname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
                "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) "
                "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
                "WHERE c.contype IN ('p', 'u') AND t.relname IN ('records', 'embeddings', 'relationships', 'history') "
                "ORDER BY c.conname, k.n")
    out: dict[str, list[str]] = {}
    for name, column in cur.fetchall():
        out.setdefault(name, []).append(column)
    return out


def test_a_version_1_store_is_back_filled_and_keeps_working(tmp_path: Path) -> None:
    url = database_url(tmp_path, "old")
    rng = np.random.default_rng(3)
    rows = [record("alice likes green tea", "Fact", {"entity": "tea"}, user="alice", id="a0"),
            record("alice plans a trip", "Fact", user="alice", id="a1",
                   relationships=[{"relation": "about", "target": "a0"}]),
            record("a note of nobody", "Fact", user=None, id="n0"),
            record("a note of the empty user", "Fact", user="", id="e0"),
            record("bob's code", "Gadget", {"size": 4}, user="bob", id="b0")]
    writes = [Write(r, v, [HistoryEntry(memory_id=r.id, action=Action.created)])
              for r, v in zip(rows, unit(rng, len(rows)), strict=True)]
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        schema.migrate(cur, "old store", schema.MIGRATIONS[:1])
        cur.execute("INSERT INTO meta (key, value) VALUES ('embedding_model', %s), ('embedding_dim', %s)",
                    [MODEL, str(len(writes[0].vector))])  # type: ignore[arg-type]
        schema.fix_dimension(cur, len(writes[0].vector))  # type: ignore[arg-type]
        _write_v1(cur, writes)
        # a hard-deleted memory's tombstone (history of no record) and a version 1 range index (after user_id)
        cur.execute("INSERT INTO history (id, memory_id, at, entry) VALUES (%s, %s, %s, %s::jsonb)",
                    _prepare(Write(record("gone", id="g0"), None, [HistoryEntry(memory_id="g0", action=Action.deleted)]),
                             0, skip_record=True).history[0])
        cur.execute("CREATE INDEX records_prop_num_old ON records (user_id, ((props -> 'size')))")

    store = PostgresStore(url, ontology=ONTOLOGY)
    try:
        assert store.schema_version == schema.SCHEMA_VERSION == 2
        assert store.check().ok, store.check().render()

        def tenants(cur: Any) -> dict[str, set[tuple[str, str]]]:
            out = {}
            for table, key in (("records", "id"), ("embeddings", "rid::text"), ("relationships", "source"),
                               ("history", "memory_id")):
                cur.execute(f"SELECT {key}, tenant FROM {table}")
                out[table] = set(cur.fetchall())
            cur.execute("SELECT indexdef FROM pg_indexes WHERE starts_with(indexname, 'records_prop_')")
            out["indexes"] = {(d, "") for (d,) in cur.fetchall()}
            cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'records'")
            out["all indexes"] = {(name, "") for (name,) in cur.fetchall()}
            return out

        found = store._db.read("tenants", tenants)
        assert found["records"] == {("a0", "alice"), ("a1", "alice"), ("n0", ""), ("e0", ""), ("b0", "bob")}
        assert found["relationships"] == {("a1", "alice")}
        assert found["history"] == {("a0", "alice"), ("a1", "alice"), ("n0", ""), ("e0", ""), ("b0", "bob"),
                                    ("g0", "")}
        assert sorted(t for _, t in found["embeddings"]) == ["", "", "alice", "alice", "bob"]
        # the version 1 range index is gone; the ontology's ones are made after the tenant
        assert found["indexes"] and all("(tenant, " in d for d, _ in found["indexes"])
        assert not any("records_prop_num_old" in d for d, _ in found["indexes"])
        # and every other index of version 1 is still there (the GIN index on props answers equality filters)
        assert {"records_props", "records_tsv", "records_agent", "records_session", "records_created",
                "records_updated", "records_scope", "records_id_key"} <= {n for n, _ in found["all indexes"]}

        # reads of each user, the no-user records and the empty user's apart
        assert [r.id for r in store.select(Selection(user_id="alice"))] == ["a0", "a1"]
        assert [r.id for r in store.select(Selection(user_id=None))] == ["n0"]
        assert [r.id for r in store.select(Selection(user_id=""))] == ["e0"]
        assert store.count(Selection(user_id="bob", where=parse_filter({"size": {"$gt": 3}}, ONTOLOGY))) == 1
        assert store.vector_search(Selection(user_id="alice"), writes[0].vector, 1)[0][0] == "a0"  # type: ignore[arg-type]
        assert [e.target for e in store.edges(["a1"], user="alice")] == ["a0"]
        assert store.edges(["a1"], user="bob") == []
        assert set(store.vectors(["a0", "n0", "e0"], user=None)) == {"n0"}
        assert set(store.histories(["a0", "e0", "n0"], user="")) == {"e0"}
        assert store.histories(["g0"])["g0"][0].action == Action.deleted
        # writes and a hard delete on the upgraded store
        new = record("alice again", "Fact", user="alice", id="a2")
        store.write([Write(new, unit(rng)[0], [HistoryEntry(memory_id="a2", action=Action.created)])], model_id=MODEL)
        a0 = store.fetch(["a0"], user="alice")[0]
        store.write([Write(a0, None, [HistoryEntry(memory_id="a0", action=Action.deleted)])], model_id=MODEL,
                    delete_ids=["a0"])
        assert [r.id for r in store.select(Selection(user_id="alice"))] == ["a1", "a2"]
        assert [h.action for h in store.histories(["a0"])["a0"]] == [Action.deleted]
        assert store.check().ok, store.check().render()

        # the step is harmless when run again, and every key of a tenant table starts with the tenant
        before = store._db.read("keys", _columns_of_keys)
        store._db.write("again", schema.MIGRATIONS[1].apply)
        keys = store._db.read("keys", _columns_of_keys)
        assert keys == before
        assert {name: cols for name, cols in keys.items() if cols[0] != "tenant"} == {"records_id_key": ["id"]}
        assert keys["records_pkey"] == ["tenant", "rid"] and keys["history_tenant_id_key"] == ["tenant", "id"]
        assert [r.id for r in store.select(Selection(user_id=ANY))] == ["a1", "a2", "b0", "e0", "n0"]
        assert store.check().ok

        def misplace(cur: Any) -> None:  # a row under another tenant than its user's is refused by the table
            cur.execute("UPDATE records SET tenant = 'bob' WHERE id = 'a1'")

        with pytest.raises(StoreError, match="records_tenant_check"):
            store._db.write("misplace", misplace)
    finally:
        store.close()
    reopened = PostgresStore(url, ontology=ONTOLOGY)  # and the store opens again (nothing left to apply)
    try:
        assert reopened.schema_version == 2 and reopened.count(Selection(user_id="alice")) == 2
    finally:
        reopened.close()


@pytest.mark.parametrize(("first", "then"), [("alice", "bob"), (None, ""), ("", None), ("alice", None)])
def test_a_memory_keeps_the_user_it_was_first_written_with(tmp_path: Path, first: str | None,
                                                           then: str | None) -> None:
    """Its rows live on its tenant's shard, and a cluster cannot move a row by updating its distribution column:
    writing the id for another user is refused (ConflictError) and nothing of that call is written. Within the
    tenant that no-user records share with user "" as well."""
    store = open_backend("postgres", tmp_path)
    try:
        rng = np.random.default_rng(4)
        store.write([Write(record("mine", user=first, id="x"), unit(rng)[0])], model_id=MODEL)
        other = record("theirs", user=then, id="x")
        with pytest.raises(ConflictError) as caught:
            store.write([Write(record("fine", user=then, id="y"), unit(rng)[0]), Write(other, unit(rng)[0])],
                        model_id=MODEL)
        assert caught.value.context["id"] == "x" and "another user" in caught.value.message
        assert [(r.id, r.scope.user_id, r.content.text) for r in store.fetch(["x", "y"])] == [("x", first, "mine")]
        assert store.check().ok
    finally:
        store.close()
