"""The governor's index of a batch's records (mnemir.lifecycle.governor._Batch): it finds exactly the records a
scan with the store's filter semantics finds, for any filter, whether or not the filter has an equality to look up."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from mnemir.ir import MemIR, MemoryStatus
from mnemir.lifecycle.governor import _Batch, _found_by
from mnemir.ontology import Ontology
from mnemir.store.base import LIVE_STATUSES, Selection
from mnemir.store.filters import parse_filter

ONTOLOGY = Ontology()
ENTITIES = ["Ana", "Ben", "ana", "Cleo", "1", "2"]


def fact(i: int, rnd: random.Random) -> MemIR:
    props = {"entity": rnd.choice(ENTITIES), "attribute": rnd.choice(["job", "home", "pet"]),
             "value": rnd.choice(["x", "y"]), "confidence": rnd.choice([0.5, 0.9, 1.0])}
    return MemIR.model_validate({"id": f"f{i}", "content": {"text": f"fact {i}"}, "type": "Fact", "properties": props,
                                 "scope": {"user_id": rnd.choice(["alice", "bob"])},
                                 "status": rnd.choice([MemoryStatus.active, MemoryStatus.superseded])})


def test_found_by_equals_a_scan() -> None:
    rnd = random.Random(3)
    batch = _Batch()
    records = [fact(i, rnd) for i in range(200)]
    for r in records:
        batch.append(r, np.ones(4, dtype=np.float32))
    wheres = [{"entity": "Ana"}, {"entity": {"$in": ["Ana", "ana", "1"]}}, {"entity": "nobody"},
              {"entity": {"$in": ["Ben"]}, "attribute": "job"}, {"attribute": {"$ne": "job"}},
              {"confidence": {"$gte": 0.9}}, {"$or": [{"entity": "Cleo"}, {"value": "x"}]},
              {"confidence": 1.0, "entity": {"$in": ["Ben", "Cleo"]}}]
    checked = 0
    for where in wheres:
        for user in ("alice", "bob"):
            selection = Selection(user_id=user, types=("Fact",), statuses=LIVE_STATUSES,
                                  where=parse_filter(where, ONTOLOGY, ("Fact",)))
            want = [r.id for r in records if _found_by(selection, r)]
            assert [r.id for r, _ in batch.found_by(selection)] == want
            checked += len(want)
    assert checked > 100  # not vacuous


def test_a_batch_looks_up_what_each_record_would_alone(tmp_path: Path) -> None:
    """The governor reads a whole batch's look-ups before deciding (``Governor._look_up``: vector searches per
    scope, selects, fetches and vectors in one read each); every record must get exactly what its own calls to the
    store return: the same neighbours and similarities, key-matched and rule-matched records, in the same order."""
    from mnemir.lifecycle import LifecycleConfig
    from mnemir.lifecycle.governor import KEY_LIMIT, NEIGHBOURS, Governor
    from mnemir.store.base import Write
    from mnemir.store.sqlite import SQLiteStore

    rnd, rng = random.Random(5), np.random.default_rng(5)
    store = SQLiteStore(tmp_path / "m.db", ontology=ONTOLOGY)
    try:
        stored = [fact(i, rnd) for i in range(150)]
        vectors = rng.standard_normal((len(stored), 16)).astype(np.float32)
        vectors[100:110] = vectors[:10]  # repeated vectors: tied neighbours
        store.write([Write(r, v) for r, v in zip(stored, vectors, strict=True)], model_id="m")
        batch = [fact(1000 + i, rnd).model_copy(update={"status": MemoryStatus.active}) for i in range(40)]
        known = {r.id: v for r, v in zip(batch, rng.standard_normal((len(batch), 16)).astype(np.float32),
                                         strict=True)}
        known[batch[0].id] = vectors[3]
        governor = Governor(store, ONTOLOGY, None, LifecycleConfig())  # type: ignore[arg-type]
        looked = governor._look_up(batch, known)
        compared = 0
        for record in batch:
            scope = governor._scope(record, (record.type,))
            alone = {mid: float(s) for mid, s in store.vector_search(scope, known[record.id], NEIGHBOURS)}
            keyed = governor._merge_keyed(record, scope)
            keyed_found = store.select(keyed, limit=KEY_LIMIT) if keyed is not None else []
            candidates = {r.id: r for r in [*store.fetch(list(alone), user=scope.user_id), *keyed_found]}
            for mid, vec in store.vectors([m for m in candidates if m not in alone], user=scope.user_id).items():
                alone[mid] = float(np.dot(vec, known[record.id]))
            sims, found = looked.merge_candidates(record.id, known[record.id])
            assert sims == alone
            assert list(found) == list(candidates) and list(found.values()) == list(candidates.values())
            rules = [store.select(q, limit=KEY_LIMIT) for q in governor._rule_queries(record)]
            assert looked.rule_matches(record.id) == rules
            compared += len(found) + sum(map(len, rules))
        assert compared > 100  # not vacuous
    finally:
        store.close()


def test_a_scopes_neighbours_are_the_items_a_scan_admits_with_their_stacked_vectors() -> None:
    """The batch keeps its vectors in one growing array and checks only the status of the items of a governor's
    scope: the same items, in order, and the same rows ``np.vstack`` gives (also once a vector of another kind
    makes it stack them), for scopes a governor asks and scopes it does not."""
    rnd = random.Random(5)
    rng = np.random.default_rng(5)
    records = [fact(i, rnd) for i in range(70)]  # past the array's first sizes (16, 32, 64)
    vectors: list[object] = [rng.standard_normal(8).astype(np.float32) for _ in records]
    vectors[60] = rng.standard_normal(8)  # float64: from here on the batch stacks its vectors
    scopes = [Selection(user_id=u, types=t, statuses=LIVE_STATUSES) for u in ("alice", "bob")
              for t in (("Fact",), ("Fact", "Hypothesis"), ("Task",))]
    scopes += [Selection(user_id="alice", types=("Fact",), statuses=(MemoryStatus.superseded,)),
               Selection(user_id="bob", types=("Fact",), ids=("f3", "f4", "f9"))]
    batch = _Batch()
    checked = 0
    for record, vector in zip(records, vectors, strict=True):
        batch.append(record, vector)  # type: ignore[arg-type]
        for scope in scopes:
            at = [i for i in batch.of_scope(scope) if batch.admitted(scope, i)]
            assert at == [i for i in range(len(batch.items)) if scope.admits(batch.items[i][0])]
            if at:
                stacked = np.vstack([batch.items[i][1] for i in at])
                assert np.array_equal(batch.matrix(at), stacked) and batch.matrix(at).dtype == stacked.dtype
                checked += 1
    assert checked > 300


def test_a_governor_scope_is_a_slice_of_the_same_items_and_rows() -> None:
    """A governor's scope (one user, one type, only the status checked) is read from rows kept by scope: the same
    items in batch order and the same rows, bit for bit, as the scan above, so the same similarities (the slice is
    what a gather of those rows holds); other selections, and a batch whose vectors stopped being float32 rows, take
    the scan."""
    rnd = random.Random(11)
    rng = np.random.default_rng(11)
    records = [fact(i, rnd) for i in range(90)]  # statuses mixed: some prefixes are sliced, some masked
    vectors: list[object] = [rng.standard_normal(8).astype(np.float32) for _ in records]
    vectors[80] = rng.standard_normal(8)  # float64: from here on there are no kept rows
    governed = [Selection(user_id=u, types=("Fact",), statuses=s) for u in ("alice", "bob")
                for s in (LIVE_STATUSES, (MemoryStatus.superseded,), (MemoryStatus.active,))]
    others = [Selection(user_id="alice", types=("Fact", "Hypothesis"), statuses=LIVE_STATUSES),
              Selection(user_id="bob", types=("Fact",), ids=("f3", "f4"))]
    nobody = Selection(user_id="carol", types=("Task",), statuses=LIVE_STATUSES)
    batch = _Batch()
    sliced = 0
    for record, vector in zip(records, vectors, strict=True):
        batch.append(record, vector)  # type: ignore[arg-type]
        query = rng.standard_normal(8).astype(np.float32)
        for scope in governed:
            found = batch.scope_rows(scope)
            at = [i for i in batch.of_scope(scope) if batch.admitted(scope, i)]
            if batch._rows is None:
                assert found is None
                continue
            assert found is not None and found[0] == at
            if at:
                assert np.array_equal(found[1], batch.matrix(at))
                assert np.array_equal(found[1] @ query, batch.matrix(at) @ query)
                sliced += 1
        assert all(batch.scope_rows(scope) is None for scope in others)
        empty = batch.scope_rows(nobody)
        assert empty is None if batch._rows is None else (empty is not None and empty[0] == [] and not len(empty[1]))
    assert sliced > 200


def test_the_governors_parsed_conditions_equal_parse_filter() -> None:
    """The governor parses each key condition once per batch: the filter it builds is the one ``parse_filter``
    builds from the whole mapping, and a spelling the property refuses is dropped as before."""
    from mnemir.lifecycle import LifecycleConfig
    from mnemir.lifecycle.governor import Governor
    from mnemir.lifecycle.terms import variants

    governor = Governor(None, ONTOLOGY, None, LifecycleConfig())  # type: ignore[arg-type]
    wheres: list[dict[str, Any]] = [
        {"entity": {"$in": variants("Ana")}, "attribute": {"$in": variants("job")}},
        {"entity": {"$in": variants("ana")}},
        {"subject": {"$in": variants("tea")}, "preference_type": {"$in": ["like"]}},
        {"entity": {"$in": ["1", 1]}, "attribute": {"$in": variants("job")}}]
    for _ in range(2):  # the second time from what the first parsed
        for where in wheres:
            types = ("Preference",) if "subject" in where else ("Fact", "Hypothesis")
            assert governor._filter(where, types) == parse_filter(where, ONTOLOGY, types)
    refused: dict[str, Any] = {"subject": {"$in": ["tea"]},
                               "preference_type": {"$in": ["Like", "like", "LIKE", "nope"]}}
    for _ in range(2):
        assert governor._filter(refused, ("Preference",)) == governor._cleaned_filter(refused, ("Preference",))
    assert governor._filter({"preference_type": {"$in": ["nope"]}}, ("Preference",)) is None
