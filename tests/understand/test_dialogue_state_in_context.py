"""Dialogue state read in context (issue 15, session 13): a plan cut from a longer turn is matched with its report
through the utterance it came from; "what is still open" leaves out what else was said beside work now closed; a
question about work is not answered by the assistant's own question; a question about a decision puts the statement
of the decision first. Every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.embed import default_embedder
from mnemir.ir import Content, MemIR, Metadata, Scope, Source
from mnemir.retrieve.judgements import decision_first, only_asks
from mnemir.retrieve.query_kinds import QueryReading, read_query
from mnemir.retrieve.ranking import Candidate, Scored

START = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)

FLORIST = [
    ("user", "I have to get the shower tiles regrouted before the viewing."),
    ("assistant", "Noted, regrouting first. What else is on the flat list?"),
    ("user", "The florist on Mill Road does peonies for the table. I'll ring them on Friday."),
    ("user", "Also I have to renew the parking permit this month."),
    ("user", "Ordered the peonies from the Mill Road florist, all paid."),
]


def _said(mem: mnemir.Memory, turns: list[tuple[str, str]]) -> None:
    say(mem, turns, user="noor", start=START)


def _read_from(mem: mnemir.Memory, turn: int, type_: str) -> list[MemIR]:
    return [r for r in mem.list(user="noor") if r.metadata.source.turn == turn and r.type == type_]


def _shown_turns(mem: mnemir.Memory, query: str) -> set[int]:
    hits = mem.recall(query, user="noor", k=5, now=START + timedelta(hours=2)).hits
    return {s.turn for h in hits for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources) if s.turn}


def test_a_report_closes_the_plan_its_utterance_named(mem: mnemir.Memory) -> None:
    """"I'll ring them on Friday" says nothing of peonies; the turn it came from does."""
    _said(mem, FLORIST)
    plans = _read_from(mem, 3, "Plan")
    assert plans and all(p.properties.get("status") == "completed" for p in plans), [p.properties for p in plans]
    assert all(t.properties.get("status") == "pending" for n in (1, 4) for t in _read_from(mem, n, "Task"))


def test_without_its_utterance_the_cut_plan_stays_open(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "TASK_CONTEXT", False)
    _said(mem, FLORIST)
    assert any(p.properties.get("status") == "pending" for p in _read_from(mem, 3, "Plan"))


def test_what_is_left_leaves_out_what_was_said_beside_closed_work(mem: mnemir.Memory) -> None:
    _said(mem, FLORIST)
    assert _read_from(mem, 3, "Fact"), "the florist's peonies should be read as a fact beside the plan"
    shown = _shown_turns(mem, "Which jobs remain open for the table and the flat?")
    assert {1, 4} <= shown and 3 not in shown, shown


@pytest.mark.parametrize(("text", "asks"), [
    ("Good. Has the plasterer finished the hallway yet?", True),
    ("行。护照续签办完没有？", True),
    ("Nice one. Want me to set a reminder for the plasterer?", False),  # an offer may become the user's task
    ("要不要我替你把换驾照的材料清单找出来？", False),
    ("The hallway needs two coats, so allow a week for drying before you paint. Shall we move on?", False),
    ("The plasterer finished the hallway.", False),
])
def test_an_assistant_turn_that_only_asks(text: str, asks: bool) -> None:
    assert only_asks(text) is asks


def test_a_question_about_work_is_not_answered_by_the_assistants_question(mem: mnemir.Memory) -> None:
    _said(mem, [
        ("user", "I have to get the hallway replastered before the carpet goes down."),
        ("assistant", "Makes sense. Have you booked a plasterer for the hallway yet?"),
        ("user", "Booked Dario for Thursday, he quoted four hundred for the hallway."),
    ])
    shown = _shown_turns(mem, "Have I booked someone to plaster the hallway?")
    assert 3 in shown and 2 not in shown, shown


def _reading(query: str) -> QueryReading:
    embedder = default_embedder()
    return read_query(embedder.embed_query(query), embedder.model_id)


def _scored(text: str, relevance: float, minutes: int, attribute: str | None = None) -> Scored:
    at = START + timedelta(minutes=minutes)
    props = {"attribute": attribute} if attribute else {}
    record = MemIR(content=Content(text=text), type="Fact", properties=props, scope=Scope(user_id="noor"),
                   metadata=Metadata(created_at=at, updated_at=at, source=Source(speaker="user", at=at)))
    return Scored(Candidate(record, similarity=relevance), "answer", relevance, relevance, relevance)


def test_a_question_about_a_decision_puts_the_decision_first() -> None:
    order = [_scored("For the porch railing I keep wavering between oak and wrought iron.", 0.7, 1),
             _scored("Our porch looks out onto the lane.", 0.6, 2),
             _scored("Wrought iron won for the porch railing after all.", 0.4, 3)]
    # a decision is what the write side read as one (the decision attribute), whatever its wording
    tagged = [*order[:2], _scored("Wrought iron for the porch railing.", 0.4, 3, attribute="decision")]
    out = decision_first(tagged, _reading("What did we settle on for the porch railing?"))
    assert out[0] is tagged[2] and sorted(map(id, out)) == sorted(map(id, tagged))
    assert decision_first(tagged, _reading("Which railing did we choose for the porch?"))[0] is tagged[2]
    # worded as a choice but not read as a decision: its wording alone does not move it
    assert decision_first(order, _reading("What did we settle on for the porch railing?")) == order


def test_other_questions_and_far_less_relevant_decisions_keep_their_order() -> None:
    order = [_scored("For the porch railing I keep wavering between oak and wrought iron.", 0.7, 1),
             _scored("Wrought iron won for the porch railing after all.", 0.2, 3, attribute="decision")]
    assert decision_first(order, _reading("Which way does the porch face?")) == order
    assert decision_first(order, _reading("What did we settle on for the porch railing?")) == order  # 0.2 is far below 0.7


def test_an_utterance_read_into_many_memories_is_not_judged_by_its_siblings(mem: mnemir.Memory,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn read into more memories than the cap stands for no conversational turn: nothing beside its closed work
    is left out (and its readings are not fetched)."""
    import mnemir.retrieve.judgements as judgements

    monkeypatch.setattr(judgements, "SIBLINGS_AT_MOST", 1)
    _said(mem, FLORIST)
    assert len([r for r in mem.list(user="noor") if r.metadata.source.turn == 3 and r.type != "Episode"]) > 1
    assert 3 in _shown_turns(mem, "Which jobs remain open for the table and the flat?")
