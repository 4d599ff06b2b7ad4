"""Issue 15: provenance (assistant turns), confirmations of proposals, who a fact is about, hypotheses, decisions,
postponements, corrections by meaning and the minimum of meaning. Real SQLite memory, real default embedder."""

from __future__ import annotations

from datetime import datetime

import pytest

import mnemir
from mnemir.eval import extraction as eval_extraction
from mnemir.understand import Extractor
from mnemir.understand.extract import meaningful, proposal_of
from mnemir.understand.fill import about_whom, decision_of, fact_properties, hypothesis_properties


# -- the extractor ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["要不要我帮你把周末的菜单排一下？", "Shall I draft a packing checklist for you?",
                                  "You could try soaking the beans overnight.", "What time suits you best?",
                                  "Your sister lives in Lisbon, right?"])
def test_an_assistant_turn_is_no_memory_about_the_user(extractor: Extractor, wed: datetime, text: str) -> None:
    result = extractor.extract(text, speaker="assistant", now=wed)
    assert [d.type for d in result.drafts] == ["DialogueAct"]


@pytest.mark.parametrize(("text", "goal"), [("要不要我帮你把周末的菜单排一下？", "把周末的菜单排一下"),
                                            ("Shall I draft a packing checklist for you?", "draft a packing checklist"),
                                            ("Would you like me to email the school?", "email the school")])
def test_an_assistant_offer_keeps_what_it_proposes(text: str, goal: str) -> None:
    assert proposal_of(text) == goal


def test_a_question_or_advice_without_an_action_is_no_proposal() -> None:
    assert proposal_of("What time suits you best?") is None


@pytest.mark.parametrize(("text", "ok"), [("ch", False), ("book it", False), ("做一下", False), ("买菜", True),
                                          ("call mom", True), ("pay the rent", True), ("去医院复查", True)])
def test_the_minimum_of_meaning(text: str, ok: bool) -> None:
    assert meaningful(text) is ok


@pytest.mark.parametrize(("text", "key"), [("我表姐在南京开花店", "cousin"), ("My aunt teaches chemistry", "aunt"),
                                           ("my friend Noor moved to Oslo", "noor"), ("Gemma works at the bakery", "gemma"),
                                           ("我住在苏州", None)])
def test_who_a_fact_is_about(text: str, key: str | None) -> None:
    who = about_whom(text)
    assert (who[0] if who else None) == key


def test_facts_about_two_relatives_have_different_entities() -> None:
    first, second = fact_properties("我表姐是牙医"), fact_properties("我舅舅是厨师")
    assert first["entity"] != second["entity"] and "user" not in (first["entity"], second["entity"])
    assert (first["attribute"], first["value"]) == ("occupation", "牙医")


def test_a_decision_is_a_fact_with_attribute_decision() -> None:
    props = decision_of("We went with the green tent in the end")
    assert props is not None and props["attribute"] == "decision" and "green tent" in str(props["value"])
    assert decision_of("The green tent is on sale") is None


def test_a_hedge_sets_the_hypothesis_confidence() -> None:
    assert hypothesis_properties("The noise is probably the fan belt")["confidence"] > \
        hypothesis_properties("Maybe the noise is the fan belt")["confidence"]


def test_a_hedged_statement_is_a_hypothesis(extractor: Extractor, wed: datetime) -> None:
    [draft] = extractor.extract("I suspect the smoke alarm battery is dying, it keeps chirping", now=wed).drafts
    assert draft.type == "Hypothesis"
    assert 0 < draft.properties["confidence"] < 1


# -- remember: dialogue state ---------------------------------------------------------------------------------------
def test_a_confirmed_proposal_becomes_the_users_task(mem: mnemir.Memory, wed: datetime) -> None:
    offer = mem.remember("Would you like me to email the school about the trip?", speaker="assistant", user="uma",
                         session="s", turn=4, now=wed)
    assert not [m for m in offer.created if m.type == "Task"]
    yes = mem.remember("yes, do that", user="uma", session="s", turn=5, now=wed)
    [task] = [m for m in yes.created if m.type == "Task"]
    assert task.content.text == "email the school about the trip"
    assert task.metadata.source.speaker == "user"
    turns = [(p["speaker"], p["turn"]) for p in task.metadata.extra["provenance"]]
    assert turns == [("assistant", 4), ("user", 5)]


