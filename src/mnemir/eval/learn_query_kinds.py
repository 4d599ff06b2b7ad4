"""Train recall's reading of what a query asks for (:mod:`mnemir.retrieve.query_kinds`) on training files only.

    python -m mnemir.eval.learn_query_kinds [--out src/mnemir/retrieve/data/query_kinds.json]

The examples are the checkpoints of the continuity train conversations (``benchmarks/continuity/train``): each
question with its kind (decision, next_step, open_tasks, task_status, ...). Each question is embedded by the bundled
embedder, as recall embeds a query; a softmax over the kinds with an L2 penalty is fitted on the vectors, each kind
weighing alike (the kinds are unevenly represented). The penalty, and the probability from which recall counts a kind
as asked, are chosen by cross-validation over whole files, so each file is judged by a model that never saw it: the
penalty with the best mean F1 over the kinds recall acts on, and for each such kind the threshold with the best F1.
The model is then fitted on every training file. A training question also asked in the dev split (short generic
questions recur word for word) is left out. The files, the settings and the cross-validated figures are written
into the model file. The dev and test files measure it (docs/EVALUATION.md); it never reads them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed import Embedder, default_embedder
from mnemir.eval import continuity, model_main
from mnemir.eval._embedcache import cached
from mnemir.retrieve.query_kinds import DECISION, NEXT_STEP, OPEN_TASKS, TASK_STATUS, QueryKinds

#: the kinds recall acts on (their thresholds are chosen; the other kinds only share the probability)
ACTED_ON = (NEXT_STEP, DECISION, OPEN_TASKS, TASK_STATUS)
PENALTIES = (1e-4, 3e-4, 1e-3)
THRESHOLDS = tuple(round(0.1 + 0.05 * i, 2) for i in range(15))  # 0.10 .. 0.80
STEPS = 1000
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "query_kinds.json"


def examples(split: str = "train", *, leave_out: frozenset[str] = frozenset()) -> tuple[list[str], list[str], list[str]]:
    """(questions, their kinds, the file each came from) of the continuity ``split``, but those in ``leave_out``."""
    questions, kinds, files = [], [], []
    for conversation in continuity.load(split):
        for checkpoint in conversation.checkpoints:
            if checkpoint.q in leave_out:
                continue
            questions.append(checkpoint.q)
            kinds.append(checkpoint.kind)
            files.append(Path(conversation.source).name)
    return questions, kinds, files


def embed_queries(embedder: Embedder, questions: Sequence[str]) -> npt.NDArray[np.float64]:
    cache = cached(embedder)
    cache.prefetch(queries=list(questions))
    return np.vstack([cache.embed_query(q) for q in questions]).astype(np.float64)


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], n_kinds: int, penalty: float,
        steps: int = STEPS) -> npt.NDArray[np.float64]:
    """Weights (n_kinds, dim + 1) of a softmax fitted by Adam on the balanced cross-entropy plus ``penalty`` times
    the squared weights (the bias unpenalised). Deterministic: zero start, full batches."""
    n, dim = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    target = np.eye(n_kinds)[y]
    counts = np.bincount(y, minlength=n_kinds).astype(np.float64)
    weight = 1.0 / np.maximum(counts[y], 1.0)
    weight /= weight.sum()
    w = np.zeros((dim + 1, n_kinds))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    mask = np.ones_like(w)
    mask[-1] = 0.0
    for t in range(1, steps + 1):
        z = xb @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        grad = xb.T @ ((p - target) * weight[:, None]) + penalty * w * mask
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    out: npt.NDArray[np.float64] = w.T.copy()
    return out


def _probabilities(w: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    z = x @ w[:, :-1].T + w[:, -1]
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    out: npt.NDArray[np.float64] = p / p.sum(axis=1, keepdims=True)
    return out


def _f1(asked: npt.NDArray[np.bool_], truth: npt.NDArray[np.bool_]) -> tuple[float, float, float]:
    tp = float((asked & truth).sum())
    precision = tp / max(float(asked.sum()), 1.0)
    recall = tp / max(float(truth.sum()), 1.0)
    return (2 * precision * recall / (precision + recall) if tp else 0.0), precision, recall


def cross_validate(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str], kinds: Sequence[str],
                   penalty: float) -> npt.NDArray[np.float64]:
    """Out-of-fold probabilities, one fold per file."""
    out = np.zeros((len(y), len(kinds)))
    names = np.asarray(files)
    for name in sorted(set(files)):
        held = names == name
        w = fit(x[~held], y[~held], len(kinds), penalty)
        out[held] = _probabilities(w, x[held])
    return out


def choose(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str],
           kinds: Sequence[str]) -> dict[str, Any]:
    """The penalty and thresholds cross-validation prefers, with its figures."""
    truth = np.asarray(kinds)[y]
    best: dict[str, Any] | None = None
    tried = []
    for penalty in PENALTIES:
        p = cross_validate(x, y, files, kinds, penalty)
        accuracy = float((p.argmax(axis=1) == y).mean())
        per_kind = {}
        for kind in ACTED_ON:
            col = p[:, list(kinds).index(kind)]
            scored = [(_f1(col >= th, truth == kind), th) for th in THRESHOLDS]
            (f1, precision, recall), th = max(scored, key=lambda s: (s[0][0], -abs(s[1] - 0.5)))
            per_kind[kind] = {"threshold": th, "f1": round(f1, 4), "precision": round(precision, 4),
                              "recall": round(recall, 4)}
        mean = sum(v["f1"] for v in per_kind.values()) / len(per_kind)
        row = {"penalty": penalty, "accuracy": round(accuracy, 4), "mean_f1": round(mean, 4), "kinds": per_kind}
        tried.append(row)
        print(json.dumps(row))
        if best is None or mean > best["mean_f1"]:
            best = row
    assert best is not None
    return {**best, "tried": tried}


def train(embedder: Embedder | None = None) -> QueryKinds:
    embedder = embedder or default_embedder()
    # a question asked in a dev conversation too (a short generic one may recur word for word) is left out: the dev
    # split measures the model
    dev = frozenset(examples("dev")[0])
    questions, labels, files = examples("train", leave_out=dev)
    kinds = sorted(set(labels))
    y = np.asarray([kinds.index(k) for k in labels], dtype=np.int64)
    x = embed_queries(embedder, questions)
    chosen = choose(x, y, files, kinds)
    w = fit(x, y, len(kinds), chosen["penalty"])
    thresholds = {k: chosen["kinds"][k]["threshold"] for k in ACTED_ON}
    meta = {"trained_on": sorted(set(files)), "examples": len(questions), "penalty": chosen["penalty"],
            "left_out": "questions also asked in the dev split",
            "cross_validated": {k: v for k, v in chosen.items() if k != "penalty"},
            "note": "a softmax over the continuity train checkpoint kinds on the query vector; "
                    "python -m mnemir.eval.learn_query_kinds"}
    return QueryKinds(embedder.model_id, tuple(kinds), w, thresholds, meta)


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"thresholds {m.thresholds}, penalty {m.meta['penalty']}", argv)


if __name__ == "__main__":
    raise SystemExit(main())
