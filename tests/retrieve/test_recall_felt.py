"""A memory said with a feeling (a feeling was read from the same utterance) counts less for a calm question when a
calm statement of the same thing is among the candidates: that one is the better evidence. With nothing calm about
the same thing, what was said with a feeling is the evidence there is and counts fully (in natural conversation most
things are said with some feeling). Soft: it is still found when nothing calmer matches, and a question about
feelings or about the past is not damped (real store, real model, hand-made intents)."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add, intent, utterance

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.ranking import Candidate, FrameState, RankingConfig, score_candidate


def _outburst(mem: mnemir.Memory, now: datetime) -> str:
    return utterance(mem, now, "The dishwasher flooded the kitchen AGAIN, I'm so furious with the repair company",
                 2, ("Furious with the repair company about the dishwasher", "EmotionalState",
                     {"emotion_type": "anger", "intensity": 0.9}))


def _others(mem: mnemir.Memory, now: datetime) -> None:
    for days, text in enumerate(["My cousin plays the cello", "The gym opens at 6am on weekdays",
                                 "I bought a new pair of hiking boots"], start=5):
        add(mem, now, text, "Fact", days=days)


def _asked(mem: mnemir.Memory, now: datetime, query: str, kind: str, types: tuple[str, ...]) -> mnemir.Recall:
    """Recall with a confident intent of ``kind`` (the intent model is not what these tests are about)."""
    return mem.recall(query, user="alice", k=3, now=now, intent=intent(query, kind, types, confidence=0.9))


def _ids(result: mnemir.Recall) -> list[str]:
    return [h.id for h in result.hits]


def test_a_calm_fact_ranks_above_an_outburst_about_the_same_thing(mem: mnemir.Memory, now: datetime) -> None:
    outburst = _outburst(mem, now)
    calm = add(mem, now, "The dishwasher is under the repair company's warranty until next March", "Fact",
               {"entity": "dishwasher", "attribute": "warranty", "value": "until next March"}, days=10)
    _others(mem, now)
    query = "How long is the dishwasher under warranty?"
    result = _asked(mem, now, query, "fact_lookup", ("Fact",))
    ids = _ids(result)
    assert ids[0] == calm.id, [(h.memory.text, h.reasons) for h in result.hits]
    if outburst in ids:  # soft: moved down, not removed
        hit = result.hits[ids.index(outburst)]
        assert any("said with a feeling" in r for r in hit.reasons), hit.reasons


def test_an_outburst_is_still_found_when_nothing_calmer_matches(mem: mnemir.Memory, now: datetime) -> None:
    outburst = _outburst(mem, now)
    _others(mem, now)
    query = "What happened with the dishwasher?"
    result = _asked(mem, now, query, "fact_lookup", ("Fact",))
    first = result.hits[0]  # the utterance, as said or as the feeling read from it
    assert outburst in {first.id} | {r.target for r in first.memory.relations("derived_from")}, \
        [(h.memory.text, h.reasons) for h in result.hits]


def test_a_question_about_feelings_is_not_damped(mem: mnemir.Memory, now: datetime) -> None:
    outburst = _outburst(mem, now)
    _others(mem, now)
    query = "How did I feel about the dishwasher flood?"
    result = _asked(mem, now, query, "emotion", ("EmotionalState",))
    shown = {h.id for h in result.hits} | {h.quote.id for h in result.hits if h.quote is not None}
    assert outburst in shown or any(h.memory.type == "EmotionalState" for h in result.hits)
    assert not any("said with a feeling" in r for h in result.hits for r in h.reasons)


def test_only_what_was_said_with_a_feeling_is_marked(mem: mnemir.Memory, now: datetime) -> None:
    """A fact read from an utterance that also carried a feeling is marked; a fact read from a calm one is not
    (with the typed-reading damping on: ``felt_fit`` 0.8; marked wherever a feeling was read: ``felt_beside_calm`` 0)."""
    mem.recall_config = RecallConfig(ranking=RankingConfig(felt_fit=0.8, felt_beside_calm=0.0))
    utterance(mem, now, "Ugh, the landlord put the rent up to 1400 a month, I'm so angry", 3,
          ("The rent is 1400 a month", "Fact", {"entity": "rent", "attribute": "amount", "value": "1400"}),
          ("Angry at the landlord about the rent rise", "EmotionalState", {"emotion_type": "anger"}))
    utterance(mem, now, "The parking space costs 90 a month", 4,
          ("The parking space costs 90 a month", "Fact", {"entity": "parking space", "attribute": "price",
                                                          "value": "90"}))
    query = "How much do I pay each month for the rent and the parking space?"
    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "fact_lookup", ("Fact",),
                                                                         confidence=0.9))
    marked = {h.memory.text: any("said with a feeling" in r for r in h.reasons) for h in result.hits
              if h.memory.type == "Fact"}
    assert marked.get("The rent is 1400 a month") is True, marked
    assert marked.get("The parking space costs 90 a month") is False, marked


def test_an_advice_question_weighs_what_was_said_with_a_feeling_fully(mem: mnemir.Memory, now: datetime) -> None:
    """Asked what to do, the user's state counts, feelings included: nothing said with a feeling is damped."""
    _outburst(mem, now)
    _others(mem, now)
    query = "Should I call the repair company again about the dishwasher?"
    result = _asked(mem, now, query, "preference", ("Preference",))
    assert result.hits
    assert not any("said with a feeling" in r for h in result.hits for r in h.reasons)


