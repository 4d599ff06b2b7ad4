"""A question about something that happened asks for no open work and no plan: when the query-kind model reads a
past event as the likeliest kind (``RecallConfig.event_reading``), an intent read as open work or a plan gives way
to a question of no family, so the account of the event is not ranked below the work still ahead (decision 0076).
Real store, real embedder, the shipped intent, role and query-kind models; sentences made up here."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.learned import DEFAULT_RANKER_MODEL
from mnemir.retrieve.query_kinds import read_query
from mnemir.retrieve.recall import _asks_past_event

ASKED = "How did the first attempt at tiling the bathroom go?"


@pytest.fixture
def tiling(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "plan": add(mem, now, "Tile the bathroom wall myself over the long weekend", "Plan", {"status": "completed"},
                    days=20),
        "event": add(mem, now, "First go at tiling the bathroom: half the tiles cracked when I cut them and the wall "
                               "had to come off again", "Fact", {}, days=12),
        "grout": add(mem, now, "Buy more grout before the second attempt at the bathroom tiles", "Task",
                     {"goal": "buy grout", "status": "pending"}, days=6),
        "cutter": add(mem, now, "Hire a proper wet tile cutter for the bathroom", "Task",
                      {"goal": "hire a tile cutter", "status": "pending"}, days=5),
        "floor": add(mem, now, "Tile the bathroom floor once the wall is done", "Plan", {"status": "pending"},
                     days=4),
    }


def test_an_event_asked_about_comes_before_the_work_ahead(mem: mnemir.Memory, now: datetime,
                                                         tiling: dict[str, mnemir.MemIR]) -> None:
    assert mem.intent(ASKED, now=now).kind == "plan"  # the intent model alone reads a question about a plan
    result = mem.recall(ASKED, user="alice", k=3, now=now)
    assert result.intent.kind == "general"
    assert result.hits[0].id == tiling["event"].id, [h.memory.text for h in result.hits]
    assert any("reads a question about a past event" in n for n in result.notes), result.notes


def test_off_the_plan_reading_stands(mem: mnemir.Memory, now: datetime, tiling: dict[str, mnemir.MemIR]) -> None:
    # under the ranker learned from typed stores an open step of the plan goes first: what the setting fixes
    mem.recall_config = RecallConfig(event_reading=1.0, ranker_model=DEFAULT_RANKER_MODEL)
    result = mem.recall(ASKED, user="alice", k=3, now=now)
    assert result.intent.kind == "plan"
    assert result.hits[0].id != tiling["event"].id
    # the ranker learned from remembered stores too (the default) puts the account of the event first even so
    mem.recall_config = RecallConfig(event_reading=1.0)
    result = mem.recall(ASKED, user="alice", k=3, now=now)
    assert result.intent.kind == "plan"
    assert result.hits[0].id == tiling["event"].id


def test_a_request_for_the_work_ahead_is_not_read_as_an_event(mem: mnemir.Memory, now: datetime,
                                                             tiling: dict[str, mnemir.MemIR]) -> None:
    query = "What's left to do on the bathroom?"
    assert _asks_past_event(read_query(mem.embedder.embed_query(query), mem.embedder.model_id),
                            RecallConfig()) is None
    result = mem.recall(query, user="alice", k=3, now=now)
    assert result.intent.kind in ("open_tasks", "plan"), result.intent.kind
    assert tiling["event"].id not in [h.id for h in result.hits[:2]]


def test_an_intent_set_by_hand_is_used_as_given(mem: mnemir.Memory, now: datetime,
                                               tiling: dict[str, mnemir.MemIR]) -> None:
    given = mem.intent(ASKED, now=now).override(kind="plan", types=("Plan", "Task"))
    assert mem.recall(ASKED, user="alice", k=3, now=now, intent=given).intent.kind == "plan"


def test_the_setting_is_checked() -> None:
    with pytest.raises(mnemir.ValidationError):
        RecallConfig(event_reading=1.5)
    with pytest.raises(mnemir.ValidationError):
        RecallConfig(event_unsure="yes")  # type: ignore[arg-type]
