"""Typing adds to plain search, never subtracts: episodes keep the evidence, plain search's best keeps its place,
emotional events stay findable, hard exclusions are named (issue 14's guarantees, on a real store and model)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from recall_helpers import add, utterance

import mnemir
from mnemir.ir import Content, Scope
from mnemir.ir.jsonl import dump_line
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.fusion import kept_places
from mnemir.store.base import LIVE_STATUSES


def _remember(mem: mnemir.Memory, now: datetime, texts: list[str], days: float = 0.0) -> list[mnemir.MemIR]:
    """Each text said by the user in one session, ``days`` before ``now``; returns the episodes."""
    out = []
    for turn, text in enumerate(texts):
        kept = mem.remember(text, user="alice", session="s1", turn=turn, now=now - timedelta(days=days))
        assert kept.episode is not None
        out.append(kept.episode)
    return out


def test_remember_keeps_every_utterance_verbatim_and_links_what_was_read_from_it(mem: mnemir.Memory,
                                                                                  now: datetime) -> None:
    kept = mem.remember("我对花生过敏，但特别喜欢吃川菜", user="alice", session="s1", turn=4, now=now)
    episode = kept.episode
    assert episode is not None and episode.type == "Episode"
    assert episode.text == "我对花生过敏，但特别喜欢吃川菜"
    assert episode.properties["speaker"] == "user" and episode.properties["session"] == "s1"
    assert episode.properties["turn"] == 4
    assert kept.created and episode not in kept.created
    for record in kept.created:
        assert [r.target for r in record.relations("derived_from")] == [episode.id]
    # an utterance nothing is read from is kept all the same, and the same words said twice are two episodes
    first = mem.remember("嗯嗯", user="alice", now=now).episode
    second = mem.remember("嗯嗯", user="alice", now=now + timedelta(minutes=1)).episode
    assert first is not None and second is not None and first.id != second.id
    assert mem.count(types=["Episode"], user="alice") == 3


def test_forgetting_an_utterance_forgets_what_was_read_from_it(mem: mnemir.Memory, now: datetime) -> None:
    kept = mem.remember("I'm allergic to peanuts and I love Sichuan food", user="alice", now=now)
    assert kept.episode is not None and kept.created
    mem.delete(kept.episode.id, user="alice", now=now)
    assert mem.count(user="alice") == 0
    for record in [kept.episode, *kept.created]:
        assert mem.get(record.id, user="alice", include_deleted=True).status == mnemir.MemoryStatus.deleted


def test_deleting_a_typed_memory_alone_leaves_its_episode(mem: mnemir.Memory, now: datetime) -> None:
    kept = mem.remember("I'm allergic to peanuts and I love Sichuan food", user="alice", now=now)
    assert kept.episode is not None
    for record in kept.created:
        mem.delete(record.id, user="alice", hard=True, now=now)
    assert [m.id for m in mem.list(user="alice")] == [kept.episode.id]
    # without the cascade, the episode goes alone
    other = mem.remember("My sister lives in Berlin", user="alice", now=now)
    assert other.episode is not None and other.created
    mem.delete(other.episode.id, user="alice", now=now, cascade=False)
    assert {m.id for m in mem.list(user="alice")} == {kept.episode.id, *(r.id for r in other.created)}


def test_export_and_import_keep_the_link_to_the_episode(mem: mnemir.Memory, now: datetime, tmp_path,  # type: ignore[no-untyped-def]
                                                        embedder) -> None:
    kept = mem.remember("I'm allergic to peanuts", user="alice", now=now)
    assert kept.episode is not None and kept.created
    out = io.StringIO()
    mem.export_jsonl(out, user="alice")
    other = mnemir.open(tmp_path / "other", embedder=embedder)
    try:
        other.import_jsonl(io.StringIO(out.getvalue()))
        fact = other.get(kept.created[0].id, user="alice")
        assert [r.target for r in fact.relations("derived_from")] == [kept.episode.id]
        assert {h.id for h in other.search("peanuts", user="alice", as_of=now)} >= {kept.episode.id, fact.id}
        other.delete(kept.episode.id, user="alice", now=now + timedelta(hours=1))
        assert other.count(user="alice") == 0
        # the history says why the fact went
        assert any(kept.episode.id in entry.reason for entry in other.history(fact.id, user="alice"))
    finally:
        other.close()


def test_a_typed_memory_and_its_own_episode_never_take_two_slots(mem: mnemir.Memory, now: datetime) -> None:
    episodes = _remember(mem, now, [
        "I'm allergic to peanuts, so please keep them out of anything you order for me",
        "My daughter Mia starts primary school in September",
        "I prefer window seats when I fly",
        "Remind me to renew my passport before March",
    ], days=3)
    for query in ("What am I allergic to?", "When does Mia start school?", "Which seat do I like on planes?",
                  "What do I need to do about my passport?"):
        result = mem.recall(query, user="alice", k=3, now=now)
        shown = {h.id for h in result.hits}
        for hit in result.hits:
            sources = {r.target for r in hit.memory.relations("derived_from")}
            assert not sources & shown, query  # its episode is not a second hit
        # where a typed memory read from an utterance is shown, the utterance comes with it as its quote
        typed = [h for h in result.hits if h.memory.type != "Episode"]
        assert typed, query
        for hit in typed:
            if hit.quote is not None:
                assert hit.quote.id in {e.id for e in episodes}
                assert hit.quote.text in result.context.render()


def test_episodes_never_crowd_typed_memories_out_of_the_top_k(mem: mnemir.Memory, now: datetime) -> None:
    _remember(mem, now, ["I'm allergic to peanuts", "My sister Ana lives in Lisbon", "I love hiking in the Alps",
                         "Peanut butter used to be my favourite", "The cat next door keeps coming in"], days=2)
    for query in ("What am I allergic to?", "Where does Ana live?", "What do I like doing outdoors?"):
        result = mem.recall(query, user="alice", k=3, now=now)
        assert any(h.memory.type != "Episode" for h in result.hits), query
        for hit in result.hits:
            if hit.memory.type != "Episode":
                continue
            # an episode is shown only when nothing live was read from it: else what was read takes its place
            readings = [e.source for e in mem.store.edges([hit.id], relations=["derived_from"], direction="in")]
            assert all(mem.get(r, user="alice", include_deleted=True).status not in LIVE_STATUSES
                       or mem.get(r, user="alice").type == "DialogueAct" for r in readings), query


QUERIES = ["What's the weather in Shanghai?", "上海天气怎么样", "Where does my sister live?", "我对什么过敏",
           "What did I say about the launch?", "How did I feel about the offsite?", "Which hotel did I book?",
           "what's left to do this week", "手头还剩哪些事没办", "Do I like spicy food?"]


@pytest.mark.parametrize("floor", [0, 3])
@pytest.mark.parametrize(("query", "k"), [(q, 3) for q in QUERIES] + [(q, 5) for q in QUERIES[::3]])
def test_plain_searchs_best_keep_places_in_the_top_k(mem: mnemir.Memory, now: datetime, query: str, k: int,
                                                     floor: int) -> None:
    """Plain search's first (of k = 3) and first two (of k = 5) are shown, as themselves or as what was read from
    them, unless a named lifecycle exclusion or a confident intent leaves one out (said in the notes); so with the
    plain-search floor (``plain_floor``) on, whose later steps must not take them out again."""
    config = RecallConfig(plain_floor=floor, plain_floor_slack=0)
    mem.recall_config = config
    add(mem, now, "帮我订下周五去上海的机票", "Task", {"goal": "订机票", "status": "pending"}, days=3)
    add(mem, now, "上海今天晴，25摄氏度", "Fact", {"entity": "上海", "attribute": "weather", "value": "晴"}, hours=2)
    add(mem, now, "Book the Hilton near the venue for the launch", "Task", {"status": "completed"}, days=10)
    add(mem, now, "I was so nervous before the offsite, could hardly sleep", "EmotionalState",
        {"emotion_type": "anxiety", "trigger": "offsite"}, days=60)
    add(mem, now, "My sister lives in Lisbon", "Fact", {"entity": "sister", "attribute": "residence",
                                                        "value": "Lisbon"}, days=100)
    add(mem, now, "我超爱吃辣，越辣越好", "Preference", {"subject": "辣", "preference_type": "like"}, days=200)
    add(mem, now, "The launch moved to the 14th because the venue fell through", "Fact",
        {"entity": "launch", "attribute": "date", "value": "14th"}, days=5)
    _remember(mem, now, ["我对花生过敏", "Finish the quarterly report by Friday"], days=1)
    result = mem.recall(query, user="alice", k=k, now=now)
    shown = {h.id for h in result.hits} | {h.quote.id for h in result.hits if h.quote is not None} \
        | {r.target for h in result.hits for r in h.memory.relations("derived_from")}  # shown as what was read
    for best in mem.search(query, user="alice", k=kept_places(k, config.plain_share), now=now):
        named = [n for n in result.notes if best.id in n]
        assert best.id in shown or named, (query, best.memory.text, result.notes)
        if best.id not in shown:  # left out: the reason is a named lifecycle exclusion or a confident intent
            assert any(word in named[0] for word in ("task", "validity", "superseded", "replaced", "confidence"))


def _shown(result: mnemir.Recall) -> set[str]:
    """The memories an answer shows: its hits, their quotes and the utterances they were read from."""
    return {h.id for h in result.hits} | {h.quote.id for h in result.hits if h.quote is not None} \
        | {r.target for h in result.hits for r in h.memory.relations("derived_from")}


def _filled_store(mem: mnemir.Memory, now: datetime) -> None:
    """A store where a fact question finds one close answer, a related fact, an open task and a feeling about the
    same city, and many unrelated memories (under recall's floors: plain search still ranks them)."""
    add(mem, now, "上海今天晴，25摄氏度", "Fact", {"entity": "上海", "attribute": "weather", "value": "晴"}, hours=2)
    add(mem, now, "帮我订下周五去上海的机票", "Task", {"goal": "订机票", "status": "pending"}, days=3)
    add(mem, now, "在上海堵车堵得我好烦", "EmotionalState", {"emotion_type": "anger", "trigger": "堵车"}, days=1)
    add(mem, now, "My sister moved to Shanghai last spring", "Fact",
        {"entity": "sister", "attribute": "residence", "value": "Shanghai"}, days=40)
    for days, text in enumerate(["The printer on the third floor is out of toner", "我每周二晚上去游泳",
                                 "Lunch with the design team is at noon on Fridays", "The cat is due for a vet visit",
                                 "我的护照明年三月到期", "I bought new running shoes", "The wifi password changed",
                                 "My cousin plays the cello"], start=5):
        add(mem, now, text, "Fact", days=days * 3)


@pytest.mark.parametrize("k", [5, 10])
def test_an_answer_is_filled_to_k_from_plain_search(mem: mnemir.Memory, now: datetime, k: int) -> None:
    """Recall never leaves a place empty that plain search would fill: a short role-aware answer is topped up in
    plain search's order (labelled weak, with its plain rank), skipping only what a confident intent rules out
    (the task and the feeling, for a sure fact question) or a lifecycle exclusion names."""
    _filled_store(mem, now)
    query = "上海天气怎么样"
    result = mem.recall(query, user="alice", k=k, now=now)
    plain = mem.search(query, user="alice", k=k, now=now)
    shown = _shown(result)
    missing = [h for h in plain if h.id not in shown]
    assert len(result.hits) == k or all(h.memory.type in ("Task", "EmotionalState") for h in missing), \
        ([h.memory.text for h in result.hits], [h.memory.text for h in missing])
    assert len(result.hits) >= min(k, len([h for h in plain if h.memory.type == "Fact"]))
    for hit in result.hits:
        if any("fills a place" in r for r in hit.reasons):
            assert "weak" in hit.flags and hit.memory.type not in ("Task", "EmotionalState"), hit.reasons
    assert result.hits[0].memory.properties.get("attribute") == "weather"


def test_filling_from_plain_search_can_be_turned_off(mem: mnemir.Memory, now: datetime) -> None:
    _filled_store(mem, now)
    mem.recall_config = RecallConfig(fill_from_plain=False)
    short = mem.recall("上海天气怎么样", user="alice", k=10, now=now)
    assert not any("fills a place" in r for h in short.hits for r in h.reasons)
    with pytest.raises(mnemir.ValidationError, match="fill_from_plain"):
        RecallConfig(fill_from_plain=1)  # type: ignore[arg-type]


def test_an_utterance_read_as_the_setting_stays_findable_as_said(mem: mnemir.Memory, now: datetime) -> None:
    """A contextual frame is the setting: shown apart while in force, ended by the next one. The utterance it was
    read from is not folded into it: what was said there still answers a question about it."""
    said = add(mem, now, "Back from the vet: Biscuit is healthy but a bit underweight, so feed her a little more",
               "Episode", {"speaker": "user"}, hours=3)
    frame = add(mem, now, "At the vet with Biscuit", "ContextualFrame",
                {"frame_type": "meeting", "topic": "vet visit", "active": True}, hours=3,
                relationships=[{"target": said.id, "relation": "derived_from"}])
    add(mem, now, "Biscuit sleeps in her crate at night", "Fact", days=2)
    add(mem, now, "Buy a bigger water bowl for Biscuit", "Task", {"status": "pending"}, days=1)
    add(mem, now, "The dog park closes at sunset", "Fact", days=5)
    result = mem.recall("What did the vet say about Biscuit?", user="alice", k=3, now=now)
    assert said.id in [h.id for h in result.hits], [(h.memory.type, h.memory.text) for h in result.hits]
    assert frame.id not in [h.id for h in result.hits]  # the setting in force is shown apart, not as a hit


def test_an_emotional_event_is_found_months_later(mem: mnemir.Memory, now: datetime) -> None:
    party = add(mem, now, "Danced all night at the company Christmas party, I was so happy", "EmotionalState",
                {"emotion_type": "joy", "intensity": 0.9, "trigger": "Christmas party"}, days=150)
    zh = add(mem, now, "上次去海边露营看到日出，特别感动", "EmotionalState",
             {"emotion_type": "joy", "intensity": 0.8, "trigger": "露营看日出"}, days=120)
    add(mem, now, "I prefer tea over coffee in the afternoon", "Preference",
        {"subject": "tea", "preference_type": "like"}, days=90)
    add(mem, now, "The office closes at 6pm on Fridays", "Fact", {"entity": "office", "attribute": "hours"}, days=30)
    add(mem, now, "Book a table for the team dinner", "Task", {"status": "pending"}, days=2)
    mem.maintain(now=now)  # fading weakens a feeling as the present mood; the event is not archived
    for query, wanted in (("Do you remember when I danced at the Christmas party?", party.id),
                          ("What did I do at the Christmas party?", party.id),
                          ("上次露营看日出的时候", zh.id)):
        result = mem.recall(query, user="alice", k=3, now=now)
        assert wanted in [h.id for h in result.hits], (query, [(h.memory.text, h.reasons) for h in result.hits])


def _closed_task_and_ended_fact(mem: mnemir.Memory, now: datetime) -> tuple[mnemir.MemIR, mnemir.MemIR]:
    """A completed task and a fact whose validity ended yesterday: two lifecycle exclusions."""
    done = add(mem, now, "Renew the car insurance", "Task", {"status": "completed"}, days=2)
    expired = mnemir.MemIR(content=Content(text="The pool is closed for repairs"), type="Fact",
                           properties={"entity": "pool", "attribute": "status", "value": "closed"},
                           scope=Scope(user_id="alice"), valid_from=now - timedelta(days=20),
                           valid_to=now - timedelta(days=1))
    mem.import_jsonl(io.StringIO(dump_line(expired) + "\n"))
    return done, expired


def test_hard_exclusions_are_named(mem: mnemir.Memory, now: datetime) -> None:
    done, expired = _closed_task_and_ended_fact(mem, now)
    left = mem.recall("Is there anything left about the car insurance renewal?", user="alice", k=3, now=now,
                      intent=mem.intent("what's left to do", now=now).override(query="x", kind="open_tasks",
                                                                              types=("Task", "Plan")))
    assert done.id not in [h.id for h in left.hits]
    assert any(done.id in n and "open work was asked for" in n for n in left.notes), left.notes
    pool = mem.recall("Is the pool closed for repairs?", user="alice", k=3, now=now)
    assert expired.id not in [h.id for h in pool.hits]
    assert any(expired.id in n and "validity ended" in n for n in pool.notes), pool.notes


def test_fusion_settings_are_checked() -> None:
    with pytest.raises(mnemir.ValidationError, match="plain_weight"):
        RecallConfig(plain_weight=-1)
    with pytest.raises(mnemir.ValidationError, match="confident_intent"):
        RecallConfig(confident_intent=1.5)
    with pytest.raises(mnemir.ValidationError, match="fusion_k"):
        RecallConfig(fusion_k=0)
    with pytest.raises(mnemir.ValidationError, match="fill_from_plain"):
        RecallConfig(fill_from_plain="yes")  # type: ignore[arg-type]
    with pytest.raises(mnemir.ValidationError, match="plain_text_weight"):
        RecallConfig(plain_text_weight=-0.5)


#: a conversation over three sessions weeks apart, both speakers (invented for this test)
CONVERSATION = [
    (40, "user", "We're finally moving to Porto in the spring, my partner got a job at the university there"),
    (40, "assistant", "Congratulations! Would you like help planning the move?"),
    (40, "user", "Yes, and I'm allergic to cats, so the new flat must not have had pets before"),
    (40, "user", "My brother Tomás lives in Braga and offered to help with the boxes"),
    (20, "assistant", "You said you were moving to Porto. Any luck finding a flat yet?"),
    (20, "user", "We visited a flat near the river on Saturday, it was lovely but far too expensive"),
    (20, "user", "I started learning Portuguese twice a week with a tutor called Inês"),
    (20, "user", "I love the custard tarts from the bakery on the corner"),
    (5, "user", "We signed the lease for a flat in Bonfim yesterday"),
    (5, "assistant", "That's great news. Do you want a checklist for moving day?"),
    (5, "user", "The movers come on the 3rd of March and my brother will drive up from Braga"),
]

QUESTIONS = ["Where are we moving to?", "Which flat did we look at by the river?", "Who is my Portuguese tutor?",
             "Where is my brother living these days?", "When do the movers come?", "What happened with the lease?",
             "什么时候搬家公司来？"]


def _conversation(mem: mnemir.Memory, now: datetime) -> dict[str, int]:
    """The conversation remembered turn by turn; returns episode id -> turn number."""
    turns = {}
    for n, (days, speaker, text) in enumerate(CONVERSATION, start=1):
        kept = mem.remember(text, speaker=speaker, user="alice", session=f"s{days}", turn=n,
                            now=now - timedelta(days=days, minutes=-n))
        assert kept.episode is not None
        turns[kept.episode.id] = n
    return turns


def _turns_shown(hits: list[mnemir.RecallHit], turns: dict[str, int]) -> list[int]:
    """The utterance each hit stands for (itself, or the episode it was read from)."""
    out = []
    for h in hits:
        source = next((r.target for r in h.memory.relations("derived_from")), h.id)
        if source in turns:
            out.append(turns[source])
    return out


def test_one_slot_per_utterance_and_plain_search_over_the_utterances_keeps_its_best(mem: mnemir.Memory,
                                                                                     now: datetime) -> None:
    """Recall's top k holds no utterance twice (an episode and what was read from it, or two readings of it), and
    the utterances hybrid search over the episodes ranks first keep places in it (its best for a sure intent,
    more of them the less sure the intent is), unless a note names why."""
    turns = _conversation(mem, now)
    for query, k in [(q, k) for q in QUESTIONS for k in (3, 5)]:
        result = mem.recall(query, user="alice", k=k, now=now)
        shown = _turns_shown(result.hits, turns)
        assert len(shown) == len(set(shown)), (query, shown)
        best = mem.search(query, user="alice", types=["Episode"], k=1, now=now)
        assert best, query
        utterance = {best[0].id} | {e.source for e in mem.store.edges([best[0].id], relations=["derived_from"],
                                                                        direction="in")}
        assert turns[best[0].id] in shown or any(mid in n for n in result.notes for mid in utterance), \
            (query, best[0].memory.text, [(h.memory.type, h.memory.text) for h in result.hits])


def test_a_question_about_when_shows_the_utterance_and_its_date(mem: mnemir.Memory, now: datetime) -> None:
    """An utterance keeps when it was said: asked when something happened, recall shows it (or what was read from
    it) and the Context gives its date."""
    turns = _conversation(mem, now)
    for query, turn in (("When did we visit the flat near the river?", 6), ("When did I start learning Portuguese?", 7),
                        ("我们什么时候签的租约？", 9)):
        result = mem.recall(query, user="alice", k=5, now=now)
        assert turn in _turns_shown(result.hits, turns), (query, [h.memory.text for h in result.hits])
        days = CONVERSATION[turn - 1][0]
        said = (now - timedelta(days=days, minutes=-turn)).date().isoformat()
        assert said in result.context.render(), query


#: the same kind of thing said at different times (invented for this test): (when, text)
DATED = [
    (datetime(2025, 12, 24, 21, 0), "We went to the neighbours' party and I danced until midnight"),
    (datetime(2025, 11, 1, 21, 0), "We went to a party at the climbing gym and I danced a little"),
    (datetime(2025, 9, 13, 21, 0), "Went to my cousin's party, danced with the kids"),
    (datetime(2025, 7, 20, 12, 0), "We spent a week by the lake in a cabin with no signal"),
    (datetime(2025, 4, 2, 12, 0), "We spent the long weekend in a cabin in the mountains"),
    (datetime(2025, 12, 26, 10, 0), "圣诞节第二天我们全家去泡了温泉"),
    (datetime(2025, 11, 8, 10, 0), "我们周末全家去泡了温泉"),
    (datetime(2026, 5, 1, 10, 0), "Planted tomatoes and basil in the new raised bed"),
    (datetime(2026, 5, 28, 10, 0), "Planted strawberries along the fence"),
    (datetime(2026, 4, 10, 10, 0), "Planted lettuce and radishes by the shed"),
]


@pytest.mark.parametrize(("query", "said", "earlier"), [
    ("What did I do at the party over Christmas?", 0, (1, 2)),
    ("Where did we stay last summer?", 3, (4,)),
    ("圣诞节的时候我们去泡温泉了吗？", 5, (6,)),
    # known weakness (decision 0033): a deed told without its subject ("Planted …") sits on the extractor's to-do /
    # fact boundary, and the role gate ranks an unsure task reading of it, and with it what was said, below older
    # utterances. The fragment said on the 1st of May reads with its first two types within 0.03 of each other
    # (Fact / Task / Plan, in the shipped model and in each refit of decision 0106), and each of those refits moved
    # which of the two questions passes: neither is pinned as passing, and neither strictly as failing
    *(pytest.param(query, said, earlier, marks=pytest.mark.xfail(
        strict=False, reason="an unsure reading's role gate outweighs the period (a tie of types; 0033, 0106)"))
      for query, said, earlier in (("What did I plant two weeks ago?", 8, (7, 9)),
                                   ("What did I plant at the start of May?", 7, (9,)))),
])
def test_a_period_the_question_names_ranks_what_was_said_then(mem: mnemir.Memory, query: str, said: int,
                                                               earlier: tuple[int, ...]) -> None:
    """"over Christmas", "last summer", "two weeks ago", "圣诞节的时候": what was said in that period is shown, above
    the utterances on the same topic said before the period began (what was said after it may report it: it is
    not weighed down)."""
    now = datetime(2026, 6, 11, 9, 0, tzinfo=UTC)
    ids = []
    for turn, (when, text) in enumerate(DATED):
        kept = mem.remember(text, user="alice", session=f"s{turn}", turn=1, now=when.replace(tzinfo=UTC))
        assert kept.episode is not None
        ids.append(kept.episode.id)
    result = mem.recall(query, user="alice", k=3, now=now)
    shown = [next((r.target for r in h.memory.relations("derived_from")), h.id) for h in result.hits]
    assert result.intent.time_range is not None, query
    assert ids[said] in shown, (query, [h.memory.text for h in result.hits])
    for other in earlier:
        if ids[other] in shown:
            assert shown.index(ids[said]) < shown.index(ids[other]), (query, [h.memory.text for h in result.hits])


#: everyday remarks (invented for this test) that fill a store, each read into typed memories beside its utterance
CHATTER = ["I need to renew my passport before the summer", "My dentist appointment moved to next Thursday",
           "I prefer tea to coffee in the mornings", "The car needs new tyres before winter",
           "I was really stressed about the budget review last week", "My sister is getting married in June",
           "I want to learn to play the guitar this year", "Our team standup is at nine every day",
           "I think the landlord might raise the rent", "Remind me to call my grandmother on Sunday",
           "I really dislike crowded trains", "We booked a cabin in the mountains for August",
           "我下个月要去成都出差", "我最近睡得不太好，有点焦虑", "记得周五之前把报销单交了", "我不太喜欢吃香菜"]


@pytest.mark.parametrize(("candidates", "k"), [(1, 3), (1, 5), (30, 5)])
def test_plain_searchs_best_keep_more_places_the_less_sure_the_intent(mem: mnemir.Memory, now: datetime,
                                                                        candidates: int, k: int) -> None:
    """Plain search over the utterances is read deeper than the role order's candidates (``plain_depth``), and the
    less sure the intent (as the memories settled it), the more of its best keep places (``plain_share`` plus
    ``unsure_plain_share`` times the doubt): where the role order reads few candidates and typed readings and
    dialogue acts take most of them, the utterances hybrid search over the episodes ranks best are still shown (as
    themselves or as what was read from them), unless a named lifecycle exclusion or a confident intent leaves one
    out (said in the notes)."""
    for n, text in enumerate(CHATTER, start=100):
        mem.remember(text, user="alice", session="s0", turn=n, now=now - timedelta(days=60, minutes=-n))
    turns = _conversation(mem, now)
    # 1: the role order reads only 4 x k candidates; plain search read twice as deep as that
    config = RecallConfig(candidates=candidates, plain_depth=2.0)
    assert config.unsure_plain_share > 0.0
    mem.recall_config = config
    widest = 0
    for query, unsure in [(q, u) for q in QUESTIONS for u in (False, True)]:
        # unsure: the intent model's reading given with a low confidence (and no distribution for the role model
        # to settle it with): most of plain search's best then keep their places
        intent = mem.intent(query, now=now).override(confidence=0.3, kinds=()) if unsure else None
        result = mem.recall(query, user="alice", k=k, now=now, intent=intent)
        doubt = 1.0 - float(result.intent.confidence)
        kept = kept_places(k, min(1.0, config.plain_share + config.unsure_plain_share * doubt))
        assert kept >= kept_places(k, config.plain_share)
        widest = max(widest, kept)
        shown = set(_turns_shown(result.hits, turns))
        for best in mem.search(query, user="alice", types=["Episode"], k=kept, now=now):
            if best.id not in turns:
                continue  # one of the chatter turns
            utterance = {best.id} | {e.source for e in mem.store.edges([best.id], relations=["derived_from"],
                                                                         direction="in")}
            named = [n for n in result.notes if any(mid in n for mid in utterance)]
            assert turns[best.id] in shown or named, \
                (query, k, kept, best.memory.text, [(h.memory.type, h.memory.text) for h in result.hits])
    assert widest > kept_places(k, config.plain_share), "no question was unsure enough to widen plain search's share"


def test_the_keyword_search_is_read_deeper_for_plain_search_only(mem: mnemir.Memory, now: datetime) -> None:
    """``plain_text_depth`` 2: recall's keyword search reads twice the role order's depth; what it finds past that
    depth places plain search's order over the utterances (``deep``) and never enters the role order, whose
    candidates keep the keyword ranks of their own depth. Every utterance here shares one word with the query."""
    from mnemir.retrieve.recall import _gather

    sights = ["harbour", "castle", "market", "museum", "bridge", "garden", "station", "cathedral", "library",
              "stadium", "bakery", "theatre", "canal", "tower", "square", "chapel", "quay", "orchard"]
    for n, sight in enumerate(sights, start=1):
        mem.remember(f"We walked past the old {sight} with the lanterns on our evening stroll", user="alice",
                     session="s1", turn=n, now=now - timedelta(days=3, minutes=-n))
    query = "Which places had lanterns?"
    scope = mem._selection(user="alice").with_(types=None, where=None)
    intent = mem.intent(query, now=now)
    qvec = mem.embedder.embed_query(query)
    n = 4 * 5  # the role order's keyword depth at k = 5
    found = len(mem.store.text_search(scope, query, 1000))
    assert found > n, "the store must hold more keyword matches than the role order reads"
    for config, reach in ((RecallConfig(), n), (RecallConfig(plain_text_depth=2.0), 2 * n)):
        assert config.plain_depth == 1.0
        deep: dict = {}
        full: dict = {}
        pool = _gather(mem.store, scope, intent, (), None, qvec, now, n, config, deep, full)
        assert all(c.text_rank is None or c.text_rank <= n for c in pool.values())
        ranked = [c.text_rank for c in [*pool.values(), *deep.values(), *full.values()] if c.text_rank is not None]
        assert max(ranked) == min(found, reach)
        assert all(c.text_rank is not None and c.text_rank > n for c in deep.values())
    with pytest.raises(mnemir.ValidationError, match="plain_text_depth"):
        RecallConfig(plain_text_depth=0.5)
    mem.recall_config = RecallConfig(plain_text_depth=2.0)
    assert len(mem.recall(query, user="alice", k=5, now=now).hits) == 5


def _neighbour_news(mem: mnemir.Memory, now: datetime) -> str:
    """A friend's news misread on the write side as the user's own task (the typing error issue 14 names), beside
    facts that answer a fact question well enough for a confident intent to rule a task out. Returns the utterance."""
    said = utterance(mem, now, "My neighbour Priya begins a pottery course at the library annex on Monday week", 3,
                     ("Begin the pottery course at the library annex", "Task",
                      {"goal": "pottery course", "status": "pending"}))
    add(mem, now, "The library annex is open until nine on weekdays", "Fact",
        {"entity": "library annex", "attribute": "hours", "value": "until nine"}, days=6)
    add(mem, now, "Priya lives two doors down from us", "Fact",
        {"entity": "Priya", "attribute": "residence", "value": "two doors down"}, days=20)
    add(mem, now, "The pottery studio in town raised its prices", "Fact",
        {"entity": "pottery studio", "attribute": "prices", "value": "raised"}, days=9)
    for days, text in enumerate(["The printer on the third floor is out of toner", "I bought new running shoes",
                                 "My cousin plays the cello", "The wifi password changed"], start=11):
        add(mem, now, text, "Fact", days=days)
    return said


FLOOR = RecallConfig(plain_floor=2)


@pytest.mark.parametrize("k", [3, 5])
def test_plain_searchs_first_is_not_lost_to_a_misread_reading(mem: mnemir.Memory, now: datetime, k: int) -> None:
    """The plain-search floor (issue 14): the utterance plain search ranks first keeps a place in recall's top k even
    where the only reading of it is a role the intent rules out (a task, for a fact question): the utterance itself
    stands in, said in its reasons. Without the floor, the confident fact question rules the reading out, which
    the notes name."""
    said = _neighbour_news(mem, now)
    query = "When does Priya's pottery course start?"
    best = mem.search(query, user="alice", k=1, now=now)[0]
    group = {best.id} | {r.target for r in best.memory.relations("derived_from")}
    assert said in group, best.memory.text
    sure = mem.intent(query, now=now).override(kind="fact_lookup", types=("Fact",), confidence=0.85)
    mem.recall_config = RecallConfig(plain_floor=0)
    without = mem.recall(query, user="alice", k=k, now=now, intent=sure)
    assert said not in _shown(without)  # the subtraction the floor removes, named
    assert any("a task is not its answer" in n for n in without.notes), without.notes
    mem.recall_config = FLOOR
    result = mem.recall(query, user="alice", k=k, now=now, intent=sure)
    assert said in _shown(result), [(h.memory.type, h.memory.text) for h in result.hits]
    hit = next(h for h in result.hits if said in {h.id} | {h.quote.id if h.quote else ""}
               | {r.target for r in h.memory.relations("derived_from")})
    assert hit.memory.type == "Episode" and any("stands in" in r for r in hit.reasons), (hit.memory.type, hit.reasons)
    assert any(said in n and "keeps its place" in n for n in result.notes), result.notes
    assert not any("not brought back" in n and said in n for n in result.notes)
    assert len({h.id for h in result.hits}) == len(result.hits) <= k


def test_a_very_confident_intent_still_rules_the_role_out_and_says_so(mem: mnemir.Memory, now: datetime) -> None:
    """At or above ``floor_confident`` the intent's ruling stands: the reading is not shown, and the notes name plain
    search's match and why."""
    said = _neighbour_news(mem, now)
    query = "When does Priya's pottery course start?"
    mem.recall_config = RecallConfig(plain_floor=2, floor_confident=0.8)
    sure = mem.intent(query, now=now).override(kind="fact_lookup", types=("Fact",), confidence=0.95)
    result = mem.recall(query, user="alice", k=3, now=now, intent=sure)
    assert said not in _shown(result)
    assert any("a task is not its answer" in n and "plain search's match" in n for n in result.notes), result.notes


def test_the_floor_keeps_lifecycle_exclusions_and_names_them(mem: mnemir.Memory, now: datetime) -> None:
    """The floor brings back no memory a lifecycle fact bars: a closed task when open work is asked for, a validity
    that has ended, a memory replaced by a newer one; each is named in the notes."""
    mem.recall_config = FLOOR
    done, expired = _closed_task_and_ended_fact(mem, now)
    add(mem, now, "Water the tomatoes on the balcony", "Task", {"status": "pending"}, days=1)
    query = "Is there anything left about the car insurance renewal?"
    assert mem.search(query, user="alice", k=1, now=now)[0].id == done.id
    left = mem.recall(query, user="alice", k=3, now=now,
                      intent=mem.intent("what's left to do", now=now).override(query="x", kind="open_tasks",
                                                                              types=("Task", "Plan")))
    assert done.id not in [h.id for h in left.hits]
    assert any(done.id in n and "open work was asked for" in n for n in left.notes), left.notes
    query = "Is the pool closed for repairs?"
    assert mem.search(query, user="alice", k=1, now=now)[0].id == expired.id
    pool = mem.recall(query, user="alice", k=3, now=now)
    assert expired.id not in [h.id for h in pool.hits]
    assert any(expired.id in n and "validity ended" in n for n in pool.notes), pool.notes


def test_floor_settings_are_checked() -> None:
    for bad in ({"plain_floor": -1}, {"plain_floor": 1.5}, {"plain_floor_slack": True}, {"floor_confident": 2.0}):
        with pytest.raises(mnemir.ValidationError, match=next(iter(bad))):
            RecallConfig(**bad)  # type: ignore[arg-type]


def _as_transcript_turn(mem: mnemir.Memory, ids: list[str]) -> None:
    """Mark memories as read from a turn of a transcript of people talking, as ``remember`` marks them."""
    import io
    import json

    records = mem.store.fetch(ids)
    lines = []
    for record in records:
        data = record.to_dict()
        data["metadata"]["extra"] = {**data["metadata"].get("extra", {}), "said_by": "Odile", "transcript": True}
        lines.append(json.dumps(data))
    mem.import_jsonl(io.StringIO("\n".join(lines) + "\n"), on_conflict="replace")


def test_the_chat_floor_acts_on_a_conversation_between_people_only(mem: mnemir.Memory, now: datetime) -> None:
    """``plain_floor_chat`` (docs/decisions/0087): the floor for a question over a conversation between people. Over
    a user's own utterances it does nothing (the reading stays ruled out); once the utterance is a transcript's turn,
    it stands in as ``plain_floor`` would."""
    said = _neighbour_news(mem, now)
    query = "When does Priya's pottery course start?"
    sure = mem.intent(query, now=now).override(kind="fact_lookup", types=("Fact",), confidence=0.85)
    mem.recall_config = RecallConfig(plain_floor_chat=2)
    assert said not in _shown(mem.recall(query, user="alice", k=3, now=now, intent=sure))
    readings = [e.source for e in mem.store.edges([said], relations=["derived_from"], direction="in")]
    _as_transcript_turn(mem, [said, *readings])
    result = mem.recall(query, user="alice", k=3, now=now, intent=sure)
    assert said in _shown(result), [(h.memory.type, h.memory.text) for h in result.hits]
    mem.recall_config = RecallConfig(plain_floor_chat=0)
    assert said not in _shown(mem.recall(query, user="alice", k=3, now=now, intent=sure))
    assert RecallConfig().plain_floor_chat == 3  # on by default
    with pytest.raises(mnemir.ValidationError, match="plain_floor_chat"):
        RecallConfig(plain_floor_chat=-1)
