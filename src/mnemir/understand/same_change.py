"""A learned reading of whether a new statement changes what an older one said of the same thing (issue 15): the
same entity and attribute given a new value (a new time, place, amount, choice) or a preference that replaces an
old one, said with no change word ("my rate is €520 now" after "my day rate is €450"; "妈妈现在最想要按摩仪" after
"妈妈最想要丝巾").

The write side reads a new statement (a Preference: ``memory.understanding.LEARNED_CHANGE_NEW_TYPES``; a new Fact,
where switched on, only against statements the fact reader resolves to its entity, docs/decisions/0080) and
its closest live Preferences, Facts and Hypotheses (:meth:`UnderstandingMixin._closest`). For each pair it measures:

- meaning: the cosine of the two texts, the candidate's rank among the new statement's candidates and its lead over
  the next one;
- what they share: content words (numbers and dates left out: a value is what changes, not what the statement is
  about) and their Jaccard overlap, numbers shared or different, values of the same kind (money, a time, a date, a
  measure) in both or in one;
- how the new one is said: a change word, a word contrasting now with before ("now", "these days", "no longer",
  "现在", "不再"), a negation;
- whose it is: both name the same people by relation, or different ones (facts about different people never
  replace each other: the write side never asks the model about them);
- their types (the new one's and the old one's), the language, how alike their lengths are.

A logistic regression (:mod:`mnemir.eval.learn_same_change`) is fitted on pairs mined from the collapse *train*
files (a later memory's ``supersedes`` links, a later preference or fact shown where the earlier one of the same
type is forbidden and the scenario gives both the same entity or attribute, against the other earlier statements
closest to it), its penalty, threshold and lead chosen by cross-validation over whole files. Shipped in
``understand/data/same_change.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.understand.model import PairModel, pair_model_fields, shipped_json

__all__ = ["FEATURES", "SameChange", "TYPES", "row", "shipped_same_change"]

MODEL_FILE = "same_change.json"
#: the types a change without a change word is read between (a new one of any of them, an old one of any of them)
TYPES = ("Preference", "Fact", "Hypothesis")

FEATURES = (
    "similarity", "rank", "lead", "shared_terms", "term_overlap", "shared_numbers", "numbers_differ",
    "same_value_kind", "new_value", "old_value", "change_word", "now_word", "negated", "same_people",
    "length_ratio", "candidates", "zh",
    *(f"new_{t}" for t in TYPES), *(f"old_{t}" for t in TYPES), "same_type",
)


def row(raw: dict[str, Any]) -> npt.NDArray[np.float64]:
    """The feature vector (in FEATURES order) of one (new statement, older statement) pair, from the quantities the
    write side measured (:func:`mnemir.memory.understanding.change_pair_raw`)."""
    new_type, old_type = str(raw.get("new_type", "")), str(raw.get("old_type", ""))
    values = {
        "similarity": float(raw["similarity"]),
        "rank": 1.0 / (1.0 + float(raw["rank"])),
        "lead": float(raw["lead"]),
        "shared_terms": min(float(raw["shared_terms"]), 4.0) / 4.0,
        "term_overlap": float(raw["term_overlap"]),
        "shared_numbers": float(min(int(raw["shared_numbers"]), 1)),
        "numbers_differ": float(bool(raw["numbers_differ"])),
        "same_value_kind": float(bool(raw["same_value_kind"])),
        "new_value": float(bool(raw["new_value"])),
        "old_value": float(bool(raw["old_value"])),
        "change_word": float(bool(raw["change_word"])),
        "now_word": float(bool(raw["now_word"])),
        "negated": float(bool(raw["negated"])),
        "same_people": float(bool(raw["same_people"])),
        "length_ratio": float(raw["length_ratio"]),
        "candidates": min(float(raw["candidates"]), 5.0) / 5.0,
        "zh": float(raw.get("language") == "zh"),
        **{f"new_{t}": float(new_type == t) for t in TYPES},
        **{f"old_{t}": float(old_type == t) for t in TYPES},
        "same_type": float(new_type == old_type),
    }
    return np.array([values[f] for f in FEATURES], dtype=np.float64)


@dataclass(frozen=True)
class SameChange(PairModel):
    """``p(the new statement replaces the old one) = sigmoid(weights @ [row, 1])``. A new statement replaces its
    best candidate from ``threshold`` on when that candidate's probability leads the next one's by ``lead``."""

    features: tuple[str, ...] = FEATURES

    def probability(self, raw: dict[str, Any]) -> float:
        return self.probability_of(row(raw))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SameChange:
        return cls(*pair_model_fields(data, FEATURES, "mnemir.eval.learn_same_change"))


@lru_cache(maxsize=1)
def shipped_same_change() -> SameChange | None:
    """The shipped model (``understand/data/same_change.json``), or None when the package holds none."""
    data = shipped_json(MODEL_FILE)
    return None if data is None else SameChange.from_json(data)


def dumps(model: SameChange) -> str:
    return json.dumps(model.to_json(), ensure_ascii=False, indent=1)
