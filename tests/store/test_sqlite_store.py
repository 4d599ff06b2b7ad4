"""What only the SQLite backend has: its file, migrations, several processes and threads, the vector cache."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, make_ontology, record, unit, write_many

from mnemir.errors import StoreError
from mnemir.ir import MemoryStatus
from mnemir.ontology import Ontology, PropertySpec, TypeDef
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.migrations import Migration
from mnemir.store.sql_filters import Params, compile_selection
from mnemir.store.sqlite import MIGRATIONS, SCHEMA_VERSION, SQLiteStore
from mnemir.store.sqlite.dialect import SQLiteDialect
from mnemir.store.sqlite.schema import migrate

RNG = np.random.default_rng(5)
EVERYONE = Selection(user_id=ANY)


def open_db(path: Path, **options: float) -> SQLiteStore:
    return SQLiteStore(path, ontology=ONTOLOGY, **options)


def put(store: SQLiteStore, *records: object) -> None:
    store.write([Write(r, v) for r, v in zip(records, unit(RNG, len(records)), strict=True)],  # type: ignore[arg-type]
                model_id=MODEL)


# -- the file --------------------------------------------------------------------------
def test_one_file_in_wal_mode_with_the_documented_tables(tmp_path: Path) -> None:
    with open_db(tmp_path / "m.db"):
        pass
    conn = sqlite3.connect(tmp_path / "m.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"records", "props", "relationships", "history", "embeddings", "meta", "fts", "schema_migrations"} <= tables
    conn.close()


def test_the_parent_directory_is_created_and_a_directory_path_is_refused(tmp_path: Path) -> None:
    with open_db(tmp_path / "deep" / "er" / "m.db") as store:
        assert store.count(EVERYONE) == 0
    with pytest.raises(Exception, match="directory") as info:
        open_db(tmp_path)
    assert getattr(info.value, "field", None) == "path"


def test_a_file_that_is_not_a_database_gives_a_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("just some text, not SQLite " * 100)
    with pytest.raises(StoreError, match="not a database"):
        open_db(bad)


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = open_db(tmp_path / "m.db")
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.count(EVERYONE)


# -- migrations ------------------------------------------------------------------------
def test_migrations_are_recorded_in_order(tmp_path: Path) -> None:
    with open_db(tmp_path / "m.db") as store:
        assert store.schema_version == SCHEMA_VERSION == len(MIGRATIONS)
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
    conn = sqlite3.connect(tmp_path / "m.db")
    found = conn.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").fetchall()
    assert [v for v, _, _ in found] == list(range(1, SCHEMA_VERSION + 1))
    assert all(name and applied for _, name, applied in found)


def test_an_old_database_is_upgraded_on_open(tmp_path: Path) -> None:
    """A store made before the full-text index (schema 1) gets the index, back-filled, and the later columns,
    when opened."""
    path = tmp_path / "old.db"
    with open_db(path) as store:
        put(store, record("帮我订下周五去上海的机票", id="flight"), record("rain in London", id="rain"))
    conn = sqlite3.connect(path, isolation_level=None)  # turn it back into a schema-1 database
    conn.execute("DROP TABLE fts")
    conn.execute("ALTER TABLE records DROP COLUMN fts_key")
    conn.execute("DROP INDEX records_seq")
    conn.execute("ALTER TABLE records DROP COLUMN seq")
    conn.execute("DROP TABLE deleted")
    conn.execute("UPDATE meta SET key = 'vector_seq' WHERE key = 'write_seq'")
    conn.execute("DROP INDEX records_user_type_created")
    conn.execute("DELETE FROM schema_migrations WHERE version > 1")
    conn.close()
    with open_db(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [i for i, _ in store.text_search(EVERYONE, "上海", 5)] == ["flight"]
        assert [i for i, _ in store.text_search(EVERYONE, "london", 5)] == ["rain"]
        flight = store.fetch(["flight"])[0]
        store.write([Write(flight.model_copy(update={"status": MemoryStatus.archived}), None)], model_id=MODEL)
        assert store.text_search(Selection(user_id=ANY, statuses=(MemoryStatus.archived,)), "上海", 5)[0][0] == \
            "flight"


def test_a_database_from_a_newer_mnemir_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with open_db(path):
        pass
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', '2030-01-01')", (SCHEMA_VERSION + 1,))
    conn.close()
    with pytest.raises(StoreError, match="newer mnemir") as info:
        open_db(path)
    assert info.value.context["schema_version"] == SCHEMA_VERSION + 1


def test_the_runner_applies_only_missing_migrations(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "r.db", isolation_level=None)
    calls: list[int] = []
    extra = Migration(SCHEMA_VERSION + 1, "a later step", lambda c: (calls.append(1), c.execute("CREATE TABLE x (a)")))
    assert migrate(conn, "test", MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))
    assert migrate(conn, "test", (*MIGRATIONS, extra)) == [SCHEMA_VERSION + 1]
    assert migrate(conn, "test", (*MIGRATIONS, extra)) == []
    assert calls == [1]
    with pytest.raises(ValueError, match="numbered"):
        migrate(conn, "test", (MIGRATIONS[1], MIGRATIONS[0]))
    conn.close()


def test_a_new_core_property_is_back_filled_into_the_index(tmp_path: Path) -> None:
    """Opening with an ontology that makes an existing property core indexes the records already stored."""
    plain = Ontology()
    plain.register(TypeDef("Book", "a book", {"isbn": PropertySpec("isbn", "str")}))
    path = tmp_path / "m.db"
    with SQLiteStore(path, ontology=plain) as store:
        put(store, record("dune", "Fact", id="other"))
        book = record("dune", "Fact", id="b1").model_copy(update={"type": "Book", "properties": {"isbn": "42"}})
        put(store, book)
    indexed = Ontology()
    indexed.register(TypeDef("Book", "a book", {"isbn": PropertySpec("isbn", "str", core=True)}))
    with SQLiteStore(path, ontology=indexed) as store:
        assert "isbn" in json.loads(store.get_meta("indexed_properties") or "[]")
        where = parse_filter({"isbn": "42"}, indexed)
        assert [r.id for r in store.select(EVERYONE.with_(where=where))] == ["b1"]


# -- processes and threads -------------------------------------------------------------
def test_several_processes_write_at_once_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with open_db(path):
        pass  # create the schema once so the workers race on writes, not on set-up
    workers, each = 4, 40
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers) as pool:
        done = pool.starmap(write_many, [(str(path), w, each) for w in range(workers)])
    assert done == [each] * workers
    with open_db(path) as store:
        assert store.count(EVERYONE) == workers * each
        for w in range(workers):
            assert store.count(EVERYONE.with_(where=parse_filter({"entity": f"w{w}"}, ONTOLOGY))) == each
        assert len(store.vectors([f"w{w}-{i}" for w in range(workers) for i in range(each)])) == workers * each


def test_a_write_waits_out_another_process_lock(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = open_db(path, busy_timeout_s=0.01, retry_for_s=10)
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.4, lambda: blocker.execute("COMMIT"))
    releaser.start()
    started = time.monotonic()
    put(store, record("after the lock", id="late"))
    assert time.monotonic() - started >= 0.3
    assert store.fetch(["late"])[0].id == "late"
    releaser.join()
    blocker.close()
    store.close()


def test_a_lock_held_too_long_is_a_clear_store_error_not_sqlite_text(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = open_db(path, busy_timeout_s=0.01, retry_for_s=0.3)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError) as info:
            put(store, record("blocked", id="blocked"))
        assert "locked" not in str(info.value).lower()
        assert "busy" in str(info.value)
        assert info.value.__cause__ is None
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert store.fetch(["blocked"]) == []
    store.close()


def test_one_store_object_shared_by_threads(tmp_path: Path) -> None:
    store = open_db(tmp_path / "m.db")
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            rng = np.random.default_rng(t)
            for i in range(15):
                store.write([Write(record(f"t{t} {i}", id=f"t{t}-{i}"), unit(rng)[0])], model_id=MODEL)
                store.vector_search(EVERYONE, unit(rng)[0], 3)
                store.text_search(EVERYONE, f"t{t}", 3)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.count(EVERYONE) == 60
    store.close()


# -- the vector cache ------------------------------------------------------------------
def test_searches_see_other_connections_writes_and_deletes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    reader, writer = open_db(path), open_db(path)
    put(writer, record("first", id="first"))
    assert [i for i, _ in reader.vector_search(EVERYONE, unit(RNG)[0], 5)] == ["first"]  # cache loaded
    target = unit(RNG)[0]
    writer.write([Write(record("second", id="second"), target)], model_id=MODEL)
    assert reader.vector_search(EVERYONE, target, 1)[0][0] == "second"
    writer.write([Write(record("first", id="first"), target)], model_id=MODEL)  # a replaced vector
    assert {i for i, _ in reader.vector_search(EVERYONE, target, 2)} == {"first", "second"}
    assert reader.vector_search(EVERYONE, target, 1)[0][1] == pytest.approx(1.0, abs=1e-5)
    writer.write([], model_id=MODEL, delete_ids=["second"])
    assert [i for i, _ in reader.vector_search(EVERYONE, target, 5)] == ["first"]
    reader.close()
    writer.close()


# -- text segmentation --------------------------------------------------------------------
def test_jieba_is_initialised_quietly(tmp_path: Path) -> None:
    code = ("from mnemir.store.sqlite.text import match_expression; import sys; "
            "sys.stdout.write(match_expression('订下周五去上海的机票') or '')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr == ""
    assert '"上海"' in done.stdout


def test_user_types_from_another_ontology_still_load(tmp_path: Path) -> None:
    """Records are stored as MemIR JSON; reading them does not depend on the ontology the reader holds."""
    path = tmp_path / "m.db"
    with SQLiteStore(path, ontology=make_ontology()) as store:
        put(store, record("gadget", "Gadget", {"code": "x1", "tags": ["a"]}, id="g"))
    with SQLiteStore(path, ontology=Ontology()) as store:
        assert store.fetch(["g"])[0].properties == {"code": "x1", "tags": ["a"]}


def test_planner_statistics_are_kept_so_a_selective_property_drives_the_query(tmp_path: Path) -> None:
    """Without ANALYZE statistics SQLite takes ``user_id = ?`` for selective and scans the whole scope; with them
    a 1-in-200 core-property filter is answered from the property index."""
    with open_db(tmp_path / "m.db") as store:
        n = 1200
        records = [record(f"r{i}", "Fact", {"entity": f"e{i % 200}"}, id=f"r{i}") for i in range(n)]
        store.write([Write(r, v) for r, v in zip(records, unit(RNG, n), strict=True)], model_id=MODEL)
        assert store.get_meta("analyzed_at_rid") == str(n)
    conn = sqlite3.connect(tmp_path / "m.db")
    assert conn.execute("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'records'").fetchone()[0] > 0
    # the condition the store itself sends for this selection (as SQLiteStore._where builds it)
    indexed = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'indexed_properties'").fetchone()[0])
    assert "entity" in indexed
    p = Params()
    where = compile_selection(Selection(user_id="alice", where=parse_filter({"entity": "e7"}, ONTOLOGY)),
                              SQLiteDialect(indexed), p)
    assert "props" in where and "json_" not in where, where
    plan = " ".join(row[3] for row in conn.execute(
        f"EXPLAIN QUERY PLAN SELECT group_concat(r.rid, ' ') FROM records r WHERE {where}", p.values))
    assert "props_text" in plan and "INTEGER PRIMARY KEY" in plan, plan
    conn.close()


def test_a_replace_that_keeps_the_text_does_not_segment_it_again(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Status and time changes (archiving, decay) are most replaces: the full-text columns are kept as they are."""
    from mnemir.store import records as rows

    with open_db(tmp_path / "m.db") as store:
        rec = record("帮我订下周五去上海的机票", "Task", {"goal": "订机票"}, id="t")
        put(store, rec)
        segmented: list[str] = []
        original = rows.fts_columns
        monkeypatch.setattr(rows, "fts_columns", lambda r: segmented.append(r.id) or original(r))
        store.write([Write(rec.model_copy(update={"status": MemoryStatus.archived}), None)], model_id=MODEL)
        assert segmented == []
        archived = Selection(user_id="alice", statuses=(MemoryStatus.archived,))
        assert [i for i, _ in store.text_search(archived, "上海", 5)] == ["t"]
        changed = rec.model_copy(update={"properties": {"goal": "改签火车票"}})
        store.write([Write(changed, None)], model_id=MODEL)
        assert segmented == ["t"]
        assert [i for i, _ in store.text_search(Selection(user_id="alice"), "火车票", 5)] == ["t"]
