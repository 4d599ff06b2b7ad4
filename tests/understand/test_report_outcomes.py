"""What a report says became of the work (issue 15, docs/decisions/0104): a learned outcome reading (done / started
/ deferred / dropped) of a statement read to close an open task; a deferral keeps the task open and moves its date.
Real SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import two_tasks_then

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.embed import USEEmbedder
from mnemir.understand.report_outcomes import OUTCOMES, outcome_of, shipped_report_outcomes

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
GUTTERS = "I need to get someone to clear the gutters before the winter rain."
PASSPORT = "And I have to renew my passport by the 25th."


def _tell(mem: mnemir.Memory, user: str, later: str) -> mnemir.Remembered:
    return two_tasks_then(mem, (GUTTERS, PASSPORT), later, user=user, start=START)


def _tasks(mem: mnemir.Memory, user: str, turn: int) -> list[tuple[str, object]]:
    return [(str(r.properties.get("status")), r.properties.get("deadline"))
            for r in mem.list(user=user, types=["Task", "Plan"]) if r.metadata.source.turn == turn]


def test_the_shipped_model_reads_the_four_outcomes(embedder: USEEmbedder) -> None:
    model = shipped_report_outcomes()
    assert model is not None and model.labels == OUTCOMES
    text = "修篱笆的事下个月再弄"
    probabilities = outcome_of(model, embedder.embed([text])[0], text, embedder)
    assert probabilities is not None and set(probabilities) == set(OUTCOMES)
    assert abs(sum(probabilities.values()) - 1.0) < 1e-5
    assert max(probabilities, key=lambda k: probabilities[k]) == "deferred"
    done = "finally got the fence fixed last weekend"
    read = outcome_of(model, embedder.embed([done])[0], done, embedder)
    assert read is not None and max(read, key=lambda k: read[k]) == "done"


def test_the_model_was_fitted_on_training_batches_only() -> None:
    from mnemir.eval.learn_report_outcomes import BATCHES

    assert all(name.startswith("extraction_") and not name.endswith(("_dev.jsonl", "_heldout.jsonl",
                                                                      "_fresh.jsonl", "_test.jsonl"))
               for name in BATCHES)


def test_a_deferral_keeps_the_task_open(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_OUTCOMES", True)
    monkeypatch.setattr(understanding, "REPORT_OUTCOMES", True)
    out = _tell(mem, "defer", "The gutters can wait till spring.")
    assert _tasks(mem, "defer", 1) == [("pending", None)]
    assert _tasks(mem, "defer", 3)[0][0] == "pending"  # the other task is not touched
    assert any("deferral" in note for note in out.notes)
    assert any(r.metadata.source.turn == 1 for r in out.updated)  # the task records that this turn spoke of it


def test_without_the_outcome_reading_the_deferral_closes_the_task(mem: mnemir.Memory,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert understanding.UNMARKED_OUTCOMES is False and understanding.REPORT_OUTCOMES is False
    _tell(mem, "closed", "The gutters can wait till spring.")
    assert _tasks(mem, "closed", 1)[0][0] in ("completed", "failed")


def test_a_deferral_told_in_the_past_moves_the_date(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_OUTCOMES", True)
    monkeypatch.setattr(understanding, "REPORT_OUTCOMES", True)
    _tell(mem, "moved", "Passport renewal got pushed back to the 12th of December, the office gave me more time.")
    status, deadline = _tasks(mem, "moved", 3)[0]
    assert status == "pending" and str(deadline) == "2026-12-12"


def test_an_outcome_told_as_done_still_closes(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_OUTCOMES", True)
    monkeypatch.setattr(understanding, "REPORT_OUTCOMES", True)
    _tell(mem, "done", "A chap from the village came round and cleared the gutters for us on Saturday.")
    assert _tasks(mem, "done", 1)[0][0] == "completed"


def test_the_guard_reads_no_deferral_in_a_deed_told_with_a_date_ahead(mem: mnemir.Memory,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_OUTCOMES", True)
    monkeypatch.setattr(understanding, "REPORT_OUTCOMES", True)
    monkeypatch.setattr(understanding, "DEFERRAL_UNTOLD", True)
    out = _tell(mem, "guard", "Rang the roofer about the gutters, he came round and cleared them, he's back on the 20th "
                              "for the flashing.")
    assert not any("deferral" in note for note in out.notes)


def test_a_drop_read_by_the_unmarked_route_fails_the_task(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_OUTCOMES", True)
    out = _tell(mem, "drop", "The passport can go, the trip to Canada is off for good.")
    moved = [(str(r.properties.get("status")), r.metadata.source.turn) for r in out.updated]
    assert ("completed", 3) not in moved  # a drop never closes the task as done
