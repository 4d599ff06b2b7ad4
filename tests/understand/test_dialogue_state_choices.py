"""Choices across turns (issue 15, session 15): a question about a choice reaches the user's decisions closest to it
even when they are far below the best candidate; the decision closest to it keeps a place in the top k after the
fusion. Every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dialogue_helpers import say, shown_turns

import mnemir
import mnemir.retrieve.judgements as judgements
from mnemir.ir import Content, MemIR, Metadata, Scope, Source
from mnemir.retrieve.judgements import decision_keeps_place
from mnemir.retrieve.ranking import Candidate, Scored

START = datetime(2026, 12, 1, 19, 0, tzinfo=UTC)

PIANO = [
    ("user", "We're finally getting Maya a piano teacher. Two people answered the ad at the community centre."),
    ("assistant", "Lovely. What do you know about them so far?"),
    ("user", "Mrs Lindqvist teaches classical grades; Theo is younger and does pop and jazz by ear."),
    ("assistant", "Both sound good for a beginner. Would Maya rather sit graded exams, or play songs she already knows?"),
    ("user", "She hates exams, so we went with Theo. I'll message him tonight."),
    ("user", "Also the boiler needs its annual service before the frost sets in."),
    ("assistant", "Noted. Shall I remind you next week about the boiler?"),
    ("user", "Yes please."),
]


def _said(mem: mnemir.Memory, turns: list[tuple[str, str]]) -> None:
    say(mem, turns, user="ines", start=START)


def _scored(text: str, relevance: float, minutes: int, speaker: str = "user") -> Scored:
    at = START + timedelta(minutes=minutes)
    record = MemIR(content=Content(text=text), type="Fact", properties={}, scope=Scope(user_id="ines"),
                   metadata=Metadata(created_at=at, updated_at=at, source=Source(speaker=speaker, at=at)))
    return Scored(Candidate(record, similarity=relevance), "answer", relevance, relevance, relevance)


def test_the_decision_closest_to_a_question_about_a_choice_keeps_a_place() -> None:
    order = [_scored(f"Something said about the garden, number {i}.", 0.6 - i / 100, i) for i in range(6)]
    decision = _scored("Went for the slate path in the end.", 0.2, 10)
    other = _scored("Chose the quieter hotel.", 0.1, 11)
    out = decision_keeps_place([*order, decision], [other, decision], 5, {})
    assert out[4] is decision and out[:4] == order[:4] and len(out) == 7
    # already shown, barred, or not the user's: the order stays
    shown = [decision, *order]
    assert decision_keeps_place(shown, [decision], 5, {}) == shown
    assert decision_keeps_place([*order, decision], [decision], 5, {decision.record.id: "taken back"}) == [*order, decision]
    theirs = _scored("The assistant suggested the slate path.", 0.3, 12, speaker="assistant")
    assert decision_keeps_place([*order, theirs], [theirs], 5, {}) == [*order, theirs]


@pytest.mark.parametrize("closest", [2, 0])
def test_a_question_about_the_choice_reaches_the_closest_decision(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch,
                                                                  closest: int) -> None:
    monkeypatch.setattr(judgements, "DECISIONS_CLOSEST", closest)
    monkeypatch.setattr(judgements, "DECISION_REACH", 2.0)  # no decision is as close as the best candidate
    monkeypatch.setattr(judgements, "DECISION_TERM_FLOOR", 2.0)  # nor reached through a shared word
    _said(mem, PIANO)
    hits = mem.recall("Which piano teacher did we pick for Maya?", user="ines", k=5,
                      now=START + timedelta(hours=2)).hits
    reached = any("a statement of a decision" in r for h in hits for r in h.reasons if 5 in shown_turns([h])[0])
    assert reached == bool(closest), [(h.memory.type, h.memory.text, h.reasons) for h in hits]
