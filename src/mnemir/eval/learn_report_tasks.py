"""Train the write side's report-to-task matcher (:mod:`mnemir.understand.report_tasks`) on training files only.

    python -m mnemir.eval.learn_report_tasks [--out src/mnemir/understand/data/report_tasks.json] [--pairs F.json]

Every continuity *train* conversation (``benchmarks/continuity/train``) is remembered turn by turn as the benchmark
does, with the hand-set matching deciding (the learned matcher off); each time a report of work meets its candidate
open tasks, the pair quantities are logged (``memory.understanding.REPORT_PAIR_LOG``), also for user statements with
no report reading (route ``unmarked``). A pair of a report of work done or dropped and a task read from turn t is
labelled by the first later ``open_tasks`` checkpoint that names t: right when it forbids t (the work is no longer
open), wrong when it lists t as still open; pairs no later checkpoint names are left out. ``--pairs`` keeps the
logged pairs in a file (read back instead of remembering again when it exists).

The matcher decides reports told in a later session than the one their best task by match score was said in: the
train split has too few right same-session pairs to learn from (2 of 31; the hand-set test moved 16 of those
reports, 15 onto a task the next checkpoint still lists as open), so a report in the same session keeps the hand-set
test, and only later-session decisions are fitted and scored. A logistic regression (classes weighing alike, an L2
penalty) is fitted on the pair features. The penalty, the
threshold and the lead over the best rival are chosen by cross-validation over whole files, scoring the decisions
the write side would take (a report moves its best task or moves none) by F1 of moves onto a right task; the hand-set
test is scored on the same decisions beside it. The dev and test files measure it (docs/EVALUATION.md); it never
reads them.

``--written`` adds the written pairs (``training/understand/report_pairs_*.jsonl``: two tasks a user states, a
report told in a later session, and which task it closes, if any), each remembered as a small conversation of its
own with the pairs logged as above and labelled by the row; and reads the report's learned outcome among the
features (``WRITTEN_FEATURES``). The written pairs are fitted on (one fold per fifth of the rows); the threshold and
lead are still chosen on the train conversations' decisions alone. Written to ``report_tasks_written.json``
(``memory.understanding.WRITTEN_PAIRS``; docs/decisions/0120).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir._paths import training_dir
from mnemir.embed import Embedder, default_embedder
from mnemir.eval import continuity
from mnemir.eval._embedcache import cached
from mnemir.eval.learn_query_kinds import _probabilities, fit
from mnemir.understand.report_tasks import FEATURES, TIE, WRITTEN_FEATURES, ReportTasks, row
from mnemir.understand.unmarked_reports import UnmarkedReports

PENALTIES = (1e-3, 1e-2, 1e-1)
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(16))  # 0.20 .. 0.95
#: the lead over the best rival is at least 0.05: two tasks that fit alike are asked about (a confirmation), never
#: guessed, even where cross-validation would move the best of a tie (0.0 scored F1 0.777 against 0.765 at 0.05)
LEADS = (0.05, 0.1, 0.2, 0.3)
STEPS = 600
CLOSED = ("completed", "failed")
#: routes the write side acts on (``unmarked`` is logged only)
ACTING = ("update", "report", "utterance")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "understand" / "data" / "report_tasks.json"
WRITTEN_OUT = DEFAULT_OUT.with_name("report_tasks_written.json")
#: the written pairs' files, and the folds their rows are spread over for cross-validation
WRITTEN_GLOB = "report_pairs_*.jsonl"
WRITTEN_FOLDS = 5
#: the replies between a written row's two tasks, and the days before its report is told
ACKS = {"en": ("Noted.", "OK, added."), "zh": ("好的，记下了。", "收到。")}
REPORT_AFTER = timedelta(days=9)


def collect(split: str = "train", embedder: Embedder | None = None) -> list[dict[str, Any]]:
    """The logged decisions of every conversation of ``split``, each with its file and the pairs' labels."""
    from mnemir.memory import understanding

    embedder = cached(embedder or default_embedder())
    conversations = continuity.load(split)
    embedder.prefetch([t.text for c in conversations for t in c.turns], [])
    out: list[dict[str, Any]] = []
    learned, unmarked = understanding.LEARNED_REPORT_MATCH, understanding.UNMARKED_REPORT_MATCH
    # the hand-set matching decides alone while the pairs are logged (the unmarked reading, 0102, acts on none)
    understanding.LEARNED_REPORT_MATCH = understanding.UNMARKED_REPORT_MATCH = False
    try:
        with tempfile.TemporaryDirectory(prefix="mnemir-report-tasks-") as tmp:
            for conversation in conversations:
                log: list[dict[str, Any]] = []
                understanding.REPORT_PAIR_LOG = log
                stores = continuity.Stores(Path(tmp) / conversation.id, embedder, f"reports-{conversation.id}",
                                           ("remember_recall",))
                try:
                    for turn in conversation.turns:
                        stores.read(turn)
                finally:
                    understanding.REPORT_PAIR_LOG = None
                    stores.close()
                checkpoints = sorted((c for c in conversation.checkpoints if c.kind == "open_tasks"),
                                     key=lambda c: c.after)
                for entry in log:
                    for pair in entry["pairs"]:
                        pair["label"] = _label(checkpoints, entry["turn"], pair["turn"])
                    out.append({"file": Path(conversation.source).name, "conv": conversation.id, **entry})
                print(f"{conversation.id}: {len(log)} decisions", flush=True)
    finally:
        understanding.LEARNED_REPORT_MATCH, understanding.UNMARKED_REPORT_MATCH = learned, unmarked
    return out


