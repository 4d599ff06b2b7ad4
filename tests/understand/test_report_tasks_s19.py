"""The learned report-to-task matcher (issue 15, docs/decisions/0063): which open task a report of done or dropped
work moves is read by a model fitted on the continuity train split; two tasks that fit alike are asked about, never
guessed. Real SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.eval import learn_report_tasks
from mnemir.memory.understanding import Candidate
from mnemir.understand.report_tasks import FEATURES, ReportTasks, row, shipped_report_tasks

START = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def _raw(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "score": 0.5, "similarity": 0.5, "utterance_similarity": 0.5, "context_similarity": None, "lead": 0.1,
        "behind_best": 0.0, "rank": 0, "recency_rank": 0, "turn_gap": 4, "other_session": False, "shared_terms": 1,
        "shared_entities": 0, "shared_numbers": 0, "candidates": 2, "status": "completed", "worded": True,
        "told": False, "task_type": "Task", "route": "update", "terse": False, "language": "en"}
    base.update(over)
    return base


def test_the_shipped_matcher_was_fitted_on_training_files_only() -> None:
    model = shipped_report_tasks()
    assert model is not None
    assert model.meta["trained_on"] and all(n.startswith("continuity_train_") for n in model.meta["trained_on"])
    assert 0.0 < model.threshold < 1.0
    assert model.lead >= 0.05  # a tie is asked about, never guessed
    assert model.weights.shape == (len(FEATURES) + 1,)


def test_a_pair_row_reads_its_route_status_and_place() -> None:
    x = dict(zip(FEATURES, row(_raw(route="utterance", status="failed", rank=1, turn_gap=None)), strict=True))
    assert x["route_utterance"] == 1.0 and x["route_update"] == 0.0
    assert x["failed"] == 1.0 and x["completed"] == 0.0
    assert x["rank"] == pytest.approx(0.5)
    assert x["turn_gap"] == pytest.approx(0.5)  # unknown: the middle of the scale
    assert x["context_similarity"] == pytest.approx(0.5)  # none said: the report's own similarity


def test_a_model_fitted_on_other_features_is_refused() -> None:
    with pytest.raises(ValueError):
        ReportTasks.from_json({"features": ["score"], "threshold": 0.5, "lead": 0.1, "weights": [1.0, 0.0]})


def test_a_report_closes_the_task_it_is_about_and_leaves_the_other_open(mem: mnemir.Memory) -> None:
    first = [("user", "I need to get the boiler serviced before the cold weather."),
             ("assistant", "Good idea, autumn slots fill up quickly."),
             ("user", "And I have to return the library books by Friday."),
             ("assistant", "Noted, two things on the list.")]
    say(mem, first, user="ada", start=START)
    # a few days later, in a new session
    done = mem.remember("Boiler service is done, the engineer came this morning.", user="ada", session="s2", turn=5,
                        now=START + timedelta(days=3))
    tasks = {r.metadata.source.turn: r for r in mem.list(user="ada") if r.type == "Task"}
    assert tasks[1].properties.get("status") == "completed", (done.notes, [c.to_dict() for c in done.confirmations])
    assert tasks[3].properties.get("status", "pending") == "pending"
    assert not done.confirmations


def test_two_tasks_that_fit_a_report_alike_are_asked_about(mem: mnemir.Memory) -> None:
    texts = ("ring the dentist to book a check-up for me", "ring the dentist to book a check-up for Sam")
    ids = [mem.add(text, "Task", properties={"status": "pending"}, user="bo", session="s1", turn=turn, now=START).id
           for text, turn in zip(texts, (2, 4), strict=True)]
    assert len(set(ids)) == 2
    ctx = understanding._Context("bo", None, "s2", "user", 9, START + timedelta(days=2), "remember", "Statement", "en",
                                 text="Rang the dentist, all booked.")
    draft = understanding.Draft("Task", "Rang the dentist, all booked.", {"status": "completed"}, kind="update")
    alike = [Candidate(i, t, 0.7, ("open task, text similarity 0.70", "shares dentist"), 0.7)
             for i, t in zip(ids, texts, strict=True)]
    # either one alone is clear enough to move ...
    assert mem._report_decision(draft, ctx.text, alike[:1], ctx, route="update", status="completed", rule=True,
                                worded=True)[0]
    # ... but the two together, from two utterances, fit alike: no lead, nothing is guessed
    moves, ranked = mem._report_decision(draft, ctx.text, alike, ctx, route="update", status="completed", rule=True,
                                         worded=True)
    assert not moves
    assert {c.id for c in ranked} == set(ids)


def test_a_report_between_two_alike_tasks_becomes_a_confirmation(mem: mnemir.Memory) -> None:
    say(mem, [("user", "I need to renew the car insurance for the Fiat."),
              ("assistant", "Okay."),
              ("user", "I also need to renew the car insurance for the Volvo."),
              ("assistant", "Two renewals, noted.")], user="di", start=START)
    out = mem.remember("Renewed the car insurance.", user="di", session="s2", turn=5, now=START + timedelta(days=2))
    tasks = [r for r in mem.list(user="di") if r.type == "Task"]
    assert all(r.properties.get("status", "pending") == "pending" for r in tasks), [r.properties for r in tasks]
    assert out.confirmations and out.confirmations[0].kind == "update"
    assert len(out.confirmations[0].candidates) >= 2


def test_the_hand_set_test_decides_when_the_matcher_is_off(mem: mnemir.Memory,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    task = mem.add("post the parcel to my aunt", "Task", properties={"status": "pending"}, user="cy", session="s1",
                   turn=1, now=START)
    ctx = understanding._Context("cy", None, "s1", "user", 5, START, "remember", "Statement", "en",
                                 text="Posted it.")
    draft = understanding.Draft("Task", "Posted it.", {"status": "completed"}, kind="update")
    one = [Candidate(task.id, task.content.text, 0.2, ("open task, text similarity 0.20",), 0.2)]
    monkeypatch.setattr(understanding, "LEARNED_REPORT_MATCH", False)
    for rule in (True, False):
        assert mem._report_decision(draft, ctx.text, one, ctx, route="update", status="completed", rule=rule)[0] is rule


@dataclass(frozen=True)
class _Checkpoint:
    after: int
    relevant: frozenset[int]
    forbidden: frozenset[int]


def test_a_pair_is_labelled_by_the_next_checkpoint_that_names_the_task() -> None:
    points = [_Checkpoint(10, frozenset({3}), frozenset()), _Checkpoint(20, frozenset({5}), frozenset({3})),
              _Checkpoint(30, frozenset(), frozenset({5}))]
    assert learn_report_tasks._label(points, 12, 3) == 1  # forbidden at the next checkpoint naming it
    assert learn_report_tasks._label(points, 8, 3) == 0  # still open at the next one
    assert learn_report_tasks._label(points, 12, 5) == 0
    assert learn_report_tasks._label(points, 25, 5) == 1
    assert learn_report_tasks._label(points, 25, 3) is None  # no later checkpoint names it
    assert learn_report_tasks._label(points, None, 3) is None


def test_decisions_are_scored_by_the_moves_they_make() -> None:
    def pair(turn: int, label: int | None) -> dict[str, object]:
        return {"id": str(turn), "turn": turn, "session": "s1", "label": label, "raw": _raw()}

    decisions = [{"rule": True, "pairs": [pair(1, 1), pair(2, 0)]},  # moves the right one
                 {"rule": True, "pairs": [pair(3, 0), pair(4, 1)]},  # moves the wrong one: wrong and missed
                 {"rule": False, "pairs": [pair(5, 1)]}]  # moves none: missed
    assert learn_report_tasks.score_decisions(decisions, None) == {
        "f1": pytest.approx(0.4), "precision": 0.5, "recall": pytest.approx(0.3333), "right": 1, "wrong": 1,
        "missed": 2}
    learned = [[0.9, 0.1], [0.2, 0.8], [0.2]]
    scored = learn_report_tasks.score_decisions(decisions, learned, threshold=0.5, lead=0.1)
    assert (scored["right"], scored["wrong"], scored["missed"]) == (2, 0, 1)
    assert np.isclose(scored["precision"], 1.0)
