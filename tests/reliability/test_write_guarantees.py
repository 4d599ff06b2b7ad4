"""What one ``add`` guarantees however its store is tuned (decision 0108): a write acknowledged is still there after
the process ends without closing the store, for each ``sqlite_synchronous`` setting; a write that fails half-way
leaves nothing of itself (new record or merge) on either backend; and governance decides a fixed workload as
written down here (merge, supersession, two people's facts side by side). Every sentence is made up here."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NOW

import mnemir
from mnemir.errors import StoreError
from mnemir.ir import MemoryStatus
from mnemir.memory.config import MemoryConfig
from mnemir.store.sqlite.connection import WAL_AUTOCHECKPOINT

from .conftest import OpenMemory, location


def _add_and_vanish(path: str, embedder: Any, synchronous: str, vector: Any) -> None:
    """In a forked child: one governed ``add`` with its vector given, then the process ends at once (no close, no
    checkpoint, no Python shutdown): only what the commit itself made durable can be found afterwards."""
    mem = mnemir.open(path, embedder=embedder, config=MemoryConfig(sqlite_synchronous=synchronous))
    mem.add("the spare key hangs behind the blue door", "Fact",
            {"entity": "spare key", "attribute": "place", "value": "behind the blue door"},
            user="ona", id="kept-1", now=NOW, vector=vector)
    os._exit(0)


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
@pytest.mark.parametrize("synchronous", ["normal", "full"])
def test_an_acknowledged_add_survives_the_process_ending_without_close(tmp_path: Path, embedder: Any,
                                                                       synchronous: str) -> None:
    path = str(tmp_path / f"store-{synchronous}")
    vector = embedder.embed(["the spare key hangs behind the blue door"])[0]
    child = multiprocessing.get_context("fork").Process(target=_add_and_vanish,
                                                        args=(path, embedder, synchronous, vector))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    with mnemir.open(path, embedder=embedder, config=MemoryConfig(sqlite_synchronous=synchronous)) as mem:
        setting = mem.store._db.raw.execute("PRAGMA synchronous").fetchone()[0]
        assert setting == {"normal": 1, "full": 2}[synchronous]
        assert mem.store._db.raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WAL_AUTOCHECKPOINT
        kept = mem.get("kept-1", user="ona")
        assert kept.properties["value"] == "behind the blue door"
        assert [h.action for h in mem.history("kept-1", user="ona")] == ["created"]
        assert [h.id for h in mem.search("where is the spare key", user="ona", k=3)][:1] == ["kept-1"]
        assert mem.check().ok


def test_an_unknown_synchronous_setting_is_refused(tmp_path: Path, embedder: Any) -> None:
    with pytest.raises(mnemir.ValidationError, match="synchronous"):
        mnemir.open(tmp_path / "s", embedder=embedder, config=MemoryConfig(sqlite_synchronous="off"))


def _fail_vector_writes(backend: str, mem: mnemir.Memory, where: str) -> Any:
    """Make the store refuse every vector written from now on (a real failure inside the write transaction, after
    the record, history and property rows of the same transaction went in); returns a function that lifts it."""
    if backend == "sqlite":
        raw: sqlite3.Connection = mem.store._db.raw
        raw.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON embeddings BEGIN SELECT RAISE(ABORT, 'refused'); "
                    "END")
        return lambda: raw.execute("DROP TRIGGER refuse")
    import psycopg

    with psycopg.connect(where, autocommit=True) as conn:
        conn.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'refused'; END $$")
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON embeddings FOR EACH ROW EXECUTE FUNCTION "
                     "refuse()")

    def lift() -> None:
        with psycopg.connect(where, autocommit=True) as conn:
            conn.execute("DROP TRIGGER refuse ON embeddings")

    return lift


def test_an_add_that_fails_half_way_leaves_nothing(backend: str, open_mem: OpenMemory, tmp_path: Path) -> None:
    mem = open_mem()
    old = mem.add("the spare key hangs behind the blue door", "Fact",
                  {"entity": "spare key", "attribute": "place", "value": "behind the blue door"}, user="ona", now=NOW)
    before = (mem.store.count(mem._selection(user="ona", statuses=list(MemoryStatus))), mem.history(old.id, user="ona"),
              mem.get(old.id, user="ona"))
    lift = _fail_vector_writes(backend, mem, location(backend, tmp_path))
    with pytest.raises(StoreError):  # a new record: its rows and history went in before the vector was refused
        mem.add("the bicycle pump is in the shed", "Fact",
                {"entity": "bicycle pump", "attribute": "place", "value": "the shed"}, user="ona", id="lost-1",
                now=NOW + timedelta(minutes=1))
    with pytest.raises(StoreError):  # a changed value: the old fact's supersession is in the same transaction
        mem.add("the spare key hangs behind the green door", "Fact",
                {"entity": "spare key", "attribute": "place", "value": "behind the green door"}, user="ona",
                id="lost-2", now=NOW + timedelta(minutes=2))
    lift()
    after = (mem.store.count(mem._selection(user="ona", statuses=list(MemoryStatus))), mem.history(old.id, user="ona"),
             mem.get(old.id, user="ona"))
    assert after == before
    assert mem.store.fetch(["lost-1", "lost-2"]) == []
    assert mem.store.histories(["lost-1", "lost-2"]) == {}
    assert "lost-1" not in [h.id for h in mem.search("bicycle pump", user="ona", k=5)]
    assert mem.check().ok
    # the store works on: the same write now goes through and is governed as it would have been
    moved = mem.add("the spare key hangs behind the green door", "Fact",
                    {"entity": "spare key", "attribute": "place", "value": "behind the green door"}, user="ona",
                    id="kept-2", now=NOW + timedelta(minutes=3))
    assert moved.id == "kept-2"
    assert mem.get(old.id, user="ona").status == MemoryStatus.superseded
    assert mem.check().ok


def test_governance_decides_a_fixed_workload_as_written_down(backend_mem: mnemir.Memory) -> None:
    mem = backend_mem
    steps = [
        ("ada", "Ada's favourite tea is jasmine", {"entity": "ada", "attribute": "favourite tea", "value": "jasmine"}),
        ("ada-again", "Ada's favourite tea is jasmine", {"entity": "ada", "attribute": "favourite tea",
                                                         "value": "jasmine"}),
        ("ada-changed", "Ada's favourite tea is oolong now", {"entity": "ada", "attribute": "favourite tea",
                                                              "value": "oolong"}),
        ("ben", "Ben's favourite tea is oolong too", {"entity": "ben", "attribute": "favourite tea",
                                                      "value": "oolong"}),
        ("ada-coffee", "Ada takes her coffee black", {"entity": "ada", "attribute": "coffee", "value": "black"}),
    ]
    decided = []
    for i, (mid, text, props) in enumerate(steps):
        stored = mem.add(text, "Fact", props, user="u", id=mid, now=NOW + timedelta(minutes=i))
        report = mem.last_write_report
        assert report is not None
        decided.append((mid, stored.id, sorted((e.kind, e.memory_id, e.other_id) for e in report.events)))
    assert decided[0] == ("ada", "ada", [("created", "ada", None)])
    assert decided[1][:2] == ("ada-again", "ada")  # a repeat is merged into what it repeats
    assert [e[0] for e in decided[1][2]] == ["merged"]
    assert decided[2][:2] == ("ada-changed", "ada-changed")
    assert ("superseded", "ada", "ada-changed") in decided[2][2] or \
        ("superseded", "ada-changed", "ada") in decided[2][2]
    assert decided[3] == ("ben", "ben", [("created", "ben", None)])  # another person's fact supersedes nothing
    assert decided[4] == ("ada-coffee", "ada-coffee", [("created", "ada-coffee", None)])
    statuses = {mid: mem.get(mid, user="u", include_deleted=True).status for mid in
                ("ada", "ada-changed", "ben", "ada-coffee")}
    assert statuses == {"ada": MemoryStatus.superseded, "ada-changed": MemoryStatus.active,
                        "ben": MemoryStatus.active, "ada-coffee": MemoryStatus.active}
    assert mem.store.fetch(["ada-again"]) == []
    assert mem.check().ok
