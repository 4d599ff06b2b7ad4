"""A learned reading of what a user's statement on earlier work says became of it: done, started, deferred (moved to
a later time: "pushed to next month", "not till after the holidays", "推到四月了") or dropped.

The report routes of the write side read a status from the statement's wording (:func:`mnemir.understand.fill.update_status`:
a done word, the perfective aspect, a giving-up cue); the learned unmarked-report reading
(:mod:`mnemir.understand.unmarked_reports`) reads only *whether* a statement with no report reading closes an open
task, and closed it as done. A deferral is a statement about the task, close to it in meaning, so that reading can
take it for a report: this model tells what the statement says of the work, so that a deferral keeps the task open
(and moves its date when it names one).

A softmax over the statement's sentence vector, the lexicon's cue groups and hashed word / character n-grams
(:mod:`mnemir.understand.model`), fitted by :mod:`mnemir.eval.learn_report_outcomes` on the extractor's *training*
rows labelled as a report on earlier work with a status (the rows are read, not changed). Shipped as
``understand/data/report_outcomes.json`` / ``.npz`` (docs/decisions/0104).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mnemir.embed.base import Embedder
from mnemir.errors import ConfigError
from mnemir.understand.model import DATA_DIR, FeatureSpec, SoftmaxModel, featurize, load_model

__all__ = ["MODEL_NAME", "OUTCOMES", "SPEC", "outcome_of", "shipped_report_outcomes"]

MODEL_NAME = "report_outcomes"
OUTCOMES = ("done", "started", "deferred", "dropped")
#: the statement's vector and hashed n-grams (the words of a deferral, "push", "till", "推", "改", carry much of it); not
#: the lexicon's cue groups, whose giving-up cue reads many deferrals as drops (out-of-fold, docs/decisions/0104)
SPEC = FeatureSpec(cue_scale=0.0, ngram_dims=4096, ngram_scale=1.0)


@lru_cache(maxsize=1)
def shipped_report_outcomes() -> SoftmaxModel | None:
    """The shipped model, or None when the package holds none."""
    if not (DATA_DIR / f"{MODEL_NAME}.json").is_file():
        return None
    try:
        return load_model(MODEL_NAME)
    except ConfigError:
        return None


def outcome_of(model: SoftmaxModel, vector: np.ndarray, text: str, embedder: Embedder) -> dict[str, float] | None:
    """The outcome probabilities of ``text`` (its sentence ``vector`` from ``embedder``), or None when the model was
    fitted on another embedder's vectors."""
    if embedder.model_id != model.embedder_id:
        return None
    features = featurize(np.asarray(vector, dtype=np.float32).reshape(1, -1), [text], model.spec)
    if features.shape[1] != model.input_size:
        return None
    return {label: float(p) for label, p in zip(model.labels, model.proba(features)[0], strict=True)}
