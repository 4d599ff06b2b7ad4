"""What the write path keeps between calls changes nothing it decides (decision 0085): the governor's parsed filter
conditions kept for the next governor of the same ontology (``LifecycleMixin._governor``), and SQLite's compiled
WHERE conditions kept by selection (``SQLiteStore._where``). Real SQLite in a temp dir, the real embedder."""

from __future__ import annotations

import itertools
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import mnemir
from mnemir.embed.base import QueryCache
from mnemir.ir import MemoryStatus
from mnemir.lifecycle.governor import Governor
from mnemir.ontology import Ontology
from mnemir.store.base import ANY, LIVE_STATUSES, Selection
from mnemir.store.filters import Cmp, parse_filter
from mnemir.store.sql_filters import Params, compile_selection
from mnemir.store.sqlite import SQLiteStore
from mnemir.store.sqlite.store import SQLiteDialect

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


class _FreshStore(SQLiteStore):
    """The store as it was before the compiled conditions were kept: every WHERE compiled again."""

    def _where(self, conn: Any, selection: Selection, p: Params, indexed: frozenset[str] | None = None,
               shown: str | None = None) -> str:
        return compile_selection(selection, SQLiteDialect(self._indexed(conn) if indexed is None else indexed),
                                 p) or "1"


class _FreshMemory(mnemir.Memory):
    """The memory as it was before: a new governor, with nothing parsed, for every governed write."""

    def _governor(self) -> Governor:
        return Governor(self.store, self.ontology, self.embedder, self.lifecycle_config)


def _run(kind: type[mnemir.Memory], store_kind: type[SQLiteStore], path: Path, embedder: Any,
         monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    counter = itertools.count(1)  # uuid4 as a counter, restarted per run: both runs make the same ids
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(counter)))
    # each run starts from an empty query cache: a text the first run searched would otherwise be taken from the
    # shared embedder's cache by the second run's batch, one encoding instead of another (equal to ~1e-8)
    monkeypatch.setattr(embedder, "_cache", QueryCache())
    ontology = Ontology()
    store = store_kind(path, ontology=ontology)
    mem = kind(store, embedder=embedder, ontology=ontology, config=mnemir.MemoryConfig())
    try:
        returned = []
        # governed adds one per call: new facts, repeats (merges), changed values (supersessions), preferences
        facts = [("Ana", "job", "nurse"), ("Ben", "home", "Lisbon"), ("Ana", "job", "nurse"), ("Ana", "job", "teacher"),
                 ("Cleo", "pet", "cat"), ("Ben", "home", "Lisbon"), ("Ben", "home", "Porto"), ("Cleo", "pet", "dog")]
        for i, (who, attribute, value) in enumerate(facts):
            returned.append(mem.add(f"{who}'s {attribute} is {value}", "Fact",
                                    {"entity": who, "attribute": attribute, "value": value},
                                    user="u1", now=NOW + timedelta(minutes=i)))
        for i, (subject, value) in enumerate([("coffee", "black"), ("tea", "green"), ("coffee", "with milk")]):
            returned.append(mem.add(f"I like my {subject} {value}", "Preference", {"subject": subject, "preference_type": "like"},
                                    user="u1", now=NOW + timedelta(minutes=20 + i)))
        returned += mem.add_many([{"text": f"{who} works as a {value}", "type": "Fact",
                                   "properties": {"entity": who, "attribute": "job", "value": value}}
                                  for who, value in [("Dan", "pilot"), ("Ana", "nurse"), ("Dan", "chef")]],
                                 user="u1", now=NOW + timedelta(minutes=30))
        # a conversation through remember (its searches, governance and store writes)
        said = [("user", "I have to book the car service before the end of the month"),
                ("assistant", "Want me to pencil the car service into your calendar for Monday morning?"),
                ("user", "yes please"),
                ("user", "My brother Tomas lives in Ghent and teaches maths"),
                ("user", "Actually Tomas moved to Antwerp last year"),
                ("user", "I booked the car service for Thursday"),
                ("user", "From now on I want my coffee black with no sugar"),
                ("user", "我下周三要去看牙医"),
                ("user", "不对，是下周四不是周三")]
        for turn, (speaker, text) in enumerate(said):
            out = mem.remember(text, speaker=speaker, user="u1", session="s1", turn=turn,
                               now=NOW + timedelta(hours=1, minutes=turn))
            returned += [*out.created, *out.updated]
        recalled = {q: [(h.memory.id, round(h.score, 9)) for h in mem.recall(q, user="u1", k=8, now=NOW + timedelta(
            days=1)).hits] for q in ("where does Tomas live", "what does Ana do", "when is the dentist",
                                     "which jobs are waiting on me", "coffee order please")}
        searched = {q: [(h.memory.id, round(h.score, 9)) for h in mem.search(q, user="u1", k=10)]
                    for q in ("car service", "Ben home", "牙医")}
        every = store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)), order_by=[("@created_at", True)])
        return {
            "returned": [r.to_dict() for r in returned],
            "stored": [json.loads(r.to_json()) for r in every],
            "history": {r.id: [h.model_dump(mode="json") for h in mem.history(r.id, user="u1")] for r in every},
            "recalled": recalled, "searched": searched,
        }
    finally:
        mem.close()


