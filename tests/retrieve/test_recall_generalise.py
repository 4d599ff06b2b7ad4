"""Recall when the intent is unsure or the wording is unusual: the question's form and the memories decide.

Intents are given by hand (unsure ones, p < 0.7) so that these tests pin recall's evidence rules, not the model.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.evidence import settle
from mnemir.retrieve.ranking import Candidate, RankingConfig
from mnemir.retrieve.wording import (
    ADVICE_FORM,
    DOING_FORM,
    FACT_FORM,
    FEELING_WORDS,
    PROGRESS_FORM,
    PROGRESSIVE_FORM,
    REACTION_FORM,
    REMAINING_FORM,
    STILL_FORM,
    says_change,
)


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

def test_what_stands_in_the_way_lists_open_tasks(mem: mnemir.Memory, now: datetime) -> None:
    done = add(mem, now, "去工商局办营业执照", "Task", {"goal": "营业执照", "status": "completed"}, days=40)
    decor = add(mem, now, "盯着装修队把茶饮店的吧台做好", "Task", {"goal": "吧台装修", "status": "in_progress"}, days=20)
    staff = add(mem, now, "招两个会做奶茶的店员", "Task", {"goal": "招店员", "status": "pending"}, days=10)
    add(mem, now, "计划六月十八号开业", "Fact", {"entity": "茶饮店", "attribute": "开业日期", "value": "6月18日"}, days=15)
    query = "开业前还卡在哪儿？"
    unsure = intent(query, "fact_lookup", ("Fact", "Hypothesis"), confidence=0.57)

    result = mem.recall(query, user="alice", k=3, now=now, intent=unsure)
    ids = [h.id for h in result.hits]

    assert result.intent.kind == "open_tasks"
    assert {decor.id, staff.id} <= set(ids) and done.id not in ids


def test_an_unsure_advice_question_is_answered_by_preferences_and_the_present_state(mem: mnemir.Memory,
                                                                                   now: datetime) -> None:
    hike = add(mem, now, "I love long hill walks, the steeper the better", "Preference",
               {"subject": "hill walking", "preference_type": "like"}, days=200)
    knee = add(mem, now, "Had knee surgery last week, no steep hills or heavy packs for six weeks", "Fact",
               {"entity": "user", "attribute": "knee surgery", "value": "no steep hills for six weeks"}, days=6)
    add(mem, now, "Book the bunkhouse in the Lakes for the hiking weekend", "Task",
        {"goal": "book bunkhouse", "status": "completed"}, days=30)
    query = "Is a two-day hike up Scafell a good idea for me?"
    unsure = intent(query, "open_tasks", ("Task", "Plan"), confidence=0.4)

    result = mem.recall(query, user="alice", k=3, now=now, intent=unsure)
    ids = [h.id for h in result.hits]

    assert result.intent.kind == "preference"
    assert ids[0] == knee.id and hike.id in ids
    assert ids.index(knee.id) < ids.index(hike.id)


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
    now_query, past_query = "我是不是已经放下阿杰了？", "刚分手那阵子我过得怎么样？"

    result = mem.recall(now_query, user="alice", k=3, now=now, intent=intent(now_query, "emotion", ("EmotionalState",)))
    past = mem.recall(past_query, user="alice", k=3, now=now, intent=intent(past_query, "emotion", ("EmotionalState",)))

    assert [h.id for h in result.hits] == [okay.id]
    assert sad.id in [h.id for h in past.hits]


@pytest.mark.parametrize(("confidence", "feelings_win"), [(0.27, False), (0.45, True)])
def test_a_long_shot_feelings_guess_does_not_let_an_outburst_answer(mem: mnemir.Memory, now: datetime,
                                                                   confidence: float, feelings_win: bool) -> None:
    rant = add(mem, now, "科目二考试又压线挂了，教练还骂我，气死了", "EmotionalState",
               {"emotion_type": "anger", "intensity": 0.8}, days=1)
    rule = add(mem, now, "科目二考试时车轮压线直接判不合格", "Fact",
               {"entity": "科目二考试", "attribute": "压线规则", "value": "不合格", "source": "external"}, days=1)
    query = "考试的时候压线会怎么样？"
    guess = intent(query, "emotion", ("EmotionalState", "Plan", "Task"), confidence=confidence)

    result = mem.recall(query, user="alice", k=3, now=now, intent=guess)

    assert result.hits[0].id == (rant.id if feelings_win else rule.id)


@pytest.mark.parametrize("pattern, text, expected", [
    (PROGRESS_FORM, "Where do things stand with the visa letter?", True),
    (PROGRESS_FORM, "找物业投诉那件事呢？", True),
    (PROGRESS_FORM, "What music do I work out to?", False),
    (PROGRESS_FORM, "Any luck with challenging that parking fine?", True),
    (PROGRESS_FORM, "签证那边有动静吗？", True),
    (PROGRESS_FORM, "How big is the flat?", False),
    (PROGRESS_FORM, "Where am I with the bathroom job?", True),
    (PROGRESS_FORM, "我游泳学到哪一步了？", True),
    (PROGRESS_FORM, "Where am I staying in Lisbon?", False),
    (REMAINING_FORM, "开业前还卡在哪儿？", True),
    (REMAINING_FORM, "Is the bike good to go for Monday?", True),
    (REMAINING_FORM, "Where is the bike shop?", False),
    (DOING_FORM, "What still needs doing before the move?", True),
    (DOING_FORM, "What do I need to do for Acme?", True),
    (DOING_FORM, "周六有什么安排？", True),
    (DOING_FORM, "What should I eat?", False),
    (REACTION_FORM, "How did I take it when my card got locked?", True),
    (REACTION_FORM, "项目上线那天我是什么感受？", True),
    (REACTION_FORM, "How did I get to the airport?", False),
    (REACTION_FORM, "Am I still enjoying the podcast?", True),
    (REACTION_FORM, "前两天钓完鱼回来我乐不乐？", True),
    (REACTION_FORM, "How long is the podcast?", False),
    (FEELING_WORDS, "Still cross about Sarah getting it?", True),
    (FEELING_WORDS, "Was I upset about the promotion?", True),
    (FEELING_WORDS, "那次考试完我是不是很失望？", True),
    (FEELING_WORDS, "Write down the tyre pressure for me", False),
    (FEELING_WORDS, "轮胎压力是多少？", False),
    (FEELING_WORDS, "Is the battery low?", False),
    (FEELING_WORDS, "What's the content of the contract?", False),
    (FEELING_WORDS, "累计积分有多少？", False),
    (ADVICE_FORM, "Is a scary film a good idea this weekend?", True),
    (ADVICE_FORM, "周末带孩子去哪玩好？", True),
    (ADVICE_FORM, "Should we get takeaway tonight?", True),
    (ADVICE_FORM, "Where is the takeaway menu?", False),
    (FACT_FORM, "How much do we pay each month?", True),
    (FACT_FORM, "豆豆多重了？", True),
    (FACT_FORM, "Has everyone got an invite?", False),
    (FACT_FORM, "体检报告到时候发给谁？", True), (FACT_FORM, "续签要带哪些东西？", True), (FACT_FORM, "谁让你去的？", False),
    (STILL_FORM, "这两天练琴还顺吗？", True), (STILL_FORM, "Am I still dreading the dentist?", True),
    (STILL_FORM, "提前还贷要付违约金吗？", False), (STILL_FORM, "照片还能找回来吗？", False),
    (STILL_FORM, "Is the pharmacy still open on Sundays?", False), (STILL_FORM, "书还给小王了吗？", False),
    (PROGRESSIVE_FORM, "Who's judging the marrows?", True), (PROGRESSIVE_FORM, "Where are we meeting?", True),
    (PROGRESSIVE_FORM, "Where are the stamps being sold?", True), (PROGRESSIVE_FORM, "When is the wedding?", False),
    (PROGRESSIVE_FORM, "When's the next watch meeting?", False), (PROGRESSIVE_FORM, "How's everything?", False),
])
def test_question_forms(pattern, text: str, expected: bool) -> None:  # type: ignore[no-untyped-def]
    assert bool(pattern.search(text)) is expected


@pytest.mark.parametrize("text, expected", [
    ("I've switched to decaf", True), ("现在改成早上去健身房", True), ("I love mushroom risotto", False),
    ("我最喜欢每天早上跑五公里", False), ("For the reunion this time I want a small table, not the big hall", True),
    ("周末还是改去爬山吧", True), ("这回想坐高铁", True), ("我一直想学改装车", False),
])
def test_change_wording(text: str, expected: bool) -> None:
    assert says_change(text) is expected


@pytest.mark.parametrize(("query", "kind"), [("Is a scary film a good idea this weekend?", "preference"),
                                             ("Which cinema shows horror films this weekend?", "fact_lookup")])
def test_settle_reads_an_advice_question_as_a_preference_question(mem: mnemir.Memory, now: datetime, query: str,
                                                                  kind: str) -> None:
    cinema = add(mem, now, "The Roxy shows horror double bills every weekend", "Fact",
                 {"entity": "the Roxy", "attribute": "weekend programme", "value": "horror double bills"}, days=20)
    likes = add(mem, now, "We love Studio Ghibli films", "Preference", {"subject": "Ghibli films",
                                                                       "preference_type": "like"}, days=90)
    pool = [Candidate(cinema, similarity=0.55), Candidate(likes, similarity=0.3)]
    unsure = intent(query, "open_tasks", ("Task", "Plan"), confidence=0.4)

    assert settle(unsure, pool, RankingConfig(), now).kind == kind


@pytest.mark.parametrize(("query", "kind"), [
    ("这两天练琴还顺吗？", "emotion"),  # asked about now, no fact or task wording: how it is going for the user
    ("这两天练琴的课时费是多少？", "fact_lookup"),  # asked about now, but a fact question
])
def test_settle_hears_how_it_goes_now_as_a_feeling_question(mem: mnemir.Memory, now: datetime, query: str,
                                                            kind: str) -> None:
    lessons = add(mem, now, "钢琴课每周六上午十点上，一节课三百块", "Fact",
                  {"entity": "钢琴课", "attribute": "时间和课时费", "value": "周六十点 300元"}, days=20)
    easier = add(mem, now, "这周终于把那首曲子弹下来了，心里挺美的", "EmotionalState",
                 {"emotion_type": "joy", "intensity": 0.6, "trigger": "练琴进步"}, days=1)
    pool = [Candidate(lessons, similarity=0.45), Candidate(easier, similarity=0.4)]
    unsure = intent(query, "fact_lookup", ("Fact", "Hypothesis"), confidence=0.4)

    assert settle(unsure, pool, RankingConfig(), now).kind == kind
