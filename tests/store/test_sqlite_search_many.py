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
from mnemir.store.sqlite import quantised as quantised_module
from mnemir.store.sqlite import vectors as vectors_module

MODEL, DIM = "test-many-64", 64


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _with_ties(rng: np.random.Generator, n: int, repeats: int) -> np.ndarray:
    """``n`` unit vectors and ``repeats`` copies of some of them: exact ties, at the k-th place too."""
    vectors = _unit(rng, n)
    return np.vstack([vectors, vectors[rng.integers(0, n, repeats)]]) if repeats else vectors


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), repeats=st.integers(0, 40), k=st.integers(1, 12),
       queries=st.integers(2, 9))
def test_many_exact_searches_are_the_searches_one_by_one(tmp_path_factory: object, seed: int, n: int, repeats: int,
                                                        k: int, queries: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = _with_ties(rng, n, repeats)
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
    vectors = _with_ties(rng, n, repeats)
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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 150), repeats=st.integers(0, 40), k=st.integers(1, 12),
       spiky=st.integers(0, 20), later=st.integers(0, 30))
def test_the_int8_first_pass_keeps_the_exact_answers(tmp_path_factory: object, seed: int, n: int, repeats: int,
                                                     k: int, spiky: int, later: int) -> None:
    """From ``QUANTISED_FROM`` rows the candidates come from the rows' int8 copy and its error bounds
    (:mod:`mnemir.store.sqlite.quantised`): the answers are the row-by-row search's, ties at the k-th place
    included, for one query and for many, after rows were appended, given new vectors and deleted (the copy follows
    the cache), and for vectors with components far beyond the copy's range (clipped: a looser bound, never a lost
    row)."""
    if quantised_module.kernels() is None:
        return  # numkong not installed: the float32 narrowing answers (tested above)
    rng = np.random.default_rng(seed)
    vectors = _with_ties(rng, n, repeats)
    if spiky:  # one large component: clipped in the copy made from the others
        spikes = _unit(rng, spiky)
        spikes[np.arange(spiky), rng.integers(0, DIM, spiky)] = 5.0
        vectors = np.vstack([vectors, spikes / np.linalg.norm(spikes, axis=1, keepdims=True)])
    path = Path(tmp_path_factory.mktemp("int8")) / "q.db"  # type: ignore[attr-defined]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    saved = vectors_module.QUANTISED_FROM, vectors_module.NARROW_ONE_FROM

    def write(rows: np.ndarray, start: int) -> None:
        store.write([Write(record(f"r {i}", "Fact", {"entity": f"e{i % 3}"}, user="u" if i % 4 else "v",
                                  id=f"r{i:04d}"), v) for i, v in enumerate(rows, start=start)], model_id=MODEL)

    def check() -> None:  # 4 queries (the int8 first pass) or 12 (the float32 product narrows)
        asked = [*_unit(rng, 3 if seed % 2 else 11), vectors[rng.integers(0, len(vectors))]]
        for selection in (Selection(user_id=ANY), Selection(user_id="u"),
                          Selection(user_id="v", where=parse_filter({"entity": "e1"}, ONTOLOGY))):
            vectors_module.QUANTISED_FROM, vectors_module.NARROW_ONE_FROM = 10**9, 10**9
            exact = [store.vector_search(selection, q, k) for q in asked]
            vectors_module.QUANTISED_FROM, vectors_module.NARROW_ONE_FROM = 0, 0
            assert [store.vector_search(selection, q, k) for q in asked] == exact
            assert store.vector_search_many(selection, asked, k) == exact

    try:
        write(vectors, 0)
        check()
        if len(vectors) > k:  # (k rows or fewer: every row is the answer, nothing narrowed)
            assert store._cache.quantised is not None and store._cache.quantised.upto == store._cache.size
        if later:  # appended rows, rows given new vectors, deleted rows: the copy follows
            write(_unit(rng, later), len(vectors))
            write(_unit(rng, min(later, len(vectors))), 0)
            check()
            store.write([], model_id=MODEL, delete_ids=[f"r{i:04d}" for i in range(0, len(vectors), 2)])
            check()
    finally:
        vectors_module.QUANTISED_FROM, vectors_module.NARROW_ONE_FROM = saved
        store.close()