def test_kept_conditions_store_and_recall_the_same(tmp_path: Path, embedder: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    kept = _run(mnemir.Memory, SQLiteStore, tmp_path / "kept.db", embedder, monkeypatch)
    fresh = _run(_FreshMemory, _FreshStore, tmp_path / "fresh.db", embedder, monkeypatch)
    assert len(kept["stored"]) > 20 and any(r["status"] == "superseded" for r in kept["stored"])  # not vacuous
    for part in ("returned", "stored", "history", "recalled", "searched"):
        assert kept[part] == fresh[part], part


def test_a_kept_condition_is_the_fresh_compile(tmp_path: Path) -> None:
    ontology = Ontology()
    store = SQLiteStore(tmp_path / "m.db", ontology=ontology)
    try:
        wheres: list[dict[str, Any] | None] = [
            None, {"entity": "Ana"}, {"entity": {"$in": ["Ana", "ana"]}, "attribute": "job"},
            {"confidence": {"$gte": 0.9}}, {"value": "1"},
            {"$or": [{"entity": "Cleo"}, {"value": "x"}]},
        ]
        selections = [Selection(user_id=user, types=types, statuses=LIVE_STATUSES,
                                where=parse_filter(where, ontology, types))
                      for where in wheres for user in ("u1", None, ANY) for types in (("Fact",), ("Fact", "Task"))]
        selections += [Selection(user_id="u1", types=("Task",), where=parse_filter(
            {"status": {"$in": ["pending", "in_progress"]}}, ontology, ("Task",)))]
        # a bound value equal in Python but not in SQL's typing (1, 1.0, True) is kept apart (parse_filter coerces
        # by the ontology; a node made by hand need not be)
        selections += [Selection(user_id="u1", where=Cmp("confidence", "$eq", v, "float")) for v in (1, 1.0, True)]
        selections.append(Selection(user_id="u1", ids=("a", "b")))
        with store._db.snapshot():
            conn = store._db.raw
            indexed = store._indexed(conn)
            for _ in range(2):  # the second round finds every condition kept
                for selection in selections:
                    p, fresh = Params(), Params()
                    where = store._where(conn, selection, p)
                    assert where == (compile_selection(selection, SQLiteDialect(indexed), fresh) or "1")
                    assert p.values == fresh.values
                    assert [type(v) for v in p.values.values()] == [type(v) for v in fresh.values.values()]
        assert len({repr(s) for s in selections[:-1]}) == len(store._compiled)
    finally:
        store.close()


def test_kept_conditions_follow_the_ontology(tmp_path: Path, embedder: Any) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)
    try:
        mem.add("Ana is a nurse", "Fact", {"entity": "Ana", "attribute": "job"}, user="u1", now=NOW)
        first = mem._parsed_conditions
        assert first is not None and first[1]
        mem.add("Ana is a nurse", "Fact", {"entity": "Ana", "attribute": "job"}, user="u1", now=NOW)
        assert mem._parsed_conditions is first  # the same ontology: kept
        mem.ontology.load_pack("health")
        mem.add("Ben is a pilot", "Fact", {"entity": "Ben", "attribute": "job"}, user="u1", now=NOW)
        assert mem._parsed_conditions is not first and mem._parsed_conditions[0][1] == mem.ontology.version
    finally:
        mem.close()
