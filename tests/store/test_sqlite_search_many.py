"""The exact path of ``SQLiteStore.vector_search_many`` (mnemir.store.sqlite.vectors.VectorCache.top_k_many): one
matrix product narrows each query's candidates, which are then scored exactly as one search scores them; the
answers are those of the searches one by one, ties at the k-th place included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from store_cases import ONTOLOGY, record

from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore
from mnemir.store.sqlite import vectors as vectors_module

MODEL, DIM = "test-many-64", 64


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), repeats=st.integers(0, 40), k=st.integers(1, 12),
       queries=st.integers(2, 9))
def test_many_exact_searches_are_the_searches_one_by_one(tmp_path_factory: object, seed: int, n: int, repeats: int,
                                                        k: int, queries: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = _unit(rng, n)
    if repeats:  # copies of some vectors: exact ties, at the k-th place too
        vectors = np.vstack([vectors, vectors[rng.integers(0, n, repeats)]])
    path = Path(tmp_path_factory.mktemp("many")) / "m.db"  # type: ignore[attr-defined]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    try:
        store.write([Write(record(f"r {i}", "Fact", {"entity": f"e{i % 3}"}, user="u" if i % 4 else "v", id=f"r{i:04d}"), v)
                     for i, v in enumerate(vectors)], model_id=MODEL)
        asked = [*_unit(rng, queries), vectors[rng.integers(0, len(vectors))]]
        # every row (scored in place, no column dropped), most rows (scored in place, the others' columns dropped),
        # a share under SCORE_ALL_SHARE (the rows gathered first), and rows picked by SQL
        for selection in (Selection(user_id=ANY), Selection(user_id="u"),
                          Selection(user_id="v", where=parse_filter({"entity": "e1"}, ONTOLOGY)),
                          Selection(user_id="u", where=parse_filter({"entity": "e1"}, ONTOLOGY))):
            one = [store.vector_search(selection, q, k) for q in asked]
            assert store.vector_search_many(selection, asked, k) == one
    finally:
        store.close()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), repeats=st.integers(0, 40), k=st.integers(1, 12))
def test_one_narrowed_search_is_the_exact_search(tmp_path_factory: object, seed: int, n: int, repeats: int,
                                                 k: int) -> None:
    """A single query on a large scope is narrowed by a matrix-vector product first (``NARROW_ONE_FROM`` rows and
    up): its answer is the one of the row-by-row search, ties at the k-th place included."""
    rng = np.random.default_rng(seed)
    vectors = _unit(rng, n)
    if repeats:
        vectors = np.vstack([vectors, vectors[rng.integers(0, n, repeats)]])
    path = Path(tmp_path_factory.mktemp("one")) / "o.db"  # type: ignore[attr-defined]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    threshold = vectors_module.NARROW_ONE_FROM
    try:
        store.write([Write(record(f"r {i}", "Fact", {"entity": f"e{i % 3}"}, user="u" if i % 4 else "v", id=f"r{i:04d}"), v)
                     for i, v in enumerate(vectors)], model_id=MODEL)
        asked = [*_unit(rng, 3), vectors[rng.integers(0, len(vectors))]]
        for selection in (Selection(user_id=ANY), Selection(user_id="u"),
                          Selection(user_id="v", where=parse_filter({"entity": "e1"}, ONTOLOGY))):
            vectors_module.NARROW_ONE_FROM = 10**9  # every single search row by row (VectorCache.top_k)
            exact = [store.vector_search(selection, q, k) for q in asked]
            vectors_module.NARROW_ONE_FROM = 0  # every single search narrowed first
            assert [store.vector_search(selection, q, k) for q in asked] == exact
            assert [store.vector_search_many(selection, [q], k)[0] for q in asked] == exact
    finally:
        vectors_module.NARROW_ONE_FROM = threshold
        store.close()
