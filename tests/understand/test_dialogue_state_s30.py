"""Work said to be needed no more inside a statement read as a preference (docs/decisions/0106): "I like the bare
walls now, no need to hang the frames" tells a liking and drops an errand. Sentences invented for these tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say

import mnemir
from mnemir.ir import MemIR
from mnemir.memory import understanding

START = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def _tasks(mem: mnemir.Memory, user: str) -> list[MemIR]:
    return [m for m in mem.list(user=user, types=["Task"], limit=50)]


def _by_turn(mem: mnemir.Memory, user: str) -> dict[int, MemIR]:
    return {t.metadata.source.turn: t for t in _tasks(mem, user)}


@pytest.mark.parametrize(("errand", "other", "liking"), [
    ("I have to hang the picture frames in the hall.", "And I should renew my library card.",
     "Honestly I like the bare walls now, no need to hang the picture frames."),
    ("我得给公交卡充值。", "还要去取快递。", "现在我更喜欢走路上班了，公交卡不用再充了。"),
])
def test_a_liking_that_says_the_work_is_needed_no_more_drops_the_errand(
        mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch, errand: str, other: str, liking: str) -> None:
    monkeypatch.setattr(understanding, "CANCELS_FROM_PREFERENCE", True)
    say(mem, [("user", errand), ("user", other), ("user", liking)], user="pia", start=START)
    by_turn = _by_turn(mem, "pia")
    assert by_turn[1].properties["status"] == "failed"
    assert by_turn[2].properties["status"] == "pending"  # the other errand is left alone
    assert 3 not in by_turn
    # the liking is still kept as what it was read as
    assert any(m.metadata.source.turn == 3 for m in mem.list(user="pia", types=["Preference"], limit=50))


def test_without_the_switch_a_liking_drops_nothing(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "CANCELS_FROM_PREFERENCE", False)
    say(mem, [("user", "I have to hang the picture frames in the hall."),
              ("user", "Honestly I like the bare walls now, no need to hang the picture frames.")], user="quy",
        start=START)
    assert _by_turn(mem, "quy")[1].properties["status"] == "pending"


@pytest.mark.parametrize("liking", ["I like the bare walls now, no need to hang anything else today.",
                                    "Honestly I like a quiet evening, no need to remind me about anything."])
def test_a_liking_drops_no_errand_it_does_not_clearly_name(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch,
                                                           liking: str) -> None:
    monkeypatch.setattr(understanding, "CANCELS_FROM_PREFERENCE", True)
    say(mem, [("user", "I need to renew the parking permit."), ("user", liking)], user="rio", start=START)
    assert _by_turn(mem, "rio")[1].properties["status"] == "pending"
