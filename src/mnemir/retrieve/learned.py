"""A learned nudge to recall's order: a small logistic model over what the role rules found.

The hand rules (roles, gates, floors, judgements) decide what is shown, score it and say why. This stage reads
their results as features (similarity, keyword rank, the rules' score and place, type and role against the query's
kind and wording, flags such as outdated or faded, how each memory stands against the best of its kind among all the
candidates) and estimates how likely each shown memory answers the query. The rules' score is then moved by
``weight`` times the model's log-odds, and the list re-sorted. It changes only the order (and so which of a longer
list make the top k): nothing the rules set aside comes back, nothing they show is dropped, and the rules' own last
touches to the order (a task's finished steps below its open ones, the present state above background preferences)
are applied again after it.

The query's wording is read here, not by hand-written patterns: its words (hashed into buckets) against each memory
type, beside the few general wording facts of :mod:`mnemir.retrieve.wording`. The weights are trained by
:mod:`mnemir.eval.learn_ranking` on the collapse benchmark's training files only (listed in the model file) and
judged on its dev files. After this stage, recall fuses the order with plain search
(:mod:`mnemir.retrieve.fusion`).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from mnemir.errors import ValidationError
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES
from mnemir.retrieve.lexical import content_terms, shared_terms
from mnemir.retrieve.ranking import (
    TASK_TYPES,
    IntentLike,
    Scored,
    across_languages,
    age_of,
    confidence_of,
    is_user_state,
    mentions,
    task_status,
)
from mnemir.retrieve.wording import asks_about_now, asks_about_past
from mnemir.store.segment import tokens

KINDS = ("fact_lookup", "open_tasks", "task_status", "preference", "emotion", "plan", "frame", "general")
TYPES = ("Fact", "Preference", "Task", "Plan", "EmotionalState", "Hypothesis", "Episode")
ROLES = ("answer", "current", "task", "background", "caution", "hypothesis", "context")
FLAGS = ("outdated", "unconfirmed", "uncertain", "faded", "emotion", "other_frame", "weak")
#: the general wording facts recall reads (:mod:`mnemir.retrieve.wording`), against each memory type
CUES = ("now", "past")
#: the query's words, hashed into this many buckets, each read against each memory type: the wording of a question
#: about feelings, progress, what is left or a fact is learned from the training files, not listed
WORD_BUCKETS = 64
#: soft gates: reasons the role rules hold a memory back (by their opening words) that stay candidates, never shown,
#: but compared with the shown ones (a feature of their own in training)
SOFT_GATES = {"task_not_answer": "a task is not an answer", "closed_task": "task does not answer",
              "faded_emotion": "an emotion from"}


def _names() -> tuple[str, ...]:
    names = ["similarity", "similarity_gap", "vector_rank_inverse", "across_languages", "text_rank_1",
             "text_rank_2_3", "text_rank_4_10", "relevance", "strength", "rule_score", "rule_shown",
             "rule_rank_inverse", "listed", "present_state", "replaced", "via_link", "type_intended",
             "type_first_intended", "open_task", "closed_task", "age_log_days", "newest_of_type",
             "fact_confidence", "user_state", "type_position_inverse", "best_of_type", "similarity_below_type_best",
             "query_terms_shared", "mentions_entity"]
    names += [f"type_{t}" for t in (*TYPES, "other")]
    names += [f"role_{r}" for r in ROLES]
    names += [f"flag_{f}" for f in FLAGS]
    names += [f"gate_{g}" for g in SOFT_GATES]
    names += [f"unsure_x_{t}" for t in (*TYPES, "other")]
    names += [f"{k}_x_{t}" for k in KINDS for t in (*TYPES, "other")]
    names += [f"{k}_x_similarity" for k in KINDS]
    names += [f"cue_{c}_x_{t}" for c in CUES for t in (*TYPES, "other")]
    names += [f"word_{b}_x_{t}" for b in range(WORD_BUCKETS) for t in (*TYPES, "other")]
    return tuple(names)


FEATURES = _names()
_INDEX = {name: i for i, name in enumerate(FEATURES)}


@dataclass
class Item:
    """One candidate as the rules left it: its scored form, its place among the shown (None when not shown) and the
    soft gate that held it back (None when none did)."""

    scored: Scored
    rule_rank: int | None = None
    gate: str | None = None


def soft_gate(reason: str | None) -> str | None:
    """The soft gate a role-gate reason names, or None for a hard one."""
    if reason is None:
        return None
    return next((name for name, opening in SOFT_GATES.items() if opening in reason), None)


def features(items: Sequence[Item], intent: IntentLike, now: datetime, only: int | None = None) -> np.ndarray:
    """One row per item, columns in :data:`FEATURES` order. ``only``: fill just the first ``only`` rows (the rest
    stay zero but still count in the comparisons with all candidates: the best similarity, the newest of a type)."""
    rows = np.zeros((len(items), len(FEATURES)), dtype=np.float64)
    if not items:
        return rows
    sims = [it.scored.candidate.similarity for it in items]
    best = max(sims)
    order = {i: r for r, i in enumerate(sorted(range(len(items)), key=lambda i: -sims[i]), start=1)}
    newest: dict[str, datetime] = {}
    for it in items:
        t, at = it.scored.record.type, it.scored.record.metadata.created_at
        newest[t] = max(newest.get(t, at), at)
    kind = intent.kind if intent.kind in KINDS else "general"
    type_best: dict[str, float] = {}
    for it, sim in zip(items, sims, strict=True):
        type_best[it.scored.record.type] = max(type_best.get(it.scored.record.type, sim), sim)
    said = _cues(intent, now)
    words = word_buckets(intent.query)
    query_terms = max(len(content_terms(intent.query)), 1)
    for i, it in enumerate(items[:only] if only is not None else items):
        s, rec = it.scored, it.scored.record
        t = rec.type if rec.type in TYPES else "other"
        values: dict[str, float] = {
            "similarity": sims[i], "similarity_gap": best - sims[i], "vector_rank_inverse": 1.0 / order[i],
            "across_languages": float(across_languages(intent.query, rec.text)),
            "relevance": s.relevance, "strength": s.strength, "rule_score": s.score,
            "rule_shown": float(it.rule_rank is not None),
            "rule_rank_inverse": 1.0 / it.rule_rank if it.rule_rank else 0.0,
            "listed": float(s.listed), "present_state": float(s.present_floor or s.role == "current"),
            "replaced": float(s.replaced_by is not None), "via_link": float(s.candidate.via is not None),
            "type_intended": float(rec.type in intent.types),
            "type_first_intended": float(bool(intent.types) and rec.type == intent.types[0]),
            "age_log_days": math.log1p(age_of(rec, now).total_seconds() / 86400),
            "newest_of_type": float(rec.metadata.created_at == newest[rec.type]),
            f"type_{t}": 1.0, f"{kind}_x_{t}": 1.0, f"{kind}_x_similarity": sims[i],
            f"unsure_x_{t}": 1.0 - float(intent.confidence),
            "type_position_inverse": 1.0 / (intent.types.index(rec.type) + 1) if rec.type in intent.types else 0.0,
            "best_of_type": float(sims[i] >= type_best[rec.type]),
            "similarity_below_type_best": type_best[rec.type] - sims[i],
            "query_terms_shared": len(shared_terms(intent.query, rec)) / query_terms,
            "mentions_entity": float(any(e and mentions(rec, e) for e in intent.entities)),
        }
        for cue in said:
            values[f"cue_{cue}_x_{t}"] = 1.0
        for bucket in words:
            values[f"word_{bucket}_x_{t}"] = 1.0
        rank = s.candidate.text_rank
        if rank is not None and rank <= 10:
            values["text_rank_1" if rank == 1 else "text_rank_2_3" if rank <= 3 else "text_rank_4_10"] = 1.0
        if rec.type in TASK_TYPES:
            status = task_status(rec)
            values["open_task"] = float(status in OPEN_STATUSES)
            values["closed_task"] = float(status in CLOSED_STATUSES)
        if rec.type == "Fact":
            conf = confidence_of(rec)
            values["fact_confidence"] = conf if conf is not None else 0.7
            values["user_state"] = float(is_user_state(rec))
        if s.role in ROLES:
            values[f"role_{s.role}"] = 1.0
        for flag in FLAGS:
            if flag in s.flags:
                values[f"flag_{flag}"] = 1.0
        if it.gate is not None:
            values[f"gate_{it.gate}"] = 1.0
        for name, value in values.items():
            rows[i, _INDEX[name]] = value
    return rows


def _cues(intent: IntentLike, now: datetime) -> list[str]:
    q = intent.query
    found = {"now": asks_about_now(q), "past": asks_about_past(q, intent.time_range, now)}
    return [cue for cue in CUES if found[cue]]


@lru_cache(maxsize=256)
def word_buckets(query: str) -> frozenset[int]:
    """The query's words (function words included: "did", "still", "了吗" say what is asked) as hash buckets."""
    return frozenset(zlib.crc32(t.lower().encode("utf-8")) % WORD_BUCKETS for t in tokens(query) if t.strip())