def collect_written(embedder: Embedder | None = None, folder: Path | None = None) -> list[dict[str, Any]]:
    """The logged decisions of the written pairs: each row's two tasks are stated in one session (an
    acknowledgement after each), its report in a session ``REPORT_AFTER`` later; a pair of the report and the task
    of row task i is right when the row says the report closes task i, wrong otherwise."""
    from mnemir.memory import understanding
    from mnemir.understand.model import read_jsonl

    embedder = cached(embedder or default_embedder())
    rows = [r for path in sorted((folder or training_dir() / "understand").glob(WRITTEN_GLOB))
            for r in read_jsonl(path)]
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    out: list[dict[str, Any]] = []
    learned, unmarked = understanding.LEARNED_REPORT_MATCH, understanding.UNMARKED_REPORT_MATCH
    understanding.LEARNED_REPORT_MATCH = understanding.UNMARKED_REPORT_MATCH = False
    try:
        with tempfile.TemporaryDirectory(prefix="mnemir-written-pairs-") as tmp:
            for k, r in enumerate(rows):
                ack = ACKS.get(r["lang"], ACKS["en"])
                turns = [continuity.Turn(1, "user", r["tasks"][0], 1, start),
                         continuity.Turn(2, "assistant", ack[0], 1, start),
                         continuity.Turn(3, "user", r["tasks"][1], 1, start + timedelta(minutes=2)),
                         continuity.Turn(4, "assistant", ack[1], 1, start + timedelta(minutes=2)),
                         continuity.Turn(5, "user", r["report"], 2, start + REPORT_AFTER)]
                log: list[dict[str, Any]] = []
                understanding.REPORT_PAIR_LOG = log
                stores = continuity.Stores(Path(tmp) / r["id"], embedder, f"written-{r['id']}", ("remember_recall",))
                try:
                    for turn in turns:
                        stores.read(turn)
                finally:
                    understanding.REPORT_PAIR_LOG = None
                    stores.close()
                for entry in log:
                    if entry["turn"] != len(turns):
                        continue
                    for pair in entry["pairs"]:
                        task = {1: 0, 3: 1}.get(pair["turn"])
                        pair["label"] = None if task is None else int(r["closes"] == task)
                    out.append({"file": f"written#{k % WRITTEN_FOLDS}", "conv": f"written-{r['id']}", **entry})
    finally:
        understanding.LEARNED_REPORT_MATCH, understanding.UNMARKED_REPORT_MATCH = learned, unmarked
    return out


def written(decision: dict[str, Any]) -> bool:
    return str(decision["file"]).startswith("written#")


def _label(checkpoints: Sequence[Any], report_turn: int | None, task_turn: int | None) -> int | None:
    """1 when the first open_tasks checkpoint from the report on that names the task's turn forbids it, 0 when it
    lists it as open, None when none names it."""
    if report_turn is None or task_turn is None:
        return None
    for checkpoint in checkpoints:
        if checkpoint.after < report_turn:
            continue
        if task_turn in checkpoint.forbidden:
            return 1
        if task_turn in checkpoint.relevant:
            return 0
    return None


