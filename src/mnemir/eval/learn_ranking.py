"""Train recall's learned ranker (:mod:`mnemir.retrieve.learned`) on the collapse benchmark's train split.

    python -m mnemir.eval.learn_ranking [--out src/mnemir/retrieve/data/learned_ranker.json]

Every query of the training files is recalled with the rules alone; the learned stage's candidates and their
features are recorded with their labels (relevant 1; forbidden and the rest 0, forbidden weighing more). A logistic
model with an L2 penalty is fitted by Newton's method. Its settings (penalty, forbidden weight, nudge weight) are
chosen by cross-validation over whole data files, so each file is judged by a model that never saw it; the chosen
settings are then fitted on every training file. The files, the settings and the cross-validated isolation@3 of the
rules and of the model side by side are written into the model file.

It reads the train split only (``benchmarks/collapse/splits.yaml``): the dev and test files measure the model
(docs/EVALUATION.md). The model file records the files it was fitted on.

The cross-validation judges each setting by a simulation of recall's nudge (:func:`top`): the rules' list, the
admitted part re-sorted by score + nudge. It leaves out recall's last touches (a task's finished steps below its open
ones, the present state above background preferences) and breaks ties by the rules' place rather than by recency, so
its numbers differ slightly from real recall's (``--check-simulation train`` counts the top-3 lists that differ: 12 of
269 in order, 2 in which memories); the figures reported for the shipped model come from real recall
(``mnemir eval collapse``).
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mnemir.embed import default_embedder
from mnemir.errors import ValidationError
from mnemir.eval import collapse
from mnemir.retrieve.learned import (
    FAMILIES,
    FAMILY_FEATURES,
    FAMILY_OF_TYPE,
    FEATURES,
    Item,
    LearnedRanker,
    RoleModel,
    default_ranker,
)
from mnemir.retrieve.recall import RecallConfig

#: settings whose cross-validated isolation@3 is this close to the best count as as good
NEAR_BEST = 0.0025
_RULE_SCORE = FEATURES.index("rule_score")
_WEAK = FEATURES.index("flag_weak")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "learned_ranker.json"
ROLES_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "role_model.json"



@dataclass
class Query:
    file: str
    rows: np.ndarray
    labels: np.ndarray  # 1 relevant, -1 forbidden, 0 neither
    rule_rank: np.ndarray  # 0 when the rules did not show it


@dataclass
class Dataset:
    queries: list[Query] = field(default_factory=list)

    def files(self) -> list[str]:
        return sorted({q.file for q in self.queries})


def training_scenarios() -> list[collapse.Scenario]:
    """The scenarios the trainer may read: the collapse train split, nothing else."""
    return collapse.load("train")


def collect(progress: bool = False) -> Dataset:
    """Recall every query of the train split with the rules alone and record the learned stage's candidates."""
    scenarios = training_scenarios()
    data = Dataset()
    for n, (scenario, mem, ids) in enumerate(collapse.built(scenarios, default_embedder()), start=1):
        data.queries += [_record(mem, scenario, query, ids) for query in scenario.queries]
        if progress and n % 50 == 0:
            print(f"  {n}/{len(scenarios)} scenarios", flush=True)
    return data


def _observe(mem: Any, scenario: collapse.Scenario, query: collapse.Query) -> tuple[Sequence[Item], np.ndarray]:
    """The learned stage's candidates and their features for ``query``, recalled with the rules alone."""
    seen: list[tuple[Sequence[Item], np.ndarray]] = []
    mem.recall_config = RecallConfig(learned=False, observer=lambda items, rows: seen.append((items, rows)))
    mem.recall(query.text, user=collapse.USER, k=5, now=scenario.now)
    return seen[-1] if seen else ((), np.zeros((0, len(FEATURES))))


def _record(mem: Any, scenario: collapse.Scenario, query: collapse.Query, ids: dict[str, str]) -> Query:
    items, rows = _observe(mem, scenario, query)
    relevant = {ids[key] for key in query.relevant}
    forbidden = {ids[key] for key in query.forbidden}
    labels = np.array([1 if it.scored.record.id in relevant else -1 if it.scored.record.id in forbidden else 0
                       for it in items], dtype=np.int8)
    ranks = np.array([it.rule_rank or 0 for it in items], dtype=np.int32)
    return Query(scenario.source, np.asarray(rows, dtype=np.float64), labels, ranks)


def save_data(data: Dataset, path: Path) -> None:
    arrays: dict[str, Any] = {"files": np.array([q.file for q in data.queries])}
    for name in ("rows", "labels", "rule_rank"):
        arrays[name] = np.concatenate([getattr(q, name) for q in data.queries]) if data.queries else np.zeros(0)
    arrays["sizes"] = np.array([len(q.labels) for q in data.queries])
    np.savez_compressed(path, **arrays)


