"""The SQLite store's approximate index for large scopes (mnemir.store.sqlite.ann): a cache beside the store that
answers like exact scoring on small stores, survives restarts, follows other writers, and is rebuilt when its file is
corrupt. The index is forced on these small stores (min_candidates 1, speed check off): on them the graph search is
as good as exhaustive, so its answers must equal exact scoring's, ids and scores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, record, unit

from mnemir.ir import MemoryStatus
from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore, ann

pytest.importorskip("usearch")  # ann imports usearch only when an index is made

N = 400
K = 10
ALICE = Selection(user_id="alice")


@pytest.fixture(autouse=True)
def force_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "REQUIRE_FASTER", False)  # a 400-row store: exact scoring is faster, use it anyway


def fill(path: Path, n: int = N, seed: int = 5) -> list[str]:
    store = SQLiteStore(path, ontology=ONTOLOGY)
    records = [record(f"fact {i}", "Fact", {"entity": f"e{i % 4}"}, user="alice" if i % 5 else "bob", id=f"f{i:04d}")
               for i in range(n)]
    store.write([Write(r, v) for r, v in zip(records, unit(np.random.default_rng(seed), n), strict=True)],
                model_id=MODEL)
    store.close()
    return [r.id for r in records]


def open_ann(path: Path) -> SQLiteStore:
    return SQLiteStore(path, ontology=ONTOLOGY, ann=True, ann_min_candidates=1)


def exact(path: Path, selection: Selection, query: np.ndarray, k: int = K) -> list[tuple[str, float]]:
    store = SQLiteStore(path, ontology=ONTOLOGY)
    try:
        return store.vector_search(selection, query, k)
    finally:
        store.close()


def queries(n: int = 20, seed: int = 9) -> np.ndarray:
    return unit(np.random.default_rng(seed), n)


def test_index_answers_like_exact_scoring(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    store = open_ann(path)
    info = store.build_ann_index()
    assert info["usable"] and info["count"] == N and info["recall"] >= 0.98
    entity = Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY))
    for q in queries():
        for selection in (ALICE, entity):
            got = store.vector_search(selection, q, K)
            assert store.last_search_path == "ann"
            assert got == exact(path, selection, q)
    store.close()


def test_survives_restart_without_rebuilding(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    first = open_ann(path)
    first.build_ann_index()
    first.close()
    assert Path(f"{path}.ann").exists()
    again = open_ann(path)
    q = queries(1)[0]
    assert again.vector_search(ALICE, q, K) == exact(path, ALICE, q)
    assert again.last_search_path == "ann" and again._ann is not None and again._ann.builds == 0  # loaded
    again.close()


def test_corrupt_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    first = open_ann(path)
    first.build_ann_index()
    first.close()
    index_file = Path(f"{path}.ann")
    data = bytearray(index_file.read_bytes())
    for at in range(len(data) // 2, len(data) // 2 + 64):  # flip bytes in the middle of the graph
        data[at] ^= 0xFF
    index_file.write_bytes(bytes(data))
    again = open_ann(path)
    for q in queries(5):
        assert again.vector_search(ALICE, q, K) == exact(path, ALICE, q)
    assert again._ann is not None and again._ann.builds == 1
    again.close()
    index_file.write_bytes(b"not an index at all")
    third = open_ann(path)
    q = queries(1)[0]
    assert third.vector_search(ALICE, q, K) == exact(path, ALICE, q) and third.last_search_path == "ann"
    third.close()


def test_follows_writes_and_deletes_of_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = fill(path)
    reader = open_ann(path)
    reader.build_ann_index()
    q = queries(1)[0]
    before = reader.vector_search(ALICE, q, K)
    writer = SQLiteStore(path, ontology=ONTOLOGY)  # another connection: what another process does
    near = [record(f"new {i}", "Fact", id=f"new{i}") for i in range(3)]
    close_to_q = [(q + 0.01 * i * unit(np.random.default_rng(i))[0]) for i in range(3)]
    writer.write([Write(r, v / np.linalg.norm(v)) for r, v in zip(near, close_to_q, strict=True)], model_id=MODEL)
    gone = before[3][0]
    moved = before[4][0]
    writer.write([Write(writer.fetch([moved])[0], -q)], model_id=MODEL)  # its vector now points away
    writer.write([], model_id=MODEL, delete_ids=[gone])
    writer.close()
    after = reader.vector_search(ALICE, q, K)
    assert reader.last_search_path == "ann"
    assert after == exact(path, ALICE, q)
    assert {"new0", "new1", "new2"} <= {i for i, _ in after}
    assert gone not in {i for i, _ in after} and moved not in {i for i, _ in after}
    assert reader._ann is not None and reader._ann.builds == 1  # caught up, not rebuilt
    assert len(ids) == N
    reader.close()


def test_never_fewer_hits_than_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the index proposes too few rows inside the selection, the search is exact."""
    path = tmp_path / "m.db"
    fill(path)
    store = open_ann(path)
    store.build_ann_index()
    monkeypatch.setattr(ann, "OVERSAMPLE", 0.0)  # propose k rows of the whole store only
    monkeypatch.setattr(ann, "RESCORED", 1)
    archived = Selection(user_id="alice", statuses=(MemoryStatus.active,),
                         where=parse_filter({"entity": {"$in": ["e1", "e2"]}}, ONTOLOGY))
    for q in queries(5):
        got = store.vector_search(archived, q, K)
        assert got == exact(path, archived, q)
        assert len(got) == K
    assert store.last_search_path.startswith("exact")
    store.close()


def test_selective_filters_stay_exact(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    store = SQLiteStore(path, ontology=ONTOLOGY, ann=True, ann_min_candidates=N)  # only the whole store qualifies
    store.build_ann_index()
    q = queries(1)[0]
    store.vector_search(Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY)), q, K)
    assert store.last_search_path == "exact"
    store.close()
