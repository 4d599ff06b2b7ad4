"""The floors, and what passes them anyway.

A thin answer is topped up: when fewer than ``weak_fallback`` memories pass the floors, the closest plain memories
under the relevance floor follow, labelled weak. Plain: an answer, a present fact or an open task, not one that
speaks against itself (a closed task, a fact from another frame, a preference or a feeling, whose standing is judged
against the others). The user's present state, ranked above the background preferences shown for an advice question,
is shown with them even when its own score is under the score floor.

Intents are given by hand so that these tests pin recall's rules, not the intent model.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.ranking import RankingConfig
from mnemir.retrieve.recall import RecallConfig

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")

QUERY = "When do I have to be in court?"
#: every memory is under this floor, so whatever is shown is a top-up
UNREACHABLE = RankingConfig(min_relevance=0.99, current_min_relevance=0.99, keyword_anchor=0.0, weak_min_relevance=0.0)


@pytest.fixture
def lawsuit(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    old_frame = add(mem, now, "Mediation session with Brennan at the council offices", "ContextualFrame",
                    {"frame_type": "negotiation", "topic": "mediation with Brennan", "active": False}, days=30)
    return {
        "hearing": add(mem, now, "The tribunal hearing is on June 11 at 9:30am, courtroom 3B", "Fact",
                       {"entity": "tribunal case", "attribute": "hearing date", "value": "June 11 9:30am"},
                       days=20),
        "claim": add(mem, now, "I'm suing Brennan Decks for $7,800 for the rotten deck", "Fact",
                     {"entity": "tribunal case", "attribute": "claim amount", "value": "$7800"}, days=40),
        "evidence": add(mem, now, "Print the photos of the deck for the hearing", "Task",
                        {"goal": "print evidence", "status": "completed"}, days=5),
        "answer": add(mem, now, "File my response to the counterclaim with the court", "Task",
                      {"goal": "answer counterclaim", "status": "pending"}, days=3),
        "rant": add(mem, now, "Brennan countersued me, I'm livid", "EmotionalState",
                    {"emotion_type": "anger", "intensity": 0.9, "trigger": "countersuit"}, days=10),
        "habit": add(mem, now, "I like to get to appointments early", "Preference",
                     {"subject": "punctuality", "preference_type": "like"}, days=60),
        "mediation": add(mem, now, "The mediator said court would be the next step", "Fact",
                         {"entity": "mediation", "attribute": "outcome", "value": "go to court"}, days=30,
                         relationships=[{"target": old_frame.id, "relation": "in_frame"}]),
        "frame": add(mem, now, "At the court help desk", "ContextualFrame",
                     {"frame_type": "other", "topic": "court help desk", "active": True}, hours=1),
    }


def test_a_thin_answer_is_topped_up_with_plain_memories_labelled_weak(
        mem: mnemir.Memory, now: datetime, lawsuit: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=UNREACHABLE, weak_fallback=5)
    result = mem.recall(QUERY, user="alice", k=5, now=now, intent=intent(QUERY, "task_status", ("Task", "Fact")))

    shown = {h.id for h in result.hits}
    assert {lawsuit["answer"].id, lawsuit["hearing"].id, lawsuit["claim"].id} <= shown
    assert all("weak" in h.flags for h in result.hits)
    assert "nothing passed the relevance floor; showing the closest memories, labelled weak" in result.notes
    # what speaks against itself is no filler: a completed task, a fact of an ended frame, a feeling, a preference
    for key in ("evidence", "mediation", "rant", "habit"):
        assert lawsuit[key].id not in shown, key


def test_the_top_up_stops_at_weak_fallback_and_at_its_own_floor(
        mem: mnemir.Memory, now: datetime, lawsuit: dict[str, mnemir.MemIR]) -> None:
    ask = intent(QUERY, "fact_lookup", ("Fact",))
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=UNREACHABLE, weak_fallback=1)
    assert len(mem.recall(QUERY, user="alice", k=5, now=now, intent=ask).hits) == 1

    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=replace(UNREACHABLE, weak_min_relevance=1.0))
    nothing = mem.recall(QUERY, user="alice", k=5, now=now, intent=ask)
    assert nothing.hits == []
    assert "no stored memory in this scope is close enough to the query" in nothing.notes


def test_an_answer_with_enough_hits_is_not_topped_up(mem: mnemir.Memory, now: datetime,
                                                     lawsuit: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.0, min_score=0.0))  # every fact passes
    result = mem.recall(QUERY, user="alice", k=2, now=now, intent=intent(QUERY, "fact_lookup", ("Fact",)))

    assert len(result.hits) == 2
    assert not any("weak" in h.flags for h in result.hits)
    assert not any("relevance floor" in note for note in result.notes)


def test_weak_min_relevance_is_range_checked() -> None:
    with pytest.raises(mnemir.ValidationError) as err:
        RankingConfig(weak_min_relevance=1.5)
    assert err.value.field == "weak_min_relevance"


ADVICE = "Should I just set up at the kitchen table again today?"


@pytest.fixture
def wrist(mem: mnemir.Memory, now: datetime) -> mnemir.MemIR:
    """An old habit and the user's present state that conflicts with it (sharing few words with ADVICE)."""
    add(mem, now, "I love working from the kitchen table, near the window and the kettle", "Preference",
        {"subject": "working at the kitchen table", "preference_type": "like"}, days=300)
    return add(mem, now, "The physio says I have RSI in my right wrist: external keyboard, screen at eye level",
               "Fact", {"entity": "user", "attribute": "wrist RSI", "value": "external keyboard"}, days=7)


