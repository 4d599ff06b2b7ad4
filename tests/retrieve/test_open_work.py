"""Asked for the open work, recall bars closed tasks; asked about one task, it keeps that task whatever its status.
The intent model's "open_tasks" is acted on only when the query-kind model reads a request for the open work too
(decision 0055). Real store, real embedder, the shipped intent and query-kind models; sentences made up here."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.judgements import confirm_open_work
from mnemir.retrieve.query_kinds import QueryReading, read_query


@pytest.fixture
def errands(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "curtains": add(mem, now, "Picked up the new curtains for the living room", "Task",
                        {"goal": "curtains", "status": "completed"}, days=3),
        "hallway": add(mem, now, "Paint the hallway before the party", "Task",
                       {"goal": "paint hallway", "status": "pending"}, days=5),
        "plumber": add(mem, now, "Call the plumber about the dripping tap", "Task",
                       {"goal": "plumber", "status": "pending"}, days=2),
    }


def test_a_question_about_one_task_keeps_it_when_it_is_done(mem: mnemir.Memory, now: datetime,
                                                            errands: dict[str, mnemir.MemIR]) -> None:
    query = "Do I still need to get the curtains?"
    assert mem.intent(query, now=now).kind == "open_tasks"  # the intent model alone reads a request for open work
    result = mem.recall(query, user="alice", k=3, now=now)
    assert result.intent.kind == "task_status"
    assert errands["curtains"].id in [h.id for h in result.hits]
    assert any("does not read a request for the open work" in n for n in result.notes), result.notes


def test_a_request_for_the_open_work_still_bars_closed_tasks(mem: mnemir.Memory, now: datetime,
                                                             errands: dict[str, mnemir.MemIR]) -> None:
    result = mem.recall("Which chores haven't I got round to yet?", user="alice", k=3, now=now)
    ids = [h.id for h in result.hits]
    assert result.intent.kind == "open_tasks"
    assert errands["curtains"].id not in ids and {errands["hallway"].id, errands["plumber"].id} <= set(ids)


def test_an_intent_set_by_hand_is_used_as_given(mem: mnemir.Memory) -> None:
    query = "Do I still need to get the curtains?"
    reading = read_query(mem.embedder.embed_query(query), mem.embedder.model_id)
    assert reading.asks_open_work is False
    given = intent(query, "open_tasks", ("Task", "Plan"), where={"status": {"$in": ["pending", "in_progress"]}})
    assert confirm_open_work(given, reading) is given
    read = mem.intent(query)
    assert confirm_open_work(read, reading).kind == "task_status"
    assert confirm_open_work(read, reading).where is None
    assert confirm_open_work(read, QueryReading()) is read  # nothing read (another embedder): the intent stands
