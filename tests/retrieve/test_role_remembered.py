"""The role model learns from collapse scenarios built through ``remember`` too (decision 0128): what answers a query
there is what extraction made of its first relevant memory's utterance; the three sources weighed by cross-validation;
recall picks the shipped role model by file name, another one over talk between people if asked. Real stores, the
real embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from tests.retrieve.test_recall_talk import ALONE, CHAT
from tests.retrieve.test_role_training import synthetic
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.errors import ValidationError
from mnemir.eval import collapse
from mnemir.eval import learn_ranking as training
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.learned import (
    FAMILY_FEATURES,
    OUTCOMES,
    REMEMBERED_ROLE_MODEL,
    ROLE_MODEL,
    SAID,
    shipped_role_model,
)
from mnemir.understand.talk import shipped_talk_turns

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def scenario() -> collapse.Scenario:
    memories = ({"key": "sister", "type": "Fact", "text": "My sister Ana works as a nurse in Porto.", "age": "3d"},
                {"key": "passport", "type": "Task", "text": "I have to renew my passport before the trip in August.",
                 "age": "2d"})
    queries = (collapse.Query("Where does my sister work?", ("sister",)),
               collapse.Query("What do I still have to sort out before the trip?", ("passport",)),
               collapse.Query("Where is the moon?", ("nowhere",)))
    return collapse.Scenario("made-en-roles", "train", "made", "en", "errands", NOW, memories, queries,
                             "made_up.yaml")


def test_a_remembered_scenario_yields_its_queries_with_what_the_store_holds(embedder: USEEmbedder) -> None:
    data = training.collect_remembered_roles(scenarios=[scenario()], embedder=embedder, extra=())
    # the query whose relevant memory no utterance stands for is left out: nothing in the store answers it
    assert data.files == ["made_up.yaml"] * 2 and data.domains == ["remembered"] * 2
    assert all(row.shape == (len(FAMILY_FEATURES),) for row in data.rows)
    answers = np.vstack(data.answers)
    assert answers[0][OUTCOMES.index("fact")] == 1
    assert answers[1][OUTCOMES.index("task")] == 1


def test_a_record_standing_for_a_forbidden_memory_is_no_answer(tmp_path: Path, embedder: USEEmbedder) -> None:
    made = scenario()
    mem, covers = collapse.build_remembered(made, tmp_path / "store", embedder)
    try:
        query = made.queries[1]
        assert training.remembered_answers(mem, query, covers, NOW)[OUTCOMES.index("task")] == 1
        # the same memory named forbidden too: every record standing for it stands for a forbidden one
        both = collapse.Query(query.text, query.relevant, query.relevant)
        assert not training.remembered_answers(mem, both, covers, NOW).any()
        # only the utterance kept verbatim left: what was said answers
        episodes = {rid: keys for rid, keys in covers.items()
                    if mem.get(rid, user=collapse.USER).type == "Episode"}
        assert episodes
        said = training.remembered_answers(mem, query, episodes, NOW)
        assert said[OUTCOMES.index(SAID)] == 1 and said.sum() == 1
    finally:
        mem.close()


def test_the_remembered_stores_are_weighed_by_cross_validation() -> None:
    data = synthetic(200, "collapse", 5, 1)
    data.extend(synthetic(120, "continuity", 5, 2))
    data.extend(synthetic(150, "remembered", 5, 4))
    model, meta = training.train_roles(data, l2_values=(1.0,), conversation_weights=(1.0,),
                                       remembered_weights=(0.0, 1.0))
    assert {r["remembered_weight"] for r in meta["cross_validation"]} == {0.0, 1.0}
    assert all("remembered_log_loss" in r for r in meta["cross_validation"])
    assert meta["chosen"]["remembered_weight"] == 1.0
    assert meta["queries"]["remembered"] == 150
    assert set(model.trained_on) == set(data.files)


def test_each_source_weighs_as_the_typed_collapse_queries_at_weight_one() -> None:
    domains = ["collapse"] * 300 + ["continuity"] * 100 + ["remembered"] * 200
    weights = training._domain_weights(domains, 1.0, 1.0)
    assert weights[:300].sum() == pytest.approx(weights[300:400].sum()) == pytest.approx(weights[400:].sum())
    assert (training._domain_weights(["collapse", "continuity", "remembered"], 0.5) == [1.0, 0.5, 0.0]).all()


def test_the_role_model_file_is_checked() -> None:
    assert RecallConfig(role_model_file=REMEMBERED_ROLE_MODEL).role_model_file == REMEMBERED_ROLE_MODEL
    for bad in ({"role_model_file": "../role_model.json"}, {"role_model_file": None},
                {"chat_role_model_file": "role model.json"}, {"chat_role_model_file": 3}):
        with pytest.raises(ValidationError) as info:
            RecallConfig(**bad)  # type: ignore[arg-type]
        assert info.value.field == next(iter(bad))


def _read(mem: mnemir.Memory, query: str, config: RecallConfig) -> list[tuple[str, list[str]]]:
    mem.recall_config = config
    return [(h.id, h.reasons) for h in mem.recall(query, user="ines", k=10, now=NOW).hits]


@pytest.mark.parametrize("query", ["When is my eye test?", "What do I do on Mondays?"])
def test_recall_reads_the_role_model_the_config_names(mem: mnemir.Memory, query: str) -> None:
    _said(mem, ALONE, NOW - timedelta(days=3))
    for name in (ROLE_MODEL, REMEMBERED_ROLE_MODEL):
        model = shipped_role_model(name)
        assert model is not None
        assert _read(mem, query, RecallConfig(role_model_file=name)) == _read(mem, query,
                                                                              RecallConfig(role_model=model))
    # a file the package does not hold: the hand rules settle the intent, as with the role model off
    assert _read(mem, query, RecallConfig(role_model_file="no_such_model.json")) == _read(
        mem, query, RecallConfig(learned_roles=False))
    # a user's talk with the assistant is not talk between people: the chat model is not read
    assert _read(mem, query, RecallConfig(chat_role_model_file="no_such_model.json")) == _read(
        mem, query, RecallConfig())


@pytest.mark.skipif(shipped_talk_turns() is None, reason="no talk model shipped")
@pytest.mark.parametrize("query", ["When did they first say the eye test was?", "How did they get home?"])
def test_talk_between_people_reads_the_chat_role_model(mem: mnemir.Memory, query: str) -> None:
    _said(mem, [("user", t) for t in CHAT], NOW - timedelta(days=3))
    assert _read(mem, query, RecallConfig(chat_role_model_file="no_such_model.json")) == _read(
        mem, query, RecallConfig(learned_roles=False))
    assert _read(mem, query, RecallConfig(chat_role_model_file=ROLE_MODEL, role_model_file="no_such_model.json")
                 ) == _read(mem, query, RecallConfig(role_model_file=ROLE_MODEL))
