"""Plain search's fusion (docs/decisions/0095): a tie of the fused score is broken by the signals themselves, so the
same memories come back in the same order whatever ids a store gave them; score-aware fusion leans on the signal
whose best stands out. Every sentence is made up here; real stores, the real embedder."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.errors import ValidationError
from mnemir.memory.config import MemoryConfig
from mnemir.retrieve import FusionConfig, RecallConfig
from mnemir.retrieve.recall import plain_utterance_order
from mnemir.retrieve.search import settle_ties, signal_strengths

KITCHEN = [
    "Our landlord finally fixed the leaking kitchen tap on Monday.",
    "The plumber said the kitchen pipes are older than the building.",
    "I bought a new kettle because the old one kept leaking.",
    "My neighbour plays the cello every evening after dinner.",
    "We are planning a picnic by the river if the weather holds.",
    "The library extended its opening hours until nine.",
    "Tap water here tastes of chlorine, so I filter it.",
]
PLUMBER, KETTLE = KITCHEN[1], KITCHEN[2]


def _store(path: Path, embedder: USEEmbedder, now: datetime, order: list[int],
           fusion: FusionConfig | None = None) -> mnemir.Memory:
    mem = mnemir.open(path, embedder=embedder, config=MemoryConfig(fusion=fusion or FusionConfig()))
    for i in order:  # each text keeps its own time, whatever the order it is written in
        mem.add(KITCHEN[i], "Fact", user="ines", session="s1", turn=i + 1, now=now - timedelta(hours=10 - i))
    return mem


def _strength(hits: list[Any], hit: Any) -> float:
    """The hit's similarity and BM25 score as shares of the best of each (what breaks a tie)."""
    top_v = max(h.signals.get("vector_similarity", 0.0) for h in hits)
    top_t = max(h.signals.get("text_score", 0.0) for h in hits)
    return hit.signals.get("vector_similarity", 0.0) / top_v + hit.signals.get("text_score", 0.0) / top_t


RANKS_ALONE = FusionConfig(score_weight=0.0)


def test_a_tie_comes_out_in_the_same_order_every_time(tmp_path: Path, embedder: USEEmbedder, now: datetime) -> None:
    """Under ranks alone the tie is exact; the tie-break picks what score-aware fusion (the default) puts first."""
    orders = []
    for n, order in enumerate([list(range(7)), list(reversed(range(7))), [3, 1, 6, 0, 5, 2, 4]]):
        mem = _store(tmp_path / f"s{n}", embedder, now, order, RANKS_ALONE)
        hits = mem.search("river dinner", user="ines", k=7)
        # the tie is real: one at vector rank 1 / text rank 2, the other at 2 / 1
        first, second = hits[0], hits[1]
        assert {(first.signals["vector_rank"], first.signals["text_rank"]),
                (second.signals["vector_rank"], second.signals["text_rank"])} == {(1, 2), (2, 1)}
        assert first.score == second.score
        # the stronger signals by their own measures first
        assert _strength(hits, first) > _strength(hits, second)
        orders.append([h.memory.text for h in hits])
        mem.close()
    assert orders[0] == orders[1] == orders[2]
    mem = _store(tmp_path / "aware", embedder, now, list(range(7)))
    assert [h.memory.text for h in mem.search("river dinner", user="ines", k=2)] == orders[0][:2]
    mem.close()


def test_equal_keyword_scores_are_ordered_by_meaning(tmp_path: Path, embedder: USEEmbedder, now: datetime) -> None:
    """Two texts with the same keyword score: the one closer in meaning takes the better keyword rank, whichever the
    store wrote first and whatever ids it gave them (a store orders equal scores by id)."""
    orders = []
    for n, order in enumerate([list(range(7)), list(reversed(range(7)))]):
        mem = _store(tmp_path / f"e{n}", embedder, now, order)
        hits = mem.search("kitchen leak", user="ines", k=5)
        by_text = {h.memory.text: h for h in hits}
        plumber, kettle = by_text[PLUMBER], by_text[KETTLE]
        assert plumber.signals["text_score"] == kettle.signals["text_score"]
        assert plumber.signals["vector_similarity"] > kettle.signals["vector_similarity"]
        assert plumber.signals["text_rank"] < kettle.signals["text_rank"]
        orders.append([h.memory.text for h in hits])
        mem.close()
    assert orders[0] == orders[1]


