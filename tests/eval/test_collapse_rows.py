"""The collapse train memories as extraction rows (``python -m mnemir.eval.collapse_rows``), on a scenario of our own:
which memories teach a label, and which are left out."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from mnemir.eval import collapse, collapse_rows
from mnemir.understand import train

NOW = datetime(2026, 6, 10, 18, 0, tzinfo=UTC)
MEMORIES = (
    {"key": "fee", "type": "Fact", "age": "40d", "text": "Pottery club costs 40 pounds a month"},
    {"key": "kiln", "type": "Fact", "age": "30d", "text": "The kiln fires on Thursdays only",
     "props": {"source": "external"}},
    {"key": "glaze_task", "type": "Task", "age": "3d", "text": "Order two tubs of celadon glaze",
     "props": {"status": "pending"}},
    {"key": "apron_task", "type": "Task", "age": "9d", "text": "Buy a canvas apron for the club",
     "status": "completed"},
    {"key": "clay_done", "type": "Task", "age": "5d", "text": "I already picked up the clay from the studio",
     "status": "completed"},
    {"key": "crack", "type": "EmotionalState", "age": "1d",
     "text": "My best bowl cracked in the kiln and I'm gutted"},
    {"key": "fee_again", "type": "Fact", "age": "20d", "text": "Pottery club costs 40 pounds a month"},
    {"key": "wheel_step2", "type": "Plan", "age": "2d", "text": "Practise centring on the wheel every evening",
     "props": {"status": "pending"}},
)
SCENARIO = collapse.Scenario(id="own-en-pottery", split="train", symptom="mixed", lang="en", domain="crafts",
                             now=NOW, memories=MEMORIES, queries=(), source="own.yaml")


def _labels(dropped: tuple[str, ...] = ()) -> dict[str, str]:
    rows, _ = collapse_rows.rows([SCENARIO], dropped)
    return {row["id"].rsplit("-", 1)[-1]: row["expect"][0]["type"] for row in rows}


def test_each_user_memory_teaches_its_hand_type() -> None:
    labels = _labels()
    assert labels["fee"] == "Fact" and labels["glaze_task"] == "Task" and labels["crack"] == "EmotionalState"


def test_a_closed_task_teaches_nothing_unless_asked_and_then_a_request_is_a_task() -> None:
    assert "apron_task" not in _labels()  # its status was set by hand: the text may or may not say it
    # asked for: the text asks for work, what it says is a task although the scenario marks it done
    rows, _ = collapse_rows.rows([SCENARIO], closed_requests=True)
    labels = {row["id"].rsplit("-", 1)[-1]: row["expect"][0]["type"] for row in rows}
    assert labels["apron_task"] == "Task" and "clay_done" not in labels


def test_tool_text_reports_of_work_and_repeats_teach_nothing() -> None:
    labels = _labels()
    assert "kiln" not in labels  # a tool's text is kept as a fact whatever the model reads
    assert "clay_done" not in labels  # told as done: a report, whose reading depends on the task it reports on
    assert "fee_again" not in labels  # the same text once only


def test_a_text_equal_to_an_evaluated_one_is_dropped() -> None:
    rows, counts = collapse_rows.rows([SCENARIO], ["Order two tubs of celadon glaze"])
    assert "glaze_task" not in {row["id"].rsplit("-", 1)[-1] for row in rows}
    assert counts["equal to a dev text (dropped)"] == 1


def test_the_rows_are_read_by_the_trainer_at_their_batch_weight(tmp_path: Path) -> None:
    rows, _ = collapse_rows.rows([SCENARIO])
    path = tmp_path / "rows.jsonl"
    collapse_rows.write(path, rows)
    read = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert read == rows
    texts, labels, weights = train.weighted_extraction_examples([{**r, "batch": "x.jsonl"} for r in read])
    assert len(texts) == len(rows) and set(labels) <= set(train.EXTRACTION_LABELS)
    assert weights == [1.0] * len(rows)


def test_a_step_of_a_plan_teaches_nothing_unless_asked() -> None:
    """A step's words alone are a to-do item; its Plan type came from the plan the scenario stores it in."""
    assert "wheel_step2" not in _labels()
    rows, _ = collapse_rows.rows([SCENARIO], plan_steps=True)
    assert {row["id"].rsplit("-", 1)[-1]: row["expect"][0]["type"] for row in rows}["wheel_step2"] == "Plan"
