"""Who a fact is about, read side (docs/decisions/0094): the person who only reports a fact about themselves, the
speaker's own statements, names a question uses that no memory introduced, and moved memories leaving a short
answer. Every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.persons import asked_person_order
from mnemir.understand.people import (
    about_the_speaker,
    asks_of_the_speaker,
    involved_in,
    names_asked,
    people_in,
    read_people,
)

KNOWN = ["My grandad Emil loves his allotment.", "My aunt Wilma moved to Lübeck last spring."]


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm at the office by eight most days.", True),
    ("Yeah, I usually swim on Thursdays.", True),
    ("对，我一般七点半到公司。", True),
    ("I lent her my ladder.", False),  # a third person told of by a pronoun
    ("他说我做得不错。", False),
    ("我们家周末去爬山。", False),  # the household, not the speaker alone
    ("The ferry leaves at nine.", False),  # no subject of the first person
])
def test_a_statement_about_the_speaker(text: str, expected: bool) -> None:
    assert about_the_speaker(text) is expected


def test_who_only_reports_is_involved_though_not_the_subject() -> None:
    people = read_people(KNOWN)
    text = "My grandad says he drove trams for thirty years."
    assert people_in(text, people) == set()  # the reporter is not whom a report is about (0069)
    assert "grandfather" in involved_in(text, people)


@pytest.mark.parametrize(("query", "texts", "expected"), [
    ("What does Ottilie teach?", ["Ottilie from the choir teaches piano."], {"ottilie"}),
    ("老葛一般几点下班？", ["我们组老葛最近总加班。"], {"老葛"}),
    ("What does Ottilie teach?", ["The choir meets on Fridays."], set()),  # a name no memory uses
    ("Is the market open on Saturday?", ["Saturday is market day."], set()),  # a day is no person
    ("Who at Brightwater Bank handles my loan?", ["My loan is with Brightwater Bank."], set()),  # asks who
])
def test_a_name_a_question_uses_counts_where_the_memories_use_it(query: str, texts: list[str],
                                                                 expected: set[str]) -> None:
    assert names_asked(query, texts) == expected


@pytest.mark.parametrize(("query", "expected"), [
    ("What did Ines and I settle on for the trip?", True),
    ("我和小满定的是哪天？", True),
    ("What does my uncle grow in his garden?", False),
    ("我舅舅种了什么菜？", False),
])
def test_a_question_that_asks_of_the_speaker_too(query: str, expected: bool) -> None:
    assert asks_of_the_speaker(query) is expected


def test_the_reporter_and_the_speaker_settings() -> None:
    texts = {"a": "My aunt Wilma drove a taxi for years.", "b": "I drive a delivery van on weekends.",
             "c": "My grandad says he drove trams for thirty years.", "d": "The tram depot is a museum now."}
    ids = ["a", "b", "c", "d"]
    query = "What did my grandad drive for a living?"
    # without the settings the grandad's report names nobody it is about: the order stands
    positions, note, moved = asked_person_order(ids, texts, query, k=2, depth=4, known=KNOWN)
    assert positions == [0, 1, 2, 3] and note is None and moved == []
    # the reporter counts: the aunt's memory follows the rest
    positions, note, moved = asked_person_order(ids, texts, query, k=2, depth=4, known=KNOWN, reporters=True)
    assert [ids[i] for i in positions] == ["b", "c", "d", "a"] and note and moved == [0]
    # the speaker's own statement is another person's too
    positions, _, moved = asked_person_order(ids, texts, query, k=2, depth=4, known=KNOWN, reporters=True,
                                             speaker_is_other=True)
    assert [ids[i] for i in positions] == ["c", "d", "a", "b"] and moved == [0, 1]


TURNS = [
    ("user", "My cousin Bettina starts her shifts at the bakery at five in the morning."),
    ("assistant", "That's an early start! Does she enjoy it?"),
    ("user", "She loves it. I'm at my desk by nine myself, which already feels early to me."),
    ("user", "My grandad says he drove trams in Leipzig for thirty years."),
    ("user", "My aunt Wilma drove a taxi in Lübeck before she retired."),
]


def _turns_shown(mem: mnemir.Memory, query: str, now: datetime, k: int = 3) -> set[int]:
    hits = mem.recall(query, user="wren", k=k, now=now).hits
    return {s.turn for hit in hits for s in (hit.memory.metadata.source, *hit.memory.metadata.merged_sources)
            if s.turn}


def test_recall_asked_about_a_relative_leaves_out_what_is_so_of_others(mem: mnemir.Memory, now: datetime) -> None:
    start = now - timedelta(hours=1)
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.remember(text, speaker=speaker, user="wren", session="s1", turn=n, now=start + timedelta(minutes=n))
    mem.recall_config = RecallConfig(asked_person_reporters=True, asked_person_speaker=True, asked_person_out=True,
                                     asked_person_names=True)
    shown = _turns_shown(mem, "What did my grandad drive for a living?", now)
    assert 4 in shown and 5 not in shown
    shown = _turns_shown(mem, "What time does Bettina start work?", now)
    assert 1 in shown
