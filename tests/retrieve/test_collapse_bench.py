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
    train, dev = _load("train"), _load("dev")
    assert len(train) >= 300 and len(dev) >= 100
    assert {s.id for s in train}.isdisjoint(s.id for s in dev)
    assert {s.split for s in train} == {"train"} and {s.split for s in dev} == {"dev"}
    assert {s.lang for s in train} == {s.lang for s in dev} == {"zh", "en"}
    assert {s.symptom for s in train} <= {s.symptom for s in dev}  # fresh.yaml names one symptom its own way
    assert [s.id for s in _load("all")] == [s.id for s in train + dev]  # all = train + dev, never the test files


def _folder(tmp_path: Path, manifest: str, files: dict[str, str]) -> Path:
    (tmp_path / collapse.MANIFEST).write_text(manifest, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


_ONE = """scenarios:
  - id: x-en-one
    split: heldout
    symptom: mixed
    lang: en
    domain: home
    now: "2026-01-01T10:00:00+00:00"
    memories: [{key: a, type: Fact, text: "The boiler was serviced", age: 2d}]
    queries: [{q: "When was the boiler serviced?", relevant: [a]}]
"""


def test_the_split_comes_from_the_manifest_not_the_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "train: [a.yaml]\ndev: []\ntest: []\n", {"a.yaml": _ONE})
    (scenario,) = collapse.load("train", directory=folder)
    assert scenario.split == "train" and scenario.source == "a.yaml"
    assert collapse.load("dev", directory=folder) == []


@pytest.mark.parametrize(("manifest", "files", "field"), [
    ("train: [a.yaml]\ndev: []\ntest: [gone.yaml]\n", {"a.yaml": _ONE}, "manifest.test"),  # listed, absent
    ("train: []\ndev: []\ntest: []\n", {"a.yaml": _ONE}, "manifest"),  # present, in no split
    ("train: [a.yaml]\ndev: [a.yaml]\ntest: []\n", {"a.yaml": _ONE}, "manifest"),  # in two splits
    ("train: [a.yaml]\nheldout: []\n", {"a.yaml": _ONE}, "manifest"),  # an unknown split
    ("train: [a.yaml]\n", {"a.yaml": _ONE.replace("split: heldout", "split: later")}, "x-en-one.split"),
])
def test_a_bad_manifest_is_a_clear_error(tmp_path: Path, manifest: str, files: dict[str, str], field: str) -> None:
    folder = _folder(tmp_path, manifest, files)
    with pytest.raises(collapse.ValidationError) as err:
        collapse.load("test" if field == "manifest.test" else "train", directory=folder)
    assert err.value.context["field"] == field


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
    scenario = next(s for s in _load("train") if s.id == "tf-zh-shanghai-trip")
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


