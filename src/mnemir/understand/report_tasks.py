"""A learned reading of which open task a report of work is about ("the vet fitted us in on Monday", "表交上去了", "painted the
fence").

The write side reads a status report (done, dropped, under way) and looks for the open task it moves among the
user's open tasks and plan steps. Which candidate it is, and whether any is clear enough to move without asking, is
read here from features of the pair (the report and one candidate task), the report's reading and the rival tasks:

- meaning: the cosine of the report and the task, of the report's whole utterance and the task, of the report and
  the utterance the task was read from, and the hand-weighted match score (:meth:`UnderstandingMixin._scored`);
- what they share: content words, entities, numbers;
- where the task stands among the candidates: its rank by score, its lead over the best rival from another
  utterance, its recency rank, the turns and sessions between them;
- the report's reading: done, dropped or under way, worded with a done word or told as having happened, which route
  found it, its length and language.

A logistic regression (:mod:`mnemir.eval.learn_report_tasks`) is fitted on pairs read while the continuity *train*
conversations are remembered (a pair is right when the next ``open_tasks`` checkpoint that names the task's turn
forbids it, wrong when it still lists it as open), and its threshold and lead are chosen by cross-validation over
whole files. Shipped in ``understand/data/report_tasks.json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.understand.model import PairModel, pair_model_fields, shipped_json

__all__ = ["FEATURES", "OUTCOME_FEATURES", "ROUTES", "TIE", "WRITTEN_FEATURES", "ReportTasks", "row",
           "shipped_report_tasks"]

MODEL_FILE = "report_tasks.json"
#: the matcher refitted with the written pairs (``training/understand/report_pairs_*.jsonl``) beside the train
#: conversations' and the outcome features below (docs/decisions/0120); read when ``WRITTEN_PAIRS`` is on
WRITTEN_MODEL_FILE = "report_tasks_written.json"
#: two tasks fit a report alike in meaning when the best one's match score leads the best rival's (from another
#: utterance) by under TIE (half the hand-set MATCH_MARGIN): the report is asked about, whatever the matcher's lead
#: (recency alone does not pick between two alike tasks). Cross-validated on train it costs 2 right moves of 104
#: and saves 2 wrong ones (docs/decisions/0063).
TIE = 0.04

#: where a report met its candidates: the extractor's own update, a statement read as a report (worded or told),
#: the report's whole utterance (a terse report), a user statement with no report reading (only logged, never acted on)
ROUTES = ("update", "report", "utterance", "unmarked")

FEATURES = (
    "score", "similarity", "utterance_similarity", "context_similarity", "lead", "behind_best", "rank",
    "recency_rank", "turn_gap", "other_session", "shared_terms", "shared_entities", "shared_numbers",
    "candidates", "completed", "failed", "under_way", "worded", "told", "plan_step", "terse", "zh",
    *(f"route_{r}" for r in ROUTES),
)
#: what the report says became of the work, as the learned outcome model reads the report alone
#: (:mod:`mnemir.understand.report_outcomes`: done / started / deferred / dropped): a deed finished reads as
#: closing work whatever its wording, a deferral or a step begun does not. 0.25 each when no outcome model reads it.
OUTCOME_FEATURES = ("outcome_done", "outcome_dropped", "outcome_deferred")
WRITTEN_FEATURES = (*FEATURES, *OUTCOME_FEATURES)
NO_OUTCOME = 0.25


def row(raw: dict[str, Any], features: tuple[str, ...] = FEATURES) -> npt.NDArray[np.float64]:
    """The feature vector (in ``features`` order) of one report-task pair, from the quantities the write side
    measured."""
    status = str(raw.get("status", ""))
    route = str(raw.get("route", ""))
    gap = raw.get("turn_gap")
    values = {
        "score": float(raw["score"]),
        "similarity": float(raw["similarity"]),
        "utterance_similarity": float(raw["utterance_similarity"]),
        "context_similarity": float(raw.get("context_similarity") or raw["similarity"]),
        "lead": float(raw["lead"]),
        "behind_best": float(raw["behind_best"]),
        "rank": 1.0 / (1.0 + float(raw["rank"])),
        "recency_rank": 1.0 / (1.0 + float(raw["recency_rank"])),
        "turn_gap": math.log1p(max(float(gap), 0.0)) / 4.0 if gap is not None else 0.5,
        "other_session": float(bool(raw.get("other_session"))),
        "shared_terms": min(float(raw["shared_terms"]), 3.0) / 3.0,
        "shared_entities": float(min(int(raw["shared_entities"]), 1)),
        "shared_numbers": float(min(int(raw["shared_numbers"]), 1)),
        "candidates": min(float(raw["candidates"]), 8.0) / 8.0,
        "completed": float(status == "completed"),
        "failed": float(status == "failed"),
        "under_way": float(status not in ("completed", "failed")),
        "worded": float(bool(raw.get("worded"))),
        "told": float(bool(raw.get("told"))),
        "plan_step": float(raw.get("task_type") == "Plan"),
        "terse": float(bool(raw.get("terse"))),
        "zh": float(raw.get("language") == "zh"),
        **{f"route_{r}": float(route == r) for r in ROUTES},
        **outcome_values(raw),
    }
    return np.array([values[f] for f in features], dtype=np.float64)


def outcome_values(raw: dict[str, Any]) -> dict[str, float]:
    """The outcome features of a pair (the report's outcome probabilities, logged as ``outcome``)."""
    outcome = raw.get("outcome") or {}
    return {f: float(outcome.get(f.removeprefix("outcome_"), NO_OUTCOME)) for f in OUTCOME_FEATURES}


@dataclass(frozen=True)
class ReportTasks(PairModel):
    """``p(the report is about this task) = sigmoid(weights @ [row, 1])``. A report moves its best task from
    ``threshold`` on when its lead over the best rival task (from another utterance) is at least ``lead``; a best
    task over ``threshold`` without that lead is asked about (a confirmation)."""

    features: tuple[str, ...] = FEATURES

    def probability(self, raw: dict[str, Any]) -> float:
        return self.probability_of(row(raw, self.features))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReportTasks:
        layout = WRITTEN_FEATURES if tuple(data["features"]) == WRITTEN_FEATURES else FEATURES
        return cls(*pair_model_fields(data, layout, "mnemir.eval.learn_report_tasks"))


@lru_cache(maxsize=2)
def shipped_report_tasks(written: bool = False) -> ReportTasks | None:
    """The shipped model (``understand/data/report_tasks.json``; ``written``: the one refitted with the written pairs
    and the outcome features), or None when the package holds none."""
    data = shipped_json(WRITTEN_MODEL_FILE if written else MODEL_FILE)
    return None if data is None else ReportTasks.from_json(data)


def dumps(model: ReportTasks) -> str:
    return json.dumps(model.to_json(), ensure_ascii=False, indent=1)
