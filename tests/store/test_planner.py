"""The vector-search planner (used by the PostgreSQL backend): exact unless an ANN index exists and pays off."""

from mnemir.store.planner import plan_search


def test_the_planner_is_exact_until_an_ann_index_exists() -> None:
    assert plan_search(10_000_000).method == "exact"
    assert plan_search(10, ann_available=True).method == "exact"
    assert plan_search(10_000_000, ann_available=True).method == "ann"
