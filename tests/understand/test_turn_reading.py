"""A turn of several sentences is also read whole: a sentence that only backs up the others (the event behind a
feeling, the evidence for a guess) is no memory of its own (docs/decisions/0056). Sentences of our own."""

from __future__ import annotations

import pytest

from mnemir.understand import Extractor
from mnemir.understand import extract as extract_module
from mnemir.understand.extract import _read_with_turn, label_of


def test_a_piece_whose_type_the_whole_turn_hardly_reads_is_no_memory_of_its_own() -> None:
    labelled = [("I'm fuming.", "EmotionalState", 0.9), ("The van blocked the lane.", "Fact", 0.6)]
    read = _read_with_turn(labelled, {"EmotionalState": 0.8, "Fact": 0.05, "NONE": 0.15})
    assert [label for _, label, _ in read] == ["EmotionalState", "NONE"]
    assert [(piece, p) for piece, _, p in read] == [(piece, p) for piece, _, p in labelled]


def test_pieces_whose_types_the_turn_reads_are_all_kept() -> None:
    labelled = [("My aunt lives in Cork.", "Fact", 0.8), ("I must post her card by Friday.", "Task", 0.7)]
    assert _read_with_turn(labelled, {"Fact": 0.4, "Task": 0.45, "NONE": 0.15}) == labelled


def test_when_the_turn_reads_none_of_the_pieces_types_nothing_is_dropped() -> None:
    labelled = [("Odd weather.", "NONE", 0.5), ("The van blocked the lane.", "Fact", 0.6)]
    assert _read_with_turn(labelled, {"NONE": 0.95, "Fact": 0.05}) == labelled


@pytest.mark.parametrize(("text", "kept"), [
    ("I'm absolutely furious. The neighbours parked across my driveway again.", "EmotionalState"),
    ("I think the printer's toner is nearly empty. The pages come out streaky.", "Hypothesis"),
    ("Maybe the fridge thermostat is set wrong? The milk keeps going off after two days.", "Hypothesis"),
])
def test_the_sentence_behind_a_feeling_or_a_guess_stays_with_it(extractor: Extractor, text: str, kept: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    result = extractor.extract(text)
    assert [label_of(d) for d in result.drafts] == [kept]
    assert result.drafts[0].text == text  # the backing sentence is kept in the memory's text
    monkeypatch.setattr(extract_module, "TURN_READING_MIN_P", None)  # off: each sentence is read alone
    assert len(extractor.extract(text).drafts) == 2


def test_two_things_worth_keeping_in_one_turn_stay_two(extractor: Extractor) -> None:
    result = extractor.extract("My brother lives in Leeds. I need to send him his birthday card by Friday.")
    assert [label_of(d) for d in result.drafts] == ["Fact", "Task"]


def test_chinese_turns_are_read_sentence_by_sentence(extractor: Extractor, monkeypatch: pytest.MonkeyPatch) -> None:
    # Chinese clauses that are not about the user already stay with the "我" clause after them (segment._zh_clauses)
    english = "My brother lives in Leeds. I need to send him his birthday card by Friday."
    chinese = "我哥哥住在成都。周五之前我得把他的生日礼物寄出去。"
    alone = [label_of(d) for d in extractor.extract(chinese).drafts]
    assert len(alone) == 2
    monkeypatch.setattr(extract_module, "TURN_READING_MIN_P", 0.5)  # a floor only the turn's best type passes
    assert len(extractor.extract(english).drafts) == 1
    assert [label_of(d) for d in extractor.extract(chinese).drafts] == alone
