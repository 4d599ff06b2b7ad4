"""The keyword order's weight over a conversation between people (issue 14, docs/decisions/0112):
``RecallConfig.chat_text_weight`` (and ``chat_text_weight_long`` from ``chat_long_turns`` utterances on) set how much
recall's plain search over the utterances weighs its keyword order where the store is read as talk between people,
and nowhere else. Real stores, the real embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.retrieve.test_recall_talk import ALONE, CHAT
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve import RecallConfig
from mnemir.understand.talk import shipped_talk_turns

#: more of the two friends' chat (no names: the talk reading tells the store is talk between people)
MORE = ["Did you see the photos from the lake house? The sunset was unreal.",
        "Yes! The one with the dock is my new wallpaper.",
        "My cousin Ansel finally sold his old van, by the way.",
        "No way, the orange one? He drove that thing everywhere.",
        "We should plan another weekend away before the summer ends.",
        "Totally. Somewhere with a lake again, maybe up in the hills?",
        "The hills would be lovely, and cooler than the city.",
        "I still think about that swim we took at dawn last year.",
        "That water was freezing, I screamed so loud, haha.",
        "Let's pack the good cooler this time, the old one leaks.",
        "Speaking of trips, how was the drive back on Sunday?",
        "Long! Traffic near the bridge was backed up for an hour."]
QUERY = "What happened to the orange vehicle?"

pytestmark = pytest.mark.skipif(shipped_talk_turns() is None, reason="no talk model shipped")


def _texts(mem: mnemir.Memory, query: str, config: RecallConfig, now: datetime) -> list[str]:
    mem.recall_config = config
    return [h.memory.text for h in mem.recall(query, user="ines", k=5, now=now).hits]


def _chat(mem: mnemir.Memory, now: datetime) -> None:
    _said(mem, [("user", t) for t in CHAT + MORE], now - timedelta(days=3))


def test_the_keyword_orders_weight_moves_the_answer_over_talk_between_people(mem: mnemir.Memory,
                                                                              now: datetime) -> None:
    """Over an unnamed chat, the vector order alone (weight 0) and the keyword order weighed ten times give different
    answers; the turn that shares the question's rare word holds the first place under both."""
    _chat(mem, now)
    vector = _texts(mem, QUERY, RecallConfig(chat_text_weight=0.0), now)
    words = _texts(mem, QUERY, RecallConfig(chat_text_weight=10.0), now)
    assert vector != words
    assert "orange" in vector[0] and "orange" in words[0], (vector, words)


@pytest.mark.parametrize("query", ["When is my eye test?", "What should I buy?", QUERY])
def test_a_users_talk_with_the_assistant_keeps_its_weights(mem: mnemir.Memory, now: datetime, query: str) -> None:
    """Where the assistant speaks the store is the user's talk with it: the chat settings are not consulted."""
    _said(mem, ALONE, now - timedelta(days=3))
    plain = _texts(mem, query, RecallConfig(), now)
    assert _texts(mem, query, RecallConfig(chat_text_weight=10.0), now) == plain
    assert _texts(mem, query, RecallConfig(chat_text_weight=0.0, chat_text_weight_long=10.0, chat_long_turns=1),
                  now) == plain


def test_the_long_conversations_weight_counts_the_utterances(mem: mnemir.Memory, now: datetime) -> None:
    """``chat_text_weight_long`` takes over from ``chat_long_turns`` utterances in the user's scope on; under it
    ``chat_text_weight`` stands."""
    _chat(mem, now)
    n = len(CHAT) + len(MORE)
    short = _texts(mem, QUERY, RecallConfig(chat_text_weight=0.0), now)
    long = _texts(mem, QUERY, RecallConfig(chat_text_weight=10.0), now)
    assert _texts(mem, QUERY, RecallConfig(chat_text_weight=0.0, chat_text_weight_long=10.0,
                                           chat_long_turns=n + 1), now) == short
    assert _texts(mem, QUERY, RecallConfig(chat_text_weight=0.0, chat_text_weight_long=10.0,
                                           chat_long_turns=n), now) == long


@pytest.mark.parametrize("change", [{"chat_text_weight": -1.0}, {"chat_text_weight": 11.0},
                                    {"chat_score_weight": -0.5}, {"chat_text_weight_long": 20.0},
                                    {"chat_long_turns": 0}, {"chat_text_weight": True}])
def test_the_settings_are_checked(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RecallConfig(**change)  # type: ignore[arg-type]