def test_the_damping_follows_the_intents_confidence(mem: mnemir.Memory, now: datetime) -> None:
    """With ``felt_by_confidence`` (off by default: docs/decisions/0035), an unsure fact question damps what was said
    with a feeling less."""
    said = mem.get(_outburst(mem, now), user="alice")
    query = "What happened with the dishwasher?"

    def score(confidence: float, felt: bool = True) -> float:
        scored = score_candidate(Candidate(said, similarity=0.5, felt=felt), "answer",
                                 intent(query, "fact_lookup", ("Fact",), confidence=confidence), None, now,
                                 RankingConfig(felt_by_confidence=True), FrameState(), past=False)
        assert scored is not None
        return scored.score

    with pytest.raises(mnemir.ValidationError, match="felt_by_confidence"):
        RankingConfig(felt_by_confidence=1)  # type: ignore[arg-type]
    assert score(0.95) < score(0.4) < score(0.4, felt=False)
    assert score(0.95, felt=False) == score(0.4, felt=False)


def _told(hit: mnemir.RecallHit) -> set[str]:
    """The utterance a hit is, or the utterances it was read from."""
    return {hit.id} | {r.target for r in hit.memory.relations("derived_from")}


def _adopted(mem: mnemir.Memory, now: datetime) -> str:
    """An event told with joy, from which only the feeling was read, beside calm facts on other things (one of them
    close to a question about the event: another pet's name)."""
    said = utterance(mem, now, "We finally adopted a rescue greyhound called Pepper last weekend, I'm over the moon", 6,
                 ("Over the moon about adopting the greyhound", "EmotionalState", {"emotion_type": "joy",
                                                                                "intensity": 0.8}))
    add(mem, now, "The neighbour's cat is called Mittens", "Fact",
        {"entity": "neighbour's cat", "attribute": "name", "value": "Mittens"}, days=30)
    add(mem, now, "The vet on Elm Street opens at 9am", "Fact", {"entity": "vet", "attribute": "opening",
                                                                  "value": "9am"}, days=12)
    _others(mem, now)
    return said


def test_what_was_said_with_a_feeling_counts_fully_when_nothing_calm_says_the_same_thing(mem: mnemir.Memory,
                                                                                           now: datetime) -> None:
    """With ``felt_beside_calm`` (off by default: decision 0038), only a calm memory of the same thing weighs an
    utterance said with a feeling down."""
    said = _adopted(mem, now)
    mem.recall_config = RecallConfig(ranking=RankingConfig(felt_beside_calm=0.5))
    query = "What's the name of the dog we adopted?"
    result = _asked(mem, now, query, "fact_lookup", ("Fact",))
    # the utterance, or the feeling read from it standing for it (one slot per utterance; since decision 0086 the
    # feeling's "adopting" matches the question's "adopted" too)
    assert said in _told(result.hits[0]), [(h.memory.text, h.reasons) for h in result.hits]
    assert not any("said with a feeling" in r for h in result.hits for r in h.reasons)


def test_by_default_an_utterance_that_is_only_a_feeling_is_weighed_as_the_feeling(mem: mnemir.Memory,
                                                                                     now: datetime) -> None:
    """The default (decision 0035's rule for an utterance from which only a feeling was read; decision 0038) puts
    the calm fact about another pet first: soft, the utterance stays in the answer, said to be weighed down."""
    said = _adopted(mem, now)
    query = "What's the name of the dog we adopted?"
    result = _asked(mem, now, query, "fact_lookup", ("Fact",))
    assert said not in _told(result.hits[0])
    hit = next(h for h in result.hits if said in _told(h))  # soft: moved down, not removed
    if hit.id == said:  # the utterance itself: weighed down
        assert any("said with a feeling" in r for r in hit.reasons), hit.reasons
    else:  # the feeling read from it stands for it: damped as the present mood, kept as an event
        assert hit.memory.type == "EmotionalState"
        assert any("kept as an event" in r for r in hit.reasons), hit.reasons


def test_felt_settings_are_checked() -> None:
    for name in ("felt_beside_calm", "felt_fit"):
        with pytest.raises(mnemir.ValidationError, match=name):
            RankingConfig(**{name: 1.5})


def test_a_fact_read_alongside_a_feeling_counts_fully_by_default(mem: mnemir.Memory, now: datetime) -> None:
    """A fact read from an utterance that also carried a feeling is not weighed down (``felt_fit`` 1.0: the
    feeling is its own memory, the fact is the fact)."""
    said = mem.get(utterance(mem, now, "Ugh, the landlord put the rent up to 1400 a month, I'm so angry", 3), user="alice")
    fact = add(mem, now, "The rent is 1400 a month", "Fact", {"entity": "rent", "attribute": "amount",
                                                               "value": "1400"}, days=3,
               relationships=[{"target": said.id, "relation": "derived_from"}])
    query = "How much is the rent?"
    asked = intent(query, "fact_lookup", ("Fact",), confidence=0.9)

    def score(felt: bool, config: RankingConfig) -> float:
        scored = score_candidate(Candidate(fact, similarity=0.6, felt=felt), "answer", asked, None, now, config,
                                 FrameState(), past=False)
        assert scored is not None
        return scored.score

    assert score(True, RankingConfig()) == score(False, RankingConfig())
    assert score(True, RankingConfig(felt_fit=0.8)) < score(False, RankingConfig(felt_fit=0.8))
