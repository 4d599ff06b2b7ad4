"""The collapse benchmark's data and metrics (the full run is `mnemir eval collapse`, not a test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemir.eval import collapse
from mnemir.eval.collapse import Query, judge


def test_benchmark_size_and_split() -> None:
    dev, held = collapse.load("dev"), collapse.load("heldout")
    assert len(dev) + len(held) >= 40
    assert sum(len(s.queries) for s in dev + held) >= 150
    assert {s.id for s in dev}.isdisjoint(s.id for s in held)
    unseen = sum(len(s.queries) for s in held + collapse.load("fresh"))
    assert unseen / (unseen + sum(len(s.queries) for s in dev)) >= 0.45  # about half is never tuned on
    assert {s.lang for s in dev} == {"zh", "en"}
    assert {s.lang for s in held} == {"zh", "en"}
    assert {s.symptom for s in held} == {s.symptom for s in dev}


def test_dev2_is_dev_only_and_covers_every_symptom() -> None:
    dev2 = [s for s in collapse.load("dev") if s.id.startswith("d2-")]
    assert len(dev2) >= 16 and all(len(s.queries) == 4 for s in dev2)
    assert {s.symptom for s in dev2} == {s.symptom for s in collapse.load("heldout")}
    assert not [s for s in collapse.load("heldout") + collapse.load("fresh") if s.id.startswith("d2-")]


def test_judge_metrics() -> None:
    ids = {"a": "A", "b": "B", "x": "X", "p": "P"}
    q = Query("q", relevant=("a", "b"), forbidden=("x",), above=(("a", "p"),))
    clean = judge(["A", "P", "Q"], q, ids, 3)
    assert clean.isolated and not clean.collapsed and clean.recall == 0.5 and clean.order_ok == 1
    dirty = judge(["P", "X", "A"], q, ids, 3)
    assert dirty.collapsed and not dirty.isolated and dirty.order_ok == 0
    assert judge(["P", "X", "A"], q, ids, 1).recall == 0.0


def test_a_scenario_builds_into_a_real_store(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    scenario = next(s for s in collapse.load("dev") if s.id == "tf-zh-shanghai-trip")
    mem, ids = collapse.build(scenario, tmp_path / "s", embedder, collapse.noise())
    try:
        assert mem.count(user=collapse.USER) == len(ids)
        weather = mem.get(ids["weather"], user=collapse.USER)
        assert weather.metadata.created_at == scenario.now - collapse.parse_age("2h")
        query = scenario.queries[0]
        ranked = collapse.rank_vector(mem, scenario, query, ids, 5)
        assert len(ranked) == 5
    finally:
        mem.close()


@pytest.mark.parametrize("bad", ["train", "", "HELDOUT"])
def test_unknown_split_is_an_error(bad: str) -> None:
    with pytest.raises(collapse.ValidationError) as err:
        collapse.load(bad)
    assert err.value.context["field"] == "split"


def test_dev3_is_dev_only_covers_every_symptom_and_builds(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    dev3 = [s for s in collapse.load("dev") if s.id.startswith("d3-")]
    assert len(dev3) >= 12 and all(len(s.queries) == 4 for s in dev3)
    assert {s.lang for s in dev3} == {"zh", "en"}
    assert {s.symptom for s in dev3} == {s.symptom for s in collapse.load("heldout")}
    assert not [s for s in collapse.load("heldout") + collapse.load("fresh") if s.id.startswith("d3-")]
    for scenario in dev3:  # build() raises if the write-time lifecycle merged two of a scenario's memories
        mem, ids = collapse.build(scenario, tmp_path / scenario.id, embedder)
        try:
            assert mem.count(user=collapse.USER) == len(ids) == len(scenario.memories)
        finally:
            mem.close()


def test_heldout2_is_a_blind_heldout_file_covering_every_symptom(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    blind = [s for s in collapse.load("heldout") if s.source == "heldout2.yaml"]
    assert len(blind) == 20 and all(s.id.startswith("h2-") and len(s.queries) == 4 for s in blind)
    assert {s.lang for s in blind} == {"zh", "en"}
    assert {s.symptom for s in blind} == {s.symptom for s in collapse.load("dev")}
    for scenario in blind[::5]:  # a sample builds (every one was checked by its author; eval builds them all)
        mem, _ = collapse.build(scenario, tmp_path / scenario.id, embedder)
        mem.close()
