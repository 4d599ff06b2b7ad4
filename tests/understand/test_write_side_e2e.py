"""The write side as the end-to-end collapse measure reads it (docs/decisions/0045): a feeling too unsure to keep gives
way to the next reading; a value said to have changed replaces the statement it updates, and readings of one
statement are one candidate. Sentences of our own."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.memory import understanding
from mnemir.understand import Extractor


def test_a_weak_feeling_with_no_emotion_word_gives_way_to_the_next_reading(extractor: Extractor,
                                                                           wed: datetime) -> None:
    piece = "The physio wants me off the bike for a fortnight after the knee scan"
    ranked = [("EmotionalState", 0.34), ("Fact", 0.2), ("NONE", 0.15), ("Task", 0.1)]
    draft = extractor._next_reading(piece, piece, wed, ranked, None)
    assert draft is not None and draft.type == "Fact"
    assert "next reading" in draft.reasons[-1]
    # the next reading is chit-chat or a report: still nothing
    assert extractor._next_reading(piece, piece, wed, [("EmotionalState", 0.3), ("NONE", 0.25), ("Fact", 0.2)],
                                   None) is None
    assert extractor._next_reading(piece, piece, wed, [("EmotionalState", 0.3), ("TaskUpdate", 0.25)], None) is None


@pytest.mark.parametrize(("text", "changed"), [
    ("The organisers have moved the club quiz to the Thursday after", True),
    ("The council raised the permit fee to £95", True),
    ("I've put my hourly rate up to €60", True),
    ("Rehearsals are on Wednesdays now", True),
    ("剪纸课的上课时间调整了，以后是周日上午", True),
    ("I need the report right now", False),
    ("Send the form to the club secretary", False),
    ("I put the plant pots to one side", False),
])
def test_words_that_say_a_value_has_changed(text: str, changed: bool) -> None:
    assert bool(understanding._UPDATED.search(text)) is changed


def test_a_value_of_the_same_kind_counts_toward_what_a_change_replaces() -> None:
    assert understanding._value_kinds("The lesson costs $40 and starts at 6:30pm") >= {"money", "time"}
    assert "date" in understanding._value_kinds("体检改到3月12号")
    assert understanding._value_kinds("We like the blue one") == frozenset()
    plain = understanding.Candidate("m1", "The lesson costs $40", 0.45, ("Fact, text similarity 0.45",))
    closer = understanding._kind_bonus(plain, frozenset({"money"}))
    assert closer.score == pytest.approx(0.45 + understanding.VALUE_KIND_BONUS)
    assert understanding._kind_bonus(plain, frozenset({"time"})) is plain


def test_a_changed_value_replaces_the_statement_it_updates(mem: mnemir.Memory, wed: datetime) -> None:
    old = mem.remember("The swimming gala entry fee is £12 per child", user="kofi", now=wed)
    mem.remember("My brother Idris is visiting from Accra in June", user="kofi", now=wed + timedelta(days=1))
    new = mem.remember("The club has raised the gala entry fee to £15 per child", user="kofi",
                       now=wed + timedelta(days=2))
    fact = next(r for r in old.created if r.type == "Fact")
    assert mem.get(fact.id, user="kofi").status == "superseded", new.notes
    assert any(r.type == "Fact" and r.status == "active" for r in new.created)


def test_readings_of_one_statement_are_one_candidate() -> None:
    fact = understanding.Candidate("f", "Got the van booked for Friday the 3rd", 0.62, ("Fact, text similarity 0.6",))
    task = understanding.Candidate("t", "Got the van booked for Friday the 3rd", 0.63, ("Task, text similarity 0.6",))
    assert understanding._same_statement(fact.text, task.text)
    assert understanding._type_rank(fact, understanding.CORRECTED_TYPES) < understanding._type_rank(
        task, understanding.CORRECTED_TYPES)
