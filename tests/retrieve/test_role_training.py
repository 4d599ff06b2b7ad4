"""The role model learns from conversations too (decision 0044): what a checkpoint's answer is, read from the store
``remember`` built; the two sources weighed and chosen by cross-validation over whole files; the files it used."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from recall_helpers import intent

from mnemir.embed import USEEmbedder
from mnemir.errors import ValidationError
from mnemir.eval import continuity
from mnemir.eval import learn_ranking as training
from mnemir.retrieve.learned import FAMILY_FEATURES, OUTCOMES, SAID, family_features

START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def conversation() -> continuity.Conversation:
    said = [("user", "I have to renew my passport before the trip in August."),
            ("assistant", "Noted. Do you want a reminder next week?"),
            ("user", "Honestly the weather was lovely on Saturday, we just walked around."),
            ("assistant", "That sounds like a nice weekend."),
            ("user", "My sister Ana works as a nurse in Porto.")]
    turns = tuple(continuity.Turn(n, who, text, 1, START + (n - 1) * continuity.TURN_GAP)
                  for n, (who, text) in enumerate(said, start=1))
    checkpoints = (continuity.Checkpoint(5, "open_tasks", "What do I still have to sort out before travelling?",
                                         frozenset({1}), frozenset()),
                   continuity.Checkpoint(5, "past_event", "What did we do at the weekend?", frozenset({4}),
                                         frozenset()),
                   continuity.Checkpoint(5, "other_person", "Where does my sister work?", frozenset({5}),
                                         frozenset({1})))
    return continuity.Conversation("made-en-01", "en", "errands", turns, checkpoints, "made_up.yaml")


def test_a_conversation_yields_one_example_per_checkpoint_with_its_answer(embedder: USEEmbedder) -> None:
    data = training.collect_conversation_roles(conversations=[conversation()], embedder=embedder)
    assert data.files == ["continuity/train/made_up.yaml"] * 3
    assert data.domains == ["continuity"] * 3
    assert all(row.shape == (len(FAMILY_FEATURES),) for row in data.rows)
    answers = np.vstack(data.answers)
    assert answers.shape == (3, len(OUTCOMES)) and (answers.sum(axis=1) >= 1).all()
    # a task read from the relevant turn answers the first; an assistant's small talk holds no typed reading
    assert answers[0][OUTCOMES.index("task")] == 1
    assert answers[1][OUTCOMES.index(SAID)] == 1 and answers[1].sum() == 1
    # a memory read from a forbidden turn is no answer, even where it also stands for a relevant one
    assert answers[2][OUTCOMES.index("task")] == 0


def test_what_was_said_is_heard_beside_the_families() -> None:
    asked = intent("what did we do?", "general", ("Fact",), confidence=0.4)
    row = family_features(asked, [("fact", 0.5, 2, None), (SAID, 0.8, 1, 1), (SAID, 0.7, 3, 2)], close=0.6)
    at = {name: row[i] for i, name in enumerate(FAMILY_FEATURES)}
    assert at["said_best"] == pytest.approx(0.8) and at["said_vector_first"] == 1 and at["said_text_first"] == 1
    assert at["fact_below_best"] == pytest.approx(0.3)
    assert at["typed_share"] == pytest.approx(1 / 3)
    # memories written by hand, no utterance kept: all typed
    typed_only = family_features(asked, [("fact", 0.5, 1, None)], close=0.6)
    assert typed_only[FAMILY_FEATURES.index("typed_share")] == 1.0
    assert typed_only[FAMILY_FEATURES.index("said_best")] == 0.0


def synthetic(n: int, domain: str, files: int, seed: int) -> training.RoleData:
    """Examples whose answer follows one feature: fact above 0, emotion below, said when the conversation-level
    signal is low."""
    rng = np.random.default_rng(seed)
    data = training.RoleData()
    column, share = FAMILY_FEATURES.index("fact_best"), FAMILY_FEATURES.index("typed_share")
    for i in range(n):
        row = rng.normal(size=len(FAMILY_FEATURES))
        row[share] = 1.0 if domain == "collapse" else rng.uniform(0, 1)
        outcome = SAID if row[share] < 0.3 else "fact" if row[column] > 0 else "emotion"
        data.rows.append(row)
        data.answers.append(np.array([float(o == outcome) for o in OUTCOMES]))
        data.files.append(f"{domain}_{i % files}.yaml")
        data.domains.append(domain)
    return data


def test_training_weighs_the_conversations_by_cross_validation_and_lists_the_files_it_used() -> None:
    data = synthetic(200, "collapse", 5, 1)
    data.extend(synthetic(120, "continuity", 5, 2))
    model, meta = training.train_roles(data, l2_values=(1.0,), conversation_weights=(0.0, 1.0))
    assert {r["conversation_weight"] for r in meta["cross_validation"]} == {0.0, 1.0}
    assert all("continuity_log_loss" in r and "collapse_log_loss" in r for r in meta["cross_validation"])
    # the conversations teach what the collapse files cannot (an answer found only in what was said)
    assert meta["chosen"]["conversation_weight"] == 1.0
    assert set(model.trained_on) == set(data.files)
    low = np.zeros(len(FAMILY_FEATURES))
    low[FAMILY_FEATURES.index("typed_share")] = 0.05
    assert max(model.probabilities(low).items(), key=lambda kv: kv[1])[0] == SAID


def test_without_conversations_weighing_nothing_their_files_are_not_listed() -> None:
    data = synthetic(200, "collapse", 5, 1)
    data.extend(synthetic(60, "continuity", 3, 2))
    model, meta = training.train_roles(data, l2_values=(1.0,), conversation_weights=(0.0,))
    assert meta["chosen"]["conversation_weight"] == 0.0
    assert model.trained_on and all(f.startswith("collapse_") for f in model.trained_on)


def test_the_two_sources_weigh_alike_at_weight_one() -> None:
    weights = training._domain_weights(["collapse"] * 300 + ["continuity"] * 100, 1.0)
    assert weights[:300].sum() == pytest.approx(weights[300:].sum())
    assert (training._domain_weights(["collapse", "continuity"], 0.0) == [1.0, 0.0]).all()


def test_role_data_is_kept_and_read_back_and_another_version_is_refused(tmp_path: Path) -> None:
    data = synthetic(10, "continuity", 2, 3)
    data.save(tmp_path / "roles.npz")
    back = training.RoleData.load(tmp_path / "roles.npz")
    assert back.files == data.files and back.domains == data.domains
    assert np.allclose(np.vstack(back.rows), np.vstack(data.rows))
    np.savez_compressed(tmp_path / "old.npz", files=np.array(["a"]), rows=np.zeros((1, 33)),
                        answers=np.zeros((1, 5)), domains=np.array(["collapse"]))
    with pytest.raises(ValidationError) as info:
        training.RoleData.load(tmp_path / "old.npz")
    assert info.value.field == "data"


def test_the_trainer_reads_the_train_conversations_only() -> None:
    sources = {c.source for c in training.training_conversations()}
    assert sources and sources <= {p.name for p in continuity.data_dir("train").glob("*.yaml")}
    assert not sources & {p.name for split in ("dev", "test") for p in continuity.data_dir(split).glob("*.yaml")}

