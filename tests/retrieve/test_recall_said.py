"""Typing adds to plain search, never subtracts (issue 14, decision 0066): what a bar set aside only because open work
was asked for comes back when the memories settle the intent elsewhere. On a real store and the real model; every
sentence here is invented for these tests."""

from __future__ import annotations

from datetime import datetime

from recall_helpers import add, intent

import mnemir
from mnemir.retrieve import RecallConfig


def _work_store(mem: mnemir.Memory, now: datetime) -> mnemir.MemIR:
    """A done task, a fact about the same council and unrelated facts. Returns the task."""
    done = add(mem, now, "Posted the renewed parking permit form to the council", "Task", {"status": "completed"}, days=4)
    add(mem, now, "The council's parking office is on Elm Street", "Fact", {"entity": "council", "attribute": "office"},
        days=30)
    for days, text in enumerate(["My cousin plays the cello", "The gym opens at 6am on weekdays"], start=5):
        add(mem, now, text, "Fact", days=days)
    return done


def _unsure_open_work(mem: mnemir.Memory, now: datetime) -> mnemir.Recall:
    query = "What did I post to the council?"
    return mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "open_tasks", ("Task",),
                                                                       confidence=0.3))


def test_what_only_open_work_barred_comes_back_when_the_intent_settles_elsewhere(mem: mnemir.Memory,
                                                                                 now: datetime) -> None:
    """A closed task is barred when open work is asked for; an unsure reading of open work that the memories settle
    on another kind (no open task answers it) no longer asks for open work, and the closed task is back."""
    done = _work_store(mem, now)
    result = _unsure_open_work(mem, now)
    assert result.intent.kind not in ("open_tasks", "task_status"), result.notes
    assert done.id in [h.id for h in result.hits], [(h.memory.text, h.reasons) for h in result.hits]
    assert not any("open work was asked for" in n for n in result.notes), result.notes


def test_without_following_the_settled_intent_the_closed_task_stays_barred(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    done = _work_store(mem, now)
    mem.recall_config = RecallConfig(open_work_follows_settled=False)
    result = _unsure_open_work(mem, now)
    assert done.id not in [h.id for h in result.hits]
    assert any(done.id in n and "open work was asked for" in n for n in result.notes), result.notes
