"""The write side's readings that put a calm-question trap into the end-to-end collapse stores (docs/decisions/0110):
an English title's full stop ends no sentence, so a request that names a doctor stays one task. Sentences of our own,
the shipped models on the real embedder, a real store."""

from __future__ import annotations

from pathlib import Path

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor
from mnemir.understand import segment
from mnemir.understand.segment import split_pieces


@pytest.mark.parametrize("text", [
    "Set up a check-up with Dr. Alvarez in three months",
    "Ask Mrs. Okafor whether the hall is free on the ninth",
    "Post the form to St. Columba's parish office",
])
def test_a_title_before_a_name_ends_no_sentence(text: str) -> None:
    assert split_pieces(text) == [text]


def test_a_sentence_that_ends_after_a_name_still_ends() -> None:
    assert split_pieces("I met Mr. Ferrante at the market. He sells olives.") == [
        "I met Mr. Ferrante at the market.", "He sells olives."]


def test_without_the_switch_every_full_stop_before_a_capital_ends_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segment, "TITLES_END_NO_SENTENCE", False)
    assert len(split_pieces("Set up a check-up with Dr. Alvarez in three months")) == 2


def test_a_request_naming_a_doctor_is_one_task(extractor: Extractor) -> None:
    drafts = [d for d in extractor.extract("Set up a check-up with Dr. Alvarez in three months").drafts
              if d.type != "DialogueAct"]
    assert [d.type for d in drafts] == ["Task"]


def test_remember_keeps_the_request_whole_and_adds_no_fact(tmp_path: Path, embedder: USEEmbedder) -> None:
    mem = mnemir.open(tmp_path / "s", embedder=embedder)
    try:
        done = mem.remember("Set up a check-up with Dr. Alvarez in three months", user="u")
        assert [r.type for r in done.created] == ["Task"]
        assert done.created[0].content.text.startswith("Set up a check-up with Dr. Alvarez")
    finally:
        mem.close()
