"""Memory.add_many: many typed memories in one transaction, checked item by item before anything is written."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mnemir
from mnemir.errors import ConflictError, StoreError, ValidationError
from mnemir.ir import Action
from mnemir.store.base import ANY

ITEMS: list[dict[str, Any]] = [
    {"text": "报销单下周五前交", "type": "任务", "properties": {"status": "待办", "priority": "紧急"}, "turn": 3,
     "speaker": "user"},
    {"text": "I like black coffee without sugar", "type": "Preference",
     "properties": {"subject": "black coffee", "preference_type": "like"}},
    {"text": "Dana's passport expires in March", "type": "Fact",
     "properties": {"entity": "Dana", "attribute": "passport expiry", "value": "March"}, "id": "fact-dana"},
]


@pytest.mark.parametrize("govern", [True, False])
def test_add_many_stores_what_add_would(mem: mnemir.Memory, now: datetime, govern: bool) -> None:
    stored = mem.add_many(ITEMS, user="alice", session="s1", now=now, govern=govern)
    assert [r.type for r in stored] == ["Task", "Preference", "Fact"]
    assert stored[0].properties == {"status": "pending", "priority": "high"}  # validated and normalised as add does
    assert stored[0].metadata.source.turn == 3 and stored[0].scope.session_id == "s1"
    assert stored[2].id == "fact-dana"
    for record in stored:
        assert mem.get(record.id, user="alice") == record
        assert [h.action for h in mem.history(record.id, user="alice")] == [Action.created]
    assert mem.count(user="bob") == 0
    hits = mem.search("when does the passport expire", user="alice", k=1)
    assert hits[0].memory.id == "fact-dana"
    assert mem.check().ok


def test_add_many_uses_the_given_vectors(mem: mnemir.Memory, now: datetime) -> None:
    vectors = mem.embedder.embed(["something else entirely", "another text", "a third one"])
    stored = mem.add_many(ITEMS, user="alice", vectors=vectors, govern=False, now=now)
    held = mem.store.vectors([r.id for r in stored])
    for record, vector in zip(stored, vectors, strict=True):
        assert np.allclose(held[record.id], vector / np.linalg.norm(vector), atol=1e-6)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"text": "x", "type": "Memo"}, "items[2].type"),
        ({"text": "x", "type": "Task", "properties": {"status": "someday"}}, "items[2].properties.status"),
        ({"text": "", "type": "Fact"}, "items[2].text"),
        ({"type": "Fact"}, "items[2].text"),
        ({"text": "x", "type": "Fact", "user": "bob"}, "items[2].user"),
        ({"text": "x", "type": "Fact", "properties": ["a"]}, "items[2].properties"),
        ("just a text", "items[2]"),
        ({"text": "x", "type": "Fact", "id": "fact-dana"}, "items[2].id"),  # repeats items[1]'s id
    ],
)
def test_a_bad_item_is_named_and_nothing_is_written(mem: mnemir.Memory, now: datetime, bad: Any,
                                                    field: str) -> None:
    items = [ITEMS[0], ITEMS[2], bad, ITEMS[1]]
    with pytest.raises(ValidationError) as info:
        mem.add_many(items, user="alice", now=now)
    assert info.value.field == field
    assert info.value.context["index"] == 2
    assert isinstance(info.value, mnemir.MnemirError)
    assert mem.count(user=ANY, include_archived=True) == 0


def test_bad_vectors_are_named(mem: mnemir.Memory, now: datetime) -> None:
    good = mem.embedder.embed(["a", "b", "c"])
    for vectors, field in ((good[:2], "vectors"), ([good[0], good[1][:10], good[2]], "vectors[1]"),
                           ([good[0], good[1], np.zeros_like(good[2])], "vectors[2]")):
        with pytest.raises(ValidationError) as info:
            mem.add_many(ITEMS, user="alice", vectors=vectors, now=now)
        assert info.value.field == field
    with pytest.raises(ValidationError) as info:
        mem.add_many(ITEMS, user="alice", govern="no", now=now)  # type: ignore[arg-type]
    assert info.value.field == "govern"
    assert mem.count(user=ANY) == 0


def test_an_id_of_another_scope_is_refused_before_writing(mem: mnemir.Memory, now: datetime) -> None:
    mem.add("Bob's note", "Fact", {"entity": "Bob", "attribute": "note", "value": "x"}, user="bob", id="taken",
            now=now)
    with pytest.raises(ConflictError) as info:
        mem.add_many([ITEMS[0], {**ITEMS[1], "id": "taken"}], user="alice", now=now)
    assert info.value.context["index"] == 1
    assert mem.count(user="alice") == 0
    assert mem.get("taken", user="bob").text == "Bob's note"


def test_govern_merges_duplicates_and_govern_false_does_not(mem: mnemir.Memory, now: datetime) -> None:
    first = mem.add(ITEMS[1]["text"], "Preference", ITEMS[1]["properties"], user="alice", now=now)
    merged = mem.add_many([ITEMS[1]], user="alice", now=now)
    assert [r.id for r in merged] == [first.id]
    assert mem.count(user="alice") == 1
    mem.add_many([ITEMS[1]], user="alice", now=now, govern=False)
    assert mem.count(user="alice") == 2


def test_empty_and_async(tmp_path: Path, embedder: Any, now: datetime) -> None:
    async def main() -> list[mnemir.MemIR]:
        async with await mnemir.open_async(tmp_path / "m.db", embedder=embedder) as amem:
            assert await amem.add_many([], user="alice") == []
            return await amem.add_many(ITEMS, user="alice", now=now)

    assert len(asyncio.run(main())) == 3


def test_an_id_held_in_the_same_scope_is_replaced_in_the_batch(mem: mnemir.Memory, now: datetime) -> None:
    mem.add_many(ITEMS, user="alice", now=now, govern=False)
    changed = {**ITEMS[2], "text": "Dana's passport was renewed in May", "properties": {
        "entity": "Dana", "attribute": "passport renewal", "value": "May"}, "relationships": [
        {"relation": "related_to_entity", "target": "fact-dana-2"}]}
    new = {"text": "Dana lives in Lisbon", "type": "Fact", "id": "fact-dana-2",
           "properties": {"entity": "Dana", "attribute": "residence", "value": "Lisbon"}}
    mem.add_many([changed, new], user="alice", now=now, govern=False)
    held = mem.get("fact-dana", user="alice")
    assert held.text == changed["text"] and held.properties["attribute"] == "passport renewal"
    assert [e.target for e in mem.store.edges(["fact-dana"])] == ["fact-dana-2"]
    assert mem.search("renewed", user="alice", k=1)[0].memory.id == "fact-dana"
    assert not [h for h in mem.search("expires March", user="alice", k=5) if "expires" in h.memory.text]
    assert mem.count(user="alice") == 4
    assert mem.check().ok


def _outcome(memory: mnemir.Memory) -> list[tuple[str, str, list[str]]]:
    """(text, status, what history says happened) of every memory in alice's scope, by text."""
    records = memory.list(user="alice", statuses=list(mnemir.MemoryStatus), limit=None)
    return sorted((r.text, r.status.value, [h.action.value for h in memory.history(r.id, user="alice")])
                  for r in records)


