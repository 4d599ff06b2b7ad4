"""A learned reading of whether a user's turn states a choice made ("the walnut one it is", "定了湖边那家", "final answer: the train").

The write side keeps a decision as a Fact (attribute ``decision``) so that "what did I decide" finds it; hand-written
markers (:func:`mnemir.understand.fill.decision_of`, ``memory.understanding._choice_of``) miss most of the ways people
say they chose (a bare name with a reason, "we hired the second firm", "got the red ones", "就让我妈周三去接吧"). This model reads the
whole turn: a logistic regression on the turn's sentence vector, the extractor's cue groups and its hashed word /
character n-grams (:mod:`mnemir.understand.model`), fitted by :mod:`mnemir.eval.learn_decision_turns` on the
continuity *train* conversations only (a user turn that answers a decision checkpoint is a decision; every other user
turn is not), its settings and threshold chosen by cross-validation over whole files, and shipped in
``understand/data/decision_turns.json`` (the files, the settings and the cross-validated figures are in the file).

The model belongs to the embedder it was fitted with: for a vector of another model it reads nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.understand.lexicon import cue_vector
from mnemir.understand.model import ngram_vectors, shipped_json

__all__ = ["DecisionTurns", "decision_probability", "features", "shipped_decision_turns"]

MODEL_FILE = "decision_turns.json"
CUE_SCALE = 0.5


def features(vectors: npt.ArrayLike, texts: list[str], ngram_dims: int, ngram_scale: float) -> npt.NDArray[np.float64]:
    """One row per text: its sentence vector, its cue groups (times CUE_SCALE) and its hashed n-grams (with the
    opening grams, unit length, times ``ngram_scale``)."""
    v = np.asarray(vectors, dtype=np.float64).reshape(len(texts), -1)
    cues = np.array([cue_vector(t) for t in texts], dtype=np.float64).reshape(len(texts), -1) * CUE_SCALE
    parts = [v, cues]
    if ngram_dims:
        parts.append(ngram_vectors(texts, ngram_dims, True).astype(np.float64) * ngram_scale)
    return np.hstack(parts)


@dataclass(frozen=True)
class DecisionTurns:
    """``p(decision) = sigmoid(weights @ [features, 1])``; a turn states a choice from ``threshold`` on."""

    model_id: str
    dim: int
    weights: npt.NDArray[np.float64]  # (n_features + 1,): the last entry is the bias
    threshold: float
    ngram_dims: int
    ngram_scale: float
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def probability(self, vector: npt.ArrayLike, text: str, model_id: str | None = None) -> float | None:
        """The probability that ``text`` (with its sentence ``vector``) states a choice made; None for a vector of
        another model."""
        v = np.asarray(vector)
        if (model_id is not None and model_id != self.model_id) or v.size != self.dim:
            return None
        x = features(v, [text], self.ngram_dims, self.ngram_scale)[0]
        z = float(x @ self.weights[:-1] + self.weights[-1])
        return 1.0 / (1.0 + float(np.exp(-z)))

    def to_json(self) -> dict[str, Any]:
        return {"model_id": self.model_id, "dim": self.dim, "threshold": self.threshold,
                "ngram_dims": self.ngram_dims, "ngram_scale": self.ngram_scale,
                "weights": [round(float(x), 6) for x in self.weights], **self.meta}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DecisionTurns:
        known = {"model_id", "dim", "threshold", "ngram_dims", "ngram_scale", "weights"}
        return cls(str(data["model_id"]), int(data["dim"]), np.asarray(data["weights"], dtype=np.float64),
                   float(data["threshold"]), int(data["ngram_dims"]), float(data["ngram_scale"]),
                   {k: v for k, v in data.items() if k not in known})


@lru_cache(maxsize=1)
def shipped_decision_turns() -> DecisionTurns | None:
    """The shipped model (``understand/data/decision_turns.json``), or None when the package holds none."""
    data = shipped_json(MODEL_FILE)
    return None if data is None else DecisionTurns.from_json(data)


def decision_probability(vector: npt.ArrayLike, text: str, model_id: str | None = None) -> tuple[float, float] | None:
    """(probability, threshold) of the shipped model for one turn; None when none is shipped or the vector is
    another model's."""
    model = shipped_decision_turns()
    if model is None:
        return None
    p = model.probability(vector, text, model_id)
    return None if p is None else (p, model.threshold)
