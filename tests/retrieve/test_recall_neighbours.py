"""Plain search's order over talk between people with the turns beside each (``RecallConfig.chat_neighbour_weight``,
``fusion.plain_group_ranks``' ``neighbour_weight``): a reply that names nothing the question names rises with the
turn that drew it (the gain itself, on real records); a user's talk with the assistant keeps its order. Real
stores, the real embedder; every sentence is made up here. (Where the reply lands in a whole recall is not pinned:
recall's order of near ties still depends on the interpreter's hash seed; see docs/decisions/0129.)"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.retrieve.test_recall_talk import ALONE
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.fusion import _with_neighbours

#: two friends chatting; the fifth turn answers the fourth and names none of its words
CHAT = [("user", "Wanda: The bakery on the corner started selling rye loaves again."),
        ("user", "Oskar: Finally, I missed those more than I admit."),
        ("user", "Wanda: My knee is still sore after the hike up the ridge."),
        ("user", "Oskar: Did your nephew ever enter that chess tournament in Ghent?"),
        ("user", "Wanda: He did, and came home with third place and a tiny trophy."),
        ("user", "Oskar: Our boiler broke again, the third time this winter."),
        ("user", "Wanda: Call the plumber from the flyer, he was quick with ours."),
        ("user", "Oskar: I bought a second-hand bike for the commute."),
        ("user", "Wanda: Does it have gears, or is it one of those single-speed ones?"),
        ("user", "Oskar: Seven gears, and a basket for groceries."),
        ("user", "Wanda: The cinema is showing old westerns on Thursdays now."),
        ("user", "Oskar: Count me in, I love a good showdown at noon.")]
QUERY = "How did Wanda's nephew do at the chess tournament in Ghent?"
REPLY = "third place"


def _order(mem: mnemir.Memory, query: str, config: RecallConfig, now: datetime, k: int = 10) -> list[str]:
    mem.recall_config = config
    return [h.memory.text for h in mem.recall(query, user="ines", k=k, now=now).hits]


def _place(texts: list[str], part: str) -> int:
    return next((n for n, t in enumerate(texts) if part in t), len(texts))


def test_on_by_default_and_the_reply_stays_within_reach(mem: mnemir.Memory, now: datetime) -> None:
    """On by default (0.5); on or off, the reply is among what recall shows of a short chat (the gain only reorders
    groups the searches found, it adds and drops none)."""
    assert RecallConfig().chat_neighbour_weight == 0.5
    _said(mem, CHAT, now - timedelta(days=1))
    for weight in (0.0, 0.5):
        shown = _order(mem, QUERY, RecallConfig(chat_neighbour_weight=weight), now, k=len(CHAT))
        assert _place(shown, REPLY) < len(shown), shown


@pytest.mark.parametrize("query", ["When is my eye test?", "What should I buy this week?"])
def test_a_users_talk_with_the_assistant_keeps_its_order(mem: mnemir.Memory, now: datetime, query: str) -> None:
    """Where the assistant speaks the store is the user's talk with it, not talk between people: unchanged."""
    _said(mem, ALONE, now - timedelta(days=3))
    assert _order(mem, query, RecallConfig(chat_neighbour_weight=1.0), now, k=5) == \
        _order(mem, query, RecallConfig(chat_neighbour_weight=0.0), now, k=5)


@pytest.mark.parametrize("value", [-0.1, 1.5, True, "half"])
def test_the_setting_is_checked(value: object) -> None:
    with pytest.raises(ValidationError):
        RecallConfig(chat_neighbour_weight=value)  # type: ignore[arg-type]


def test_each_turn_gains_a_share_of_its_best_neighbour(mem: mnemir.Memory, now: datetime) -> None:
    """The gain reads the scores before any gain, only from the turns just before and after in the same session."""
    said = _said(mem, CHAT[:4], now - timedelta(days=1))
    other = mem.remember("Oskar: A turn of another sitting.", speaker="user", user="ines", session="s2", turn=3,
                         now=now).episode
    assert other is not None
    first = {r.id: r for r in mem.store.fetch([*said.values(), other.id])}
    scores = {said[1]: 0.1, said[2]: 0.0, said[3]: 0.4, other.id: 1.0}  # turn 4 found by neither search
    gained = _with_neighbours(scores, first, 0.5)
    assert gained == pytest.approx({said[1]: 0.1, said[2]: 0.2, said[3]: 0.4, other.id: 1.0})