def pairs_of(decisions: Sequence[dict[str, Any]], routes: Sequence[str]) -> tuple[list[dict[str, Any]], list[int]]:
    """The decisions on closed work along ``routes`` with at least one labelled pair (the first of each repeated
    report, task and turn), and the index of each."""
    seen: set[tuple[Any, ...]] = set()
    kept, index = [], []
    for i, d in enumerate(decisions):
        if d["status"] not in CLOSED or d["route"] not in routes:
            continue
        key = (d["file"], d["turn"], d["text"], tuple(p["id"] for p in d["pairs"]))
        if key in seen or not any(p["label"] is not None for p in d["pairs"]) \
                or not d["pairs"][0]["raw"]["other_session"]:
            continue  # the matcher reads reports told in a later session than their best task (see module doc)
        seen.add(key)
        kept.append(d)
        index.append(i)
    return kept, index


def matrix(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[str], list[tuple[int, int]]]:
    """(features, labels, files, (decision, pair) of each row) of the labelled pairs."""
    rows, labels, files, where = [], [], [], []
    for i, d in enumerate(decisions):
        for j, p in enumerate(d["pairs"]):
            if p["label"] is None:
                continue
            rows.append(row(p["raw"], features))
            labels.append(int(p["label"]))
            files.append(d["file"])
            where.append((i, j))
    return np.vstack(rows), np.asarray(labels, dtype=np.int64), files, where


def score_decisions(decisions: Sequence[dict[str, Any]], probabilities: Sequence[Sequence[float]] | None,
                    threshold: float = 0.5, lead: float = 0.0, tie: float = TIE) -> dict[str, float]:
    """F1 of the moves the write side would make: a move onto a task labelled right is right, onto one labelled wrong
    is wrong (onto an unlabelled one: not counted); a decision with a right task that moves none (or a wrong one)
    misses it; a best task whose match score leads its rival by under ``tie`` is asked about (moves none).
    ``probabilities`` None: the hand-set test (``rule``) and the match score's order."""
    right = wrong = missed = 0
    for k, d in enumerate(decisions):
        pairs = d["pairs"]
        if probabilities is None:
            moves, best = bool(d["rule"]), 0
        else:
            p = probabilities[k]
            order = sorted(range(len(p)), key=lambda i: -p[i])
            best = order[0]
            place = (pairs[best]["session"], pairs[best]["turn"])
            rival = max((p[i] for i in order[1:] if pairs[best]["turn"] is None
                         or (pairs[i]["session"], pairs[i]["turn"]) != place), default=0.0)
            alike = len(pairs) > 1 and pairs[best]["raw"]["lead"] < tie
            moves = p[best] >= threshold and p[best] - rival >= lead and not alike
        has_right = any(q["label"] == 1 for q in pairs)
        label = pairs[best]["label"]
        if moves and label == 1:
            right += 1
        elif moves and label == 0:
            wrong += 1
        if has_right and not (moves and label == 1):
            missed += 1
    precision = right / max(right + wrong, 1)
    recall = right / max(right + missed, 1)
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    return {"f1": round(f1, 4), "precision": round(precision, 4), "recall": round(recall, 4), "right": right,
            "wrong": wrong, "missed": missed}


def out_of_fold(decisions: Sequence[dict[str, Any]], x: npt.NDArray[np.float64], y: npt.NDArray[np.int64],
                files: Sequence[str], penalty: float,
                row_of: Callable[[dict[str, Any]], npt.NDArray[np.float64]]) -> list[list[float]]:
    """Out-of-fold probabilities of every pair of ``decisions`` (``row_of`` makes a pair's features), one fold per
    file: the model is fitted on the labelled pairs ``x`` / ``y`` of the other files."""
    names = np.asarray(files)
    out = [[0.0] * len(d["pairs"]) for d in decisions]
    for name in sorted(set(files)):
        held = names == name
        w = fit(x[~held], y[~held], 2, penalty, steps=STEPS)
        for k, d in enumerate(decisions):
            if d["file"] == name:
                out[k] = [float(_probabilities(w, row_of(p["raw"])[None, :])[0, 1]) for p in d["pairs"]]
    return out


def cross_validate(decisions: Sequence[dict[str, Any]], penalty: float,
                   features: tuple[str, ...] = FEATURES) -> list[list[float]]:
    """Out-of-fold probabilities of every pair, one fold per file."""
    x, y, files, _ = matrix(decisions, features)
    return out_of_fold(decisions, x, y, files, penalty, lambda raw: row(raw, features))


