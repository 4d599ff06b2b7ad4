"""An outburst is both what happened and how the user felt; a to-do item told as a bare verb phrase is a task; the
opening n-grams a model may read (docs/decisions/0040). Sentences of our own."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor
from mnemir.understand import extract as extract_module
from mnemir.understand.extract import Draft, _feeling_beside
from mnemir.understand.model import FeatureSpec, _grams, ngram_vectors


def test_a_feeling_said_beside_an_event_is_kept_as_its_own_reading() -> None:
    event = Draft("Fact", "The garage kept my car a whole extra week and charged for storage, I'm furious", {})
    feeling = _feeling_beside(event, 0.3)
    assert feeling is not None and feeling.type == "EmotionalState"
    assert feeling.text == event.text and feeling.properties["emotion_type"] == "anger"
    assert "beside the Fact" in feeling.reasons[0]


@pytest.mark.parametrize(("draft", "p"), [
    (Draft("Fact", "The garage kept my car a whole extra week and charged for storage, I'm furious", {}), 0.1),
    (Draft("Fact", "The garage kept my car a whole extra week and charged for storage", {}), 0.6),
    (Draft("Preference", "I hate waiting rooms that play loud television", {}), 0.6),
    (Draft("Fact", "The removal van moved our boxes to the new flat", {}), 0.6),  # "moved" is ambiguous
])
def test_no_feeling_beside_without_an_unambiguous_word_enough_probability_or_for_a_preference(
        draft: Draft, p: float) -> None:
    assert _feeling_beside(draft, p) is None


def test_the_rule_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract_module, "FEELING_BESIDE_MIN_P", None)
    assert _feeling_beside(Draft("Fact", "Our landlord doubled the service charge, I'm livid", {}), 0.9) is None


@pytest.mark.parametrize("text", [
    "The electrician left bare wires hanging in the hallway again, I'm absolutely livid",
    "物业又把我们小区的热水停了一整天，我气得整晚睡不着",
])
def test_an_outburst_keeps_a_feeling_whatever_else_is_read(extractor: Extractor, wed: datetime, text: str) -> None:
    types = [d.type for d in extractor.extract(text, now=wed).drafts]
    assert "EmotionalState" in types


@pytest.mark.parametrize("text", [
    "Send the landlord the photos of the damp patch and the £90 invoice from Dampco",
    "Book the Volvo in at Halford Motors for its 40,000-mile service",
    "Pay the £35 entry fee for the Ridgeway 10k to the running club",
])
def test_a_bare_to_do_item_with_names_and_numbers_is_a_task(extractor: Extractor, wed: datetime, text: str) -> None:
    assert [d.type for d in extractor.extract(text, now=wed).drafts] == ["Task"]


def test_start_grams_mark_how_a_text_begins() -> None:
    # an option of the feature layout (not used by the shipped models): the opening words hashed apart
    assert "^w:book" in _grams("Book the vet for Friday", start=True)
    assert "^w:book" not in _grams("Book the vet for Friday")
    assert {"^c:在", "^p:在网"} <= set(_grams("在网上交电费", start=True))
    # the same words in another order open differently, so the features differ
    a, b = ngram_vectors(["book the vet", "the vet book"], 512, start=True)
    assert not np.allclose(a, b)
    assert FeatureSpec(0.3, 512, 1.5, start_grams=True).layout.endswith("+start")
    assert not FeatureSpec(0.3, 0, 0.0, start_grams=True).layout.endswith("+start")


def test_an_outburst_read_as_a_fact_keeps_its_feeling_from_the_same_utterance(tmp_path: Path, embedder: USEEmbedder,
                                                                                wed: datetime) -> None:
    memory = mnemir.open(tmp_path / "mem", embedder=embedder)
    try:
        text = "The council clamped my van outside my own front door while I was unloading it, I'm livid"
        done = memory.remember(text, user="ann", now=wed)
        types = sorted(r.type for r in done.created)
        assert "EmotionalState" in types
        assert done.episode is not None
        for record in done.created:  # every reading links to the one utterance it came from
            assert [r.target for r in record.relationships if r.relation == "derived_from"] == [done.episode.id]
    finally:
        memory.close()

