"""The learned change reading (issue 15, docs/decisions/0074): a new statement said with no change word that gives
what an older one said of the same thing a new value supersedes it (with the reason in its history, never a
delete); a statement about another person, or about another thing, does not. Real SQLite memory and the real
default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import mnemir
import mnemir.memory.understanding as understanding
from mnemir.eval import collapse
from mnemir.understand.same_change import FEATURES, SameChange, row, shipped_same_change

START = datetime(2026, 10, 5, 8, 0, tzinfo=UTC)


def _live(mem: mnemir.Memory, user: str) -> list[str]:
    return [r.content.text for r in mem.list(user=user) if r.type != "Episode"]


def test_the_shipped_model_was_fitted_on_collapse_train_files_only() -> None:
    model = shipped_same_change()
    assert model is not None, "understand/data/same_change.json is missing: python -m mnemir.eval.learn_same_change"
    train = set(collapse.split_files("train"))
    assert model.meta["trained_on"] and set(model.meta["trained_on"]) <= train
    assert 0.5 <= model.threshold < 1.0
    assert model.weights.shape == (len(FEATURES) + 1,)


def test_a_model_fitted_on_other_features_is_refused() -> None:
    with pytest.raises(ValueError):
        SameChange.from_json({"features": ["similarity"], "threshold": 0.5, "lead": 0.1, "weights": [1.0, 0.0]})


def test_a_pair_reads_values_people_and_wording() -> None:
    raw = understanding.change_pair_raw("The vet visit is on the 9th at 4pm now", "Fact",
                                        "The vet visit is on the 2nd at 11am", "Fact", similarity=0.8, rank=0,
                                        lead=0.3, candidates=2, language="en")
    x = dict(zip(FEATURES, row(raw), strict=True))
    assert x["numbers_differ"] == 1.0 and x["same_value_kind"] == 1.0
    assert x["now_word"] == 1.0 and x["same_type"] == 1.0 and x["new_Fact"] == 1.0
    assert x["shared_terms"] > 0.0  # "vet", "visit": the value (9th, 2nd) is no shared term


def _p(embedder: Any, new: str, new_type: str, old: str, old_type: str) -> float:
    model = shipped_same_change()
    assert model is not None
    vectors = embedder.embed([new, old])
    similarity = float(vectors[0] @ vectors[1])
    raw = understanding.change_pair_raw(new, new_type, old, old_type, similarity=similarity, rank=0,
                                        lead=similarity - 0.2, candidates=2, language="en")
    return model.probability(raw)


def test_the_model_reads_a_moved_appointment_as_a_change_and_another_attribute_as_none(embedder: Any) -> None:
    model = shipped_same_change()
    assert model is not None
    old = "My physio session is on Monday at 9am"
    assert _p(embedder, "The physio session is on Wednesday at 2pm", "Fact", old, "Fact") >= model.threshold
    assert _p(embedder, "The physio clinic is on Harbour Street", "Fact", old, "Fact") < model.threshold
    assert _p(embedder, "I love hiking in the hills", "Preference", "I prefer Italian wines",
              "Preference") < model.threshold


def test_a_changed_preference_replaces_the_old_one(mem: mnemir.Memory) -> None:
    old = mem.remember("For long flights I prefer a window seat near the front", user="kai", now=START)
    mem.remember("I've started learning the cello", user="kai", now=START + timedelta(days=1))
    new = mem.remember("For long flights I prefer an aisle seat near the back", user="kai", now=START + timedelta(days=2))
    assert any("learned change" in n for n in new.notes), new.notes
    texts = _live(mem, "kai")
    assert "For long flights I prefer a window seat near the front" not in texts
    assert "For long flights I prefer an aisle seat near the back" in texts
    assert "I've started learning the cello" in texts
    # superseded, not deleted: the old statement keeps its history and the reason
    replaced = next(r for r in old.created if r.type == "Preference")
    got = mem.get(replaced.id, user="kai", include_deleted=True)
    assert str(got.status) == "superseded"
    assert any("learned change" in (h.reason or "") for h in mem.history(replaced.id, user="kai"))


def test_a_moved_appointment_replaces_the_old_time_where_facts_are_read(mem: mnemir.Memory,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "LEARNED_CHANGE_NEW_TYPES", ("Preference", "Fact"))
    mem.remember("My physio session is on Monday at 9am", user="pat", now=START)
    new = mem.remember("My physio session is on Wednesday at 2pm", user="pat", now=START + timedelta(days=2))
    assert any("learned change" in n for n in new.notes), new.notes
    texts = _live(mem, "pat")
    assert "My physio session is on Monday at 9am" not in texts
    assert "My physio session is on Wednesday at 2pm" in texts


def test_a_new_fact_the_fact_reader_resolves_to_another_entity_is_not_read_as_a_change(
        mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "LEARNED_CHANGE_NEW_TYPES", ("Preference", "Fact"))
    # "my physio session" is the user's, "the physio session" the session: the reader does not tie them (0080)
    mem.remember("My physio session is on Monday at 9am", user="pia", now=START)
    mem.remember("The physio session is on Wednesday at 2pm", user="pia", now=START + timedelta(days=2))
    assert "My physio session is on Monday at 9am" in _live(mem, "pia")


@pytest.mark.parametrize(("first", "second"), [
    ("My dad prefers window seats on trains", "My sister prefers aisle seats on trains"),  # another person's
    ("I prefer Italian wines", "I love hiking in the hills"),  # another liking
], ids=["another-person", "another-liking"])
def test_a_preference_about_something_else_replaces_nothing(mem: mnemir.Memory, first: str, second: str) -> None:
    mem.remember(first, user="lin", now=START)
    mem.remember(second, user="lin", now=START + timedelta(days=1))
    texts = _live(mem, "lin")
    assert first in texts
    assert second in texts


def test_without_the_model_nothing_is_replaced_unmarked(mem: mnemir.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "LEARNED_CHANGES", False)
    mem.remember("For long flights I prefer a window seat near the front", user="ned", now=START)
    mem.remember("For long flights I prefer an aisle seat near the back", user="ned", now=START + timedelta(days=2))
    texts = _live(mem, "ned")
    assert "For long flights I prefer a window seat near the front" in texts
