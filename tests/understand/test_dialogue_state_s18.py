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
