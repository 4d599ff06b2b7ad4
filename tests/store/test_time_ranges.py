"""Range filters on record times agree with the reference at the edges (same second, same day), on every backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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


@pytest.mark.parametrize("year", [1, 999, 1000, 2026, 9999])
def test_a_stored_time_is_fixed_width_and_read_back_at_any_year(year: int) -> None:
    """Times before the year 1000 keep four year digits (strftime's %Y drops the zeros on glibc), so stored text
    still sorts by time and the filter parser reads it back."""
    from mnemir.ontology.types import format_datetime
    from mnemir.store.sqlite.rows import iso

    at = datetime(year, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert iso(at) == f"{year:04d}-03-04T05:06:07.000000Z" and format_datetime(at) == f"{year:04d}-03-04T05:06:07Z"
    earlier, later = (at - timedelta(days=1), at) if year == 9999 else (at, at + timedelta(days=400))
    assert iso(earlier) < iso(later) and format_datetime(earlier) < format_datetime(later)
    assert parse_filter({"@created_at": {"$lt": format_datetime(at)}}, ONTOLOGY) is not None