def test_the_present_state_ranked_above_shown_preferences_is_shown_too(mem: mnemir.Memory, now: datetime,
                                                                       wrist: mnemir.MemIR) -> None:
    query = ADVICE
    ask = intent(query, "preference", ("Preference", "Fact"))
    # a score floor the wrist's own score cannot reach (its words share little with the query), the preference's can
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.3))

    result = mem.recall(query, user="alice", k=3, now=now, intent=ask)

    hit = result.hits[0]
    assert hit.id == wrist.id and hit.role == "current" and "weak" not in hit.flags
    assert "the present state ranks above background preferences" in hit.reasons


def test_the_users_own_state_has_the_present_states_score_floor(mem: mnemir.Memory, now: datetime) -> None:
    wrist = add(mem, now, "I sprained my right wrist on Sunday", "Fact",
                {"entity": "user", "attribute": "right wrist", "value": "sprained"}, days=2)
    van = add(mem, now, "The van hire place opens at 8am", "Fact",
              {"entity": "van hire", "attribute": "opening time", "value": "8am"}, days=2)
    query = "Can I carry the boxes up to the new flat myself?"
    # the score floor scales with the relevance floor: 0.9 for others, 0.9 * 0.01 / 0.9 for the user's own state
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.9, min_relevance=0.9,
                                                           current_min_relevance=0.01, weak_min_relevance=0.0))

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    by_id = {h.id: h for h in result.hits}
    assert wrist.id in by_id and "weak" not in by_id[wrist.id].flags
    assert van.id not in by_id or "weak" in by_id[van.id].flags


@pytest.mark.parametrize(("text", "factor"), [
    ("My passport expires in May 2027", 1.0),  # same language: the cosine as it is
    ("我的护照2027年5月到期", 0.8),  # across languages: loosely related texts score like close ones, so scaled
])
def test_a_cosine_across_languages_is_scaled(mem: mnemir.Memory, now: datetime, text: str, factor: float) -> None:
    from mnemir.retrieve.ranking import Candidate, relevance

    record = add(mem, now, text, "Fact", {"entity": "passport", "attribute": "expiry", "value": "2027-05"}, days=3)
    ask = intent("When does my passport run out?", "fact_lookup", ("Fact",))

    value, reasons = relevance(Candidate(record, similarity=0.5), ask, RankingConfig())

    assert value == pytest.approx(0.5 * factor)
    assert ("across languages (similarity x 0.8)" in reasons) is (factor < 1.0)
    assert relevance(Candidate(record, similarity=0.5), ask, RankingConfig(cross_language_factor=1.0))[0] == 0.5


@pytest.mark.parametrize(("text", "language"), [
    ("Lunch with 老王 at noon", "en"),  # a name in the other script does not change the language
    ("我的护照2027年5月到期", "zh"), ("2027-05", None),  # no letters: no language, no scaling
])
def test_the_language_of_a_text_is_the_script_it_is_mostly_written_in(text: str, language: str | None) -> None:
    from mnemir.understand.lexicon import main_language

    assert main_language(text) == language


