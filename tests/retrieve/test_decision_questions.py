"""A question about a choice is read with its words as well as its vector (decision 0091): the learned
decision-question reader (``retrieve.decision_questions``, fitted on the continuity train checkpoints) counts a
question as asking what was decided where the query-kind softmax reads a plain lookup, and recall then answers it with
the choice made (the options weighed before it left out). An earlier decision is replaced by a later one only when it
is about the same thing (``decision_choices_close``). Real store, real embedder, the shipped models; every sentence
is made up here."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.decision_questions import asks_decision, shipped_decision_questions
from mnemir.retrieve.query_kinds import DECISION, QueryReading, read_query

#: read as a lookup by the softmax on its vector, as a question about a choice by the reader on its words
ASKED = "Which gym did I sign up with?"
LEFT_OUT = "options weighed before the decision"


def _decision(value: str) -> dict[str, str]:
    return {"entity": "user", "attribute": "decision", "value": value}


def _reads(mem: mnemir.Memory, query: str) -> tuple[bool, bool]:
    vector = mem.embedder.embed_query(query)
    return (read_query(vector, mem.embedder.model_id).asks_decision,
            asks_decision(vector, query, mem.embedder.model_id))


def test_the_shipped_reader_is_fitted_on_training_files_only() -> None:
    model = shipped_decision_questions()
    assert model is not None
    assert model.meta["trained_on"] and all(f.startswith("continuity_train_") for f in model.meta["trained_on"])
    assert 0.0 < model.threshold < 1.0


def test_the_reader_finds_a_question_about_a_choice_the_softmax_reads_as_a_lookup(mem: mnemir.Memory) -> None:
    assert _reads(mem, ASKED) == (False, True)
    for query in ("Which laptop did I end up with?", "最后选了哪家装修公司？"):
        assert _reads(mem, query)[1], query


@pytest.mark.parametrize("query", ["When is my dentist appointment?", "What is my sister's job?",
                                   "What do I still need to do for the move?", "我妹妹在哪里工作？",
                                   "Was the interview a success?"])
def test_the_reader_leaves_other_questions_alone(mem: mnemir.Memory, query: str) -> None:
    assert _reads(mem, query) == (False, False)


def test_another_readers_kind_counts_as_asked_and_leaves_the_probabilities() -> None:
    reading = QueryReading({DECISION: 0.1, "lookup": 0.9}, {DECISION: 0.3})
    lifted = reading.with_asked(DECISION)
    assert not reading.asks_decision and lifted.asks_decision
    assert lifted.probabilities == reading.probabilities and lifted.with_asked(DECISION) is lifted


def test_the_setting_is_checked() -> None:
    with pytest.raises(ValidationError):
        RecallConfig(decision_questions=1)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        RecallConfig(decision_choices_close=1.5)


@pytest.fixture
def gyms(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "weighed": add(mem, now, "Torn between the climbing gym and the big gym on Hill Road", "Fact", {}, days=12),
        "pool": add(mem, now, "The Hill Road gym has a pool, which my physio keeps recommending", "Fact", {},
                    days=10),
        "chosen": add(mem, now, "Signed up with the climbing gym in the end, the first month is half price",
                      "Fact", _decision("the climbing gym"), days=3),
        "knee": add(mem, now, "My knee has been sore since the ski trip", "Fact", {}, days=20),
        "lamp": add(mem, now, "My reading lamp flickers when the heating comes on", "Fact", {}, days=15),
    }


def test_read_as_a_question_about_a_choice_the_options_weighed_are_left_out(
        mem: mnemir.Memory, now: datetime, gyms: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(decision_questions=True, decision_options=0.25)
    result = mem.recall(ASKED, user="alice", k=5, now=now)
    shown = [h.id for h in result.hits]
    assert gyms["chosen"].id in shown, [h.memory.text for h in result.hits]
    assert gyms["weighed"].id not in shown and gyms["pool"].id not in shown, [h.memory.text for h in result.hits]
    assert any(LEFT_OUT in n for n in result.notes), result.notes


def test_read_as_a_lookup_the_options_stay(mem: mnemir.Memory, now: datetime,
                                           gyms: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(decision_questions=False, decision_options=0.25)
    result = mem.recall(ASKED, user="alice", k=5, now=now)
    assert not any(LEFT_OUT in n for n in result.notes), result.notes
    assert gyms["pool"].id in [h.id for h in result.hits]


def test_an_earlier_choice_about_something_else_stays_beside_the_later_one(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    shoes = add(mem, now, "Decided to buy proper climbing shoes instead of renting", "Fact",
                _decision("buy climbing shoes"), days=8)
    chosen = add(mem, now, "Signed up with the climbing gym in the end, the first month is half price",
                 "Fact", _decision("the climbing gym"), days=3)
    vectors = mem.store.vectors([shoes.id, chosen.id])
    close = float(vectors[shoes.id] @ vectors[chosen.id])
    assert 0.25 <= close < 0.45  # an option's closeness, not a choice about the same thing
    mem.recall_config = RecallConfig(decision_questions=True, decision_options=0.25, decision_choices_close=0.45)
    shown = [h.id for h in mem.recall(ASKED, user="alice", k=5, now=now).hits]
    assert chosen.id in shown and shoes.id in shown
    mem.recall_config = RecallConfig(decision_questions=True, decision_options=0.25, decision_choices_close=0.0)
    assert shoes.id not in [h.id for h in mem.recall(ASKED, user="alice", k=5, now=now).hits]
