"""A learned reading of whether a question asks what was decided ("which contractor did we end up hiring?",
"房子最后租在哪儿了？").

The query-kind softmax (:mod:`mnemir.retrieve.query_kinds`) reads a question from its sentence vector alone; a
question about a choice is often worded as a plain lookup ("where am I renting?", "what did we go for on the
worktops?"), and on the continuity dev split that reading found 64% of the decision questions. This reader adds the
words: a logistic regression on the question's vector, the extractor's cue groups and its hashed word / character
n-grams (:func:`mnemir.understand.decision_turns.features`, the model class of the write side's decision-turn
reading), fitted by :mod:`mnemir.eval.learn_decision_questions` on the continuity *train* checkpoints only (a
``decision`` checkpoint's question is positive, every other checkpoint's question negative), its n-gram scale and
threshold chosen by cross-validation over whole files, and shipped in ``retrieve/data/decision_questions.json``.
Recall counts a question as asking about a choice when either reading says so (``RecallConfig.decision_questions``;
docs/decisions/0091).

The model belongs to the embedder it was fitted with: for a vector of another model it reads nothing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy.typing as npt

from mnemir.understand.decision_turns import DecisionTurns

__all__ = ["MODEL_FILE", "asks_decision", "shipped_decision_questions"]

#: the file of the shipped model, in ``mnemir/retrieve/data``
MODEL_FILE = "decision_questions.json"


@lru_cache(maxsize=1)
def shipped_decision_questions() -> DecisionTurns | None:
    """The shipped model (``retrieve/data/decision_questions.json``), or None when the package holds none."""
    path = resources.files("mnemir.retrieve").joinpath(f"data/{MODEL_FILE}")
    if not path.is_file():
        return None
    return DecisionTurns.from_json(json.loads(path.read_text(encoding="utf-8")))


def asks_decision(vector: npt.ArrayLike, text: str, model_id: str | None = None,
                  model: DecisionTurns | None = None) -> bool:
    """Whether the question (``text`` with its query ``vector``) asks what was decided, by ``model`` (default the
    shipped one); False when there is none or the vector is another model's."""
    model = model or shipped_decision_questions()
    if model is None:
        return False
    p = model.probability(vector, text, model_id)
    return p is not None and p >= model.threshold
