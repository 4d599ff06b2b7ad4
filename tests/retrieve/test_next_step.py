"""Asked what comes next, the latest step still ahead the user stated goes first (issue 15). Whether a question asks
that is read by the shipped query-kind model from the real embedder's vector. Sentences made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemir.embed import default_embedder
from mnemir.ir import Content, MemIR, Metadata, Scope, Source
from mnemir.retrieve.judgements import next_step_first
from mnemir.retrieve.query_kinds import QueryReading, read_query
from mnemir.retrieve.ranking import Candidate, Scored

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def reading(query: str) -> QueryReading:
    embedder = default_embedder()
    return read_query(embedder.embed_query(query), embedder.model_id)


def said(text: str, relevance: float, minutes_ago: int, speaker: str = "user", type_: str = "Episode",
         status: str | None = None) -> Scored:
    at = NOW - timedelta(minutes=minutes_ago)
    props = {"speaker": speaker} if status is None else {"status": status}
    record = MemIR(content=Content(text=text), type=type_, properties=props,
                   scope=Scope(user_id="alice"),
                   metadata=Metadata(created_at=at, updated_at=at, source=Source(speaker=speaker, at=at)))
    return Scored(Candidate(record, similarity=relevance), "answer", relevance, relevance, relevance)


def test_the_latest_step_ahead_goes_first_for_a_question_about_what_comes_next() -> None:
    order = [said("The tiler finished the bathroom floor on Monday.", 0.62, 90),
             said("Book the plumber to move the pipes.", 0.6, 300, type_="Task", status="completed"),
             said("Get the electrician in on the 3rd to fit the lights.", 0.55, 20, type_="Plan", status="pending"),
             said("Want me to set a reminder for the electrician visit?", 0.6, 19, speaker="assistant")]
    out = next_step_first(order, reading("What's the next step on the bathroom job?"))
    assert out[0] is order[2] and sorted(map(id, out)) == sorted(map(id, order))


def test_other_questions_and_far_less_relevant_statements_keep_their_order() -> None:
    order = [said("The tiler finished the bathroom floor on Monday.", 0.62, 90),
             said("Repaint the shed.", 0.3, 20, type_="Task", status="pending")]
    assert next_step_first(order, reading("What did the tiler do?")) == order
    asked = reading("What's the next step on the bathroom job?")
    assert asked.asks_next and next_step_first(order, asked) == order  # 0.3 is far below the best 0.62


def test_an_utterance_worded_as_a_step_ahead_is_no_step_by_its_wording() -> None:
    """What counts as a step ahead is what the write side read (an open task or plan step), not the wording."""
    order = [said("The tiler finished the bathroom floor on Monday.", 0.62, 90),
             said("Next up, the electrician comes on the 3rd.", 0.6, 20)]
    asked = reading("What's the next step on the bathroom job?")
    assert asked.asks_next and next_step_first(order, asked) == order


def test_the_reason_names_the_reading() -> None:
    order = [said("The tiler finished the bathroom floor on Monday.", 0.62, 90),
             said("Get the electrician in on the 3rd to fit the lights.", 0.55, 20, type_="Plan", status="pending")]
    out = next_step_first(order, reading("What's the next step on the bathroom job?"))
    assert any("read as next_step" in r for r in out[0].reasons), out[0].reasons
