"""A confident intent rules out a reading's role, not the rest of what was said: when plain search ranks an utterance
first and the reading that stands for it (a task, for a fact question) covers only part of it, the utterance itself
keeps plain search's place (issue 14: what plain search ranks first is not dropped; real store, real model)."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve import RecallConfig

QUERY = "Where is my brother's new flat?"


def _store(mem: mnemir.Memory, now: datetime, said: str) -> str:
    """An utterance from which a done task was read (its first sentence), a fact of the intended type about the same
    person, and unrelated facts. Returns the utterance's id."""
    episode = add(mem, now, said, "Episode", {"speaker": "user"}, days=3)
    add(mem, now, "Book the train tickets for Saturday", "Task", {"status": "completed"}, days=3,
        relationships=[{"target": episode.id, "relation": "derived_from"}])
    add(mem, now, "My brother works as a nurse at the children's hospital", "Fact",
        {"entity": "brother", "attribute": "job", "value": "nurse"}, days=20)
    for days, text in enumerate(["My cousin plays the cello", "The gym opens at 6am on weekdays",
                                 "I bought a new pair of hiking boots"], start=5):
        add(mem, now, text, "Fact", days=days)
    return episode.id


def _asked(mem: mnemir.Memory, now: datetime) -> mnemir.Recall:
    return mem.recall(QUERY, user="alice", k=3, now=now, intent=intent(QUERY, "fact_lookup", ("Fact",), confidence=0.9))


def test_the_rest_of_an_utterance_stays_when_its_reading_is_ruled_out(mem: mnemir.Memory, now: datetime) -> None:
    said = _store(mem, now, "Finally booked the train tickets for Saturday. Oh and my brother's new flat is in "
                            "Hackney, near the canal")
    assert mem.search(QUERY, user="alice", k=1, now=now)[0].id == said  # plain search ranks the utterance first
    result = _asked(mem, now)
    assert said in [h.id for h in result.hits], [(h.memory.text, h.reasons) for h in result.hits]
    assert not any(h.memory.type == "Task" for h in result.hits)  # the task itself stays out
    assert any("stands in its place" in n for n in result.notes), result.notes


def test_a_reading_that_is_the_whole_utterance_stays_ruled_out(mem: mnemir.Memory, now: datetime) -> None:
    """When the task is all the utterance said, a confident fact question leaves it out (said in the notes)."""
    said = _store(mem, now, "Booked the train tickets to see my brother's new flat")
    assert mem.search(QUERY, user="alice", k=1, now=now)[0].id == said
    result = _asked(mem, now)
    shown = {h.id for h in result.hits}
    assert said not in shown and not any(h.memory.type == "Task" for h in result.hits), \
        [(h.memory.text, h.reasons) for h in result.hits]
    assert any("is not brought back" in n and "stands in its place" not in n for n in result.notes), result.notes


def test_it_can_be_turned_off(mem: mnemir.Memory, now: datetime) -> None:
    said = _store(mem, now, "Finally booked the train tickets for Saturday. Oh and my brother's new flat is in "
                            "Hackney, near the canal")
    mem.recall_config = RecallConfig(ruled_out_cover=0.0)
    assert said not in [h.id for h in _asked(mem, now).hits]
    with pytest.raises(mnemir.ValidationError, match="ruled_out_cover"):
        RecallConfig(ruled_out_cover=1.5)
