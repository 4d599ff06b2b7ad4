"""Dialogue state, session 17 (issue 15, docs/decisions/0057): a correction that quotes what the speaker said before
names the value it takes back; a terse report of done work is matched through its whole utterance; a change of mind
takes back the earlier utterance it replaces. Real SQLite memory and the real default embedder; every sentence is
made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say, shown_turns

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.memory.understanding import _said_before
from mnemir.retrieve.judgements import CORRECTS
from mnemir.understand import Extractor

START = datetime(2026, 11, 9, 19, 0, tzinfo=UTC)


# -- what was said before, quoted and taken back ---------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("Sorry, I told you the deposit was £350. It's actually £420.", "£350"),
    ("Hmm, the 12k I told you was wrong, it's nearer 15k.", "12k"),
    ("Correction: I said the shed was 3 metres wide but it's 2.5.", "3"),
    ("Oh wait, I said the match was on March 8, right? It's March 15.", "March 8"),
    ("我上次说它3.5公斤，今天一称其实是4.3公斤。", "3.5公斤"),
    ("纠正：我先前说在徐汇上班，其实公司一直在闵行。", "徐汇上班"),
])
def test_a_quoted_earlier_value_is_named(text: str, value: str) -> None:
    assert _said_before(text) == value


@pytest.mark.parametrize("text", ["As I said before, I love it.", "I told you I would call her, and I did.",
                                  "I said no to the offer.", "I told my boss I was wrong about the dates.",
                                  "Oh, the balance I gave you was off.", "我之前说的时间记错了。",
                                  "I told you the deposit was £350 and the agent agreed."])
def test_nothing_named_without_a_value_taken_back(text: str) -> None:
    assert _said_before(text) is None


def test_a_correction_quoting_the_old_value_replaces_it(mem: mnemir.Memory) -> None:
    turns = [("user", "The rent for the flat is £350 a week, due every Friday."), ("assistant", "Noted, £350 by Friday."),
             ("user", "Also the boiler is making a ticking noise again."),
             ("user", "Sorry, I told you the rent was £350. It's actually £420, the agent emailed me.")]
    say(mem, turns, user="ana", start=START)
    [old] = [r for r in mem.list(user="ana", types=["Fact"], statuses=["superseded"])]
    assert old.metadata.source.turn == 1
    hits = mem.recall("How much rent do I pay for the flat?", user="ana", k=5).hits
    shown = set().union(*shown_turns(hits))
    assert 4 in shown and 1 not in shown, [(h.memory.type, h.memory.content.text) for h in hits]


def test_a_chinese_correction_quoting_the_old_value_replaces_it(mem: mnemir.Memory) -> None:
    turns = [("user", "我家猫团子三岁了，现在3.5公斤。"), ("assistant", "三岁正是活泼的时候。"), ("user", "最近想给它换个猫砂。"),
             ("user", "对了，我上次说它3.5公斤，今天去医院一称其实是4.3公斤。")]
    say(mem, turns, user="bo", start=START)
    superseded = [r for r in mem.list(user="bo", statuses=["superseded"])]
    assert [r.metadata.source.turn for r in superseded] == [1]
    said = [r for r in mem.list(user="bo") if r.metadata.source.turn == 4]
    assert any(rel.relation == CORRECTS for r in said for rel in r.relationships)


def test_without_the_quote_rule_the_old_value_stays(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "SAID_BEFORE", False)
    turns = [("user", "我家猫团子三岁了，现在3.5公斤。"), ("user", "对了，我上次说它3.5公斤，今天去医院一称其实是4.3公斤。")]
    say(mem, turns, user="cy", start=START)
    said = [r for r in mem.list(user="cy") if r.metadata.source.turn == 2]
    assert not any(rel.relation == CORRECTS for r in said for rel in r.relationships)


# -- a terse report matched through its whole utterance --------------------------------------------------------------
REUNION = [("user", "I need to ring the Riverside Inn to see if Saturday the 9th is free for the reunion."),
           ("assistant", "Good idea, weekends go fast."),
           ("user", "Also I have to send the invitations to the old class list."),
           ("user", "Booked it!! The Riverside Inn, Saturday the 9th, from 7pm. Deposit of £200 paid.")]


def test_a_terse_report_closes_the_task_its_utterance_names(mem: mnemir.Memory) -> None:
    say(mem, REUNION, user="dee", start=START)
    by_turn = {t.metadata.source.turn: t for t in mem.list(user="dee", types=["Task"])}
    assert by_turn[1].properties["status"] == "completed"
    assert by_turn[3].properties["status"] == "pending"  # the other task is left alone
    assert 4 not in by_turn  # the report made no task of its own


def test_without_the_utterance_the_terse_report_matches_nothing(mem: mnemir.Memory,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "UTTERANCE_REPORTS", False)
    say(mem, REUNION, user="eve", start=START)
    by_turn = {t.metadata.source.turn: t for t in mem.list(user="eve", types=["Task"])}
    assert by_turn[1].properties["status"] == "pending"


def test_a_terse_report_between_two_close_tasks_moves_neither(mem: mnemir.Memory) -> None:
    turns = [("user", "I need to ring the Riverside Inn about the reunion dinner on Saturday."),
             ("user", "I also need to ring the Riverside Inn about the reunion lunch on Sunday."),
             ("user", "Booked it!! The Riverside Inn for the reunion, deposit paid.")]
    say(mem, turns, user="fay", start=START)
    statuses = {t.metadata.source.turn: t.properties["status"] for t in mem.list(user="fay", types=["Task"])
                if t.metadata.source.turn in (1, 2)}
    assert statuses == {1: "pending", 2: "pending"}


# -- a change of mind takes back the utterance it replaces -----------------------------------------------------------
GARDEN = [("user", "For the garden path I'm set on red brick pavers."), ("assistant", "Brick is lovely and lasts."),
          ("user", "The fence guy comes Tuesday."),
          ("user", "I've changed my mind on the path. Brick is too pricey, so we'll lay pea gravel instead.")]


def test_a_change_of_mind_takes_back_the_earlier_stance(mem: mnemir.Memory) -> None:
    say(mem, GARDEN, user="gus", start=START)
    first = {r.id for r in mem.list(user="gus") if r.metadata.source.turn == 1 and r.type == "Episode"}
    said = [r for r in mem.list(user="gus") if r.metadata.source.turn == 4]
    assert {rel.target for r in said for rel in r.relationships if rel.relation == CORRECTS} == first
    hits = mem.recall("What am I doing for the garden path now?", user="gus", k=5).hits
    shown = set().union(*shown_turns(hits))
    assert 4 in shown and 1 not in shown, [(h.memory.type, h.memory.content.text) for h in hits]


def test_without_the_change_rule_the_old_stance_shows(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "CHANGED_EPISODES", False)
    say(mem, GARDEN, user="hal", start=START)
    hits = mem.recall("What am I doing for the garden path now?", user="hal", k=5).hits
    assert 1 in set().union(*shown_turns(hits))


def test_a_new_preference_with_no_earlier_stance_takes_nothing_back(mem: mnemir.Memory) -> None:
    turns = [("user", "My brother Theo is visiting in March."), ("assistant", "Lovely, how long is he staying?"),
             ("user", "From now on, keep replies brief, since I mostly read them on a phone.")]
    say(mem, turns, user="ivo", start=START)
    assert not [rel for r in mem.list(user="ivo") for rel in r.relationships if rel.relation == CORRECTS]


@pytest.mark.parametrize(("value", "names"), [("planning", False), ("booked", False), ("great", False),
                                              ("before", False), ("morning", True), ("Denver", True)])
def test_a_verb_form_or_a_judgement_names_no_value(value: str, names: bool) -> None:
    assert understanding._names_a_value(value) is names


def test_a_correction_of_a_date_closes_no_work(mem: mnemir.Memory) -> None:
    turns = [("user", "I'm going to run a stall at the Harbour craft fair on the 12th of April, sign-up closes Friday."),
             ("assistant", "Sounds fun! What will you sell?"),
             ("user", "Correction: the Harbour craft fair is on the 19th of April, not the 12th. I misread the poster.")]
    say(mem, turns, user="jo", start=START)
    work = [r for r in mem.list(user="jo", types=["Task", "Plan"]) if r.metadata.source.turn == 1]
    assert work and all(r.properties.get("status", "pending") in ("pending", "in_progress") for r in work)


# -- an assistant's bare 已经 reports no work of its own --------------------------------------------------------------
@pytest.mark.parametrize(("text", "update"), [("放心，这条规定员工手册里已经写清楚了，你翻到第三章就能看到。", False),
                                              ("这家店的营业时间已经改成晚上十点关门。", False),
                                              ("我已经帮你把周五的会议室取消了。", True),
                                              ("机票已经订好了，周五早上八点的航班。", True)])
def test_an_assistant_update_needs_its_own_work_in_chinese(extractor: Extractor, wed: datetime, text: str,
                                                            update: bool) -> None:
    result = extractor.extract(text, speaker="assistant", now=wed)
    assert any(d.kind == "update" for d in result.drafts) is update, [(d.type, d.kind) for d in result.drafts]
