"""The Context states each memory's role and source plainly, as prompt text and as JSON."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from recall_helpers import intent

import mnemir
from mnemir.errors import ValidationError


def test_render_states_role_and_source(mem: mnemir.Memory) -> None:
    stated = datetime(2026, 8, 10, 9, 0, tzinfo=UTC)
    now = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    mem.add("I adore fiery chilli dishes, as hot as they come", "Preference",
            {"subject": "spicy food", "preference_type": "like"}, user="alice", speaker="user", now=stated)
    mem.add("I have a stomach bug, the doctor said to eat bland food", "Fact",
            {"entity": "user", "attribute": "health", "value": "stomach bug"}, user="alice", speaker="user",
            now=datetime(2026, 11, 28, 20, 0, tzinfo=UTC))
    mem.add("Book a table at the Sichuan place for Friday", "Task", {"goal": "book table", "status": "pending"},
            user="alice", speaker="user", now=datetime(2026, 11, 27, tzinfo=UTC))
    query = "What should I eat tonight?"

    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "preference", ("Preference", "Fact")))
    text = result.context.render()

    assert "background preference (likes spicy food), stated by the user on 2026-08-10: \"I adore fiery chilli dishes" in text
    assert "present state of the user" in text and "stated by the user on 2026-11-28" in text
    assert text.index("present state of the user") < text.index("background preference")
    assert "Tasks are requests, not facts" in text


def test_a_task_line_never_reads_as_a_fact(mem: mnemir.Memory, now: datetime) -> None:
    mem.add("帮我订下周五去上海的机票", "Task", {"goal": "订机票", "status": "pending", "deadline": "2026-12-04"},
            user="alice", speaker="user", now=now)
    query = "上海的机票订了吗？"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "task_status", ("Task",)))
    line = result.context.to_dict()["sections"][0]["memories"][0]["line"]

    assert line.startswith("open task (due 2026-12-04), requested by the user on ")
    assert result.context.to_dict()["sections"][0]["role"] == "task"


def test_to_dict_is_json_and_complete(mem: mnemir.Memory, now: datetime) -> None:
    mem.add("Lisbon is sunny, 27°C", "Fact", {"entity": "Lisbon", "attribute": "weather", "value": "sunny",
                                               "source": "external", "confidence": 0.9},
            user="alice", speaker="tool", now=now)
    query = "Lisbon weather?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    data = json.loads(json.dumps(result.to_dict()))

    assert data["intent"]["kind"] == "fact_lookup"
    hit = data["hits"][0]
    assert hit["role"] == "answer" and hit["reasons"] and isinstance(hit["score"], float)
    memory = data["context"]["sections"][0]["memories"][0]
    assert memory["source"].startswith("from an external source")
    assert memory["label"] == "fact (confidence 0.90)"


def test_empty_recall_says_so(mem: mnemir.Memory, now: datetime) -> None:
    query = "What's my passport number?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    assert result.hits == []
    assert "no stored memory is relevant" in result.context.render()


def _three_memories(mem: mnemir.Memory, now: datetime) -> mnemir.Recall:
    for text, type_, props in [
        ("I have a stomach bug, the doctor said to eat bland food", "Fact",
         {"entity": "user", "attribute": "health", "value": "stomach bug"}),
        ("I adore fiery chilli dishes, as hot as they come", "Preference", {"subject": "spicy food", "preference_type": "like"}),
        ("Plain rice congee is my go-to when I'm ill", "Preference", {"subject": "congee", "preference_type": "like"}),
    ]:
        mem.add(text, type_, props, user="alice", speaker="user", now=now)
    query = "What should I eat tonight?"
    return mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "preference", ("Preference", "Fact")))


def test_render_fits_a_character_budget_by_leaving_out_the_lowest_ranked(mem: mnemir.Memory, now: datetime) -> None:
    result = _three_memories(mem, now)
    full = result.context.render()
    lowest = min(result.hits, key=lambda h: h.score)

    fitted = result.context.render(max_chars=len(full) - 1)

    assert len(fitted) <= len(full) - 1
    assert lowest.memory.text not in fitted
    assert all(h.memory.text in fitted for h in result.hits if h is not lowest)
    assert "1 lower-ranked memory left out to fit" in fitted
    assert result.context.render(max_chars=len(full)) == full


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "300"])
def test_a_bad_character_budget_is_a_clear_error(mem: mnemir.Memory, now: datetime, bad: object) -> None:
    result = _three_memories(mem, now)
    with pytest.raises(ValidationError) as err:
        result.context.render(max_chars=bad)  # type: ignore[arg-type]
    assert err.value.context["field"] == "max_chars"


def test_a_budget_too_small_for_the_header_says_how_much_is_needed(mem: mnemir.Memory, now: datetime) -> None:
    result = _three_memories(mem, now)
    with pytest.raises(ValidationError, match="too small"):
        result.context.render(max_chars=40)
