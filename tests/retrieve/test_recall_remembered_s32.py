"""Recall over stores built through ``remember`` (decision 0114): what a typed store is handed by its writer and a
remembered one must infer. Sentences of our own; the real store and the real embedding model."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.learned import DEFAULT_RANKER_MODEL, REMEMBERED_RANKER_MODEL, shipped_ranker

USER = "u"


def _said(mem: mnemir.Memory, now: datetime, text: str, ago: timedelta) -> list[mnemir.MemIR]:
    done = mem.remember(text, speaker="user", user=USER, now=now - ago)
    return list(done.created)


def _frames_told(mem: mnemir.Memory, now: datetime) -> dict[str, str]:
    """Two negotiations, each framed when it began, each with its own top offer said in the same sitting."""
    ids: dict[str, str] = {}
    for key, text, ago in (
            ("old_frame", "Starting talks with Harbourline about next year's ferry charter", timedelta(days=50)),
            ("old_offer", "Our top offer for the charter is 4,200 euros a week", timedelta(days=50) - timedelta(minutes=9)),
            ("new_frame", "We're in talks with Skerry Boats about the ferry charter for the winter", timedelta(hours=2)),
            ("new_offer", "Our top offer for the charter is 5,100 euros a week", timedelta(hours=1))):
        made = _said(mem, now, text, ago)
        ids[key] = made[0].id if made else ""
    return ids


def test_a_remembered_memory_belongs_to_the_frame_it_was_said_in(mem: mnemir.Memory, now: datetime) -> None:
    ids = _frames_told(mem, now)
    assert mem.list(types=["ContextualFrame"], user=USER, limit=10), "the negotiations are read as frames"
    mem.recall_config = RecallConfig(frame_ties_said_within_h=24.0)
    got = mem.recall("What is our top offer for the charter?", user=USER, k=3, now=now)
    reasons = {h.id: " ".join(h.reasons) for h in got.hits}
    assert got.hits[0].id == ids["new_offer"]
    assert "belongs to the active frame" in reasons[ids["new_offer"]]
    assert ids["old_offer"] not in reasons or "another frame" in reasons[ids["old_offer"]]


def test_switched_off_and_far_from_the_frame_no_tie(mem: mnemir.Memory, now: datetime) -> None:
    ids = _frames_told(mem, now)
    assert RecallConfig().frame_ties_said_within_h == 24.0  # on by default (decision 0114)
    mem.recall_config = RecallConfig(frame_ties_said_within_h=0.0)
    got = mem.recall("What is our top offer for the charter?", user=USER, k=3, now=now)
    offers = {ids["old_offer"], ids["new_offer"]}
    assert not any("frame" in r for h in got.hits if h.id in offers for r in h.reasons)  # off: nobody said which
    # said two days after the old frame began: beyond a sitting, so it is tied to no frame
    late = _said(mem, now, "The charter boat needs a new bilge pump", timedelta(days=48))
    mem.recall_config = RecallConfig(frame_ties_said_within_h=24.0)
    got = mem.recall("What does the charter boat need?", user=USER, k=5, now=now)
    assert late and all("another frame" not in " ".join(h.reasons) for h in got.hits if h.id == late[0].id)
    assert ids["new_offer"]


def test_a_memory_written_typed_keeps_only_the_ties_its_writer_gave(mem: mnemir.Memory, now: datetime) -> None:
    mem.add("Negotiating the lease of the old mill", "ContextualFrame", {"topic": "mill lease", "frame_type": "negotiation"}, user=USER,
            now=now - timedelta(days=30))
    mem.add("Negotiating the lease of the boathouse", "ContextualFrame", {"topic": "boathouse lease", "frame_type": "negotiation"}, user=USER,
            now=now - timedelta(hours=1))
    rent = mem.add("The mill's rent is 900 a month", "Fact", {"entity": "mill", "attribute": "rent"}, user=USER,
                   now=now - timedelta(days=30) + timedelta(minutes=5))
    mem.recall_config = RecallConfig(frame_ties_said_within_h=24.0)
    got = mem.recall("What is the rent?", user=USER, k=3, now=now)
    assert rent.id in [h.id for h in got.hits]
    assert all("frame" not in " ".join(h.reasons) for h in got.hits if h.id == rent.id)


def test_an_outburst_stays_out_of_a_calm_question_with_the_switch(mem: mnemir.Memory, now: datetime) -> None:
    """Only a feeling is read from an outburst; for a confident fact question it is not a candidate of the role
    order (as the typed store never gathers the feeling), and a question about feelings still finds it."""
    _said(mem, now, "The glazier's workshop is on Mill Lane, behind the bakery", timedelta(days=20))
    _said(mem, now, "I'm so anxious about the glazier, I can't sleep, honestly", timedelta(days=3))
    mem.recall_config = RecallConfig(felt_episodes_follow_types=True)
    calm = mem.recall("Where is the glazier's workshop?", user=USER, k=3, now=now)
    assert "Mill Lane" in calm.hits[0].memory.text
    if calm.intent.confidence >= RecallConfig().confident_intent:
        assert not any(h.memory.type == "Episode" and "anxious" in h.memory.text for h in calm.hits
                       if "plain search" not in " ".join(h.reasons))
    felt = mem.recall("Is the glazier still making me nervous these days?", user=USER, k=3, now=now)
    assert any("anxious" in h.memory.text for h in felt.hits)


def test_the_ranker_model_is_named_in_the_config() -> None:
    assert RecallConfig().ranker_model == REMEMBERED_RANKER_MODEL  # switched on in decision 0123
    assert shipped_ranker(DEFAULT_RANKER_MODEL) is not None and shipped_ranker(REMEMBERED_RANKER_MODEL) is not None
    assert shipped_ranker("no_such_model.json") is None
    with pytest.raises(ValidationError):
        RecallConfig(ranker_model="../elsewhere.json")
    with pytest.raises(ValidationError):
        RecallConfig(frame_ties_said_within_h=-1.0)


def test_the_remembered_ranker_learned_from_train_files_only() -> None:
    from mnemir.eval import collapse

    model = shipped_ranker("learned_ranker_e2e.json")
    assert model is not None and model.meta.get("stores") == "typed and remembered"
    assert set(model.trained_on) <= set(collapse.split_files("train"))


def test_remembered_candidates_are_labelled_by_the_keys_they_stand_for(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC

    from mnemir.eval import collapse
    from mnemir.eval import learn_ranking as training

    scenario = collapse.Scenario(
        "t-labels", "train", "task_pollutes_fact", "en", "bikes", datetime(2026, 5, 1, 12, tzinfo=UTC),
        memories=({"key": "size", "type": "Fact", "age": "20d", "text": "My road bike has a 56 cm frame"},
                  {"key": "fit", "type": "Task", "age": "2d", "text": "Book a bike fit at the shop on Quay Street",
                   "props": {"status": "pending"}}),
        queries=(collapse.Query("What frame size is my road bike?", relevant=("size",), forbidden=("fit",)),),
        source="own.yaml")
    mem, covers = collapse.build_remembered(scenario, tmp_path / "l", embedder)
    try:
        q = training._record_covered(mem, scenario, scenario.queries[0], covers)
    finally:
        mem.close()
    assert q.file == "own.yaml" and len(q.labels) == len(q.rows)
    assert 1 in set(q.labels.tolist())
