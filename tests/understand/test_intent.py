from datetime import datetime

import pytest

from mnemir.errors import ValidationError
from mnemir.understand import IntentRecognizer, RetrievalIntent
from mnemir.understand.model import boosted


@pytest.mark.parametrize(("query", "kind", "first_type"), [
    ("上海天气怎么样", "fact_lookup", "Fact"),
    ("我之前让你做的事怎么样了", "open_tasks", "Task"),
    ("which of my to-dos are still undone?", "open_tasks", "Task"),
    ("what coffee do I like?", "preference", "Preference"),
    ("我上回为什么发那么大火", "emotion", "EmotionalState"),
])
def test_the_seed_queries(recognizer: IntentRecognizer, wed: datetime, query: str, kind: str, first_type: str) -> None:
    intent = recognizer.recognize(query, now=wed)
    assert intent.kind == kind
    assert intent.types[0] == first_type


def test_weather_query_filters_on_the_attribute_and_names_the_city(recognizer: IntentRecognizer, wed: datetime) -> None:
    intent = recognizer.recognize("上海天气怎么样", now=wed)
    assert intent.where == {"attribute": "weather"}
    assert intent.attribute == "weather"
    assert "shanghai" in intent.entities
    assert intent.language == "zh"


def test_open_tasks_filter_status_and_sort_by_deadline(recognizer: IntentRecognizer, wed: datetime) -> None:
    intent = recognizer.recognize("which of my to-dos are still undone?", now=wed)
    assert intent.where == {"status": {"$in": ["pending", "in_progress"]}}
    assert intent.order_by == (("deadline", True),)


def test_time_words_become_a_range(recognizer: IntentRecognizer, wed: datetime) -> None:
    intent = recognizer.recognize("我上周为什么那么焦虑", now=wed)
    assert intent.time_range is not None
    assert intent.time_range[0].date().isoformat() == "2026-02-23"


def test_unsure_intents_widen_and_never_are_empty(recognizer: IntentRecognizer, wed: datetime) -> None:
    intent = recognizer.recognize("zxqv blorp", now=wed)
    # gibberish is either an unsure reading (widened to the two likeliest kinds) or, since the tenth intent batch
    # taught "general" on questions that ask nothing of the user's memory, a general query: every type, no filter
    assert intent.confidence < 0.5 or intent.kind == "general"
    assert len(intent.types) > 1 and intent.where is None


def test_override_is_visible_and_checked(recognizer: IntentRecognizer, wed: datetime) -> None:
    intent = recognizer.recognize("what coffee do I like?", now=wed)
    changed = intent.override(types=("Fact",), where=None)
    assert changed.types == ("Fact",) and changed.where is None
    assert changed.reasons[-1].startswith("overridden")
    assert intent.types[0] == "Preference"  # the original is unchanged
    with pytest.raises(ValidationError):
        intent.override(types=())
    with pytest.raises(ValidationError):
        intent.override(colour="red")


def test_to_dict_is_json_ready(recognizer: IntentRecognizer, wed: datetime) -> None:
    import json

    data = recognizer.recognize("我上周说了什么", now=wed).to_dict()
    assert json.loads(json.dumps(data))["time_range"][0].startswith("2026-02-23")


def test_an_intent_can_be_built_by_hand() -> None:
    intent = RetrievalIntent(query="x", types=("Task",), where={"status": "pending"}, kind="open_tasks")
    assert intent.to_dict()["types"] == ["Task"]
    with pytest.raises(ValidationError):
        RetrievalIntent(query="x", types=(), kind="general")


@pytest.mark.parametrize("query", ["", "\x00", b"bytes"])
def test_bad_queries_are_errors(recognizer: IntentRecognizer, query: object) -> None:
    with pytest.raises(ValidationError):
        recognizer.recognize(query)  # type: ignore[arg-type]


def test_a_boost_raises_a_label_and_keeps_a_distribution() -> None:
    ranked = boosted([("a", 0.6), ("b", 0.3), ("c", 0.1)], {"c": 0.6})
    assert [label for label, _ in ranked] == ["c", "a", "b"]
    assert dict(ranked)["c"] == pytest.approx(0.7 / 1.6)
    assert sum(p for _, p in ranked) == pytest.approx(1.0)


@pytest.mark.parametrize(("query", "ruled"), [("我还有哪些待办", True), ("which favours do I still owe?", False)])
def test_the_reasons_say_when_a_precise_rule_matched(recognizer: IntentRecognizer, wed: datetime, query: str,
                                                     ruled: bool) -> None:
    intent = recognizer.recognize(query, now=wed)
    assert intent.kind == "open_tasks"
    assert ("wording typical of open_tasks" in intent.reasons) is ruled
