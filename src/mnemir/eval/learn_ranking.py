"""Train recall's learned ranker and role model (:mod:`mnemir.retrieve.learned`) on training files only.

    python -m mnemir.eval.learn_ranking [--out src/mnemir/retrieve/data/learned_ranker.json]
    python -m mnemir.eval.learn_ranking --roles [--data roles.npz] [--collapse-only] [--remembered]

The role model (``--roles``) learns from the collapse train split (memories typed by hand) and from the continuity
train conversations (every turn read through ``remember``, each checkpoint's answer read from the store it built:
:func:`conversation_answers`); with ``--remembered`` also from the collapse train scenarios built through
``remember`` (:func:`remembered_answers`; written to ``role_model_e2e.json``). The sources' weights and the penalty
are chosen by cross-validation over whole files. The learned ranker (below) reads the collapse train split.

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
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemir.embed import Embedder, default_embedder
from mnemir.errors import MnemirError, ValidationError
from mnemir.eval import collapse, continuity
from mnemir.eval._embedcache import cached
from mnemir.retrieve.learned import (
    FAMILY_FEATURES,
    FAMILY_OF_TYPE,
    FEATURES,
    OUTCOMES,
    SAID,
    TYPES,
    Item,
    LearnedRanker,
    RoleModel,
    default_ranker,
)
from mnemir.retrieve.recall import RecallConfig
from mnemir.store.base import Selection

#: settings whose cross-validated isolation@3 is this close to the best count as as good
NEAR_BEST = 0.0025
_RULE_SCORE = FEATURES.index("rule_score")
_WEAK = FEATURES.index("flag_weak")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "learned_ranker.json"
ROLES_OUT = Path(__file__).resolve().parents[1] / "retrieve" / "data" / "role_model.json"
ROLES_E2E_OUT = ROLES_OUT.with_name("role_model_e2e.json")



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


def _embedder(scenarios: Sequence[collapse.Scenario]) -> Embedder:
    """The default model behind a cache (:mod:`mnemir.eval._embedcache`, as the benchmark runs use): every scenario
    store holds the same noise memories, embedded once; the scenarios' texts and queries are embedded in batches."""
    embedder = cached(default_embedder())
    embedder.prefetch([str(m["text"]) for m in collapse.noise()] + [str(m["text"]) for s in scenarios
                                                                    for m in s.memories],
                      [q.text for s in scenarios for q in s.queries])
    return embedder


def collect(progress: bool = False) -> Dataset:
    """Recall every query of the train split with the rules alone and record the learned stage's candidates."""
    scenarios = training_scenarios()
    data = Dataset()
    for n, (scenario, mem, ids) in enumerate(collapse.built(scenarios, _embedder(scenarios)), start=1):
        data.queries += [_record(mem, scenario, query, ids) for query in scenario.queries]
        if progress and n % 50 == 0:
            print(f"  {n}/{len(scenarios)} scenarios", flush=True)
    return data


def collect_remembered(progress: bool = False) -> Dataset:
    """The same train scenarios, each built through ``remember`` (:func:`mnemir.eval.collapse.build_remembered`):
    every query recalled with the rules alone on the store what was said made, the learned stage's candidates labelled
    by the scenario keys each record stands for (a record standing for a forbidden memory is forbidden, else one
    standing for a relevant memory is relevant). A store built this way holds what a typed store never does: the
    utterances kept verbatim (episodes), an utterance read as two memories, properties extraction left out. Queries
    whose pass needs a status no utterance gives (:func:`mnemir.eval.collapse.closed_unsaid`) are left out: their
    labels say what no store built from the utterances can know. Each query keeps its file's name, so the
    cross-validation holds a file's typed and remembered queries out together."""
    scenarios = training_scenarios()
    embedder = _embedder(scenarios)
    extra = collapse.noise()
    data = Dataset()
    with tempfile.TemporaryDirectory(prefix="mnemir-learn-remembered-") as tmp:
        for n, scenario in enumerate(scenarios, start=1):
            mem, covers = collapse.build_remembered(scenario, Path(tmp) / scenario.id, embedder, extra)
            try:
                unsaid = collapse.closed_unsaid(scenario, mem, covers)
                for query in scenario.queries:
                    if unsaid & {*query.relevant, *query.forbidden}:
                        continue
                    data.queries.append(_record_covered(mem, scenario, query, covers))
            finally:
                mem.close()
            if progress and n % 50 == 0:
                print(f"  remembered {n}/{len(scenarios)} scenarios", flush=True)
    return data


