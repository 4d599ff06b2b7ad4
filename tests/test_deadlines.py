"""One reading of stored deadlines and timestamps, shared by recall ranking and the task lifecycle."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from mnemir.ir import Content, MemIR, Metadata, Scope
from mnemir.lifecycle import is_overdue
from mnemir.ontology import norm_key, parse_deadline, parse_timestamp
from mnemir.retrieve.ranking import Candidate, FrameState, RankingConfig, score_candidate
from mnemir.understand import RetrievalIntent

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
END_OF_DAY = datetime.combine(NOW.date(), time.max, UTC)


@pytest.mark.parametrize(("value", "deadline", "timestamp"), [
    ("2026-11-29", END_OF_DAY, datetime(2026, 11, 29, tzinfo=UTC)),  # due that day: it lasts all day
    ("2026-11-29T18:00:00Z", NOW + timedelta(hours=8), NOW + timedelta(hours=8)),
    ("2026-11-29T18:00:00+08:00", NOW, NOW),
    ("2026-11-29T10:00:00", NOW, NOW),  # naive is UTC
    (" 2026-11-29 ", END_OF_DAY, datetime(2026, 11, 29, tzinfo=UTC)),
    ("2026-02-30", None, None),
    ("soon", None, None),
    ("", None, None),
    (None, None, None),
    (20261129, None, None),
])
def test_parse_deadline_and_timestamp(value: object, deadline: datetime | None, timestamp: datetime | None) -> None:
    assert parse_deadline(value) == deadline
    assert parse_timestamp(value) == timestamp


@pytest.mark.parametrize(("value", "key"), [
    ("The User", "theuser"), ("the_user", "theuser"), ("ＡＢＣ", "abc"), ("我 ", "我"), (None, ""),
])
def test_norm_key(value: object, key: str) -> None:
    assert norm_key(value) == key


def task(deadline: str) -> MemIR:
    return MemIR(content=Content(text="file the expense report"), type="Task",
                 properties={"status": "pending", "deadline": deadline}, scope=Scope(user_id="alice"),
                 metadata=Metadata(created_at=NOW - timedelta(days=1), updated_at=NOW - timedelta(days=1)))


@pytest.mark.parametrize(("deadline", "due_today", "overdue_tomorrow"), [
    ("2026-11-29", True, True),
    ("2026-11-30", False, False),  # due tomorrow is not due today (its midnight is the end of today's range)
    ("2026-11-29T23:30:00Z", True, True),
])
def test_ranking_and_lifecycle_read_a_deadline_alike(deadline: str, due_today: bool, overdue_tomorrow: bool) -> None:
    today = (datetime.combine(NOW.date(), time(), UTC), datetime.combine(NOW.date() + timedelta(days=1), time(), UTC))
    intent = RetrievalIntent(query="what is due today?", types=("Task",), kind="open_tasks", time_range=today)
    scored = score_candidate(Candidate(task(deadline), similarity=0.5), "task", intent, None, NOW, RankingConfig(),
                             FrameState(), past=False)  # "today" reaches into the future: not a past question
    assert scored is not None
    assert ("due inside the asked time range" in scored.reasons) is due_today
    assert is_overdue(task(deadline), NOW) is False
    assert is_overdue(task(deadline), today[1] + timedelta(seconds=1)) is overdue_tomorrow