@dataclass(frozen=True)
class LearnedRanker:
    """Logistic weights over :data:`FEATURES` (standardised by ``mean`` / ``scale``) and ``weight``, how far the
    model's log-odds move the rules' score."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weight: float = 0.1
    trained_on: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("weights", "mean", "scale"):
            values = getattr(self, name)
            if len(values) != len(FEATURES):
                raise ValidationError(f"learned ranker {name} must have one value per feature",
                                      field=name, value=len(values), allowed=len(FEATURES))
            if not all(math.isfinite(v) for v in values) or (name == "scale" and min(values) <= 0):
                raise ValidationError(f"learned ranker {name} must hold finite numbers" +
                                      (" above 0" if name == "scale" else ""), field=name,
                                      value=next(v for v in values if not math.isfinite(v) or
                                                 (name == "scale" and v <= 0)),
                                      allowed="finite numbers" + (" > 0" if name == "scale" else ""))
        if not math.isfinite(self.bias):
            raise ValidationError("learned ranker bias must be finite", field="bias", value=self.bias,
                                  allowed="a finite number")
        if isinstance(self.weight, bool) or not isinstance(self.weight, (int, float)) or not 0.0 <= self.weight <= 1.0:
            raise ValidationError("learned ranker weight must be a number in [0, 1]", field="weight",
                                  value=self.weight, allowed="[0, 1]")

    def log_odds(self, rows: np.ndarray) -> np.ndarray:
        z = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
        return np.asarray(z @ np.asarray(self.weights) + self.bias, dtype=np.float64)

    def nudges(self, rows: np.ndarray) -> np.ndarray:
        """How much each row's rules' score moves: ``weight`` x log-odds (clipped to +-8)."""
        return np.asarray(self.weight * np.clip(self.log_odds(rows), -8.0, 8.0), dtype=np.float64)

    def with_weight(self, weight: float) -> LearnedRanker:
        return LearnedRanker(self.weights, self.bias, self.mean, self.scale, weight, self.trained_on, self.meta)

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "weights": list(self.weights), "bias": self.bias, "mean": list(self.mean),
                "scale": list(self.scale), "weight": self.weight, "trained_on": list(self.trained_on),
                "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LearnedRanker:
        names = tuple(data.get("features") or ())
        if names != FEATURES:
            missing = sorted(set(FEATURES) - set(names))[:5]
            raise ValidationError("learned ranker features do not match this version's", field="features",
                                  value=f"{len(names)} names (missing e.g. {missing})", allowed=f"{len(FEATURES)} names")
        with _model_fields("learned ranker model", "features, weights, bias, mean, scale, weight",
                           "weights/bias/mean/scale"):
            return cls(tuple(map(float, data["weights"])), float(data["bias"]), tuple(map(float, data["mean"])),
                       tuple(map(float, data["scale"])), data["weight"], tuple(data.get("trained_on") or ()),
                       dict(data.get("meta") or {}))


@contextmanager
def _model_fields(what: str, fields: str, numbers: str) -> Iterator[None]:
    """Reading a model file's fields: a missing field or a value that is not a number becomes a ValidationError
    naming it (``what`` names the model, ``fields`` the fields it needs, ``numbers`` those that hold numbers)."""
    try:
        yield
    except ValidationError:
        raise
    except KeyError as exc:
        raise ValidationError(f"{what} lacks a field", field=str(exc.args[0]), value=None, allowed=fields) from exc
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{what} holds a value that is not a number: {exc}", field=numbers, value=str(exc),
                              allowed="numbers") from exc


def _shipped(name: str) -> dict[str, Any] | None:
    """A model file shipped in ``retrieve/data/``, read; None when the package holds none."""
    path = resources.files("mnemir.retrieve").joinpath(f"data/{name}")
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


#: the learned ranker fitted on the collapse train stores typed by hand (``RecallConfig.chat_ranker_model``, over talk
#: between people; the baseline the learning scripts compare against)
DEFAULT_RANKER_MODEL = "learned_ranker.json"
#: ... fitted on the same scenarios typed and built through ``remember`` (``RecallConfig.ranker_model``, decisions
#: 0114, 0119, 0123)
REMEMBERED_RANKER_MODEL = "learned_ranker_e2e.json"


def default_ranker() -> LearnedRanker | None:
    """The shipped model (``retrieve/data/learned_ranker.json``), or None when the package holds none."""
    return shipped_ranker(DEFAULT_RANKER_MODEL)


@lru_cache(maxsize=4)
def shipped_ranker(name: str) -> LearnedRanker | None:
    """A learned ranker shipped in ``retrieve/data/`` by file name, or None when the package holds none of that
    name (``RecallConfig.ranker_model`` names it)."""
    data = _shipped(name)
    return None if data is None else LearnedRanker.from_dict(data)


# -- the role the answer plays: the intent's distribution heard against the memories -------------------------
#: the families of memories a query's answer may belong to (:data:`mnemir.retrieve.evidence.FAMILY_TYPES`)
FAMILIES = ("fact", "preference", "emotion", "task", "frame")
FAMILY_OF_TYPE = {"Fact": "fact", "Hypothesis": "fact", "Preference": "preference", "EmotionalState": "emotion",
                  "Task": "task", "Plan": "task", "ContextualFrame": "frame"}
#: what was said verbatim (the utterances, ``Episode`` memories): heard beside the families, an answer of its own when
#: nothing typed was read from the turns that answer a question (a conversation's small talk, a past event told in
#: passing), the case where plain search over what was said is the best recall has
SAID = "said"
#: what the role model gives a probability to: the families, and an answer found only in what was said
OUTCOMES = (*FAMILIES, SAID)


def _family_names() -> tuple[str, ...]:
    names = [f"p_{k}" for k in KINDS]
    for f in (*FAMILIES, SAID):
        names += [f"{f}_best", f"{f}_below_best", f"{f}_text_first", f"{f}_vector_first", f"{f}_close_log"]
    names.append("typed_share")  # typed memories among the candidates read from a family or said: 1.0 when no
    # utterance was kept (memories written by hand), low in a conversation that was mostly not read into types
    return tuple(names)


FAMILY_FEATURES = _family_names()


def kind_distribution(intent: IntentLike) -> dict[str, float]:
    """The intent's probability of every kind: the model's distribution when the intent carries one (``kinds``), else
    its kind at its confidence and the rest spread evenly (an intent built by hand)."""
    given = dict(getattr(intent, "kinds", ()) or ())
    if given:
        return {k: float(given.get(k, 0.0)) for k in KINDS}
    conf = min(max(float(intent.confidence), 0.0), 1.0)
    kind = intent.kind if intent.kind in KINDS else "general"
    return {k: conf if k == kind else (1.0 - conf) / (len(KINDS) - 1) for k in KINDS}


def family_features(intent: IntentLike, evidence: Sequence[tuple[str, float, int | None, int | None]],
                    close: float) -> np.ndarray:
    """One row in :data:`FAMILY_FEATURES` order: the intent's kind distribution, and per family (and for what was
    said, :data:`SAID`) how well its best memory matches the query (``evidence``: (family, relevance, vector rank,
    text rank) per candidate), how far below the best of all, whether it holds the first of the vector and keyword
    orders, and how many of its memories are at least ``close``; then the typed memories' share of the candidates."""
    row = np.zeros(len(FAMILY_FEATURES), dtype=np.float64)
    for k, p in kind_distribution(intent).items():
        row[FAMILY_FEATURES.index(f"p_{k}")] = p
    best: dict[str, float] = {}
    count: dict[str, int] = {}
    firsts: dict[str, set[str]] = {}
    first_v = min((v for _, _, v, _ in evidence if v is not None), default=None)
    first_t = min((t for _, _, _, t in evidence if t is not None), default=None)
    for family, rel, vrank, trank in evidence:
        best[family] = max(best.get(family, 0.0), rel)
        count[family] = count.get(family, 0) + (rel >= close)
        if vrank is not None and vrank == first_v:
            firsts.setdefault(family, set()).add("vector")
        if trank is not None and trank == first_t:
            firsts.setdefault(family, set()).add("text")
    top = max(best.values(), default=0.0)
    for f in (*FAMILIES, SAID):
        i = FAMILY_FEATURES.index(f"{f}_best")
        row[i] = best.get(f, 0.0)
        row[i + 1] = top - best[f] if f in best else 1.0
        row[i + 2] = float("text" in firsts.get(f, ()))
        row[i + 3] = float("vector" in firsts.get(f, ()))
        row[i + 4] = math.log1p(count.get(f, 0))
    typed = sum(family != SAID for family, _, _, _ in evidence)
    row[FAMILY_FEATURES.index("typed_share")] = typed / len(evidence) if evidence else 1.0
    return row


