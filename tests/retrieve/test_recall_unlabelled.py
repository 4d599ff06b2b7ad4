"""Typing adds to plain search where nothing tells ``remember`` who said what (issue 14, docs/decisions/0093): a
question read as about no present state may ask about the past (what a later turn took back stays findable), a
feeling is ruled out only when the settled intent does not rank feelings, and the outburst guard steps aside for a
calm memory that answers the question worse than the utterance. Real stores, the real embedder; every sentence is
made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from recall_helpers import add, intent, utterance
from test_recall_felt_episode import QUERY as FELT_QUERY
from test_recall_felt_episode import _scene as felt_scene
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.query_kinds import QueryReading
from mnemir.retrieve.recall import PRESENT_KINDS, _asks_no_present

#: a user telling the assistant about a booking, then taking the date back
TALK = [
    ("user", "The vet finally called back about Pepper's vaccinations."),
    ("assistant", "Good news. When can they see her?"),
    ("user", "They could only fit Pepper in on Monday the 9th at ten."),
    ("assistant", "Noted: Monday the 9th at ten."),
    ("user", "My cousin Joaquim is staying with us over the long weekend."),
    ("user", "Hang on, I read the text wrong: Pepper's vet slot is Thursday the 12th, not Monday the 9th."),
]


def _turns(result: mnemir.Recall) -> set[int]:
    return {s.turn for h in result.hits for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources)
            if s.turn}


def test_a_question_about_no_present_state_finds_what_was_taken_back(mem: mnemir.Memory, now: datetime) -> None:
    """``past_unless_present``: off, the turn the correction took back is left out (the notes name why); with every
    question read as about no present state (1.0) it is shown beside the correction."""
    _said(mem, TALK, now - timedelta(days=2))
    query = "Which vet slot did they first offer for Pepper?"
    mem.recall_config = RecallConfig(past_unless_present=0.0)
    before = mem.recall(query, user="ines", k=5, now=now)
    assert 3 not in _turns(before), [(h.memory.type, h.memory.text) for h in before.hits]
    assert any("took back" in n or "replaced" in n or "superseded" in n for n in before.notes), before.notes
    mem.recall_config = RecallConfig(past_unless_present=1.0)
    after = mem.recall(query, user="ines", k=5, now=now)
    assert {3, 6} <= _turns(after), [(h.memory.type, h.memory.text) for h in after.hits]


def test_the_present_kinds_decide_the_reading() -> None:
    """Read from the query-kind model's probabilities: a value now, open work, a choice and the like together under
    the threshold make a question about no present state; nothing read, or the setting at 0, never does."""
    config = RecallConfig(past_unless_present=0.4)
    about_a_person = QueryReading({"other_person": 0.6, "past_event": 0.2, "corrected_fact": 0.1, "decision": 0.1})
    current_value = QueryReading({"corrected_fact": 0.5, "other_person": 0.3, "lookup": 0.2})
    assert _asks_no_present(about_a_person, config)
    assert not _asks_no_present(current_value, config)
    assert not _asks_no_present(QueryReading(), config)
    assert not _asks_no_present(about_a_person, RecallConfig(past_unless_present=0.0))
    assert {"corrected_fact", "open_tasks", "decision"} <= set(PRESENT_KINDS)


def _shown(result: mnemir.Recall) -> set[str]:
    return {h.id for h in result.hits} | {r.target for h in result.hits for r in h.memory.relations("derived_from")}


def _boiler(mem: mnemir.Memory, now: datetime) -> str:
    """A boiler that broke down, told once in anger (only the feeling read from it), once calmly (the rebooked
    visit, as close to the question as the outburst), and facts about the boiler."""
    outburst = utterance(mem, now, "The boiler died again overnight and the repair man was a no-show, I am fuming",
                         4, ("The boiler died again overnight and the repair man was a no-show, I am fuming",
                             "EmotionalState", {"emotion_type": "anger", "intensity": 0.9}))
    add(mem, now, "The repair man missed the boiler visit, so I rebooked him for Friday between 9 and 1", "Fact",
        {"entity": "boiler repair", "attribute": "visit", "value": "Friday 9-1"}, days=3)
    for days, text in enumerate(["The boiler is a Vaillant combi fitted in 2016",
                                 "The boiler's yearly service is due in April",
                                 "My brother lives in Bristol", "The swimming pool shuts at 8pm on Sundays"], start=10):
        add(mem, now, text, "Fact", days=days)
    return outburst


BOILER = "When is the repair man coming for the boiler?"


def test_the_outburst_guard_stands_beside_a_calm_memory_that_answers_as_well(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    """``felt_calm_answers`` 0: the calm memory of the same thing (the rebooked visit) answers the question about as
    well as the outburst, so a confident calm question still rules the outburst out, and the notes say so."""
    outburst, _ = felt_scene(mem, now)  # decision 0070's scene, whose guard test this one extends
    mem.recall_config = RecallConfig(felt_calm_answers=0.0)
    asked = intent(FELT_QUERY, "fact_lookup", ("Fact",), confidence=0.9)
    result = mem.recall(FELT_QUERY, user="alice", k=3, now=now, intent=asked)
    assert outburst not in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]
    assert any(outburst in n and "only a feeling was read" in n for n in result.notes), result.notes


def test_a_feeling_is_not_ruled_out_where_the_settled_intent_ranks_feelings(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    """``ruling_follows_types``: an intent whose types hold EmotionalState (the memories widened it there) does not
    rule a feeling out as no answer, as an intent with a task type does not rule a task out."""
    outburst = _boiler(mem, now)
    asked = intent(BOILER, "fact_lookup", ("Fact", "EmotionalState"), confidence=0.9)
    before = mem.recall(BOILER, user="alice", k=3, now=now, intent=asked)
    assert any(outburst in n and "a feeling is not its answer" in n for n in before.notes), before.notes
    mem.recall_config = RecallConfig(ruling_follows_types=True)
    after = mem.recall(BOILER, user="alice", k=5, now=now, intent=asked)
    assert not any("a feeling is not its answer" in n for n in after.notes), after.notes
    assert outburst in _shown(after), [(h.memory.text, h.reasons) for h in after.hits]


def test_the_settings_are_checked() -> None:
    for bad in ({"past_unless_present": 1.5}, {"felt_calm_answers": -0.1}, {"ruling_follows_types": 1}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]
