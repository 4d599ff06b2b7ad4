"""Recall over stores built through ``remember`` (decision 0119): an utterance from which only a feeling was read
(an outburst) is that feeling, said. Sentences of our own; the real store and the real embedding model."""

from __future__ import annotations

from datetime import datetime, timedelta

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.evidence import role_evidence
from mnemir.retrieve.learned import SAID
from mnemir.retrieve.ranking import Candidate, Scored
from mnemir.retrieve.recall import _plain

USER = "u"


def _said(mem: mnemir.Memory, now: datetime, text: str, ago: timedelta) -> None:
    mem.remember(text, speaker="user", user=USER, now=now - ago)


def _utterance(mem: mnemir.Memory, words: str) -> mnemir.MemIR:
    return next(r for r in mem.list(types=["Episode"], user=USER, limit=50) if words in r.content.text)


def test_an_outburst_is_no_filler_of_a_thin_answer_as_its_feeling_is_none(mem: mnemir.Memory, now: datetime) -> None:
    _said(mem, now, "I'm so scared of the vet's clippers near Biscuit's paws, my hands shake every time", timedelta(days=6))
    _said(mem, now, "The vet's practice is on Carrow Road, above the chemist", timedelta(days=30))
    outburst = _utterance(mem, "clippers")
    calm = _utterance(mem, "Carrow Road")
    felt = Scored(Candidate(outburst, similarity=0.2, felt=True), "answer", 0.1, relevance=0.1)
    plain = Scored(Candidate(calm, similarity=0.2), "answer", 0.1, relevance=0.1)
    assert _plain(felt) and not _plain(felt, True)  # with the switch, the outburst counts as the feeling
    assert _plain(plain) and _plain(plain, True)  # a calm utterance fills as before
    feeling = next(r for r in mem.list(types=["EmotionalState"], user=USER, limit=10))
    assert not _plain(Scored(Candidate(feeling, similarity=0.2), "answer", 0.1, relevance=0.1))


def test_with_the_switch_no_outburst_fills_a_calm_question(mem: mnemir.Memory, now: datetime) -> None:
    for text, days in (("I'm so scared of the vet's clippers near Biscuit's paws, my hands shake every time", 6),
                       ("The vet's practice is on Carrow Road, above the chemist", 30),
                       ("My library card number is 55810", 40),
                       ("I'm fuming about the parking fines near the practice, honestly", 3),
                       ("My cousin Ines teaches maths in Leeds", 50)):
        _said(mem, now, text, timedelta(days=days))
    assert RecallConfig().felt_fill_as_feeling is True  # on by default (decision 0119)
    mem.recall_config = RecallConfig(felt_fill_as_feeling=True)
    got = mem.recall("Where is the vet's practice?", user=USER, k=3, now=now)
    assert "Carrow Road" in got.hits[0].memory.text
    fillers = [h for h in got.hits if "under the relevance floor: shown because too few memories passed it"
               in h.reasons]
    assert not any(h.memory.type == "Episode" and "only a feeling" in " ".join(h.reasons) for h in fillers)
    felt = mem.recall("How do I feel about the vet's clippers?", user=USER, k=3, now=now)
    assert any("clippers" in h.memory.text for h in felt.hits)  # asked about feelings, the outburst is found


def test_an_outburst_is_set_aside_only_beside_a_calm_memory_of_the_same_thing(mem: mnemir.Memory,
                                                                               now: datetime) -> None:
    """With ``felt_aside_beside_calm``, an outburst leaves the role order of a calm question only where a calm
    memory of the same thing is a candidate; told alone, it is the evidence there is and a question finds it."""
    _said(mem, now, "I'm thrilled, the kiln finally fired my big blue vase without a crack!", timedelta(days=2))
    config = RecallConfig(felt_episodes_follow_types=True, felt_aside_beside_calm=True)
    mem.recall_config = config
    alone = mem.recall("Did the kiln fire the blue vase?", user=USER, k=3, now=now)
    assert any("vase" in h.memory.text for h in alone.hits)
    _said(mem, now, "The kiln at the studio fires up to 1,280 degrees", timedelta(days=40))
    calm = mem.recall("How hot does the studio kiln fire?", user=USER, k=3, now=now)
    assert "1,280" in calm.hits[0].memory.text


def test_the_switches_are_checked() -> None:
    import pytest

    from mnemir.errors import ValidationError

    for name in ("felt_fill_as_feeling", "felt_aside_beside_calm", "felt_said_as_feeling"):
        with pytest.raises(ValidationError):
            RecallConfig(**{name: "yes"})


def test_the_role_model_may_hear_an_outburst_as_its_feeling(mem: mnemir.Memory, now: datetime) -> None:
    """A store typed by hand holds the feeling and no utterance; with ``felt_said_as_feeling`` the role model hears
    the outburst's utterance as the feeling, and a calm utterance still as something said."""
    _said(mem, now, "I'm so scared of the vet's clippers near Biscuit's paws, my hands shake every time", timedelta(days=6))
    _said(mem, now, "The vet's practice is on Carrow Road, above the chemist", timedelta(days=30))
    pool = [Candidate(_utterance(mem, "clippers"), similarity=0.5, vector_rank=1, felt=True),
            Candidate(_utterance(mem, "Carrow Road"), similarity=0.4, vector_rank=2)]
    ranking = RecallConfig().ranking
    intent = mem.recall("Where is the vet's practice?", user=USER, k=3, now=now).intent
    heard = [family for family, *_ in role_evidence(intent, pool, ranking, now)]
    assert heard == [SAID, SAID]
    heard = [family for family, *_ in role_evidence(intent, pool, ranking, now, felt_as_feeling=True)]
    assert heard == ["emotion", SAID]


def test_with_the_role_switch_a_calm_question_stays_calm(mem: mnemir.Memory, now: datetime) -> None:
    """Told with feeling beside a calm fact of the same thing, the question about the fact is still read as one."""
    for text, days in (("I totally botched the driving theory test, I'm gutted and dreading the retake", 3),
                       ("I scored 41 out of 50 on the driving theory test", 4),
                       ("The retake of the theory test is booked for 12 March", 2)):
        _said(mem, now, text, timedelta(days=days))
    mem.recall_config = RecallConfig(felt_said_as_feeling=True)
    got = mem.recall("What did I score on the theory test?", user=USER, k=3, now=now)
    assert got.intent.kind != "emotion"
    assert any("41 out of 50" in h.memory.text for h in got.hits[:2])


def test_the_ranker_over_talk_between_people_is_named_or_none() -> None:
    import pytest

    from mnemir.errors import ValidationError

    # the typed-store ranker over talk between people since the remembered one is the default (0123)
    assert RecallConfig().chat_ranker_model == "learned_ranker.json"
    assert RecallConfig(chat_ranker_model=None).chat_ranker_model is None
    assert RecallConfig(chat_ranker_model="learned_ranker.json").chat_ranker_model == "learned_ranker.json"
    with pytest.raises(ValidationError):
        RecallConfig(chat_ranker_model="../elsewhere.json")
