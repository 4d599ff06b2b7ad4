"""The store contract (mnemir.store.base.Store), checked against every backend in BACKENDS."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from store_cases import DIM, MODEL, ONTOLOGY, T0, OpenStore, record, unit

from mnemir.embed import USEEmbedder
from mnemir.errors import ModelMismatchError, NotFoundError, ValidationError
from mnemir.ir import Action, HistoryEntry, MemoryStatus
from mnemir.store.base import ANY, Edge, Selection, Store, Write
from mnemir.store.filters import parse_filter

RNG = np.random.default_rng(11)


def put(store: Store, *records: Any, vectors: Any = None) -> None:
    vecs = unit(RNG, len(records)) if vectors is None else vectors
    store.write([Write(r, v) for r, v in zip(records, vecs, strict=True)], model_id=MODEL)


def ids(items: list[Any]) -> list[str]:
    return [i.id if hasattr(i, "id") else i[0] for i in items]


# -- write / fetch -----------------------------------------------------------------------
def test_reads_by_id_keep_to_the_user_asked(store: Store) -> None:
    """``user=`` on the id-keyed reads (the tenant): another user's rows are not returned at all; ANY reads all."""
    mine = record("alice's note", "Fact", user="alice", id="a0", relationships=[{"relation": "about", "target": "b0"}])
    theirs = record("bob's note", "Fact", user="bob", id="b0", relationships=[{"relation": "about", "target": "a0"}])
    store.write([Write(r, v, [HistoryEntry(memory_id=r.id, action=Action.created)])
                 for r, v in zip([mine, theirs], unit(RNG, 2), strict=True)], model_id=MODEL)
    assert ids(store.fetch(["a0", "b0"], user="alice")) == ["a0"]
    assert ids(store.fetch(["a0", "b0"])) == ["a0", "b0"]
    assert store.fetch(["a0", "b0"], user=None) == []  # records with no user
    assert [(e.source, e.target) for e in store.edges(["a0"], direction="both", user="alice")] == [("a0", "b0")]
    assert len(store.edges(["a0"], direction="both")) == 2
    assert set(store.histories(["a0", "b0"], user="alice")) == {"a0"}
    assert set(store.vectors(["a0", "b0"], user="bob")) == {"b0"}
    assert store.history("b0", user="alice") == [] and len(store.history("b0")) == 1
    with pytest.raises(NotFoundError):
        store.get("b0", Selection(user_id="alice"))
    with pytest.raises(ValidationError):
        store.fetch(["a0"], user=7)  # type: ignore[arg-type]


def test_round_trip_keeps_every_field(store: Store) -> None:
    rec = record("订下周五去上海的机票", "Task", {"goal": "订机票", "status": "未开始", "deadline": "2026-12-04"},
                 session="s1", agent="planner", valid_from=T0, valid_to=T0 + timedelta(days=3),
                 relationships=[{"target": "mem_x", "relation": "related_to_entity", "properties": {"e": "上海"}}],
                 metadata={"source": {"speaker": "user", "session_id": "s1", "turn": 1}, "extra": {"k": [1, 2]}})
    put(store, rec)
    (back,) = store.fetch([rec.id])
    assert back == rec
    assert back.properties["status"] == "pending"


def test_fetch_keeps_the_asked_order_and_skips_unknown_ids(store: Store) -> None:
    a, b = record("a", id="a"), record("b", id="b")
    put(store, a, b)
    assert ids(store.fetch(["b", "nope", "a"])) == ["b", "a"]
    assert store.fetch([]) == []


def test_get_raises_not_found_outside_the_scope(store: Store) -> None:
    put(store, record("x", id="x", user="alice"))
    assert store.get("x").id == "x"
    with pytest.raises(NotFoundError):
        store.get("x", Selection(user_id="bob"))
    with pytest.raises(NotFoundError):
        store.get("missing")


def test_new_record_without_vector_is_refused_and_the_batch_is_not_half_written(store: Store) -> None:
    good, bad = record("good", id="good"), record("bad", id="bad")
    with pytest.raises(ValidationError) as info:
        store.write([Write(good, unit(RNG)[0]), Write(bad, None)], model_id=MODEL)
    assert info.value.field == "writes[1].vector"
    assert store.fetch(["good", "bad"]) == []
    assert store.count(Selection(user_id=ANY)) == 0


def test_first_write_records_the_model_and_other_models_are_refused(store: Store) -> None:
    assert store.model_id is None
    put(store, record("one", id="one"))
    assert store.model_id == MODEL
    with pytest.raises(ModelMismatchError):
        store.write([Write(record("two", id="two"), unit(RNG)[0])], model_id="another-model")
    with pytest.raises(ValidationError) as info:  # same model, wrong dimension
        store.write([Write(record("three", id="three"), unit(RNG, 1, DIM + 1)[0])], model_id=MODEL)
    assert info.value.field == "vector"
    assert store.fetch(["two", "three"]) == []


