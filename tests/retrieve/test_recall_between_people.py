"""Recall over a conversation between people (issue 14, docs/decisions/0090): a transcript is a record of what each
person said at the time, so what a later turn replaced or took back stays findable as said there; over a user's
talk with the assistant nothing changes. Real stores, the real embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.retrieve import RecallConfig

#: a chat between two friends, kept as a transcript: each turn opens with its speaker's name
CHAT = [
    "Odile: Morning! Did you get home all right after the concert?",
    "Bram: Yes, the last tram was packed but fine.",
    "Odile: Good. I'm finally sorting out my eyes, by the way.",
    "Bram: About time, you squint at every menu.",
    "Odile: Got the optician sorted, they could only fit me in on Monday the 9th.",
    "Bram: My sister is visiting from Ghent next weekend.",
    "Odile: Wait, I misread the card: the optician is Thursday the 12th, not the 9th.",
]
#: the same words said by a user to the assistant, no names
ALONE = [("user", t.split(": ", 1)[1]) if t.startswith("Odile") else ("assistant", t.split(": ", 1)[1]) for t in CHAT]
QUERY = "When did Odile first say her optician appointment was?"


def _turns(result: mnemir.Recall) -> set[int]:
    return {s.turn for h in result.hits for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources)
            if s.turn}


def test_a_turn_a_later_one_took_back_stays_findable_in_a_chat(mem: mnemir.Memory, now: datetime) -> None:
    """``chat_past``: in a transcript of two people, the turn a correction took back is still what was said then:
    it is shown beside the correction (without the setting it is left out, and the notes name why)."""
    start = now - timedelta(days=3)
    _said(mem, [("user", t) for t in CHAT], start)
    first = next(r for r in mem.list(user="ines") if r.type == "Episode" and r.metadata.source.turn == 5)
    assert first.metadata.extra.get("transcript"), first.metadata.extra  # read as a transcript's turn
    mem.recall_config = RecallConfig(chat_past=False)
    before = mem.recall(QUERY, user="ines", k=5, now=now)
    assert 5 not in _turns(before), [(h.memory.type, h.memory.text) for h in before.hits]
    assert any("took back" in n or "replaced" in n or "superseded" in n for n in before.notes), before.notes
    mem.recall_config = RecallConfig(chat_past=True)
    after = mem.recall(QUERY, user="ines", k=5, now=now)
    assert {5, 7} <= _turns(after), [(h.memory.type, h.memory.text) for h in after.hits]


def test_the_chat_settings_leave_a_user_assistant_store_as_it_was(mem: mnemir.Memory, now: datetime) -> None:
    """Over a user's own talk with the assistant (no transcript), the ``chat_*`` settings change no hit and no
    note: the correction still takes the old utterance out."""
    _said(mem, ALONE, now - timedelta(days=3))
    query = "When is my optician appointment?"
    mem.recall_config = RecallConfig(chat_past=False, chat_plain_share=None, chat_confident_intent=None)
    base = mem.recall(query, user="ines", k=5, now=now)
    mem.recall_config = RecallConfig(chat_past=True, chat_plain_share=1.0, chat_confident_intent=1.0)
    chat = mem.recall(query, user="ines", k=5, now=now)
    assert [h.id for h in chat.hits] == [h.id for h in base.hits]
    assert chat.notes == base.notes
    assert 5 not in _turns(chat), [(h.memory.type, h.memory.text) for h in chat.hits]


def test_chat_settings_are_checked() -> None:
    for bad in ({"chat_past": 1}, {"chat_plain_share": 1.5}, {"chat_confident_intent": -0.1},
                {"chat_plain_share": True}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]
    assert RecallConfig(chat_plain_share=None, chat_confident_intent=None).chat_plain_share is None
    defaults = RecallConfig()
    assert defaults.chat_past and defaults.chat_plain_share is None and defaults.chat_confident_intent is None


@pytest.mark.parametrize("query", [QUERY, "What is Bram's sister doing next weekend?", "How was the concert?"])
def test_the_tail_is_on_between_people_only(mem: mnemir.Memory, now: datetime, query: str) -> None:
    """By default (``chat_tail_share`` 1.0, ``chat_tail_said``: decision 0101) a top 10 over a transcript of two
    people is the answer of the tail with its stand-in set for every store, and over the same words said to the
    assistant the answer of no tail at all."""
    _said(mem, [("user", t) for t in CHAT], now - timedelta(days=3))

    def top(config: RecallConfig) -> tuple[list[str], list[str]]:
        mem.recall_config = config
        result = mem.recall(query, user="ines", k=10, now=now)
        return [h.id for h in result.hits], result.notes

    everywhere = RecallConfig(plain_tail_share=1.0, plain_tail_said=True, chat_tail_share=None, chat_tail_said=None)
    assert top(RecallConfig()) == top(everywhere)


def test_no_tail_over_a_users_talk_with_the_assistant(mem: mnemir.Memory, now: datetime) -> None:
    """Over a user's own talk with the assistant (no transcript) the default top 10 is the one with no tail."""
    _said(mem, ALONE, now - timedelta(days=3))
    off = RecallConfig(chat_tail_share=None, chat_tail_said=None)
    for query in ("When is my optician appointment?", "Who is visiting next weekend?"):
        mem.recall_config = RecallConfig()
        default = mem.recall(query, user="ines", k=10, now=now)
        mem.recall_config = off
        plain = mem.recall(query, user="ines", k=10, now=now)
        assert [h.id for h in default.hits] == [h.id for h in plain.hits] and default.notes == plain.notes
