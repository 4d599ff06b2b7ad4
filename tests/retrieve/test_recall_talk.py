"""Talk between people with no speaker named (issue 14, docs/decisions/0103): ``remember`` keeps on each user turn's
Episode the learned log-odds that the turn is talk between people (:mod:`mnemir.understand.talk`), and with
``RecallConfig.talk_among_people`` recall reads their mean over the utterances plain search finds first as it reads a
transcript's marks (``chat_*``). Real stores, the real embedder and the shipped model; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.understand.talk import TALK, shipped_talk_turns

#: two friends chatting, both turns said as the user's (no names: nothing marks a transcript)
CHAT = ["Hey you! Did you make it home okay after the concert?",
        "I did, thanks! The last tram was packed but fine. How's your week going?",
        "Busy, but good. I'm finally getting my eyes checked, can you believe it?",
        "About time, you squint at every menu we share, haha.",
        "Ha, rude. They could only fit me in on Monday the 9th.",
        "Oh nice, which optician did you pick?",
        "The little one by the bakery. Wait, I misread the card: it's Thursday the 12th, not the 9th.",
        "Thursday works better anyway, right? You have choir on Mondays.",
        "True! You always remember my schedule better than I do."]
#: a user's own notes and requests to the assistant about the same errand
ALONE = [("user", "Book me an eye test for next week"), ("assistant", "Sure, which day suits you?"),
         ("user", "I'm finally getting my eyes checked."), ("user", "Remind me on Sunday to call the optician"),
         ("user", "They could only fit me in on Monday the 9th."),
         ("user", "Wait, I misread the card: it's Thursday the 12th, not the 9th."),
         ("user", "Add new glasses to my shopping list"), ("user", "I have choir on Mondays")]
ON = RecallConfig(talk_among_people=0.0)
OFF = RecallConfig(talk_among_people=None)

pytestmark = pytest.mark.skipif(shipped_talk_turns() is None, reason="no talk model shipped")


def _talk(mem: mnemir.Memory) -> list[float]:
    return [float(r.metadata.extra[TALK]) for r in mem.list(user="ines", limit=100)
            if r.type == "Episode" and TALK in r.metadata.extra]


def test_remember_keeps_the_reading_on_the_users_turns(mem: mnemir.Memory, now: datetime) -> None:
    """Each user turn's Episode holds the log-odds, the assistant's none; a chat between friends reads as talk
    between people on the mean, a user's notes and requests to the assistant as not."""
    _said(mem, ALONE, now - timedelta(days=3))
    episodes = [r for r in mem.list(user="ines", limit=100) if r.type == "Episode"]
    assert all((TALK in r.metadata.extra) == (r.metadata.source.speaker == "user") for r in episodes)
    alone = _talk(mem)
    assert len(alone) == 7 and sum(alone) / len(alone) < 0.0, alone


def test_a_chat_reads_as_talk_between_people(mem: mnemir.Memory, now: datetime) -> None:
    _said(mem, [("user", t) for t in CHAT], now - timedelta(days=3))
    chat = _talk(mem)
    assert len(chat) == len(CHAT) and sum(chat) / len(chat) > 0.5, chat


def _turns(result: mnemir.Recall) -> set[int]:
    return {s.turn for h in result.hits for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources)
            if s.turn}


def test_an_unnamed_chat_is_recalled_as_a_conversation_between_people(mem: mnemir.Memory, now: datetime) -> None:
    """With ``talk_among_people`` the chat's turns are read as a conversation between people (``chat_past``: the
    turn a later one corrected is still what was said then, and is shown); off, as before 0103, the correction takes
    the earlier turn out."""
    _said(mem, [("user", t) for t in CHAT], now - timedelta(days=3))
    query = "When did they first say the eye test was?"
    mem.recall_config = OFF
    before = mem.recall(query, user="ines", k=5, now=now)
    mem.recall_config = ON
    after = mem.recall(query, user="ines", k=5, now=now)
    assert 5 not in _turns(before), [(h.memory.type, h.memory.text) for h in before.hits]
    assert 5 in _turns(after), [(h.memory.type, h.memory.text) for h in after.hits]


@pytest.mark.parametrize("query", ["When is my eye test?", "What should I buy?", "What do I do on Mondays?"])
def test_a_users_talk_with_the_assistant_is_left_as_it_was(mem: mnemir.Memory, now: datetime, query: str) -> None:
    _said(mem, ALONE, now - timedelta(days=3))
    mem.recall_config = OFF
    off = mem.recall(query, user="ines", k=10, now=now)
    mem.recall_config = ON
    on = mem.recall(query, user="ines", k=10, now=now)
    assert [h.id for h in on.hits] == [h.id for h in off.hits] and on.notes == off.notes


def test_too_few_turns_say_nothing(mem: mnemir.Memory, now: datetime) -> None:
    """Under ``talk_least`` user turns found, the mean is not read: the chat's first four turns stay a user's store."""
    _said(mem, [("user", t) for t in CHAT[:4]], now - timedelta(days=3))
    for query in ("How was the concert?", "How did they get home?"):
        mem.recall_config = OFF
        off = mem.recall(query, user="ines", k=10, now=now)
        mem.recall_config = ON
        on = mem.recall(query, user="ines", k=10, now=now)
        assert [h.id for h in on.hits] == [h.id for h in off.hits] and on.notes == off.notes


def test_talk_settings_are_checked() -> None:
    for bad in ({"talk_among_people": 7.0}, {"talk_among_people": True}, {"talk_depth": 0}, {"talk_least": -1}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]
    assert RecallConfig(talk_among_people=-1.5).talk_among_people == -1.5
    defaults = RecallConfig()
    assert (defaults.talk_among_people, defaults.talk_no_assistant, defaults.talk_turns_stay) == (0.0, True, True)
    assert (defaults.talk_depth, defaults.talk_least) == (20, 5)


def test_no_reading_where_the_assistant_speaks(mem: mnemir.Memory, now: datetime) -> None:
    """``talk_no_assistant`` (default): an assistant's turn among what the question finds makes the store a user's
    talk with it, however the user's turns read; with the guard off the same chat is read as between people (its
    answer changes)."""
    turns = [("user", t) for t in CHAT]
    turns.insert(2, ("assistant", "Glad you got home safely. Anything you'd like me to note?"))
    _said(mem, turns, now - timedelta(days=3))
    query = "When did they first say the eye test was?"
    mem.recall_config = OFF
    off = mem.recall(query, user="ines", k=5, now=now)
    mem.recall_config = ON
    on = mem.recall(query, user="ines", k=5, now=now)
    assert [h.id for h in on.hits] == [h.id for h in off.hits] and on.notes == off.notes
    mem.recall_config = ON.with_(talk_no_assistant=False)
    unguarded = mem.recall(query, user="ines", k=5, now=now)
    assert ([h.id for h in unguarded.hits], unguarded.notes) != ([h.id for h in on.hits], on.notes)
