"""Typing adds to plain search at depth too (issue 14, docs/decisions/0098): past the answer's head, plain search's
best keep a share of the places (``plain_tail_share``), and there what was said stands in for a reading a confident
intent rules out (``plain_tail_said``); the head of the answer, the lifecycle exclusions and the asked-person step
stay as they are. Real stores, the real embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from recall_helpers import add, intent
from test_recall_evidence import _closed_task_and_ended_fact, _neighbour_news

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.fusion import depth_kept_places, kept_places
from mnemir.retrieve.recall import plain_utterance_order
from mnemir.store.base import Write

TAIL = RecallConfig(plain_tail_share=1.0)
SAID = RecallConfig(plain_tail_share=1.0, plain_tail_said=True)


def _shown(result: mnemir.Recall) -> set[str]:
    """The memories an answer shows: its hits, their quotes and the utterances they were read from."""
    return {h.id for h in result.hits} | {h.quote.id for h in result.hits if h.quote is not None} \
        | {r.target for h in result.hits for r in h.memory.relations("derived_from")}


def test_the_places_kept_past_the_head() -> None:
    """As many as the head keeps, plus the tail's share of the rest; never fewer than the share of the whole answer;
    an answer no longer than the head, or the setting at 0, is unchanged."""
    assert depth_kept_places(10, 0.5, 1.0, 5) == kept_places(5, 0.5) + 5 == 7
    assert depth_kept_places(10, 0.5, 0.0, 5) == kept_places(10, 0.5) == 5
    assert depth_kept_places(5, 0.5, 1.0, 5) == kept_places(5, 0.5) == 2
    assert depth_kept_places(3, 0.5, 1.0, 5) == 1
    assert depth_kept_places(10, 0.9, 0.5, 5) == kept_places(10, 0.9) == 9  # a doubtful intent keeps more already
    assert depth_kept_places(20, 1.0, 1.0, 5) == 20
    assert depth_kept_places(10, 0.5, 1.0, 3) == 8


def _garden(mem: mnemir.Memory, now: datetime) -> None:
    """A dozen memories about a garden, of several types (plain search ranks them by wording, the role order by role),
    and some that have nothing to do with it."""
    facts = ["The garden shed roof leaks at the back corner", "The apple tree in the garden was planted in 2011",
             "Our garden gets sun only after two in the afternoon", "The garden hose is coiled behind the shed",
             "The compost bin sits by the garden gate", "The garden fence on the left belongs to the neighbours"]
    for days, text in enumerate(facts, start=3):
        add(mem, now, text, "Fact", days=days)
    add(mem, now, "Fix the leak in the garden shed roof before the rain", "Task", {"status": "pending"}, days=2)
    add(mem, now, "I prefer low hedges around the garden to tall ones", "Preference",
        {"subject": "hedges", "preference_type": "like"}, days=30)
    add(mem, now, "Sitting in the garden in the evening calms me down", "EmotionalState",
        {"emotion_type": "calm", "trigger": "garden"}, days=12)
    add(mem, now, "Order garden gloves in size medium", "Task", {"status": "pending"}, days=4)
    for days, text in enumerate(["The printer on the third floor is out of toner", "My cousin plays the cello",
                                 "The wifi password changed", "I bought new running shoes"], start=40):
        add(mem, now, text, "Fact", days=days)



def _liked(mem: mnemir.Memory, now: datetime) -> None:
    """Things the user likes doing outdoors, none of which says "garden": asked for preferences, the role order
    ranks these first, plain search the garden's facts."""
    for days, text in enumerate(["I love planting tulip bulbs in the autumn", "I like the smell of freshly cut grass",
                                 "I enjoy pruning the roses on a quiet Sunday", "I prefer growing herbs to flowers",
                                 "I like watering the plants at dusk", "I love picking our own plums",
                                 "I enjoy weeding more than mowing"], start=50):
        add(mem, now, text, "Preference", {"subject": text.split()[-1], "preference_type": "like"}, days=days)


def _missing(mem: mnemir.Memory, now: datetime, query: str, asked: Any, first: int) -> list[int]:
    """The places (from 0) of plain search's first utterances that a top 10 neither shows nor names in its notes."""
    order = plain_utterance_order(mem.store, mem._selection(user="alice"), asked, mem.embedder.embed_query(query),
                                  now, 10)
    result = mem.recall(query, user="alice", k=10, now=now, intent=asked)
    shown = _shown(result)
    return [i for i, g in enumerate(order[:first]) if g not in shown and not any(g in n for n in result.notes)]