def load_data(path: Path) -> Dataset:
    with np.load(path) as z:
        arrays = {name: z[name] for name in ("files", "sizes", "rows", "labels", "rule_rank")}
    bounds = np.concatenate([[0], np.cumsum(arrays["sizes"])])
    return Dataset([Query(str(f), arrays["rows"][a:b], arrays["labels"][a:b], arrays["rule_rank"][a:b])
                    for f, a, b in zip(arrays["files"], bounds[:-1], bounds[1:], strict=True)])


# -- fitting -------------------------------------------------------------------------------------------
def fit(queries: Sequence[Query], l2: float, forbidden_weight: float, weight: float = 0.1) -> LearnedRanker:
    X = np.vstack([q.rows for q in queries])
    labels = np.concatenate([q.labels for q in queries])
    y = (labels == 1).astype(np.float64)
    sample = np.where(labels == -1, forbidden_weight, 1.0)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    penalty = np.full(Z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not penalised
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(Z @ w)))
        grad = Z.T @ (sample * (p - y)) + penalty * w
        hess = (Z * (sample * p * (1 - p))[:, None]).T @ Z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return LearnedRanker(tuple(float(v) for v in w[:-1]), float(w[-1]), tuple(float(v) for v in mean),
                         tuple(float(v) for v in scale), weight)


def top(q: Query, ranker: LearnedRanker | None, k: int) -> list[int]:
    """The top k of what the rules show, in the rules' order (None) or with the admitted part (all but the weak
    fillers, which keep their place after it) re-sorted by score + nudge: a simulation of
    :func:`mnemir.retrieve.recall._learned_order` (see the module's note on how it differs)."""
    shown = [int(i) for i in np.where(q.rule_rank > 0)[0][np.argsort(q.rule_rank[q.rule_rank > 0], kind="stable")]]
    if ranker is None:
        return shown[:k]
    admitted = [i for i in shown if not q.rows[i, _WEAK]]
    weak = [i for i in shown if q.rows[i, _WEAK]]
    score = q.rows[admitted, _RULE_SCORE] + ranker.nudges(q.rows[admitted]) if admitted else np.zeros(0)
    order = sorted(range(len(admitted)), key=lambda j: (-round(float(score[j]), 4), q.rule_rank[admitted[j]]))
    return ([admitted[j] for j in order] + weak)[:k]


def judge(queries: Sequence[Query], ranker: LearnedRanker | None, k: int = 3) -> tuple[float, float]:
    """Isolation@k and collapse@k of the model (or, with None, of the rules) over ``queries``."""
    iso = col = 0
    for q in queries:
        labels = q.labels[top(q, ranker, k)]
        collapsed = bool((labels == -1).any())
        col += collapsed
        iso += bool((labels == 1).any()) and not collapsed
    return iso / max(len(queries), 1), col / max(len(queries), 1)


def cross_validate(data: Dataset, l2: float, forbidden_weight: float, weights: Sequence[float],
                   folds: int = 5) -> dict[float, tuple[float, float]]:
    """Per nudge weight, isolation@3 and collapse@3 over all files, each judged by a model trained without it."""
    files = data.files()
    totals = {w: [0.0, 0.0] for w in weights}
    for fold in range(folds):
        held = set(files[fold::folds])
        train = [q for q in data.queries if q.file not in held]
        test = [q for q in data.queries if q.file in held]
        model = fit(train, l2, forbidden_weight)
        for w in weights:
            iso, col = judge(test, model.with_weight(w))
            totals[w][0] += iso * len(test)
            totals[w][1] += col * len(test)
    n = len(data.queries)
    return {w: (iso / n, col / n) for w, (iso, col) in totals.items()}


