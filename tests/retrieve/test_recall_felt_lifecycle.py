"""An utterance from which only a feeling was read (an outburst) takes the lifecycle of that feeling: asked how the
user feels now, it gives way when the feeling read from it gave way to a later one about the same thing; a question
about the past still finds it; with the setting off it stays (real store, real model, hand-made intents; decision
0100)."""

from __future__ import annotations

from datetime import datetime

from recall_helpers import add, intent, utterance

import mnemir
from mnemir.retrieve import RecallConfig

FEAR = "Half the glazed bowls cracked in the kiln and the pottery fair is this Saturday, I'm in a total panic"
CALM_NOW = "Sold eleven bowls at the pottery fair, feeling calm and content about it now"


def _feelings(mem: mnemir.Memory, now: datetime) -> tuple[str, str]:
    """A fear told once in an outburst (only the feeling read from it), then a later feeling about the same fair."""
    dread = utterance(mem, now, FEAR, 6, (FEAR, "EmotionalState",
                                          {"emotion_type": "fear", "intensity": 0.8, "trigger": "pottery fair"}))
    relief = utterance(mem, now, CALM_NOW, 1, (CALM_NOW, "EmotionalState",
                                               {"emotion_type": "calm", "intensity": 0.7,
                                                "trigger": "pottery fair"}))
    for days, text in enumerate(["My cousin keeps bees in Wexford", "The clay supplier delivers on Tuesdays",
                                 "The kiln fires up to 1280 degrees"], start=10):
        add(mem, now, text, "Fact", days=days)
    return dread, relief


def _shown(result: mnemir.Recall) -> set[str]:
    return {h.id for h in result.hits} | {r.target for h in result.hits for r in h.memory.relations("derived_from")}


def _explain(result: mnemir.Recall) -> list[tuple[str, str, list[str]]]:
    return [(h.memory.type, h.memory.content.text, h.reasons) for h in result.hits]


FEEL_NOW = "How do I feel about the pottery fair these days?"
#: the same question without a present adverb: it may ask how the fair went, the outburst then part of the answer
FEEL = "How do I feel about the pottery fair?"


def test_an_outburst_gives_way_with_the_feeling_read_from_it(mem: mnemir.Memory, now: datetime) -> None:
    dread, relief = _feelings(mem, now)
    mem.recall_config = RecallConfig()  # on by default
    result = mem.recall(FEEL_NOW, user="alice", k=3, now=now,
                        intent=intent(FEEL_NOW, "emotion", ("EmotionalState",), confidence=0.95))
    assert relief in _shown(result), _explain(result)
    assert dread not in _shown(result), _explain(result)


def test_the_earlier_outburst_stays_with_the_setting_off(mem: mnemir.Memory, now: datetime) -> None:
    dread, _ = _feelings(mem, now)
    mem.recall_config = RecallConfig(felt_episode_moves_on=False)
    result = mem.recall(FEEL_NOW, user="alice", k=3, now=now,
                        intent=intent(FEEL_NOW, "emotion", ("EmotionalState",), confidence=0.95))
    assert dread in {h.id for h in result.hits}, _explain(result)


def test_a_question_about_the_past_still_finds_the_outburst(mem: mnemir.Memory, now: datetime) -> None:
    dread, _ = _feelings(mem, now)
    mem.recall_config = RecallConfig(felt_episode_moves_on=True)
    query = "How did I use to feel about the pottery fair before it opened?"
    result = mem.recall(query, user="alice", k=3, now=now,
                        intent=intent(query, "emotion", ("EmotionalState",), confidence=0.95))
    assert dread in _shown(result), _explain(result)


def test_the_setting_is_checked() -> None:
    import pytest

    with pytest.raises(mnemir.ValidationError, match="felt_episode_moves_on"):
        RecallConfig(felt_episode_moves_on=1)  # type: ignore[arg-type]


def test_a_question_read_as_asking_what_happened_still_finds_the_outburst(mem: mnemir.Memory, now: datetime) -> None:
    """How an event went is asked about: the feeling told with it is part of the answer (here the query-kind
    threshold is 0, so every question is read as asking what happened)."""
    dread, _ = _feelings(mem, now)
    mem.recall_config = RecallConfig(felt_episode_moves_on=True, felt_episode_event_kinds=0.0)
    result = mem.recall(FEEL_NOW, user="alice", k=3, now=now,
                        intent=intent(FEEL_NOW, "emotion", ("EmotionalState",), confidence=0.95))
    assert dread in {h.id for h in result.hits}, _explain(result)


def test_without_a_present_adverb_the_outburst_stays_unless_asked_to_move_on_anyway(mem: mnemir.Memory,
                                                                                    now: datetime) -> None:
    dread, _ = _feelings(mem, now)
    ask = intent(FEEL, "emotion", ("EmotionalState",), confidence=0.95)
    mem.recall_config = RecallConfig(felt_episode_moves_on=True)
    result = mem.recall(FEEL, user="alice", k=3, now=now, intent=ask)
    assert dread in {h.id for h in result.hits}, _explain(result)
    mem.recall_config = RecallConfig(felt_episode_moves_on=True, felt_episode_moves_now=False)
    result = mem.recall(FEEL, user="alice", k=3, now=now, intent=ask)
    assert dread not in _shown(result), _explain(result)
