"""Fit the report-outcome reading (:mod:`mnemir.understand.report_outcomes`): what a user's statement on earlier work
says became of it (done, started, deferred, dropped), from the training split's extraction rows labelled as a report on
earlier work (``TaskUpdate``) with a status. Those rows are read, never changed; the extractor is not refitted.

    python -m mnemir.eval.learn_report_outcomes [--cv 5] [--out DIR]

The penalty is chosen by cross-validation (stratified folds over the rows); the out-of-fold confusion is printed.
The classes: ``completed`` -> done, ``in_progress`` -> started, ``pending`` -> deferred (the extractor's rows label a
report that moves the work to a later time "pending": "postponed to May", "推到四月了"), ``failed`` -> dropped.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from mnemir._paths import training_dir
from mnemir.embed import default_embedder
from mnemir.understand.model import DATA_DIR, SoftmaxModel, featurize, read_jsonl, train_softmax
from mnemir.understand.report_outcomes import MODEL_NAME, OUTCOMES, SPEC

#: the extractor's status label of a TaskUpdate row -> the outcome it tells
LABELS = {"completed": "done", "in_progress": "started", "pending": "deferred", "failed": "dropped"}
PENALTIES = (1e-4, 1e-3, 1e-2)
#: every extraction batch of the training split, in the extractor's ``TRAIN_FILES`` or not (the batches kept out of
#: it were kept out for what they did to the extractor's types; their status labels are as good): never a dev,
#: held-out or fresh file, and not the rows generated from the collapse memories (no report among them)
BATCHES = ("extraction_train.jsonl", "extraction_hw8.jsonl", "extraction_hw9.jsonl", "extraction_hw11.jsonl",
           "extraction_hw12.jsonl", "extraction_s12e2e.jsonl", "extraction_s13.jsonl", "extraction_s14.jsonl",
           "extraction_s15.jsonl", "extraction_s16.jsonl", "extraction_s18.jsonl", "extraction_s19.jsonl",
           "extraction_s19b.jsonl", "extraction_s20.jsonl", "extraction_s21.jsonl", "extraction_s21b.jsonl",
           "extraction_s27.jsonl", "extraction_uf.jsonl")


def examples() -> tuple[list[str], list[str]]:
    """The extractor's training rows that are one report on earlier work with a status: (texts, outcomes)."""
    texts: list[str] = []
    labels: list[str] = []
    seen: set[str] = set()
    rows = [row for name in BATCHES if (training_dir() / "understand" / name).is_file()
            for row in read_jsonl(training_dir() / "understand" / name)]
    for row in rows:
        updates = [e for e in row.get("expect") or [] if e.get("type") == "TaskUpdate"]
        if row.get("speaker", "user") != "user" or len(updates) != 1 or updates[0].get("status") not in LABELS:
            continue
        if row["text"] in seen:
            continue
        seen.add(row["text"])
        texts.append(row["text"])
        labels.append(LABELS[updates[0]["status"]])
    return texts, labels


def cross_validate(x: np.ndarray, y: list[str], penalty: float, folds: int, embedder_id: str) -> list[str]:
    rng = np.random.default_rng(0)
    fold = np.empty(len(y), dtype=int)
    for label in OUTCOMES:  # stratified: each outcome spread over the folds
        idx = np.array([i for i, lab in enumerate(y) if lab == label])
        rng.shuffle(idx)
        fold[idx] = np.arange(len(idx)) % folds
    predicted = [""] * len(y)
    for f in range(folds):
        train = np.where(fold != f)[0]
        model = train_softmax(x[train], [y[i] for i in train], classes=OUTCOMES, embedder_id=embedder_id,
                              l2=penalty, spec=SPEC)
        for i, p in zip(np.where(fold == f)[0], model.proba(x[fold == f]), strict=True):
            predicted[i] = OUTCOMES[int(np.argmax(p))]
    return predicted


def report(y: list[str], predicted: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"accuracy": float(np.mean([a == b for a, b in zip(y, predicted, strict=True)]))}
    for label in OUTCOMES:
        tp = sum(a == b == label for a, b in zip(y, predicted, strict=True))
        said = sum(b == label for b in predicted)
        real = sum(a == label for a in y)
        out[label] = {"precision": round(tp / said, 3) if said else 0.0, "recall": round(tp / real, 3) if real else 0.0,
                      "n": real}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    texts, labels = examples()
    print(f"{len(texts)} rows: {dict(Counter(labels))}")
    embedder = default_embedder()
    x = featurize(embedder.embed(texts), texts, SPEC)
    best: tuple[float, float] | None = None
    for penalty in PENALTIES:
        scores = report(labels, cross_validate(x, labels, penalty, args.cv, embedder.model_id))
        print(f"penalty {penalty}: {scores}")
        if best is None or scores["accuracy"] > best[1]:
            best = (penalty, scores["accuracy"])
    assert best is not None
    model: SoftmaxModel = train_softmax(x, labels, classes=OUTCOMES, embedder_id=embedder.model_id, l2=best[0],
                                        spec=SPEC)
    model.save(args.out / MODEL_NAME)
    print(f"penalty {best[0]} (out-of-fold accuracy {best[1]:.3f}); saved {args.out / MODEL_NAME}.json/.npz")
    return 0


__all__ = ["BATCHES", "examples", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