def train(data: Dataset, l2_values: Sequence[float] = (10.0, 100.0, 1000.0),
          forbidden_weights: Sequence[float] = (3.0, 6.0), weights: Sequence[float] = (0.02, 0.05, 0.1, 0.2),
          folds: int = 5) -> tuple[LearnedRanker, dict[str, Any]]:
    """Choose the settings by cross-validation over files, then fit them on every file."""
    results = []
    for l2, fw in itertools.product(l2_values, forbidden_weights):
        for w, (iso, col) in cross_validate(data, l2, fw, weights, folds).items():
            results.append({"l2": l2, "forbidden_weight": fw, "weight": w, "isolation@3": round(iso, 4),
                            "collapse@3": round(col, 4)})
    # the most cautious setting within a few queries of the best: the smallest nudge, then the strongest penalty
    best_iso = max(r["isolation@3"] for r in results)
    near = [r for r in results if r["isolation@3"] >= best_iso - NEAR_BEST]
    best = min(near, key=lambda r: (r["weight"], -r["l2"], r["collapse@3"], -r["isolation@3"]))
    model = fit(data.queries, best["l2"], best["forbidden_weight"], best["weight"])
    rules_iso, rules_col = judge(data.queries, None)
    meta = {"chosen": best, "cross_validation": results, "folds": folds,
            "rules_on_training_files": {"isolation@3": round(rules_iso, 4), "collapse@3": round(rules_col, 4)},
            "queries": len(data.queries), "candidates": int(sum(len(q.labels) for q in data.queries))}
    return LearnedRanker(model.weights, model.bias, model.mean, model.scale, model.weight,
                         tuple(data.files()), meta), meta


def simulation_agreement(split: str = "train", ranker: LearnedRanker | None = None, k: int = 3) -> dict[str, int]:
    """How often :func:`top`'s simulation gives another top k than real recall with ``ranker`` (the shipped one by
    default): in order, and in which memories."""
    ranker = ranker or default_ranker()
    if ranker is None:
        raise ValidationError("no learned ranker to check", field="ranker", value=None, allowed="a LearnedRanker")
    counts = {"queries": 0, "other_order": 0, "other_memories": 0}
    for scenario, mem, _ in collapse.built(collapse.load(split), default_embedder()):
        for query in scenario.queries:
            items, rows = _observe(mem, scenario, query)
            simulated = [items[i].scored.record.id for i in top(Query("", rows, np.zeros(len(items), dtype=np.int8),
                                                                       np.array([it.rule_rank or 0 for it in items])),
                                                                 ranker, k)]
            mem.recall_config = RecallConfig(ranker=ranker)
            real = [h.id for h in mem.recall(query.text, user=collapse.USER, k=k, now=scenario.now).hits]
            counts["queries"] += 1
            counts["other_order"] += simulated != real
            counts["other_memories"] += set(simulated) != set(real)
    return counts


# -- the role model: which family of memories answers the query ----------------------------------------------
@dataclass
class RoleData:
    files: list[str] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    #: per query, 1 for the family that answers it (its first relevant memory's), else 0
    answers: list[np.ndarray] = field(default_factory=list)


def answering_family(types: Sequence[str]) -> np.ndarray:
    """1 for the family of the first of ``types`` (the query's relevant memories' types), 0 elsewhere (all 0 when it
    belongs to none). One family, not every family whose types hold it: a Fact is ranked as intended by a preference
    question too, but labelling every fact question a preference one teaches the model nothing about facts."""
    family = FAMILY_OF_TYPE.get(types[0]) if types else None
    return np.array([float(f == family) for f in FAMILIES])


def collect_roles(progress: bool = False) -> RoleData:
    """Recall every query of the train split with the hand rules settling the intent; record the role model's
    features and which family answers the query (its first relevant memory's)."""
    data = RoleData()
    scenarios = training_scenarios()
    for n, (scenario, mem, _) in enumerate(collapse.built(scenarios, default_embedder()), start=1):
        types = {m["key"]: m["type"] for m in scenario.memories}
        for query in scenario.queries:
            answers = answering_family([types.get(key, "") for key in query.relevant])
            if not answers.any():
                continue
            seen: list[np.ndarray] = []
            mem.recall_config = RecallConfig(learned_roles=False, role_observer=seen.append)
            mem.recall(query.text, user=collapse.USER, k=5, now=scenario.now)
            data.files.append(scenario.source)
            data.rows.append(seen[-1])
            data.answers.append(answers)
        if progress and n % 50 == 0:
            print(f"  {n}/{len(scenarios)} scenarios", flush=True)
    return data