@dataclass(frozen=True)
class RoleModel:
    """A softmax over :data:`OUTCOMES` from :data:`FAMILY_FEATURES` (standardised by ``mean`` / ``scale``): how likely
    the answer is of each family of memories, or found only in what was said (:data:`SAID`), the intent's wording and
    the memories heard together. Trained by :mod:`mnemir.eval.learn_ranking` (``--roles``) on training files only:
    the collapse benchmark's train split and the continuity benchmark's train conversations."""

    weights: tuple[tuple[float, ...], ...]  # features x outcomes
    bias: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    trained_on: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        shapes = {"weights": (len(self.weights), len(self.weights[0]) if self.weights else 0),
                  "bias": (len(self.bias),), "mean": (len(self.mean),), "scale": (len(self.scale),)}
        wanted = {"weights": (len(FAMILY_FEATURES), len(OUTCOMES)), "bias": (len(OUTCOMES),),
                  "mean": (len(FAMILY_FEATURES),), "scale": (len(FAMILY_FEATURES),)}
        for name, shape in shapes.items():
            if shape != wanted[name] or (name == "weights" and any(len(r) != len(OUTCOMES) for r in self.weights)):
                raise ValidationError(f"role model {name} has the wrong shape", field=name, value=shape,
                                      allowed=wanted[name])
        parts = {"weights": [v for r in self.weights for v in r], "bias": self.bias, "mean": self.mean,
                 "scale": self.scale}
        for name, values in parts.items():
            if not all(math.isfinite(v) for v in values) or (name == "scale" and min(values) <= 0):
                raise ValidationError(f"role model {name} must hold finite numbers" +
                                      (" above 0" if name == "scale" else ""), field=name, value="out of range",
                                      allowed="finite numbers" + (" > 0" if name == "scale" else ""))

    def probabilities(self, row: np.ndarray) -> dict[str, float]:
        z = (np.asarray(row, dtype=np.float64) - np.asarray(self.mean)) / np.asarray(self.scale)
        logits = z @ np.asarray(self.weights) + np.asarray(self.bias)
        e = np.exp(logits - logits.max())
        p = e / e.sum()
        return {f: float(v) for f, v in zip(OUTCOMES, p, strict=True)}

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FAMILY_FEATURES), "outcomes": list(OUTCOMES), "weights": [list(r) for r in self.weights],
                "bias": list(self.bias), "mean": list(self.mean), "scale": list(self.scale),
                "trained_on": list(self.trained_on), "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoleModel:
        if tuple(data.get("features") or ()) != FAMILY_FEATURES or tuple(data.get("outcomes") or ()) != OUTCOMES:
            raise ValidationError("role model features or outcomes do not match this version's", field="features",
                                  value=len(data.get("features") or ()), allowed=f"{len(FAMILY_FEATURES)} names")
        with _model_fields("role model", "features, outcomes, weights, bias, mean, scale", "weights"):
            return cls(tuple(tuple(map(float, r)) for r in data["weights"]), tuple(map(float, data["bias"])),
                       tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                       tuple(data.get("trained_on") or ()), dict(data.get("meta") or {}))


#: the role model fitted on the collapse train stores typed by hand and the continuity train conversations
ROLE_MODEL = "role_model.json"
#: ... and on the collapse train scenarios built through ``remember`` too (decision 0128): a typed store never shows
#: an utterance beside what was read from it, a user's own store always does
REMEMBERED_ROLE_MODEL = "role_model_e2e.json"


def default_role_model() -> RoleModel | None:
    """The shipped role model (``retrieve/data/role_model.json``), or None when the package holds none."""
    return shipped_role_model(ROLE_MODEL)


@lru_cache(maxsize=4)
def shipped_role_model(name: str) -> RoleModel | None:
    """A role model shipped in ``retrieve/data/`` by file name, or None when the package holds none of that name
    (``RecallConfig.role_model_file`` names it)."""
    data = _shipped(name)
    return None if data is None else RoleModel.from_dict(data)
