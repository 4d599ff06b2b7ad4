"""The compiled SQL selection agrees with the Python reference (``Selection.admits`` + ``filters.matches``).

A store of random records (every property kind, both as an indexed core property and as JSON) is queried
with random selections and random ``where`` trees; the ids the store returns must be exactly the ids the
reference picks.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_cases import BACKENDS, DAYS, MODEL, ONTOLOGY, STAMPS, T0, open_backend, random_gadget, record, unit

from mnemir.ir import MemIR, MemoryStatus
from mnemir.store.base import ANY, Selection, Store, Write
from mnemir.store.filters import matches, parse_filter

N_RECORDS = 120
GADGET = ONTOLOGY.resolve("Gadget").properties
WORDS = st.sampled_from(["alpha", "beta", "gamma", "咖啡", "上海", "ab", "B", "alphax", "beta beta", "x"])
NEEDLES = st.sampled_from(["alpha", "lph", "咖", "上海", "a", "beta", "x", "B", "zz"])
TIMES = st.sampled_from([*STAMPS, *DAYS, "2026-11-05T12:30:01Z", "2026-12-31"])
VALUES = {
    "str": WORDS,
    "int": st.integers(-3, 4),
    "float": st.sampled_from([-1.5, 0.0, 0.5, 1.0, 2.25, 3.0]),
    "bool": st.booleans(),
    "datetime": TIMES,
    "date_or_datetime": TIMES,
    "list": WORDS,
    "json": st.one_of(WORDS, st.integers(0, 3), st.booleans(), st.just(1.5)),
}
RECORD_FIELDS = {
    "@type": st.sampled_from(["Gadget", "Fact"]),
    "@speaker": st.sampled_from(["user", "assistant", "use"]),
    "@session_id": st.sampled_from(["s1", "s2"]),
    "@creator": st.sampled_from(["rules", "llm"]),
    "@created_at": TIMES,
    "@updated_at": TIMES,
    "@valid_from": TIMES,
    "@valid_to": TIMES,
}
ORDERED = ("int", "float", "datetime", "date_or_datetime")
SUBSTRING = ("str", "list", "json")


def _kind(field: str) -> str:
    if field.startswith("@"):
        return "datetime" if field.endswith("_at") or field.startswith("@valid") else "str"
    return GADGET[field].kind


def _values(field: str) -> st.SearchStrategy[Any]:
    return RECORD_FIELDS[field] if field.startswith("@") else VALUES[_kind(field)]


@st.composite
def comparison(draw: st.DrawFn) -> dict[str, Any]:
    field = draw(st.sampled_from([*GADGET, *RECORD_FIELDS]))
    kind = _kind(field)
    ops = ["$eq", "$ne", "$in", "$nin", "$exists"] + (["$gt", "$gte", "$lt", "$lte"] if kind in ORDERED else [])
    ops += ["$contains"] if kind in SUBSTRING else []
    op = draw(st.sampled_from(ops))
    if op == "$exists":
        return {field: {op: draw(st.booleans())}}
    if op in ("$in", "$nin"):
        return {field: {op: draw(st.lists(_values(field), max_size=3))}}
    if op == "$contains":
        return {field: {op: draw(NEEDLES)}}
    value = draw(_values(field))
    return {field: value} if op == "$eq" and draw(st.booleans()) else {field: {op: value}}


FILTERS = st.recursive(
    comparison(),
    lambda inner: st.one_of(
        st.builds(lambda items: {"$and": items}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda items: {"$or": items}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda item: {"$not": item}, inner),
    ),
    max_leaves=5,
)


@st.composite
def selections(draw: st.DrawFn) -> Selection:
    where = draw(st.one_of(st.none(), FILTERS))
    valid_at = draw(st.one_of(st.none(), st.integers(0, 70 * 24).map(lambda h: T0 + timedelta(hours=h))))
    return Selection(
        user_id=draw(st.sampled_from([ANY, "alice", "bob", None])),
        agent_id=draw(st.sampled_from([ANY, ANY, None, "a1"])),
        session_id=draw(st.sampled_from([ANY, ANY, None, "s2"])),
        types=draw(st.sampled_from([None, ("Gadget",), ("Fact",), ()])),
        statuses=tuple(draw(st.sets(st.sampled_from(list(MemoryStatus)), min_size=1))),
        where=parse_filter(where, ONTOLOGY),
        ids=draw(st.one_of(st.none(), st.lists(st.integers(0, N_RECORDS + 5).map(lambda i: f"g{i:03d}"),
                                               max_size=30).map(tuple))),
        valid_at=valid_at,
    )


def reference(records: list[MemIR], selection: Selection) -> set[str]:
    return {
        r.id for r in records
        if selection.admits(r) and matches(selection.where, r)  # admits: scope, types, statuses, ids, valid_at
    }


class Filled(NamedTuple):
    store: Store
    records: list[MemIR]

    def __repr__(self) -> str:  # Hypothesis prints the arguments of a failing example
        return f"Filled({self.store!r}, {len(self.records)} records)"


@pytest.fixture(scope="module", params=BACKENDS)
def filled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Filled]:
    rnd = random.Random(7)
    records = [random_gadget(i, rnd) for i in range(N_RECORDS)]
    records.append(record("a plain fact", "Fact", {"entity": "上海"}, id="f000"))
    directory: Path = tmp_path_factory.mktemp("filters")
    store = open_backend(request.param, directory)
    vectors = unit(np.random.default_rng(7), len(records))
    store.write([Write(r, v) for r, v in zip(records, vectors, strict=True)], model_id=MODEL)
    yield Filled(store, records)
    store.close()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(selection=selections())
def test_sql_selection_equals_python_reference(filled: Filled, selection: Selection) -> None:
    store, records = filled
    want = reference(records, selection)
    got = [r.id for r in store.select(selection)]
    assert len(got) == len(set(got))
    assert set(got) == want
    assert store.count(selection) == len(want)


def test_the_random_store_exercises_both_outcomes(filled: Filled) -> None:
    """Guard against a vacuous equivalence test: typical filters select some records but not all."""
    store, records = filled
    for where in ({"tags": "alpha"}, {"labels": {"$contains": "beta"}}, {"size": {"$gte": 1}},
                  {"ratio": {"$lt": 1}}, {"due": {"$lte": "2026-12-04"}}, {"extra": {"$ne": "alpha"}}):
        selection = Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=parse_filter(where, ONTOLOGY))
        n = store.count(selection)
        assert 0 < n < len(records), where
        assert n == len(reference(records, selection))


@pytest.mark.parametrize(("where", "expected"), [
    ({"tags": "alpha"}, "list membership"),
    ({"tags": {"$ne": "alpha"}}, "not a member, or missing"),
    ({"note": {"$contains": "lph"}}, "substring"),
    ({"ratio": {"$gt": 0}}, "numeric comparison on a JSON property"),
    ({"weight": {"$lte": 0.5}}, "numeric comparison on a core property"),
    ({"extra": "alpha"}, "JSON value: equal string or list holding it"),
])
def test_named_cases_match_reference(filled: Filled, where: dict[str, Any],
                                      expected: str) -> None:
    """A few cases named by the rule they check (core property `tags`, JSON properties `note`, `extra`)."""
    store, records = filled
    selection = Selection(user_id=ANY, statuses=tuple(MemoryStatus), where=parse_filter(where, ONTOLOGY))
    assert {r.id for r in store.select(selection)} == reference(records, selection), expected
