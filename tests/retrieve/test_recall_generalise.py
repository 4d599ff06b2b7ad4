"""Recall when the intent is unsure or the wording is unusual: the question's form and the memories decide.

Intents are given by hand (unsure ones, p < 0.7) so that these tests pin recall's evidence rules, not the model.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.ranking import Candidate, RankingConfig

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")


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






def test_a_newer_preference_that_says_it_changed_outdates_the_old_one(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "I love strong coffee, three big cups every day", "Preference",
              {"subject": "strong coffee", "preference_type": "like"}, days=400)
    new = add(mem, now, "I've switched to decaf, just one cup in the morning", "Preference",
              {"subject": "decaf", "preference_type": "like"}, days=5)
    query = "What kind of coffee do I drink these days?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "preference", ("Preference",)))
    ids = [h.id for h in result.hits]

    assert ids[0] == new.id
    assert old.id not in ids  # replaced, and its replacement is shown: left out, with a note naming both
    assert any(old.id in note and new.id in note for note in result.notes)


def test_a_preference_in_another_language_is_scaled_when_finding_what_a_change_replaced(
        mem: mnemir.Memory, now: datetime) -> None:
    from mnemir.retrieve.judgements import _pref_similarity
    from mnemir.retrieve.ranking import Scored

    english = add(mem, now, "I like my piano lessons early in the morning", "Preference",
                  {"subject": "lesson time", "preference_type": "like"}, days=90)
    chinese = add(mem, now, "我喜欢早上上钢琴课", "Preference", {"subject": "上课时间", "preference_type": "like"}, days=60)
    newer = add(mem, now, "Evening lessons suit me better now", "Preference",
                {"subject": "evening lessons", "preference_type": "like"}, days=2)
    vectors = mem.store.vectors([english.id, chinese.id, newer.id])
    scored = {r.id: Scored(Candidate(r), "background", 0.0) for r in (english, chinese, newer)}
    config = RankingConfig()

    raw = float(vectors[chinese.id] @ vectors[newer.id])
    factor = config.cross_language_factor
    assert factor < 1.0
    assert _pref_similarity(scored[chinese.id], scored[newer.id], vectors, config) == pytest.approx(raw * factor)
    same = float(vectors[english.id] @ vectors[newer.id])
    assert _pref_similarity(scored[english.id], scored[newer.id], vectors, config) == pytest.approx(same)


def test_a_recent_feeling_answers_how_am_i_in_other_words(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "Waiting for the biopsy results had me terrified, I couldn't sleep for days",
              "EmotionalState", {"emotion_type": "fear", "intensity": 0.9}, days=35)
    calm = add(mem, now, "Honestly so much calmer since the good news, sleeping well again", "EmotionalState",
               {"emotion_type": "calm", "intensity": 0.6}, days=3)
    query = "How am I holding up these days?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "emotion", ("EmotionalState",),
                                                                         confidence=0.4))

    assert result.hits[0].id == calm.id  # the recent feeling answers "these days", ahead of the five-week-old one
    assert result.hits[0].role == "answer"
    assert old.id not in {h.id for h in result.hits}  # asked about these days, the five-week-old fear has passed





def test_a_replacement_stands_in_for_the_memory_it_replaced(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "儿子最爱吃肯德基，每次出去玩中午都要吃", "Preference",
              {"subject": "儿子吃肯德基", "preference_type": "like"}, days=250)
    new = add(mem, now, "儿子说炸鸡吃腻了，现在出去吃饭只想吃回转寿司", "Preference",
              {"subject": "儿子吃回转寿司", "preference_type": "like"}, days=20)
    query = "出去玩中午给孩子吃点啥？"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "preference", ("Preference", "Fact")))
    ids = [h.id for h in result.hits]

    assert ids[0] == new.id and old.id not in ids
    assert any(old.id in r for r in result.hits[0].reasons)


def test_asked_about_now_an_earlier_feeling_on_the_same_thing_has_passed(mem: mnemir.Memory, now: datetime) -> None:
    sad = add(mem, now, "和阿杰分手了，这几天一直哭，什么都不想干", "EmotionalState",
              {"emotion_type": "sadness", "intensity": 0.9, "trigger": "和阿杰分手"}, days=60)
    okay = add(mem, now, "现在想起阿杰已经挺平静的了，日子照样过", "EmotionalState",
               {"emotion_type": "calm", "intensity": 0.5, "trigger": "和阿杰分手"}, days=5)
    now_query, past_query = "我现在是不是已经放下阿杰了？", "刚分手那时我过得怎么样？"

    result = mem.recall(now_query, user="alice", k=3, now=now, intent=intent(now_query, "emotion", ("EmotionalState",)))
    past = mem.recall(past_query, user="alice", k=3, now=now, intent=intent(past_query, "emotion", ("EmotionalState",)))

    assert [h.id for h in result.hits] == [okay.id]
    assert sad.id in [h.id for h in past.hits]


@pytest.mark.parametrize(("confidence", "feelings_win"), [(0.27, False), (0.45, True)])
def test_a_long_shot_feelings_guess_does_not_let_an_outburst_answer(mem: mnemir.Memory, now: datetime,
                                                                   confidence: float, feelings_win: bool) -> None:
    rant = add(mem, now, "科目二考试又压线挂了，教练还骂我，气死了", "EmotionalState",
               {"emotion_type": "anger", "intensity": 0.8}, days=1)
    rule = add(mem, now, "科目二考试：车轮一压线，当场判为不合格", "Fact",
               {"entity": "科目二考试", "attribute": "压线规则", "value": "不合格", "source": "external"}, days=1)
    query = "考试的时候压线会怎么样？"
    guess = intent(query, "emotion", ("EmotionalState", "Plan", "Task"), confidence=confidence)

    result = mem.recall(query, user="alice", k=3, now=now, intent=guess)

    assert result.hits[0].id == (rant.id if feelings_win else rule.id)








