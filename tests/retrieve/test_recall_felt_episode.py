"""An utterance from which only a feeling was read (an outburst) plays that feeling's role: a confident calm question
rules it out of plain search's kept places, as it rules out the feeling itself, where a calm memory of the same thing
answers instead; the feeling read from it is not lifted by the utterance's plain rank either. With nothing calm about
the same thing, for a question about the past or about feelings, or with the setting off, the utterance stays
findable (real store, real model, hand-made intents; decision 0070)."""

from __future__ import annotations

from datetime import datetime

from recall_helpers import add, intent, utterance

import mnemir
from mnemir.retrieve import RecallConfig


def _scene(mem: mnemir.Memory, now: datetime) -> tuple[str, str]:
    """A boiler that broke down, told once in anger (only the feeling read from it) and once calmly."""
    outburst = utterance(mem, now, "The boiler packed in again last night and the engineer never turned up, I'm so "
                               "angry I could scream", 4,
                     ("The boiler packed in again last night and the engineer never turned up, I'm so angry I "
                      "could scream", "EmotionalState", {"emotion_type": "anger", "intensity": 0.9}))
    calm = add(mem, now, "The engineer didn't turn up for the boiler repair, so I rebooked him for Thursday "
                         "morning between 8 and 12", "Fact",
               {"entity": "boiler engineer", "attribute": "visit", "value": "Thursday 8-12"}, days=3)
    for days, text in enumerate(["The boiler is a Worcester combi fitted in 2015",
                                 "The heating engineers are Hartley Heating, on a yearly service plan",
                                 "The boiler's yearly service is due in March",
                                 "My sister lives in Leeds", "The library closes at 5pm on Saturdays"], start=10):
        add(mem, now, text, "Fact", days=days)
    return outburst, calm.id


def _shown(result: mnemir.Recall) -> set[str]:
    return {h.id for h in result.hits} | {r.target for h in result.hits for r in h.memory.relations("derived_from")}


def _ask(mem: mnemir.Memory, now: datetime, query: str, kind: str, types: tuple[str, ...],
         confidence: float = 0.9, k: int = 3) -> mnemir.Recall:
    return mem.recall(query, user="alice", k=k, now=now, intent=intent(query, kind, types, confidence=confidence))


QUERY = "When does the engineer turn up for the boiler?"


def test_a_confident_calm_question_rules_an_outburst_out_beside_a_calm_answer(mem: mnemir.Memory,
                                                                              now: datetime) -> None:
    outburst, calm = _scene(mem, now)
    result = _ask(mem, now, QUERY, "fact_lookup", ("Fact",))
    assert result.hits[0].id == calm, [(h.memory.text, h.reasons) for h in result.hits]
    assert outburst not in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]
    assert any(outburst in n and "only a feeling was read from this utterance" in n for n in result.notes), \
        result.notes


def test_the_outburst_stays_with_the_setting_off(mem: mnemir.Memory, now: datetime) -> None:
    outburst, calm = _scene(mem, now)
    mem.recall_config = RecallConfig(felt_episode_ruled_out=False)
    # five places: three calm facts on the boiler and its engineers (found for "engineer" by its other forms since
    # decision 0086) rank above the outburst; the point is that it is not ruled out
    result = _ask(mem, now, QUERY, "fact_lookup", ("Fact",), k=5)
    assert calm in _shown(result)
    assert outburst in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]


def test_a_question_read_as_asking_what_happened_keeps_the_outburst(mem: mnemir.Memory, now: datetime) -> None:
    """The news of an outcome is often told with feeling: where the query-kind model reads a question about what
    happened (here: a threshold of 0, so every question), the utterance is not ruled out."""
    outburst, _ = _scene(mem, now)
    mem.recall_config = RecallConfig(felt_episode_event_kinds=0.0)
    result = _ask(mem, now, QUERY, "fact_lookup", ("Fact",), k=5)  # five places, as above
    assert outburst in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]


def test_an_unsure_intent_keeps_the_outburst_findable(mem: mnemir.Memory, now: datetime) -> None:
    outburst, _ = _scene(mem, now)
    result = _ask(mem, now, QUERY, "fact_lookup", ("Fact",), confidence=0.4)
    assert outburst in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]


def test_a_question_about_feelings_finds_the_outburst(mem: mnemir.Memory, now: datetime) -> None:
    outburst, _ = _scene(mem, now)
    result = _ask(mem, now, "How did I feel about the boiler breaking down?", "emotion", ("EmotionalState",))
    assert outburst in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]


def test_an_event_told_with_a_feeling_is_found_with_nothing_calm_beside_it(mem: mnemir.Memory,
                                                                           now: datetime) -> None:
    """Nothing calm says the same thing: the utterance is the evidence there is, and a calm question finds it."""
    said = utterance(mem, now, "At last we collected the allotment keys, our plot sits right beside the river and I'm delighted", 6,
                 ("At last we collected the allotment keys, our plot sits right beside the river and I'm delighted",
                  "EmotionalState", {"emotion_type": "joy", "intensity": 0.8}))
    for days, text in enumerate(["The dentist is on Park Road", "My sister lives in Leeds",
                                 "The library closes at 5pm on Saturdays"], start=10):
        add(mem, now, text, "Fact", days=days)
    result = _ask(mem, now, "Which allotment plot did I get the keys to?", "fact_lookup", ("Fact",))
    assert said in _shown(result), [(h.memory.text, h.reasons) for h in result.hits]


def test_the_felt_episode_settings_are_checked() -> None:
    import pytest

    with pytest.raises(mnemir.ValidationError, match="felt_episode_ruled_out"):
        RecallConfig(felt_episode_ruled_out=1)  # type: ignore[arg-type]
    with pytest.raises(mnemir.ValidationError, match="felt_episode_calm"):
        RecallConfig(felt_episode_calm=1.5)
    with pytest.raises(mnemir.ValidationError, match="felt_episode_event_kinds"):
        RecallConfig(felt_episode_event_kinds=-0.1)
