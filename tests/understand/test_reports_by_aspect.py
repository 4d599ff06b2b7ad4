"""Reports without a "done" word (issue 15): the perfective aspect, a report matched to the task it is about by the
content words they share. Every sentence is made up here."""

from __future__ import annotations

from datetime import datetime

import pytest

import mnemir
from mnemir.understand.fill import perfective, update_status


@pytest.mark.parametrize(("text", "told"), [
    ("Rang the garage and they fixed the exhaust", True),
    ("We've sent the forms back", True),
    ("The survey results are in.", True),
    ("窗帘装上了", True),
    ("那家店我去过了", True),
    ("I need to ring the garage about the exhaust", False),
    ("I'm so tired after the shift", False),
    ("Haven't rung the garage yet", False),
    ("窗帘还没装", False),
    ("我打算下周去看窗帘", False),
    # a clause set in the future: its 了 marks what is still to come, unless a result is stated
    ("明天去把窗帘退了", False),
    ("先去把押金交了", False),
    ("明天的车票买好了", True),
])
def test_the_perfective_aspect(text: str, told: bool) -> None:
    assert perfective(text) is told


@pytest.mark.parametrize(("text", "status"), [
    ("Rang the garage this morning", "completed"),
    ("窗帘装上了", "completed"),
    ("Still sorting out the garage", "in_progress"),
    ("我还在挑窗帘", "in_progress"),
    ("下周把押金交了", "in_progress"),
])
def test_a_report_told_as_having_happened_completes(text: str, status: str) -> None:
    assert update_status(text) == status


def test_a_report_that_shares_the_tasks_words_completes_it(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("I have to renew the parking permit for the van before the end of the month.", user="kim",
                 turn=1, now=wed)
    mem.remember("Also need to book a haircut for Friday.", user="kim", turn=2, now=wed)
    done = mem.remember("Renewed the parking permit online this morning.", user="kim", turn=3, now=wed)
    closed = [r for r in done.updated if r.type in ("Task", "Plan")]
    assert [r.content.text for r in closed if r.properties.get("status") == "completed"] == [
        "I have to renew the parking permit for the van before the end of the month."], done.notes
    still = [r.content.text for r in mem.list(user="kim", types=["Task", "Plan"])
             if r.properties.get("status") in ("pending", "in_progress")]
    assert any("haircut" in t for t in still), still

