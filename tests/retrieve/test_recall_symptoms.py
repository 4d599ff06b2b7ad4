"""The seed's three symptoms of source-role collapse, end to end through mem.recall on a real store."""

from __future__ import annotations

from datetime import datetime

from recall_helpers import add

import mnemir


def test_task_does_not_pollute_a_fact_question(mem: mnemir.Memory, now: datetime) -> None:
    flight = add(mem, now, "帮我订下周五去上海的机票", "Task", {"goal": "订机票", "status": "pending"}, days=3)
    hotel = add(mem, now, "帮我订上海外滩附近的酒店", "Task", {"goal": "订酒店", "status": "completed"}, days=2)
    weather = add(mem, now, "上海今天晴，25摄氏度", "Fact",
                  {"entity": "上海", "attribute": "weather", "value": "晴 25°C", "source": "external",
                   "confidence": 0.95}, hours=2, speaker="tool")

    result = mem.recall("上海天气怎么样", user="alice", k=3, now=now)

    assert result.hits[0].id == weather.id
    assert result.hits[0].role == "answer"
    assert {flight.id, hotel.id}.isdisjoint(h.id for h in result.hits)
    # the plain unfiltered vector query the seed warns about does bring the task back
    assert flight.id in {h.id for h in mem.search("上海天气怎么样", user="alice", k=3)}


def test_present_state_ranks_above_an_old_preference(mem: mnemir.Memory, now: datetime) -> None:
    coffee = add(mem, now, "I like my coffee black, no sugar", "Preference",
                 {"subject": "coffee", "preference_type": "like", "strength": 0.8}, days=40)
    flu = add(mem, now, "I've got the flu and my throat is really sore", "Fact",
              {"entity": "user", "attribute": "health", "value": "flu, sore throat"}, hours=5)

    result = mem.recall("I want something hot to drink, any suggestions?", user="alice", k=5, now=now)
    order = [h.id for h in result.hits]

    assert flu.id in order
    assert result.hits[order.index(flu.id)].role == "current"
    assert coffee.id in order  # the preference stays, as background, below the present state
    assert order.index(flu.id) < order.index(coffee.id)
    assert result.hits[order.index(coffee.id)].role == "background"


def test_an_old_outburst_does_not_colour_a_calm_question(mem: mnemir.Memory, now: datetime) -> None:
    rant = add(mem, now, "这个破软件FlowDesk我再也受不了了！", "EmotionalState",
               {"emotion_type": "anger", "intensity": 0.9, "trigger": "软件崩溃"}, days=21)
    release = add(mem, now, "FlowDesk 5.0 新版本增加了离线模式和自动保存功能", "Fact",
                  {"entity": "FlowDesk", "attribute": "新版本功能", "value": "离线模式", "source": "external",
                   "confidence": 0.9}, days=2, speaker="tool")

    query = "FlowDesk最新版本更新了哪些功能？"
    sure = mem.intent(query, now=now).override(kind="fact_lookup", types=("Fact",), where=None, confidence=0.95)
    for result in (mem.recall(query, user="alice", k=5, now=now),
                   mem.recall(query, user="alice", k=5, now=now, intent=sure)):
        assert result.hits[0].id == release.id
        # fading moves it down, it does not hide the event: at most a faded caution below the answer, labelled as
        # an old feeling in the prompt, never an answer
        for hit in result.hits[1:]:
            if hit.id == rant.id:
                assert hit.role == "caution" and "faded" in hit.flags
                assert "faded: an old feeling" in result.context.render()


def test_a_fresh_outburst_is_a_damped_caution_below_the_answer(mem: mnemir.Memory, now: datetime) -> None:
    rant = add(mem, now, "这个破软件FlowDesk又崩溃了，我再也受不了了！", "EmotionalState",
               {"emotion_type": "anger", "intensity": 0.9, "trigger": "软件崩溃"}, hours=1)
    release = add(mem, now, "FlowDesk 5.0 新版本增加了离线模式和自动保存功能", "Fact",
                  {"entity": "FlowDesk", "attribute": "新版本功能", "value": "离线模式", "source": "external",
                   "confidence": 0.9}, days=2, speaker="tool")

    result = mem.recall("FlowDesk最新版本更新了哪些功能？", user="alice", k=5, now=now)
    ids = [h.id for h in result.hits]

    assert ids[0] == release.id
    assert rant.id in ids
    caution = result.hits[ids.index(rant.id)]
    assert caution.role == "caution"
    assert any("damped" in r for r in caution.reasons)
