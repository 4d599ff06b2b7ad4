"""Dialogue state, session 18 (issue 15, docs/decisions/0059): a turn the learned model reads as a choice made is
kept as a decision; a report's lead over other open work is not measured against another reading of the same
utterance. Real SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dialogue_helpers import say

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.embed import default_embedder
from mnemir.memory.understanding import Candidate
from mnemir.retrieve.judgements import states_decision
from mnemir.understand.decision_turns import decision_probability, shipped_decision_turns

START = datetime(2026, 11, 16, 18, 0, tzinfo=UTC)


def test_the_shipped_model_was_fitted_on_training_files_only() -> None:
    model = shipped_decision_turns()
    assert model is not None and model.model_id == default_embedder().model_id
    assert model.meta["trained_on"] and all(name.startswith("continuity_train_") for name in model.meta["trained_on"])
    assert 0.0 < model.threshold < 1.0


@pytest.mark.parametrize(("text", "chosen"), [
    ("Took the grey sofa in the end, the green one was too deep.", True),
    ("最后选了离家近的那家幼儿园，接送方便。", True),
    ("My sister lives in Leeds and works as a nurse.", False),
    ("I need to call the bank tomorrow about the overdraft.", False),
    ("今天下雨了，心情一般。", False),
])
def test_a_turn_is_read_as_a_choice_made_or_not(text: str, chosen: bool) -> None:
    embedder = default_embedder()
    read = decision_probability(embedder.embed([text])[0], text, embedder.model_id)
    assert read is not None
    assert (read[0] >= read[1]) is chosen, read


def test_another_models_vector_reads_nothing() -> None:
    assert decision_probability([0.1, 0.2], "Took the grey sofa.", "another-model") is None


def test_a_choice_the_markers_miss_is_kept_as_a_decision(mem: mnemir.Memory,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    turns = [("user", "We need a new sofa, the old one is falling apart."),
             ("assistant", "Do you want something compact, or room for everyone to stretch out?"),
             ("user", "Took the grey sofa in the end, the green one was too deep.")]
    say(mem, turns, user="ines", start=START)
    decisions = [r for r in mem.list(user="ines") if states_decision(r) and r.metadata.source.turn == 3]
    assert decisions, [(r.type, r.content.text) for r in mem.list(user="ines")]
    # switched off, the same conversation keeps no decision from that turn
    monkeypatch.setattr(understanding, "LEARNED_DECISIONS", False)
    say(mem, turns, user="joao", start=START)
    assert not [r for r in mem.list(user="joao") if states_decision(r) and r.metadata.source.turn == 3]


def test_a_reading_of_the_same_utterance_is_no_rival(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [mem.add(text, "Task", user="kai", session="s1", turn=turn, now=START).id
           for text, turn in (("renew the parking permit", 4), ("pay the resident fee on the council site", 4), ("book the MOT", 9))]
    candidates = [Candidate(ids[0], "renew the parking permit", 0.62, ("",), 0.62),
                  Candidate(ids[1], "pay the resident fee on the council site", 0.61, ("",), 0.61),
                  Candidate(ids[2], "book the MOT", 0.31, ("",), 0.31)]
    assert mem._runner_up(candidates) == pytest.approx(0.31)
    assert mem._runner_up(candidates[:1]) == 0.0
    monkeypatch.setattr(understanding, "SAME_UTTERANCE_NO_RIVAL", False)
    assert mem._runner_up(candidates) == pytest.approx(0.61)


def _status_of_turn(mem: mnemir.Memory, user: str, turn: int) -> set[str]:
    return {str(r.properties.get("status")) for r in mem.list(user=user, types=["Task", "Plan"])
            if r.metadata.source.turn == turn}


def test_a_reply_is_read_with_the_question_it_answers(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    turns = [("user", "I need to get the boiler serviced before winter."),
             ("assistant", "Sensible, autumn slots go fast."),
             ("user", "Also my niece's birthday is on the 14th, she's turning nine."),
             ("assistant", "Did you get the boiler serviced?"),
             ("user", "Yep, finished it yesterday.")]
    monkeypatch.setattr(understanding, "ANSWERS_READ_WITH_QUESTION", True)  # off by default (docs/decisions/0059)
    say(mem, turns, user="lena", start=START)
    assert _status_of_turn(mem, "lena", 1) == {"completed"}
    monkeypatch.setattr(understanding, "ANSWERS_READ_WITH_QUESTION", False)
    say(mem, turns, user="omar", start=START)
    assert _status_of_turn(mem, "omar", 1) != {"completed"}


def test_declining_an_offer_reports_no_work(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "ANSWERS_READ_WITH_QUESTION", True)
    turns = [("user", "I have to write to the letting agent about the mould in the spare room."),
             ("assistant", "Shall I put together a message to the agent on your behalf?"),
             ("user", "No thanks, I'll write it myself tonight.")]
    say(mem, turns, user="pia", start=START)
    assert "failed" not in _status_of_turn(mem, "pia", 1)


def test_a_decision_points_at_the_question_it_answers(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "DECISIONS_ANSWER", True)  # off by default (docs/decisions/0059)
    turns = [("user", "We're choosing between two nurseries for Leo, Little Acorns and Brightside."),
             ("assistant", "Both have good reports. Which one did you go for in the end?"),
             ("user", "Brightside it is, the garden won us over.")]
    say(mem, turns, user="quin", start=START)
    [question] = [r for r in mem.list(user="quin", types=["Episode"]) if r.metadata.source.turn == 2]
    decisions = [r for r in mem.list(user="quin") if states_decision(r) and r.metadata.source.turn == 3]
    assert decisions
    assert any(rel.relation == "answers" and rel.target == question.id for d in decisions for rel in d.relationships)
