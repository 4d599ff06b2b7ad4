"""remember / ingest / intent on a real SQLite memory with the real default embedder."""

from datetime import datetime

import pytest

import mnemir
from mnemir.errors import ValidationError


def test_remember_stores_a_task_with_provenance(mem: mnemir.Memory, wed: datetime) -> None:
    stored = mem.remember("帮我下周五之前把报销单交了", user="alice", session="s1", turn=3, now=wed)
    [task] = stored
    assert task.type == "Task"
    assert task.properties["deadline"] == "2026-03-13"
    assert task.properties["status"] == "pending"
    assert task.scope.user_id == "alice"
    source = task.metadata.source
    assert (source.speaker, source.session_id, source.turn) == ("user", "s1", 3)
    assert source.creator.startswith("mnemir.understand")
    assert mem.get(task.id, user="alice").id == task.id


def test_chit_chat_is_kept_only_as_a_dialogue_act(mem: mnemir.Memory, wed: datetime) -> None:
    [act] = mem.remember("好的，谢谢", user="alice", now=wed)
    assert act.type == "DialogueAct"
    assert act.properties["act_type"] == "thanks"
    assert mem.count(types=["Fact"], user="alice") == 0


def test_a_completion_report_updates_the_task_instead_of_adding_one(mem: mnemir.Memory, wed: datetime) -> None:
    [task] = mem.remember("帮我下周五之前把报销单交了", user="alice", now=wed)
    mem.remember("明天提醒我给房东打电话", user="alice", now=wed)
    result = mem.remember("报销单已经交上去了", user="alice", now=wed)
    assert result.created == []
    [updated] = result.updated
    assert updated.id == task.id
    assert updated.properties["status"] == "completed"
    assert mem.count(types=["Task"], user="alice") == 2
    reasons = " ".join(h.reason for h in mem.history(task.id, user="alice"))
    assert "报销单已经交上去了" in reasons and "similarity" in reasons


def test_updates_never_reach_another_users_task(mem: mnemir.Memory, wed: datetime) -> None:
    [bobs] = mem.remember("please book the flight to Tokyo", user="bob", now=wed)
    result = mem.remember("the flight is booked", user="alice", now=wed)
    assert result.updated == []
    assert any("no open task" in n for n in result.notes)
    assert mem.get(bobs.id, user="bob").properties["status"] == "pending"


def test_an_unclear_update_asks_instead_of_guessing(mem: mnemir.Memory, wed: datetime) -> None:
    first = mem.remember("帮我写季度报告", user="carol", now=wed)[0]
    second = mem.remember("帮我写年度报告", user="carol", now=wed)[0]
    result = mem.remember("报告写完了", user="carol", now=wed)
    assert result.updated == []
    [question] = result.confirmations
    assert {c.id for c in question.candidates} == {first.id, second.id}
    assert all(c.reasons for c in question.candidates)
    done = mem.confirm(question, second.id)
    assert done.properties["status"] == "completed"
    assert mem.get(first.id, user="carol").properties["status"] == "pending"


def test_a_correction_supersedes_the_old_fact(mem: mnemir.Memory, wed: datetime) -> None:
    [old] = mem.remember("I live in Shanghai", user="dan", now=wed)
    result = mem.remember("actually I moved to Hangzhou, not Shanghai", user="dan", now=wed)
    [new] = result
    assert new.properties["value"] == "Hangzhou"
    assert any(r.relation == "supersedes" and r.target == old.id for r in new.relationships)
    assert mem.get(old.id, user="dan").status.value == "superseded"
    live = mem.list(types=["Fact"], user="dan")
    assert [f.id for f in live] == [new.id]


def test_plan_steps_are_linked_to_their_task(mem: mnemir.Memory, wed: datetime) -> None:
    stored = mem.remember("To move to Berlin, first get the visa, then find a flat, and finally ship the boxes.",
                          user="erin", now=wed)
    [task] = [m for m in stored if m.type == "Task"]
    steps = [m for m in stored if m.type == "Plan"]
    assert len(steps) == 3
    for step in steps:
        assert step.properties["associated_task_id"] == task.id
        assert any(r.relation == "subtask_of" and r.target == task.id for r in step.relationships)


def test_entities_link_across_languages(mem: mnemir.Memory, wed: datetime) -> None:
    [task] = mem.remember("帮我订下周五去上海的机票", user="fay", now=wed)
    [fact] = mem.remember("My sister lives in Shanghai", user="fay", now=wed)
    links = [r for r in fact.relationships if r.relation == "related_to_entity"]
    assert any(r.target == task.id and r.properties["entity"] == "shanghai" for r in links)


