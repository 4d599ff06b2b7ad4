"""A learned reading of whether a user's turn is talk between people (one person telling another their news, asking
after theirs) rather than a user speaking to their assistant (a request, a note to keep, a statement of their own).

Nothing in the words of an unlabelled record of two people talking says who speaks or to whom (decision 0101: the
transcript marks of 0087 need speaker names). What such talk *reads like* is learned: a logistic regression on the
turn's sentence vector, the extractor's cue groups and its hashed word / character n-grams (the form of
:mod:`mnemir.understand.decision_turns`), fitted by :mod:`mnemir.eval.learn_talk_turns` on training files only: the
turns of the dialogue QA *train* conversations (two people talking) against the user's utterances of the collapse
and continuity *train* files (a user talking to the assistant). ``remember`` keeps each user turn's log-odds on its
Episode (``metadata.extra["talk"]``); recall reads them over the utterances it finds (a single turn says little, a
store's many do: ``RecallConfig.talk_among_people``, docs/decisions/0103).

The model belongs to the embedder it was fitted with: for a vector of another model it reads nothing.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy.typing as npt

from mnemir.understand.decision_turns import DecisionTurns
from mnemir.understand.model import shipped_json

__all__ = ["TALK", "shipped_talk_turns", "talk_log_odds"]

MODEL_FILE = "talk_turns.json"
#: the Episode's ``metadata.extra`` key that holds the log-odds
TALK = "talk"
#: the log-odds kept are clipped to this magnitude (one turn read very surely weighs no more than a few)
CLIP = 6.0


@lru_cache(maxsize=1)
def shipped_talk_turns() -> DecisionTurns | None:
    """The shipped model (``understand/data/talk_turns.json``; the logistic form of decision_turns), or None."""
    data = shipped_json(MODEL_FILE)
    return None if data is None else DecisionTurns.from_json(data)


def talk_log_odds(vector: npt.ArrayLike, text: str, model_id: str | None = None) -> float | None:
    """The log-odds that ``text`` (with its sentence ``vector``) is talk between people, clipped to +-CLIP; None
    when no model is shipped or the vector is another model's."""
    model = shipped_talk_turns()
    if model is None:
        return None
    p = model.probability(vector, text, model_id)
    if p is None:
        return None
    p = min(max(p, 1e-9), 1.0 - 1e-9)
    return max(-CLIP, min(CLIP, math.log(p / (1.0 - p))))