def _record_covered(mem: Any, scenario: collapse.Scenario, query: collapse.Query,
                    covers: Mapping[str, frozenset[str]]) -> Query:
    items, rows = _observe(mem, scenario, query)
    relevant, forbidden = set(query.relevant), set(query.forbidden)
    labels = []
    for it in items:
        keys = covers.get(it.scored.record.id, frozenset())
        labels.append(-1 if keys & forbidden else 1 if keys & relevant else 0)
    ranks = np.array([it.rule_rank or 0 for it in items], dtype=np.int32)
    return Query(scenario.source, np.asarray(rows, dtype=np.float64), np.array(labels, dtype=np.int8), ranks)


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
class _Hessian:
    """The logistic Hessian of the standardised rows (plus a bias column) for per-row weights ``v``, computed from the
    raw rows a group at a time: the rows of one memory type leave most columns zero (the words and kinds read against
    the other types), so each group's product runs over the columns it uses only; the standardising is applied after.
    The same numbers as the dense product, several times faster."""

    def __init__(self, X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> None:
        types = X[:, [FEATURES.index(f"type_{t}") for t in (*TYPES, "other")]]
        group = np.where(types.any(axis=1), types.argmax(axis=1), -1)
        self.parts = []
        for g in np.unique(group):
            rows = np.where(group == g)[0]
            cols = np.where((X[rows] != 0).any(axis=0))[0]
            self.parts.append((rows, cols, np.ascontiguousarray(X[np.ix_(rows, cols)])))
        self.X, self.mean, self.scale = X, mean, scale

    def __call__(self, v: np.ndarray) -> np.ndarray:
        d = self.X.shape[1]
        G = np.zeros((d, d))
        for rows, cols, part in self.parts:
            G[np.ix_(cols, cols)] += part.T @ (part * v[rows, None])
        a, c, m = self.X.T @ v, float(v.sum()), self.mean
        H = np.empty((d + 1, d + 1))
        H[:d, :d] = (G - np.outer(a, m) - np.outer(m, a) + c * np.outer(m, m)) / np.outer(self.scale, self.scale)
        H[:d, d] = H[d, :d] = (a - c * m) / self.scale
        H[d, d] = c
        return H


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
    hessian = _Hessian(X, mean, scale)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(Z @ w)))
        grad = Z.T @ (sample * (p - y)) + penalty * w
        hess = hessian(sample * p * (1 - p)) + np.diag(penalty + 1e-9)
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
#: the two sources of the role model's training examples: the collapse train split (memories typed by hand) and the
#: continuity train conversations (every turn through ``remember``: what a natural dialogue leaves to recall)
#: and the collapse train scenarios built through ``remember`` (what a user's own store holds: decision 0128)
DOMAINS = ("collapse", "continuity", "remembered")


@dataclass
class RoleData:
    files: list[str] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    #: per query, 1 for each outcome (:data:`OUTCOMES`) that answers it, else 0
    answers: list[np.ndarray] = field(default_factory=list)
    #: per query, which of :data:`DOMAINS` it comes from
    domains: list[str] = field(default_factory=list)

    def extend(self, other: RoleData) -> None:
        self.files += other.files
        self.rows += other.rows
        self.answers += other.answers
        self.domains += other.domains

    def save(self, path: Path) -> None:
        np.savez_compressed(path, files=np.array(self.files), rows=np.vstack(self.rows),
                            answers=np.vstack(self.answers), domains=np.array(self.domains))

    @classmethod
    def load(cls, path: Path) -> RoleData:
        with np.load(path) as z:
            if z["rows"].shape[1:] != (len(FAMILY_FEATURES),) or z["answers"].shape[1:] != (len(OUTCOMES),):
                raise ValidationError("role training data of another version", field="data", value=str(path),
                                      allowed=f"{len(FAMILY_FEATURES)} features, {len(OUTCOMES)} outcomes")
            return cls([str(f) for f in z["files"]], list(z["rows"]), list(z["answers"]),
                       [str(d) for d in z["domains"]])