def choose(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES) -> dict[str, Any]:
    """The penalty, threshold and lead cross-validation prefers (F1 of the moves on the train conversations'
    decisions; written pairs are fitted on, never scored), with the hand-set test beside."""
    acting = [d for d in decisions if d["route"] in ACTING and not written(d)]
    rule = score_decisions(acting, None)
    print(json.dumps({"hand-set": rule}), flush=True)
    best: dict[str, Any] | None = None
    tried = []
    for penalty in PENALTIES:
        out = cross_validate(decisions, penalty, features)
        p = [pr for pr, d in zip(out, decisions, strict=True) if d["route"] in ACTING and not written(d)]
        for th in THRESHOLDS:
            for lead in LEADS:
                s = score_decisions(acting, p, th, lead)
                r = {"penalty": penalty, "threshold": th, "lead": lead, **s}
                tried.append(r)
                if best is None or (s["f1"], -abs(th - 0.5)) > (best["f1"], -abs(best["threshold"] - 0.5)):
                    best = r
        unmarked = [pr for pr, d in zip(out, decisions, strict=True) if d["route"] == "unmarked" and not written(d)]
        marked = [d for d in decisions if d["route"] == "unmarked" and not written(d)]
        if marked:
            print(json.dumps({"penalty": penalty, "unmarked at 0.7 / 0.1": score_decisions(marked, unmarked, 0.7, 0.1),
                              "unmarked at 0.8 / 0.2": score_decisions(marked, unmarked, 0.8, 0.2)}), flush=True)
    assert best is not None
    print(json.dumps({"chosen": best}), flush=True)
    return {**best, "hand_set": rule}


def fit_pairs(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str], chosen: dict[str, Any],
              decisions: int, note: str) -> tuple[npt.NDArray[Any], dict[str, Any]]:
    """The pair model's weights fitted on every pair at the chosen penalty, and the metadata it is shipped with
    (shared by this trainer and ``learn_unmarked_reports``)."""
    w = fit(x, y, 2, chosen["penalty"], steps=STEPS)
    weights = w[1] - w[0]  # a two-class softmax is a logistic regression on the difference
    meta = {"trained_on": sorted(set(files)), "decisions": decisions, "pairs": len(y), "positives": int(y.sum()),
            "penalty": chosen["penalty"],
            "cross_validated": {k: v for k, v in chosen.items() if k not in ("penalty", "threshold", "lead")},
            "note": note}
    return weights, meta


def train(decisions: Sequence[dict[str, Any]], features: tuple[str, ...] = FEATURES) -> ReportTasks:
    kept, _ = pairs_of(decisions, (*ACTING, "unmarked"))
    chosen = choose(kept, features)
    x, y, files, _ = matrix(kept, features)
    weights, meta = fit_pairs(x, y, files, chosen, len(kept),
                              "report-task pairs logged while the continuity train conversations are remembered, "
                              "labelled by the next open_tasks checkpoint naming the task; "
                              "python -m mnemir.eval.learn_report_tasks")
    return ReportTasks(weights, float(chosen["threshold"]), float(chosen["lead"]), features, meta)


def train_cli(argv: list[str] | None, description: str | None, default_out: Path,
              trainer: Callable[[Sequence[dict[str, Any]], tuple[str, ...]], ReportTasks | UnmarkedReports],
              written_out: Path, written_features: tuple[str, ...], features: tuple[str, ...]) -> int:
    """The command line of a model fitted on the logged report pairs: log them (or read them back from ``--pairs``),
    fit, and write the model to ``--out`` (``--written``: with the written pairs and the outcome features, to
    ``written_out`` unless ``--out`` says otherwise)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--pairs", type=Path, default=None, help="keep (or read back) the logged pairs here")
    parser.add_argument("--written", action="store_true", help="add the written pairs and the outcome features")
    args = parser.parse_args(argv)
    if args.pairs is not None and args.pairs.exists():
        decisions = json.loads(args.pairs.read_text(encoding="utf-8"))
    else:
        decisions = collect("train")
        if args.pairs is not None:
            args.pairs.write_text(json.dumps(decisions, ensure_ascii=False), encoding="utf-8")
    if args.written:
        decisions = [*decisions, *collect_written()]
    model = trainer(decisions, written_features if args.written else features)
    out = args.out or (written_out if args.written else default_out)
    out.write_text(json.dumps(model.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}: threshold {model.threshold}, lead {model.lead}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return train_cli(argv, __doc__, DEFAULT_OUT, train, WRITTEN_OUT, WRITTEN_FEATURES, FEATURES)


if __name__ == "__main__":
    raise SystemExit(main())
