"""SQLite: vector searches whose ``where`` names indexed properties only are answered from the vector cache's
property columns (numpy masks, no SQL). They must select exactly what the SQL path and the Python reference select,
on a random store holding every property kind (lists and JSON values included: filters on those fall back to SQL),
also after another writer changed the store."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_cases import MODEL, ONTOLOGY, mutate, random_gadget, record, unit
from test_store_filters_sql import FILTERS

from mnemir.ir import MemIR, MemoryStatus
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import matches, parse_filter
from mnemir.store.sqlite import SQLiteStore, prop_filters

N = 150
QUERY = unit(np.random.default_rng(11))[0]


@pytest.fixture(autouse=True)
def masks_for_every_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are tiny: every filter is 'selective'; take the mask path anyway (the planner has its test)."""
    monkeypatch.setattr(prop_filters, "SQL_BELOW", 0.0)


def build(path: Path) -> tuple[SQLiteStore, list[MemIR]]:
    rnd = random.Random(5)
    records = [random_gadget(i, rnd) for i in range(N)]
    records.append(record("a plain fact", "Fact", {"entity": "上海"}, id="f000"))
    store = SQLiteStore(path, ontology=ONTOLOGY)
    store.write([Write(r, v) for r, v in zip(records, unit(np.random.default_rng(5), len(records)), strict=True)],
                model_id=MODEL)
    return store, records


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[SQLiteStore, list[MemIR], list[int]]:
    store, records = build(tmp_path_factory.mktemp("masks") / "m.db")
    yield store, records, [0, 0]
    store.close()


def both_paths(store: SQLiteStore, selection: Selection) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    fast = store.vector_search(selection, QUERY, 1000)
    store.scope_fast_path = False
    try:
        slow = store.vector_search(selection, QUERY, 1000)
    finally:
        store.scope_fast_path = True
    return fast, slow


SELECTIONS = st.builds(
    lambda where, user, types, statuses: Selection(user_id=user, types=types, statuses=statuses,
                                                   where=parse_filter(where, ONTOLOGY)),
    FILTERS, st.sampled_from([ANY, "alice", "bob", None]), st.sampled_from([None, ("Gadget",), ("Fact",)]),
    st.sets(st.sampled_from(list(MemoryStatus)), min_size=1).map(tuple))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(selection=SELECTIONS)
def test_masks_select_what_sql_and_the_reference_select(filled: tuple[SQLiteStore, list[MemIR], list[int]],
                                                        selection: Selection) -> None:
    store, records, seen = filled
    fast, slow = both_paths(store, selection)
    assert fast == slow  # same ids, same order, same scores
    want = {r.id for r in records if selection.admits(r) and matches(selection.where, r)}
    assert {i for i, _ in fast} == want
    assert selection.where is not None
    seen[store._cache.props.mask(selection.where, store._cache) is None] += 1


def test_masks_answer_most_filters_on_indexed_properties(filled: tuple[SQLiteStore, list[MemIR], list[int]]) -> None:
    """Guard against a vacuous test: the mask path answered a good share of the random filters (the rest named
    record fields, JSON-only properties or properties holding lists)."""
    store, _, seen = filled
    where = parse_filter({"$and": [{"code": {"$in": ["alpha", "betax"]}}, {"$not": {"size": {"$gte": 1}}}]},
                         ONTOLOGY)
    assert store._cache.props.mask(where, store._cache) is not None
    if sum(seen):
        assert seen[0] >= 0.1 * sum(seen), seen


def test_masks_follow_another_writer(tmp_path: Path) -> None:
    store, _ = build(tmp_path / "m.db")
    wheres = [{"code": {"$in": ["alpha", "beta", "gammax"]}}, {"size": {"$gte": 1}}, {"weight": {"$lt": 1.0}},
              {"flag": True}, {"$not": {"made": {"$exists": True}}}, {"due": {"$gte": "2026-12-04"}},
              {"code": {"$contains": "a"}}]
    selections = [Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=parse_filter(w, ONTOLOGY))
                  for w in wheres]
    for s in selections:
        both_paths(store, s)  # the cache is loaded
    mutate(str(tmp_path / "m.db"), seed=3)  # as another process would: rescoping, inserts, hard deletes
    rewritten = store.fetch([r.id for r in store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))][:30])
    writer = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY)
    changed = [r.model_copy(update={"properties": {**r.properties, "code": "alpha", "size": 3}}) for r in rewritten
               if r.type == "Gadget"]
    writer.write([Write(r, None) for r in changed], model_id=MODEL)
    writer.close()
    everything = store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))
    for s in selections:
        fast, slow = both_paths(store, s)
        assert fast == slow
        assert {i for i, _ in fast} == {r.id for r in everything if s.admits(r) and matches(s.where, r)}
        assert store._cache.props.mask(s.where, store._cache) is not None
    store.close()


