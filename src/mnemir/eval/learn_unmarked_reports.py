"""Train the write side's reading of unmarked reports (:mod:`mnemir.understand.unmarked_reports`) on training files
only.

    python -m mnemir.eval.learn_unmarked_reports [--out src/mnemir/understand/data/unmarked_reports.json] \
        [--pairs F.json]

The pairs are those :mod:`mnemir.eval.learn_report_tasks` logs while every continuity *train* conversation is
remembered (``--pairs``: the same file, read back when it exists): here the route ``unmarked`` only, a user
statement with no report reading (no done word, not told as having happened, no work ahead, no question) and the
open tasks it is close to, whatever status its words announce. A pair is labelled as the report matcher's are (right
when the next ``open_tasks`` checkpoint naming the task's turn forbids it, wrong when it lists it as open), except
that a right pair whose task a recognised report (the hand-set test, which decides while the pairs are logged)
closes between the statement and that checkpoint is left out: that report, not the statement, closed it.

A logistic regression is fitted on the pair features; the penalty, threshold and lead are chosen by cross-validation
over whole files. Moving an open task the user still has is worse than leaving one open that a report closed (the
first loses a right answer, the second keeps a violation that is there today), so the choice is the best F1 of the
moves among settings whose out-of-fold precision is at least MIN_PRECISION. The dev and test files measure it
(docs/EVALUATION.md); it never reads them.

``--written`` adds the written pairs (:func:`mnemir.eval.learn_report_tasks.collect_written`: their statements with
no report reading) and the report's learned outcome among the features, fitted on and never scored; written to
``unmarked_reports_written.json`` (docs/decisions/0120).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.eval import continuity
from mnemir.eval.learn_report_tasks import (
    ACTING,
    LEADS,
    PENALTIES,
    THRESHOLDS,
    fit_pairs,
    out_of_fold,
    score_decisions,
    train_cli,
    written,
)
from mnemir.understand.unmarked_reports import FEATURES, WRITTEN_FEATURES, UnmarkedReports, row

#: the least out-of-fold precision of the moves a chosen setting keeps
MIN_PRECISION = 0.7
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "understand" / "data" / "unmarked_reports.json"
WRITTEN_OUT = DEFAULT_OUT.with_name("unmarked_reports_written.json")


def unmarked(decisions: Sequence[dict[str, Any]], split: str = "train") -> list[dict[str, Any]]:
    """The unmarked decisions with at least one labelled pair (the first of each repeated statement and tasks), their
    right pairs cleared when a recognised report closed the task before the checkpoint that labels them."""
    checkpoints = {c.id: sorted(k.after for k in c.checkpoints if k.kind == "open_tasks")
                   for c in continuity.load(split)}
    closed: dict[str, list[tuple[int, str]]] = defaultdict(list)  # conversation -> (turn, task) moved by a report
    for d in decisions:
        if d["route"] in ACTING and d["rule"] and d["status"] in ("completed", "failed") and d["turn"] is not None:
            closed[d["conv"]].append((d["turn"], d["rule_best"]))
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for d in decisions:
        if d["route"] != "unmarked" or d["turn"] is None:
            continue
        key = (d["conv"], d["turn"], d["text"], tuple(p["id"] for p in d["pairs"]))
        if key in seen:
            continue
        seen.add(key)
        until = next((a for a in checkpoints.get(d["conv"], []) if a >= d["turn"]), None)
        pairs = []
        for p in d["pairs"]:
            label = p["label"]
            if label == 1 and until is not None and any(
                    d["turn"] <= t <= until and task == p["id"] for t, task in closed[d["conv"]]):
                label = None
            pairs.append({**p, "label": label})
        if any(p["label"] is not None for p in pairs):
            kept.append({**d, "pairs": pairs})
    return kept


def matrix(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[str]]:
    rows, labels, files = [], [], []
    for d in decisions:
        for p in d["pairs"]:
            if p["label"] is not None:
                rows.append(row(p["raw"], features))
                labels.append(int(p["label"]))
                files.append(d["file"])
    return np.vstack(rows), np.asarray(labels, dtype=np.int64), files


def cross_validate(decisions: Sequence[dict[str, Any]], penalty: float,
                   features: tuple[str, ...] = FEATURES) -> list[list[float]]:
    """Out-of-fold probabilities of every pair, one fold per file."""
    x, y, files = matrix(decisions, features)
    return out_of_fold(decisions, x, y, files, penalty, lambda raw: row(raw, features))


def choose(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES) -> dict[str, Any]:
    """The setting with the best out-of-fold F1 of the moves among those precise enough, scored on the train
    conversations' statements (written pairs are fitted on, never scored)."""
    best: dict[str, Any] | None = None
    scored = [d for d in decisions if not written(d)]
    for penalty in PENALTIES:
        out = cross_validate(decisions, penalty, features)
        out = [pr for pr, d in zip(out, decisions, strict=True) if not written(d)]
        for th in THRESHOLDS:
            for lead in LEADS:
                s = score_decisions(scored, out, th, lead)
                r = {"penalty": penalty, "threshold": th, "lead": lead, **s}
                if s["precision"] < MIN_PRECISION or not s["right"]:
                    continue
                if best is None or (s["f1"], th) > (best["f1"], best["threshold"]):
                    best = r
    if best is None:  # no setting is precise enough: a threshold nothing reaches (the reading never acts)
        best = {"penalty": PENALTIES[0], "threshold": 1.0, "lead": LEADS[-1], "f1": 0.0, "right": 0}
    print(json.dumps({"chosen": best}), flush=True)
    return best


def train(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES) -> UnmarkedReports:
    kept = unmarked(decisions)
    chosen = choose(kept, features)
    x, y, files = matrix(kept, features)
    weights, meta = fit_pairs(x, y, files, chosen, len(kept),
                              "unmarked statement-task pairs logged while the continuity train conversations are "
                              "remembered, labelled by the next open_tasks checkpoint naming the task; "
                              "python -m mnemir.eval.learn_unmarked_reports")
    return UnmarkedReports(weights, float(chosen["threshold"]), float(chosen["lead"]), features, meta)


def main(argv: list[str] | None = None) -> int:
    return train_cli(argv, __doc__, DEFAULT_OUT, train, WRITTEN_OUT, WRITTEN_FEATURES, FEATURES)


if __name__ == "__main__":
    raise SystemExit(main())