def test_recall_plain_order_breaks_the_tie_alike(tmp_path: Path, embedder: USEEmbedder, now: datetime) -> None:
    firsts = []
    for n, order in enumerate([list(range(7)), list(reversed(range(7)))]):
        mem = _store(tmp_path / f"r{n}", embedder, now, order, RANKS_ALONE)
        intent: Any = mem.intent("river dinner", now=now)
        texts = {r.id: r.text for r in mem.list(user="ines")}
        ranked = plain_utterance_order(mem.store, mem._selection(user="ines"), intent,
                                       embedder.embed_query("river dinner"), now, 5,
                                       RecallConfig(plain_score_weight=0.0))
        firsts.append([texts[g] for g in ranked if g in texts][:4])
        hybrid = [h.memory.text for h in mem.search("river dinner", user="ines", k=4)]
        mem.close()
        assert firsts[-1][:2] == hybrid[:2]  # the same tie, broken the same way as in search
    assert firsts[0] == firsts[1]


def test_settle_ties_orders_equal_scores_by_the_other_signal() -> None:
    ranked = [("a", 2.0), ("b", 1.0), ("c", 1.0), ("d", 1.0), ("e", 0.5)]
    assert [m for m, _ in settle_ties(ranked, {"d": 0.9, "c": 0.4, "e": 1.0})] == ["a", "d", "c", "b", "e"]


def test_signal_strengths_are_shares_of_each_lists_best() -> None:
    got = signal_strengths([{"a": 0.5, "b": 0.25, "c": -0.1}, {"a": 1.0, "d": 4.0}], [1.0, 2.0])
    assert got == pytest.approx({"a": 1.0 + 0.5, "b": 0.5, "c": 0.0, "d": 2.0})


GARDEN = [
    "The tomatoes in the garden need more water this week.",
    "I planted basil and mint along the garden fence.",
    "Slugs ate half of the lettuce in the vegetable garden.",
    "We should buy a new hose for watering the garden.",
    "The roses by the garden gate finally bloomed.",
    "Compost from the kitchen goes to the bin behind the shed.",
    "Ingeborg phoned to say the bus timetable changes in March.",
    "The apple tree at the back of the garden needs pruning soon.",
]


def test_score_aware_fusion_leans_on_a_rare_words_match(tmp_path: Path, embedder: USEEmbedder,
                                                         now: datetime) -> None:
    """A name said once in the store is a standout keyword match ("garden" is in most texts and weighs nothing):
    score-aware fusion ranks what says it higher than ranks alone do, since the keyword list's best stands far above
    the rest of it while the garden sentences are about as close in meaning as each other."""
    places = {}
    for weight in (0.0, 0.25, 1.0):
        mem = mnemir.open(tmp_path / f"g{weight}", embedder=embedder,
                          config=MemoryConfig(fusion=FusionConfig(score_weight=weight)))
        for i, text in enumerate(GARDEN):
            mem.add(text, "Fact", user="ines", now=now - timedelta(hours=10 - i))
        hits = mem.search("Ingeborg and the garden plans", user="ines", k=8)
        texts = [h.memory.text for h in hits]
        places[weight] = texts.index(GARDEN[6])
        mem.close()
    assert places[0.25] < places[0.0] and places[1.0] <= places[0.25]


def test_settings_are_checked() -> None:
    with pytest.raises(ValidationError):
        FusionConfig(ties="random")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        FusionConfig(score_weight=-0.1)
    with pytest.raises(ValidationError):
        RecallConfig(plain_ties="order")
    with pytest.raises(ValidationError):
        RecallConfig(plain_score_weight=11.0)