def test_a_memory_merged_while_building_stands_for_both_keys(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """The lifecycle may merge a scenario memory into an earlier one (a near-duplicate): the run goes on, the
    merged key maps to the surviving memory, showing it covers both keys, and the report names the merge."""
    from datetime import UTC, datetime

    said = "I take my tea with a splash of oat milk and no sugar"
    pref = {"subject": "tea", "preference_type": "like"}
    scenario = Scenario("t-merge", "train", "mixed", "en", "tea", datetime(2026, 5, 1, 12, tzinfo=UTC),
                        memories=({"key": "first", "type": "Preference", "age": "9d", "text": said, "props": pref},
                                  {"key": "again", "type": "Preference", "age": "2d", "text": said, "props": pref}),
                        queries=(Query("Tea: how do I usually have it?", relevant=("again",), forbidden=("first",)),))
    mem, ids = collapse.build(scenario, tmp_path / "s", embedder)
    try:
        assert ids["again"] == ids["first"]
        assert collapse.merged_keys(scenario, ids) == ["again"]
        outcome = judge([ids["first"]], scenario.queries[0], ids, 3)
        assert outcome.collapsed and not outcome.isolated  # one memory is both the answer and the trap
    finally:
        mem.close()


@pytest.mark.parametrize("bad", ["heldout", "fresh", "", "TRAIN"])
def test_unknown_split_is_an_error(bad: str) -> None:
    with pytest.raises(collapse.ValidationError) as err:
        collapse.load(bad)
    assert err.value.context["field"] == "split"


#: the files added after the first five: (file, split, id prefix, least scenarios, build every n-th one, whether it
#: covers every symptom: dev4 targets hard query families instead)
LATER_FILES = [("train_d2.yaml", "train", "d2-", 16, 0, True), ("train_d3.yaml", "train", "d3-", 12, 1, True),
               ("train_d4.yaml", "train", "d4-", 14, 4, False),
               *((f"train_h{n:02d}.yaml", "train", f"h{n}-", 20, 5, True) for n in range(2, 25)),
               *((f"heldout{n}.yaml", "dev", f"h{n}-", 20, 5, True) for n in range(25, 41))]


@pytest.mark.parametrize(("source", "split", "prefix", "least", "build_every", "every_symptom"), LATER_FILES)
def test_later_files_stay_in_their_split_and_build(  # type: ignore[no-untyped-def]
        tmp_path: Path, embedder, source: str, split: str, prefix: str, least: int, build_every: int,
        every_symptom: bool) -> None:
    assert collapse.split_of()[source] == split
    scenarios = [s for s in _load(split) if s.source == source]
    assert len(scenarios) >= least and all(s.id.startswith(prefix) and len(s.queries) == 4 for s in scenarios)
    assert {s.lang for s in scenarios} == {"zh", "en"}
    symptoms = {s.symptom for s in scenarios}
    all_symptoms = {s.symptom for s in _load("train")}
    assert symptoms == all_symptoms if every_symptom else symptoms < all_symptoms
    others = [s for s in _load("all") if s.source != source]
    assert not [s for s in others if s.id.startswith(prefix)]
    for scenario in scenarios[::build_every] if build_every else ():  # build() raises if the lifecycle merged two
        mem, ids = collapse.build(scenario, tmp_path / scenario.id, embedder)
        try:
            assert mem.store.count(collapse._everything()) == len(ids) == len(scenario.memories)  # superseded too
        finally:
            mem.close()


def test_an_utterance_remembered_end_to_end_stands_for_its_memory(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """The end-to-end variant: the episode that keeps an utterance verbatim stands for the scenario memory it says,
    like what was read from it (showing the utterance of a forbidden memory is a collapse)."""
    scenario = next(s for s in _load("train") if s.id == "tf-zh-shanghai-trip")
    mem, covers = collapse.build_remembered(scenario, tmp_path / "r", embedder)
    try:
        key_of = {m["text"]: m["key"] for m in scenario.memories}
        episodes = mem.list(types=["Episode"], user=collapse.USER, limit=100)
        assert len(episodes) == len(scenario.memories)
        for episode in episodes:
            assert covers[episode.id] == {key_of[episode.text]}
    finally:
        mem.close()


def test_a_memory_that_says_what_it_replaces_supersedes_it_in_the_typed_store(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """The later files write ``supersedes: [key]`` where the earlier ones wrote a ``rels`` pair: both are honoured."""
    from datetime import UTC, datetime

    fee = {"entity": "choir", "attribute": "fee"}
    scenario = Scenario("t-supersedes", "train", "mixed", "en", "choir", datetime(2026, 5, 1, 12, tzinfo=UTC),
                        memories=({"key": "old", "type": "Fact", "age": "30d", "text": "Choir costs 60 pounds a term",
                                   "props": {**fee, "value": "60"}},
                                  {"key": "new", "type": "Fact", "age": "2d", "text": "Choir is 75 pounds a term",
                                   "props": {"entity": "choir term", "attribute": "price", "value": "75"},
                                   "supersedes": ["old"]}),
                        queries=(Query("How much is choir?", relevant=("new",), forbidden=("old",)),))
    mem, ids = collapse.build(scenario, tmp_path / "s", embedder)
    try:
        new = mem.get(ids["new"], user=collapse.USER)
        assert [r.target for r in new.relations("supersedes")] == [ids["old"]]
    finally:
        mem.close()


def test_a_closed_status_no_utterance_gives_is_counted_apart(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A task the scenario closes by hand whose utterance is a request, with nothing later reporting on it, is a
    status the end-to-end store cannot know: its queries are counted apart (``said_only``), labelled; a closed task a
    later memory reports on, and an open one, are not."""
    from datetime import UTC, datetime

    scenario = Scenario(
        "t-unsaid", "train", "task_status", "en", "garden", datetime(2026, 5, 1, 12, tzinfo=UTC),
        memories=({"key": "hedge", "type": "Task", "age": "9d", "text": "Trim the beech hedge along the lane",
                   "props": {"status": "completed"}},
                  {"key": "shed", "type": "Task", "age": "8d", "text": "Varnish the shed door before the rain",
                   "props": {"status": "completed"}},
                  {"key": "shed_done", "type": "Fact", "age": "2d", "text": "The shed door got its second coat",
                   "task": "shed"},
                  {"key": "pond", "type": "Task", "age": "5d", "text": "Clear the duckweed off the pond",
                   "props": {"status": "pending"}}),
        queries=(Query("What garden jobs are left?", relevant=("pond",), forbidden=("hedge", "shed")),
                 Query("What do I need to do to the pond?", relevant=("pond",))))
    mem, covers = collapse.build_remembered(scenario, tmp_path / "u", embedder)
    try:
        unsaid = collapse.closed_unsaid(scenario, mem, covers)
    finally:
        mem.close()
    assert unsaid == {"hedge"}
    left_out = collapse.unsaid_queries(scenario, unsaid)
    assert left_out == {("t-unsaid", "What garden jobs are left?")}
    report = collapse.Report("train", (3,), 1, 2, systems=("remember_recall",), status_unsaid=left_out)
    for query, ok in zip(scenario.queries, (False, True), strict=True):
        report.rows.append(collapse.Row(scenario.id, scenario.symptom, "en", query.text, "remember_recall", 3, [],
                                        collapse.Outcome(ok, not ok, float(ok), 0, 0)))
    assert report.metric("remember_recall", 3)["isolation"] == 0.5
    said = report.metric("remember_recall", 3, said_only=True)
    assert said["isolation"] == 1.0 and said["n"] == 1
    assert report.to_dict()["end_to_end_status_said"]["remember_recall"]["k=3"]["n"] == 1
    assert "pass needs a status no utterance gives" in report.render()