def answering_family(types: Sequence[str]) -> np.ndarray:
    """1 for the family of the first of ``types`` (the query's relevant memories' types), 0 elsewhere (all 0 when it
    belongs to none). One family, not every family whose types hold it: a Fact is ranked as intended by a preference
    question too, but labelling every fact question a preference one teaches the model nothing about facts."""
    family = FAMILY_OF_TYPE.get(types[0]) if types else None
    return np.array([float(f == family) for f in OUTCOMES])


def collect_roles(progress: bool = False) -> RoleData:
    """Recall every query of the collapse train split with the hand rules settling the intent; record the role
    model's features and which family answers the query (its first relevant memory's)."""
    data = RoleData()
    scenarios = training_scenarios()
    for n, (scenario, mem, _) in enumerate(collapse.built(scenarios, _embedder(scenarios)), start=1):
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
            data.domains.append("collapse")
        if progress and n % 50 == 0:
            print(f"  {n}/{len(scenarios)} scenarios", flush=True)
    return data


def remembered_answers(mem: Any, query: collapse.Query, covers: Mapping[str, frozenset[str]],
                       now: datetime) -> np.ndarray:
    """What answers ``query`` in a store built through ``remember``: the family of every live typed memory read from
    its first relevant memory's utterance (and standing for no forbidden memory); :data:`SAID` when only the utterance
    kept verbatim stands for it; all 0 when nothing does. The first relevant memory, as :func:`answering_family` reads
    the typed store: what extraction made of it is what the answer is in this store, whatever the hand typed."""
    if not query.relevant:
        return np.zeros(len(OUTCOMES))
    key, forbidden = query.relevant[0], set(query.forbidden)
    found: set[str] = set()
    said = False
    for rid, keys in covers.items():
        if key not in keys or keys & forbidden:
            continue
        try:
            record = mem.get(rid, user=collapse.USER)
        except MnemirError:  # deleted since (merged, superseded by a correction): it answers nothing now
            continue
        if not record.is_valid_at(now):
            continue
        family = FAMILY_OF_TYPE.get(record.type)
        if family is not None:
            found.add(family)
        elif record.type == "Episode":
            said = True
    if not found and not said:
        return np.zeros(len(OUTCOMES))
    return np.array([float(o in found) if found else float(o == SAID) for o in OUTCOMES])


def collect_remembered_roles(progress: bool = False, every: int = 1, offset: int = 0,
                             scenarios: Sequence[collapse.Scenario] | None = None, embedder: Embedder | None = None,
                             extra: Sequence[Mapping[str, Any]] | None = None) -> RoleData:
    """The collapse train scenarios built through ``remember`` (as the end-to-end benchmark builds them), every
    ``every``-th from ``offset`` (``scenarios``, ``embedder``, ``extra``: tests give their own; the noise memories
    every store holds by default): each query recalled with the hand rules settling the intent, the role model's
    features recorded with what answers it in that store (:func:`remembered_answers`). A typed store never shows the
    model an utterance beside the memories read from it; this one does, so the "said" features mean here what they
    mean on a user's own store. Queries whose pass needs a status no utterance gives are kept (which family answers
    does not depend on that status, unlike which memory passes: :func:`collect_remembered` leaves them out)."""
    scenarios = list(training_scenarios() if scenarios is None else scenarios)[offset::every]
    embedder = _embedder(scenarios) if embedder is None else embedder
    extra = collapse.noise() if extra is None else extra
    data = RoleData()
    with tempfile.TemporaryDirectory(prefix="mnemir-roles-remembered-") as tmp:
        for n, scenario in enumerate(scenarios, start=1):
            mem, covers = collapse.build_remembered(scenario, Path(tmp) / scenario.id, embedder, extra)
            try:
                for query in scenario.queries:
                    answers = remembered_answers(mem, query, covers, scenario.now)
                    if not answers.any():
                        continue
                    seen: list[np.ndarray] = []
                    mem.recall_config = RecallConfig(learned_roles=False, role_observer=seen.append)
                    mem.recall(query.text, user=collapse.USER, k=5, now=scenario.now)
                    if not seen:
                        continue
                    data.files.append(scenario.source)
                    data.rows.append(seen[-1])
                    data.answers.append(answers)
                    data.domains.append("remembered")
            finally:
                mem.close()
            if progress and n % 25 == 0:
                print(f"  remembered {n}/{len(scenarios)} scenarios", flush=True)
    return data