@pytest.mark.parametrize("query", ["What is in the garden?", "What do I know about the garden?",
                                   "Tell me about the garden shed"])
def test_plain_searchs_best_keep_most_places_of_a_long_answer(mem: mnemir.Memory, now: datetime, query: str) -> None:
    """With ``plain_tail_share`` 1.0, a top 10 holds plain search's first seven utterances (half the head of five,
    then every place past it), as themselves or as what was read from them, unless a named exclusion or a ruling
    leaves one out (said in the notes), though the role order ranks other memories (the preferences asked for) above
    them; a top 5 is the same answer as with the setting off. Asked what is in the garden, the role order's picks
    take the seventh's place without the setting."""
    _garden(mem, now)
    _liked(mem, now)
    asked = intent(query, "preference", ("Preference",), confidence=0.97)
    mem.recall_config = RecallConfig()
    head_before = mem.recall(query, user="alice", k=5, now=now, intent=asked)
    if query == "What is in the garden?":
        assert _missing(mem, now, query, asked, 7)
    mem.recall_config = TAIL
    head_after = mem.recall(query, user="alice", k=5, now=now, intent=asked)
    assert [h.id for h in head_after.hits] == [h.id for h in head_before.hits]
    assert not _missing(mem, now, query, asked, 7)


def _neighbour_news_among_more(mem: mnemir.Memory, now: datetime) -> str:
    """The friend's news misread as the user's own task (``_neighbour_news``), with facts enough to fill a top 10."""
    said = _neighbour_news(mem, now)
    for days, text in enumerate(["The dentist moved to the high street", "Our car needs new wiper blades"], start=15):
        add(mem, now, text, "Fact", days=days)
    return said


QUERY = "When does Priya start the pottery course?"


def test_what_was_said_stands_in_for_a_ruled_out_reading_past_the_head(mem: mnemir.Memory, now: datetime) -> None:
    """A very sure fact question rules the misread task out (the notes say so) at k = 5, with the tail on or off;
    at k = 10, with ``plain_tail_said``, the utterance itself is shown past the head, as what was said (an Episode,
    "stands in" in its reasons); the head of the answer is the one the ruling gave."""
    said = _neighbour_news_among_more(mem, now)
    sure = intent(QUERY, "fact_lookup", ("Fact",), confidence=0.97)
    assert said in {r.target for r in mem.search(QUERY, user="alice", k=1, now=now)[0].memory.relations(
        "derived_from")} | {mem.search(QUERY, user="alice", k=1, now=now)[0].id}
    mem.recall_config = RecallConfig()
    off = mem.recall(QUERY, user="alice", k=10, now=now, intent=sure)
    assert said not in _shown(off)
    assert any("a task is not its answer" in n for n in off.notes), off.notes
    mem.recall_config = SAID
    head = mem.recall(QUERY, user="alice", k=5, now=now, intent=sure)
    assert said not in _shown(head)  # the head keeps the ruling
    result = mem.recall(QUERY, user="alice", k=10, now=now, intent=sure)
    at = next(i for i, h in enumerate(result.hits) if h.id == said)
    hit = result.hits[at]
    assert at >= 5 and hit.memory.type == "Episode", [(h.memory.type, h.memory.text) for h in result.hits]
    assert any("stands in" in r for r in hit.reasons), hit.reasons
    assert any(said in n and "keeps its place" in n for n in result.notes), result.notes
    assert len({h.id for h in result.hits}) == len(result.hits) <= 10


def test_the_tail_keeps_the_lifecycle_exclusions(mem: mnemir.Memory, now: datetime) -> None:
    """Past the head too, a closed task asked about as open work and a validity that has ended stay out, named."""
    mem.recall_config = SAID
    done, expired = _closed_task_and_ended_fact(mem, now)
    _garden(mem, now)
    left = mem.recall("Is there anything left about the car insurance renewal?", user="alice", k=10, now=now,
                      intent=intent("x", "open_tasks", ("Task", "Plan")))
    assert done.id not in [h.id for h in left.hits]
    assert any(done.id in n and "open work was asked for" in n for n in left.notes), left.notes
    pool = mem.recall("Is the pool closed for repairs?", user="alice", k=10, now=now)
    assert expired.id not in [h.id for h in pool.hits]
    assert any(expired.id in n and "validity ended" in n for n in pool.notes), pool.notes


