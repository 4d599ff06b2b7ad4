"""The governor's index of a batch's records (mnemir.lifecycle.governor._Batch): it finds exactly the records a
scan with the store's filter semantics finds, for any filter, whether or not the filter has an equality to look up."""

from __future__ import annotations

import random

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