def training_conversations() -> list[continuity.Conversation]:
    """The conversations the trainer may read: the continuity train split, nothing else."""
    return continuity.load("train")


def conversation_answers(mem: Any, user: str, covers: Mapping[str, set[int]], checkpoint: continuity.Checkpoint,
                         now: datetime) -> np.ndarray:
    """What answers a checkpoint, read from the store ``remember`` built: the family of every live typed memory read
    from a relevant turn (and from no forbidden one); :data:`SAID` when nothing typed was read from those turns (only
    the utterance kept verbatim holds the answer). ``covers``: memory id -> the turns whose ``remember`` call created
    or updated it."""
    found: set[str] = set()
    for record in mem.store.select(Selection(user_id=user)):
        family = FAMILY_OF_TYPE.get(record.type)
        if family is None or not record.is_valid_at(now):
            continue
        turns = set(covers.get(record.id, ())) | {s.turn for s in (record.metadata.source,
                                                                    *record.metadata.merged_sources)
                                                  if s.turn is not None}
        if turns & checkpoint.relevant and not turns & checkpoint.forbidden:
            found.add(family)
    return np.array([float(o in found) if found else float(o == SAID) for o in OUTCOMES])


def collect_conversation_roles(progress: bool = False,
                               conversations: Sequence[continuity.Conversation] | None = None,
                               embedder: Embedder | None = None) -> RoleData:
    """Read every continuity train conversation turn by turn through ``remember`` (as the benchmark does); at each
    checkpoint recall its question with the hand rules settling the intent and record the role model's features and
    what answers it (:func:`conversation_answers`)."""
    conversations = training_conversations() if conversations is None else list(conversations)
    embedder = cached(embedder or default_embedder())
    embedder.prefetch([t.text for c in conversations for t in c.turns],
                      [p.q for c in conversations for p in c.checkpoints])
    data = RoleData()
    with tempfile.TemporaryDirectory(prefix="mnemir-roles-") as tmp:
        for n, conversation in enumerate(conversations, start=1):
            stores = continuity.Stores(Path(tmp) / conversation.id, embedder, f"roles-{conversation.id}",
                                       ("remember_recall",))
            try:
                mem = stores.remembered
                assert mem is not None
                for checkpoint, now in continuity.replay(conversation, stores):
                    seen: list[np.ndarray] = []
                    mem.recall_config = RecallConfig(learned_roles=False, role_observer=seen.append)
                    mem.recall(checkpoint.q, user=stores.user, k=continuity.K, now=now)
                    data.files.append(f"continuity/train/{conversation.source}")
                    data.rows.append(seen[-1])
                    data.answers.append(conversation_answers(mem, stores.user, stores.covers, checkpoint, now))
                    data.domains.append("continuity")
            finally:
                stores.close()
            if progress:
                print(f"  {n}/{len(conversations)} conversations", flush=True)
    return data