@pytest.mark.parametrize(("vector", "field"), [
    (np.zeros(DIM, dtype=np.float32), "writes[0].vector"),
    (np.full(DIM, np.nan, dtype=np.float32), "writes[0].vector"),
    (np.ones((2, DIM), dtype=np.float32), "writes[0].vector"),
])
def test_bad_vectors_are_refused_naming_the_field(store: Store, vector: Any, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        store.write([Write(record("v"), vector)], model_id=MODEL)
    assert info.value.field == field


def test_replacing_a_record_replaces_properties_edges_and_text_but_keeps_the_vector(store: Store) -> None:
    v = unit(RNG)
    old = record("black coffee without sugar", "Preference", {"subject": "coffee", "preference_type": "like"},
                 id="p", relationships=[{"target": "t1", "relation": "about"}])
    put(store, old, vectors=v)
    new = old.model_copy(update={"content": old.content.model_copy(update={"text": "green tea in the morning"}),
                                 "properties": {"subject": "tea", "preference_type": "like"},
                                 "relationships": []})
    store.write([Write(new, None)], model_id=MODEL)
    everyone = Selection(user_id=ANY)
    assert store.fetch(["p"])[0].properties["subject"] == "tea"
    assert store.count(everyone.with_(where=parse_filter({"subject": "coffee"}, ONTOLOGY))) == 0
    assert store.count(everyone.with_(where=parse_filter({"subject": "tea"}, ONTOLOGY))) == 1
    assert store.text_search(everyone, "coffee", 5) == []
    assert ids(store.text_search(everyone, "tea", 5)) == ["p"]
    assert store.edges(["p"]) == []
    np.testing.assert_allclose(store.vectors(["p"])["p"], v[0], rtol=1e-6)
    assert ids(store.vector_search(everyone, v[0], 1)) == ["p"]


def test_delete_ids_purges_everything_history_included(store: Store) -> None:
    a = record("meeting notes about the budget", id="a", relationships=[{"target": "b", "relation": "about"}])
    b = record("budget spreadsheet", id="b")
    entry = HistoryEntry(memory_id="a", at=T0, action=Action.created)
    store.write([Write(a, unit(RNG)[0], [entry]), Write(b, unit(RNG)[0])], model_id=MODEL)
    store.write([], model_id=MODEL, delete_ids=["a"])
    everyone = Selection(user_id=ANY)
    assert store.fetch(["a"]) == []
    assert store.vectors(["a"]) == {}
    assert store.edges(["a"]) == []
    assert ids(store.text_search(everyone, "budget", 5)) == ["b"]
    assert ids(store.vector_search(everyone, unit(RNG)[0], 5)) == ["b"]
    assert store.history("a") == []  # a hard delete forgets: only a tombstone written with it stays (below)
    assert store.check().ok


def test_a_record_written_and_deleted_at_once_leaves_only_its_history(store: Store) -> None:
    rec = record("to forget", id="f")
    put(store, rec)
    gone = HistoryEntry(memory_id="f", at=T0 + timedelta(hours=1), action=Action.deleted, reason="hard delete")
    store.write([Write(rec, None, [gone])], model_id=MODEL, delete_ids=["f"])
    assert store.fetch(["f"]) == []
    assert [h.action for h in store.history("f")] == [Action.deleted]


def test_a_record_deleted_in_the_same_write_is_not_checked_for_its_vector(store: Store) -> None:
    rec = record("to forget", id="g")
    gone = HistoryEntry(memory_id="g", at=T0, action=Action.deleted, reason="hard delete")
    store.write([Write(rec, np.full(DIM, np.nan, dtype=np.float32), [gone])], model_id=MODEL, delete_ids=["g"])
    assert store.fetch(["g"]) == [] and [h.action for h in store.history("g")] == [Action.deleted]


def test_history_is_oldest_first(store: Store) -> None:
    rec = record("r", id="r")
    later = HistoryEntry(memory_id="r", at=T0 + timedelta(days=1), action=Action.updated)
    first = HistoryEntry(memory_id="r", at=T0, action=Action.created)
    store.write([Write(rec, unit(RNG)[0], [later, first])], model_id=MODEL)
    store.write([Write(rec, None, [HistoryEntry(memory_id="r", at=T0 + timedelta(days=2),
                                                action=Action.archived)])], model_id=MODEL)
    assert [h.action for h in store.history("r")] == [Action.created, Action.updated, Action.archived]
    assert store.history("unknown") == []


def test_histories_of_many_records_in_one_call(store: Store) -> None:
    """700 ids (most unknown): each record's history, oldest first, the same as asking one at a time."""
    for name in ("a", "b"):
        rec = record(name, id=name)
        store.write([Write(rec, unit(RNG)[0], [HistoryEntry(memory_id=name, at=T0 + timedelta(days=1),
                                                            action=Action.updated),
                                               HistoryEntry(memory_id=name, at=T0, action=Action.created)])],
                    model_id=MODEL)
    many = [f"unknown{i}" for i in range(350)] + ["b", "a"] + [f"unknown{i}" for i in range(350, 698)]
    found = store.histories([*many, "a"])
    assert set(found) == {"a", "b"}
    assert found["a"] == store.history("a") and found["b"] == store.history("b")
    assert [h.action for h in found["b"]] == [Action.created, Action.updated]
    assert store.histories([]) == {}
    with pytest.raises(ValidationError):
        store.histories("a")


# -- selection semantics -------------------------------------------------------------
SCOPED = [
    ("a-none", None, None, None), ("alice", "alice", None, None), ("alice-ag1", "alice", "ag1", None),
    ("alice-ag1-s1", "alice", "ag1", "s1"), ("alice-s2", "alice", None, "s2"), ("bob-ag1", "bob", "ag1", "s1"),
]


@pytest.mark.parametrize(("selection", "expected"), [
    (Selection(user_id="alice"), {"alice", "alice-ag1", "alice-ag1-s1", "alice-s2"}),
    (Selection(user_id=None), {"a-none"}),
    (Selection(), {"a-none"}),
    (Selection(user_id="alice", agent_id="ag1"), {"alice-ag1", "alice-ag1-s1"}),
    (Selection(user_id="alice", agent_id=None), {"alice", "alice-ag1", "alice-ag1-s1", "alice-s2"}),
    (Selection(user_id="alice", session_id="s1"), {"alice-ag1-s1"}),
    (Selection(user_id=ANY, agent_id="ag1"), {"alice-ag1", "alice-ag1-s1", "bob-ag1"}),
    (Selection(user_id=ANY), {s[0] for s in SCOPED}),
    (Selection(user_id="carol"), set()),
])
def test_scope_rule(store: Store, selection: Selection, expected: set[str]) -> None:
    put(store, *[record(n, id=n, user=u, agent=a, session=s) for n, u, a, s in SCOPED])
    assert set(ids(store.select(selection))) == expected
    assert store.count(selection) == len(expected)
    assert set(ids(store.vector_search(selection, unit(RNG)[0], 50))) == expected
    assert set(ids(store.text_search(selection, "a alice bob", 50))) == expected  # each text holds one


def test_statuses_default_to_live_ones(store: Store) -> None:
    put(store, *[record(s.value, id=s.value, status=s) for s in MemoryStatus])
    assert set(ids(store.select(Selection(user_id="alice")))) == {"active", "disputed"}
    assert set(ids(store.select(Selection(user_id="alice", statuses=(MemoryStatus.archived,))))) == {"archived"}
    assert store.count(Selection(user_id="alice", statuses=())) == 0


def test_types_and_ids_restrict(store: Store) -> None:
    put(store, record("f", "Fact", id="f"), record("t", "Task", id="t"), record("p", "Fact", id="p"))
    assert set(ids(store.select(Selection(user_id="alice", types=("Fact",))))) == {"f", "p"}
    assert set(ids(store.select(Selection(user_id="alice", ids=("t", "p", "zz"))))) == {"t", "p"}
    by_id = Selection(user_id="alice", ids=("t", "p", "zz"))
    assert [r.id for r in store.fetch(["f", "t", "p"]) if by_id.admits(r)] == ["t", "p"]
    assert store.get("t", by_id).id == "t"
    with pytest.raises(NotFoundError):
        store.get("f", by_id)
    assert store.select(Selection(user_id="alice", ids=())) == []
    assert store.select(Selection(user_id="alice", types=())) == []


def test_valid_at_is_half_open_and_falls_back_to_created_at(store: Store) -> None:
    window = record("w", id="window", valid_from=T0, valid_to=T0 + timedelta(days=2))
    open_ended = record("o", id="open", created=T0 + timedelta(days=1))
    put(store, window, open_ended)

    def at(delta: timedelta) -> set[str]:
        selection = Selection(user_id="alice", valid_at=T0 + delta)
        selected = set(ids(store.select(selection)))
        assert selected == {r.id for r in (window, open_ended) if selection.admits(r)}  # Python agrees with SQL
        return selected

    assert at(-timedelta(seconds=1)) == set()
    assert at(timedelta(0)) == {"window"}
    assert at(timedelta(days=1)) == {"window", "open"}
    assert at(timedelta(days=2) - timedelta(microseconds=1)) == {"window", "open"}
    assert at(timedelta(days=2)) == {"open"}


def test_where_on_core_and_json_properties(store: Store) -> None:
    put(store,
        record("t1", "Task", {"status": "pending", "priority": "high", "deadline": "2026-12-04"}, id="t1"),
        record("t2", "Task", {"status": "in_progress", "deadline": "2026-12-10T08:00:00Z"}, id="t2"),
        record("t3", "Task", {"status": "completed", "goal": "write the report"}, id="t3"),
        record("p1", "Preference", {"subject": "coffee", "preference_type": "like", "strength": 0.9}, id="p1"))

    def where(w: dict[str, Any]) -> set[str]:
        return set(ids(store.select(Selection(user_id="alice", where=parse_filter(w, ONTOLOGY)))))

    assert where({"status": {"$in": ["pending", "进行中"]}}) == {"t1", "t2"}
    assert where({"priority": {"$ne": "high"}}) == {"t2", "t3", "p1"}  # missing counts as "not high"
    assert where({"deadline": {"$lte": "2026-12-05"}}) == {"t1"}
    assert where({"deadline": {"$exists": False}}) == {"t3", "p1"}
    assert where({"goal": {"$contains": "report"}}) == {"t3"}
    assert where({"strength": {"$gte": 0.5}}) == {"p1"}
    assert where({"$or": [{"subject": "coffee"}, {"status": "completed"}]}) == {"p1", "t3"}
    assert where({"$not": {"status": "pending"}}) == {"t2", "t3", "p1"}
    assert where({"@type": "Preference"}) == {"p1"}


@pytest.mark.parametrize(("where", "field", "value"), [
    ({"extra": ["alpha", "beta"]}, "where.extra", ["alpha", "beta"]),
    ({"extra": {"$ne": {"k": "alpha"}}}, "where.extra.$ne", {"k": "alpha"}),
    ({"blob": {"$in": ["alpha", ["alpha"]]}}, "where.blob.$in", ["alpha"]),
    ({"blob": {"$nin": [{"k": "alpha"}]}}, "where.blob.$nin", {"k": "alpha"}),
])
def test_a_list_or_object_as_filter_value_is_refused_naming_the_field(store: Store, where: dict[str, Any],
                                                                       field: str, value: Any) -> None:
    """'json' properties hold anything, but filters compare scalars: every backend answers alike."""
    put(store, record("g", "Gadget", {"extra": ["alpha", "beta"], "blob": {"k": "alpha"}}, id="g"))
    with pytest.raises(ValidationError) as info:
        store.select(Selection(user_id=ANY, where=parse_filter(where, ONTOLOGY)))
    assert (info.value.field, info.value.value) == (field, value)
    assert info.value.allowed == "string, number or boolean"
    assert ids(store.select(Selection(user_id=ANY, where=parse_filter({"extra": "beta"}, ONTOLOGY)))) == ["g"]


def test_order_by_limit_and_offset(store: Store) -> None:
    put(store, *[record(f"t{i}", "Task", {"deadline": f"2026-12-0{9 - i}"} if i % 3 else {}, id=f"t{i}",
                        created=T0 + timedelta(minutes=i)) for i in range(8)])
    sel = Selection(user_id="alice")
    by_deadline = ids(store.select(sel, order_by=[("deadline", True)]))
    assert by_deadline == ["t7", "t5", "t4", "t2", "t1", "t0", "t3", "t6"]  # missing deadlines last
    assert ids(store.select(sel, order_by=[("deadline", False)]))[:5] == ["t1", "t2", "t4", "t5", "t7"]
    newest = ids(store.select(sel, order_by=[("@created_at", False)]))
    assert newest == [f"t{i}" for i in reversed(range(8))]
    assert ids(store.select(sel, order_by=[("@created_at", True)], limit=3, offset=2)) == ["t2", "t3", "t4"]
    assert [r.id for r in store.iter_select(sel, batch=3)] == [f"t{i}" for i in range(8)]


@pytest.mark.parametrize("batch", [250, 500, 3001])
def test_iter_select_yields_every_record_once_in_select_order(store: Store, batch: int) -> None:
    """3000 records, many sharing a creation time (down to the microsecond), ids whose code-point order is not a
    locale's: paging by (created_at, id) loses and repeats nothing, in the order select() gives."""
    rnd = np.random.default_rng(7)
    stamps = [T0 + timedelta(minutes=int(m), microseconds=int(u))
              for m, u in zip(rnd.integers(0, 5, 3000), rnd.integers(0, 3, 3000), strict=True)]
    names = [f"{'ABab_-'[i % 6]}{i:04d}" for i in range(3000)]
    put(store, *[record("x", id=n, created=t) for n, t in zip(names, stamps, strict=True)],
        vectors=unit(rnd, 3000))
    put(store, record("not mine", id="other", user="bob"))
    sel = Selection(user_id="alice")
    walked = [r.id for r in store.iter_select(sel, batch=batch)]
    assert walked == ids(store.select(sel, order_by=[("@created_at", True)]))
    assert sorted(walked) == sorted(names)
    assert walked == [n for _, n in sorted(zip(stamps, names, strict=True))]


@pytest.mark.parametrize(("call", "field"), [
    (lambda s: s.select(Selection(user_id="a"), order_by=[("@nope", True)]), "order_by[0]"),
    (lambda s: s.select(Selection(user_id="a"), order_by=[("colour", True)]), "colour"),
    (lambda s: s.select(Selection(user_id="a"), limit=-1), "limit"),
    (lambda s: s.select(Selection(user_id="a"), offset=-2), "offset"),
    (lambda s: s.count(Selection(user_id=3)), "user_id"),  # type: ignore[arg-type]
    (lambda s: s.count(Selection(statuses=("live",))), "statuses"),  # type: ignore[arg-type]
    (lambda s: s.count(Selection(where={"status": "pending"})), "where"),  # type: ignore[arg-type]
    (lambda s: s.vector_search(Selection(), unit(RNG)[0], -1), "k"),
    (lambda s: s.vector_search(Selection(), np.ones(DIM + 3, dtype=np.float32), 3), "query"),
    (lambda s: s.text_search(Selection(), 42, 3), "query"),  # type: ignore[arg-type]
    (lambda s: s.edges(["a"], direction="sideways"), "direction"),
    (lambda s: s.fetch("abc"), "ids"),
    (lambda s: s.set_meta("k", 1), "value"),  # type: ignore[arg-type]
    (lambda s: next(s.iter_select(Selection(), batch=0)), "batch"),
    (lambda s: s.select(Selection(), order_by=[("@updated_at", True)], _after=(T0, "x")), "order_by"),
    (lambda s: s.select(Selection(), order_by=[("@created_at", True)], _after=("2026", "x")), "_after"),
])
def test_bad_arguments_name_the_field(store: Store, call: Any, field: str) -> None:
    put(store, record("x"))
    with pytest.raises(ValidationError) as info:
        call(store)
    assert info.value.field == field


# -- vector search -----------------------------------------------------------------
def test_vector_search_is_exact_at_every_selectivity(store: Store) -> None:
    """Recall 1.0 against numpy brute force over the same filtered set, from 0.5% to 100% of the store."""
    n, rng = 2000, np.random.default_rng(3)
    vectors = unit(rng, n)
    records = [record(f"r{i}", "Fact", {"entity": f"e{i % 200}", "attribute": "a" if i % 7 else "b"},
                      id=f"r{i:04d}", user="u" if i % 10 else "v") for i in range(n)]
    put(store, *records, vectors=vectors)
    cases: dict[str, tuple[dict[str, Any] | None, Any]] = {
        "0.5%": ({"entity": "e5"}, lambda r: r.properties["entity"] == "e5"),
        "~14%": ({"attribute": "b"}, lambda r: r.properties["attribute"] == "b"),
        "~86%": ({"attribute": {"$ne": "b"}}, lambda r: r.properties["attribute"] != "b"),
        "all": (None, lambda r: True),
    }
    for name, (where, keep) in cases.items():
        selection = Selection(user_id=ANY, where=parse_filter(where, ONTOLOGY))
        allowed = np.array([i for i, r in enumerate(records) if keep(r)])
        for q in unit(rng, 5):
            got = store.vector_search(selection, q, 10)
            scores = vectors[allowed] @ q
            want = [records[i].id for i in allowed[np.argsort(-scores)[:10]]]
            assert ids(got) == want, name
            np.testing.assert_allclose([s for _, s in got], np.sort(scores)[::-1][:10], atol=1e-5)


def test_vector_search_k_larger_than_the_selection_returns_all_best_first(store: Store) -> None:
    vecs = unit(RNG, 3)
    put(store, *[record(f"r{i}", id=f"r{i}") for i in range(3)], vectors=vecs)
    got = store.vector_search(Selection(user_id="alice"), vecs[1], 10)
    assert len(got) == 3 and got[0][0] == "r1" and got[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert store.vector_search(Selection(user_id="alice"), vecs[1], 0) == []


def test_vector_search_on_an_empty_store_is_empty(store: Store) -> None:
    assert store.vector_search(Selection(user_id=ANY), unit(RNG)[0], 5) == []


def test_semantic_search_with_the_default_embedder(open_store: OpenStore, embedder: USEEmbedder) -> None:
    store = open_store("semantic")
    texts = {"coffee": "我喜欢喝黑咖啡，不加糖", "flight": "帮我订下周五去上海的机票",
             "weather": "It will rain in London tomorrow", "cat": "My cat is called Mimi"}
    recs = [record(t, id=k) for k, t in texts.items()]
    store.write([Write(r, v) for r, v in zip(recs, embedder.embed(list(texts.values())), strict=True)],
                model_id=embedder.model_id)
    sel = Selection(user_id="alice")
    assert store.vector_search(sel, embedder.embed_query("what coffee do I like?"), 1)[0][0] == "coffee"
    assert store.vector_search(sel, embedder.embed_query("飞机票预订"), 1)[0][0] == "flight"
    assert store.vector_search(sel, embedder.embed_query("天气预报 下雨"), 1)[0][0] == "weather"


# -- full text -----------------------------------------------------------------------
def test_text_search_chinese_and_english(store: Store) -> None:
    put(store, record("帮我订下周五去上海的机票", id="flight"), record("我喜欢喝黑咖啡，不加糖", id="coffee"),
        record("The weather in Berlin is cold", id="weather"), record("Weathering the storm", id="storm"))
    sel = Selection(user_id="alice")
    assert ids(store.text_search(sel, "上海", 5)) == ["flight"]
    assert ids(store.text_search(sel, "黑咖啡", 5)) == ["coffee"]
    assert ids(store.text_search(sel, "糖", 5)) == ["coffee"]  # a single hanzi
    # "weathering" is a form of "weather" (decision 0086): both are found (a form counts as the word as asked)
    assert set(ids(store.text_search(sel, "weather", 5))) == {"weather", "storm"}
    assert ids(store.text_search(sel, "WEATHER berlin", 5))[0] == "weather"
    assert ids(store.text_search(sel, "storm", 5)) == ["storm"]
    hits = store.text_search(sel, "上海 weather", 5)
    assert set(ids(hits)) == {"flight", "weather", "storm"} and all(score > 0 for _, score in hits)


def test_more_matching_terms_score_higher(store: Store) -> None:
    put(store, record("rain in London", id="one"), record("rain and wind in London today", id="two"),
        record("sunny in Madrid", id="none"))
    hits = store.text_search(Selection(user_id="alice"), "London wind", 5)
    assert ids(hits) == ["two", "one"] and hits[0][1] > hits[1][1]


@pytest.mark.parametrize("query", ['"', "AND", "OR NOT", "*", "a*", "NEAR(a b)", "(", "))", "😀", "", "   ",
                                   "col:value", "^上海", "'\"; DROP TABLE records; --", "-", "\x00"])
def test_odd_text_queries_never_raise(store: Store, query: str) -> None:
    put(store, record("and or not near a b value", id="x"), record("上海", id="y"))
    hits = store.text_search(Selection(user_id="alice"), query, 5)
    assert isinstance(hits, list)
    assert store.count(Selection(user_id="alice")) == 2


def test_text_search_respects_where(store: Store) -> None:
    put(store, record("report due Friday", "Task", {"status": "pending"}, id="open"),
        record("report sent", "Task", {"status": "completed"}, id="done"))
    sel = Selection(user_id="alice", where=parse_filter({"status": "pending"}, ONTOLOGY))
    assert ids(store.text_search(sel, "report", 5)) == ["open"]


# -- edges, vectors, meta -------------------------------------------------------------
def test_edges_both_ways_and_by_relation(store: Store) -> None:
    put(store,
        record("task", "Task", id="t", relationships=[{"target": "p1", "relation": "has_step"},
                                                       {"target": "e", "relation": "about", "properties": {"w": 1}}]),
        record("step", "Plan", id="p1", relationships=[{"target": "t", "relation": "step_of"}]))
    assert store.edges(["t"]) == [Edge("t", "has_step", "p1"), Edge("t", "about", "e", {"w": 1})]
    assert store.edges(["t"], relations=["about"]) == [Edge("t", "about", "e", {"w": 1})]
    assert store.edges(["t"], direction="in") == [Edge("p1", "step_of", "t")]
    both = store.edges(["t"], direction="both")
    assert len(both) == 3 and Edge("p1", "step_of", "t") in both and Edge("t", "has_step", "p1") in both
    assert store.edges(["t"], relations=[]) == []


def test_edges_of_more_ids_than_one_sql_list_holds(store: Store) -> None:
    """600 ids (some unknown) in one call: each edge once, in the same order as for a short list."""
    put(store,
        record("task", "Task", id="t", relationships=[{"target": "p1", "relation": "has_step", "properties": {"n": [1]}},
                                                       {"target": "e", "relation": "about"}]),
        record("step", "Plan", id="p1", relationships=[{"target": "t", "relation": "step_of"}]))
    many = [f"unknown{i}" for i in range(300)] + ["p1", "t"] + [f"unknown{i}" for i in range(300, 598)]
    assert len(many) == 600
    out = [Edge("p1", "step_of", "t"), Edge("t", "has_step", "p1", {"n": [1]}), Edge("t", "about", "e")]
    assert store.edges(many) == out
    assert store.edges(many, direction="both") == out  # edges between two asked ids come once
    assert store.edges(many, direction="in") == [Edge("p1", "step_of", "t"), Edge("t", "has_step", "p1", {"n": [1]})]
    assert store.edges(many, relations=["about"]) == [Edge("t", "about", "e")]
    assert store.edges(many + many) == out


def test_vectors_are_returned_normalised(store: Store) -> None:
    raw = np.arange(1, DIM + 1, dtype=np.float32)
    store.write([Write(record("v", id="v"), raw)], model_id=MODEL)
    got = store.vectors(["v", "missing"])
    assert set(got) == {"v"}
    np.testing.assert_allclose(got["v"], raw / np.linalg.norm(raw), rtol=1e-6)


def test_meta_round_trip(store: Store) -> None:
    assert store.get_meta("owner") is None
    store.set_meta("owner", "alice")
    store.set_meta("owner", "bob")
    assert store.get_meta("owner") == "bob"


def test_reopening_sees_everything(open_store: OpenStore) -> None:
    first = open_store("same")
    put(first, record("persisted 上海", id="keep"))
    first.close()
    again = open_store("same")
    assert ids(again.fetch(["keep"])) == ["keep"]
    assert again.model_id == MODEL
    assert ids(again.text_search(Selection(user_id="alice"), "上海", 3)) == ["keep"]


def test_capabilities_are_declared(store: Store, backend: str) -> None:
    caps = store.capabilities
    assert caps.name == backend
    assert caps.exact_filtered_vectors is True
    assert caps.ann == hasattr(store, "build_ann_index")  # declared exactly where an ANN index can be built
    assert set(caps.text_languages) >= {"en", "zh"}


# -- many look-ups in one read ---------------------------------------------------------------
def test_many_vector_searches_answer_as_one_search_each(store: Store) -> None:
    """``vector_search_many`` returns, query for query, what ``vector_search`` returns: with repeated vectors (exact
    ties), k above the scope's size, a filtered scope and an empty query list."""
    rng = np.random.default_rng(5)
    base = unit(rng, 30)
    vectors = np.vstack([base, base[:6]])  # six records share a vector with another: tied scores
    recs = [record(f"note {i}", "Fact" if i % 3 else "Preference", {"entity": f"e{i % 4}"} if i % 3 else
                   {"subject": f"s{i % 4}", "preference_type": "like"}, user="alice" if i % 5 else "bob", id=f"r{i:02d}")
            for i in range(len(vectors))]
    put(store, *recs, vectors=vectors)
    queries = [*unit(rng, 5), base[0], base[3]]
    selections = [Selection(user_id="alice"), Selection(user_id="alice", types=("Fact",)),
                  Selection(user_id="bob"),
                  Selection(user_id="alice", types=("Fact",), where=parse_filter({"entity": "e1"}, ONTOLOGY))]
    for selection in selections:
        for k in (1, 3, 5, 50):
            assert store.vector_search_many(selection, queries, k) == [store.vector_search(selection, q, k)
                                                                       for q in queries]
    assert store.vector_search_many(Selection(user_id="alice"), [], 5) == []


def test_many_selects_answer_as_one_select_each(store: Store) -> None:
    recs = [record(f"note {i}", "Fact", {"entity": f"e{i % 4}", "attribute": "job"}, user="alice", id=f"s{i:02d}")
            for i in range(12)]
    put(store, *recs)
    selections = [Selection(user_id="alice", types=("Fact",), where=parse_filter({"entity": e}, ONTOLOGY))
                  for e in ("e1", "e2", "e1", "nobody")] + [Selection(user_id="alice"), Selection(user_id="bob")]
    for limit in (None, 2):
        many = store.select_many(selections, limit=limit)
        assert [ids(found) for found in many] == [ids(store.select(s, limit=limit)) for s in selections]
        assert many[0] == store.select(selections[0], limit=limit)
    assert store.select_many([]) == []


def test_a_few_selects_of_one_user_answer_as_one_select_each(store: Store) -> None:
    """A few selections of one user and of different shapes (``remember``'s and a lone ``add``'s look-ups, which
    PostgreSQL reads by one statement) answer what one ``select`` each answers: no filter, types, statuses, ids, a
    time of validity, property conditions of several kinds, a selection asked twice, with and without a limit."""
    recs = [record(f"note {i}", "Fact" if i % 4 else "Hypothesis",
                   {"entity": f"e{i % 5}", "attribute": ("job", "flat")[i % 2], "confidence": (i % 4) / 4},
                   user="alice" if i % 6 else "bob", created=T0 + timedelta(minutes=i % 7),
                   status=MemoryStatus.active if i % 5 else MemoryStatus.superseded,
                   valid_from=T0 if i % 3 else T0 + timedelta(days=2), id=f"m{i:02d}")
            for i in range(40)]
    put(store, *recs)
    kinds = ("Fact", "Hypothesis")
    selections = [
        Selection(user_id="alice"),
        Selection(user_id="alice", types=("Fact",)),
        Selection(user_id="alice", statuses=tuple(MemoryStatus)),
        Selection(user_id="alice", ids=["m01", "m02", "m06", "m12", "nobody"]),
        Selection(user_id="alice", valid_at=T0 + timedelta(days=1)),
        Selection(user_id="alice", types=kinds, where=parse_filter({"entity": {"$in": ["e1", "e2"]}}, ONTOLOGY, kinds)),
        Selection(user_id="alice", types=kinds, where=parse_filter(
            {"entity": {"$in": ["e3"]}, "attribute": {"$in": ["job"]}}, ONTOLOGY, kinds)),
        Selection(user_id="alice", types=kinds, where=parse_filter({"confidence": {"$gte": 0.5}}, ONTOLOGY, kinds)),
        Selection(user_id="alice", types=kinds, where=parse_filter({"entity": "nobody"}, ONTOLOGY, kinds)),
    ]
    for count in (2, 4, len(selections)):
        asked = [*selections[:count], selections[0]]
        for limit in (None, 1, 3):
            many = store.select_many(asked, limit=limit)
            assert [ids(found) for found in many] == [ids(store.select(s, limit=limit)) for s in asked]
    bob = [Selection(user_id="bob"), Selection(user_id="bob", types=("Hypothesis",))]
    assert [ids(found) for found in store.select_many(bob)] == [ids(store.select(s)) for s in bob]


def test_edges_keep_their_properties_and_each_edge_its_own(store: Store) -> None:
    """An edge written with properties reads them back; edges written without read an empty dict each, their own
    (a caller changing one changes no other)."""
    source = record("the plan for the garden", "Fact", id="e0", relationships=[
        {"relation": "about", "target": "e1"}, {"relation": "about", "target": "e2"},
        {"relation": "supports", "target": "e1", "properties": {"why": "said so", "score": 0.5}}])
    others = [record(f"note {i}", "Fact", id=f"e{i}") for i in (1, 2)]
    store.write([Write(r, v) for r, v in zip([source, *others], unit(RNG, 3), strict=True)], model_id=MODEL)
    edges = store.edges(["e0"])
    assert [(e.relation, e.target, e.properties) for e in edges] == [
        ("about", "e1", {}), ("about", "e2", {}), ("supports", "e1", {"why": "said so", "score": 0.5})]
    edges[0].properties["changed"] = True
    assert edges[1].properties == {} and store.edges(["e0"])[0].properties == {}


def test_edge_counts_count_what_edges_reads(store: Store) -> None:
    """``edge_counts`` is the per-record count of ``edges``' answer under the same arguments (relations, direction,
    user), whether the backend counts in its query or reads the edges (the base class's default)."""
    hub = record("a long note", "Fact", id="h0")
    readers = [record(f"reading {i}", "Fact", user="alice" if i % 3 else "bob", id=f"r{i}",
                      relationships=[{"relation": "derived_from", "target": "h0"}]
                      + ([{"relation": "about", "target": "h1"}] if i % 2 else [])) for i in range(7)]
    store.write([Write(r, v) for r, v in zip([hub, record("another", "Fact", id="h1"), *readers],
                                             unit(RNG, 9), strict=True)], model_id=MODEL)
    asked = ["h0", "h1", "r1", "nothing"]
    for relations in (None, ["derived_from"], ["about", "derived_from"]):
        for direction in ("in", "out"):
            for user in (ANY, "alice", "bob", None):
                edges = store.edges(asked, relations=relations, direction=direction, user=user)
                want = Counter(e.target if direction == "in" else e.source for e in edges)
                got = store.edge_counts(asked, relations=relations, direction=direction, user=user)
                assert got == dict(want) == Store.edge_counts(store, asked, relations=relations,
                                                               direction=direction, user=user)
    assert store.edge_counts(["h0"], relations=["derived_from"]) == {"h0": 7}
    with pytest.raises(ValidationError):
        store.edge_counts(["h0"], direction="both")
    # a reader asking "more than N?" gets min(count, N + 1), the backend's own way and the default's alike
    for at_most in (0, 2, 6, 7, 50):
        for user in (ANY, "alice"):
            full = store.edge_counts(asked, relations=["derived_from", "about"], user=user)
            capped = store.edge_counts(asked, relations=["derived_from", "about"], user=user, at_most=at_most)
            assert capped == {k: min(n, at_most + 1) for k, n in full.items()} == Store.edge_counts(
                store, asked, relations=["derived_from", "about"], user=user, at_most=at_most)
    for bad in (-1, True, 1.5):
        with pytest.raises(ValidationError) as info:
            store.edge_counts(["h0"], at_most=bad)  # type: ignore[arg-type]
        assert info.value.context["field"] == "at_most"


def test_many_selects_of_in_conditions_answer_as_one_select_each(store: Store) -> None:
    """Selections that differ only in the values of their ``$in`` conditions (governance's key and rule look-ups;
    both backends read a group of them by one query, decisions 0121 and 0125) answer what one ``select`` each answers: random
    records (several creation times, statuses, users and types) and random groups of selections, with and without a
    limit, a selection asked twice, and values that no record holds."""
    from mnemir.store import grouped

    rng = np.random.default_rng(121)
    entities, attributes = ["Ana", "ana", "Ben", "Cleo", "1"], ["job", "flat", "Job"]
    recs = [record(f"note {i}", "Fact" if i % 5 else "Hypothesis",
                   {"entity": entities[int(rng.integers(0, 5))], "attribute": attributes[int(rng.integers(0, 3))],
                    "value": f"v{int(rng.integers(0, 3))}", "confidence": float(rng.integers(0, 3)) / 2},
                   user="alice" if i % 7 else "bob", created=T0 + timedelta(minutes=int(rng.integers(0, 20))),
                   status=MemoryStatus.active if i % 6 else MemoryStatus.superseded, id=f"g{i:03d}")
            for i in range(90)]
    put(store, *recs)
    old, least = grouped.GROUP_SIZE, grouped.GROUP_FROM
    grouped.GROUP_FROM = 2
    try:
        for group_size in (2, 256):
            grouped.GROUP_SIZE = group_size
            for _ in range(12):
                selections = []
                for _ in range(int(rng.integers(1, 9))):
                    where: dict[str, Any] = {"entity": {"$in": list(rng.choice(entities, int(rng.integers(1, 3))))}}
                    if rng.random() < 0.7:
                        where["attribute"] = {"$in": list(rng.choice(attributes, int(rng.integers(1, 3))))}
                    if rng.random() < 0.3:
                        where["confidence"] = {"$in": [0.5, 1]}
                    types = ("Fact", "Hypothesis") if rng.random() < 0.5 else ("Fact",)
                    selections.append(Selection(user_id="alice", types=types,
                                                where=parse_filter(where, ONTOLOGY, types)))
                selections.append(selections[0])
                for limit in (None, 1, 3):
                    many = store.select_many(selections, limit=limit)
                    assert [ids(found) for found in many] == [ids(store.select(s, limit=limit)) for s in selections]
    finally:
        grouped.GROUP_SIZE, grouped.GROUP_FROM = old, least
