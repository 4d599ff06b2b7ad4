"""Dialogue state, session 19 (issues 14 and 15, docs/decisions/0064): a choice put off is no decision; a change
or a correction replaces only a statement about the same thing. Real SQLite memory and the real default embedder;
every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.lifecycle.terms import content_terms
from mnemir.memory.understanding import Candidate, _about_the_same, _choice_of, _without_deferrals
from mnemir.retrieve.judgements import states_decision

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "rest"), [
    ("行吧，那就等过完年再说。", "行吧"),
    ("窗帘就选米白那款，沙发等搬家以后再说。", "窗帘就选米白那款"),
    ("Fine, let's hold off on the bike until spring.", "Fine"),
    ("We'll see how the budget looks after Christmas.", ""),
    ("I'll see the landlord on Friday.", None),  # "I'll see" someone puts nothing off
    ("Took the oak table for the kitchen.", None),
])
def test_the_clauses_that_put_a_choice_off_are_left_out(text: str, rest: str | None) -> None:
    assert _without_deferrals(text) == rest


def test_a_choice_to_choose_later_names_no_option() -> None:
    assert _choice_of("那就等明年再说吧") is None
    assert _choice_of("那就报周末班吧") is not None


def _decided(mem: mnemir.Memory, user: str, turn: int) -> list[str]:
    return [r.content.text for r in mem.list(user=user) if states_decision(r) and r.metadata.source.turn == turn]


def test_a_choice_put_off_is_not_kept_as_a_decision(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    turns = [("user", "年底想换个车，电车还是油车还没想好。"),
             ("assistant", "可以先比较一下两种车一年的用车成本。"),
             ("user", "行吧，那就等过完年再说。")]
    say(mem, turns, user="lin", start=START)
    assert not _decided(mem, "lin", 3)
    # the learned reading alone takes the turn for a choice made
    monkeypatch.setattr(understanding, "DEFERRALS_LEFT_OUT", False)
    say(mem, turns, user="mei", start=START)
    assert _decided(mem, "mei", 3)


def test_a_choice_made_beside_one_put_off_is_kept(mem: mnemir.Memory) -> None:
    turns = [("user", "新家的窗帘和沙发都还没买。"),
             ("assistant", "窗帘颜色你有想法了吗？"),
             ("user", "窗帘就选米白那款，沙发等搬家以后再说。")]
    say(mem, turns, user="qiu", start=START)
    assert _decided(mem, "qiu", 3)


def _candidate(kind: str, text: str, similarity: float, *reasons: str) -> Candidate:
    return Candidate("m1", text, similarity, (f"{kind}, text similarity {similarity:.2f}", *reasons), similarity)


def test_a_statement_is_replaced_only_when_both_are_about_the_same_thing() -> None:
    terms = content_terms("Our reading group now meets on Wednesdays at the library")
    # close in meaning
    assert _about_the_same(_candidate("Fact", "The reading group meets on Mondays at the cafe", 0.72), "Fact", terms)
    # a stance is what a change of mind replaces
    assert _about_the_same(_candidate("Preference", "I prefer quiet cafes", 0.45), "Preference", terms)
    # one shared word is not enough, nor a shared weekday (a value, not a topic)
    assert not _about_the_same(_candidate("Fact", "The library closes at 8 on Wednesdays", 0.45, "shares library, wednesday"),
                               "Fact", terms)
    # a shared word and a value of the same kind, or three shared words, are
    assert _about_the_same(_candidate("Fact", "The group meets on Mondays", 0.45, "shares group",
                                      "gives a value of the same kind: date"), "Fact", terms)
    assert _about_the_same(_candidate("Fact", "Reading group at the library", 0.45, "shares group, library, read"),
                           "Fact", terms)
    # a guess does not replace what is known
    assert not _about_the_same(_candidate("Fact", "The reading group meets on Mondays", 0.9), "Hypothesis", terms)


def test_a_number_shared_is_no_topic() -> None:
    terms = content_terms("房贷现在还剩三十万")
    assert not _about_the_same(_candidate("Fact", "我们结婚三十年了", 0.45, "shares 三十"), "Fact", terms)


def test_a_change_about_the_same_person_but_another_thing_replaces_nothing(mem: mnemir.Memory,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    first, then = "女儿的游泳课每周二下午四点，在区体育馆。", "女儿现在能游五十米了，教练说可以学蝶泳了。"
    mem.remember(first, user="ren", now=START)
    mem.remember(then, user="ren", now=START + timedelta(days=3))
    assert first in [r.content.text for r in mem.list(user="ren") if r.type == "Fact"]
    # without the check, the later statement about the daughter replaced the lesson time
    monkeypatch.setattr(understanding, "SAME_THING", False)
    mem.remember(first, user="su", now=START)
    mem.remember(then, user="su", now=START + timedelta(days=3))
    assert first not in [r.content.text for r in mem.list(user="su") if r.type == "Fact"]


def test_a_changed_value_still_replaces_the_old_one(mem: mnemir.Memory) -> None:
    mem.remember("The hostel charges $30 a night for a dorm bed.", user="tao", now=START)
    done = mem.remember("The hostel now charges $34 a night for a dorm bed.", user="tao", now=START + timedelta(days=3))
    assert any("superseded" in note for note in done.notes), done.notes
    assert [r.content.text for r in mem.list(user="tao") if r.type == "Fact"] == [
        "The hostel now charges $34 a night for a dorm bed."]


def test_a_changed_stance_stated_as_a_choice_keeps_its_preference(mem: mnemir.Memory,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    old = "Spin classes at the gym are my favourite workout, the louder the better."
    new = ("I've had enough of crowded spin classes, so I've decided to stick with riding outdoors with the club from "
           "now on.")
    mem.remember(old, user="uma", now=START)
    mem.remember(new, user="uma", now=START + timedelta(days=2))
    live = [(r.type, r.content.text) for r in mem.list(user="uma") if r.type != "Episode"]
    assert ("Preference", new) in live and ("Preference", old) not in live, live
    assert any(states_decision(r) for r in mem.list(user="uma"))
    # before: the decision read from the same turn replaced the new preference itself
    monkeypatch.setattr(understanding, "SAID_NOW_NOT_REPLACED", False)
    mem.remember(old, user="vic", now=START)
    mem.remember(new, user="vic", now=START + timedelta(days=2))
    assert ("Preference", new) not in [(r.type, r.content.text) for r in mem.list(user="vic")]


def test_decisions_on_different_matters_stand_side_by_side(mem: mnemir.Memory) -> None:
    first = mem.add("Took the grey sofa in the end, the green one was too deep.", "Fact",
                    {"entity": "user", "attribute": "decision", "value": "the grey sofa"}, user="wen", now=START)
    second = mem.add("Booked the cottage by the lake for the August week.", "Fact",
                     {"entity": "user", "attribute": "decision", "value": "the cottage by the lake"}, user="wen",
                     now=START + timedelta(days=1))
    live = {r.id for r in mem.list(user="wen")}
    assert {first.id, second.id} <= live
