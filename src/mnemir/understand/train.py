"""Train the shipped understanding models from the training split only.

    python -m mnemir.understand.train            # writes data/extractor.{npz,json} and data/intent.{npz,json}
    python -m mnemir.understand.train --cv 5     # also prints k-fold accuracy on the training split

The held-out, fresh and dev files (``*_heldout.jsonl``, ``*_fresh.jsonl``, ``*_dev.jsonl``) are never read here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from mnemir.embed import default_embedder
from mnemir.embed.base import Embedder
from mnemir.understand.extract import EXTRACTION_LABELS
from mnemir.understand.intent import INTENT_KINDS
from mnemir.understand.model import DATA_DIR, SoftmaxModel, featurize, train_softmax
from mnemir.understand.segment import split_pieces

DATA = DATA_DIR
TRAIN_FILES = {"extractor": "extraction_train.jsonl", "intent": "intent_train.jsonl"}
#: (cue_scale, l2) per model, chosen on the training split only: fit on the template rows, score on the
#: handwritten "extra" rows of the same split (see data/README.md); for intent also calibration, since an
#: intent below p=0.5 is widened. Intent l2 1e-3 -> 3e-4 after the third handwritten batch (5-fold CV on train
#: 0.938 -> 0.945; with 1e-3 the larger, more varied split left plain queries under the p=0.5 "unsure" line).
#: Rechecked after the fourth handwritten batch (777 natural queries): 5-fold CV on train favours cue_scale 0.15
#: (0.937 vs 0.927), the dev split 0.3 (intent dev 1.000/0.975 vs 0.950/0.975, collapse dev equal within a query,
#: more queries above the "unsure" line); kept at 0.3.
HYPER = {"extractor": (0.15, 1e-4), "intent": (0.3, 3e-4)}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def extraction_examples(rows: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(texts, labels) at the level the extractor classifies: pieces of utterances."""
    texts, labels = [], []
    for row in rows:
        types = [e["type"] for e in row["expect"]]
        if not types:
            texts.append(row["text"])
            labels.append("NONE")
        elif "Plan" in types:
            texts.append(row["text"])
            labels.append("Plan")
        elif len(types) == 1:
            texts.append(row["text"])
            labels.append(types[0])
        else:
            pieces = [p.text for p in split_pieces(row["text"])]
            if len(pieces) == len(types):
                texts.extend(pieces)
                labels.extend(types)
    return texts, labels


def intent_examples(rows: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    return [r["query"] for r in rows], [r["kind"] for r in rows]


def fit(texts: list[str], labels: list[str], classes: tuple[str, ...], embedder: Embedder, *,
        cue_scale: float, l2: float) -> SoftmaxModel:
    features = featurize(embedder.embed(texts), texts, cue_scale)
    return train_softmax(features, labels, classes=classes, embedder_id=embedder.model_id, l2=l2, cue_scale=cue_scale)


def cross_validate(texts: list[str], labels: list[str], classes: tuple[str, ...], embedder: Embedder,
                   folds: int, *, cue_scale: float, l2: float) -> float:
    features = featurize(embedder.embed(texts), texts, cue_scale)
    order = np.random.default_rng(1).permutation(len(texts))
    correct = 0
    for k in range(folds):
        test = set(order[k::folds].tolist())
        train_idx = [i for i in range(len(texts)) if i not in test]
        model = train_softmax(features[train_idx], [labels[i] for i in train_idx], classes=classes,
                              embedder_id=embedder.model_id, l2=l2, cue_scale=cue_scale)
        test_idx = sorted(test)
        predicted = model.proba(features[test_idx]).argmax(axis=1)
        correct += sum(classes[p] == labels[i] for p, i in zip(predicted, test_idx, strict=True))
    return correct / len(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DATA, help="where to write the weights")
    parser.add_argument("--cv", type=int, default=0, help="k-fold cross-validation on the training split")
    args = parser.parse_args(argv)
    embedder = default_embedder()
    jobs = {
        "extractor": (extraction_examples(read_jsonl(DATA / TRAIN_FILES["extractor"])), EXTRACTION_LABELS),
        "intent": (intent_examples(read_jsonl(DATA / TRAIN_FILES["intent"])), INTENT_KINDS),
    }
    for name, ((texts, labels), classes) in jobs.items():
        cue_scale, l2 = HYPER[name]
        if args.cv:
            accuracy = cross_validate(texts, labels, classes, embedder, args.cv, cue_scale=cue_scale, l2=l2)
            print(f"{name}: {args.cv}-fold accuracy on train = {accuracy:.3f}")
        model = fit(texts, labels, classes, embedder, cue_scale=cue_scale, l2=l2)
        model.save(args.out / name)
        print(f"{name}: trained on {len(texts)} examples, {len(classes)} classes -> {args.out / name}.npz")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
