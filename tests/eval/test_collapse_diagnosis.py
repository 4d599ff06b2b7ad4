"""The end-to-end collapse diagnosis (the full run is `python -m mnemir.eval.collapse_diagnosis --split train`), on a
scenario of our own: every query is asked of both stores, every failure gets one named cause, and what ``remember``
made of each memory is counted against the scenario's type."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemir.errors import ValidationError
from mnemir.eval import collapse, collapse_diagnosis

NOW = datetime(2026, 6, 10, 18, 0, tzinfo=UTC)
SCENARIO = collapse.Scenario(
    id="own-en-choir", split="train", symptom="mixed", lang="en", domain="choir", now=NOW,
    memories=(
        {"key": "fee_old", "type": "Fact", "age": "40d", "text": "Choir membership costs 60 pounds a term",
         "props": {"entity": "choir membership", "attribute": "fee", "value": "60 pounds a term"}},
        {"key": "fee_new", "type": "Fact", "age": "2d",
         "text": "Choir membership has gone up to 75 pounds a term",
         "props": {"entity": "choir membership", "attribute": "fee", "value": "75 pounds a term"},
         "supersedes": ["fee_old"]},
        {"key": "scores_task", "type": "Task", "age": "3d", "text": "Collect the new scores from the music shop",
         "props": {"goal": "collect scores", "status": "pending"}},
        {"key": "nerves", "type": "EmotionalState", "age": "1d",
         "text": "I'm really nervous about my solo at the spring concert",
         "props": {"emotion_type": "anxiety", "intensity": 0.7, "trigger": "solo"}},
    ),
    queries=(
        collapse.Query("How much is the choir membership now?", ("fee_new",), ("fee_old",)),
        collapse.Query("What's left to do for the choir?", ("scores_task",), ()),
        collapse.Query("How am I feeling about the concert?", ("nerves",), ()),
    ),
    source="own.yaml",
)


def test_every_query_is_counted_and_every_failure_named(embedder) -> None:  # type: ignore[no-untyped-def]
    report = collapse_diagnosis.run("train", embedder=embedder, scenarios=[SCENARIO])
    assert report.queries == 3
    assert 0 <= report.isolated <= 3 and 0 <= report.typed_isolated <= 3
    assert len(report.failures) == 3 - report.isolated
    assert all(f.cause in collapse_diagnosis.CAUSES for f in report.failures)
    # what remember stored for each scenario memory, against the scenario's type (one row per memory)
    assert sum(report.confusion.values()) == len(SCENARIO.memories)
    assert sum(report.supersessions.values()) == 1
    assert sum(n for _, _, n, _, _ in report.by_symptom.values()) == 3
    data = report.to_dict()
    assert data["queries"] == 3 and set(data["causes"]) <= set(collapse_diagnosis.CAUSES)
    assert "end to end" in report.render(show=3)


def test_a_newer_value_said_through_remember_replaces_the_old_one(embedder) -> None:  # type: ignore[no-untyped-def]
    report = collapse_diagnosis.run("train", embedder=embedder, scenarios=[SCENARIO])
    assert report.supersessions == {"applied": 1}
    assert not [f for f in report.failures if f.cause == "not_superseded"]


def test_only_train_and_dev_are_diagnosed() -> None:
    with pytest.raises(ValidationError):
        collapse_diagnosis.run("test")


def test_each_failure_has_a_kind_and_the_readings_of_its_memories(embedder) -> None:  # type: ignore[no-untyped-def]
    report = collapse_diagnosis.run("train", embedder=embedder, scenarios=[SCENARIO])
    assert all(f.kind in collapse_diagnosis.KINDS for f in report.failures)
    assert sum(report.kinds().values()) == len(report.failures)
    for f in report.failures:
        query = next(q for q in SCENARIO.queries if q.text == f.query)
        # every relevant and forbidden memory of the failed query, with its hand label beside what was stored
        assert {m["key"] for m in f.memories} == {*query.relevant, *query.forbidden}
        assert all(m["role"] in ("relevant", "forbidden") and m["truth_type"] for m in f.memories)


def test_a_wrong_reading_beside_the_right_one_is_an_extra_reading() -> None:
    stored = {"rant": collapse_diagnosis.Stored("rant", "EmotionalState", None, "text", typed=[
        ("a", "EmotionalState", "active", None, {}), ("b", "Fact", "active", None, {})])}
    assert collapse_diagnosis.kind_of("wrong_type_forbidden", "rant", stored, ["b"], {"b": frozenset({"rant"})}) \
        == "extra_reading"
    stored["rant"].typed = [("b", "Fact", "active", None, {})]
    assert collapse_diagnosis.kind_of("wrong_type_forbidden", "rant", stored, ["b"], {}) == "wrong_type"
    assert collapse_diagnosis.kind_of("status_unsaid", "rant", stored, [], {}) == "status"
    assert collapse_diagnosis.kind_of("typed_fails_too", "", stored, [], {}) == "ranking"
    assert collapse_diagnosis.kind_of("dropped", "rant", stored, [], {}) == "missing"
