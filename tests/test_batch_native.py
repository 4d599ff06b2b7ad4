"""A governed batch (``add_many``) decides as ``add`` one record at a time, with the batch-native look-ups of decision
0121: a batch's neighbours among its own earlier records narrowed by a block matrix product and scored exactly, key
and rule selections read by one query per group, key conditions put together from each value's parsed condition, and
the merge check's cheaper test first. Generated inputs (Hypothesis) on real SQLite stores; the small constants make a
batch of a few records take every path that a batch of thousands takes."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mnemir
from mnemir.errors import ValidationError
from mnemir.lifecycle import LifecycleConfig, governor
from mnemir.lifecycle.governor import Governor
from mnemir.lifecycle.terms import variants
from mnemir.ontology import Ontology
from mnemir.store import grouped
from mnemir.store.filters import parse_filter

DIM = 512
_NAMES = ["Ana", "Ben", "Cleo", "ana"]
_ATTRIBUTES = ["meeting", "flat", "job"]
_PLACES = ["Lisbon", "Osaka", "Lima", "room 4b", "Lisbon 2"]


def _topic_vectors() -> np.ndarray:
    rng = np.random.default_rng(121)
    base = rng.normal(size=(6, DIM)).astype(np.float32)
    return base / np.linalg.norm(base, axis=1, keepdims=True)


_TOPICS = _topic_vectors()


def _vector(topic: int, noise: int) -> np.ndarray:
    """A unit vector near topic ``topic``: noise 0 is the topic itself (a repeat's similarity is 1), larger noise
    moves it away (similarities around the merge thresholds)."""
    rng = np.random.default_rng([topic, noise])
    v = _TOPICS[topic] + (0.0 if noise == 0 else 0.15 * noise) * rng.normal(size=DIM).astype(np.float32) / np.sqrt(DIM)
    return (v / np.linalg.norm(v)).astype(np.float32)


_FACT = st.builds(
    lambda n, a, p, topic, noise: ({"text": f"{n} has a {a} in {p}", "type": "Fact",
                                    "properties": {"entity": n, "attribute": a, "value": p}}, (topic, noise)),
    st.sampled_from(_NAMES), st.sampled_from(_ATTRIBUTES), st.sampled_from(_PLACES), st.integers(0, 5),
    st.integers(0, 4))
_PREFERENCE = st.builds(
    lambda s, like, topic, noise: ({"text": f"I {'like' if like else 'dislike'} {s}", "type": "Preference",
                                    "properties": {"subject": s, "preference_type": "like" if like else "dislike"}},
                                   (topic, noise)),
    st.sampled_from(["black coffee", "green tea", "Black Coffee"]), st.booleans(), st.integers(0, 5),
    st.integers(0, 2))
_TASK = st.builds(
    lambda what, topic, noise: ({"text": f"send the {what} report", "type": "Task",
                                 "properties": {"status": "pending"}}, (topic, noise)),
    st.sampled_from(["May", "June", "budget"]), st.integers(0, 5), st.integers(0, 3))
_ITEM = st.one_of(_FACT, _FACT, _PREFERENCE, _TASK)


def _state(memory: mnemir.Memory) -> list[Any]:
    """Every record of alice (any status) with its text, type, status, properties and validity, and its history's
    actions, reasons and times, by id."""
    records = memory.list(user="alice", statuses=list(mnemir.MemoryStatus), limit=None)
    return sorted((r.id, r.type, r.text, r.status.value, r.properties, str(r.valid_to),
                   [(h.action.value, h.reason, str(h.at)) for h in memory.history(r.id, user="alice")])
                  for r in records)


@pytest.mark.parametrize("small", [True, False], ids=["small-blocks", "default-constants"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(earlier=st.lists(_ITEM, max_size=6), items=st.lists(_ITEM, min_size=1, max_size=24))
def test_a_batch_decides_as_adds_one_by_one(tmp_path_factory: pytest.TempPathFactory, embedder: Any, now: datetime,
                                             monkeypatch: pytest.MonkeyPatch, small: bool,
                                             earlier: list[tuple[dict[str, Any], tuple[int, int]]],
                                             items: list[tuple[dict[str, Any], tuple[int, int]]]) -> None:
    """Repeats (merged), changed values (superseded), preference flips and near-duplicate vectors around the merge
    thresholds, inside the batch and against what the store held: every record, status, property and history entry,
    and what each item returned, equal to ``add`` item by item."""
    if small:  # every path of a large batch: narrowed neighbours in blocks, grouped selections
        monkeypatch.setattr(governor, "NEIGHBOUR_NARROW_FROM", 2)
        monkeypatch.setattr(governor, "NEIGHBOUR_BLOCK", 3)
        monkeypatch.setattr(grouped, "GROUP_SIZE", 3)
        monkeypatch.setattr(grouped, "GROUP_FROM", 2)
    root = tmp_path_factory.mktemp("batch-native")
    batched, one_by_one = mnemir.open(root / "batched", embedder=embedder), mnemir.open(root / "one", embedder=embedder)
    try:
        for memory in (batched, one_by_one):
            for k, (item, (topic, noise)) in enumerate(earlier):
                memory.add(item["text"], item["type"], item["properties"], user="alice", now=now, id=f"e{k}",
                           vector=_vector(topic, noise))
        ids = [f"i{k}" for k in range(len(items))]
        vectors = np.vstack([_vector(topic, noise) for _, (topic, noise) in items])
        returned = batched.add_many([{**item, "id": rid} for (item, _), rid in zip(items, ids, strict=True)],
                                    user="alice", now=now, vectors=vectors)
        alone = [one_by_one.add(item["text"], item["type"], item["properties"], user="alice", now=now, id=rid,
                                vector=vectors[k]) for k, ((item, _), rid) in enumerate(zip(items, ids, strict=True))]
        assert _state(batched) == _state(one_by_one)
        # what each item stands for once the batch is stored: itself, or the memory it merged into
        assert [r.id for r in returned] == [r.id for r in alone]
    finally:
        batched.close()
        one_by_one.close()


def test_a_large_batch_with_repeats_far_apart_decides_as_adds_one_by_one(tmp_path: Path, embedder: Any,
                                                                         now: datetime) -> None:
    """A batch of 400 records of one scope (past :data:`NEIGHBOUR_NARROW_FROM`, over two blocks) whose repeats come
    hundreds of records after what they repeat, with the default constants."""
    rng = np.random.default_rng(7)
    items, vectors = [], []
    for k in range(400):
        if k >= 150 and k % 7 == 0:  # a repeat of a record far back: same text, properties and vector
            j = int(rng.integers(0, k - 100))
            items.append({**items[j], "id": f"r{k}"})
            vectors.append(vectors[j])
            continue
        v = rng.normal(size=DIM).astype(np.float32)
        items.append({"text": f"person {k} has a flat in district {k % 13}", "type": "Fact", "id": f"r{k}",
                      "properties": {"entity": f"person {k % 150}", "attribute": "flat", "value": f"d{k % 13}"}})
        vectors.append(v / np.linalg.norm(v))
    batched, one_by_one = mnemir.open(tmp_path / "batched", embedder=embedder), mnemir.open(tmp_path / "one",
                                                                                            embedder=embedder)
    try:
        returned = batched.add_many(items, user="alice", now=now, vectors=np.vstack(vectors))
        alone = [one_by_one.add(i["text"], "Fact", i["properties"], user="alice", now=now, id=i["id"], vector=v)
                 for i, v in zip(items, vectors, strict=True)]
        assert _state(batched) == _state(one_by_one)
        assert [r.id for r in returned] == [r.id for r in alone]
        assert sum(r.id != i["id"] for r, i in zip(returned, items, strict=True)) > 10  # merges happened
    finally:
        batched.close()
        one_by_one.close()


_VALUES = st.one_of(st.sampled_from(["Ana", "ana", "job", "1", "like", "Like", "nope", "dislike"]),
                    st.integers(-2, 2), st.booleans())


@settings(max_examples=60, deadline=None)
@given(wheres=st.lists(st.tuples(st.sampled_from(["entity", "attribute", "subject", "preference_type"]),
                                 st.lists(_VALUES, min_size=1, max_size=4)), min_size=1, max_size=6))
def test_key_conditions_put_together_from_values_equal_parse_filter(wheres: list[tuple[str, list[Any]]]) -> None:
    """The governor's filter for a mapping of ``$in`` conditions, made from each value's own parsed condition, is the
    one ``parse_filter`` makes of the whole mapping; where a value is refused, the one the refused spellings are
    dropped from (as before)."""
    onto = Ontology()
    gov = Governor(None, onto, None, LifecycleConfig())  # type: ignore[arg-type]
    for name, values in wheres:
        types = ("Preference",) if name in ("subject", "preference_type") else ("Fact", "Hypothesis")
        where = {name: {"$in": values}}
        try:
            expected = parse_filter(where, onto, types)
        except ValidationError:
            expected = Governor(None, onto, None, LifecycleConfig())._cleaned_filter(  # type: ignore[arg-type]
                where, types)
        assert gov._filter(where, types) == expected
        assert gov._filter(where, types) == expected  # again, from what the first call kept
    combined = {"entity": {"$in": variants("Ana")}, "attribute": {"$in": variants("job")}}
    assert gov._filter(combined, ("Fact", "Hypothesis")) == parse_filter(combined, onto, ("Fact", "Hypothesis"))

