"""Train recall's reading of a question that asks what was decided (:mod:`mnemir.retrieve.decision_questions`) on
training files only.

    python -m mnemir.eval.learn_decision_questions [--out src/mnemir/retrieve/data/decision_questions.json]

The examples are the checkpoint questions of the continuity train conversations (``benchmarks/continuity/train``): a
``decision`` checkpoint's question asks about a choice, every other checkpoint's does not. Each question is embedded
as recall embeds a query; a logistic regression (the write side's decision-turn model class: the vector, the cue
groups and the hashed n-grams, :func:`mnemir.understand.decision_turns.features`) is fitted on them with the
decision-turn learner's settings and selection (:func:`mnemir.eval.learn_decision_turns.fit_model`): the n-gram scale
and the threshold are chosen by cross-validation over whole files (best F1), then the model is fitted on every
training file. The dev and test files measure it (docs/EVALUATION.md); it never reads them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemir.embed import Embedder, default_embedder
from mnemir.eval import continuity, model_main
from mnemir.eval._embedcache import cached
from mnemir.eval.learn_decision_turns import fit_model
from mnemir.understand.decision_turns import DecisionTurns

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


def train(embedder: Embedder | None = None) -> DecisionTurns:
    embedder = embedder or default_embedder()
    texts, labels, files = examples("train")
    cache = cached(embedder)
    cache.prefetch([], list(texts))
    vectors = np.asarray([cache.embed_query(t) for t in texts], dtype=np.float64)  # questions: embedded as queries
    return fit_model(embedder.model_id, vectors, texts, labels, files,
                     "checkpoint questions of the continuity train conversations, a decision checkpoint's positive; "
                     "python -m mnemir.eval.learn_decision_questions")


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"threshold {m.threshold}, n-gram scale {m.ngram_scale}",
                      argv)


if __name__ == "__main__":
    raise SystemExit(main())