def test_a_governed_batch_decides_as_one_add_per_item(tmp_path: Path, embedder: Any, now: datetime) -> None:
    """Within a batch an item is compared with the earlier items the store's look-ups would find had they been
    stored one by one (most similar, key- and rule-matched), not with every earlier item: same decisions."""
    cities = ["Lisbon", "Osaka", "Nairobi", "Toronto", "Lima", "Hanoi", "Cairo", "Quito", "Perth", "Seoul"]
    items: list[dict[str, Any]] = [
        {"text": f"{name} has a meeting in {city}", "type": "Fact",
         "properties": {"entity": name, "attribute": "meeting place", "value": city}}
        for name, city in zip(["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ida", "Jon"], cities,
                              strict=True)]
    items += [
        {"text": "I like black coffee without sugar", "type": "Preference",
         "properties": {"subject": "black coffee", "preference_type": "like"}},
        {"text": "Ben has a meeting in Osaka", "type": "Fact",  # a repeat: merged
         "properties": {"entity": "Ben", "attribute": "meeting place", "value": "Osaka"}},
        {"text": "Cleo has a meeting in Berlin", "type": "Fact",  # a contradiction of an earlier item
         "properties": {"entity": "Cleo", "attribute": "meeting place", "value": "Berlin"}},
        {"text": "I dislike black coffee without sugar", "type": "Preference",  # a preference flip
         "properties": {"subject": "black coffee", "preference_type": "dislike"}},
    ]
    batched = mnemir.open(tmp_path / "batched", embedder=embedder)
    one_by_one = mnemir.open(tmp_path / "one-by-one", embedder=embedder)
    try:
        batched.add_many(items, user="alice", now=now)
        for item in items:
            one_by_one.add(item["text"], item["type"], item["properties"], user="alice", now=now)
        outcome = _outcome(batched)
        assert outcome == _outcome(one_by_one)
        assert len(outcome) == len(items) - 1  # the repeat was merged
        assert any(len(actions) > 1 for _, _, actions in outcome)  # the contradictions touched earlier items
    finally:
        batched.close()
        one_by_one.close()


