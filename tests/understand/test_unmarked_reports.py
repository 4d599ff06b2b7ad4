"""Reports on earlier tasks told with no done word (issue 15, docs/decisions/0102): a user's statement with no report
reading is read against the open tasks by a learned pair model, and closes the one it clearly tells the outcome of;
more irregular English pasts read as the perfective. Real SQLite memory and the real default embedder; every
sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from dialogue_helpers import two_tasks_then

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.understand import fill
from mnemir.understand.unmarked_reports import FEATURES, row, shipped_unmarked_reports

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
PLANTS = "I need to ask my neighbour Marta to water the plants while we're away in March."
INSURANCE = "And I have to renew the car insurance before the 20th."


def _tell(mem: mnemir.Memory, user: str, later: str) -> mnemir.Remembered:
    return two_tasks_then(mem, (PLANTS, INSURANCE), later, user=user, start=START)


def _status(mem: mnemir.Memory, user: str, turn: int) -> list[str]:
    return [str(r.properties.get("status")) for r in mem.list(user=user, types=["Task", "Plan"])
            if r.metadata.source.turn == turn]


def test_the_shipped_model_reads_its_features() -> None:
    model = shipped_unmarked_reports()
    assert model is not None and model.features == FEATURES
    assert 0.0 < model.threshold < 1.0
    raw = {"score": 0.5, "similarity": 0.45, "utterance_similarity": 0.45, "context_similarity": None, "lead": 0.2,
           "behind_best": 0.0, "rank": 0, "recency_rank": 0, "turn_gap": 4, "other_session": True,
           "shared_terms": 2, "shared_entities": 1, "shared_numbers": 0, "candidates": 2, "task_type": "Task",
           "terse": False, "language": "en", "update_p": None, "utterance_told": False}
    x = row(raw)
    assert x.shape == (len(FEATURES),) and np.isfinite(x).all()
    assert 0.0 <= model.probability(raw) <= 1.0


def test_an_outcome_told_without_a_done_word_closes_its_task(mem: mnemir.Memory,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_REPORT_MATCH", True)
    out = _tell(mem, "on", "Marta is happy to water them, the spare key is with her now.")
    assert _status(mem, "on", 1) == ["completed"]
    assert _status(mem, "on", 3) == ["pending"]  # the other task is not touched
    assert any("unmarked report p" in note for note in out.notes)
    assert not out.confirmations  # an unmarked statement is never asked about


def test_an_unrelated_statement_closes_nothing(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UNMARKED_REPORT_MATCH", True)
    _tell(mem, "weather", "The weather in Lisbon is lovely this week.")
    assert _status(mem, "weather", 1) == ["pending"]
    assert _status(mem, "weather", 3) == ["pending"]


def test_the_switch_off_leaves_the_task_open(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    assert understanding.UNMARKED_REPORT_MATCH is True  # shipped on (docs/decisions/0102)
    monkeypatch.setattr(understanding, "UNMARKED_REPORT_MATCH", False)
    _tell(mem, "off", "Marta is happy to water them, the spare key is with her now.")
    assert _status(mem, "off", 1) == ["pending"]


@pytest.mark.parametrize(("text", "past"), [
    ("Jonas said yes to the dates", True),
    ("we slept in the new room from Friday on", True),
    ("the builders laid the new floor", True),
    ("Drew has a bit of news", False),
    ("Drew wants the blue one", False),
])
def test_more_irregular_pasts(monkeypatch: pytest.MonkeyPatch, text: str, past: bool) -> None:
    assert fill.MORE_IRREGULAR_PASTS is False
    assert fill.perfective(text) is False or not past  # off: the extra pasts are not read
    monkeypatch.setattr(fill, "MORE_IRREGULAR_PASTS", True)
    assert fill.perfective(text) is past


def test_the_shipped_model_was_fitted_on_training_files_only() -> None:
    model = shipped_unmarked_reports()
    assert model is not None
    assert model.meta["trained_on"] and all(n.startswith("continuity_train_") for n in model.meta["trained_on"])


def test_a_task_a_recognised_report_closed_labels_no_unmarked_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemir.eval import learn_unmarked_reports as learn

    class _Checkpoint:
        def __init__(self, after: int) -> None:
            self.after, self.kind = after, "open_tasks"

    class _Conversation:
        def __init__(self) -> None:
            self.id, self.checkpoints = "c1", [_Checkpoint(10)]

    monkeypatch.setattr(learn.continuity, "load", lambda split: [_Conversation()])
    pair = {"id": "t1", "turn": 1, "session": "s1", "label": 1, "raw": {}}
    statement = {"conv": "c1", "file": "f", "turn": 5, "text": "a", "route": "unmarked", "status": "in_progress",
                 "rule": False, "rule_best": "t1", "pairs": [pair]}
    report = {**statement, "turn": 7, "text": "b", "route": "report", "status": "completed", "rule": True}
    assert learn.unmarked([statement]) and learn.unmarked([statement])[0]["pairs"][0]["label"] == 1
    assert learn.unmarked([statement, report]) == []  # the report at turn 7 closed it before the checkpoint
    late = {**report, "turn": 12}
    assert learn.unmarked([statement, late])[0]["pairs"][0]["label"] == 1


def test_both_pair_trainers_fit_and_describe_a_model_alike() -> None:
    from mnemir.eval.learn_report_tasks import fit_pairs

    x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    y = np.array([1, 1, 0, 0])
    chosen = {"penalty": 1e-3, "threshold": 0.5, "lead": 0.1, "precision": 0.9}
    weights, meta = fit_pairs(x, y, ["b.yaml", "a.yaml", "a.yaml", "b.yaml"], chosen, 3, "how it was fitted")
    assert weights.shape == (3,)  # a weight per feature and the bias
    assert weights[0] > 0 > weights[1]  # the first feature marks a pair that closes
    assert meta == {"trained_on": ["a.yaml", "b.yaml"], "decisions": 3, "pairs": 4, "positives": 2, "penalty": 1e-3,
                    "cross_validated": {"precision": 0.9}, "note": "how it was fitted"}
