"""The SQLite vector search's fast path (scope, types and statuses answered from the vector cache's scope codes)
agrees with the SQL path and with a Python reference: same ids, same scores, also after other processes wrote,
replaced and deleted records."""

from __future__ import annotations

import multiprocessing
import random
from pathlib import Path

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, mutate, random_gadget, record, unit

from mnemir.ir import MemIR, MemoryStatus
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.sqlite import SQLiteStore

EVERYTHING = Selection(user_id=ANY, statuses=tuple(MemoryStatus))
K = 7


def random_selection(rnd: random.Random) -> Selection:
    return Selection(
        user_id=rnd.choice([ANY, "alice", "bob", None, "dan", "nobody"]),
        agent_id=rnd.choice([ANY, ANY, None, "a1", "a9"]),
        session_id=rnd.choice([ANY, ANY, None, "s2"]),
        types=rnd.choice([None, ("Gadget",), ("Fact",), ("Fact", "Gadget"), (), ("Nope",)]),
        statuses=tuple(rnd.sample(list(MemoryStatus), rnd.randint(0, 3))),
    )


def fill(path: Path, n: int = 150, seed: int = 3) -> SQLiteStore:
    rnd = random.Random(seed)
    records = [random_gadget(i, rnd) for i in range(n)]
    records += [record(f"fact {i}", "Fact", user=rnd.choice(["alice", "bob"]), id=f"f{i}") for i in range(20)]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    store.write([Write(r, v) for r, v in zip(records, unit(np.random.default_rng(seed), len(records)), strict=True)],
                model_id=MODEL)
    return store


def search(store: SQLiteStore, selection: Selection, query: np.ndarray, *, fast: bool) -> list[tuple[str, float]]:
    store.scope_fast_path = fast
    try:
        return store.vector_search(selection, query, K)
    finally:
        store.scope_fast_path = True


def reference(records: list[MemIR], vectors: dict[str, np.ndarray], selection: Selection,
              query: np.ndarray) -> list[str]:
    admitted = [r.id for r in records if selection.admits(r)]
    scores = np.array([float(vectors[i] @ query) for i in admitted])
    return [admitted[i] for i in np.argsort(-scores, kind="stable")[:K]]


def check_agreement(store: SQLiteStore, seed: int, rounds: int = 150) -> int:
    """Fast path == SQL path (ids and scores, to the bit) == reference (ids); return how many were non-empty."""
    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    records = store.select(EVERYTHING)
    vectors = store.vectors([r.id for r in records])
    non_empty = 0
    for _ in range(rounds):
        selection, query = random_selection(rnd), unit(rng)[0]
        fast = search(store, selection, query, fast=True)
        assert fast == search(store, selection, query, fast=False), selection
        assert [i for i, _ in fast] == reference(records, vectors, selection, query), selection
        non_empty += bool(fast)
    return non_empty


def test_the_fast_path_agrees_with_sql_and_the_reference_on_a_random_store(tmp_path: Path) -> None:
    with fill(tmp_path / "m.db") as store:
        assert check_agreement(store, seed=1) > 30  # not vacuous: many selections find something


