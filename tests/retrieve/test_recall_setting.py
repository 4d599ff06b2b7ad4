"""The present setting and the present moment: the frame in force answers a frame question, a fact of another frame
gives way to the active frame's, a task's finished steps sit below its open ones, and feelings asked about now."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.ranking import RankingConfig
from mnemir.retrieve.recall import RecallConfig
from mnemir.retrieve.wording import asks_about_now

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")


@pytest.fixture
def lessons(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    old = add(mem, now, "Guitar lesson on barre chords", "ContextualFrame",
              {"frame_type": "tutorial", "topic": "barre chords", "active": False}, days=10)
    active = add(mem, now, "Lesson with coach Lin on the Caro-Kann defence", "ContextualFrame",
                 {"frame_type": "tutorial", "topic": "Caro-Kann defence", "active": True}, hours=1)
    add(mem, now, "Practise ten tactics puzzles every evening", "Task", {"goal": "tactics", "status": "pending"},
        days=3)
    return {"old": old, "active": active}


@pytest.mark.parametrize("query", ["What's this lesson about?", "Which opening are we working on today?",
                                   "这节课学的是什么？"])
def test_a_frame_question_is_answered_by_the_frame_in_force(mem: mnemir.Memory, now: datetime, query: str,
                                                            lessons: dict[str, mnemir.MemIR]) -> None:
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "frame", ("ContextualFrame",)))
    ids = [h.id for h in result.hits]

    assert ids[0] == lessons["active"].id
    assert lessons["old"].id not in ids  # an ended setting is replaced by the one in force
    rendered = result.context.render()
    assert rendered.count("Caro-Kann") == 1  # shown once, as the setting


def test_a_frame_question_also_gets_what_was_said_in_the_session(mem: mnemir.Memory, now: datetime,
                                                                  lessons: dict[str, mnemir.MemIR]) -> None:
    said = add(mem, now, "In the Caro-Kann, black answers 1.e4 with c6", "Fact",
               {"entity": "Caro-Kann", "attribute": "first move", "value": "c6"}, hours=0.5,
               relationships=[{"target": lessons["active"].id, "relation": "in_frame"}])
    query = "What are we covering in this session?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "frame", ("ContextualFrame",)))
    ids = [h.id for h in result.hits]

    assert ids[:2] == [lessons["active"].id, said.id]
    assert any("said in the session" in r for r in result.hits[1].reasons)


def test_an_ended_frame_answers_a_question_about_the_past(mem: mnemir.Memory, now: datetime,
                                                         lessons: dict[str, mnemir.MemIR]) -> None:
    query = "What was the lesson about last time?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "frame", ("ContextualFrame",)))
    assert lessons["old"].id in [h.id for h in result.hits]


def test_other_questions_still_show_the_frame_apart(mem: mnemir.Memory, now: datetime,
                                                    lessons: dict[str, mnemir.MemIR]) -> None:
    query = "What do I practise every evening?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "open_tasks", ("Task", "Plan")))
    assert lessons["active"].id not in [h.id for h in result.hits]
    assert result.context.frame is not None and result.context.frame.id == lessons["active"].id


def test_a_fact_of_another_frame_gives_way_on_the_same_attribute(mem: mnemir.Memory, now: datetime) -> None:
    lab = add(mem, now, "Call with the print lab about the street series", "ContextualFrame",
              {"frame_type": "meeting", "topic": "print lab", "active": False}, days=40)
    lab_size = add(mem, now, "They want the prints at 30 by 40 cm on matte paper", "Fact",
                   {"entity": "lab prints", "attribute": "print size", "value": "30x40"}, days=40,
                   relationships=[{"target": lab.id, "relation": "in_frame"}])
    gallery = add(mem, now, "Meeting with the Northlight gallery about my exhibition", "ContextualFrame",
                  {"frame_type": "meeting", "topic": "Northlight", "active": True}, hours=1)
    gallery_size = add(mem, now, "They want the prints at 50 by 70 cm, framed in oak", "Fact",
                       {"entity": "gallery prints", "attribute": "print size", "value": "50x70"}, hours=0.5,
                       relationships=[{"target": gallery.id, "relation": "in_frame"}])
    query = "What size do the prints need to be?"
    # no floor: the other frame's fact would be shown (demoted) if it were not replaced
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.0, min_score=0.0))

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    ids = [h.id for h in result.hits]

    assert ids[0] == gallery_size.id
    assert lab_size.id not in ids
    assert any(lab_size.id in note and "left out" in note for note in result.notes)


@pytest.fixture
def router(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    task = add(mem, now, "把家里的网络换成新买的mesh路由器", "Task", {"goal": "换mesh路由器", "status": "in_progress"},
               days=10)
    out = {"task": task}
    for order, (text, status) in enumerate([("先把主路由接到光猫上", "completed"),
                                            ("再把两个子节点放到书房和卧室", "in_progress"),
                                            ("最后把智能家居设备都重新连到新网络", "pending")], start=1):
        out[f"step{order}"] = add(mem, now, text, "Plan", {"associated_task_id": task.id, "order": order,
                                                           "status": status},
                                  days=9, relationships=[{"target": task.id, "relation": "step_of"}])
    return out


def test_a_finished_step_ranks_below_the_open_steps_of_the_task_asked_about(
        mem: mnemir.Memory, now: datetime, router: dict[str, mnemir.MemIR]) -> None:
    query = "路由器弄到哪了？"
    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "task_status", ("Task", "Plan")))
    ids = [h.id for h in result.hits]

    assert ids.index(router["step1"].id) > max(ids.index(router["step2"].id), ids.index(router["step3"].id))
    done = next(h for h in result.hits if h.id == router["step1"].id)
    assert any("below its open steps" in r for r in done.reasons)


def test_a_question_about_the_finished_step_itself_keeps_it_first(mem: mnemir.Memory, now: datetime,
                                                                  router: dict[str, mnemir.MemIR]) -> None:
    query = "主路由接到光猫上了吗？"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "task_status", ("Task", "Plan")))
    assert result.hits[0].id == router["step1"].id


def test_asked_about_now_an_old_feeling_gives_way_to_a_recent_one(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "Our guest pulled out an hour before recording the podcast, I was absolutely livid",
              "EmotionalState", {"emotion_type": "anger", "intensity": 0.9}, days=25)
    add(mem, now, "The podcast has passed 10,000 downloads in total", "Fact",
        {"entity": "the podcast", "attribute": "total downloads", "value": "10000"}, days=3)
    proud = add(mem, now, "Hitting ten thousand downloads made me so proud of what we've built", "EmotionalState",
                {"emotion_type": "joy", "intensity": 0.8}, days=3)
    query = "Am I still enjoying doing the podcast?"

    result = mem.recall(query, user="alice", k=3, now=now,
                        intent=intent(query, "emotion", ("EmotionalState", "Preference", "Fact")))
    ids = [h.id for h in result.hits]

    assert ids[0] == proud.id
    assert old.id not in ids[:2]
    assert any("asks about now" in r for h in result.hits if h.id == old.id for r in h.reasons)


@pytest.mark.parametrize(("query", "expected"), [
    ("Am I still enjoying the podcast?", True), ("最近学日语劲头还足吗？", True), ("How do I feel lately?", True),
    ("How did I feel after the exam last spring?", False), ("那次考试我是什么感受？", False),
    ("我当时还挺开心的吧？", False), ("Was I still upset back then?", False),
])
def test_asks_about_now(query: str, expected: bool) -> None:
    assert asks_about_now(query) is expected


def test_asked_for_advice_a_present_circumstance_comes_before_an_old_preference(mem: mnemir.Memory,
                                                                                now: datetime) -> None:
    loves = add(mem, now, "女儿特别喜欢弹钢琴，每天主动练一小时", "Preference",
                {"subject": "女儿练钢琴", "preference_type": "like"}, days=350)
    wrist = add(mem, now, "女儿上周扭了手腕，医生说两周内别弹琴", "Fact",
                {"entity": "女儿", "attribute": "手腕扭伤", "value": "两周别弹琴"}, days=4)
    query = "这周末要不要让女儿多练几遍琴？"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "preference", ("Preference", "Fact")))
    ids = [h.id for h in result.hits]

    assert ids.index(wrist.id) < ids.index(loves.id)
    assert result.hits[0].role == "current"
    assert "present circumstance" in result.context.render()
