"""Speaker policy across a conversation: the assistant repeating a request back does not create a second task."""

from __future__ import annotations

from datetime import UTC, datetime

import mnemir

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def test_assistant_restating_a_task_is_not_a_new_task(mem: mnemir.Memory) -> None:
    mem.remember("帮我下周五之前把报销单交了", speaker="user", user="bob", session="s", turn=1, now=NOW)
    said_back = mem.remember("收到，这就记上：下周五前交报销单。", speaker="assistant", user="bob", session="s", turn=2,
                             now=NOW)
    assert not [r for r in said_back.created if r.type == "Task"]
    assert any("speaker policy" in note for note in said_back.notes)
    assert len(mem.list(user="bob", types=["Task"])) == 1


def test_assistant_commitment_becomes_a_task_only_when_the_user_confirms(mem: mnemir.Memory) -> None:
    # issue 15: what the assistant says is no memory about the user; the user's "yes" makes its proposal theirs
    mem.remember("帮我下周五之前把报销单交了", speaker="user", user="bob", session="s", turn=1, now=NOW)
    new = mem.remember("I'll book a table at the Sichuan restaurant for Saturday", speaker="assistant", user="bob",
                       session="s", turn=2, now=NOW)
    assert not [r for r in new.created if r.type == "Task"]
    confirmed = mem.remember("great, thanks", speaker="user", user="bob", session="s", turn=3, now=NOW)
    [task] = [r for r in confirmed.created if r.type == "Task"]
    assert "Sichuan restaurant" in task.content.text
    assert [p["turn"] for p in task.metadata.extra["provenance"]] == [2, 3]
