"""The report-to-task matcher refitted with written pairs and the report's learned outcome (issue 15,
docs/decisions/0120): the written pairs file, the pairs logged from it, both model layouts, and the outcome read into
each pair. Real SQLite memory and the real default embedder; every sentence here is made up for these tests (none is
a row of the written pairs file)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dialogue_helpers import two_tasks_then

import mnemir
import mnemir.memory.understanding as understanding
from mnemir._paths import training_dir
from mnemir.eval.learn_report_tasks import WRITTEN_GLOB, collect_written, written
from mnemir.understand import report_tasks
from mnemir.understand.report_tasks import FEATURES, NO_OUTCOME, WRITTEN_FEATURES, row, shipped_report_tasks

START = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
HEDGE = "I need to get someone to trim the hedge before the neighbours complain."
CARPET = "I have to choose a carpet for the stairs."


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted((training_dir() / "understand").glob(WRITTEN_GLOB))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_written_pairs_are_well_formed_and_quote_no_evaluated_sentence() -> None:
    from test_no_split_text import findings

    rows = _rows()
    assert len(rows) >= 100 and len({r["id"] for r in rows}) == len(rows)
    assert {r["lang"] for r in rows} == {"en", "zh"}
    for r in rows:
        assert len(r["tasks"]) == 2 and all(t.strip() for t in r["tasks"]) and r["report"].strip()
        assert r["closes"] in (0, 1, None)
    # reports that close neither task (work not done yet, put off) are there as well as ones that close one
    assert sum(r["closes"] is None for r in rows) >= 20
    for path in sorted((training_dir() / "understand").glob(WRITTEN_GLOB)):
        assert findings(path.read_text(encoding="utf-8")) == []


def test_both_layouts_of_the_matcher_load() -> None:
    shipped, refitted = shipped_report_tasks(), shipped_report_tasks(True)
    assert shipped is not None and shipped.features == FEATURES
    assert refitted is not None and refitted.features == WRITTEN_FEATURES
    files = refitted.meta["trained_on"]
    assert any(f.startswith("continuity_train_") for f in files) and any(f.startswith("written#") for f in files)
    assert not any("dev" in f or "test" in f for f in files)


def test_a_pair_logged_without_an_outcome_reads_the_neutral_value() -> None:
    raw = {"score": 0.5, "similarity": 0.45, "utterance_similarity": 0.45, "context_similarity": None, "lead": 0.2,
           "behind_best": 0.0, "rank": 0, "recency_rank": 0, "turn_gap": 4, "other_session": True,
           "shared_terms": 1, "shared_entities": 0, "shared_numbers": 0, "candidates": 1, "status": "completed",
           "task_type": "Task", "route": "report", "language": "en"}
    x = row(raw, WRITTEN_FEATURES)
    assert x.shape == (len(WRITTEN_FEATURES),) and np.isfinite(x).all()
    assert list(x[-len(report_tasks.OUTCOME_FEATURES):]) == [NO_OUTCOME] * 3
    assert np.array_equal(row(raw), x[:len(FEATURES)])  # the shipped layout reads as before
    done = row({**raw, "outcome": {"done": 0.9, "started": 0.05, "deferred": 0.03, "dropped": 0.02}}, WRITTEN_FEATURES)
    assert done[WRITTEN_FEATURES.index("outcome_done")] == pytest.approx(0.9)


def test_written_rows_are_logged_as_labelled_pairs(tmp_path: Path) -> None:
    rows = [{"id": "t-1", "lang": "en", "tasks": [HEDGE, CARPET],
             "report": "A gardener came on Thursday and cut the hedge right back.", "closes": 0},
            {"id": "t-2", "lang": "en", "tasks": [HEDGE, CARPET],
             "report": "The carpet shop can't measure up until next month, so nothing's chosen yet.",
             "closes": None}]
    (tmp_path / "report_pairs_t.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    assert understanding.REPORT_PAIR_LOG is None
    decisions = collect_written(folder=tmp_path)
    assert understanding.REPORT_PAIR_LOG is None and understanding.LEARNED_REPORT_MATCH is True  # restored
    assert decisions and all(written(d) and d["turn"] == 5 for d in decisions)
    hedge = [d for d in decisions if d["conv"] == "written-t-1"]
    assert hedge and any(p["turn"] == 1 and p["label"] == 1 for d in hedge for p in d["pairs"])
    assert all(p["label"] == 0 for d in hedge for p in d["pairs"] if p["turn"] == 3)
    assert all(p["label"] in (0, None) for d in decisions if d["conv"] == "written-t-2" for p in d["pairs"])
    # the report's learned outcome is logged with each pair, for the refitted matcher
    outcome = hedge[0]["pairs"][0]["raw"]["outcome"]
    assert set(outcome) == {"done", "started", "deferred", "dropped"} and outcome["done"] > outcome["deferred"]


def test_with_the_refitted_matcher_a_result_told_in_a_later_session_closes_its_task(
        mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    assert understanding.WRITTEN_PAIRS is False  # shipped off (docs/decisions/0120)
    monkeypatch.setattr(understanding, "WRITTEN_PAIRS", True)
    two_tasks_then(mem, (HEDGE, CARPET), "Got a man in to do the hedge, it's cut right back now.", user="u",
                   start=START)
    status = {r.metadata.source.turn: r.properties.get("status") for r in mem.list(user="u", types=["Task"])}
    assert status[1] == "completed" and status[3] == "pending"


def test_with_the_refitted_matcher_two_tasks_that_fit_alike_are_asked_about(
        mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "WRITTEN_PAIRS", True)
    out = two_tasks_then(mem, ("I need to ring Aunt Rosa this week.", "I need to ring Aunt Rosa's neighbour this week."),
                         "Rang her yesterday, all fine.", user="a", start=START)
    status = [r.properties.get("status") for r in mem.list(user="a", types=["Task"])]
    assert status.count("pending") == 2 or out.confirmations  # never a guess between two alike tasks
