"""Vector search in PostgreSQL: exact over the SQL-selected rows, HNSW for very large candidate sets.

When the store has an HNSW index (built on request: ``build_ann_index``), a
search first counts its candidates (scope, types, statuses, ``where`` ...) in
the same snapshot, up to ``ann_min_candidates``. Below it (decided by
:func:`mnemir.store.planner.plan_search`, which only this backend uses) the rows are
filtered through the B-tree/GIN indexes and every candidate is scored: the
ordering uses the inner-product operator ``<#>``, which the cosine HNSW index
cannot serve, so this path is exact by construction (vectors are stored
L2-normalised, so inner product = cosine). Above it, the HNSW index (cosine,
``<=>``) is scanned with ``hnsw.iterative_scan`` so that a filter never makes
the result come back short; should it still return fewer than ``k`` rows, the
exact path answers instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mnemir.store.checks import check_query_dim
from mnemir.store.planner import ANN_MIN_CANDIDATES, plan_search
from mnemir.store.postgres import schema
from mnemir.store.sql_filters import Params

Cursor = Any

#: HNSW search breadth: at least this, and 4 x k
EF_SEARCH_MIN = 100
#: how many index tuples an iterative scan may visit at most (pgvector's default is 20 000)
MAX_SCAN_TUPLES = 1_000_000


def vector_text(blob: bytes) -> str:
    """pgvector's text form of a float32 vector; repr() of each float32 is exact, so nothing is rounded away."""
    return "[" + ",".join(map(repr, np.frombuffer(blob, dtype="<f4").tolist())) + "]"


def nearest(cur: Cursor, where: str, p: Params, query: str, dim: int, k: int,
            ann_min_candidates: int | None) -> tuple[list[tuple[str, float]], str]:
    """(id, cosine) of the ``k`` nearest candidates, best first, ties broken by insertion order; and the path
    taken: ``exact``, ``ann`` or ``ann+exact`` (the index scan came back short, exact search answered)."""
    cur.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
    meta = dict(cur.fetchall())
    if "embedding_model" not in meta:
        return [], "exact"
    check_query_dim(dim, meta["embedding_model"], int(meta["embedding_dim"]))
    if k == 0:
        return [], "exact"
    model = meta["embedding_model"]
    if ann_min_candidates is not None and schema.has_ann_index(cur):
        # counting stops at the threshold: a huge scope costs no more to plan than a threshold-sized one
        cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM records r WHERE {where} "
                    f"LIMIT {p(ann_min_candidates)}) c", p.values)
        candidates = int(cur.fetchone()[0])
        if candidates == 0:
            return [], "exact"
        plan = plan_search(candidates, ann_available=True, min_ann_candidates=ann_min_candidates)
        if plan.method == "ann":
            found = _approximate(cur, where, p, query, model, k, candidates)
            if len(found) >= min(k, candidates):
                return found, "ann"
            return _exact(cur, where, p, query, model, k), "ann+exact"
    return _exact(cur, where, p, query, model, k), "exact"


def _exact(cur: Cursor, where: str, p: Params, query: str, model: str, k: int) -> list[tuple[str, float]]:
    # one distance per row (ORDER BY the output column, not the expression again)
    # the join is on the tenant too: on a cluster both rows live on the tenant's shard
    cur.execute(f"SELECT r.id, (e.embedding <#> q.v) AS distance, r.rid FROM records r JOIN embeddings e "
                f"ON e.tenant = r.tenant AND e.rid = r.rid, (SELECT {p(query)}::vector AS v) q "
                f"WHERE e.model_id = {p(model)} AND {where} ORDER BY distance, r.rid LIMIT {p(k)}", p.values)
    return [(mid, -float(distance)) for mid, distance, _ in cur.fetchall()]


def _approximate(cur: Cursor, where: str, p: Params, query: str, model: str, k: int,
                 candidates: int) -> list[tuple[str, float]]:
    # the table's size (planner estimate) over the candidates: how far an iterative scan may have to go
    cur.execute("SELECT reltuples FROM pg_class WHERE oid = 'embeddings'::regclass")
    total = max(int(cur.fetchone()[0]), candidates)
    budget = min(MAX_SCAN_TUPLES, max(20_000, math.ceil(4 * k * total / max(candidates, 1))))
    # the plan is decided (many candidates): an explicit sort would mean scoring them all, so forbid it and the
    # planner walks the HNSW index in distance order
    cur.execute("SELECT set_config('enable_sort', 'off', true), "
                "set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', %s, true)"
                ", set_config('hnsw.max_scan_tuples', %s, true)",
                [str(min(1000, max(EF_SEARCH_MIN, 4 * k))), str(budget)])
    v = p(query)
    cur.execute(f"SELECT r.id, 1 - (e.embedding <=> {v}::vector) AS score, r.rid FROM embeddings e "
                f"JOIN records r ON r.tenant = e.tenant AND r.rid = e.rid WHERE e.model_id = {p(model)} AND {where} "
                f"ORDER BY e.embedding <=> {v}::vector LIMIT {p(k)}", p.values)
    found = sorted(cur.fetchall(), key=lambda row: (-row[1], row[2]))
    return [(mid, float(score)) for mid, score, _ in found]


__all__ = ["ANN_MIN_CANDIDATES", "nearest", "vector_text"]
