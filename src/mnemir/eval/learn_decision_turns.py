"""Train the write side's reading of a turn that states a choice made (:mod:`mnemir.understand.decision_turns`) on
training files only.

    python -m mnemir.eval.learn_decision_turns [--out src/mnemir/understand/data/decision_turns.json]

The examples are the user turns of the continuity train conversations (``benchmarks/continuity/train``): a turn named
relevant by a ``decision`` checkpoint states a choice made; every other user turn counts as not (some choices are
never asked about: the labels are noisy, which the cross-validated threshold absorbs). Each turn is embedded by the
bundled embedder as ``remember`` embeds an utterance; a logistic regression (a two-class softmax, classes weighing
alike, an L2 penalty) is fitted on the vector, the cue groups and the hashed n-grams. The n-gram scale, the penalty
and the threshold are chosen by cross-validation over whole files (best F-beta of "decision",
BETA), then the model is fitted
on every training file. The dev and test files measure it (docs/EVALUATION.md); it never reads them.
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
from mnemir.eval.learn_query_kinds import _f1, fit, out_of_fold
from mnemir.understand.decision_turns import DecisionTurns, features

NGRAM_DIMS = 2048
NGRAM_SCALES = (1.0, 2.0)
PENALTIES = (1e-3,)
THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
STEPS = 300
#: the threshold's F-beta: 1.0 (F1). 0.5 (precision first: a turn wrongly kept as a decision goes first for a question
#: about a choice) chose 0.65 and lost most of the dev gain (decision 0.663 -> 0.633; docs/decisions/0059)
BETA = 1.0
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "understand" / "data" / "decision_turns.json"


def examples(split: str = "train") -> tuple[list[str], list[int], list[str]]:
    """(user turns, 1 when a decision checkpoint names the turn relevant, the file each came from)."""
    texts, labels, files = [], [], []
    for conversation in continuity.load(split):
        chosen = {n for c in conversation.checkpoints if c.kind == "decision" for n in c.relevant}
        for turn in conversation.turns:
            if turn.speaker == "user":
                texts.append(turn.text)
                labels.append(int(turn.n in chosen))
                files.append(Path(conversation.source).name)
    return texts, labels, files



def _fbeta(asked: npt.NDArray[np.bool_], truth: npt.NDArray[np.bool_]) -> tuple[float, float, float, float]:
    """(F-beta, F1, precision, recall) of ``asked`` against ``truth``."""
    f1, precision, recall = _f1(asked, truth)
    b2 = BETA * BETA
    fb = (1 + b2) * precision * recall / (b2 * precision + recall) if precision + recall else 0.0
    return fb, f1, precision, recall


def choose(vectors: npt.NDArray[np.float64], texts: list[str], y: npt.NDArray[np.int64],
           files: Sequence[str]) -> dict[str, Any]:
    """The n-gram scale, penalty and threshold cross-validation prefers, with its figures."""
    best: dict[str, Any] | None = None
    tried = []
    for scale in NGRAM_SCALES:
        x = features(vectors, texts, NGRAM_DIMS, scale)
        for penalty in PENALTIES:
            p = out_of_fold(x, y, files, penalty, STEPS)
            scored = [(_fbeta(p >= th, y == 1), th) for th in THRESHOLDS]
            (fb, f1, precision, recall), th = max(scored, key=lambda s: (s[0][0], -abs(s[1] - 0.5)))
            row = {"ngram_scale": scale, "penalty": penalty, "threshold": th, "f_beta": round(fb, 4),
                   "f1": round(f1, 4), "precision": round(precision, 4), "recall": round(recall, 4)}
            tried.append(row)
            print(json.dumps(row), flush=True)
            if best is None or fb > best["f_beta"]:
                best = row
    assert best is not None
    return {**best, "tried": tried}


def fit_model(model_id: str, vectors: npt.NDArray[np.float64], texts: list[str], labels: list[int],
              files: Sequence[str], note: str) -> DecisionTurns:
    """The n-gram scale, penalty and threshold chosen by cross-validation, then a logistic regression on every
    example (texts, their vectors and 0 / 1 labels; ``files`` groups the folds)."""
    y = np.asarray(labels, dtype=np.int64)
    chosen = choose(vectors, texts, y, files)
    x = features(vectors, texts, NGRAM_DIMS, chosen["ngram_scale"])
    w = fit(x, y, 2, chosen["penalty"], steps=STEPS)
    weights = w[1] - w[0]  # a two-class softmax is a logistic regression on the difference
    meta = {"trained_on": sorted(set(files)), "examples": len(texts), "positives": int(y.sum()),
            "penalty": chosen["penalty"],
            "cross_validated": {k: v for k, v in chosen.items() if k not in ("penalty", "threshold", "ngram_scale")},
            "note": note}
    return DecisionTurns(model_id, int(vectors.shape[1]), weights, float(chosen["threshold"]), NGRAM_DIMS,
                         float(chosen["ngram_scale"]), meta)


def train(embedder: Embedder | None = None) -> DecisionTurns:
    embedder = embedder or default_embedder()
    texts, labels, files = examples("train")
    cache = cached(embedder)
    cache.prefetch(list(texts), [])
    vectors = np.asarray(cache.embed(texts), dtype=np.float64)
    return fit_model(embedder.model_id, vectors, texts, labels, files,
                     "user turns of the continuity train conversations, a decision checkpoint's relevant turns "
                     "positive; python -m mnemir.eval.learn_decision_turns")


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"threshold {m.threshold}, n-gram scale {m.ngram_scale}", argv)


if __name__ == "__main__":
    raise SystemExit(main())
