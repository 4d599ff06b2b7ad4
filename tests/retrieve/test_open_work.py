"""Asked for the open work, recall bars closed tasks; asked about one task, it keeps that task whatever its status.
The intent model's "open_tasks" gives way to "task_status" when the query-kind model reads a question about where a
task stands (decision 0055). Real store, real embedder, the shipped intent and query-kind models; sentences made up here."""

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
        "visa": add(mem, now, "申根签证没批下来，领事馆说我的行程单不完整", "Task",
                    {"goal": "申根签证", "status": "failed"}, days=3),
        "hotel": add(mem, now, "周五之前把巴黎的酒店订好", "Task", {"goal": "订酒店", "status": "pending"}, days=5),
        "cash": add(mem, now, "去银行换五百欧元现金", "Task", {"goal": "换欧元", "status": "pending"}, days=2),
    }


def test_a_question_about_one_task_keeps_it_when_it_failed(mem: mnemir.Memory, now: datetime,
                                                           errands: dict[str, mnemir.MemIR]) -> None:
    query = "签证那事还有希望吗？"
    assert mem.intent(query, now=now).kind == "open_tasks"  # the intent model alone reads a request for open work
    result = mem.recall(query, user="alice", k=3, now=now)
    assert result.intent.kind == "task_status"
    assert errands["visa"].id in [h.id for h in result.hits]
    assert any("reads a question about where a task stands" in n for n in result.notes), result.notes


def test_a_request_for_the_open_work_still_bars_closed_tasks(mem: mnemir.Memory, now: datetime,
                                                             errands: dict[str, mnemir.MemIR]) -> None:
    result = mem.recall("旅行前还剩哪些事要办？", user="alice", k=3, now=now)
    ids = [h.id for h in result.hits]
    assert result.intent.kind == "open_tasks"
    assert errands["visa"].id not in ids and {errands["hotel"].id, errands["cash"].id} <= set(ids)


def test_an_intent_set_by_hand_is_used_as_given(mem: mnemir.Memory) -> None:
    query = "签证那事还有希望吗？"
    reading = read_query(mem.embedder.embed_query(query), mem.embedder.model_id)
    assert reading.asks_task_standing
    given = intent(query, "open_tasks", ("Task", "Plan"), where={"status": {"$in": ["pending", "in_progress"]}})
    assert confirm_open_work(given, reading) is given
    read = mem.intent(query)
    assert confirm_open_work(read, reading).kind == "task_status"
    assert confirm_open_work(read, reading).where is None
    assert confirm_open_work(read, QueryReading()) is read  # nothing read (another embedder): the intent stands