def test_filterable_properties_are_indexed(tmp_path: Path) -> None:
    """Marking a JSON property filterable indexes it (back-filled on open) and its filters leave SQL."""
    from dataclasses import replace

    from mnemir.ontology import Ontology
    from mnemir.ontology.builtin import BUILTIN_TYPES

    store, records = build(tmp_path / "m.db")
    where = parse_filter({"ratio": {"$gte": 0.5}}, ONTOLOGY)
    assert store._cache.props.mask(where, store._cache) is None  # a JSON-only property: SQL
    store.close()
    gadget = ONTOLOGY.resolve("Gadget")
    marked = replace(gadget, properties={**gadget.properties,
                                         "ratio": replace(gadget.properties["ratio"], filterable=True)})
    onto = Ontology([*BUILTIN_TYPES, marked])
    assert "ratio" in onto.indexed_properties() and "ratio" not in onto.core_properties()
    again = SQLiteStore(tmp_path / "m.db", ontology=onto)
    selection = Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=where)
    fast, slow = both_paths(again, selection)
    assert fast == slow and {i for i, _ in fast} == {r.id for r in records if matches(where, r)}
    assert again._cache.props.mask(where, again._cache) is not None
    again.close()


def test_selective_filters_go_to_sql_by_the_value_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, records = build(tmp_path / "m.db")
    store.vector_search(Selection(user_id=ANY), QUERY, 1)  # the cache is loaded
    props = store._cache.props
    gadgets = [r for r in records if r.type == "Gadget"]
    for value in ("alpha", "betax", "nothing"):
        where = parse_filter({"code": value}, ONTOLOGY)
        assert props.estimate(where) == sum(1 for r in gadgets if r.properties.get("code") == value)
    size = parse_filter({"size": {"$gte": 1}}, ONTOLOGY)
    assert props.estimate(size) == sum(1 for r in gadgets if isinstance(r.properties.get("size"), int | float)
                                       and r.properties["size"] >= 1)
    monkeypatch.setattr(prop_filters, "SQL_BELOW", 0.5)  # "selective": under half the store
    rare = parse_filter({"code": "alpha"}, ONTOLOGY)
    assert props.estimate(rare) < 0.5 * store._cache.size and props.mask(rare, store._cache) is None
    everything = Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=rare)
    fast, slow = both_paths(store, everything)
    assert fast == slow and {i for i, _ in fast} == {r.id for r in records if matches(rare, r)}
    writer = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY)  # rewrites move the counts
    moved = [r.model_copy(update={"properties": {**r.properties, "code": "alpha"}}) for r in gadgets[:40]]
    writer.write([Write(r, None) for r in moved], model_id=MODEL)
    writer.close()
    store.vector_search(Selection(user_id=ANY), QUERY, 1)
    now = {r.id: r for r in store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))}
    assert props.estimate(rare) == sum(1 for r in now.values() if r.properties.get("code") == "alpha")
    store.close()


def test_json_properties_are_indexed_in_the_cache_at_their_first_filter(tmp_path: Path) -> None:
    """A filter on a JSON-only property indexes it in the cache (read once from records.props): it and later filters
    on it are masks, they select what SQL and the reference select, and the column follows another writer."""
    store, _ = build(tmp_path / "m.db")
    wheres = [{"note": {"$in": ["alpha", "betax"]}}, {"count": {"$gte": 1}}, {"ratio": {"$lt": 1.0}}, {"lit": True},
              {"$not": {"seen": {"$exists": True}}}, {"until": {"$gte": "2026-12-04"}}, {"note": {"$contains": "a"}},
              {"$and": [{"note": {"$ne": "alpha"}}, {"code": {"$exists": True}}]}]
    selections = [Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=parse_filter(w, ONTOLOGY))
                  for w in wheres]
    store.vector_search(Selection(user_id=ANY), QUERY, 1)  # the cache is loaded
    props = store._cache.props
    assert selections[0].where is not None and props.mask(selections[0].where, store._cache) is None  # not yet

    def check() -> None:
        everything = store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))
        for s in selections:
            fast, slow = both_paths(store, s)
            assert fast == slow
            assert {i for i, _ in fast} == {r.id for r in everything if s.admits(r) and matches(s.where, r)}
            assert s.where is not None and props.mask(s.where, store._cache) is not None

    check()
    assert {"note", "count", "ratio", "lit", "seen", "until"} <= props.adopted
    assert not {"note", "count"} & props.indexed
    mutate(str(tmp_path / "m.db"), seed=4)  # as another process would: rescoping, inserts, hard deletes
    rewritten = store.fetch([r.id for r in store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))][:30])
    writer = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY)
    changed = [r.model_copy(update={"properties": {**r.properties, "note": "alpha", "count": 3, "seen": None}})
               for r in rewritten if r.type == "Gadget"]
    writer.write([Write(r.model_copy(update={"properties": {k: v for k, v in r.properties.items() if v is not None}}),
                        None) for r in changed], model_id=MODEL)
    writer.close()
    check()
    store.close()


def test_a_json_property_holding_lists_stays_in_sql(tmp_path: Path) -> None:
    store, records = build(tmp_path / "m.db")
    where = parse_filter({"labels": "alpha"}, ONTOLOGY)  # a list property: equality means membership
    selection = Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=where)
    fast, slow = both_paths(store, selection)
    assert fast == slow and {i for i, _ in fast} == {r.id for r in records if matches(where, r)}
    assert "labels" in store._cache.props.adopted and "labels" in store._cache.props.multi
    assert store._cache.props.mask(where, store._cache) is None
    store.close()
