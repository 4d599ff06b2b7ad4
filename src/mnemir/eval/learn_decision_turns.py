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

from mnemir._paths import training_dir
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
#: the extractor's training batches whose user rows also teach the model (docs/decisions/0110): a row whose expected
#: memories include a decision (``"decision": true``) states a choice made, every other row does not. The collapse
#: train memories (``extraction_ctrain.jsonl``: requests, outbursts, facts and preferences typed by hand, none a
#: choice) are what the conversations alone left unread: the model read a request or an outburst as a choice made.
#: Empty: the conversations only (the model before 0110)
EXTRA_BATCHES: tuple[str, ...] = ("extraction_ctrain.jsonl", "extraction_hw9.jsonl", "extraction_hw11.jsonl",
                                  "extraction_hw12.jsonl")
#: each such row's weight beside a conversation turn's (1); they are always trained on and never scored, so the
#: threshold is still chosen on the conversations' held-out files
EXTRA_WEIGHT = 0.5
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



def batch_examples(batches: Sequence[str] = EXTRA_BATCHES) -> tuple[list[str], list[int]]:
    """(user texts, 1 when a row's expected memories include a decision) of training batches of the extractor."""
    texts, labels = [], []
    for name in batches:
        path = training_dir() / "understand" / name
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("speaker", "user") != "user":
                continue
            texts.append(str(row["text"]))
            labels.append(int(any(e.get("decision") for e in row.get("expect") or ())))
    return texts, labels


def _fbeta(asked: npt.NDArray[np.bool_], truth: npt.NDArray[np.bool_]) -> tuple[float, float, float, float]:
    """(F-beta, F1, precision, recall) of ``asked`` against ``truth``."""
    f1, precision, recall = _f1(asked, truth)
    b2 = BETA * BETA
    fb = (1 + b2) * precision * recall / (b2 * precision + recall) if precision + recall else 0.0
    return fb, f1, precision, recall


def _out_of_fold(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str], penalty: float,
                 weight: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """P(decision) of each conversation turn from a model fitted without its own file; the rows of no file (the
    extractor's batches, ``""``) are always fitted on and get no probability."""
    names = np.asarray(files)
    if not (names == "").any():
        return out_of_fold(x, y, files, penalty, STEPS)
    out = np.zeros(len(y))
    for name in sorted(set(files) - {""}):
        held = names == name
        w = fit(x[~held], y[~held], 2, penalty, steps=STEPS, sample_weight=weight[~held])
        z = np.hstack([x[held], np.ones((int(held.sum()), 1))]) @ w.T
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out[held] = e[:, 1] / e.sum(axis=1)
    return out


def choose(vectors: npt.NDArray[np.float64], texts: list[str], y: npt.NDArray[np.int64],
           files: Sequence[str], weight: npt.NDArray[np.float64] | None = None) -> dict[str, Any]:
    """The n-gram scale, penalty and threshold cross-validation over the conversations' files prefers, with its
    figures (rows of no file are trained on in every fold, never scored)."""
    best: dict[str, Any] | None = None
    tried = []
    weight = np.ones(len(y)) if weight is None else weight
    scored_rows = np.asarray(files) != ""
    for scale in NGRAM_SCALES:
        x = features(vectors, texts, NGRAM_DIMS, scale)
        for penalty in PENALTIES:
            p = _out_of_fold(x, y, files, penalty, weight)[scored_rows]
            scored = [(_fbeta(p >= th, y[scored_rows] == 1), th) for th in THRESHOLDS]
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
              files: Sequence[str], note: str, weight: npt.NDArray[np.float64] | None = None) -> DecisionTurns:
    """The n-gram scale, penalty and threshold chosen by cross-validation, then a logistic regression on every
    example (texts, their vectors and 0 / 1 labels; ``files`` groups the folds, ``""``: always fitted on;
    ``weight``: each row's weight, default 1)."""
    y = np.asarray(labels, dtype=np.int64)
    chosen = choose(vectors, texts, y, files, weight)
    x = features(vectors, texts, NGRAM_DIMS, chosen["ngram_scale"])
    w = fit(x, y, 2, chosen["penalty"], steps=STEPS, sample_weight=weight)
    weights = w[1] - w[0]  # a two-class softmax is a logistic regression on the difference
    meta = {"trained_on": sorted(set(files) - {""}), "examples": len(texts), "positives": int(y.sum()),
            "penalty": chosen["penalty"],
            "cross_validated": {k: v for k, v in chosen.items() if k not in ("penalty", "threshold", "ngram_scale")},
            "note": note}
    return DecisionTurns(model_id, int(vectors.shape[1]), weights, float(chosen["threshold"]), NGRAM_DIMS,
                         float(chosen["ngram_scale"]), meta)


def train(embedder: Embedder | None = None, batches: Sequence[str] = EXTRA_BATCHES) -> DecisionTurns:
    embedder = embedder or default_embedder()
    texts, labels, files = examples("train")
    weight = [1.0] * len(texts)
    more, more_labels = batch_examples(batches) if batches else ([], [])
    texts, labels, files = texts + more, labels + more_labels, [*files, *([""] * len(more))]
    weight += [EXTRA_WEIGHT] * len(more)
    cache = cached(embedder)
    cache.prefetch(list(texts), [])
    vectors = np.asarray(cache.embed(texts), dtype=np.float64)
    note = ("user turns of the continuity train conversations, a decision checkpoint's relevant turns positive"
            + (f"; and the user rows of {', '.join(batches)} at weight {EXTRA_WEIGHT}, a row with a decision among "
               "its expected memories positive" if batches else "") + "; python -m mnemir.eval.learn_decision_turns")
    model = fit_model(embedder.model_id, vectors, texts, labels, files, note, np.asarray(weight))
    if batches:
        model.meta["batches"] = list(batches)
    return model


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"threshold {m.threshold}, n-gram scale {m.ngram_scale}", argv)


if __name__ == "__main__":
    raise SystemExit(main())