def test_a_note_says_how_many_passed_when_a_thin_answer_is_topped_up(mem: mnemir.Memory, now: datetime,
                                                                    lawsuit: dict[str, mnemir.MemIR]) -> None:
    # the floors as shipped, one memory passes (the hearing, by its words); the rest of k=3 are weak fillers
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.3, weak_min_relevance=0.0))
    result = mem.recall(QUERY, user="alice", k=3, now=now, intent=intent(QUERY, "fact_lookup", ("Fact",)))

    passed = [h for h in result.hits if "weak" not in h.flags]
    assert passed and len(result.hits) == 3
    n = len(passed)
    assert f"only {n} memor{'y' if n == 1 else 'ies'} passed the relevance floor; the closest others follow, " \
           "labelled weak" in result.notes


def test_a_task_a_status_question_left_out_is_not_brought_back_as_a_filler(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    visa = add(mem, now, "Submit the Japan work visa application at the consulate", "Task",
               {"goal": "submit visa application", "status": "in_progress"}, days=5)
    photos = add(mem, now, "Get new passport photos taken", "Task", {"goal": "passport photos", "status": "pending"},
                 days=6)
    query = "Where does my Japan work visa application stand?"
    # every task passes the relevance floor; focus_status keeps only those close to the best-matching one
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.0, status_focus_margin=0.01),
                                     weak_fallback=3)
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "task_status", ("Task", "Plan")))

    ids = [h.id for h in result.hits]
    assert ids[0] == visa.id
    assert photos.id not in ids


def test_no_lift_above_preferences_that_are_not_shown(mem: mnemir.Memory, now: datetime,
                                                     wrist: mnemir.MemIR) -> None:
    query = ADVICE
    # a score floor no memory reaches: the preference is cut, so nothing is lifted above it
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.99, weak_min_relevance=1.0))

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "preference", ("Preference", "Fact")))

    lifted = [h for h in result.hits if "the present state ranks above background preferences" in h.reasons]
    assert not lifted
    shown = {h.id: h for h in result.hits}
    assert wrist.id in shown and "weak" in shown[wrist.id].flags  # shown only as the closest of a weak answer


@pytest.fixture
def allotment_show(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    """A fact question whose answer is an arrangement still under way (an open task), beside a settled fact."""
    return {
        "date": add(mem, now, "The allotment show is on Saturday 5 September in the church hall", "Fact",
                    {"entity": "allotment show", "attribute": "date", "value": "5 September"}, days=20),
        "judge": add(mem, now, "Ask Mr Patel to judge the giant marrow class at the allotment show", "Task",
                     {"goal": "marrow class judge", "status": "in_progress"}, days=4),
        "raffle": add(mem, now, "Collect raffle prizes from the garden centre", "Task",
                      {"goal": "raffle prizes", "status": "pending"}, days=3),
    }




def test_an_open_task_is_no_filler_when_an_answer_shown_is_closer(mem: mnemir.Memory, now: datetime,
                                                                 allotment_show: dict[str, mnemir.MemIR]) -> None:
    query = "When is the allotment show being held?"
    # the date passes the floor and is closer to the question than the judge task, which shares "allotment show"
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.3, weak_min_relevance=0.0))

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    ids = [h.id for h in result.hits]
    assert ids[0] == allotment_show["date"].id
    assert allotment_show["judge"].id not in ids


@pytest.mark.parametrize(("confidence", "unrelated_listed"), [
    (0.95, True),  # a sure "what is left": every open task is listed, whatever its wording
    (0.4, False),  # an unsure guess: only the open tasks on the question's topic
])
def test_an_unsure_what_is_left_guess_lists_only_open_tasks_on_its_topic(
        mem: mnemir.Memory, now: datetime, confidence: float, unrelated_listed: bool) -> None:
    deposit = add(mem, now, "Chase the landlord for the rest of my tenancy deposit", "Task",
                  {"goal": "tenancy deposit", "status": "pending"}, days=4)
    tax = add(mem, now, "Renew the car tax before the end of the month", "Task",
              {"goal": "car tax", "status": "pending"}, days=2)
    query = "How much of my tenancy deposit will the landlord hold back?"
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(weak_min_relevance=1.0))  # no weak fillers

    result = mem.recall(query, user="alice", k=3, now=now,
                        intent=intent(query, "open_tasks", ("Task", "Plan"), confidence=confidence))

    ids = [h.id for h in result.hits]
    assert ids[0] == deposit.id
    assert (tax.id in ids) is unrelated_listed


@pytest.mark.parametrize("name", ["open_focus_margin", "status_focus_margin"])
def test_focus_margins_are_range_checked(name: str) -> None:
    with pytest.raises(mnemir.ValidationError) as err:
        RankingConfig(**{name: -0.1})
    assert err.value.field == name
