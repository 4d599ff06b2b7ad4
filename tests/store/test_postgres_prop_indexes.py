"""PostgreSQL: the properties an ontology indexes (core and filterable) of a number or date kind get an expression
index on exactly the expression range filters compile to, and the planner uses it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from store_cases import MODEL, ONTOLOGY, open_backend, record, unit

from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.postgres import prop_indexes


def test_range_filters_use_the_expression_index(tmp_path: Path) -> None:
    store = open_backend("postgres", tmp_path)
    names = [name for name, _ in prop_indexes.wanted(ONTOLOGY)]
    assert len(names) >= 4  # size, weight, flag (numbers); made, due (dates) of the test type; Fact has none
    rng = np.random.default_rng(2)
    records = [record(f"g {i}", "Gadget", {"size": i % 50, "made": f"2026-11-{1 + i % 28:02d}T10:00:00Z"},
                      user="alice" if i % 2 else "bob", id=f"g{i}") for i in range(2000)]
    store.write([Write(r, v) for r, v in zip(records, unit(rng, len(records)), strict=True)], model_id=MODEL)
    plans = []

    def explain(cur):  # type: ignore[no-untyped-def]
        cur.execute("ANALYZE records")
        cur.execute("SET LOCAL enable_seqscan = off")
        for where in ({"size": {"$gte": 48}}, {"made": {"$lt": "2026-11-02"}}):
            from mnemir.store.postgres.store import _where

            sql, p = _where(Selection(user_id="alice", where=parse_filter(where, ONTOLOGY)))
            cur.execute(f"EXPLAIN SELECT r.id FROM records r WHERE {sql}", p.values)
            plans.append("\n".join(row[0] for row in cur.fetchall()))
        return plans

    store._db.write("explain", explain)
    found = store.count(Selection(user_id="alice", where=parse_filter({"size": {"$gte": 48}}, ONTOLOGY)))
    assert found == sum(1 for i in range(2000) if i % 2 and i % 50 >= 48)
    for plan in plans:
        assert any(name in plan for name in names), plan
    store.close()
    again = open_backend("postgres", tmp_path)  # a second open creates nothing
    again.close()
