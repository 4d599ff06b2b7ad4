"""The offline extractor on the real default embedder and the shipped model."""

from datetime import date, datetime

import pytest

from mnemir.errors import ValidationError
from mnemir.understand import Extractor, extract
from mnemir.understand.extract import lexicon_boost
from mnemir.understand.fill import emotion_properties
from mnemir.understand.lexicon import find_emotion


def kinds(extraction) -> list[tuple[str, str]]:
    return [(d.type, d.kind) for d in extraction.drafts]


def test_a_request_with_a_deadline_is_a_pending_task(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("帮我下周五之前把报销单交了", now=wed)
    assert kinds(result) == [("Task", "memory")]
    props = result.drafts[0].properties
    assert props["status"] == "pending"
    assert props["deadline"] == date(2026, 3, 13)
    assert result.act == "request"


def test_one_utterance_can_yield_a_fact_and_a_preference(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("我对花生过敏，但特别喜欢吃川菜", now=wed)
    assert kinds(result) == [("Fact", "memory"), ("Preference", "memory")]
    fact, pref = result.drafts
    assert (fact.properties["entity"], fact.properties["attribute"], fact.properties["value"]) == ("user", "allergy", "花生")
    assert pref.properties["subject"] == "川菜"
    assert pref.properties["preference_type"] == "like"
    assert pref.properties["strength"] >= 0.8


@pytest.mark.parametrize(("text", "act"), [
    ("好的，谢谢", "thanks"), ("ok", "acknowledge"), ("你好", "greeting"), ("bye!", "farewell"),
    ("上海天气怎么样？", "question"), ("which of my to-dos are still undone?", "question"),
])
def test_chit_chat_and_questions_yield_only_a_dialogue_act(extractor: Extractor, wed: datetime, text: str,
                                                            act: str) -> None:
    result = extractor.extract(text, now=wed)
    assert kinds(result) == [("DialogueAct", "memory")]
    assert result.drafts[0].properties["act_type"] == act


@pytest.mark.parametrize(("text", "status"), [
    ("报销单已经交上去了", "completed"),
    ("the flight is booked", "completed"),
    ("forget the refund, it's not happening", "failed"),
    ("I'm working on the slide deck now", "in_progress"),
    ("那个合同取消吧", "failed"),
])
def test_status_reports_are_updates_not_new_memories(extractor: Extractor, wed: datetime, text: str,
                                                     status: str) -> None:
    result = extractor.extract(text, now=wed)
    assert kinds(result) == [("Task", "update")]
    assert result.drafts[0].properties["status"] == status


def test_a_correction_names_what_it_replaces(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("actually I moved to Hangzhou, not Shanghai", now=wed)
    [draft] = result.drafts
    assert (draft.type, draft.kind) == ("Fact", "correction")
    assert draft.properties["attribute"] == "residence"
    assert draft.properties["value"] == "Hangzhou"
    assert draft.replaces == "Shanghai"


@pytest.mark.parametrize(("text", "emotion"), [
    ("这个破软件我再也受不了了！", "frustration"),
    ("I'm so anxious about the exam tomorrow", "anxiety"),
    ("终于升职了，太开心了", "joy"),
])
def test_emotions_get_type_intensity_and_trigger(extractor: Extractor, wed: datetime, text: str, emotion: str) -> None:
    [draft] = extractor.extract(text, now=wed).drafts
    assert draft.type == "EmotionalState"
    assert draft.properties["emotion_type"] == emotion
    assert 0.0 < draft.properties["intensity"] <= 1.0


@pytest.mark.parametrize(("text", "emotion", "word"), [
    ("I moved to Hangzhou and I feel so lonely", "sadness", "lonely"),
    ("I miss the bus every morning and it makes me so stressed", "anxiety", "stressed"),
])
def test_an_ambiguous_early_word_does_not_hide_a_real_emotion(extractor: Extractor, wed: datetime, text: str,
                                                              emotion: str, word: str) -> None:
    assert find_emotion(text) == (emotion, word)
    assert emotion_properties(text)["emotion_type"] == emotion  # type: ignore[index]
    assert lexicon_boost(text, [("Fact", 0.6), ("EmotionalState", 0.4)])[0][0] == "EmotionalState"
    [draft] = extractor.extract(text, now=wed).drafts
    assert draft.type == "EmotionalState"
    assert draft.properties["emotion_type"] == emotion


def test_an_ambiguous_emotion_word_alone_types_but_earns_no_boost() -> None:
    assert find_emotion("I moved to Hangzhou") == ("gratitude", "moved")
    ranked = [("Fact", 0.6), ("EmotionalState", 0.4)]
    assert lexicon_boost("I moved to Hangzhou", ranked) == ranked


def test_a_plan_links_its_steps_to_the_stated_goal(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("为了暑假去云南玩，我们先办签证，再订酒店，最后排行程", now=wed)
    assert [d.type for d in result.drafts] == ["Task", "Plan", "Plan", "Plan"]
    assert [d.text for d in result.drafts[1:]] == ["办签证", "订酒店", "排行程"]
    assert [d.properties["order"] for d in result.drafts[1:]] == [1, 2, 3]
    assert all(d.parent == 0 for d in result.drafts[1:])


def test_without_a_goal_task_a_plan_keeps_its_goal_in_the_first_step(extractor: Extractor, wed: datetime,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # extract.PLAN_GOAL_TASK off (docs/decisions/0099): the steps only, none of them a child of a Task
    monkeypatch.setattr(extract, "PLAN_GOAL_TASK", False)
    result = extractor.extract("为了暑假去云南玩，我们先办签证，再订酒店，最后排行程", now=wed)
    assert [d.type for d in result.drafts] == ["Plan", "Plan", "Plan"]
    assert "云南" in result.drafts[0].text and result.drafts[0].text.endswith("办签证")
    assert [d.text for d in result.drafts[1:]] == ["订酒店", "排行程"]
    assert all(d.parent is None for d in result.drafts)


def test_a_frame_gets_its_type_and_topic(extractor: Extractor, wed: datetime) -> None:
    [draft] = extractor.extract("我们现在开始周会，主要讨论新版本发布", now=wed).drafts
    assert draft.type == "ContextualFrame"
    assert draft.properties["frame_type"] == "meeting"
    assert "新版本发布" in draft.properties["topic"]


def test_the_assistant_is_never_the_source_of_a_user_fact(extractor: Extractor, wed: datetime) -> None:
    # issue 15's provenance policy: an assistant turn (here a restatement) creates no memory at all
    result = extractor.extract("You live in Berlin and work as a nurse.", speaker="assistant", now=wed)
    assert [d.type for d in result.drafts] == ["DialogueAct"]
    assert any("speaker policy" in note for note in result.notes)


@pytest.mark.parametrize("text", ["The pharmacy on Elm Street closes at 9pm", "药店晚上九点关门"])
def test_the_same_fact_is_trusted_by_who_said_it(extractor: Extractor, wed: datetime, text: str) -> None:
    said = {}
    for speaker in ("user", "system"):
        [fact] = extractor.extract(text, speaker=speaker, now=wed).drafts
        assert fact.type == "Fact"
        said[speaker] = (fact.properties["source"], fact.properties["confidence"])
    assert said == {"user": ("user", 0.8), "system": ("external", 0.6)}
    assert [d.type for d in extractor.extract(text, speaker="assistant", now=wed).drafts] == ["DialogueAct"]


def test_the_assistants_likes_and_moods_are_dropped(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("I really love jazz, and I'm so happy today!", speaker="assistant", now=wed)
    assert {d.type for d in result.drafts} == {"DialogueAct"}
    assert any("speaker policy" in note for note in result.notes)


@pytest.mark.parametrize(("text", "field"), [
    ("", "text"), ("   \n ", "text"), (b"\x00\x01binary", "text"), ("abc\x00def", "text"), (None, "text"),
    ("x" * 1_000_000, "text"),
])
def test_bad_input_gets_a_clear_error(extractor: Extractor, wed: datetime, text: object, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        extractor.extract(text, now=wed)  # type: ignore[arg-type]
    assert info.value.field == field


def test_unknown_speaker_is_an_error_listing_the_allowed(extractor: Extractor, wed: datetime) -> None:
    with pytest.raises(ValidationError) as info:
        extractor.extract("hello", speaker="martian", now=wed)
    assert info.value.field == "speaker"
    assert "assistant" in info.value.allowed


@pytest.mark.parametrize("text", ["😀😀😀", "!!!???", "……"])
def test_text_without_words_is_an_explicit_empty_result(extractor: Extractor, wed: datetime, text: str) -> None:
    result = extractor.extract(text, now=wed)
    assert result.drafts == []
    assert result.notes


def test_naive_now_is_rejected(extractor: Extractor) -> None:
    with pytest.raises(ValidationError, match="timezone"):
        extractor.extract("帮我明天订票", now=datetime(2026, 3, 4, 10))


@pytest.mark.parametrize("text", ["Once the lease ends I'm going to rent a flat by the canal",
                                  "等天气暖和了我打算骑车去上班"])
def test_an_intention_is_a_plan_step_that_the_ontology_accepts(extractor: Extractor, wed: datetime, text: str) -> None:
    from mnemir.ontology import Ontology

    drafts = extractor.extract(text, now=wed).drafts
    assert [d.type for d in drafts] == ["Plan"]
    Ontology().validate("Plan", drafts[0].properties)  # a Plan has no deadline of its own: it follows its task
