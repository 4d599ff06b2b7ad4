"""The write side's readings that put a calm-question trap into the end-to-end collapse stores (docs/decisions/0110):
an English title's full stop ends no sentence, so a request that names a doctor stays one task; a request or an
outburst is no choice made, so no decision fact is kept beside it. Sentences of our own, the shipped models on the
real embedder, a real store."""

from __future__ import annotations

from pathlib import Path

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.eval import learn_decision_turns
from mnemir.understand import Extractor, segment
from mnemir.understand.decision_turns import decision_probability, shipped_decision_turns
from mnemir.understand.segment import split_pieces
from mnemir.understand.train import TRAIN_FILES


@pytest.fixture
def titles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segment, "TITLES_END_NO_SENTENCE", True)


@pytest.mark.usefixtures("titles")
@pytest.mark.parametrize("text", [
    "Set up a check-up with Dr. Alvarez in three months",
    "Ask Mrs. Okafor whether the hall is free on the ninth",
    "Post the form to St. Columba's parish office",
])
def test_a_title_before_a_name_ends_no_sentence(text: str) -> None:
    assert split_pieces(text) == [text]


@pytest.mark.usefixtures("titles")
def test_a_sentence_that_ends_after_a_name_still_ends() -> None:
    assert split_pieces("I met Mr. Ferrante at the market. He sells olives.") == [
        "I met Mr. Ferrante at the market.", "He sells olives."]


def test_without_the_switch_every_full_stop_before_a_capital_ends_one() -> None:
    assert not segment.TITLES_END_NO_SENTENCE  # off by default (docs/decisions/0110)
    assert len(split_pieces("Set up a check-up with Dr. Alvarez in three months")) == 2


@pytest.mark.usefixtures("titles")
def test_a_request_naming_a_doctor_is_one_task(extractor: Extractor) -> None:
    drafts = [d for d in extractor.extract("Set up a check-up with Dr. Alvarez in three months").drafts
              if d.type != "DialogueAct"]
    assert [d.type for d in drafts] == ["Task"]


@pytest.mark.usefixtures("titles")
def test_remember_keeps_the_request_whole_and_adds_no_fact(tmp_path: Path, embedder: USEEmbedder) -> None:
    mem = mnemir.open(tmp_path / "s", embedder=embedder)
    try:
        done = mem.remember("Set up a check-up with Dr. Alvarez in three months", user="u")
        assert [r.type for r in done.created] == ["Task"]
        assert done.created[0].content.text.startswith("Set up a check-up with Dr. Alvarez")
    finally:
        mem.close()


# -- the learned reading of a choice made (docs/decisions/0110) ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Nudge the plumber about the invoice for the boiler repair",
    "Pay the spring subscription for the chess club to our treasurer, Nadia",
    "The new kayak paddle snapped on its first trip out, I am fuming",
    "邻居又把垃圾堆在我家门口，气得我直跺脚",
])
def test_a_request_or_an_outburst_is_no_choice_made(embedder: USEEmbedder, text: str) -> None:
    read = decision_probability(embedder.embed([text])[0], text, embedder.model_id)
    assert read is not None and read[0] < read[1], read


@pytest.mark.parametrize("text", [
    "We booked the lakeside cottage in the end, not the farmhouse",
    "决定了，周末去爬山不去逛街",
])
def test_a_choice_made_is_still_read_as_one(embedder: USEEmbedder, text: str) -> None:
    read = decision_probability(embedder.embed([text])[0], text, embedder.model_id)
    assert read is not None and read[0] >= read[1], read


def test_remember_keeps_no_decision_beside_a_request(tmp_path: Path, embedder: USEEmbedder) -> None:
    mem = mnemir.open(tmp_path / "s", embedder=embedder)
    try:
        done = mem.remember("Pay the spring subscription for the chess club to our treasurer, Nadia", user="u")
        assert [r.type for r in done.created] == ["Task"]
        assert not any(r.properties.get("attribute") == "decision" for r in done.created)
    finally:
        mem.close()


def test_the_trainer_reads_a_decision_from_the_extractors_rows() -> None:
    texts, labels = learn_decision_turns.batch_examples(("extraction_hw12.jsonl", "extraction_ctrain.jsonl"))
    assert len(texts) == len(labels) and 0 < sum(labels) < len(labels)
    ctrain, ctrain_labels = learn_decision_turns.batch_examples(("extraction_ctrain.jsonl",))
    assert ctrain and not any(ctrain_labels)  # the collapse memories state no choice


def test_the_shipped_model_names_what_it_was_fitted_on() -> None:
    model = shipped_decision_turns()
    assert model is not None
    assert set(model.meta["batches"]) == set(learn_decision_turns.EXTRA_BATCHES)
    # training files only: every batch is one the extractor itself is trained on
    assert set(model.meta["batches"]) <= set(TRAIN_FILES["extractor"])
