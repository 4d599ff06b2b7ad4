"""Exact or approximate: the vector-search planner of the PostgreSQL backend.

Exact scoring is the default at every selectivity. An approximate (ANN) index is
planned in only when one exists and the candidate set is very large, where exact
scoring would be too slow and an ANN index pays off. Only
:mod:`mnemir.store.postgres.vectors` uses it: the SQLite backend has no ANN index
and always scores exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: below this many candidates exact scoring is fast enough that an ANN index would not pay off
ANN_MIN_CANDIDATES = 200_000


@dataclass(frozen=True)
class SearchPlan:
    method: Literal["exact", "ann"]
    candidates: int
    reason: str


def plan_search(candidates: int, *, ann_available: bool = False,
                min_ann_candidates: int = ANN_MIN_CANDIDATES) -> SearchPlan:
    """Exact for selective filters and small stores; ANN (when an index exists) for very large candidate sets."""
    if ann_available and candidates >= min_ann_candidates:
        return SearchPlan("ann", candidates, f"{candidates} candidates >= {min_ann_candidates}")
    reason = "no ANN index" if not ann_available else f"{candidates} candidates < {min_ann_candidates}"
    return SearchPlan("exact", candidates, reason)
