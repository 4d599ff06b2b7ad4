"""A learned reading of whether a user's statement with no report reading still tells how an open task came out
("the quotes are in", "we've been sleeping in the new room since Friday", "the bank said no", "起诉书已经在律师手里").

The write side reads a statement as a report when it is worded as done work or told as having happened
(:mod:`mnemir.understand.report_tasks` then picks the task). Many reports say neither: the result is told instead
of the deed, the next stage is begun, the thing is now in use, someone else did the work. Such a statement is
compared with the user's open tasks all the same (the "unmarked" route of the report matcher), and this model reads,
for each (statement, open task) pair, whether the statement closes that task, from:

- the pair quantities of the report matcher: meaning (the statement, its utterance and the task's utterance),
  shared words / entities / numbers, rank, lead, recency, turns and sessions between;
- a learned outcome reading of the statement alone: the extractor classifier's probability that it is a report on
  earlier work (its ``TaskUpdate`` label), though another label won;
- whether its utterance tells something done (a done word, or told as having happened): the deed may be the
  utterance's other piece.

A logistic regression (:mod:`mnemir.eval.learn_unmarked_reports`) is fitted on the unmarked pairs logged while the
continuity *train* conversations are remembered (labelled as the report matcher's pairs are, by the next
``open_tasks`` checkpoint naming the task; a pair whose task a recognised report closes before that checkpoint is
left out), its threshold and lead chosen by cross-validation over whole files for the precision of the moves.
Shipped in ``understand/data/unmarked_reports.json`` (docs/decisions/0102).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.understand import report_tasks
from mnemir.understand.model import PairModel, pair_model_fields, shipped_json

__all__ = ["FEATURES", "UnmarkedReports", "row", "shipped_unmarked_reports"]

MODEL_FILE = "unmarked_reports.json"
#: refitted with the written pairs and the outcome features (docs/decisions/0120); read when ``WRITTEN_PAIRS`` is on
WRITTEN_MODEL_FILE = "unmarked_reports_written.json"
#: the pair quantities of the report matcher that an unmarked statement has (its status, wording and route are
#: fixed: none of them says anything here), and the outcome reading
FEATURES = (
    "score", "similarity", "utterance_similarity", "context_similarity", "lead", "behind_best", "rank",
    "recency_rank", "turn_gap", "other_session", "shared_terms", "shared_entities", "shared_numbers",
    "candidates", "plan_step", "terse", "zh", "update_p", "utterance_told",
)
WRITTEN_FEATURES = (*FEATURES, *report_tasks.OUTCOME_FEATURES)
#: the outcome reading where the extractor has no classifier (an LLM extractor): the train split's median
NO_READING = 0.05


def row(raw: dict[str, Any], features: tuple[str, ...] = FEATURES) -> npt.NDArray[np.float64]:
    """The feature vector (in ``features`` order) of one (statement, open task) pair."""
    base = dict(zip(report_tasks.WRITTEN_FEATURES, report_tasks.row(raw, report_tasks.WRITTEN_FEATURES), strict=True))
    update_p = raw.get("update_p")
    base["update_p"] = float(NO_READING if update_p is None else update_p)
    base["utterance_told"] = float(bool(raw.get("utterance_told")))
    return np.array([base[f] for f in features], dtype=np.float64)


@dataclass(frozen=True)
class UnmarkedReports(PairModel):
    """``p(the statement closes this open task) = sigmoid(weights @ [row, 1])``. The best task moves from
    ``threshold`` on when it leads the best rival task (from another utterance) by ``lead``; otherwise nothing
    moves and nothing is asked (the statement was never read as a report)."""

    features: tuple[str, ...] = FEATURES

    def probability(self, raw: dict[str, Any]) -> float:
        return self.probability_of(row(raw, self.features))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnmarkedReports:
        layout = WRITTEN_FEATURES if tuple(data["features"]) == WRITTEN_FEATURES else FEATURES
        return cls(*pair_model_fields(data, layout, "mnemir.eval.learn_unmarked_reports"))


@lru_cache(maxsize=2)
def shipped_unmarked_reports(written: bool = False) -> UnmarkedReports | None:
    """The shipped model (``understand/data/unmarked_reports.json``; ``written``: the one refitted with the written
    pairs and the outcome features), or None when the package holds none."""
    data = shipped_json(WRITTEN_MODEL_FILE if written else MODEL_FILE)
    return None if data is None else UnmarkedReports.from_json(data)


def dumps(model: UnmarkedReports) -> str:
    return json.dumps(model.to_json(), ensure_ascii=False, indent=1)
