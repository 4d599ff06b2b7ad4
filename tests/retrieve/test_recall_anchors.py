"""Session-4 recall rules: topic words and the keyword anchor, pointing words, past moments, what-is-left and
feeling wording, 'going to' arrangements, the closest replaced preference, feelings now, outcome facts for status
questions, the other frame's facts on the same topic, and parts of the user.

Each rule is shown against its contrast: the same store and nearly the same query, without the trigger. Intents
are given by hand so that these tests pin recall's rules, not the intent model.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.learned import DEFAULT_RANKER_MODEL
from mnemir.retrieve.lexical import content_terms, shared_terms
from mnemir.retrieve.ranking import RankingConfig
from mnemir.retrieve.recall import Recall, RecallConfig
from mnemir.retrieve.wording import asks_about_past, points_here

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")


def _passed_the_floor(result: mnemir.Recall) -> list[str]:
    return [h.id for h in result.hits if "weak" not in h.flags]


def _ids(result: Recall) -> list[str]:
    return [h.id for h in result.hits]


# -- topic words -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("Where is the offsite being held?", {"offsite", "held"}),  # question and function words dropped
    ("Is it a B or a C?", set()),  # single letters dropped
    ("Should I take the A3 road?", {"take", "a3", "road"}),  # lowercased; letters with digits are words
    ("客厅地砖的报价是多少？", {"客厅", "地砖", "报价"}),  # Chinese segmented, 的/是/多少 dropped
    ("我的护照在哪里？", {"护照"}),  # single hanzi (在) and function words (我, 哪里) dropped
    ("我去北京大学", {"北京", "大学", "北京大学"}),  # search mode also gives the words inside long ones
    ("Do you remember what I told you about the dentist?", {"dentist"}),  # discourse words dropped
    ("我现在的房租是多少？", {"房租"}), ("Is it 2026 or 2027?", set()),  # time words and bare numbers dropped
    ("这个是我的", set()),
])
def test_content_terms(text: str, expected: set[str]) -> None:
    assert content_terms(text) == frozenset(expected)


def test_shared_terms_read_the_text_and_descriptive_property_values(mem: mnemir.Memory, now: datetime) -> None:
    quotes = add(mem, now, "东鹏每平米120元，马可波罗每平米150元", "Fact",
                 {"entity": "客厅地砖", "attribute": "报价", "value": "东鹏120"}, days=1)
    feeling = add(mem, now, "Dreading the dentist on Thursday", "EmotionalState",
                  {"emotion_type": "fear", "intensity": 0.7}, days=1)

    assert shared_terms("客厅地砖的报价是多少？", quotes) == {"客厅", "地砖", "报价"}  # only in its properties
    assert shared_terms("When is the dentist?", feeling) == {"dentist"}
    assert shared_terms("Does my fear of the dentist show?", feeling) == {"dentist"}  # closed vocabularies are not topics
    fact = add(mem, now, "The plumber charges 60 an hour", "Fact",
               {"entity": "plumber", "attribute": "rate", "value": "60/h", "source": "user"}, days=1)
    assert shared_terms("Which user is the plumber?", fact) == {"plumber"}  # "user" is only its source
    assert shared_terms("Where is the offsite being held?", quotes) == frozenset()


# -- keyword anchor ----------------------------------------------------------------------------------
@pytest.fixture
def offsite(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "venue": add(mem, now, "The offsite is at Lakeview Lodge on May 9", "Fact",
                     {"entity": "offsite", "attribute": "venue", "value": "Lakeview Lodge"}, days=12),
        "budget": add(mem, now, "The team budget for travel is 2000 euros this quarter", "Fact",
                      {"entity": "team", "attribute": "travel budget", "value": "2000 euros"}, days=20),
        "dentist": add(mem, now, "My dentist appointment is on Thursday at 3pm", "Fact",
                       {"entity": "user", "attribute": "dentist", "value": "Thursday 3pm"}, days=2),
    }


def test_the_best_keyword_match_sharing_a_topic_word_passes_the_floor(
        mem: mnemir.Memory, now: datetime, offsite: dict[str, mnemir.MemIR]) -> None:
    query = "Where is the offsite being held?"
    ask = intent(query, "fact_lookup", ("Fact",))

    anchored = mem.recall(query, user="alice", k=3, now=now, intent=ask)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(keyword_anchor=0.0))
    unanchored = mem.recall(query, user="alice", k=3, now=now, intent=ask)

    venue = next(h for h in anchored.hits if h.id == offsite["venue"].id)
    assert "the best keyword match (offsite)" in venue.reasons
    assert "weak" not in venue.flags
    # the embedder alone puts it below the floor (cosine near zero): without the anchor it is at most a weak filler
    assert offsite["venue"].id not in _passed_the_floor(unanchored)
    assert not any("best keyword match" in r for h in unanchored.hits for r in h.reasons)


# -- pointing words ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "expected"), [
    ("What price did they put on this one?", True), ("Is there parking here?", True),
    ("What are we doing today?", True), ("今天学了什么？", True), ("这个多少钱？", True),
    ("What price did they put on it?", False), ("Where is the offsite being held?", False),  # "where" is not "here"
    ("Is it there?", False), ("What did we cover yesterday?", False), ("那台多少钱？", False),
])
def test_points_here(query: str, expected: bool) -> None:
    assert points_here(query) is expected


@pytest.fixture
def camper(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    add(mem, now, "Looked at a camper van at the Bristol dealer", "ContextualFrame",
        {"frame_type": "shopping", "topic": "Bristol camper", "active": False}, days=9)
    frame = add(mem, now, "Looking at a used camper van at Dave's garage", "ContextualFrame",
                {"frame_type": "shopping", "topic": "Dave's camper van", "active": True}, hours=1)
    price = add(mem, now, "The list price is 3200", "Fact",
                {"entity": "Dave's camper van", "attribute": "price", "value": "3200"}, hours=0.5,
                relationships=[{"target": frame.id, "relation": "in_frame"}])
    return {"frame": frame, "price": price}


@pytest.mark.parametrize(("query", "recalled"), [("How much are they charging for this one?", True),
                                                 ("How much are they charging for it?", False)])
def test_pointing_at_the_situation_recalls_what_was_said_in_it(mem: mnemir.Memory, now: datetime, query: str,
                                                               recalled: bool,
                                                               camper: dict[str, mnemir.MemIR]) -> None:
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    # cosine ~0.17, below min_relevance 0.2: only "this one" lowers the floor for what was said in the frame
    if recalled:
        assert _ids(result)[0] == camper["price"].id
        assert "weak" not in result.hits[0].flags
    else:
        assert camper["price"].id not in _passed_the_floor(result)


@pytest.mark.parametrize(("query", "listed"), [("What did we go over today?", True),
                                               ("What did we go over?", False)])
def test_an_unsure_frame_guess_that_points_here_lists_the_session(mem: mnemir.Memory, now: datetime, query: str,
                                                                  listed: bool) -> None:
    lesson = add(mem, now, "Lesson with coach Lin on the Caro-Kann defence", "ContextualFrame",
                 {"frame_type": "tutorial", "topic": "Caro-Kann defence", "active": True}, hours=1)
    said = add(mem, now, "In the Caro-Kann, black answers 1.e4 with c6", "Fact",
               {"entity": "Caro-Kann", "attribute": "first move", "value": "c6"}, hours=0.5,
               relationships=[{"target": lesson.id, "relation": "in_frame"}])
    unsure = intent(query, "frame", ("ContextualFrame", "Fact"), confidence=0.5)

    result = mem.recall(query, user="alice", k=3, now=now, intent=unsure)

    # which of the two goes first is the learned ranker's call (the one learned from remembered stores puts what
    # was said before the session); listing both is the rule's
    assert (sorted(_ids(result)[:2]) == sorted([lesson.id, said.id])) is listed
    if not listed:
        assert _ids(result) == []  # both are near-zero cosine: nothing else would bring them in


# -- past-event wording ------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "expected"), [
    ("What did I use to drink in the morning?", True), ("以前我住在哪里？", True), ("What was it like back then?", True),
    ("上次医生怎么说？", True), ("What did the vet say last time?", True),
    ("What do I drink in the morning?", False), ("我住在哪里？", False), ("What's the last thing on the list?", False),
])
def test_asks_about_past(now: datetime, query: str, expected: bool) -> None:
    assert asks_about_past(query, None, now) is expected


@pytest.fixture
def move(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        "shock": add(mem, now, "They told me the team is being moved to Leeds, I was gutted and angry all evening",
                     "EmotionalState", {"emotion_type": "anger", "intensity": 0.8, "trigger": "team moving to Leeds"},
                     days=12),
        "settled": add(mem, now, "Getting used to the idea of the Leeds move, it might even be good for us",
                       "EmotionalState", {"emotion_type": "calm", "intensity": 0.5, "trigger": "team moving to Leeds"},
                       days=2),
    }




def test_without_the_past_wording_the_later_feeling_stands_in(mem: mnemir.Memory, now: datetime,
                                                                 move: dict[str, mnemir.MemIR]) -> None:
    query = "How did I take the news?"
    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "emotion", ("EmotionalState",)))

    assert _ids(result)[0] == move["settled"].id
    assert move["shock"].id not in _ids(result)
    assert any(move["shock"].id in note and move["settled"].id in note for note in result.notes)


# -- what is left ------------------------------------------------------------------------------------


# -- 'going to' arrangement questions ----------------------------------------------------------------




# == second round (f755cfa, 682ef74, 6c75a2c, 3ba6abb) ==============================================
# -- wording -----------------------------------------------------------------------------------------








# -- a change statement replaces the one habit it is closest to --------------------------------------
def test_a_change_statement_replaces_only_the_closest_earlier_preference(mem: mnemir.Memory, now: datetime) -> None:
    pot = add(mem, now, "Brewing in my old clay pot is half the pleasure", "Preference",
              {"subject": "clay teapot", "preference_type": "like", "strength": 0.8}, days=200)
    black = add(mem, now, "I'm a black tea person, the stronger the better", "Preference",
                {"subject": "black tea", "preference_type": "like", "strength": 0.8}, days=150)
    green = add(mem, now, "Now I've switched to green tea", "Preference",
                {"subject": "green tea", "preference_type": "like", "strength": 0.7}, days=3)
    query = "How do I like my tea?"
    ask = intent(query, "preference", ("Preference",))

    result = mem.recall(query, user="alice", k=5, now=now, intent=ask)

    # cosine to the change statement: black tea 0.54, clay pot 0.34 (both over changed_preference_similarity 0.25)
    assert _ids(result) == [green.id, pot.id]
    assert "outdated" not in result.hits[1].flags
    assert result.notes == [f"1 replaced memory left out, the newer one is shown: {black.id} (by {green.id})"]


def test_with_no_closer_habit_the_change_statement_replaces_the_one_there_is(mem: mnemir.Memory,
                                                                              now: datetime) -> None:
    pot = add(mem, now, "Brewing in my old clay pot is half the pleasure", "Preference",
              {"subject": "clay teapot", "preference_type": "like", "strength": 0.8}, days=200)
    green = add(mem, now, "Now I've switched to green tea", "Preference",
                {"subject": "green tea", "preference_type": "like", "strength": 0.7}, days=3)
    query = "How do I like my tea?"

    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "preference", ("Preference",)))

    # the same store without the black-tea taste: the clay pot is now the closest, so it is replaced (and its
    # demoted strength falls below the floor, before any note is written)
    assert _ids(result) == [green.id]
    assert not any(pot.id in note for note in result.notes)
    # with the score floor off the replacement itself shows: the pot is left out as replaced by the change statement
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.0))
    floorless = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "preference", ("Preference",)))
    assert pot.id not in _ids(floorless)
    assert f"{pot.id} (by {green.id})" in " ".join(floorless.notes), floorless.notes


# -- asked about now, a recent feeling answers in place of older ones --------------------------------
@pytest.fixture
def exam(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    # different triggers, cosine 0.36 between them (< passed_feeling_similarity 0.4): the pairwise rule stays out
    return {
        "dread": add(mem, now, "Dreading the exam, I keep waking up at 4am", "EmotionalState",
                     {"emotion_type": "anxiety", "intensity": 0.8, "trigger": "the bar exam"}, days=30),
        "upbeat": add(mem, now, "In a great mood these days, tutoring is paying off", "EmotionalState",
                      {"emotion_type": "joy", "intensity": 0.6, "trigger": "tutoring"}, days=2),
    }


@pytest.mark.parametrize(("query", "replaced"), [("How am I feeling about the exam these days?", True),
                                                 ("How do I feel about the exam?", False)])
def test_asked_about_now_a_recent_feeling_replaces_one_older_than_the_present_window(
        mem: mnemir.Memory, now: datetime, exam: dict[str, mnemir.MemIR], query: str, replaced: bool) -> None:
    ask = intent(query, "emotion", ("EmotionalState",))

    result = mem.recall(query, user="alice", k=3, now=now, intent=ask)
    # the replaced feeling's strength falls below min_score before the note is written: a zero floor shows the note
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.0))
    unfloored = mem.recall(query, user="alice", k=3, now=now, intent=ask)

    if replaced:
        assert _ids(result) == [exam["upbeat"].id]
        assert not result.notes
        assert _ids(unfloored) == [exam["upbeat"].id]
        assert unfloored.notes == [f"1 replaced memory left out, the newer one is shown: {exam['dread'].id} "
                                   f"(by {exam['upbeat'].id})"]
    else:
        assert _ids(result) == [exam["dread"].id, exam["upbeat"].id]
        assert _ids(unfloored) == [exam["dread"].id, exam["upbeat"].id]
        assert not unfloored.notes
        assert not any("outdated" in h.flags for h in unfloored.hits)


# -- 'last time' lifts the other-frame demotion ------------------------------------------------------
@pytest.mark.parametrize(("query", "past"), [
    ("上回看眼睛，医生是怎么说的？", True), ("看眼睛，医生是怎么说的？", False),
    ("What did the eye doctor say last time?", True), ("What did the eye doctor say?", False),
])
def test_last_time_asks_about_an_ended_frame_while_another_is_active(mem: mnemir.Memory, now: datetime,
                                                                     query: str, past: bool) -> None:
    eyes = add(mem, now, "去眼科医院复查视力", "ContextualFrame",
               {"frame_type": "medical", "topic": "眼科复查", "active": False}, days=20)
    said = add(mem, now, "医生说我的近视加深了五十度，要换眼镜，半年后再复查", "Fact",
               {"entity": "我的视力", "attribute": "复查结果", "value": "近视加深五十度"}, days=20,
               relationships=[{"target": eyes.id, "relation": "in_frame"}])
    add(mem, now, "在牙科诊所洗牙", "ContextualFrame", {"frame_type": "medical", "topic": "洗牙", "active": True},
        hours=1)

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    assert _ids(result) == [said.id]
    hit = result.hits[0]
    assert ("other_frame" in hit.flags) is not past
    assert ("belongs to another frame (眼科复查)" in hit.reasons) is not past
    if past:
        # not scaled by other_frame_factor 0.35 (about 0.33, an English query on a Chinese memory; about 0.12 scaled),
        # read before the learned ranker's nudge, which moves the score by itself
        nudge = next((float(r.split("score ")[1].replace("+", "")) for r in hit.reasons
                      if r.startswith("learned ranker: score")), 0.0)
        assert "weak" not in hit.flags and hit.score - nudge > 0.25


# -- a fact may record a status question's outcome ---------------------------------------------------
def test_a_fact_recording_the_outcome_answers_a_status_question(mem: mnemir.Memory, now: datetime) -> None:
    signup = add(mem, now, "报名九月份的教资笔试，科目一二三都报", "Task",
                 {"goal": "报名教资笔试", "status": "completed"}, days=120)
    passed = add(mem, now, "教资笔试成绩出来了，三科都过了", "Fact",
                 {"entity": "教资笔试", "attribute": "成绩", "value": "三科全部通过"}, days=5)
    query = "教资笔试过了没？"
    ask = intent(query, "task_status", ("Task", "Plan"))

    result = mem.recall(query, user="alice", k=3, now=now, intent=ask)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(outcome_fact_fit=0.6))  # the widened fit it had before
    widened = mem.recall(query, user="alice", k=3, now=now, intent=ask)

    assert _ids(result) == [passed.id, signup.id]
    assert _ids(widened) == [signup.id, passed.id]





@pytest.mark.parametrize(("entity", "expected"), [
    ("我的右肩", True), ("my right shoulder", True), ("The user's knee", True), ("me", True), (None, True),
    ("Grandad", False), ("mystery novel", False), ("我们小区", False), ("the landlord", False), ("Tom's car", False),
])
def test_a_part_of_the_user_is_the_users_own_state(mem: mnemir.Memory, now: datetime, entity: str | None,
                                                    expected: bool) -> None:
    from mnemir.retrieve.ranking import is_user_state

    props = {"attribute": "injury", "value": "strained"} | ({"entity": entity} if entity is not None else {})
    fact = add(mem, now, "Strained it at training, no hard smashes for a month", "Fact", props, days=2)
    assert is_user_state(fact) is expected



def test_another_frames_fact_gives_way_to_the_frame_in_force_on_the_same_topic(mem: mnemir.Memory,
                                                                               now: datetime) -> None:
    """Same topic (a shared topic word), different attributes: the ended frame's fact is left out; a fact of the
    ended frame on another topic is not touched (every fact's ``source`` is "user": not a topic)."""
    old = add(mem, now, "Residents' meeting about the garage gate", "ContextualFrame",
              {"frame_type": "meeting", "topic": "garage gate", "active": False}, days=20)
    new = add(mem, now, "Residents' meeting about the lift repair", "ContextualFrame",
              {"frame_type": "meeting", "topic": "lift repair"}, hours=1)
    garage = add(mem, now, "Each household pays 300 for the garage repair", "Fact",
                 {"entity": "garage gate repair", "attribute": "household share", "value": "300"}, days=20,
                 relationships=[{"target": old.id, "relation": "in_frame"}])
    lift = add(mem, now, "Each household pays 800 for this repair of the lift", "Fact",
               {"entity": "lift repair", "attribute": "cost per flat", "value": "800"}, hours=0.5,
               relationships=[{"target": new.id, "relation": "in_frame"}])
    query = intent("How much does each household pay for the repair?", "fact_lookup", ("Fact", "Hypothesis"),
                   confidence=0.9)
    # the score floor off, so that the other frame's fact is shown unless it gives way (and the note says so)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_score=0.0))
    result = mem.recall(query.query, user="alice", k=3, now=now, intent=query)

    assert _ids(result)[0] == lift.id
    assert garage.id not in _ids(result)
    assert any(garage.id in n and lift.id in n for n in result.notes), result.notes


# -- next steps --------------------------------------------------------------------------------------




# -- the "did" of a wh-question ----------------------------------------------------------------------


@pytest.fixture
def retreat(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    """A half-remembered rule and the confirmed one (entities told apart by a remark in brackets, as an extractor
    keeping both would), sharing few words with the question."""
    return {
        "guess": add(mem, now, "I think they let you bring your own yoga mat to the retreat, as long as it's clean",
                     "Fact", {"entity": "retreat equipment rule (my memory)", "attribute": "rule",
                              "value": "own mat allowed", "confidence": 0.4, "source": "user"}, days=20),
        "known": add(mem, now, "The welcome pack says all mats and cushions are provided and personal kit stays home",
                     "Fact", {"entity": "retreat equipment rule (welcome pack)", "attribute": "rule",
                              "value": "everything provided", "confidence": 0.95, "source": "external"}, days=5),
        "other": add(mem, now, "The retreat centre is a forty minute drive from the station", "Fact",
                     {"entity": "retreat centre", "attribute": "distance", "value": "40 min", "confidence": 0.95,
                      "source": "external"}, days=6),
    }


def test_an_unsure_fact_brings_the_confident_one_about_the_same_thing(
        mem: mnemir.Memory, now: datetime, retreat: dict[str, mnemir.MemIR]) -> None:
    query = "Can I take my yoga mat along?"
    # a relevance floor that only the guess's words reach
    floor = RankingConfig(min_relevance=0.3, weak_min_relevance=1.0)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=floor,
                                     ranker_model=DEFAULT_RANKER_MODEL)

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    ids = [h.id for h in result.hits]
    assert retreat["guess"].id in ids, "the guess matches the question"
    assert ids.index(retreat["known"].id) < ids.index(retreat["guess"].id)
    assert retreat["other"].id not in ids  # another entity ("retreat centre" lacks the guess's words)

    # the ranker learned from remembered stores too (the default) brings the confident fact as well, but after the
    # guess: an order it gets wrong here (decision 0123, still weak)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=floor)
    ids = [h.id for h in mem.recall(query, user="alice", k=3, now=now,
                                    intent=intent(query, "fact_lookup", ("Fact",))).hits]
    assert retreat["known"].id in ids and retreat["guess"].id in ids and retreat["other"].id not in ids


@pytest.mark.xfail(strict=True, reason="the ranker learned from remembered stores puts the guess before the confident "
                                       "fact about the same thing (decision 0123, still weak)")
def test_the_default_ranker_puts_the_confident_fact_before_the_guess(
        mem: mnemir.Memory, now: datetime, retreat: dict[str, mnemir.MemIR]) -> None:
    query = "Can I take my yoga mat along?"
    floor = RankingConfig(min_relevance=0.3, weak_min_relevance=1.0)
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=floor)
    ids = [h.id for h in mem.recall(query, user="alice", k=3, now=now,
                                    intent=intent(query, "fact_lookup", ("Fact",))).hits]
    assert ids.index(retreat["known"].id) < ids.index(retreat["guess"].id)


def test_a_one_word_guess_brings_only_the_closest_confident_fact(mem: mnemir.Memory, now: datetime) -> None:
    guess = add(mem, now, "I think the car is due its service in May", "Fact",
                {"entity": "car", "attribute": "service due", "value": "May", "confidence": 0.4}, days=10)
    service = add(mem, now, "The garage booked the car service for 14 June", "Fact",
                  {"entity": "car service booking", "attribute": "date", "value": "14 June", "confidence": 0.95,
                   "source": "external"}, days=3)
    others = [add(mem, now, text, "Fact", {"entity": entity, "attribute": "amount", "value": value,
                                             "confidence": 0.95, "source": "external"}, days=5)
              for text, entity, value in [("Car tax is 190 pounds a year", "car tax", "190"),
                                          ("The car loan has 14 payments left", "car loan", "14 payments")]]
    query = "When is the car due its service?"
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0, ranking=RankingConfig(min_relevance=0.45, weak_min_relevance=1.0))

    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    ids = [h.id for h in result.hits]
    assert guess.id in ids and service.id in ids
    assert ids.index(service.id) < ids.index(guess.id)
    assert not any(o.id in ids for o in others)
