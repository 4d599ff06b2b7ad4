"""Who a question asks about (docs/decisions/0069): a fact about one person never answers a question about another.
Every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.persons import about_the_asked_person
from mnemir.understand.people import asked_about, people_in, read_people

KNOWN = ["My cousin Oskar finally got his pilot's licence.", "My wife Greta teaches maths at the grammar school.",
         "我表姐小琪在医院上班。", "我老公阿宏最近在学吉他。"]


@pytest.mark.parametrize(("query", "expected"), [
    ("Which subject does my wife teach?", {"wife", "greta"}),  # a relation: the name it was introduced with too
    ("Where does Greta teach?", {"greta", "wife"}),  # a name: its one-person relation too
    ("Has Oskar flown anywhere yet?", {"oskar"}),  # a cousin is one of many: not carried over from the name
    ("我老公在学什么乐器？", {"husband", "阿宏"}),
    ("Which friend of mine lent me the tent?", set()),  # a relation right after "which" is a kind of person
    ("What did I eat for lunch?", set()),
])
def test_the_person_a_question_asks_about_is_resolved_against_the_known_people(query: str,
                                                                                 expected: set[str]) -> None:
    assert asked_about(query, read_people(KNOWN)) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("我老公阿宏周末加班。", {"husband", "阿宏"}),
    ("他闺女考上了大学。", set()),  # a third person's relative is not the user's
    ("我男朋友不吃香菜。", {"boyfriend"}),  # the longest relation word, not the 朋友 inside it
    ("Greta's class won the quiz.", {"greta"}),
    ("I finally fixed the bike.", set()),
])
def test_the_people_a_memory_names(text: str, expected: set[str]) -> None:
    assert people_in(text, read_people(KNOWN)) == expected


def test_memories_about_other_people_follow_the_rest_only_when_the_person_asked_about_is_there() -> None:
    texts = {"a": "My neighbour Pilar plays the oboe.", "b": "I want to learn an instrument this year.",
             "c": "My wife Greta plays the cello in a quartet.", "d": "The music shop closes at six."}
    ids = ["a", "b", "c", "d"]
    positions, note = about_the_asked_person(ids, texts, "What instrument does my wife play?", k=2, depth=4,
                                             known=KNOWN)
    assert [ids[i] for i in positions] == ["b", "c", "d", "a"] and note
    # nobody asked about is named near the top: the order stands
    texts["c"] = "My sister plays the cello."
    positions, note = about_the_asked_person(ids, texts, "What instrument does my wife play?", k=2, depth=4,
                                             known=KNOWN)
    assert positions == [0, 1, 2, 3] and note is None


TURNS = [
    ("user", "My brother Anselm works night shifts as a nurse at the county hospital."),
    ("assistant", "Night shifts are tough. How long has he been there?"),
    ("user", "My flatmate Corinna works as a nurse too, at a care home near the station."),
    ("assistant", "Sounds like a caring household!"),
    ("user", "My dentist appointment is next Tuesday."),
]


def _turns_shown(mem: mnemir.Memory, query: str, now: datetime, k: int = 2) -> set[int]:
    hits = mem.recall(query, user="noor", k=k, now=now).hits
    return {s.turn for hit in hits for s in (hit.memory.metadata.source, *hit.memory.metadata.merged_sources)
            if s.turn}


def test_recall_asked_about_one_person_does_not_show_what_was_said_of_another(mem: mnemir.Memory,
                                                                               now: datetime) -> None:
    start = now - timedelta(hours=1)
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.remember(text, speaker=speaker, user="noor", session="s1", turn=n, now=start + timedelta(minutes=n))
    shown = _turns_shown(mem, "Which hospital does my brother work at?", now)
    assert 1 in shown and 3 not in shown
    assert 3 in _turns_shown(mem, "Where does Corinna work?", now)
    # the setting off: the flatmate's job, as close in wording, takes a place beside the brother's
    mem.recall_config = RecallConfig(asked_person=False)
    assert {1, 3} <= _turns_shown(mem, "Which hospital does my brother work at?", now)
