"""MnemirStore against LangGraph's documented BaseStore contract (langgraph ships no store conformance suite: the
checks below follow the BaseStore/Op docstrings, and where the contract leaves room, LangGraph's own
InMemoryStore is the reference), in a real compiled graph, and in the recall/remember recipe."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

import pytest

import mnemir

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from mnemir.integrations.langgraph import MnemirItem, MnemirStore, item_id

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "langgraph_agent.py"
STORE_TESTS = Path(__file__).resolve().parents[1] / "store"  # the embedded PostgreSQL server of the store tests


@pytest.fixture
def store(mem: mnemir.Memory) -> MnemirStore:
    return MnemirStore(mem, user_label=1)


VALUE = {"text": "prefers window seats on night trains", "tags": ["travel", "seat"], "n": 3, "ratio": 0.25,
         "ok": True, "none": None, "nested": {"deep": [{"x": 1}, {"y": "中文"}], "empty": {}}}


def test_a_value_round_trips_exactly(store: MnemirStore) -> None:
    store.put(("memories", "alice"), "seat", VALUE)
    got = store.get(("memories", "alice"), "seat")
    assert isinstance(got, MnemirItem)
    assert got.value == VALUE and got.key == "seat" and got.namespace == ("memories", "alice")
    assert got.created_at == got.updated_at and got.created_at.tzinfo is not None
    assert got.memory_type == "Fact" and got.memory_id == item_id(("memories", "alice"), "seat")
    got.value["n"] = 99  # a caller changing its copy changes nothing stored
    assert store.get(("memories", "alice"), "seat").value == VALUE

    time.sleep(0.002)
    store.put(("memories", "alice"), "seat", {**VALUE, "n": 4})
    again = store.get(("memories", "alice"), "seat")
    assert again.value["n"] == 4
    assert again.created_at == got.created_at and again.updated_at > got.updated_at  # an update keeps created_at
    assert store.get(("memories", "alice"), "nothing") is None
    assert store.get(("memories", "bob"), "seat") is None  # a key lives in its namespace only


def test_items_carry_their_type_and_scope(store: MnemirStore, mem: mnemir.Memory) -> None:
    typed = {"type": "Preference", "text": "dislikes green tea",
             "properties": {"subject": "green tea", "preference_type": "不喜欢"}}
    store.put(("memories", "alice"), "tea", typed)
    got = store.get(("memories", "alice"), "tea")
    assert got.value == typed  # read back as given...
    assert got.memory_type == "Preference" and got.properties["preference_type"] == "dislike"  # ...typed by mnemir
    record = mem.get(got.memory_id, user="alice")  # namespace label 1 is the mnemir user
    assert record.type == "Preference" and record.scope.user_id == "alice"
    with pytest.raises(mnemir.ValidationError) as bad:
        store.put(("memories", "alice"), "bad", {"type": "Preference", "text": "x", "properties": {"mood": 1}})
    assert "mood" in str(bad.value)
    with pytest.raises(mnemir.ValidationError) as unserialisable:
        store.put(("memories", "alice"), "when", {"at": datetime(2026, 1, 1)})
    assert unserialisable.value.field == "value"


def test_typing_through_remember(mem: mnemir.Memory) -> None:
    store = MnemirStore(mem, user_label=1, typing="remember")
    store.put(("memories", "alice"), "p", {"text": "I really love spicy Sichuan food"})
    store.put(("memories", "alice"), "f", {"text": "the sky over the harbour was grey"})
    store.put(("memories", "alice"), "g", {"n": 1, "ok": True})  # no words at all: kept, typed from its key
    assert store.get(("memories", "alice"), "p").memory_type == "Preference"
    assert store.get(("memories", "alice"), "f").memory_type == "Fact"
    assert store.get(("memories", "alice"), "g").value == {"n": 1, "ok": True}
    with pytest.raises(mnemir.ValidationError):
        MnemirStore(mem, typing="guess")  # type: ignore[arg-type]


def _fill(store: BaseStore) -> None:
    rows = [
        (("docs", "alice"), "a", {"kind": "report", "score": 5, "meta": {"lang": "en"}, "tags": ["x", "y"]}),
        (("docs", "alice"), "b", {"kind": "memo", "score": 2, "meta": {"lang": "zh"}}),
        (("docs", "alice", "drafts"), "c", {"kind": "report", "score": 9, "meta": {"lang": "en"}}),
        (("docs", "bob"), "d", {"kind": "report", "score": 1}),
        (("notes", "bob", "drafts"), "e", {"kind": "note", "score": 7, "tags": ["x", "y"]}),
        (("notes", "carol", "v1"), "f", {"kind": "note", "score": 8}),
    ]
    for namespace, key, value in rows:
        store.put(namespace, key, value)


SEARCHES: list[tuple[tuple[str, ...], dict[str, Any] | None]] = [
    ((), None),
    (("docs",), None),
    (("docs", "alice"), None),
    (("docs", "al"), None),  # a prefix is whole labels, not characters
    (("docs",), {"kind": "report"}),
    (("docs",), {"meta": {"lang": "en"}}),
    ((), {"tags": ["x", "y"]}),
    ((), {"tags": ["y", "x"]}),  # lists match element by element
    ((), {"score": {"$gt": 4}}),
    ((), {"score": {"$gte": 2, "$lt": 7}}),
    ((), {"kind": {"$ne": "report"}}),
    ((), {"kind": {"$eq": "memo"}}),
    ((), {"kind": "report", "score": {"$lte": 5}}),
    ((), {"missing": None}),
]

NAMESPACE_QUERIES: list[dict[str, Any]] = [
    {},
    {"prefix": ("docs",)},
    {"prefix": ("docs", "*", "drafts")},
    {"suffix": ("drafts",)},
    {"suffix": ("*", "v1")},
    {"prefix": ("*", "bob")},
    {"prefix": ("docs",), "suffix": ("drafts",)},
    {"max_depth": 1},
    {"max_depth": 2},
    {"prefix": ("notes",), "max_depth": 2},
    {"limit": 2},
    {"limit": 2, "offset": 2},
    {"offset": 10},
]


def test_filters_prefixes_and_namespaces_agree_with_langgraphs_own_store(store: MnemirStore) -> None:
    reference = InMemoryStore()
    _fill(reference)
    _fill(store)
    for prefix, condition in SEARCHES:
        ours = sorted((i.namespace, i.key) for i in store.search(prefix, filter=condition, limit=100))
        theirs = sorted((i.namespace, i.key) for i in reference.search(prefix, filter=condition, limit=100))
        assert ours == theirs, (prefix, condition)
    for query in NAMESPACE_QUERIES:
        assert store.list_namespaces(**query) == reference.list_namespaces(**query), query
    assert store.list_namespaces(max_depth=1) == [("docs",), ("notes",)]
    store.put(("notes", "dan"), "g", {"score": "high"})  # a range leaves out what is not a number
    assert "g" not in [i.key for i in store.search(("notes",), filter={"score": {"$gt": 0}})]


def test_limit_offset_and_order(store: MnemirStore) -> None:
    for i in range(7):
        store.put(("log", "alice"), f"k{i}", {"i": i})
        time.sleep(0.002)
    newest_first = [item.value["i"] for item in store.search(("log",), limit=100)]
    assert newest_first == [6, 5, 4, 3, 2, 1, 0]  # without a query: the newest update first
    pages = [[item.value["i"] for item in store.search(("log",), limit=3, offset=o)] for o in (0, 3, 6, 9)]
    assert pages == [[6, 5, 4], [3, 2, 1], [0], []]
    assert store.search(("log",), limit=0) == []
    store.put(("log", "alice"), "k0", {"i": 0})  # an update moves it to the front
    assert store.search(("log",), limit=1)[0].key == "k0"
    with pytest.raises(mnemir.ValidationError) as bad:
        store.search(("log",), limit=-1)
    assert bad.value.field == "limit"


def test_natural_language_search_goes_through_hybrid_search(store: MnemirStore) -> None:
    store.put(("memories", "alice"), "coffee", {"text": "drinks her coffee black, no sugar"})
    store.put(("memories", "alice"), "car", {"text": "drives a blue electric car"})
    store.put(("memories", "alice"), "cat", {"text": "has a cat called Miso"})
    store.put(("memories", "alice"), "hidden", {"text": "coffee grinder is broken"}, index=False)
    store.put(("memories", "bob"), "coffee", {"text": "drinks coffee with oat milk"})
    found = store.search(("memories", "alice"), query="how does she take her coffee?", limit=10)
    assert found[0].key == "coffee" and found[0].score is not None
    assert [i.key for i in found][-1] == "hidden" and found[-1].score is None  # index=False: found, not ranked
    assert all(i.namespace == ("memories", "alice") for i in found)
    assert [i.key for i in store.search(("memories", "alice"), query="coffee", limit=1, offset=0)] == ["coffee"]
    second = store.search(("memories", "alice"), query="how does she take her coffee?", limit=1, offset=1)
    assert second[0].key == found[1].key
    both = store.search(("memories",), query="coffee drinks", filter={"text": {"$ne": "x"}}, limit=2)
    assert {i.namespace for i in both} == {("memories", "alice"), ("memories", "bob")}
    by_fields = store.search(("memories", "alice"), query="coffee", filter={"text": "has a cat called Miso"})
    assert [i.key for i in by_fields] == ["cat"]  # the filter narrows first, the query only orders


def test_mnemir_type_and_property_filters(store: MnemirStore) -> None:
    store.put(("m", "alice"), "t1", {"type": "Task", "text": "renew the passport", "properties": {"status": "pending"}})
    store.put(("m", "alice"), "t2", {"type": "Task", "text": "book the dentist", "properties": {"status": "completed"}})
    store.put(("m", "alice"), "f", {"text": "passport expires in May"})
    tasks = store.search(("m",), filter={"$type": "Task"})
    assert sorted(i.key for i in tasks) == ["t1", "t2"] and {i.memory_type for i in tasks} == {"Task"}
    open_ = store.search(("m",), filter={"$type": ["Task"], "$where": {"status": {"$in": ["pending"]}}})
    assert [i.key for i in open_] == ["t1"]
    for bad, field in (({"$type": "Memo"}, "type"), ({"$where": {"colour": "red"}}, "colour"),
                       ({"score": {"$regex": "x"}}, "filter.score"), ({"$nope": 1}, "filter.$nope")):
        with pytest.raises(mnemir.ValidationError) as refused:
            store.search(("m",), filter=bad)
        assert field in str(refused.value), bad


def test_delete_and_batch(store: MnemirStore) -> None:
    store.put(("a", "u"), "k", {"v": 1})
    store.delete(("a", "u"), "k")
    assert store.get(("a", "u"), "k") is None and store.search(("a",)) == [] and store.list_namespaces() == []
    store.delete(("a", "u"), "never-there")  # deleting nothing is fine
    results = store.batch([
        PutOp(("a", "u"), "k1", {"v": 1}),
        GetOp(("a", "u"), "k1"),  # ops run in order: a read sees the writes before it
        PutOp(("a", "u"), "k2", {"v": 2}),
        SearchOp(("a",), {"v": {"$gte": 2}}),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a",)),)),
        PutOp(("a", "u"), "k1", None),
        GetOp(("a", "u"), "k1"),
    ])
    assert results[0] is None and results[1].value == {"v": 1}
    assert [i.key for i in results[3]] == ["k2"] and results[4] == [("a", "u")] and results[6] is None


def test_namespaces_are_checked(store: MnemirStore) -> None:
    for namespace in ((), ("langgraph", "x"), ("a.b",), ("",)):
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a.b",), "k")])  # ops given to batch directly are checked too
    with pytest.raises(InvalidNamespaceError):
        store.search(("a.b",))


def test_ttl_is_refused_clearly(store: MnemirStore) -> None:
    assert store.supports_ttl is False
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(("a", "u"), "k", {"v": 1}, ttl=5)
    with pytest.raises(NotImplementedError, match="TTL"):
        store.batch([PutOp(("a", "u"), "k", {"v": 1}, ttl=5.0)])
    store.put(("a", "u"), "k", {"v": 1}, ttl=None)  # no TTL is fine; refresh_ttl on reads is accepted
    assert store.get(("a", "u"), "k", refresh_ttl=True).value == {"v": 1}
    assert store.search(("a",), refresh_ttl=False)[0].key == "k"


def test_async_runs_the_same_logic(store: MnemirStore) -> None:
    async def main() -> tuple[Any, ...]:
        await store.aput(("a", "alice"), "k", VALUE)
        got = await store.aget(("a", "alice"), "k")
        found = await store.asearch(("a",), query="aisle seat", filter={"n": 3})
        spaces = await store.alist_namespaces(prefix=("a",))
        await store.adelete(("a", "alice"), "k")
        gone = await store.aget(("a", "alice"), "k")
        return got, found, spaces, gone

    got, found, spaces, gone = asyncio.run(main())
    assert got.value == VALUE and [i.key for i in found] == ["k"] and spaces == [("a", "alice")] and gone is None


def test_the_same_contract_on_postgresql(tmp_path: Path, embedder: mnemir.Embedder) -> None:
    if str(STORE_TESTS) not in sys.path:
        sys.path.insert(0, str(STORE_TESTS))
    from postgres_cases import database_url

    with mnemir.open(database_url(tmp_path, "langgraph"), embedder=embedder) as pg:
        store = MnemirStore(pg, user_label=1)
        reference = InMemoryStore()
        _fill(reference)
        _fill(store)
        for prefix, condition in SEARCHES:
            ours = sorted((i.namespace, i.key) for i in store.search(prefix, filter=condition, limit=100))
            theirs = sorted((i.namespace, i.key) for i in reference.search(prefix, filter=condition, limit=100))
            assert ours == theirs, (prefix, condition)
        store.put(("memories", "alice"), "seat", VALUE)
        got = store.get(("memories", "alice"), "seat")
        assert got.value == VALUE and got.namespace == ("memories", "alice") and got.memory_type == "Fact"
        assert store.list_namespaces(prefix=("docs",), max_depth=2) == [("docs", "alice"), ("docs", "bob")]
        assert store.search(("memories",), query="aisle seat on a flight")[0].key == "seat"
        store.delete(("memories", "alice"), "seat")
        assert store.get(("memories", "alice"), "seat") is None


# -- a real compiled graph: written in one thread, read in another --------------------------------------------------
@dataclass
class User:
    user_id: str


class Notes(TypedDict, total=False):
    note: str
    found: list[str]


def write_note(state: Notes, runtime: Runtime[User]) -> Notes:
    assert runtime.store is not None
    if state.get("note"):
        key = f"n{len(runtime.store.search(('notes', runtime.context.user_id), limit=1000))}"
        runtime.store.put(("notes", runtime.context.user_id), key, {"text": state["note"]})
    return {}


def read_notes(state: Notes, runtime: Runtime[User]) -> Notes:
    assert runtime.store is not None
    items = runtime.store.search(("notes", runtime.context.user_id), query="what food", limit=10)
    return {"found": [i.value["text"] for i in items]}


def test_a_compiled_graph_writes_in_one_thread_and_reads_in_another(store: MnemirStore) -> None:
    graph = StateGraph(Notes, context_schema=User)
    graph.add_node("write", write_note)
    graph.add_node("read", read_notes)
    graph.add_edge(START, "write")
    graph.add_edge("write", "read")
    graph.add_edge("read", END)
    app = graph.compile(store=store, checkpointer=InMemorySaver())

    def turn(note: str, thread: str, user: str) -> list[str]:
        return list(app.invoke({"note": note}, {"configurable": {"thread_id": thread}}, context=User(user))["found"])

    turn("loves mango sticky rice", "thread-1", "alice")
    turn("plays the cello", "thread-1", "alice")
    found = turn("", "thread-2", "alice")  # a new thread: no state carried, the store remembers
    assert found[0] == "loves mango sticky rice" and set(found) == {"loves mango sticky rice", "plays the cello"}
    assert turn("", "thread-3", "bob") == []  # another user's namespace

    async def async_turn() -> list[str]:
        out = await app.ainvoke({"note": ""}, {"configurable": {"thread_id": "thread-4"}}, context=User("alice"))
        return list(out["found"])

    assert set(asyncio.run(async_turn())) == set(found)
    assert store.memory.recall("what does alice eat?", user="alice").hits[0].memory.content.text == \
        "loves mango sticky rice"  # the store's items take part in role-aware recall


# -- the recipe in examples/ ------------------------------------------------------------------------------------------
def test_the_recall_then_remember_recipe(store: MnemirStore) -> None:
    spec = importlib.util.spec_from_file_location("langgraph_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example  # its dataclasses look themselves up there
    try:
        spec.loader.exec_module(example)
    finally:
        del sys.modules[spec.name]
    agent = example.build_agent(store)
    first = example.chat(agent, "I'm allergic to shellfish", user="alice", thread="t1")
    assert first == "Noted."  # nothing remembered yet
    # remembered after the turn: the utterance kept verbatim, and the fact read from it
    assert sorted(r.type for r in store.memory.list(user="alice")) == ["Episode", "Fact"]
    later = example.chat(agent, "What should I avoid at the seafood restaurant?", user="alice", thread="t2")
    assert "shellfish" in later  # recalled before the answer, across threads
    other = example.chat(agent, "What should I avoid at the seafood restaurant?", user="bob", thread="t3")
    assert "shellfish" not in other
