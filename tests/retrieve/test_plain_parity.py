"""Typing adds to plain search, it never subtracts (issue 14, docs/decisions/0073): recall's plain search over the
store ``remember`` builds orders the utterances as hybrid search over the raw utterances orders them, however many
typed readings and dialogue acts ``remember`` keeps beside each one. Every sentence is made up here; real stores,
the real embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.recall import plain_utterance_order

TURNS = [
    ("user", "I need to renew my passport before the trip to Lisbon in April."),
    ("assistant", "Noted. Do you want a reminder a month before the trip?"),
    ("user", "Yes please, and I also have to book the cattery for Miso while we're away."),
    ("user", "My sister Thea is getting married in Porto in June, so we'll fly from Lisbon."),
    ("assistant", "Lovely! Shall I note the wedding date?"),
    ("user", "I'm really anxious about the passport office, last time it took seven weeks."),
    ("user", "Actually the Lisbon trip moved to May, the conference got postponed."),
    ("user", "On long-haul trips I always pick a seat by the aisle, never the window."),
    ("user", "Booked the cattery for Miso today, it was easy."),
    ("assistant", "Great, one thing off the list. What about the passport?"),
    ("user", "我下周要去银行办外汇业务。"),
    ("user", "我们决定婚礼那天租一辆车，不坐火车了。"),
    ("user", "Thea wants me to give a speech at the reception."),
    ("user", "I still haven't written a single line of that speech."),
    ("assistant", "Would a rough outline help you get started?"),
    ("user", "The conference in Lisbon is about urban gardens."),
]

QUERIES = ["When is the Lisbon trip?", "Did I book the cattery?", "What do I have to do for Thea's wedding?",
           "What's left before the trip?", "How do we get to the wedding?", "What kind of seat do I like?",
           "我下周要办什么？", "What is the conference about?", "Am I worried about anything?"]


@pytest.fixture
def stores(tmp_path: Path, embedder: USEEmbedder, now: datetime) -> Iterator[tuple[mnemir.Memory, mnemir.Memory]]:
    """The same turns kept raw (one memory per utterance, as ``add`` keeps them) and through ``remember``."""
    raw = mnemir.open(tmp_path / "raw", embedder=embedder)
    remembered = mnemir.open(tmp_path / "remembered", embedder=embedder)
    start = now - timedelta(days=3)
    for n, (speaker, text) in enumerate(TURNS, start=1):
        at = start + timedelta(minutes=n)
        raw.add(text, "Fact", user="noor", session="s1", speaker=speaker, turn=n, now=at)
        remembered.remember(text, speaker=speaker, user="noor", session="s1", turn=n, now=at)
    yield raw, remembered
    raw.close()
    remembered.close()


def _turns(mem: mnemir.Memory, ids: list[str]) -> list[int | None]:
    records = {r.id: r for r in mem.store.fetch(ids)}
    return [records[mid].metadata.source.turn for mid in ids if mid in records]


@pytest.mark.parametrize("query", QUERIES)
def test_recalls_plain_search_orders_the_utterances_as_hybrid_search_over_the_raw_turns(
        stores: tuple[mnemir.Memory, mnemir.Memory], now: datetime, query: str) -> None:
    raw, remembered = stores
    hybrid = _turns(raw, [h.id for h in raw.search(query, user="noor", k=5, now=now)])
    scope = remembered._selection(user="noor")
    intent: Any = remembered.intent(query, now=now)
    plain = _turns(remembered, plain_utterance_order(remembered.store, scope, intent,
                                                     remembered.embedder.embed_query(query), now, 5)[:5])
    # the same utterances (the keyword statistics of a store with typed texts beside the utterances differ a little,
    # and may swap two neighbours: the vector order is the same to the last place)
    assert set(plain) == set(hybrid) and hybrid[0] in plain[:2], (query, plain, hybrid)


def test_the_typed_readings_crowded_the_utterances_out_of_the_shared_searches(
        stores: tuple[mnemir.Memory, mnemir.Memory], now: datetime) -> None:
    """Without plain search's own searches over what was said, the store ``remember`` built holds more records
    than utterances (typed readings, dialogue acts), and plain search's order is no longer hybrid search's."""
    _, remembered = stores
    assert remembered.count(user="noor") > len(TURNS)
    config = RecallConfig(plain_said_search=False, candidates=4)
    scope = remembered._selection(user="noor")
    differs = 0
    for query in QUERIES:
        intent: Any = remembered.intent(query, now=now)
        qvec = remembered.embedder.embed_query(query)
        shared = plain_utterance_order(remembered.store, scope, intent, qvec, now, 5, config)[:5]
        own = plain_utterance_order(remembered.store, scope, intent, qvec, now, 5,
                                    config.with_(plain_said_search=True))[:5]
        differs += shared != own
    assert differs