def fit_roles(X: np.ndarray, answers: np.ndarray, l2: float, steps: int = 60) -> RoleModel:
    """A softmax over the families with an L2 penalty on the weights, maximising the probability of the families
    that answer each query (``answers``: one row of 0/1 per query; a single family per query is plain softmax
    regression). Each step: the answering families' share of the current probabilities is the target (EM), then a
    Newton step towards it."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    d = Z.shape[1]
    c = len(FAMILIES)
    M = np.asarray(answers, dtype=np.float64)
    W = np.zeros((d, c))
    penalty = np.full(d, l2)
    penalty[-1] = 0.0
    for _ in range(steps):
        logits = Z @ W
        P = np.exp(logits - logits.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        Y = M * P
        Y /= np.maximum(Y.sum(axis=1, keepdims=True), 1e-12)
        grad = (Z.T @ (P - Y) + penalty[:, None] * W).reshape(-1, order="F")
        H = np.zeros((d * c, d * c))
        for a in range(c):
            for b in range(c):
                w = P[:, a] * ((a == b) - P[:, b])
                H[a * d:(a + 1) * d, b * d:(b + 1) * d] = (Z * w[:, None]).T @ Z
        H += np.diag(np.tile(penalty, c) + 1e-6)
        step = np.linalg.solve(H, grad).reshape((d, c), order="F")
        W -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return RoleModel(tuple(tuple(float(v) for v in r) for r in W[:-1]), tuple(float(v) for v in W[-1]),
                     tuple(float(v) for v in mean), tuple(float(v) for v in scale))


def train_roles(data: RoleData, l2_values: Sequence[float] = (1.0, 10.0, 100.0), folds: int = 5
                ) -> tuple[RoleModel, dict[str, Any]]:
    """Choose the penalty by cross-validation over whole files (log of the answering families' probability), then
    fit it on every file."""
    X, M = np.vstack(data.rows), np.vstack(data.answers)
    files = sorted(set(data.files))
    fold_of = np.array([files.index(f) % folds for f in data.files])
    intent_family = np.array([_intent_family(r) for r in data.rows])
    results = []
    for l2 in l2_values:
        loss = hits = 0.0
        for fold in range(folds):
            model = fit_roles(X[fold_of != fold], M[fold_of != fold], l2)
            for row, answers in zip(X[fold_of == fold], M[fold_of == fold], strict=True):
                p = model.probabilities(row)
                loss -= np.log(max(sum(p[f] for f, a in zip(FAMILIES, answers, strict=True) if a), 1e-12))
                hits += bool(answers[FAMILIES.index(max(FAMILIES, key=lambda f: p[f]))])
        results.append({"l2": l2, "log_loss": round(loss / len(M), 4), "accuracy": round(hits / len(M), 4)})
    best = min(results, key=lambda r: r["log_loss"])
    model = fit_roles(X, M, best["l2"])
    meta = {"chosen": best, "cross_validation": results, "folds": folds, "queries": len(M),
            "intent_family_accuracy": round(float(np.mean([i >= 0 and a[i] for i, a in zip(intent_family, M,
                                                                                            strict=True)])), 4),
            "answered_by": {f: int(M[:, i].sum()) for i, f in enumerate(FAMILIES)}}
    return RoleModel(model.weights, model.bias, model.mean, model.scale, tuple(files), meta), meta


def _intent_family(row: np.ndarray) -> int:
    """The family of the intent model's own first kind (-1 for "general"): the baseline the role model must beat."""
    kinds = [name[2:] for name in FAMILY_FEATURES if name.startswith("p_")]
    kind = kinds[int(np.argmax(row[: len(kinds)]))]
    family = {"fact_lookup": "fact", "preference": "preference", "emotion": "emotion", "frame": "frame",
              "open_tasks": "task", "task_status": "task", "plan": "task"}.get(kind)
    return FAMILIES.index(family) if family else -1


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data", type=Path, help="keep the collected candidates here (read them back if present)")
    parser.add_argument("--check-simulation", metavar="SPLIT",
                        help="only count how often the cross-validation's simulation differs from real recall")
    parser.add_argument("--roles", action="store_true", help="train the role model (retrieve/data/role_model.json)")
    args = parser.parse_args(argv)
    if args.roles:
        if args.data is not None and args.data.is_file():
            with np.load(args.data) as z:
                role_data = RoleData([str(f) for f in z["files"]], list(z["rows"]), list(z["answers"]))
        else:
            role_data = collect_roles(progress=True)
            if args.data is not None:
                np.savez_compressed(args.data, files=np.array(role_data.files), rows=np.vstack(role_data.rows),
                                    answers=np.vstack(role_data.answers))
        role_model, role_meta = train_roles(role_data)
        out = ROLES_OUT if args.out == DEFAULT_OUT else args.out
        out.write_text(json.dumps(role_model.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: v for k, v in role_meta.items() if k != "cross_validation"} | {
            "cross_validation": role_meta["cross_validation"]}, indent=1))
        return
    if args.check_simulation:
        print(json.dumps(simulation_agreement(args.check_simulation)))
        return
    if args.data is not None and args.data.is_file():
        data = load_data(args.data)
    else:
        data = collect(progress=True)
        if args.data is not None:
            save_data(data, args.data)
    model, meta = train(data)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"chosen": meta["chosen"], "rules": meta["rules_on_training_files"],
                      "queries": meta["queries"]}, indent=1))


if __name__ == "__main__":
    main()
