"""What the types know: task status, confidence and source, disputes, frames, fading, widening, and bad input.

Intents are given by hand here so that these tests pin recall's ranking, not the intent model.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve.ranking import RankingConfig
from mnemir.retrieve.recall import RecallConfig

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")


@pytest.fixture
def chores(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "pack": add(mem, now, "Pack the kitchen into boxes for the move", "Task",
                    {"goal": "pack kitchen", "status": "in_progress"}, days=4),
        "movers": add(mem, now, "Book the movers for the 10th", "Task", {"goal": "movers", "status": "completed"},
                      days=9),
        "gas": add(mem, now, "Transfer the gas contract online for the move", "Task",
                   {"goal": "gas transfer", "status": "failed"}, days=8),
        "internet": add(mem, now, "Move the internet contract to the new flat", "Task",
                        {"goal": "internet", "status": "pending"}, days=2),
        "address": add(mem, now, "The new flat is at 38 College Road", "Fact",
                       {"entity": "new flat", "attribute": "address", "value": "38 College Road"}, days=12),
    }


def test_whats_left_shows_open_tasks_only(mem: mnemir.Memory, now: datetime,
                                          chores: dict[str, mnemir.MemIR]) -> None:
    query = "Which moving chores are still open?"
    wanted = intent(query, "open_tasks", ("Task", "Plan"), where={"status": {"$in": ["pending", "in_progress"]}})

    result = mem.recall(query, user="alice", k=5, now=now, intent=wanted)
    ids = {h.id for h in result.hits}

    assert {chores["pack"].id, chores["internet"].id} <= ids
    assert {chores["movers"].id, chores["gas"].id}.isdisjoint(ids)
    assert all(h.role == "task" for h in result.hits if h.memory.type == "Task")


def test_a_status_question_may_surface_a_done_task(mem: mnemir.Memory, now: datetime,
                                                   chores: dict[str, mnemir.MemIR]) -> None:
    query = "Did the movers get booked?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "task_status", ("Task", "Plan")))

    assert result.hits[0].id == chores["movers"].id
    assert "completed task" in result.context.render()


@pytest.mark.parametrize("kind, types", [("fact_lookup", ("Fact", "Hypothesis")), ("preference", ("Preference",))])
def test_no_task_answers_a_fact_or_preference_question(mem: mnemir.Memory, now: datetime,
                                                       chores: dict[str, mnemir.MemIR], kind: str,
                                                       types: tuple[str, ...]) -> None:
    query = "Where is the new flat for the move?"
    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, kind, types))

    assert result.hits and result.hits[0].id == chores["address"].id
    assert not [h for h in result.hits if h.memory.type == "Task" and h.memory.properties["status"] != "pending"]


def test_confident_external_fact_outranks_a_half_remembered_one(mem: mnemir.Memory, now: datetime) -> None:
    hunch = add(mem, now, "I think the museum closes at 6 every day, not sure", "Fact",
                {"entity": "City Museum", "attribute": "closing time", "value": "18:00", "source": "user",
                 "confidence": 0.3}, days=20)
    official = add(mem, now, "The City Museum is open 9:30 to 17:00, closed on Mondays", "Fact",
                   {"entity": "City Museum", "attribute": "opening hours", "value": "9:30-17:00",
                    "source": "external", "confidence": 0.95}, days=5, speaker="tool")
    query = "When does the museum close?"

    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    ids = [h.id for h in result.hits]

    assert ids.index(official.id) < ids.index(hunch.id)
    assert result.hits[ids.index(hunch.id)].unconfirmed
    assert not result.hits[ids.index(official.id)].unconfirmed
    assert "UNCONFIRMED" in result.context.render()


def test_disputed_memory_is_labelled_uncertain(mem: mnemir.Memory, now: datetime) -> None:
    peanut = add(mem, now, "I might be allergic to peanuts", "Fact",
                 {"entity": "user", "attribute": "peanut allergy", "value": "maybe"}, days=30)
    mem.update(peanut.id, status="disputed", user="alice", now=now - timedelta(days=29))
    query = "Am I allergic to peanuts?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    assert result.hits[0].id == peanut.id
    assert result.hits[0].uncertain
    assert "UNCERTAIN" in result.context.render()


def test_the_active_frame_demotes_memories_of_another_frame(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "Negotiation with Baltic Cargo", "ContextualFrame",
              {"frame_type": "negotiation", "topic": "Baltic Cargo", "active": False}, days=60)
    old_ceiling = add(mem, now, "Our price ceiling is $2.80 per km", "Fact",
                      {"entity": "ceiling (Baltic)", "attribute": "amount", "value": "$2.80"}, days=60,
                      relationships=[{"target": old.id, "relation": "in_frame"}])
    current = add(mem, now, "Negotiation with Nordwind Logistics", "ContextualFrame",
                  {"frame_type": "negotiation", "topic": "Nordwind", "active": True}, hours=1)
    ceiling = add(mem, now, "Our price ceiling is $3.10 per km", "Fact",
                  {"entity": "ceiling (Nordwind)", "attribute": "amount", "value": "$3.10"}, hours=1,
                  relationships=[{"target": current.id, "relation": "in_frame"}])
    query = "What's our price ceiling?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    ids = [h.id for h in result.hits]

    assert ids[0] == ceiling.id
    assert old_ceiling.id not in ids
    assert result.context.frame is not None and result.context.frame.id == current.id


@pytest.mark.parametrize("half_life_days, shown", [(0.5, False), (60.0, True)])
def test_emotion_fading_is_configurable(mem: mnemir.Memory, now: datetime, half_life_days: float,
                                       shown: bool) -> None:
    rant = add(mem, now, "The FlowDesk app crashed again, I'm furious!", "EmotionalState",
               {"emotion_type": "anger", "intensity": 0.9}, days=10)
    add(mem, now, "FlowDesk 5.0 added an offline mode", "Fact",
        {"entity": "FlowDesk", "attribute": "features", "value": "offline mode"}, days=2)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(emotion_half_life=timedelta(days=half_life_days)))
    query = "What's new in the latest FlowDesk version?"

    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    hit = next((h for h in result.hits if h.id == rant.id), None)
    if shown:  # still the present mood: a caution
        assert hit is not None and hit.role == "caution" and "faded" not in hit.flags
    else:  # faded as a mood: at most an event, flagged faded
        assert hit is None or "faded" in hit.flags


def test_unsure_intent_widens_but_keeps_roles(mem: mnemir.Memory, now: datetime) -> None:
    pref = add(mem, now, "I love mushroom risotto", "Preference", {"subject": "risotto", "preference_type": "like"},
               days=30)
    query = "risotto"
    only_tasks = intent(query, "open_tasks", ("Task",), confidence=0.9)

    result = mem.recall(query, user="alice", k=3, now=now, intent=only_tasks)

    assert result.hits and result.hits[0].id == pref.id
    assert result.hits[0].role == "background"
    assert result.widened and any("widened" in n for n in result.notes)


def test_scope_is_respected(mem: mnemir.Memory, now: datetime) -> None:
    add(mem, now, "Bob's flat is at 12 Elm Street", "Fact", {"entity": "flat", "attribute": "address",
                                                            "value": "12 Elm Street"}, user="bob", days=1)
    query = "Where is the flat?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    assert result.hits == []
    assert result.notes  # says why it is empty, never silently


@pytest.mark.parametrize("call, field", [
    (lambda m, now: m.recall("x", user="alice", k=0, now=now), "k"),
    (lambda m, now: m.recall("", user="alice", now=now), "query"),
    (lambda m, now: m.recall("x", user="alice", now=now.replace(tzinfo=None)), "now"),
    (lambda m, now: m.recall("x", user="alice", now=now, intent={"types": ["Fact"]}), "intent"),
    (lambda m, now: m.recall("x", user="", now=now), "user"),
])
def test_bad_input_is_a_clear_error(mem: mnemir.Memory, now: datetime, call, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(mnemir.ValidationError) as err:
        call(mem, now)
    assert err.value.context.get("field") == field


def test_never_silently_nothing_when_something_is_loosely_related(mem: mnemir.Memory, now: datetime) -> None:
    loose = add(mem, now, "We moved the team call to Google Meet", "Fact",
                {"entity": "team call", "attribute": "tool", "value": "Google Meet"}, days=3)
    query = "Which tool do I send the invite with?"
    strict = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.0, min_score=0.99))
    mem.recall_config = strict

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    assert [h.id for h in result.hits] == [loose.id]
    assert "weak" in result.hits[0].flags and result.widened
    assert "weak match" in result.context.render()


def test_whats_left_lists_open_tasks_even_when_closer_memories_crowd_the_search(mem: mnemir.Memory,
                                                                               now: datetime) -> None:
    for i in range(60):
        add(mem, now, f"The new house: room {i} is finished and painted", "Fact",
            {"entity": f"new house room {i}", "attribute": "state", "value": "finished"}, days=5)
    tasks = [add(mem, now, text, "Task", {"goal": text, "status": "pending"}, days=3)
             for text in ("Order curtains for the upstairs windows", "Get the boiler serviced before winter")]
    query = "What's left to do for the new house?"
    wanted = intent(query, "open_tasks", ("Task", "Plan"), where={"status": {"$in": ["pending", "in_progress"]}})

    result = mem.recall(query, user="alice", k=5, now=now, intent=wanted)

    assert {t.id for t in tasks} <= {h.id for h in result.hits}


@pytest.mark.parametrize(("make", "field"), [
    (lambda: RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, weak_fallback=-1), "weak_fallback"),
    (lambda: RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, present_limit=0), "present_limit"),
    (lambda: RankingConfig(passed_feeling_similarity=1.5), "passed_feeling_similarity"),
    (lambda: RankingConfig(feeling_guess_confidence=-0.1), "feeling_guess_confidence"),
    (lambda: RankingConfig(keyword_anchor=1.2), "keyword_anchor"),
    (lambda: RankingConfig(keyword_anchor="0.3"), "keyword_anchor"),  # type: ignore[arg-type]
    (lambda: RankingConfig(outcome_fact_fit=-0.5), "outcome_fact_fit"),
    (lambda: RankingConfig(emotion_event_weight=1.5), "emotion_event_weight"),
])
def test_bad_recall_settings_are_refused(make, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as err:
        make()
    assert err.value.context["field"] == field