def test_the_int8_bound_holds_for_every_row() -> None:
    """The bound itself: for random, clipped and repeated rows, |exact - approximate| <= the row's bound."""
    if quantised_module.kernels() is None:
        return
    rng = np.random.default_rng(7)
    rows = _unit(rng, 500)
    rows[:20, 0] = 3.0
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    factor = quantised_module.Quantised.of(rows[20:], 480).factor  # from rows without the large components
    copy = quantised_module.Quantised(DIM, factor)
    copy.follow(rows, 500)
    queries = np.vstack([_unit(rng, 30), rows[:5]])
    levels, qerr, _ = copy.quantise(queries)
    approx = (levels.astype(np.int64) @ copy.rows[:500].astype(np.int64).T) / copy.factor**2
    bound = np.linalg.norm(queries, axis=1)[:, None] * copy.err[None, :500] + qerr[:, None] * copy.norm[None, :500]
    exact = queries.astype(np.float64) @ rows.astype(np.float64).T
    assert np.all(np.abs(exact - approx) <= bound + 1e-12)
    assert copy.err[:20].min() > copy.err[20:500].max()  # clipped rows: looser bounds


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 12), spread=st.sampled_from([0.001, 0.01, 0.05, 1.0]))
def test_the_int8_candidates_hold_every_row_of_the_best_k(seed: int, k: int, spread: float) -> None:
    """With no margin at all: every row whose exact score reaches the k-th best is a candidate, also where the
    scores lie closer together than the int8 copy can tell apart (rows a small step from one vector)."""
    if quantised_module.kernels() is None:
        return
    rng = np.random.default_rng(seed)
    base = _unit(rng, 1)
    rows = base + np.float32(spread) * _unit(rng, 300)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    copy = quantised_module.Quantised.of(rows, 300)
    queries = np.vstack([base, _unit(rng, 2), rows[:1]])
    pos = np.arange(300, dtype=np.intp)[:: 1 + seed % 2]  # every row, or every other (gathered)
    found = copy.candidates(queries, pos, whole=seed % 2 == 0, everything=seed % 2 == 0, k=k, margin=0.0)
    assert found is not None
    exact = queries.astype(np.float64) @ rows[pos].astype(np.float64).T
    for scores, near in zip(exact, found, strict=True):
        kth = np.sort(scores)[::-1][k - 1]
        assert set(np.flatnonzero(scores >= kth - 1e-9)) <= set(near.tolist())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8))
def test_a_repeated_int8_pass_answers_as_a_fresh_copy_after_rows_change(seed: int, k: int) -> None:
    """The whole copy's products for a query are kept for the next search with that query (a recall searches every
    type, then what was said); a row re-quantised or appended in between is seen, never an old product."""
    if quantised_module.kernels() is None:
        return
    rng = np.random.default_rng(seed)
    rows = _unit(rng, 400)
    copy = quantised_module.Quantised.of(rows, 300)
    query = _unit(rng, 1)
    every, some = np.arange(300, dtype=np.intp), np.arange(0, 300, 2, dtype=np.intp)

    def same_as_fresh(matrix: np.ndarray, size: int, pos: np.ndarray, everything: bool) -> None:
        fresh = quantised_module.Quantised(DIM, copy.factor)
        fresh.follow(matrix, size)
        got = copy.candidates(query, pos, whole=True, everything=everything, k=k, margin=0.0)
        want = fresh.candidates(query, pos, whole=True, everything=everything, k=k, margin=0.0)
        assert got is not None and want is not None
        assert [g.tolist() for g in got] == [w.tolist() for w in want]

    same_as_fresh(rows, 300, every, True)
    same_as_fresh(rows, 300, some, False)  # the same products, other columns
    changed = rows.copy()
    changed[:50] = query  # the best rows now: a stale product would miss them
    copy.replace(np.arange(50, dtype=np.intp), changed[:50])
    same_as_fresh(changed, 300, some, False)
    copy.follow(changed, 400)
    same_as_fresh(changed, 400, np.arange(400, dtype=np.intp), True)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 90), repeats=st.integers(0, 30), k=st.integers(1, 6),
       chunk=st.integers(1, 5))
def test_queries_rescored_together_across_chunks_and_dtypes(tmp_path_factory: object, seed: int, n: int,
                                                            repeats: int, k: int, chunk: int) -> None:
    """Every query's candidates are rescored in one einsum and one sort (decision 0125): over several chunks of
    queries (``MANY_CHUNK``), with exact ties, and with queries of another dtype beside float32 ones (einsum scores
    a float64 query in float64: those are rescored one by one), the answers are ``top_k``'s one by one."""
    rng = np.random.default_rng(seed)
    vectors = _with_ties(rng, n, repeats)
    path = Path(tmp_path_factory.mktemp("rescored")) / "m.db"  # type: ignore[attr-defined]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    old = vectors_module.MANY_CHUNK
    vectors_module.MANY_CHUNK = chunk
    try:
        store.write([Write(record(f"r {i}", "Fact", user="u", id=f"r{i:04d}"), v) for i, v in enumerate(vectors)],
                    model_id=MODEL)
        asked = [*_unit(rng, 7), *vectors[rng.integers(0, len(vectors), 4)]]
        selection = Selection(user_id="u")
        assert store.vector_search_many(selection, asked, k) == [store.vector_search(selection, q, k) for q in asked]
        cache = store._cache
        pos = np.arange(cache.size)
        mixed = [q.astype(np.float64) if i % 3 == 0 else q for i, q in enumerate(asked)]
        assert cache.top_k_many(pos, mixed, k) == [cache.top_k(pos, q, k) for q in mixed]
    finally:
        vectors_module.MANY_CHUNK = old
        store.close()
