"""Train recall's reading of what a query asks for (:mod:`mnemir.retrieve.query_kinds`) on training files only.

    python -m mnemir.eval.learn_query_kinds [--out src/mnemir/retrieve/data/query_kinds.json]

The examples are the checkpoints of the continuity train conversations (``benchmarks/continuity/train``): each
question with its kind (decision, next_step, open_tasks, task_status, ...), and questions that ask for none of those
kinds, labelled ``lookup`` (docs/decisions/0072): the intent model's training queries of the kinds no continuity
kind is (its training files in ``training/understand``: a fact looked up, a feeling, the setting, world knowledge),
the collapse train queries whose relevant memories are all facts, feelings, frames or guesses (none a decision),
and the rows of ``training/query_kinds/*.jsonl`` (``{"query", "kind"}``, written for this model; none yet).

Each question is embedded by the bundled embedder, as recall embeds a query; a softmax over the kinds with an L2
penalty is fitted on the vectors, each kind weighing alike (the kinds are unevenly represented). The penalty, and
the probability from which recall counts a kind as asked, are chosen by cross-validation, so each example is judged
by a model that never saw its file: each continuity file is held out in turn, the other examples in five folds by
file. The penalty with the best mean F1 over the kinds recall acts on wins, and for each such kind the threshold with
the best F1 on the held-out checkpoints (chosen on every held-out question, plain lookups included, they rose to
0.45-0.55 and cost a fifth of the checkpoints' F1: decision 0072); how often a held-out plain lookup is read as each
kind is recorded beside it. The model is then fitted on every example.

A training question also asked in a dev split (short generic questions recur word for word) is left out: the
continuity, collapse (and its rewordings) and intent dev questions are read only for that. The files, the settings
and the cross-validated figures are written into the model file. The dev and test files measure the model
(docs/EVALUATION.md); it never learns from them and never reads the test files.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir._paths import repo_root
from mnemir.embed import Embedder, default_embedder
from mnemir.eval import collapse, continuity, model_main, paraphrase
from mnemir.eval import extraction as corpus
from mnemir.eval._embedcache import cached
from mnemir.retrieve.query_kinds import DECISION, LOOKUP, NEXT_STEP, OPEN_TASKS, TASK_STATUS, QueryKinds
from mnemir.understand.train import training_rows

#: the kinds recall acts on (their thresholds are chosen; the other kinds only share the probability)
ACTED_ON = (NEXT_STEP, DECISION, OPEN_TASKS, TASK_STATUS)
#: the L2 penalties tried (1e-4, 3e-4 and 1e-3 on the checkpoints alone chose 3e-4: decision 0055; with the lookups
#: only 3e-4 was cross-validated, for time: decision 0072)
PENALTIES = (3e-4,)
THRESHOLDS = tuple(round(0.1 + 0.05 * i, 2) for i in range(15))  # 0.10 .. 0.80
STEPS = 1000
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "query_kinds.json"
#: the intent model's query kinds that are no continuity kind: a plain lookup for this model
LOOKUP_INTENTS = frozenset({"fact_lookup", "general", "emotion", "frame"})
#: the collapse memory types whose questions ask for no kind of this model (a fact, a feeling, the setting, a guess)
LOOKUP_TYPES = frozenset({"Fact", "EmotionalState", "ContextualFrame", "Hypothesis"})
#: the folds of the examples that are not continuity checkpoints
OTHER_FOLDS = 5


def training_dir() -> Path:
    return repo_root() / "training"


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


def lookups(leave_out: frozenset[str] = frozenset()) -> tuple[list[str], list[str], list[str]]:
    """(questions, their kinds, the file each came from) of the training queries beyond the continuity checkpoints:
    plain lookups (``LOOKUP``) from the intent model's training rows and the collapse train queries, and the rows of
    ``training/query_kinds/*.jsonl`` (any kind of this model). Each question once, none in ``leave_out``."""
    questions: list[str] = []
    kinds: list[str] = []
    files: list[str] = []

    def add(question: str, kind: str, source: str) -> None:
        if question not in leave_out and question not in seen:
            seen.add(question)
            questions.append(question)
            kinds.append(kind)
            files.append(source)

    seen: set[str] = set()
    for row in training_rows("intent"):
        if row["kind"] in LOOKUP_INTENTS:
            add(row["query"], LOOKUP, str(row["batch"]))
    for scenario in collapse.load("train"):
        memories = {m["key"]: m for m in scenario.memories}
        for query in scenario.queries:
            wanted = [memories[key] for key in query.relevant]
            if all(m["type"] in LOOKUP_TYPES and "decision" not in (m.get("props") or {}) for m in wanted):
                add(query.text, LOOKUP, scenario.source)
    for path in sorted((training_dir() / "query_kinds").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                add(row["query"], row["kind"], path.name)
    return questions, kinds, files


def evaluated_dev() -> frozenset[str]:
    """The questions the dev splits ask (continuity, collapse and its rewordings, intent): never training examples."""
    asked = set(examples("dev")[0])
    asked |= {q.text for scenario in collapse.load("dev") for q in scenario.queries}
    asked |= {q for qs in paraphrase.load("dev").values() for q in qs}
    asked |= {row["query"] for row in corpus.load_split("dev", "intent")}
    return frozenset(asked)


def embed_queries(embedder: Embedder, questions: Sequence[str]) -> npt.NDArray[np.float64]:
    cache = cached(embedder)
    cache.prefetch(queries=list(questions))
    return np.vstack([cache.embed_query(q) for q in questions]).astype(np.float64)


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], n_kinds: int, penalty: float,
        steps: int = STEPS, sample_weight: npt.NDArray[np.float64] | None = None) -> npt.NDArray[np.float64]:
    """Weights (n_kinds, dim + 1) of a softmax fitted by Adam on the balanced cross-entropy plus ``penalty`` times
    the squared weights (the bias unpenalised). Deterministic: zero start, full batches. ``sample_weight``: each
    row's weight before the classes are balanced (counted as weighted rows); None: 1 each."""
    n, dim = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    target = np.eye(n_kinds)[y]
    rows = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.bincount(y, weights=rows, minlength=n_kinds).astype(np.float64)
    weight = rows / np.maximum(counts[y], 1e-9)
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


def out_of_fold(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str], penalty: float,
                steps: int) -> npt.NDArray[np.float64]:
    """P(class 1) of each row of a two-class model fitted without the rows of its own file (one fold per file)."""
    out = np.zeros(len(y))
    names = np.asarray(files)
    for name in sorted(set(files)):
        held = names == name
        w = fit(x[~held], y[~held], 2, penalty, steps=steps)
        out[held] = _probabilities(w, x[held])[:, 1]
    return out


def _f1(asked: npt.NDArray[np.bool_], truth: npt.NDArray[np.bool_]) -> tuple[float, float, float]:
    tp = float((asked & truth).sum())
    precision = tp / max(float(asked.sum()), 1.0)
    recall = tp / max(float(truth.sum()), 1.0)
    return (2 * precision * recall / (precision + recall) if tp else 0.0), precision, recall


def folds(files: Sequence[str], checkpoint_files: frozenset[str]) -> list[str]:
    """Each example's cross-validation fold: its continuity file, or one of ``OTHER_FOLDS`` folds by its file."""
    return [name if name in checkpoint_files else f"other-{zlib.crc32(name.encode()) % OTHER_FOLDS}" for name in files]


def cross_validate(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str], kinds: Sequence[str],
                   penalty: float) -> npt.NDArray[np.float64]:
    """Out-of-fold probabilities, one fold per entry of ``files`` (see :func:`folds`)."""
    out = np.zeros((len(y), len(kinds)))
    names = np.asarray(files)
    for name in sorted(set(files)):
        held = names == name
        w = fit(x[~held], y[~held], len(kinds), penalty)
        out[held] = _probabilities(w, x[held])
    return out


def choose(x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], files: Sequence[str],
           kinds: Sequence[str], checkpoints: npt.NDArray[np.bool_] | None = None) -> dict[str, Any]:
    """The penalty and thresholds cross-validation prefers, with its figures. ``checkpoints``: which examples are
    continuity checkpoints (accuracy, F1 and the thresholds are read on those; how often a plain lookup is read as
    each kind is reported beside them)."""
    truth = np.asarray(kinds)[y]
    cp = np.ones(len(y), dtype=bool) if checkpoints is None else checkpoints
    best: dict[str, Any] | None = None
    tried = []
    for penalty in PENALTIES:
        p = cross_validate(x, y, files, kinds, penalty)
        accuracy = float((p[cp].argmax(axis=1) == y[cp]).mean())
        per_kind = {}
        for kind in ACTED_ON:
            col = p[:, list(kinds).index(kind)]
            scored = [(_f1(col[cp] >= th, truth[cp] == kind), th) for th in THRESHOLDS]
            (f1, precision, recall), th = max(scored, key=lambda s: (s[0][0], -abs(s[1] - 0.5)))
            per_kind[kind] = {"threshold": th, "f1": round(f1, 4), "precision": round(precision, 4),
                              "recall": round(recall, 4)}
            if LOOKUP in kinds:  # how often a plain lookup is read as this kind
                plain = truth == LOOKUP
                per_kind[kind]["lookups_read_as"] = round(float((col[plain] >= th).mean()), 4)
        mean = sum(v["f1"] for v in per_kind.values()) / len(per_kind)
        row = {"penalty": penalty, "accuracy": round(accuracy, 4), "mean_f1": round(mean, 4), "kinds": per_kind}
        if LOOKUP in kinds:
            plain = truth == LOOKUP
            col = p[:, list(kinds).index(LOOKUP)]
            row["lookup"] = {"read_as_lookup": round(float((p[plain].argmax(axis=1) == y[plain]).mean()), 4),
                             "p_on_lookups": round(float(col[plain].mean()), 4),
                             "p_on_checkpoints": round(float(col[cp & ~plain].mean()), 4)}
        tried.append(row)
        print(json.dumps(row))
        if best is None or mean > best["mean_f1"]:
            best = row
    assert best is not None
    return {**best, "tried": tried}


def train(embedder: Embedder | None = None) -> QueryKinds:
    embedder = embedder or default_embedder()
    # a question a dev split asks (a short generic one may recur word for word) is left out: the dev splits measure
    # the model
    dev = evaluated_dev()
    questions, labels, files = examples("train", leave_out=frozenset(examples("dev")[0]))
    checkpoint_files = frozenset(files)
    more = lookups(leave_out=dev | frozenset(questions))
    questions, labels, files = questions + more[0], labels + more[1], files + more[2]
    kinds = sorted(set(labels))
    y = np.asarray([kinds.index(k) for k in labels], dtype=np.int64)
    x = embed_queries(embedder, questions)
    checkpoints = np.asarray([f in checkpoint_files for f in files])
    chosen = choose(x, y, folds(files, checkpoint_files), kinds, checkpoints)
    w = fit(x, y, len(kinds), chosen["penalty"])
    thresholds = {k: chosen["kinds"][k]["threshold"] for k in ACTED_ON}
    meta = {"trained_on": sorted(set(files)), "examples": len(questions),
            "checkpoints": int(checkpoints.sum()), "penalty": chosen["penalty"],
            "left_out": "questions also asked in the dev splits",
            "cross_validated": {k: v for k, v in chosen.items() if k != "penalty"},
            "note": "a softmax over the continuity train checkpoint kinds and lookup (none of them) on the query "
                    "vector; python -m mnemir.eval.learn_query_kinds"}
    return QueryKinds(embedder.model_id, tuple(kinds), w, thresholds, meta)


def main(argv: list[str] | None = None) -> int:
    return model_main(__doc__, DEFAULT_OUT, train,
                      lambda m: f"thresholds {m.thresholds}, penalty {m.meta['penalty']}", argv)


if __name__ == "__main__":
    raise SystemExit(main())
