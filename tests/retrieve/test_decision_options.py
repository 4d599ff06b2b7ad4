"""Asked what was decided, the options weighed before the latest decision shown are no answer (decision 0081):
what was said before it, close in meaning to it (the leaning it replaced, the option turned down, an earlier choice
about the same thing), goes with its utterance, whether or not the write side linked it. Real store, real embedder,
the shipped models; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from recall_helpers import add

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.query_kinds import read_query

ASKED = "Which desk did I pick for the study in the end?"
ON = RecallConfig().decision_options


def _decision(value: str) -> dict[str, str]:
    return {"entity": "user", "attribute": "decision", "value": value}


@pytest.fixture
def desks(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "weighed": add(mem, now, "Still unsure about the study desk: walnut or birch, both look good "
                                 "in the shop", "Fact", {}, days=12),
        "leaning": add(mem, now, "Leaning towards the birch desk for the study, it is a lot cheaper", "Fact", {},
                       days=9),
        "chosen": add(mem, now, "Decided: the walnut desk for the study, it matches the bookshelves",
                      "Fact", _decision("the walnut desk"), days=3),
        "sun": add(mem, now, "The study gets the afternoon sun from about three", "Fact", {}, days=20),
        "lamp": add(mem, now, "My reading lamp in the lounge flickers when the heating comes on", "Fact", {},
                    days=15),
        "cat": add(mem, now, "The cat sleeps under the radiator every afternoon", "Fact", {}, days=14),
    }


def test_the_question_is_read_as_one_about_a_choice(mem: mnemir.Memory) -> None:
    assert read_query(mem.embedder.embed_query(ASKED), mem.embedder.model_id).asks_decision


def test_the_options_weighed_before_the_decision_are_left_out(mem: mnemir.Memory, now: datetime,
                                                               desks: dict[str, mnemir.MemIR]) -> None:
    assert ON < 1.0  # on by default
    result = mem.recall(ASKED, user="alice", k=5, now=now)
    shown = [h.id for h in result.hits]
    assert desks["chosen"].id in shown, [h.memory.text for h in result.hits]
    assert desks["leaning"].id not in shown and desks["weighed"].id not in shown, [h.memory.text for h in result.hits]
    assert any("options weighed before the decision" in n for n in result.notes), result.notes


def test_off_the_leaning_is_shown_beside_the_decision(mem: mnemir.Memory, now: datetime,
                                                      desks: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(decision_options=1.0)
    shown = [h.id for h in mem.recall(ASKED, user="alice", k=5, now=now).hits]
    assert desks["chosen"].id in shown and desks["leaning"].id in shown


def test_an_earlier_choice_about_the_same_thing_gives_way_to_the_later_one(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    first = add(mem, now, "Decided on the birch desk for the study", "Fact", _decision("the birch desk"), days=10)
    later = add(mem, now, "For the study it is the walnut desk after all, it suits the bookshelves",
                "Fact", _decision("the walnut desk"), days=2)
    add(mem, now, "The study gets the afternoon sun from about three", "Fact", {}, days=20)
    shown = [h.id for h in mem.recall(ASKED, user="alice", k=5, now=now).hits]
    assert later.id in shown and first.id not in shown
    mem.recall_config = RecallConfig(decision_earlier_choices=False)
    assert first.id in [h.id for h in mem.recall(ASKED, user="alice", k=5, now=now).hits]


def test_a_question_about_something_else_keeps_what_was_said_before(mem: mnemir.Memory, now: datetime,
                                                                    desks: dict[str, mnemir.MemIR]) -> None:
    query = "When does the study get the sun?"
    assert not read_query(mem.embedder.embed_query(query), mem.embedder.model_id).asks_decision
    result = mem.recall(query, user="alice", k=5, now=now)
    assert result.hits[0].id == desks["sun"].id
    assert not any("options weighed before the decision" in n for n in result.notes)


def _kitchen(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    """Two choices made in one kitchen refit, the worktop first and the floor tiles later, with what was weighed."""
    return {
        "worktop_weighed": add(mem, now, "Kitchen worktop: oak looks lovely, granite wears better, no idea "
                                         "yet", "Fact", {}, days=20),
        "worktop": add(mem, now, "Settled the kitchen worktop: oak, oiled, it feels warmer than the stone",
                       "Fact", _decision("an oiled oak worktop"), days=14),
        "tiles_weighed": add(mem, now, "The kitchen floor could be slate tiles or big porcelain ones", "Fact", {},
                             days=9),
        "tiles": add(mem, now, "Went with the large porcelain tiles for the kitchen floor, far less grout to clean",
                     "Fact", _decision("large porcelain floor tiles"), days=3),
        "sun": add(mem, now, "The kitchen gets the morning sun until about ten", "Fact", {}, days=25),
    }


WORKTOP = "Which worktop did I choose for the kitchen?"


def test_a_later_choice_about_another_thing_leaves_the_one_asked_about(mem: mnemir.Memory, now: datetime) -> None:
    kitchen = _kitchen(mem, now)
    assert read_query(mem.embedder.embed_query(WORKTOP), mem.embedder.model_id).asks_decision
    mem.recall_config = RecallConfig(decision_governs_share=1.0)
    result = mem.recall(WORKTOP, user="alice", k=5, now=now)
    shown = [h.id for h in result.hits]
    assert kitchen["worktop"].id in shown, [h.memory.text for h in result.hits]
    assert kitchen["worktop_weighed"].id not in shown, [h.memory.text for h in result.hits]


def test_off_the_latest_choice_shown_decides_what_goes(mem: mnemir.Memory, now: datetime) -> None:
    kitchen = _kitchen(mem, now)
    assert RecallConfig().decision_governs_share == 0.0  # off by default
    result = mem.recall(WORKTOP, user="alice", k=5, now=now)
    assert kitchen["worktop"].id not in [h.id for h in result.hits], [h.memory.text for h in result.hits]


BUILDERS = [
    ("user", "We need builders for the extension. Two quotes so far, Ashby and Kerrow."),
    ("assistant", "Good start. What matters most to you, price or timing?"),
    ("user", "Settled on Ashby for the extension. They start on the 4th of May."),
    ("assistant", "Great, noted."),
    ("user", "Correction about the builders for the extension: they start on the 11th of May, not the 4th."),
    ("assistant", "Thanks, updated."),
    ("user", "My sister is visiting in June, so the spare room has to be clear by then."),
]
CHOSEN = "Which builders did I go with for the extension?"


def _said(mem: mnemir.Memory, now: datetime) -> datetime:
    start = now - timedelta(days=10)
    for n, (speaker, text) in enumerate(BUILDERS):
        mem.remember(text, speaker=speaker, user="ola", session="s1", turn=n, now=start + timedelta(minutes=n))
    return start + timedelta(days=2)


def test_a_choice_stays_beside_a_correction_of_its_turn(mem: mnemir.Memory, now: datetime) -> None:
    asked_at = _said(mem, now)
    mem.recall_config = RecallConfig(taken_back_keeps_choices=True)
    result = mem.recall(CHOSEN, user="ola", k=5, now=asked_at)
    assert any(h.memory.text.startswith("Settled on Ashby") for h in result.hits), [h.memory.text for h in result.hits]
    # the utterance itself still goes: it states the start date the correction took back
    assert not any("4th of May" in h.memory.text for h in result.hits), [h.memory.text for h in result.hits]


def test_off_the_correction_takes_the_choice_with_it(mem: mnemir.Memory, now: datetime) -> None:
    asked_at = _said(mem, now)
    assert RecallConfig().taken_back_keeps_choices is False  # off by default
    result = mem.recall(CHOSEN, user="ola", k=5, now=asked_at)
    assert not any(h.memory.text.startswith("Settled on Ashby") for h in result.hits)
