"""Train the write side's reading of talk between people (:mod:`mnemir.understand.talk`) on training files only.

    python -m mnemir.eval.learn_talk_turns [--out src/mnemir/understand/data/talk_turns.json]

The examples: every turn of the dialogue QA *train* conversations (two people talking, their own words with no
speaker's name, as the unlabelled mode says them) is talk between people; every utterance the user says in a collapse
*train* scenario and every user turn of the continuity *train* conversations (a user talking to the assistant) is
not. A text also written in a dev file of those suites is left out (the dev files measure the model), as are the
collapse noise memories (every split's stores hold them). Each text is embedded by the bundled embedder as
``remember`` embeds an utterance; a logistic regression (a two-class softmax, classes weighing alike, an L2 penalty)
is fitted on the vector, the cue groups and the hashed n-grams (:func:`mnemir.understand.decision_turns.features`).

Cross-validation runs over FOLDS folds of whole files (a conversation of dialogue QA, a scenario file of collapse,
a conversation file of continuity): the per-turn figures and, what recall acts on, the mean log-odds of each held-out
store (a dialogue QA conversation, a collapse scenario, a continuity conversation's user turns) are written into the
model file. The model is then fitted on every example. The dev and test files measure it (docs/EVALUATION.md); it
never learns from them and never reads the test files.
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from mnemir.embed import Embedder, default_embedder
from mnemir.eval import collapse, continuity, dialogue_qa, model_main
from mnemir.eval._embedcache import cached
from mnemir.eval.learn_query_kinds import _probabilities, fit
from mnemir.understand.decision_turns import DecisionTurns, features

NGRAM_DIMS = 2048
#: n-gram scale and penalty: chosen on train by cross-validation (docs/decisions/0103: 1.0 against 2.0 and the
#: vector alone, 1e-3 against 1e-2)
NGRAM_SCALE = 1.0
PENALTY = 1e-3
STEPS = 300
FOLDS = 5
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "understand" / "data" / "talk_turns.json"


def _dev_texts() -> frozenset[str]:
    said = {t for c in dialogue_qa.load("dev") for _, _, turns in c.sessions for _, _, t in turns}
    said |= {str(m["text"]) for s in collapse.load("dev") for m in s.memories}
    said |= {t.text for c in continuity.load("dev") for t in c.turns}
    return frozenset(said)


def examples(split: str = "train") -> tuple[list[str], list[int], list[str], list[str]]:
    """(texts, 1 for talk between people, the file each came from, the store each belongs to)."""
    leave_out = _dev_texts() | {str(m["text"]) for m in collapse.noise()}
    texts: list[str] = []
    labels: list[int] = []
    files: list[str] = []
    stores: list[str] = []

    def add(text: str, label: int, file: str, store: str) -> None:
        if text not in leave_out:
            texts.append(text)
            labels.append(label)
            files.append(file)
            stores.append(store)

    for conv in dialogue_qa.load(split):
        for _, _, turns in conv.sessions:
            for _, _, text in turns:
                add(text, 1, f"dialogue_qa:{conv.id}", f"dialogue_qa:{conv.id}")
    for scenario in collapse.load(split):
        for m in scenario.memories:
            if collapse._speaker(m) == "user":
                add(str(m["text"]), 0, f"collapse:{scenario.source}", f"collapse:{scenario.id}")
    for chat in continuity.load(split):
        for turn in chat.turns:
            if turn.speaker == "user":
                name = Path(chat.source).name
                add(turn.text, 0, f"continuity:{name}", f"continuity:{chat.id}")
    return texts, labels, files, stores


def _log_odds(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    out: np.ndarray = np.log(p / (1 - p))
    return out


def cross_validate(x: np.ndarray, y: np.ndarray, files: list[str], stores: list[str]) -> dict[str, Any]:
    """Out-of-fold figures over FOLDS folds of whole files: per turn, and each store's mean log-odds by suite."""
    fold = np.asarray([zlib.crc32(f.encode("utf-8")) % FOLDS for f in files])
    p = np.zeros(len(y))
    for f in range(FOLDS):
        held = fold == f
        w = fit(x[~held], y[~held], 2, PENALTY, steps=STEPS)
        p[held] = _probabilities(w, x[held])[:, 1]
    z = _log_odds(p)
    suite = np.asarray([s.split(":")[0] for s in stores])
    per_turn = {name: round(float(((p >= 0.5) == y)[suite == name].mean()), 4) for name in sorted(set(suite))}
    means: dict[str, list[float]] = defaultdict(list)
    by_store: dict[str, list[float]] = defaultdict(list)
    for store, value in zip(stores, z, strict=True):
        by_store[store].append(float(value))
    for store, values in by_store.items():
        means[store.split(":")[0]].append(float(np.mean(np.clip(values, -6, 6))))
    per_store = {name: {"stores": len(v), "min": round(min(v), 3), "median": round(float(np.median(v)), 3),
                        "max": round(max(v), 3)} for name, v in sorted(means.items())}
    row = {"turns_right_at_0.5": per_turn, "store_mean_log_odds": per_store}
    print(json.dumps(row), flush=True)
    return row


def train(embedder: Embedder | None = None) -> DecisionTurns:
    embedder = embedder or default_embedder()
    texts, labels, files, stores = examples("train")
    cache = cached(embedder)
    cache.prefetch(list(texts), [])
    vectors = np.asarray(cache.embed(texts), dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    x = features(vectors, texts, NGRAM_DIMS, NGRAM_SCALE)
    figures = cross_validate(x, y, files, stores)
    w = fit(x, y, 2, PENALTY, steps=STEPS)
    meta = {"trained_on": sorted(set(files)),
            "examples": len(texts), "positives": int(y.sum()), "penalty": PENALTY, "cross_validated": figures,
            "note": "dialogue QA train turns (talk between people) against the user's utterances of collapse and "
                    "continuity train; python -m mnemir.eval.learn_talk_turns"}
    return DecisionTurns(embedder.model_id, int(vectors.shape[1]), w[1] - w[0], 0.5, NGRAM_DIMS, NGRAM_SCALE, meta)


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train, lambda m: f"{m.meta['examples']} examples", argv)


if __name__ == "__main__":
    raise SystemExit(main())
