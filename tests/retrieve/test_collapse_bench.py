"""The collapse benchmark's data and metrics (the full run is `mnemir eval collapse`, not a test)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from mnemir.eval import collapse
from mnemir.eval.collapse import Query, Scenario, judge


@cache
def _load(split: str) -> tuple[Scenario, ...]:
    """A split's scenarios, parsed once for the whole module (every later file's test reads every split)."""
    return tuple(collapse.load(split))


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


def test_the_report_sets_apart_the_files_the_learned_ranker_never_saw() -> None:
    report = collapse.Report("heldout", (3,), 2, 2, trained_on=("seen.yaml",))
    for source, isolated in (("seen.yaml", True), ("new.yaml", False)):
        for system in collapse.SYSTEMS:
            report.rows.append(collapse.Row("s", "mixed", "en", "q?", system, 3, [],
                                            collapse.Outcome(isolated, not isolated, 1.0, 0, 0), source))
    assert report.untrained_sources() == {"new.yaml"}
    assert report.metric("recall", 3)["isolation"] == 0.5
    assert report.metric("recall", 3, sources=report.untrained_sources())["isolation"] == 0.0
    assert "files recall's learned ranker was not trained on (1 files, 1 queries" in report.render()
    assert report.to_dict()["untrained_files"]["recall"]["n"] == 1


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


#: the files added after the first split: (file, split, id prefix, least scenarios, build every n-th one, whether it
#: covers every symptom: dev4 targets hard query families instead)
LATER_FILES = [("dev2.yaml", "dev", "d2-", 16, 0, True), ("dev3.yaml", "dev", "d3-", 12, 1, True),
               ("dev4.yaml", "dev", "d4-", 14, 4, False), ("heldout2.yaml", "heldout", "h2-", 20, 5, True),
               ("heldout3.yaml", "heldout", "h3-", 20, 5, True), ("heldout4.yaml", "heldout", "h4-", 20, 5, True),
               ("heldout5.yaml", "heldout", "h5-", 20, 5, True), ("heldout6.yaml", "heldout", "h6-", 20, 5, True),
               ("heldout7.yaml", "heldout", "h7-", 20, 5, True), ("heldout8.yaml", "heldout", "h8-", 20, 5, True),
               ("heldout9.yaml", "heldout", "h9-", 20, 5, True), ("heldout10.yaml", "heldout", "h10-", 20, 5, True),
               ("heldout11.yaml", "heldout", "h11-", 20, 5, True), ("heldout12.yaml", "heldout", "h12-", 20, 5, True),
               ("heldout13.yaml", "heldout", "h13-", 20, 5, True), ("heldout14.yaml", "heldout", "h14-", 20, 5, True),
               ("heldout15.yaml", "heldout", "h15-", 20, 5, True), ("heldout16.yaml", "heldout", "h16-", 20, 5, True),
               ("heldout17.yaml", "heldout", "h17-", 20, 5, True), ("heldout18.yaml", "heldout", "h18-", 20, 5, True),
               ("heldout19.yaml", "heldout", "h19-", 20, 5, True), ("heldout20.yaml", "heldout", "h20-", 20, 5, True),
               ("heldout21.yaml", "heldout", "h21-", 20, 5, True), ("heldout22.yaml", "heldout", "h22-", 20, 5, True),
               ("heldout23.yaml", "heldout", "h23-", 20, 5, True), ("heldout24.yaml", "heldout", "h24-", 20, 5, True),
               ("heldout25.yaml", "heldout", "h25-", 20, 5, True), ("heldout26.yaml", "heldout", "h26-", 20, 5, True),
               ("heldout27.yaml", "heldout", "h27-", 20, 5, True), ("heldout28.yaml", "heldout", "h28-", 20, 5, True),
               ("heldout29.yaml", "heldout", "h29-", 20, 5, True), ("heldout30.yaml", "heldout", "h30-", 20, 5, True),
               ("heldout31.yaml", "heldout", "h31-", 20, 5, True), ("heldout32.yaml", "heldout", "h32-", 20, 5, True),
               ("heldout33.yaml", "heldout", "h33-", 20, 5, True), ("heldout34.yaml", "heldout", "h34-", 20, 5, True),
               ("heldout35.yaml", "heldout", "h35-", 20, 5, True), ("heldout36.yaml", "heldout", "h36-", 20, 5, True),
               ("heldout37.yaml", "heldout", "h37-", 20, 5, True), ("heldout38.yaml", "heldout", "h38-", 20, 5, True),
               ("heldout39.yaml", "heldout", "h39-", 20, 5, True), ("heldout40.yaml", "heldout", "h40-", 20, 5, True)]


@pytest.mark.parametrize(("source", "split", "prefix", "least", "build_every", "every_symptom"), LATER_FILES)
def test_later_files_stay_in_their_split_and_build(  # type: ignore[no-untyped-def]
        tmp_path: Path, embedder, source: str, split: str, prefix: str, least: int, build_every: int,
        every_symptom: bool) -> None:
    scenarios = [s for s in _load(split) if s.source == source]
    assert len(scenarios) >= least and all(s.id.startswith(prefix) and len(s.queries) == 4 for s in scenarios)
    assert {s.lang for s in scenarios} == {"zh", "en"}
    symptoms = {s.symptom for s in scenarios}
    all_symptoms = {s.symptom for s in _load("heldout" if split == "dev" else "dev")}
    assert symptoms == all_symptoms if every_symptom else symptoms < all_symptoms
    others = [s for other in collapse.SCENARIO_SPLITS if other != split for s in _load(other)]
    assert not [s for s in others if s.id.startswith(prefix) or s.source == source]
    for scenario in scenarios[::build_every] if build_every else ():  # build() raises if the lifecycle merged two
        mem, ids = collapse.build(scenario, tmp_path / scenario.id, embedder)
        try:
            assert mem.store.count(collapse._everything()) == len(ids) == len(scenario.memories)  # superseded too
        finally:
            mem.close()
