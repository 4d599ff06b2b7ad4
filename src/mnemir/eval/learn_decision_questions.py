"""Train recall's reading of a question that asks what was decided (:mod:`mnemir.retrieve.decision_questions`) on
training files only.

    python -m mnemir.eval.learn_decision_questions [--out src/mnemir/retrieve/data/decision_questions.json]

The examples are the checkpoint questions of the continuity train conversations (``benchmarks/continuity/train``): a
``decision`` checkpoint's question asks about a choice, every other checkpoint's does not. Each question is embedded
as recall embeds a query; a logistic regression (the write side's decision-turn model class: the vector, the cue
groups and the hashed n-grams, :func:`mnemir.understand.decision_turns.features`) is fitted on them. The n-gram scale
and the threshold are chosen by cross-validation over whole files (best F1), then the model is fitted on every
training file. The dev and test files measure it (docs/EVALUATION.md); it never reads them.
"""

from __future__ import annotations

import json
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
PENALTY = 1e-3
THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
STEPS = 300
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "decision_questions.json"


def examples(split: str = "train") -> tuple[list[str], list[int], list[str]]:
    """(checkpoint questions, 1 for a decision checkpoint's, the file each came from)."""
    texts, labels, files = [], [], []
    for conversation in continuity.load(split):
        for checkpoint in conversation.checkpoints:
            texts.append(checkpoint.q)
            labels.append(int(checkpoint.kind == "decision"))
            files.append(Path(conversation.source).name)
    return texts, labels, files


def choose(vectors: npt.NDArray[np.float64], texts: list[str], y: npt.NDArray[np.int64],
           files: list[str]) -> dict[str, Any]:
    """The n-gram scale and threshold cross-validation prefers, with its figures."""
    best: dict[str, Any] | None = None
    tried = []
    for scale in NGRAM_SCALES:
        p = out_of_fold(features(vectors, texts, NGRAM_DIMS, scale), y, files, PENALTY, STEPS)
        scored = [(_f1(p >= th, y == 1), th) for th in THRESHOLDS]
        (f1, precision, recall), th = max(scored, key=lambda s: (s[0][0], -abs(s[1] - 0.5)))
        row = {"ngram_scale": scale, "threshold": th, "f1": round(f1, 4), "precision": round(precision, 4),
               "recall": round(recall, 4)}
        tried.append(row)
        print(json.dumps(row), flush=True)
        if best is None or f1 > best["f1"]:
            best = row
    assert best is not None
    return {**best, "tried": tried}


def train(embedder: Embedder | None = None) -> DecisionTurns:
    embedder = embedder or default_embedder()
    texts, labels, files = examples("train")
    y = np.asarray(labels, dtype=np.int64)
    cache = cached(embedder)
    cache.prefetch([], list(texts))
    vectors = np.asarray([cache.embed_query(t) for t in texts], dtype=np.float64)
    chosen = choose(vectors, texts, y, files)
    x = features(vectors, texts, NGRAM_DIMS, chosen["ngram_scale"])
    w = fit(x, y, 2, PENALTY, steps=STEPS)
    weights = w[1] - w[0]  # a two-class softmax is a logistic regression on the difference
    meta = {"trained_on": sorted(set(files)), "examples": len(texts), "positives": int(y.sum()), "penalty": PENALTY,
            "cross_validated": {k: v for k, v in chosen.items() if k not in ("threshold", "ngram_scale")},
            "note": "checkpoint questions of the continuity train conversations, a decision checkpoint's positive; "
                    "python -m mnemir.eval.learn_decision_questions"}
    return DecisionTurns(embedder.model_id, int(vectors.shape[1]), weights, float(chosen["threshold"]), NGRAM_DIMS,
                         float(chosen["ngram_scale"]), meta)


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"threshold {m.threshold}, n-gram scale {m.ngram_scale}",
                      argv)


if __name__ == "__main__":
    raise SystemExit(main())
