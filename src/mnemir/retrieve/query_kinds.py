"""A learned reading of what a recall query asks for: what comes next, or what was decided, or none of the kinds.

Two of recall's judgements act on what a question asks (:mod:`mnemir.retrieve.judgements`): asked what comes next,
the latest step still ahead goes first; asked what was decided or which option holds, the user's decisions are read
with what they settled and go first. Whether the question asks that is read here from the query's vector (the one
recall already computed for search), not from hand-written wording: a softmax over the question kinds of the
continuity training conversations, fitted by :mod:`mnemir.eval.learn_query_kinds` on training files only and shipped
in ``retrieve/data/query_kinds.json`` (the files it was fitted on, its settings and its cross-validated figures are
in the file). A call is one small matrix product.

The kinds include "none of these" (:data:`LOOKUP`: a plain lookup of a present fact, a feeling, the setting, small
talk), learned from training queries that ask for no kind recall reads (docs/decisions/0072): without it, every
question carried all of its probability on the continuity kinds, and a plain lookup could read as a decision or a
task's standing. Its probability (:attr:`QueryReading.plain`) tells recall how far to let plain hybrid search's order
stand.

The model belongs to the embedder it was fitted with: for vectors of another model (another ``model_id`` or
dimension) it reads nothing, and the two judgements stay off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["LOOKUP", "QueryKinds", "QueryReading", "read_query", "shipped_query_kinds"]

#: the file of the shipped model, in ``mnemir/retrieve/data``
MODEL_FILE = "query_kinds.json"
#: the kinds the judgements act on
NEXT_STEP = "next_step"
DECISION = "decision"
OPEN_TASKS = "open_tasks"
TASK_STATUS = "task_status"
PAST_EVENT = "past_event"
#: "none of these": the question asks for no kind recall reads (a plain lookup)
LOOKUP = "lookup"


@dataclass(frozen=True)
class QueryReading:
    """The model's probability of each question kind (empty: nothing read), and the probability from which a kind
    counts as asked."""

    probabilities: dict[str, float] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    #: kinds another reader found asked (``mnemir.retrieve.decision_questions``), whatever the probabilities say
    also: frozenset[str] = frozenset()

    def asks(self, kind: str) -> bool:
        """Whether the question asks for ``kind`` (its probability at least the kind's threshold, or another
        reader found it asked: ``also``)."""
        if kind in self.also:
            return True
        p = self.probabilities.get(kind)
        return p is not None and p >= self.thresholds.get(kind, 0.5)

    def with_asked(self, kind: str) -> QueryReading:
        """This reading with ``kind`` counted as asked (another reader found it); the probabilities as they are."""
        return self if kind in self.also else replace(self, also=self.also | {kind})

    @property
    def asks_next(self) -> bool:
        """The question asks what comes next in something under way."""
        return self.asks(NEXT_STEP)

    @property
    def asks_task_standing(self) -> bool:
        """The question asks where one task stands ("is X still to do?", "did X work out?"), not for the open work
        ("what is left?"): task_status read, open_tasks not. False when this reading has no threshold for either
        (nothing read, or a model fitted before it had them)."""
        if OPEN_TASKS not in self.thresholds or TASK_STATUS not in self.thresholds:
            return False
        return self.asks(TASK_STATUS) and not self.asks(OPEN_TASKS)

    @property
    def plain(self) -> float:
        """The probability that the question asks for none of the kinds (a plain lookup): 0.0 when nothing was read
        or the model has no such class."""
        return float(self.probabilities.get(LOOKUP, 0.0))

    @property
    def asks_decision(self) -> bool:
        """The question asks what was decided, or which of several options holds."""
        return self.asks(DECISION)

    def describe(self) -> str:
        top = sorted(self.probabilities.items(), key=lambda kv: -kv[1])[:2]
        return ", ".join(f"{k} {p:.2f}" for k, p in top)


@dataclass(frozen=True)
class QueryKinds:
    """A softmax over question kinds on a query vector: ``probabilities = softmax(weights @ [vector, 1])``."""

    model_id: str
    kinds: tuple[str, ...]
    weights: npt.NDArray[np.float64]  # (len(kinds), dim + 1): the last column is the bias
    thresholds: dict[str, float]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1] - 1)

    def probabilities(self, vector: npt.ArrayLike) -> npt.NDArray[np.float64]:
        v = np.asarray(vector, dtype=np.float64).reshape(-1)
        z = self.weights[:, :-1] @ v + self.weights[:, -1]
        z = np.exp(z - z.max())
        out: npt.NDArray[np.float64] = z / z.sum()
        return out

    def read(self, vector: npt.ArrayLike, model_id: str | None = None) -> QueryReading:
        """The reading of one query vector; empty for a vector of another model."""
        v = np.asarray(vector)
        if (model_id is not None and model_id != self.model_id) or v.size != self.dim:
            return QueryReading()
        p = self.probabilities(v)
        return QueryReading({k: float(x) for k, x in zip(self.kinds, p, strict=True)}, dict(self.thresholds))

    def to_json(self) -> dict[str, Any]:
        return {"model_id": self.model_id, "kinds": list(self.kinds), "thresholds": self.thresholds,
                "weights": [[round(float(x), 6) for x in row] for row in self.weights], **self.meta}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueryKinds:
        known = {"model_id", "kinds", "thresholds", "weights"}
        return cls(str(data["model_id"]), tuple(data["kinds"]), np.asarray(data["weights"], dtype=np.float64),
                   {str(k): float(v) for k, v in data["thresholds"].items()},
                   {k: v for k, v in data.items() if k not in known})


@lru_cache(maxsize=1)
def shipped_query_kinds() -> QueryKinds | None:
    """The shipped model (``retrieve/data/query_kinds.json``), or None when the package holds none."""
    path = resources.files("mnemir.retrieve").joinpath(f"data/{MODEL_FILE}")
    if not path.is_file():
        return None
    return QueryKinds.from_json(json.loads(path.read_text(encoding="utf-8")))


def read_query(vector: npt.ArrayLike, model_id: str | None = None) -> QueryReading:
    """What the query asks for, read by the shipped model from its vector (empty when none is shipped or the
    vector is another model's)."""
    model = shipped_query_kinds()
    return QueryReading() if model is None else model.read(vector, model_id)
