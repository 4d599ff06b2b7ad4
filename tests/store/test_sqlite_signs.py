"""Sign codes with exact rescoring (mnemir.store.sqlite.signs): the approximate path for large candidate sets of a
SQLite store opened with ``ann=True``. Every score it returns is exact, its recall is calibrated (or it is not used),
it follows writes, and it never returns fewer hits than exist. The threshold is lowered on these small stores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from store_cases import ONTOLOGY, record

from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore, signs

pytest.importorskip("usearch")  # ann=True makes the (unused here) HNSW index object

MODEL, DIM, N, K = "test-clustered-256", 256, 3000, 10
ALICE = Selection(user_id="alice")


def clustered(rng: np.random.Generator, n: int, centres: np.ndarray) -> np.ndarray:
    v = centres[rng.integers(0, len(centres), n)] + rng.standard_normal((n, DIM)).astype(np.float32) / np.sqrt(DIM)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def centres() -> np.ndarray:
    c = np.random.default_rng(1).standard_normal((40, DIM)).astype(np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path: Path, centres: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> SQLiteStore:
    monkeypatch.setattr(signs, "MIN_CANDIDATES", 100)  # calibrate on a 3,000-row store
    monkeypatch.setattr(signs, "DEPTHS", (25, 50, 100, 200, 400, 800))  # ... with depths well below its size
    s = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY)
    vectors = clustered(np.random.default_rng(2), N, centres)
    s.write([Write(record(f"fact {i}", "Fact", {"entity": f"e{i % 3}"}, id=f"f{i:05d}"), v)
             for i, v in enumerate(vectors)], model_id=MODEL)
    s.close()
    opened = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY, ann=True)
    opened.sign_min_candidates = 500
    return opened


def exact(store: SQLiteStore, selection: Selection, q: np.ndarray, k: int = K) -> list[tuple[str, float]]:
    ann, store._ann = store._ann, None
    try:
        return store.vector_search(selection, q, k)
    finally:
        store._ann = ann


def test_large_candidate_sets_use_the_codes_with_exact_scores(store: SQLiteStore, centres: np.ndarray) -> None:
    entity = Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY))
    found, truth = [], []
    for q in clustered(np.random.default_rng(3), 20, centres):
        for selection in (ALICE, entity):
            got = store.vector_search(selection, q, K)
            assert store.last_search_path == "signs"
            want = exact(store, selection, q)
            assert len(got) == K
            scores = dict(want)
            held = store.vectors([i for i, _ in got])
            for mid, score in got:  # rescored exactly: the cosine of the stored vector
                assert score == pytest.approx(float(held[mid] @ q), abs=1e-5)
                assert mid not in scores or score == pytest.approx(scores[mid], abs=1e-5)
            found.append({i for i, _ in got})
            truth.append({i for i, _ in want})
    plan = store._cache.sign_plan
    assert plan is not None and plan.usable and plan.depth < N // 2
    assert np.mean([len(f & t) / K for f, t in zip(found, truth, strict=True)]) >= 0.98


def test_small_candidate_sets_stay_exact(store: SQLiteStore, centres: np.ndarray) -> None:
    q = clustered(np.random.default_rng(4), 1, centres)[0]
    few = Selection(user_id="alice", ids=tuple(f"f{i:05d}" for i in range(50)))
    assert store.vector_search(few, q, K) == exact(store, few, q)
    assert store.last_search_path == "exact"


def test_codes_follow_writes_and_deletes(store: SQLiteStore, centres: np.ndarray) -> None:
    q = clustered(np.random.default_rng(5), 1, centres)[0]
    store.vector_search(ALICE, q, K)  # codes built
    assert store._cache.signs is not None
    store.write([Write(record("new", "Fact", {"entity": "e9"}, id="new"), q)], model_id=MODEL)
    assert store.vector_search(ALICE, q, 1)[0][0] == "new"
    assert store.last_search_path == "signs"
    other = clustered(np.random.default_rng(6), 1, centres)[0]
    store.write([Write(record("new", "Fact", {"entity": "e9"}, id="f00007"), other)], model_id=MODEL)  # replaced
    assert store.vector_search(ALICE, other, 1)[0][0] == "f00007"
    store.write([], model_id=MODEL, delete_ids=["new", "f00007"])
    assert {"new", "f00007"}.isdisjoint(i for i, _ in store.vector_search(ALICE, q, 50))
    assert {"new", "f00007"}.isdisjoint(i for i, _ in store.vector_search(ALICE, other, 50))


def test_never_fewer_hits_than_exist(store: SQLiteStore, centres: np.ndarray) -> None:
    q = clustered(np.random.default_rng(7), 1, centres)[0]
    got = store.vector_search(ALICE, q, N + 5)
    assert store.last_search_path == "signs"
    assert sorted(i for i, _ in got) == sorted(i for i, _ in exact(store, ALICE, q, N + 5))


def test_uncalibrated_codes_are_not_used(store: SQLiteStore, centres: np.ndarray,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signs, "TARGET_RECALL", 1.0)  # unreachable with the margin: the codes are refused
    q = clustered(np.random.default_rng(8), 1, centres)[0]
    assert store.vector_search(ALICE, q, K) == exact(store, ALICE, q)
    plan = store._cache.sign_plan
    assert plan is not None and not plan.usable
    assert store.last_search_path != "signs"


def test_nearest_keeps_exactly_depth_rows_ties_by_index() -> None:
    dist = np.array([5, 1, 3, 3, 3, 0, 7], dtype=np.uint16)
    assert sorted(signs.nearest(dist, 3).tolist()) == [1, 2, 5]
    assert sorted(signs.nearest(dist, 4).tolist()) == [1, 2, 3, 5]
    assert sorted(signs.nearest(dist, 10).tolist()) == list(range(7))
    codes = signs.encode(np.array([[1.0, -1.0] * 40], dtype=np.float32), np.zeros(80, dtype=np.float32))
    assert codes.shape == (2, 1) and signs.distances(codes, codes[:, 0]).tolist() == [0]


def test_many_searches_by_sign_codes_are_the_searches_one_by_one(store: SQLiteStore, centres: np.ndarray) -> None:
    """The batched search gathers a scope's codes once; every query still gets exactly its own answer."""
    entity = Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY))
    few = Selection(user_id="alice", ids=tuple(f"f{i:05d}" for i in range(0, N, 4)))  # a quarter: codes gathered
    queries = list(clustered(np.random.default_rng(4), 12, centres))
    for selection in (ALICE, entity, few):
        one = [store.vector_search(selection, q, K) for q in queries]
        assert store.last_search_path == "signs"
        assert store.vector_search_many(selection, queries, K) == one
        assert store.last_search_path == "signs"
