"""Dialogue state, session 27 (issue 15, docs/decisions/0097): a yes to the assistant's question whether some work was
done closes the open task the question names (a no closes nothing, and the yes accepts no proposal); a correction
that quotes what was said before finds that statement by the quote's meaning and by whom the quote is about. Real
SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.memory.understanding import _is_quote, _says_yes, _status_question

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "question"), [
    ("Lovely photos. Did the parking permit form go in?", "Did the parking permit form go in?"),
    ("Sounds like a plan. Have you rung the garage yet?", "Have you rung the garage yet?"),
    ("太好了。对了，车票买了吗？", "车票买了吗？"),
    ("How's your knee?", None),
    ("What did the landlord say about the boiler?", None),
    ("要不要我帮你把采购单整理一下？", None),
])
def test_a_question_whether_work_was_done(text: str, question: str | None) -> None:
    assert _status_question(text) == question


@pytest.mark.parametrize(("text", "yes"), [
    ("Yes, on Tuesday. Nothing back yet.", True),
    ("Yep, all sorted.", True),
    ("买了，周五下午的。", True),
    ("交上去了，等通知。", True),
    ("Not yet, I'll post it after lunch tomorrow.", False),
    ("Nope, forgot again.", False),
    ("还没，明天去。", False),
    ("没买到，票卖完了。", False),
])
def test_a_yes_and_a_no(text: str, yes: bool) -> None:
    assert _says_yes(text) is yes


def test_quotes_and_bare_values() -> None:
    assert _is_quote("王姐儿子读初二")
    assert _is_quote("the loft was twelve metres")
    assert not _is_quote("初二")
    assert not _is_quote("the 4th")


def _statuses(mem: mnemir.Memory, user: str, turn: int) -> list[str]:
    return [str(r.properties.get("status")) for r in mem.list(user=user, types=["Task", "Plan"])
            if r.metadata.source.turn == turn]


PERMIT = [("user", "I need to send the parking permit form to the council this week."), ("assistant", "Noted."),
          ("user", "I also have to book a dentist check-up."), ("assistant", "Got it."),
          ("user", "The weather has been grim all week."),
          ("assistant", "Sounds miserable. Did the parking permit form go in?")]


@pytest.mark.parametrize(("answer", "closed"), [("Yes, on Tuesday. Nothing back yet.", True),
                                                ("Not yet, I'll post it after lunch tomorrow.", False)])
def test_a_yes_to_a_status_question_closes_the_task_it_names(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch,
                                                             answer: str, closed: bool) -> None:
    monkeypatch.setattr(understanding, "ANSWERED_STATUS_QUESTIONS", True)
    say(mem, [*PERMIT, ("user", answer)], user="permit", start=START)
    assert _statuses(mem, "permit", 1) == (["completed"] if closed else ["pending"])
    assert _statuses(mem, "permit", 3) == ["pending"]  # the other task is not touched
    # the yes accepts no proposal: no new task is read from the assistant's question
    assert not [r for r in mem.list(user="permit", types=["Task"]) if r.metadata.source.turn == 7]


def test_the_switch_off_leaves_the_task_open(mem: mnemir.Memory) -> None:
    assert understanding.ANSWERED_STATUS_QUESTIONS is False
    say(mem, [*PERMIT, ("user", "Yes, on Tuesday. Nothing back yet.")], user="off", start=START)
    assert _statuses(mem, "off", 1) == ["pending"]


def test_an_assistant_turn_alone_closes_nothing(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "ANSWERED_STATUS_QUESTIONS", True)
    say(mem, [*PERMIT, ("assistant", "Yes, the form went in on Tuesday.")], user="asst", start=START)
    assert _statuses(mem, "asst", 1) == ["pending"]


def test_a_correction_that_quotes_finds_the_statement_about_another_person(mem: mnemir.Memory,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "QUOTED_STATEMENTS", True)
    turns = [("user", "我同事王姐的儿子在育才中学读初二，她说那边管得很严。"), ("assistant", "听起来挺用心的。"),
             ("user", "有个老师跟我说他们初一每天晚自习到九点。"), ("assistant", "挺辛苦的。"),
             ("user", "对了，我之前说王姐儿子读初二，其实是初三，我记错了。")]
    say(mem, turns, user="quote", start=START)
    superseded = {r.metadata.source.turn for r in mem.list(user="quote", statuses=["superseded"])}
    assert superseded == {1}, superseded