def test_it_agrees_after_another_process_replaced_inserted_and_deleted(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with fill(path) as store:
        check_agreement(store, seed=2, rounds=20)  # the cache is loaded before the other process writes
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            deleted = pool.apply(mutate, (str(path), 9))
        assert deleted
        assert check_agreement(store, seed=3) > 30
        everyone = store.vector_search(EVERYTHING, unit(np.random.default_rng(4))[0], 10_000)
        assert not {i for i, _ in everyone} & set(deleted)
        with SQLiteStore(path, ontology=ONTOLOGY) as fresh:  # a cache loaded from scratch answers alike
            query = unit(np.random.default_rng(5))[0]
            for selection in (EVERYTHING, Selection(user_id="dan"), Selection(user_id="alice", types=("Fact",))):
                assert fresh.vector_search(selection, query, K) == store.vector_search(selection, query, K)


def test_status_and_scope_changes_move_a_record_in_and_out_of_the_fast_path(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    reader, writer = SQLiteStore(path, ontology=ONTOLOGY), SQLiteStore(path, ontology=ONTOLOGY)
    target = unit(np.random.default_rng(6))[0]
    rec = record("x", id="x")
    writer.write([Write(rec, target), Write(record("y", id="y"), unit(np.random.default_rng(7))[0])], model_id=MODEL)
    alice = Selection(user_id="alice")
    assert reader.vector_search(alice, target, 1)[0][0] == "x"
    writer.write([Write(rec.model_copy(update={"status": MemoryStatus.archived}), None)], model_id=MODEL)
    assert [i for i, _ in reader.vector_search(alice, target, 5)] == ["y"]
    archived = alice.with_(statuses=(MemoryStatus.archived,))
    assert [i for i, _ in reader.vector_search(archived, target, 5)] == ["x"]
    moved = rec.model_copy(update={"scope": rec.scope.model_copy(update={"user_id": "bob"}), "type": "Task"})
    writer.write([Write(moved, None)], model_id=MODEL)
    assert [i for i, _ in reader.vector_search(Selection(user_id="bob", types=("Task",)), target, 5)] == ["x"]
    assert reader.vector_search(Selection(user_id="bob", types=("Fact",)), target, 5) == []
    reader.close()
    writer.close()


def test_deleted_records_leave_the_cache(tmp_path: Path) -> None:
    """Their rows are masked out at once and their memory given back (compaction) once they are a sixteenth of
    the cache."""
    path = tmp_path / "m.db"
    reader, writer = SQLiteStore(path, ontology=ONTOLOGY), SQLiteStore(path, ontology=ONTOLOGY)
    vectors = unit(np.random.default_rng(8), 64)
    writer.write([Write(record(f"r{i}", id=f"r{i}"), v) for i, v in enumerate(vectors)], model_id=MODEL)
    everyone = Selection(user_id=ANY)
    assert len(reader.vector_search(everyone, vectors[0], 100)) == 64
    writer.write([], model_id=MODEL, delete_ids=["r0", "r1"])
    assert {i for i, _ in reader.vector_search(everyone, vectors[0], 100)} == {f"r{i}" for i in range(2, 64)}
    assert reader._cache.dead == 2 and reader._cache.size == 64  # 2 of 64: masked, not yet compacted
    writer.write([], model_id=MODEL, delete_ids=[f"r{i}" for i in range(2, 10)])
    found = reader.vector_search(everyone, vectors[20], 100)
    assert found[0] == ("r20", pytest.approx(1.0, abs=1e-5)) and len(found) == 54
    assert reader._cache.size == 54 and reader._cache.dead == 0  # compacted
    assert reader.vector_search(everyone, vectors[20], K) == search(reader, everyone, vectors[20], fast=False)
    reader.close()
    writer.close()


@pytest.mark.parametrize("appended", [3, 40])  # a few new rows are tested one by one, more with masks
def test_remembered_scopes_follow_appended_records(tmp_path: Path, appended: int) -> None:
    """A scope's positions are carried over a write that only appends records (new rows checked against the scope,
    not every row again; the positions grow in place in a buffer with room); a write that changes an existing
    record's scope or deletes one recomputes them."""
    rnd, rng = random.Random(8), np.random.default_rng(8)
    with fill(tmp_path / "m.db") as store:
        selections = [random_selection(rnd) for _ in range(6)] + [Selection(user_id="alice"),
                                                                  Selection(user_id="bob", types=("Fact",))]
        extended = 0
        for step in range(12):
            for selection in selections:  # remembered (the last MEMO of them)
                query = unit(rng)[0]
                assert search(store, selection, query, fast=True) == search(store, selection, query, fast=False)
            if step % 4 == 3:  # an existing record changes scope or is deleted
                victim = rnd.choice(store.select(EVERYTHING))
                if step % 8 == 3:
                    store.write([], model_id=MODEL, delete_ids=[victim.id])
                else:
                    moved = victim.model_copy(update={"scope": victim.scope.model_copy(update={"user_id": "alice"}),
                                                      "status": MemoryStatus.active})
                    store.write([Write(moved, None)], model_id=MODEL)
            else:  # new records, in and out of the remembered scopes
                new = [random_gadget(1000 + 100 * step + i, rnd) for i in range(appended)]
                new.append(record(f"new fact {step}", "Fact", user=rnd.choice(["alice", "bob", "dan"]),
                                  id=f"nf{step}"))
                kept = len(store._cache._memo)
                store.write([Write(r, v) for r, v in zip(new, unit(rng, len(new)), strict=True)], model_id=MODEL)
                store.vector_search(Selection(user_id="nobody-else"), unit(rng)[0], 1)  # syncs the cache
                extended += kept > 0 and len(store._cache._memo) >= kept
                cache = store._cache
                for key, pos in cache._memo.items():  # every carried scope holds exactly the rows a new mask finds
                    if key.startswith("scope:"):
                        mask = cache._scope_mask(cache._memo_selections[key], 0, cache.size)
                        assert pos.tolist() == (np.flatnonzero(mask).tolist() if mask is not None else [])
        assert extended >= 6  # the remembered scopes were carried over the appending writes
        records = store.select(EVERYTHING)
        vectors = store.vectors([r.id for r in records])
        for selection in selections:
            query = unit(rng)[0]
            fast = search(store, selection, query, fast=True)
            assert [i for i, _ in fast] == reference(records, vectors, selection, query)
