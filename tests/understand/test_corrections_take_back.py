"""A correction takes back what an earlier utterance said (issue 15): recall leaves the old utterance out, whatever
was read from it, unless the question is about something else it said or about the past. Every sentence is made up
here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.understand.fill import correction_of


@pytest.mark.parametrize(("text", "old"), [
    ("Correction: the viewing wasn't the 3rd, it got moved to the 5th.", "3rd"),
    ("The tutor comes on Friday the 8th now instead of Monday.", "monday"),
    ("会面其实不是周二，是周三。", "周二"),
])
def test_a_correction_names_the_value_it_takes_back(text: str, old: str) -> None:
    cued, named = correction_of(text)
    assert cued and named is not None and named.lower() == old


@pytest.mark.parametrize("text", [
    "Sorry, earlier I said the hall fits 80, it's more like 60.",
    "Typo in my list: it's 36 chairs.",
    "我看错了，押金是三千。",
])
def test_general_markers_of_taking_something_back_are_corrections(text: str) -> None:
    assert correction_of(text)[0]


def _said(mem: mnemir.Memory, turns: list[tuple[str, str]], start: datetime) -> dict[int, str]:
    """Remember the turns in order, a minute apart; turn number -> the id of its Episode."""
    out = {}
    for n, (speaker, text) in enumerate(turns, start=1):
        done = mem.remember(text, speaker=speaker, user="ines", session="s1", turn=n, now=start + timedelta(minutes=n))
        assert done.episode is not None
        out[n] = done.episode.id
    return out


def _shown_turns(mem: mnemir.Memory, query: str, now: datetime) -> set[int]:
    hits = mem.recall(query, user="ines", k=5, now=now).hits
    turns = set()
    for hit in hits:
        turns |= {s.turn for s in (hit.memory.metadata.source, *hit.memory.metadata.merged_sources) if s.turn}
    return turns


TURNS = [
    ("user", "Got the optician sorted, they could only fit me in on Monday the 9th."),
    ("assistant", "Good that it's booked. Anything else this week?"),
    ("user", "My cousin Rafa is staying with us from Leeds for the weekend."),
    ("assistant", "That sounds fun. Any plans while he's here?"),
    ("user", "We might take him to the science museum on Saturday."),
    ("user", "Wait, I misread the card: the optician is Thursday the 12th, not the 9th."),
]


def test_the_utterance_a_correction_takes_back_is_not_shown(mem: mnemir.Memory, wed: datetime) -> None:
    done = _said(mem, TURNS, wed)
    correction = [r for r in mem.list(user="ines") if r.metadata.source.turn == 6 and r.type != "Episode"]
    assert any(rel.target == done[1] for r in correction for rel in r.relationships
               if rel.relation == "corrects"), [r.relationships for r in correction]
    shown = _shown_turns(mem, "When is my optician appointment?", wed + timedelta(minutes=10))
    assert 6 in shown and 1 not in shown, shown


def test_the_old_utterance_still_answers_what_else_it_said(mem: mnemir.Memory, wed: datetime) -> None:
    turns = [("user", "Got the optician sorted for Monday the 9th, and I'm finally getting new glasses with thin lenses."),
             *TURNS[1:]]
    _said(mem, turns, wed)
    shown = _shown_turns(mem, "What kind of glasses am I getting?", wed + timedelta(minutes=10))
    assert 1 in shown, shown


# -- work done that was never read as a task ---------------------------------------------------------------------
def test_a_report_closes_work_stated_in_an_utterance_no_task_was_read_from(mem: mnemir.Memory, wed: datetime) -> None:
    # an utterance kept verbatim with nothing typed read from it (as remember keeps every utterance)
    stated = mem.add("Before the trip I'll have to get the bike serviced at the shop on Dale Road.", "Episode",
                     {"speaker": "user"}, user="ines", now=wed)
    mem.add("The kids want pancakes on Sunday.", "Episode", {"speaker": "user"}, user="ines", now=wed)
    done = mem.remember("Got the bike serviced at the Dale Road shop this morning.", user="ines",
                        now=wed + timedelta(days=1))
    assert done.episode is not None
    assert [r.target for r in mem.get(done.episode.id, user="ines").relationships
            if r.relation == "completes"] == [stated.id], done.notes
    open_now = mem.recall("What do I still have to do?", user="ines", k=5, now=wed + timedelta(days=1, hours=1))
    assert stated.id not in {h.id for h in open_now.hits}
    # asked about the bike itself, what was said is still there
    about = mem.recall("Where do I take the bike for a service?", user="ines", k=5,
                       now=wed + timedelta(days=1, hours=1))
    assert any(h.id == stated.id or "Dale Road" in h.memory.content.text for h in about.hits)


def test_a_report_closes_no_utterance_that_states_no_work(mem: mnemir.Memory, wed: datetime) -> None:
    mem.add("The bike shop on Dale Road is the best in town.", "Episode", {"speaker": "user"}, user="ines", now=wed)
    done = mem.remember("Got the bike serviced at the Dale Road shop this morning.", user="ines",
                        now=wed + timedelta(days=1))
    assert done.episode is not None
    assert not any(r.relation == "completes" for r in mem.get(done.episode.id, user="ines").relationships)


# -- done work kept as the fact it tells, then corrected (docs/decisions/0045) --------------------------------------
def test_a_correction_replaces_the_fact_kept_from_a_report_of_done_work(mem: mnemir.Memory, wed: datetime) -> None:
    turns = [("user", "Booked the boiler service, the engineer can only come on Tuesday the 17th."),
             ("user", "My neighbour Odile lent us her ladder for the weekend."),
             ("user", "Sorry, I read the text wrong: the boiler engineer comes Friday the 20th, not the 17th.")]
    said = _said(mem, turns, wed)
    first = [r for r in mem.list(user="ines", statuses=["active", "superseded"]) if r.metadata.source.turn == 1
             and r.type != "Episode"]
    kinds = {(r.type, r.properties.get("status")) for r in first}
    assert ("Task", "completed") in kinds and ("Fact", None) in kinds, kinds
    fact = next(r for r in first if r.type == "Fact")
    assert mem.get(fact.id, user="ines").status == "superseded"
    correction = [r for r in mem.list(user="ines") if r.metadata.source.turn == 3 and r.type == "Fact"]
    assert correction and any(rel.relation == "supersedes" and rel.target == fact.id
                              for rel in correction[0].relationships)
    # the closed task of the report stays what it was: the work was done
    task = next(r for r in first if r.type == "Task")
    assert mem.get(task.id, user="ines").properties.get("status") == "completed"
    assert said[3]
