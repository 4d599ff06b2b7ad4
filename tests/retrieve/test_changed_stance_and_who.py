"""Asked for a preference, a stance the user has since changed is no answer; a reading that names nobody is about
whom its utterance names (docs/decisions/0111). Real store, real embedder, the shipped models; every sentence is
made up here."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, utterance

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.persons import asked_person_order
from mnemir.retrieve.query_kinds import read_query
from mnemir.retrieve.wording import says_stance_changed

ASKED = "What colour do I want for the bedroom walls?"
ON = RecallConfig(changed_stance=0.2)


@pytest.mark.parametrize(("text", "expected"), [
    ("Honestly I've come round to the idea of a loan.", True),
    ("我现在更想要浅灰色的。", True),
    ("I'll take the green one after all.", True),
    ("I'd much rather have it by video.", False),
    ("卧室墙想刷成白色。", False),
])
def test_a_statement_that_says_a_stance_changed(text: str, expected: bool) -> None:
    assert says_stance_changed(text) is expected


@pytest.fixture
def walls(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    return {
        # said within one conversation (hours apart): the older-than-a-day rule for preferences does not apply
        "old": add(mem, now, "For the bedroom I'd like plain white walls, bright and simple", "Preference",
                   {"preference_type": "like"}, hours=5),
        "new": add(mem, now, "Saw a friend's flat and now I'd rather have the bedroom walls a warm sage green",
                   "Preference", {"preference_type": "like"}, hours=1),
        "rug": add(mem, now, "The hallway rug keeps slipping on the tiles", "Fact", {}, days=15),
        "desk": add(mem, now, "My desk lamp needs a new bulb", "Fact", {}, days=12),
    }


def test_the_question_is_read_as_asking_for_a_preference(mem: mnemir.Memory) -> None:
    reading = read_query(mem.embedder.embed_query(ASKED), mem.embedder.model_id)
    assert reading.probabilities.get("preference", 0.0) >= ON.changed_stance_p


def test_a_stance_changed_since_is_left_out(mem: mnemir.Memory, now: datetime,
                                            walls: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = ON
    result = mem.recall(ASKED, user="alice", k=3, now=now)
    shown = [h.id for h in result.hits]
    assert walls["new"].id in shown and walls["old"].id not in shown, [h.memory.text for h in result.hits]
    assert any("stance changed since" in n for n in result.notes), result.notes


def test_off_both_stances_are_shown(mem: mnemir.Memory, now: datetime, walls: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = RecallConfig(changed_stance=1.0)
    shown = [h.id for h in mem.recall(ASKED, user="alice", k=3, now=now).hits]
    assert walls["new"].id in shown and walls["old"].id in shown


def test_a_question_about_the_past_keeps_the_old_stance(mem: mnemir.Memory, now: datetime,
                                                        walls: dict[str, mnemir.MemIR]) -> None:
    mem.recall_config = ON
    shown = [h.id for h in mem.recall("What colour did I originally want for the bedroom walls?", user="alice",
                                      k=3, now=now).hits]
    assert walls["old"].id in shown


def test_a_reading_naming_nobody_is_about_whom_its_utterance_names() -> None:
    known = ["My running mate Lin works late at the bank.", "Our captain Tobias leads the Saturday long run."]
    texts = {"a": "She doesn't run long distances because of her knee.", "b": "Tobias is a cardiologist.",
             "c": "Tobias leads the Saturday long run at six.", "d": "The club meets at the park gate."}
    utterances = {"a": "My running mate Lin works late at the bank. She doesn't run long distances because of "
                       "her knee."}
    ids = ["a", "b", "c", "d"]
    query = "When does Tobias take everyone running?"
    positions, _, moved = asked_person_order(ids, texts, query, k=2, depth=4, known=known)
    assert positions == [0, 1, 2, 3] and moved == []  # the pronoun alone names nobody: the order stands
    positions, note, moved = asked_person_order(ids, texts, query, k=2, depth=4, known=known,
                                                utterances=utterances)
    assert [ids[i] for i in positions][-1] == "a" and note and moved == [0]


def test_the_utterance_setting_in_recall(mem: mnemir.Memory, now: datetime) -> None:
    utterance(mem, now, "My running mate Lin works late at the bank. She doesn't run long distances because of "
              "her knee.", 10, ("She doesn't run long distances because of her knee.", "Fact", {}),
              ("My running mate Lin works late at the bank.", "Fact", {}))
    utterance(mem, now, "Our captain Tobias is a cardiologist and leads the long run every Saturday at six.", 8,
              ("Our captain Tobias is a cardiologist and leads the long run every Saturday at six.", "Fact", {}))
    assert RecallConfig().asked_person_utterance is False
    mem.recall_config = RecallConfig(asked_person_utterance=True)
    result = mem.recall("How far does Tobias run on Saturdays?", user="alice", k=1, now=now)
    assert "Tobias" in result.hits[0].memory.text, [h.memory.text for h in result.hits]


def test_someone_elses_change_of_mind_steps_down_no_stance_of_the_user(mem: mnemir.Memory, now: datetime) -> None:
    old = add(mem, now, "For the bedroom I'd like plain white walls, bright and simple", "Preference",
              {"preference_type": "like"}, hours=5)
    add(mem, now, "My sister has changed her mind and now wants her bedroom walls sage green", "Fact", {}, hours=1)
    mem.recall_config = ON
    result = mem.recall(ASKED, user="alice", k=3, now=now)
    assert old.id in [h.id for h in result.hits]
    assert not any("stance changed since" in n for n in result.notes), result.notes