def test_entity_links_stay_inside_the_user(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("I live in Shanghai", user="gus", now=wed)
    [fact] = mem.remember("上海今天下大雨", user="hal", now=wed)
    assert not [r for r in fact.relationships if r.relation == "related_to_entity"]


def test_ingest_reads_a_conversation_in_order(mem: mnemir.Memory, wed: datetime) -> None:
    result = mem.ingest([
        {"speaker": "user", "text": "帮我订周五去北京的机票"},
        {"speaker": "assistant", "text": "好的，已经帮你订好了周五去北京的机票"},
        ("user", "我对花生过敏，但特别喜欢吃川菜"),
        "好的，谢谢",
    ], user="ivy", session="s2", now=wed)
    [task] = result.updated
    assert task.properties["status"] == "completed"
    created = {(m.type, m.metadata.source.turn) for m in result.created}
    assert created == {("Task", 0), ("Fact", 2), ("Preference", 2), ("DialogueAct", 3)}
    assert all(m.metadata.source.session_id == "s2" for m in result.created)


def test_ingest_checks_every_turn_before_writing(mem: mnemir.Memory, wed: datetime) -> None:
    with pytest.raises(ValidationError) as info:
        mem.ingest(["帮我订机票", {"speaker": "alien", "text": "hi"}], user="jo", now=wed)
    assert info.value.field == "turns[1].speaker"  # the turn it is in
    assert mem.count(user="jo") == 0


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"text": ""}, "text"), ({"text": "x" * 1_000_000}, "text"), ({"text": b"\xff\xfe"}, "text"),
    ({"text": "hi", "speaker": "nobody"}, "speaker"), ({"text": "hi", "turn": -1}, "turn"),
])
def test_bad_input_writes_nothing(mem: mnemir.Memory, wed: datetime, kwargs: dict, field: str) -> None:
    text = kwargs.pop("text")
    with pytest.raises(ValidationError) as info:
        mem.remember(text, user="kim", now=wed, **kwargs)
    assert info.value.field == field
    assert mem.count(user="kim") == 0


def test_intent_on_the_facade(mem: mnemir.Memory, wed: datetime) -> None:
    intent = mem.intent("帮我看看还剩哪几件事没搞定", now=wed)
    assert intent.types[0] == "Task"
    assert intent.where == {"status": {"$in": ["pending", "in_progress"]}}
    open_task = mem.add("给房东转这个月的房租", "Task", {"goal": "转房租", "status": "pending"}, user="kim", now=wed)
    mem.add("把旧沙发卖掉", "Task", {"goal": "卖旧沙发", "status": "completed"}, user="kim", now=wed)
    hits = mem.search(intent.query, types=intent.types, where=intent.where, user="kim")
    assert [h.id for h in hits] == [open_task.id]  # the intent's filter keeps the done task out


def test_a_report_on_a_plan_step_moves_that_step(mem: mnemir.Memory, wed: datetime) -> None:
    stored = mem.remember("为了暑假去云南玩，我们先办签证，再订酒店，最后排行程", user="lee", now=wed)
    visa = next(m for m in stored if m.type == "Plan" and m.content.text == "办签证")
    result = mem.remember("签证已经办好了", user="lee", now=wed)
    assert [m.id for m in result.updated] == [visa.id]
    assert mem.get(visa.id, user="lee").properties["status"] == "completed"
    others = [m for m in mem.list(types=["Plan"], user="lee") if m.id != visa.id]
    assert {m.properties["status"] for m in others} == {"pending"}


@pytest.mark.parametrize("turns", [
    "just one string",
    [{"text": "帮我订机票", "now": datetime(2026, 3, 4, 10)}],
    [("user",)],
    [{"speaker": "user"}],
])
def test_ingest_rejects_malformed_conversations(mem: mnemir.Memory, wed: datetime, turns: object) -> None:
    with pytest.raises(ValidationError):
        mem.ingest(turns, user="max", now=wed)  # type: ignore[arg-type]
    assert mem.count(user="max") == 0


@pytest.mark.parametrize("turn", [-1, 2**63, True, "3"])
def test_a_turn_number_out_of_range_is_refused_with_our_error_and_nothing_is_written(mem: mnemir.Memory, wed: datetime,
                                                                                      turn: object) -> None:
    with pytest.raises(ValidationError) as info:
        mem.remember("My new bike lock code is four digits long", user="alice", turn=turn, now=wed)  # type: ignore[arg-type]
    assert info.value.context["field"] == "turn" and info.value.context["value"] == repr(turn)
    assert mem.count(user="alice") == 0
    with pytest.raises(ValidationError) as info:
        mem.ingest([{"speaker": "user", "text": "My new bike lock code is four digits long", "turn": turn}],
                   user="alice", now=wed)
    assert info.value.context["field"] == "turns[0].turn"
    assert mem.count(user="alice") == 0
    mem.remember("My new bike lock code is four digits long", user="alice", turn=2**63 - 1, now=wed)
    assert mem.count(user="alice") > 0  # the largest turn a store keeps is accepted
