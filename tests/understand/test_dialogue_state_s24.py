"""Dialogue state, session 24 (issue 15, docs/decisions/0088): the value a correction takes back is read where it
is ended by a dash, a bracket or "at all", inside a quote that retracts it, or restated beside the new value; the
statements that gave it are outdated whatever they were read as; a report told before what follows it closes its
work. Real SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.memory.understanding import (
    _named_old_value,
    _own_work_after,
    _said_before,
    _states_value,
    _told_before_ahead,
    _told_sentences,
    _values_in,
)

START = datetime(2026, 10, 5, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "value"), [
    ("The fee is $40 in the end, not $35 - the club raised it.", "$35"),
    ("The hall seats 90, not 120 (the balcony is shut).", "120"),
    ("Turns out the boat is a Beneteau, not a Jeanneau at all.", "a Jeanneau"),
    ("It's on Friday the 9th, not Thursday the 8th.", "Thursday the 8th"),
])
def test_a_named_old_value_ends_at_a_dash_a_bracket_or_at_all(text: str, value: str) -> None:
    assert _named_old_value(text) == value


@pytest.mark.parametrize("text", ["I'm not sure - maybe later.", "It's not great (but fine).",
                                  "I was not planning to - too busy.", "No idea, not at all."])
def test_a_judgement_or_a_verb_after_not_names_no_value(text: str) -> None:
    old = _named_old_value(text)
    assert old is None or not understanding._names_a_value(old), old


def test_a_quote_that_retracts_itself_names_its_value() -> None:
    assert _said_before("顺便说一下，上次说三只猫不对，现在是四只。") == "三只猫"
    assert _said_before("上次说三只猫，她很喜欢。") is None


def test_values_and_numbers_beside_han() -> None:
    assert _values_in("房子是2015年买的，2012是开盘的时间") == ["2015", "2012"]
    assert _states_value("我们2012年搬进来的", "2012")
    assert not _states_value("门牌号是120123", "2012")


def test_sentences_that_ask_are_set_apart() -> None:
    assert _told_sentences("It's a Yamaha, not a Kawai. Does that matter?") == "It's a Yamaha, not a Kawai."
    assert _told_sentences("What now?") == ""


def test_a_report_told_before_what_follows() -> None:
    assert _told_before_ahead("Posted the forms, the reply should come in May.") == "Posted the forms,"
    assert _told_before_ahead("Haven't posted the forms yet, doing it tonight.") is None
    assert _told_before_ahead("I need to post the forms, then call them.") is None
    assert _told_before_ahead("Correction, I paid $40 not $30, still need the receipt.") is None
    assert _own_work_after("Posted the forms, now I need to call the office.", "Posted the forms,")
    assert not _own_work_after("Posted the forms, it should arrive Monday.", "Posted the forms,")


@pytest.mark.parametrize(("user", "turns"), [
    # the old value is named and bounded by a dash
    ("quiz", [("user", "Entry for the quiz night is $15 a team, payable at the door."), ("assistant", "Sounds fair."),
              ("user", "I also booked the function room upstairs."),
              ("user", "Entry ended up at $20 a team, not $15 - the pub asked us to cover the staff.")]),
    # a misread cue beside two values, one of them said before
    ("che", [("user", "我在成都上班，家里养了只橘猫，通勤骑一辆雅迪电动车，2020年的，续航还行。"), ("assistant", "好的。"),
             ("user", "最近刹车有点松。"),
             ("user", "另外电动车是2021年的，我翻了发票才发现，2020是我换工作那年，记混了。")]),
])
def test_a_value_taken_back_outdates_the_turn_that_stated_it(mem: mnemir.Memory, user: str,
                                                            turns: list[tuple[str, str]]) -> None:
    say(mem, turns, user=user, start=START)
    superseded = [r for r in mem.list(user=user, statuses=["superseded"])]
    assert 1 in {r.metadata.source.turn for r in superseded}, [(r.type, r.content.text) for r in superseded]


def test_a_report_told_before_what_follows_closes_its_task(mem: mnemir.Memory) -> None:
    turns = [("user", "I need to order new brake pads for the bike this week."), ("assistant", "Noted."),
             ("user", "The weather has been awful lately.")]
    say(mem, turns, user="pads", start=START)
    mem.remember("Ordered the brake pads last night, they should arrive on Friday.", user="pads", session="s2",
                 turn=4, now=START + timedelta(days=2))
    tasks = [r for r in mem.list(user="pads", types=["Task", "Plan"]) if r.metadata.source.turn == 1]
    assert tasks and all(r.properties.get("status") == "completed" for r in tasks), \
        [(r.content.text, r.properties.get("status")) for r in tasks]


def test_reports_told_of_another_person_are_kept_only_under_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    # off as shipped (0088): work done by others ("the council wrote back") often closes the user's task
    assert _told_before_ahead("The council wrote back, I have to send a plan.") == "The council wrote back,"
    monkeypatch.setattr(understanding, "OTHERS_APART", True)
    assert _told_before_ahead("The council wrote back, I have to send a plan.") is None
    assert _told_before_ahead("老王把样品寄来了，我得周五前回他。") is None
    assert _told_before_ahead("表交了，下周还得去面试。") == "表交了，"