def fit_roles(X: np.ndarray, answers: np.ndarray, l2: float, steps: int = 60,
              sample: np.ndarray | None = None) -> RoleModel:
    """A softmax over the outcomes with an L2 penalty on the weights, maximising the probability of the outcomes
    that answer each query (``answers``: one row of 0/1 per query; a single outcome per query is plain softmax
    regression), each query weighing ``sample`` (1 by default). Each step: the answering outcomes' share of the
    current probabilities is the target (EM), then a Newton step towards it."""
    sample = np.ones(len(X)) if sample is None else np.asarray(sample, dtype=np.float64)
    mean = np.average(X, axis=0, weights=sample)
    scale = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=sample))
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    d = Z.shape[1]
    c = len(OUTCOMES)
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
        grad = (Z.T @ (sample[:, None] * (P - Y)) + penalty[:, None] * W).reshape(-1, order="F")
        H = np.zeros((d * c, d * c))
        for a in range(c):
            for b in range(c):
                w = sample * P[:, a] * ((a == b) - P[:, b])
                H[a * d:(a + 1) * d, b * d:(b + 1) * d] = (Z * w[:, None]).T @ Z
        H += np.diag(np.tile(penalty, c) + 1e-6)
        step = np.linalg.solve(H, grad).reshape((d, c), order="F")
        W -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return RoleModel(tuple(tuple(float(v) for v in r) for r in W[:-1]), tuple(float(v) for v in W[-1]),
                     tuple(float(v) for v in mean), tuple(float(v) for v in scale))


def _domain_weights(domains: Sequence[str], conversation_weight: float, remembered_weight: float = 0.0
                    ) -> np.ndarray:
    """Each query's weight in the fit: 1 for a collapse query; a continuity checkpoint ``conversation_weight`` times
    the collapse queries' count over the checkpoints' (so at 1.0 the two sources weigh alike in all); a remembered
    collapse query likewise ``remembered_weight`` times the collapse count over its own."""
    d = np.asarray(domains)
    n_collapse = int((d == "collapse").sum())
    out = np.ones(len(d))
    for name, weight in (("continuity", conversation_weight), ("remembered", remembered_weight)):
        n = int((d == name).sum())
        out[d == name] = weight * n_collapse / n if n and n_collapse else weight
    return out


def train_roles(data: RoleData, l2_values: Sequence[float] = (1.0, 10.0, 100.0),
                conversation_weights: Sequence[float] = (0.0, 0.25, 0.5, 1.0, 2.0),
                remembered_weights: Sequence[float] = (0.0, 0.5, 1.0, 2.0), folds: int = 5
                ) -> tuple[RoleModel, dict[str, Any]]:
    """Choose the penalty and the weights of the conversations and of the remembered stores by cross-validation over
    whole files (the mean over the sources of the log of the answering outcomes' probability; a source with no
    examples counts for nothing), then fit them on every file. A collapse file's typed and remembered queries fall in
    the same fold."""
    X, M = np.vstack(data.rows), np.vstack(data.answers)
    domains = np.asarray(data.domains)
    files = sorted(set(data.files))
    fold_of = np.array([files.index(f) % folds for f in data.files])
    present = [d for d in DOMAINS if (domains == d).any()]
    weights = [w for w in conversation_weights if w > 0 or "collapse" in present] if "continuity" in present else [0.0]
    remembered = ([w for w in remembered_weights if w > 0 or "collapse" in present or "continuity" in present]
                  if "remembered" in present else [0.0])
    results = []
    for l2, cw, rw in itertools.product(l2_values, weights, remembered):
        sample = _domain_weights(data.domains, cw, rw)
        loss = np.zeros(len(M))
        hit = np.zeros(len(M))
        for fold in range(folds):
            train_at = (fold_of != fold) & (sample > 0)
            model = fit_roles(X[train_at], M[train_at], l2, sample=sample[train_at])
            for i in np.where(fold_of == fold)[0]:
                p = model.probabilities(X[i])
                loss[i] = -np.log(max(sum(p[o] for o, a in zip(OUTCOMES, M[i], strict=True) if a), 1e-12))
                hit[i] = bool(M[i][OUTCOMES.index(max(OUTCOMES, key=lambda o: p[o]))])
        by = {d: {"log_loss": round(float(loss[domains == d].mean()), 4),
                  "accuracy": round(float(hit[domains == d].mean()), 4)} for d in present}
        results.append({"l2": l2, "conversation_weight": cw, "remembered_weight": rw, "log_loss": round(float(np.mean(
            [by[d]["log_loss"] for d in present])), 4), **{f"{d}_{m}": v for d in present for m, v in by[d].items()}})
    best = min(results, key=lambda r: r["log_loss"])
    sample = _domain_weights(data.domains, best["conversation_weight"], best["remembered_weight"])
    used = sample > 0
    model = fit_roles(X[used], M[used], best["l2"], sample=sample[used])
    intent_family = np.array([_intent_family(r) for r in data.rows])
    meta = {"chosen": best, "cross_validation": results, "folds": folds,
            "queries": {d: int((domains == d).sum()) for d in present},
            "intent_family_accuracy": {d: round(float(np.mean([i >= 0 and a[i] for i, a, dd in zip(
                intent_family, M, domains, strict=True) if dd == d])), 4) for d in present},
            "answered_by": {d: {o: int(M[domains == d][:, i].sum()) for i, o in enumerate(OUTCOMES)}
                            for d in present}}
    trained = tuple(sorted({f for f, u in zip(data.files, used, strict=True) if u}))
    return RoleModel(model.weights, model.bias, model.mean, model.scale, trained, meta), meta


