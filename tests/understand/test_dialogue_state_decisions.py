"""Decisions and corrections across turns (issue 15, session 14): a decision that says little of its topic is read
with what it settled; a question about a choice finds it and leaves out the options weighed before it; the value a
correction takes back is compared without its article, ordinal or relative day. Every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dialogue_helpers import say, shown_turns

import mnemir
import mnemir.retrieve.judgements as judgements
from mnemir.ir import MemIR
from mnemir.memory.understanding import SETTLES, _old_value_key
from mnemir.understand import fill

START = datetime(2026, 10, 5, 18, 0, tzinfo=UTC)

WALL = [
    ("user", "For the garden wall we're weighing two builders, Okafor Masonry or a firm called Stoneleigh."),
    ("assistant", "Sensible to compare. Shall I list what to ask both of them?"),
    ("user", "Also the boiler service is on the calendar for next month."),
    ("user", "In the end we went with Okafor."),
]


def _said(mem: mnemir.Memory, turns: list[tuple[str, str]]) -> None:
    say(mem, turns, user="ines", start=START)


def _from(mem: mnemir.Memory, turn: int) -> list[MemIR]:
    return [r for r in mem.list(user="ines") if r.metadata.source.turn == turn and r.type != "Episode"]


def test_a_decision_points_at_the_deliberation_it_settles(mem: mnemir.Memory) -> None:
    _said(mem, WALL)
    decisions = [r for r in _from(mem, 4) if r.relations(SETTLES)]
    assert decisions, [(r.type, r.text, [x.relation for x in r.relationships]) for r in _from(mem, 4)]
    settled = {t.metadata.source.turn for d in decisions for t in mem.store.fetch([x.target for x in d.relations(SETTLES)])}
    assert 1 in settled and 3 not in settled, settled


def test_a_question_about_the_choice_finds_the_decision_first(mem: mnemir.Memory) -> None:
    _said(mem, WALL)
    hits = mem.recall("Which builder did we pick for the garden wall?", user="ines", k=5, now=START + timedelta(hours=1)).hits
    shown = shown_turns(hits)
    assert shown and 4 in shown[0], shown
    assert not any(1 in s for s in shown), "the options weighed before the decision should give way to it"


def test_without_the_settled_options_going_the_deliberation_shows(mem: mnemir.Memory,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judgements, "SETTLED_GO", False)
    _said(mem, WALL)
    hits = mem.recall("Which builder did we pick for the garden wall?", user="ines", k=5, now=START + timedelta(hours=1)).hits
    assert any(1 in s for s in shown_turns(hits))


@pytest.mark.parametrize("value, key", [("the 20th", "20"), ("21st", "21"), ("a 2017", "2017"), ("今天31号", "31号"),
                                        ("September 30th", "september 30"), ("周三", "周三"), ("on the 4th", "4"),
                                        ("Shanghai", "shanghai"), ("x", None)])
def test_the_value_a_correction_takes_back(value: str, key: str | None) -> None:
    assert _old_value_key(value) == key


@pytest.mark.parametrize("text, old", [("Looked again: the fee is 3.5%, not 4.5%.", "4.5%"),
                                       ("Sorry, the deposit was $220, not $180.", "$180"),
                                       ("其实不是下午三点，是四点", "下午三点")])
def test_a_correction_names_a_percentage_or_an_amount(text: str, old: str) -> None:
    assert fill.correction_of(text) == (True, old)


def test_a_correction_by_ordinal_replaces_the_date_said_plainly(mem: mnemir.Memory) -> None:
    _said(mem, [("user", "Our ferry to Bilbao leaves on October 12, early in the morning."),
                ("assistant", "Noted. Do you need a cabin?"),
                ("user", "Small fix: the ferry leaves on the 13th, not the 12th.")])
    old = [r for r in mem.list(user="ines", statuses=["superseded"]) if r.metadata.source.turn == 1]
    hits = mem.recall("When does the ferry to Bilbao leave?", user="ines", k=5, now=START + timedelta(hours=1)).hits
    shown = shown_turns(hits)
    assert old or not any(1 in s for s in shown), shown
    assert any(3 in s for s in shown), shown


@pytest.mark.parametrize("text, gender", [("She works nights at the infirmary.", "female"),
                                          ("And he is allergic to peanuts.", "male"),
                                          ("她下个月结婚。", "female"), ("他在银行上班", "male"),
                                          ("他们下个月结婚。", None), ("Shelter dogs need patience.", None),
                                          ("Her new flat has a garden.", "female")])
def test_a_pronoun_subject(text: str, gender: str | None) -> None:
    assert fill.pronoun_subject(text) == gender


@pytest.mark.parametrize("text, gender, key", [
    ("My cousin Leo came round, and my aunt rang later.", "male", "leo"),
    ("My cousin Leo came round, and my aunt rang later.", "female", "aunt"),
    ("我表哥来了，我妈也打了电话。", "male", "cousin"),
    ("My parents are away this week.", "female", None),
])
def test_the_person_named_last_that_the_pronoun_fits(text: str, gender: str, key: str | None) -> None:
    found = fill.last_person(text, gender)
    assert (found.key if found else None) == key


def test_a_fact_told_with_a_pronoun_is_about_the_person_last_named(mem: mnemir.Memory) -> None:
    said = ["My brother-in-law Ravi just started at the fire station.", "He is on the night rota all winter.",
            "我闺蜜阿琳搬去厦门了。", "她在那边开了一家花店。"]
    read = [mem.remember(t, user="ines", session="s1", turn=n, now=START + timedelta(minutes=n)).created
            for n, t in enumerate(said, start=1)]
    assert {r.properties.get("entity") for r in read[1] if r.type == "Fact"} == {"ravi"}, read[1]
    assert {r.properties.get("entity") for r in read[3] if r.type == "Fact"} == {"阿琳"}, read[3]


def test_without_resolution_the_pronoun_is_nobody(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    import mnemir.memory.understanding as understanding

    monkeypatch.setattr(understanding, "RESOLVE_PRONOUNS", False)
    for n, t in enumerate(["My brother-in-law Ravi just started at the fire station.",
                           "He is on the night rota all winter."], start=1):
        out = mem.remember(t, user="ines", session="s1", turn=n, now=START + timedelta(minutes=n))
    assert "ravi" not in {r.properties.get("entity") for r in out.created}