def test_a_proposal_is_not_adopted_without_a_confirmation(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("要不要我帮你把周末的菜单排一下？", speaker="assistant", user="vic", session="s", now=wed)
    mem.remember("我最近在减脂", user="vic", session="s", now=wed)
    mem.remember("好的", user="vic", session="s", now=wed)  # too late: the proposal was not answered
    assert mem.count(types=["Task"], user="vic") == 0


def test_facts_about_different_people_both_stand(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("我表姐是牙医", user="wen", now=wed)
    mem.remember("我舅舅是厨师", user="wen", now=wed)
    facts = mem.list(types=["Fact"], user="wen")
    assert len(facts) == 2
    assert len({f.properties["entity"] for f in facts}) == 2


def test_a_relation_resolves_to_the_person_named_for_it(mem: mnemir.Memory, wed: datetime) -> None:
    mem.remember("Sam is my brother", user="xia", now=wed)
    [fact] = [m for m in mem.remember("My brother lives in Denver", user="xia", now=wed).created if m.type == "Fact"]
    assert fact.properties["entity"] == "sam"


def test_a_postponement_moves_the_deadline(mem: mnemir.Memory, wed: datetime) -> None:
    [task] = mem.remember("周五之前要去银行办开户", user="yan", now=wed)
    result = mem.remember("银行开户推迟到下周三了", user="yan", now=wed)
    assert not [m for m in result.created if m.type == "Task"]
    assert mem.get(task.id, user="yan").properties["deadline"] == "2026-03-11"
    assert mem.get(task.id, user="yan").properties["status"] == "pending"


def test_a_correction_supersedes_the_closest_fact(mem: mnemir.Memory, wed: datetime) -> None:
    [old] = mem.remember("The recital is on the 12th of May", user="zed", now=wed)
    result = mem.remember("Sorry, the recital is on the 21st of May, not the 12th", user="zed", now=wed)
    assert result.created and result.created[0].type == "Fact"
    assert mem.get(old.id, user="zed").valid_to is not None
    assert any("superseded" in note for note in result.notes)


# -- evaluation of the new key properties ---------------------------------------------------------------------------
def test_the_test_split_is_registered_for_the_lead() -> None:
    assert eval_extraction.SPLITS["test"] == ("extraction_test.jsonl",)
    assert eval_extraction.INTENT_SPLITS["test"] == ("intent_test.jsonl",)


def test_about_and_decision_are_scored(extractor: Extractor, wed: datetime) -> None:
    row = {"id": "x", "lang": "zh", "text": "我表姐在南京开花店",
           "expect": [{"type": "Fact", "about": "我表姐", "decision": False}]}
    scores = eval_extraction.LanguageScores()
    eval_extraction.score_row(row, extractor.extract(row["text"], now=wed).drafts, scores)
    assert scores.props["about"] == [1, 1] and scores.props["decision"] == [1, 1]


@pytest.mark.parametrize("text", ["From now on, book my eye tests on weekday mornings", "以后点外卖都别放葱"])
def test_a_standing_instruction_is_a_preference_not_an_errand(extractor: Extractor, wed: datetime, text: str) -> None:
    types = {d.type for d in extractor.extract(text, now=wed).drafts}
    assert "Preference" in types and "Task" not in types


def test_moving_house_is_no_postponement() -> None:
    from mnemir.understand.fill import POSTPONE

    assert not POSTPONE.search("I moved to Glasgow in spring")
    assert POSTPONE.search("the tasting got moved to Friday")


# -- session 9: an assistant's updates, corrections that name the old value, choices that close work ------------------
@pytest.mark.parametrize(("text", "update"), [("Good luck with the interview tomorrow!", False),
                                              ("You might want to ring the council first; they can waive the fee.", False),
                                              ("祝你搬家顺利！", False),
                                              ("I've cancelled the dentist appointment for you.", True),
                                              ("已经帮你把会议室订好了。", True)])
def test_an_assistant_update_needs_work_it_did_itself(extractor: Extractor, wed: datetime, text: str,
                                                       update: bool) -> None:
    result = extractor.extract(text, speaker="assistant", now=wed)
    assert any(d.kind == "update" for d in result.drafts) is update
    if not update:
        assert [d.type for d in result.drafts] == ["DialogueAct"]


def test_a_correction_that_names_the_old_value_supersedes_the_fact_stating_it(mem: mnemir.Memory,
                                                                                wed: datetime) -> None:
    [old, *_] = [m for m in mem.remember("The garage is small, about 3.2 by 5.5 metres, and full of boxes.",
                                         user="kai", now=wed).created if m.type == "Fact"]
    mem.remember("I also need shelves for the paint tins.", user="kai", now=wed)
    result = mem.remember("I measured again and I was wrong: it's 3.6 by 6.1, not 3.2 by 5.5.", user="kai", now=wed)
    assert mem.get(old.id, user="kai").valid_to is not None
    assert any("takes back" in note for note in result.notes)


@pytest.mark.parametrize(("text", "value"), [("最后选靠窗那张桌子了", "靠窗那张桌子"), ("选朝南那套了", "朝南那套")])
def test_choosing_x_is_a_decision(text: str, value: str) -> None:
    found = decision_of(text)
    assert found is not None and found["value"] == value
    assert decision_of("我选好了") is None


@pytest.mark.parametrize(("text", "status"), [("婚宴酒店定了", "completed"), ("We settled on the oak table", "completed"),
                                              ("still comparing the two quotes", "in_progress")])
def test_a_choice_made_closes_the_work_of_choosing(text: str, status: str) -> None:
    from mnemir.understand.fill import update_status

    assert update_status(text) == status


@pytest.mark.parametrize(("text", "confirms"), [("好，就这么办", True), ("Sure, go ahead and book it for Friday", True),
                                                ("对，物业说下周一停水，我得提前把水缸接满", False),
                                                ("Yeah, my cousin says the hall is taken in May so we need somewhere else", False)])
def test_a_confirmation_is_a_short_affirmation(text: str, confirms: bool) -> None:
    from mnemir.memory.understanding import _confirms

    assert _confirms(text) is confirms