def _intent_family(row: np.ndarray) -> int:
    """The family of the intent model's own first kind (-1 for "general"): the baseline the role model must beat."""
    kinds = [name[2:] for name in FAMILY_FEATURES if name.startswith("p_")]
    kind = kinds[int(np.argmax(row[: len(kinds)]))]
    family = {"fact_lookup": "fact", "preference": "preference", "emotion": "emotion", "frame": "frame",
              "open_tasks": "task", "task_status": "task", "plan": "task"}.get(kind)
    return OUTCOMES.index(family) if family else -1


def _kept(path: Path | None, collecting: Callable[..., Dataset]) -> Dataset:
    """The candidates kept at ``path`` if it holds them, else collected (and kept there when a path is given)."""
    if path is not None and path.is_file():
        return load_data(path)
    data = collecting(progress=True)
    if path is not None:
        save_data(data, path)
    return data


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data", type=Path, help="keep the collected candidates here (read them back if present)")
    parser.add_argument("--check-simulation", metavar="SPLIT",
                        help="only count how often the cross-validation's simulation differs from real recall")
    parser.add_argument("--remembered", action="store_true",
                        help="learn from the train stores built through remember too (decisions 0114 and, with "
                             "--roles, 0128: written to role_model_e2e.json)")
    parser.add_argument("--remembered-data", type=Path,
                        help="with --remembered: keep their candidates here (read them back if present)")
    parser.add_argument("--roles", action="store_true", help="train the role model (retrieve/data/role_model.json)")
    parser.add_argument("--collapse-only", action="store_true",
                        help="with --roles: collect the collapse train split only, not the continuity conversations")
    args = parser.parse_args(argv)
    if args.roles:
        if args.data is not None and args.data.is_file():
            role_data = RoleData.load(args.data)
        else:
            role_data = collect_roles(progress=True)
            if not args.collapse_only:
                role_data.extend(collect_conversation_roles(progress=True))
            if args.remembered:
                role_data.extend(collect_remembered_roles(progress=True))
            if args.data is not None:
                role_data.save(args.data)
        role_model, role_meta = train_roles(role_data)
        out = (ROLES_E2E_OUT if args.remembered else ROLES_OUT) if args.out == DEFAULT_OUT else args.out
        out.write_text(json.dumps(role_model.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: v for k, v in role_meta.items() if k != "cross_validation"} | {
            "cross_validation": role_meta["cross_validation"]}, indent=1))
        return
    if args.check_simulation:
        print(json.dumps(simulation_agreement(args.check_simulation)))
        return
    data = _kept(args.data, collect)
    if args.remembered:
        data = Dataset(data.queries + _kept(args.remembered_data, collect_remembered).queries)
    model, meta = train(data)
    if args.remembered:
        meta["stores"] = "typed and remembered"
        model = LearnedRanker(model.weights, model.bias, model.mean, model.scale, model.weight, model.trained_on,
                              meta)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"chosen": meta["chosen"], "rules": meta["rules_on_training_files"],
                      "queries": meta["queries"]}, indent=1))


if __name__ == "__main__":
    main()
