"""Dialogue state, session 16 (issue 15, docs/decisions/0050): work the assistant offered to do itself is done once
it delivers it; a terse choice is kept as a decision whatever type the extractor gave it. Real SQLite memory and
the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say, shown_turns

import mnemir
from mnemir.ir import MemIR
from mnemir.memory.understanding import OFFERED, _choice_of, _names_a_value
from mnemir.retrieve.judgements import CORRECTS

START = datetime(2026, 11, 9, 19, 0, tzinfo=UTC)


def _tasks(mem: mnemir.Memory, user: str) -> list[MemIR]:
    return [r for r in mem.list(user=user, types=["Task"])]


def _offered(mem: mnemir.Memory, user: str) -> MemIR:
    [task] = [t for t in _tasks(mem, user) if OFFERED in t.metadata.extra["extraction"]["reasons"]]
    return task


# -- the assistant's offer to do the work itself --------------------------------------------------------------------
BOILER = [
    ("user", "The boiler has been off since Sunday and I still have to tell the landlord."),
    ("assistant", "Shall I draft the message to your landlord for you?"),
    ("user", "Yes please."),
    ("assistant", "Here's a draft: 'Dear Mr Holt, the boiler has not worked since Sunday and there is no hot water. "
                  "Could you arrange a repair this week? Thank you.'"),
]


def test_an_offer_the_assistant_delivers_is_done(mem: mnemir.Memory) -> None:
    say(mem, BOILER[:3], user="oli", start=START)
    task = _offered(mem, "oli")
    assert task.properties["status"] == "pending"  # accepted, not yet delivered
    say(mem, BOILER, user="oli2", start=START)
    assert _offered(mem, "oli2").properties["status"] == "completed"


def test_an_offer_put_off_stays_open(mem: mnemir.Memory) -> None:
    turns = [*BOILER[:3], ("assistant", "Will do once you tell me the landlord's name.")]
    say(mem, turns, user="pia", start=START)
    assert _offered(mem, "pia").properties["status"] == "pending"


def test_a_bare_acknowledgement_delivers_nothing(mem: mnemir.Memory) -> None:
    say(mem, [*BOILER[:3], ("assistant", "Sure, on it.")], user="pia2", start=START)
    assert _offered(mem, "pia2").properties["status"] == "pending"


def test_an_offered_reminder_keeps_the_users_work_open(mem: mnemir.Memory) -> None:
    turns = [("assistant", "Want me to remind you to renew the parking permit on Friday?"), ("user", "Yes, do that."),
             ("assistant", "Done: a reminder on Friday to renew the parking permit before it runs out at the end "
                           "of the month.")]
    say(mem, turns, user="quin", start=START)
    [task] = _tasks(mem, "quin")
    assert OFFERED not in task.metadata.extra["extraction"]["reasons"]
    assert task.properties["status"] == "pending"


def test_a_chinese_offer_delivered_is_done(mem: mnemir.Memory) -> None:
    turns = [("user", "周末要给爸妈收拾一下阳台，东西太多了。"), ("assistant", "要不要我帮你把阳台要收的东西分分类？"), ("user", "行啊，你分一下。"),
             ("assistant", "收纳清单：1. 旧花盆分大小叠放 2. 工具放进带盖的箱子 3. 不用的纸箱压扁回收 4. 换季衣物装真空袋 5. 挂钩挂扫帚和拖把")]
    say(mem, turns, user="rui", start=START)
    assert _offered(mem, "rui").properties["status"] == "completed"


# -- a terse choice is a decision -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [("Okay, the green tent it is.", "green tent"),
                                             ("We've gone with the cheaper quote in the end.", "cheaper quote"),
                                             ("那就周六吧，人少一点。", "周六"), ("定东边那家了！", "东边那家"),
                                             ("决定了，报游泳班。", "报游泳班")])
def test_a_terse_choice_names_what_was_chosen(text: str, value: str) -> None:
    props = _choice_of(text)
    assert props is not None and props["attribute"] == "decision" and value in str(props["value"])


@pytest.mark.parametrize("text", ["Maybe we should go for the red one?", "我还在犹豫选哪个。", "我们约定了周五见面。",
                                  "It is what it is.", "I need to ring the bank tomorrow.", "搞定了！",
                                  "那就这样吧。"])
def test_no_choice_without_one_made(text: str) -> None:
    assert _choice_of(text) is None


def test_a_terse_choice_is_kept_as_a_decision(mem: mnemir.Memory) -> None:
    turns = [("user", "For the spare room we're torn between the pine bunk bed and the white daybed."),
             ("assistant", "Both fit. The daybed doubles as a sofa; the bunk sleeps two."),
             ("user", "Honestly the kids loved climbing on it at the shop. The pine bunk bed it is.")]
    say(mem, turns, user="sol", start=START)
    decisions = [r for r in mem.list(user="sol", types=["Fact"]) if r.properties.get("attribute") == "decision"]
    assert decisions and "bunk" in str(decisions[0].properties["value"]).lower()
    hits = mem.recall("What did we decide on for the spare room bed?", user="sol", k=5).hits
    assert any(h.memory.id == decisions[0].id or decisions[0].id in {r.target for r in h.memory.relationships}
               for h in hits), [(h.memory.type, h.memory.content.text) for h in hits]


def test_a_chinese_terse_choice_is_kept_as_a_decision(mem: mnemir.Memory) -> None:
    turns = [("user", "孩子的兴趣班，是报围棋还是报篮球，我俩商量了好几天。"),
             ("assistant", "两个都不错，看孩子更喜欢哪个。"),
             ("user", "他自己说想打球，那就篮球吧，周末上课。")]
    say(mem, turns, user="tao", start=START)
    decisions = [r for r in mem.list(user="tao", types=["Fact"]) if r.properties.get("attribute") == "decision"]
    assert decisions and "篮球" in str(decisions[0].properties["value"])


def test_a_question_about_a_choice_is_no_decision(mem: mnemir.Memory) -> None:
    say(mem, [("user", "Should we go for the pine bunk bed or the white daybed?")], user="uri", start=START)
    assert not [r for r in mem.list(user="uri", types=["Fact"]) if r.properties.get("attribute") == "decision"]


# -- a value taken back, whatever the utterance was read as ---------------------------------------------------------
@pytest.mark.parametrize(("value", "names"), [("the 3rd", True), ("Denver", True), ("7月1号", True), ("20桌", True),
                                              ("yet", False), ("really", False), ("不太", False)])
def test_what_names_a_value(value: str, names: bool) -> None:
    assert _names_a_value(value) is names


def test_a_moved_date_takes_back_the_date_said_before(mem: mnemir.Memory) -> None:
    turns = [("user", "My sister Maren's wedding is on the 6th of June, in Bergen."),
             ("assistant", "How lovely! Are you flying over?"),
             ("user", "Yes, and the car needs its MOT next week too."),
             ("user", "Oh, Maren's wedding got moved: it's the 20th of June now, not the 6th.")]
    say(mem, turns, user="vik", start=START)
    said = [r for r in mem.list(user="vik") if r.metadata.source.turn == 4]
    taken_back = {rel.target for r in said for rel in r.relationships if rel.relation == CORRECTS}
    first = {r.id for r in mem.list(user="vik") if r.metadata.source.turn == 1}
    assert taken_back & first, [(r.type, r.content.text, r.relationships) for r in said]
    # the utterance and the statement read from it both take it back (recall judges what a shown memory links)
    takers = {r.type for r in said if any(rel.relation == CORRECTS for rel in r.relationships)}
    assert {"Episode", "Fact"} <= takers
    assert all(rel.target not in {r.id for r in said} for r in said for rel in r.relationships
               if rel.relation == CORRECTS)  # never itself


def test_a_postponed_task_stays_open(mem: mnemir.Memory) -> None:
    turns = [("user", "新房3月20号交钥匙，我得提前请好假去验房。"), ("user", "另外这周五要交物业费。"),
             ("user", "开发商通知交房改到4月2号了，不是3月20号。")]
    say(mem, turns, user="wei", start=START)
    [task] = [t for t in _tasks(mem, "wei") if t.metadata.source.turn == 1]
    assert task.properties["status"] == "pending"
    hits = mem.recall("这两周我手头还剩什么活要干？", user="wei", k=5).hits
    assert 1 in {t for turns in shown_turns(hits) for t in turns}


# -- work needed no more ---------------------------------------------------------------------------------------------
def test_work_needed_no_more_drops_the_open_task(mem: mnemir.Memory) -> None:
    turns = [("user", "I have to order new curtains for the bedroom."), ("user", "And I should call the bank."),
             ("user", "My mum is sewing curtains for us, no need to order the bedroom curtains.")]
    say(mem, turns, user="xan", start=START)
    by_turn = {t.metadata.source.turn: t for t in _tasks(mem, "xan")}
    assert by_turn[1].properties["status"] == "failed"
    assert by_turn[2].properties["status"] == "pending"  # the other task is left alone
    assert 3 not in by_turn  # no new task from the report


@pytest.mark.parametrize("text", ["No need to remind me about anything else today.", "我不需要你提醒了吗？"])
def test_no_task_dropped_without_one_it_clearly_fits(mem: mnemir.Memory, text: str) -> None:
    say(mem, [("user", "I need to renew the parking permit."), ("user", text)], user="yul", start=START)
    [task] = [t for t in _tasks(mem, "yul") if t.metadata.source.turn == 1]
    assert task.properties["status"] == "pending"
