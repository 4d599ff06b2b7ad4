"""Recall when the intent is unsure or the wording is unusual: the question's form and the memories decide.

Intents are given by hand (unsure ones, p < 0.7) so that these tests pin recall's evidence rules, not the model.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.evidence import DOING_FORM, FACT_FORM, PROGRESS_FORM, REACTION_FORM
from mnemir.retrieve.judgements import says_change


@pytest.fixture
def visa(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "letter": add(mem, now, "Get the invitation letter for the Canada visa from the organisers", "Task",
                      {"goal": "visa letter", "status": "in_progress"}, days=10),
        "venue": add(mem, now, "The conference is at the Vancouver Convention Centre", "Fact",
                     {"entity": "conference", "attribute": "venue", "value": "Vancouver Convention Centre"}, days=30),
        "fee": add(mem, now, "The Canada visa fee is 100 dollars", "Fact",
                   {"entity": "Canada visa", "attribute": "fee", "value": "$100"}, days=40),
    }


def test_an_unsure_progress_question_without_task_words_finds_the_task(
        mem: mnemir.Memory, now: datetime, visa: dict[str, mnemir.MemIR]) -> None:
    query = "Where do things stand with the visa letter?"
    unsure = intent(query, "fact_lookup", ("Fact", "Hypothesis", "Task", "Plan"), confidence=0.45)

    result = mem.recall(query, user="alice", k=3, now=now, intent=unsure)

    assert result.hits[0].id == visa["letter"].id
    assert result.hits[0].role == "task"


def test_an_attribute_question_never_lets_a_leading_task_answer(mem: mnemir.Memory, now: datetime) -> None:
    compare = add(mem, now, "帮我比较三家建材店的客厅地砖报价", "Task", {"goal": "比较地砖报价", "status": "pending"}, days=2)
    quotes = add(mem, now, "地砖报价：东鹏每平米120元，马可波罗每平米150元", "Fact",
                 {"entity": "地砖报价", "attribute": "价格", "value": "东鹏120 马可波罗150"}, days=1)
    query = "客厅地砖哪家最便宜？"
    unsure = intent(query, "fact_lookup", ("Fact", "Hypothesis", "Task", "Plan"), confidence=0.4)

    result = mem.recall(query, user="alice", k=3, now=now, intent=unsure)

    assert result.hits[0].id == quotes.id
    assert compare.id not in {h.id for h in result.hits}


def test_a_newer_preference_that_says_it_changed_outdates_the_old_one(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "Three strong coffees a day, the stronger the better", "Preference",
              {"subject": "strong coffee", "preference_type": "like"}, days=400)
    new = add(mem, now, "I've switched to decaf, just one cup in the morning", "Preference",
              {"subject": "decaf", "preference_type": "like"}, days=5)
    query = "What kind of coffee do I drink these days?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "preference", ("Preference",)))
    ids = [h.id for h in result.hits]

    assert ids[0] == new.id
    assert old.id not in ids  # replaced, and its replacement is shown: left out, with a note naming both
    assert any(old.id in note and new.id in note for note in result.notes)


def test_a_recent_feeling_answers_how_am_i_in_other_words(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "Waiting for the biopsy results had me terrified, I couldn't sleep for days",
              "EmotionalState", {"emotion_type": "fear", "intensity": 0.9}, days=35)
    calm = add(mem, now, "Honestly so much calmer since the good news, sleeping well again", "EmotionalState",
               {"emotion_type": "calm", "intensity": 0.6}, days=3)
    query = "How am I holding up these days?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "emotion", ("EmotionalState",),
                                                                         confidence=0.4))

    assert calm.id in {h.id for h in result.hits}
    assert all(h.role == "answer" for h in result.hits if h.id in (calm.id, old.id))


@pytest.mark.parametrize("pattern, text, expected", [
    (PROGRESS_FORM, "Where do things stand with the visa letter?", True),
    (PROGRESS_FORM, "找物业投诉那件事呢？", True),
    (PROGRESS_FORM, "What music do I work out to?", False),
    (DOING_FORM, "What do I need to do for Acme?", True),
    (DOING_FORM, "周六有什么安排？", True),
    (DOING_FORM, "What should I eat?", False),
    (REACTION_FORM, "How did I take it when my card got locked?", True),
    (REACTION_FORM, "项目上线那天我是什么感受？", True),
    (REACTION_FORM, "How did I get to the airport?", False),
    (FACT_FORM, "How much do we pay each month?", True),
    (FACT_FORM, "豆豆多重了？", True),
    (FACT_FORM, "Has everyone got an invite?", False),
])
def test_question_forms(pattern, text: str, expected: bool) -> None:  # type: ignore[no-untyped-def]
    assert bool(pattern.search(text)) is expected


@pytest.mark.parametrize("text, expected", [
    ("I've switched to decaf", True), ("现在改成早上去健身房", True), ("I love mushroom risotto", False),
    ("我最喜欢每天早上跑五公里", False),
])
def test_change_wording(text: str, expected: bool) -> None:
    assert says_change(text) is expected
