"""The learned role model (mnemir.retrieve.learned.RoleModel): which family of memories answers a query, read from the
intent's whole distribution over kinds and from how well each family's memories match, together.

The intent is a probability over roles, not a gate: recall settles the kind, types and confidence it ranks for from
the model's reading, and the confidence it uses (how much plain search counts, whether a role is ruled out) is the
probability of the settled family. An intent set by hand is used as it is given. The shipped model is checked for its
provenance (train files only) and for the features recall hands it being those training reads.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.errors import ValidationError
from mnemir.eval import collapse, continuity
from mnemir.eval import learn_ranking as training
from mnemir.retrieve.evidence import FAMILY_TYPES, settle_learned
from mnemir.retrieve.learned import (
    FAMILIES,
    FAMILY_FEATURES,
    OUTCOMES,
    RoleModel,
    default_role_model,
    kind_distribution,
)
from mnemir.retrieve.ranking import Candidate, RankingConfig
from mnemir.retrieve.recall import RecallConfig

MEASURING = {*collapse.split_files("dev"), *collapse.split_files("test")}


@pytest.fixture
def tuner(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "visits": add(mem, now, "The piano tuner comes on the first Monday of every month", "Fact",
                      {"entity": "piano tuner", "attribute": "schedule", "value": "first Monday"}, days=20),
        "ring": add(mem, now, "Ring the piano tuner to move his next visit", "Task",
                    {"goal": "move piano tuner visit", "status": "pending"}, days=2),
        "annoyed": add(mem, now, "I'm so annoyed the piano tuner cancelled on me again", "EmotionalState",
                       {"emotion_type": "annoyed", "intensity": 0.7}, days=1),
        "make": add(mem, now, "Our piano is a 1960s Yamaha upright", "Fact",
                    {"entity": "piano", "attribute": "model", "value": "Yamaha upright"}, days=60),
        "lessons": add(mem, now, "I prefer lessons in the evening", "Preference",
                       {"subject": "lessons", "preference_type": "like"}, days=90),
        "gas": add(mem, now, "The gas bill is paid by direct debit", "Fact",
                   {"entity": "gas bill", "attribute": "payment", "value": "direct debit"}, days=30),
    }


def test_the_intent_carries_the_models_distribution_over_kinds(mem: mnemir.Memory, now: datetime) -> None:
    it = mem.intent("When does the tuner normally turn up?", now=now)
    assert it.kinds[0] == (it.kind, pytest.approx(it.confidence))
    assert sum(p for _, p in it.kinds) == pytest.approx(1.0, abs=1e-6)
    assert len({k for k, _ in it.kinds}) == len(it.kinds) == 8
    assert it.to_dict()["kinds"][it.kind] == pytest.approx(it.confidence, abs=1e-3)


def test_an_intent_changed_by_hand_no_longer_carries_the_distribution(mem: mnemir.Memory, now: datetime) -> None:
    it = mem.intent("When does the tuner normally turn up?", now=now)
    assert it.override(types=("Fact",)).kinds == ()
    assert it.override(confidence=0.3).kinds == ()
    assert it.override(entities=("tuner",)).kinds == it.kinds  # what the kinds do not describe keeps them


def test_a_hand_made_intent_is_spread_from_its_confidence() -> None:
    spread = kind_distribution(intent("q", "plan", ("Plan", "Task"), confidence=0.65))
    assert spread["plan"] == pytest.approx(0.65)
    assert sum(spread.values()) == pytest.approx(1.0)


def test_a_sure_reading_of_a_fact_question_keeps_the_feeling_out_of_the_top_three(
        mem: mnemir.Memory, now: datetime, tuner: dict[str, mnemir.MemIR]) -> None:
    query = "Who do I call about tuning the piano?"
    mem.recall_config = RecallConfig(learned_roles=False)
    rules = mem.recall(query, user="alice", k=3, now=now)
    mem.recall_config = RecallConfig()
    learned = mem.recall(query, user="alice", k=3, now=now)
    assert learned.hits[0].id == tuner["visits"].id
    assert tuner["annoyed"].id in [h.id for h in rules.hits]  # the intent alone is not sure enough to rule it out
    assert tuner["annoyed"].id not in [h.id for h in learned.hits]
    assert learned.intent.confidence > rules.intent.confidence
    assert any("the answer's role" in n for n in learned.notes)


def always(family: str) -> RoleModel:
    """A hand-made role model that reads nothing and says ``family`` (p = e^5 / (e^5 + 5), about 0.97)."""
    bias = tuple(5.0 if f == family else 0.0 for f in OUTCOMES)
    zeros = tuple(tuple(0.0 for _ in OUTCOMES) for _ in FAMILY_FEATURES)
    return RoleModel(zeros, bias, tuple(0.0 for _ in FAMILY_FEATURES), tuple(1.0 for _ in FAMILY_FEATURES))


def spread(kind: str, p: float) -> tuple[tuple[str, float], ...]:
    rest = [k for k in ("fact_lookup", "open_tasks", "task_status", "preference", "emotion", "plan", "frame",
                        "general") if k != kind]
    return ((kind, p), *((k, (1 - p) / len(rest)) for k in rest))


@pytest.mark.parametrize(("kind", "types", "p", "settled"), [
    ("open_tasks", ("Task", "Plan"), 0.9, "open_tasks"),  # a sure intent keeps its kind
    ("open_tasks", ("Task", "Plan"), 0.4, "fact_lookup"),  # an unsure one gives way to the memories
    ("preference", ("Preference", "Fact"), 0.4, "preference"),  # it ranks Facts as intended already
])
def test_the_role_model_moves_an_unsure_kind_only(mem: mnemir.Memory, now: datetime,
                                                  tuner: dict[str, mnemir.MemIR], kind: str,
                                                  types: tuple[str, ...], p: float, settled: str) -> None:
    pool = [Candidate(m, similarity=0.4, vector_rank=i) for i, m in enumerate(tuner.values(), start=1)]
    asked = intent("Anything about the tuner?", kind, types, confidence=p, kinds=spread(kind, p))
    result = settle_learned(asked, pool, RankingConfig(), now, always("fact"))
    assert result.kind == settled
    assert "Fact" in result.types
    # the confidence is how likely the answer's type is among those ranked as intended
    sure = math.exp(5) / (math.exp(5) + len(OUTCOMES) - 1)
    others = sum(FAMILY_TYPES[f][0] in result.types for f in FAMILIES if f != "fact")
    # what was said (no typed answer) is never among the intended types
    assert result.confidence == pytest.approx(sure + others * (1 - sure) / (len(OUTCOMES) - 1), abs=1e-3)


def test_a_hand_made_intent_is_used_as_given(mem: mnemir.Memory, now: datetime,
                                             tuner: dict[str, mnemir.MemIR]) -> None:
    given = intent("When does the tuner normally turn up?", "fact_lookup", ("Fact", "Hypothesis"), confidence=0.6)
    result = mem.recall(given.query, user="alice", k=3, now=now, intent=given)
    assert result.intent.confidence == pytest.approx(0.6)
    assert not any("the answer's role" in n for n in result.notes)


def test_recall_hands_the_model_the_features_training_reads(mem: mnemir.Memory, now: datetime,
                                                            tuner: dict[str, mnemir.MemIR]) -> None:
    rows: list[np.ndarray] = []
    mem.recall_config = RecallConfig(role_observer=rows.append)
    result = mem.recall("Which day is the tuner booked for?", user="alice", k=3, now=now)
    assert len(rows) == 1 and rows[0].shape == (len(FAMILY_FEATURES),)
    model = default_role_model()
    assert model is not None
    probs = model.probabilities(rows[0])
    # the confidence recall ranks with: how likely the answer's type is among the types it ranks as intended
    intended = sum(p for f, p in probs.items() if f in FAMILY_TYPES and FAMILY_TYPES[f][0] in result.intent.types)
    assert result.intent.confidence == pytest.approx(intended, abs=1e-3)


def test_the_shipped_role_model_saw_the_train_split_only() -> None:
    model = default_role_model()
    assert model is not None
    trained = set(model.trained_on)
    conversations = {f"continuity/train/{p.name}" for p in continuity.data_dir("train").glob("*.yaml")}
    assert trained and trained <= set(collapse.split_files("train")) | conversations
    assert not trained & MEASURING
    # it heard conversations too (decision 0044), the train split's only
    assert trained & conversations
    assert not {f.rsplit("/", 1)[-1] for f in trained if f.startswith("continuity/")} & {
        p.name for split in ("dev", "test") for p in continuity.data_dir(split).glob("*.yaml")}


def test_fitting_learns_which_family_the_evidence_points_to() -> None:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, len(FAMILY_FEATURES)))
    column = FAMILY_FEATURES.index("emotion_best")
    y = np.where(X[:, column] > 0.5, OUTCOMES.index("emotion"), OUTCOMES.index("fact"))
    model = training.fit_roles(X, np.eye(len(OUTCOMES))[y], l2=1.0)
    high, low = np.zeros(len(FAMILY_FEATURES)), np.zeros(len(FAMILY_FEATURES))
    high[column], low[column] = 2.0, -2.0
    assert max(model.probabilities(high).items(), key=lambda kv: kv[1])[0] == "emotion"
    assert max(model.probabilities(low).items(), key=lambda kv: kv[1])[0] == "fact"


@pytest.mark.parametrize(("change", "field"), [
    ({"bias": [0.0]}, "bias"),
    ({"weights": [[0.0] * len(OUTCOMES)]}, "weights"),
    ({"scale": [0.0] * len(FAMILY_FEATURES)}, "scale"),
])
def test_a_malformed_role_model_is_refused_naming_the_field(change: dict[str, object], field: str) -> None:
    good = default_role_model().to_dict()  # type: ignore[union-attr]
    with pytest.raises(ValidationError) as info:
        RoleModel.from_dict({**good, **change})
    assert info.value.field == field


def test_a_role_model_for_other_features_is_refused() -> None:
    good = default_role_model().to_dict()  # type: ignore[union-attr]
    with pytest.raises(ValidationError):
        RoleModel.from_dict({**good, "features": good["features"][:-1]})


@pytest.mark.parametrize(("change", "field"), [({"role_switch": 1.5}, "role_switch"), ({"learned_roles": 1},
                                                                                      "learned_roles"),
                                               ({"role_model": "x"}, "role_model"),
                                               ({"role_confidence_in_fusion": "no"}, "role_confidence_in_fusion")])
def test_role_settings_of_the_wrong_kind_are_refused(change: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        RecallConfig(**change)  # type: ignore[arg-type]
    assert info.value.field == field


def test_with_the_hand_rules_settling_the_kind_the_model_gives_the_confidence_only(
        mem: mnemir.Memory, now: datetime, tuner: dict[str, mnemir.MemIR]) -> None:
    query = "Who do I call about tuning the piano?"
    rows: list[np.ndarray] = []
    mem.recall_config = RecallConfig(learned_roles=False)
    rules = mem.recall(query, user="alice", k=3, now=now)
    mem.recall_config = RecallConfig(role_kinds=False, role_observer=rows.append)
    mixed = mem.recall(query, user="alice", k=3, now=now)
    assert (mixed.intent.kind, mixed.intent.types) == (rules.intent.kind, rules.intent.types)
    probs = default_role_model().probabilities(rows[0])  # type: ignore[union-attr]
    intended = sum(p for f, p in probs.items() if f in FAMILY_TYPES and FAMILY_TYPES[f][0] in mixed.intent.types)
    assert mixed.intent.confidence == pytest.approx(intended, abs=1e-3)
    assert any("the answer's role" in n for n in mixed.notes)