def test_add_with_a_precomputed_vector(mem: mnemir.Memory, now: datetime) -> None:
    """``add(vector=...)`` stores that vector (nothing embedded) and governs as ``add`` does: a repeat merges."""
    own = mem.embedder.embed(["Dana lives in Porto"])[0]
    first = mem.add("Dana lives in Porto", "Fact", {"entity": "Dana", "attribute": "residence", "value": "Porto"},
                    user="alice", now=now, vector=own)
    odd = mem.embedder.embed(["an unrelated sentence about the weather"])[0]
    other = mem.add("Dana's flat has a balcony", "Fact", {"entity": "Dana", "attribute": "flat", "value": "balcony"},
                    user="alice", now=now, vector=odd)
    assert np.allclose(mem.store.vectors([other.id])[other.id], odd, atol=1e-6)  # the given one, not the text's
    again = mem.add("Dana lives in Porto", "Fact", {"entity": "Dana", "attribute": "residence", "value": "Porto"},
                    user="alice", now=now, vector=own)
    assert again.id == first.id and mem.history(first.id, user="alice")[-1].action.value == "merged"
    for bad in (own[:10], np.zeros_like(own), "not a vector"):
        with pytest.raises(ValidationError) as info:
            mem.add("x y z", "Fact", user="alice", now=now, vector=bad)
        assert info.value.field == "vector"
    assert mem.count(user="alice") == 2


_NAMES, _PLACES = ["Ana", "Ben", "Cleo"], ["Lisbon", "Osaka", "Lima"]
_ITEM = st.one_of(
    st.builds(lambda n, p, a: {"text": f"{n} has a {a} in {p}", "type": "Fact",
                               "properties": {"entity": n, "attribute": a, "value": p}},
              st.sampled_from(_NAMES), st.sampled_from(_PLACES), st.sampled_from(["meeting", "flat"])),
    st.builds(lambda s, like: {"text": f"I {'like' if like else 'dislike'} {s}", "type": "Preference",
                               "properties": {"subject": s, "preference_type": "like" if like else "dislike"}},
              st.sampled_from(["black coffee", "green tea"]), st.booleans()),
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(earlier=st.lists(_ITEM, max_size=4), items=st.lists(_ITEM, min_size=1, max_size=8))
def test_a_governed_batch_stores_what_adds_one_by_one_store(tmp_path_factory: pytest.TempPathFactory,
                                                            embedder: Any, now: datetime,
                                                            earlier: list[dict[str, Any]],
                                                            items: list[dict[str, Any]]) -> None:
    """Repeats (merged), contradictions and preference flips inside a batch and against what the store held: the
    batch's look-ups are read together before any decision, and the outcome is that of ``add`` item by item."""
    root = tmp_path_factory.mktemp("govern")
    batched, one_by_one = mnemir.open(root / "batched", embedder=embedder), mnemir.open(root / "one", embedder=embedder)
    try:
        for memory in (batched, one_by_one):
            for item in earlier:
                memory.add(item["text"], item["type"], item["properties"], user="alice", now=now)
        batched.add_many(items, user="alice", now=now)
        for item in items:
            one_by_one.add(item["text"], item["type"], item["properties"], user="alice", now=now)
        assert _outcome(batched) == _outcome(one_by_one)
    finally:
        batched.close()
        one_by_one.close()


def test_a_record_the_store_refuses_leaves_the_whole_governed_batch_unwritten(mem: mnemir.Memory,
                                                                             now: datetime) -> None:
    """The contract of a failing record in a batch: ``add_many`` is one transaction, so when the store refuses one
    record (here a real SQLite trigger on the store file, as a full disk or a broken constraint would) the call
    raises StoreError and nothing of the batch is written: not the items before it, not the merge of a repeat into
    a stored memory. The store answers as before afterwards (its caches follow the rollback), and the same batch
    without the refused record is then governed as if the failed call had never happened."""
    kept = mem.add(ITEMS[1]["text"], "Preference", ITEMS[1]["properties"], user="alice", now=now)
    path = mem.store.path  # type: ignore[attr-defined]
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.id = 'refused' "
                     "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    batch = [ITEMS[0], ITEMS[1], ITEMS[2]]  # a new task, a repeat of the stored preference, a new fact
    with pytest.raises(StoreError):
        mem.add_many([*batch, {"text": "The spare key is under the mat", "type": "Fact", "id": "refused",
                               "properties": {"entity": "key", "attribute": "place", "value": "mat"}}],
                     user="alice", now=now)
    assert mem.count(user=ANY, include_archived=True) == 1
    assert mem.get(kept.id, user="alice") == kept
    assert [h.action for h in mem.history(kept.id, user="alice")] == [Action.created]
    assert [h.memory.id for h in mem.search("black coffee", user="alice", k=3)] == [kept.id]
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TRIGGER refuse")
    stored = mem.add_many(batch, user="alice", now=now)
    assert stored[1].id == kept.id  # merged into the stored preference, once
    assert [h.action for h in mem.history(kept.id, user="alice")] == [Action.created, Action.merged]
    assert mem.count(user="alice") == 3
    assert mem.check().ok