def test_the_tail_settings_are_checked() -> None:
    for bad in ({"plain_tail_share": 1.5}, {"plain_tail_share": True}, {"plain_tail_from": -1},
                {"plain_tail_from": 2.5}, {"plain_tail_said": 1}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]


BELOW = RecallConfig(plain_tail_share=1.0, plain_tail_said=True, plain_tail_said_below=0.5)


def _read_with(mem: mnemir.Memory, said: str, sureness: float) -> str:
    """The memory read from the utterance ``said``, given the extractor's confidence as ``remember`` records it (the
    classifier's probability of the type read); returns its id."""
    (edge,) = mem.store.edges([said], relations=["derived_from"], direction="in")
    read = mem.store.get(edge.source)
    extra = {**read.metadata.extra, "extraction": {"confidence": sureness, "reasons": ["classified Task"]}}
    mem.store.write([Write(read.model_copy(update={"metadata": read.metadata.model_copy(update={"extra": extra})}))],
                    model_id=mem.store.model_id or "")
    return read.id


@pytest.mark.parametrize("sureness", [None, 0.9])
def test_a_sure_reading_keeps_its_ruling_past_the_head(mem: mnemir.Memory, now: datetime,
                                                      sureness: float | None) -> None:
    """The misread task of the neighbour's news, read surely (the classifier's probability over a half) or written
    typed (no extraction: as sure as it is given): with ``plain_tail_said_below`` 0.5 the very sure fact question's
    ruling stands at k = 10 too, and the notes say the reading is sure; with the stand-in for every reading
    (decision 0098's form) the utterance comes back past the head."""
    said = _neighbour_news_among_more(mem, now)
    (edge,) = mem.store.edges([said], relations=["derived_from"], direction="in")
    read = edge.source if sureness is None else _read_with(mem, said, sureness)
    sure = intent(QUERY, "fact_lookup", ("Fact",), confidence=0.97)
    mem.recall_config = SAID
    assert said in [h.id for h in mem.recall(QUERY, user="alice", k=10, now=now, intent=sure).hits[5:]]
    mem.recall_config = BELOW
    kept = mem.recall(QUERY, user="alice", k=10, now=now, intent=sure)
    assert said not in _shown(kept) and read not in _shown(kept)
    assert any(read in n and "the reading is sure" in n for n in kept.notes), kept.notes


def test_an_unsure_reading_gives_its_place_to_what_was_said(mem: mnemir.Memory, now: datetime) -> None:
    """Read unsurely (under a half), the misread task gives its place past the head to what was said, with
    ``plain_tail_said_below`` 0.5; the head of a top 5 keeps the ruling."""
    said = _neighbour_news_among_more(mem, now)
    _read_with(mem, said, 0.35)
    sure = intent(QUERY, "fact_lookup", ("Fact",), confidence=0.97)
    mem.recall_config = BELOW
    assert said not in _shown(mem.recall(QUERY, user="alice", k=5, now=now, intent=sure))
    result = mem.recall(QUERY, user="alice", k=10, now=now, intent=sure)
    at = next(i for i, h in enumerate(result.hits) if h.id == said)
    assert at >= 5 and result.hits[at].memory.type == "Episode"
    assert any("stands in" in r for r in result.hits[at].reasons), result.hits[at].reasons


def test_the_tail_between_people_is_its_own() -> None:
    """``chat_tail_share`` and ``chat_tail_said`` set the tail over a conversation between people only; unset, the
    tail is the one set for every store."""
    from mnemir.retrieve.recall import _between_people

    config = RecallConfig(chat_tail_share=1.0, chat_tail_said=True)
    assert config.plain_tail_share == 0.0 and not config.plain_tail_said
    chat = _between_people(config)
    assert chat.plain_tail_share == 1.0 and chat.plain_tail_said
    assert _between_people(RecallConfig(plain_tail_share=0.5, chat_tail_share=None)).plain_tail_share == 0.5
    defaults = RecallConfig()  # on between people only (docs/decisions/0101)
    assert defaults.chat_tail_share == 1.0 and defaults.chat_tail_said and defaults.plain_tail_said_below is None
    assert defaults.plain_tail_share == 0.0 and not defaults.plain_tail_said
    for bad in ({"chat_tail_share": 2.0}, {"chat_tail_said": "yes"}, {"plain_tail_said_below": 1.5}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]
