"""Dialogue state, session 19 (issues 14 and 15, docs/decisions/0064): a choice put off is no decision; a change
or a correction replaces only a statement about the same thing. Real SQLite memory and the real default embedder;
every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.memory.understanding import _choice_of, _without_deferrals
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
