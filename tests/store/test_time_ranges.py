"""Range filters on record times agree with the reference at the edges (same second, same day), on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, record, unit

from mnemir.store.base import Selection, Store, Write
from mnemir.store.filters import matches, parse_filter

#: 12:30:01 and a half: truncated to seconds it equals the 12:30:01 bound
AT = datetime(2026, 11, 5, 12, 30, 1, 500_000, tzinfo=UTC)


@pytest.mark.parametrize("bound", ["2026-11-05T12:30:01Z", "2026-11-05T12:30:00Z", "2026-11-05T12:30:02Z",
                                   "2026-11-05", "2026-11-04", "2026-11-06"])
@pytest.mark.parametrize("op", ["$gt", "$gte", "$lt", "$lte"])
def test_time_bounds_match_the_reference(store: Store, op: str, bound: str) -> None:
    rec = record("edge", created=AT, id="edge")
    store.write([Write(rec, unit(np.random.default_rng(0))[0])], model_id=MODEL)
    where = parse_filter({"@created_at": {op: bound}}, ONTOLOGY)
    found = [r.id for r in store.select(Selection(user_id="alice", where=where))]
    assert found == (["edge"] if matches(where, store.fetch(["edge"])[0]) else [])
