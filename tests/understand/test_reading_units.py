"""The learned reading of how many memories an utterance holds picks what the classifier reads (docs/decisions/0118):
switched on (``ONE_MIN_P``), one memory told in several sentences is read whole, several memories stay piece by
piece; off by default (dialogue QA dev fell with it). Sentences of our own."""

from __future__ import annotations

import pytest

from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor, extract
from mnemir.understand.segment import split_pieces

ONE_MEMORY = [
    "I'm absolutely fuming. The courier left my parcel out in the rain again.",
    "气死我了。快递又把我的包裹扔在雨里。",
]
SEVERAL = [
    "My brother moved to Leeds last spring. Remind me to post his birthday card by Friday.",
    "I finally sent the grant application off. Also, I really prefer tea to coffee these days.",
    "我弟弟去年搬到了成都。记得提醒我周五前把他的生日卡寄出去。",
]


def test_the_count_model_ships_and_is_read(extractor: Extractor) -> None:
    assert extract.COUNT_MODEL == "memory_count" and extractor.count_model is not None
    assert extractor.count_model.labels == extract.COUNT_LABELS


@pytest.mark.parametrize("text", ONE_MEMORY)
def test_one_memory_told_in_several_sentences_is_read_whole(extractor: Extractor, text: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(split_pieces(text)) == 2
    assert extract.ONE_MIN_P is None and extractor.reading_units(text) == split_pieces(text)  # off by default
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    assert extractor.reading_units(text) == [text]


@pytest.mark.parametrize("text", SEVERAL)
def test_several_memories_are_read_piece_by_piece(extractor: Extractor, text: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    assert len(split_pieces(text)) == 2
    assert extractor.reading_units(text) == split_pieces(text)


def test_without_the_count_model_or_with_its_limits_off_the_pieces_are_read_as_they_come(
        embedder: USEEmbedder, extractor: Extractor, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    monkeypatch.setattr(extract, "COUNT_MODEL", None)
    assert Extractor(embedder).count_model is None
    assert Extractor(embedder).reading_units(ONE_MEMORY[0]) == split_pieces(ONE_MEMORY[0])
    monkeypatch.setattr(extract, "ONE_MIN_P", None)
    assert extractor.reading_units(ONE_MEMORY[0]) == split_pieces(ONE_MEMORY[0])


def test_one_piece_is_read_whole_unless_clause_reading_is_switched_on(extractor: Extractor) -> None:
    text = "I love hiking in autumn, the rent for the flat is due on the first of the month."
    assert len(split_pieces(text)) == 1
    assert extract.MANY_MIN_P is None
    assert extractor.reading_units(text) == split_pieces(text)


@pytest.mark.parametrize("text", ONE_MEMORY)
def test_one_memory_kept_piece_by_piece_takes_the_type_of_the_whole(extractor: Extractor, text: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``ONE_KEEPS_PIECES`` (docs/decisions/0122), what set a feeling off stays a record of its own, typed as the
    feeling the whole utterance tells, not as a calm fact."""
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    whole = extractor.extract(text).drafts
    assert [d.text for d in whole] == [text] and whole[0].type == "EmotionalState"
    assert extract.ONE_KEEPS_PIECES is False  # off by default
    monkeypatch.setattr(extract, "ONE_KEEPS_PIECES", True)
    kept = extractor.extract(text).drafts
    assert [d.text for d in kept] == split_pieces(text)
    assert {d.type for d in kept} == {"EmotionalState"}
    assert all(d.vector is not None for d in kept)


@pytest.mark.parametrize("text", ["Can you book a table for four at the noodle bar on Saturday? My cousin is "
                                  "visiting from Perth.", "帮我订周六晚上四个人的位子。我表哥从外地来看我。"])
def test_a_task_told_in_several_sentences_stays_one_record(extractor: Extractor, text: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A task is one unit of work: its reason is not a second task (``PIECES_KEPT_TYPES``)."""
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    monkeypatch.setattr(extract, "ONE_KEEPS_PIECES", True)
    assert extractor.reading_units(text) == [text]
    drafts = extractor.extract(text).drafts
    assert [d.type for d in drafts if d.type == "Task"] == ["Task"]
    assert next(d for d in drafts if d.type == "Task").text == text


@pytest.mark.parametrize("text", [
    "Yeah, fair enough. I'll repaint the shed on Sunday. My neighbour lent me his ladder.",  # the whole reads as nothing
    "Sure thing. The plumber fixed the leak yesterday. I still have to pay his invoice.",  # as a type no piece tells
])
def test_a_whole_reading_no_piece_agrees_with_gives_way_to_the_pieces(extractor: Extractor, text: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``ONE_AGREES_WITH_PIECES`` (docs/decisions/0122): the count model's "one memory" is taken only when the whole
    reads as a type one of its pieces reads as; otherwise the pieces' memories are kept as they come."""
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    assert extractor.reading_units(text) == [text]
    whole = sorted(extract.label_of(d) for d in extractor.extract(text).drafts)
    monkeypatch.setattr(extract, "ONE_AGREES_WITH_PIECES", True)
    agreed = sorted(extract.label_of(d) for d in extractor.extract(text).drafts)
    monkeypatch.setattr(extract, "ONE_MIN_P", None)
    assert agreed == sorted(extract.label_of(d) for d in extractor.extract(text).drafts) != whole
    assert len(agreed) == 2


@pytest.mark.parametrize("text", ONE_MEMORY)
def test_a_whole_reading_a_piece_agrees_with_stands(extractor: Extractor, text: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    monkeypatch.setattr(extract, "ONE_AGREES_WITH_PIECES", True)
    assert [d.text for d in extractor.extract(text).drafts] == [text]


@pytest.mark.parametrize(("text", "work"), [
    ("I've paid the gas bill at last. The supplier is called Northfield Energy. They charge a lot.", "TaskUpdate"),
    ("我把电费交了。供电公司叫城北电力。他们收费挺贵的。", "TaskUpdate"),
    ("The vet is Dr Amara Obi. She works at the Elm Road clinic. I booked Pip's jab with her for Thursday.", "Task"),
])
def test_work_told_beside_one_memory_keeps_its_own_reading(extractor: Extractor, text: str, work: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``ONE_KEEPS_WORK`` (docs/decisions/0122): a report or a task among pieces typed by the whole keeps its own
    reading, so that the work it reports or asks for is not lost in the fact beside it."""
    for name in ("ONE_KEEPS_PIECES", "ONE_AGREES_WITH_PIECES"):
        monkeypatch.setattr(extract, name, True)
    monkeypatch.setattr(extract, "ONE_MIN_P", 0.2)
    assert extract.ONE_KEEPS_WORK is False
    assert {extract.label_of(d) for d in extractor.extract(text).drafts} == {"Fact"}
    monkeypatch.setattr(extract, "ONE_KEEPS_WORK", True)
    drafts = extractor.extract(text).drafts
    assert [d.text for d in drafts] == split_pieces(text)
    assert sorted(extract.label_of(d) for d in drafts) == sorted(["Fact", "Fact", work])
