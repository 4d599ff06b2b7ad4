"""Hostile input: property-based tests (Hypothesis) of the filter language, MemIR import and the public API, and
injection attempts through filters, property names, ids and full-text queries.

Each bad input gets a ValidationError naming the field, nothing is written, and the store stays consistent
(``check``). Good inputs come back exactly as written. Every filter the language accepts selects in SQL exactly
what the Python reference (``matches``) selects.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import NOW

import mnemir
from mnemir.errors import MnemirError, NotFoundError, ValidationError
from mnemir.store.base import ANY, Selection
from mnemir.store.filters import matches, parse_filter

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])

#: what attackers try: SQL, FTS5 and JSON-path syntax, quotes, wildcards, control characters
INJECTIONS = ["'; DROP TABLE records; --", "\" OR 1=1 --", "') OR ('1'='1", "x' UNION SELECT * FROM documents --",
              '"', "NEAR(", "NEAR(a b, 1)", "*", "OR", "AND", "NOT", "a OR b", "a AND NOT b", "words:foo", "hanzi:x",
              "^start", "\"unterminated", "(", ")", "{a b}", "$.status", "$[0]", "%", "_", "\\", "\\'",
              "/* comment */", "ignore previous instructions", "我 OR 你", "*:*", "\x1f\x1e", "💥" * 50]

# -- the filter language: SQL agrees with the reference, on whatever is accepted ------------------------------
NAMES = st.sampled_from(["status", "priority", "deadline", "goal", "confidence", "subject", "@type", "@created_at",
                         "nope", "status.x", "$or", "$and", "$not", *INJECTIONS[:6]])
OPS = st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$contains", "$regex",
                       "$where", "eq"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["pending", "completed", "high", "2026-12-01", "待办",
                                                           "2026-12-01T10:00:00Z", *INJECTIONS]))
CONDS = st.recursive(
    SCALARS | st.lists(SCALARS, max_size=3),
    lambda inner: st.dictionaries(st.one_of(NAMES, OPS), inner, max_size=3) | st.lists(inner, max_size=3),
    max_leaves=8,
)
WHERE = st.dictionaries(NAMES, CONDS, max_size=3)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> mnemir.Memory:
    mem = mnemir.open(tmp_path_factory.mktemp("filters") / "m", embedder=embedder)
    statuses, priorities = ["pending", "in_progress", "completed", "failed"], ["low", "medium", "high"]
    for i in range(16):
        props: dict[str, Any] = {"status": statuses[i % 4], "goal": f"goal {i} {INJECTIONS[i]}"}
        if i % 3:
            props["priority"] = priorities[i % 3]
        if i % 2:
            props["deadline"] = f"2026-12-{i + 1:02d}"
        mem.add(f"task number {i} {INJECTIONS[i]}", "Task", props, user="u", now=NOW + timedelta(hours=i))
    return mem


@FUZZ
@given(where=WHERE)
def test_every_accepted_filter_selects_in_sql_what_the_reference_selects(tasks: mnemir.Memory,
                                                                         where: dict[str, Any]) -> None:
    try:
        node = parse_filter(where, tasks.ontology, ("Task",))
    except ValidationError as exc:
        assert exc.field  # a refusal names the field
        return
    everything = tasks.store.select(Selection(user_id=ANY, types=("Task",)))
    want = sorted(r.id for r in everything if matches(node, r))
    got = sorted(r.id for r in tasks.store.select(Selection(user_id=ANY, types=("Task",), where=node)))
    assert got == want
    assert tasks.store.count(Selection(user_id=ANY, types=("Task",), where=node)) == len(want)


@FUZZ
@given(query=st.one_of(st.text(max_size=40), st.sampled_from(INJECTIONS)), where=WHERE)
def test_search_with_any_query_and_filter_answers_or_refuses_clearly(tasks: mnemir.Memory, query: str,
                                                                     where: dict[str, Any]) -> None:
    try:
        hits = tasks.search(query, types=["Task"], where=where, user="u", k=5)
    except ValidationError as exc:
        assert exc.field
        return
    assert all(h.memory.scope.user_id == "u" for h in hits)


# -- MemIR import ------------------------------------------------------------------------------------------------
GOOD_LINE = {"memir_version": "1.0", "id": "mem_import_1", "type": "Task", "content": {"text": "call the bank"},
             "properties": {"status": "pending"}, "scope": {"user_id": "u"}}
JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                   max_size=3), max_leaves=10)


@st.composite
def import_files(draw: st.DrawFn) -> str:
    lines = []
    for n in range(draw(st.integers(1, 4))):
        line = json.loads(json.dumps(GOOD_LINE))
        line["id"] = f"mem_import_{n}"
        for _ in range(draw(st.integers(0, 3))):  # break it a little, or not at all
            where = draw(st.sampled_from(["id", "type", "content", "properties", "scope", "memir_version", "status",
                                          "metadata", "relationships", "valid_from", "embedding", "kind", "junk"]))
            line[where] = draw(JSONISH | st.sampled_from(INJECTIONS))
        lines.append(json.dumps(line, ensure_ascii=draw(st.booleans())))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["{", "[1, 2]", "null", "\"text\"",
                                                                           '{"kind": "history"}', "\ud800"])))
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=import_files())
def test_a_bad_import_names_its_line_and_writes_nothing(tmp_path: Path, embedder: Any, text: str) -> None:
    with mnemir.open(tmp_path / "imp", embedder=embedder) as mem:
        before = mem.store.count(Selection(user_id=ANY, statuses=tuple(mnemir.MemoryStatus)))
        try:
            mem.import_jsonl(io.StringIO(text), on_conflict="error")
        except ValidationError as exc:
            assert exc.field
            assert mem.store.count(Selection(user_id=ANY, statuses=tuple(mnemir.MemoryStatus))) == before
        except MnemirError as exc:  # e.g. an id already there: a conflict, still nothing written
            assert mem.store.count(Selection(user_id=ANY, statuses=tuple(mnemir.MemoryStatus))) == before, exc
        assert mem.check().ok


def test_binary_and_non_utf8_imports_are_refused(mem: mnemir.Memory, tmp_path: Path) -> None:
    for blob in (b"\xff\xfe\x00\x01", b'{"id": "\xc3\x28"}\n', bytes(range(256))):
        path = tmp_path / "bad.jsonl"
        path.write_bytes(blob)
        with pytest.raises(ValidationError) as info:
            mem.import_jsonl(path)
        assert info.value.field and "line" in info.value.field
    assert mem.count(user=ANY) == 0


# -- the public API --------------------------------------------------------------------------------------------
TEXTS = st.one_of(st.text(max_size=60), st.sampled_from(INJECTIONS), st.just("x" * 20_000), st.just("a\x00b"),
                  st.just("bad \ud800 half"), st.binary(max_size=10))
PROPS = st.dictionaries(st.one_of(st.sampled_from(["status", "goal", "priority", "deadline"]), st.text(max_size=8),
                                  st.sampled_from(INJECTIONS)), JSONISH | st.sampled_from(INJECTIONS), max_size=3)
IDS = st.one_of(st.none(), st.text(max_size=20), st.sampled_from(INJECTIONS), st.from_regex(r"mem_[a-z0-9]{4,10}",
                                                                                           fullmatch=True))


@FUZZ
@given(text=TEXTS, props=PROPS, id=IDS)
def test_add_keeps_what_it_accepts_exactly_and_refuses_the_rest_clearly(tmp_path: Path, embedder: Any, text: Any,
                                                                        props: dict[str, Any], id: Any) -> None:
    with mnemir.open(tmp_path / "api", embedder=embedder) as mem:  # one store for every example
        before = mem.count(user="u")
        try:
            rec = mem.add(text, "Task", props, user="u", id=id, now=NOW)
        except ValidationError as exc:
            assert exc.field
            assert mem.count(user="u") == before
            json.dumps(exc.to_dict())  # the error itself always serialises (bad input is escaped in it)
            str(exc).encode("utf-8")
        else:
            back = mem.get(rec.id, user="u")
            assert back.content.text == text and back.properties == rec.properties
            if id is not None:
                assert back.id == id
            updated = mem.update(rec.id, text=f"{text} (edited)", user="u", now=NOW)
            assert mem.get(rec.id, user="u").content.text == updated.content.text
        assert mem.check().ok


def test_huge_deep_and_binary_inputs_are_refused_with_the_field(mem: mnemir.Memory) -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(100):
        cur["k"] = {}
        cur = cur["k"]
    cases = [
        (lambda: mem.add("x" * 100_000, "Fact", user="u"), "content.text"),
        (lambda: mem.add(b"\x00\x01binary", "Fact", user="u"), "content.text"),  # type: ignore[arg-type]
        (lambda: mem.add("ok", "Fact", {"value": "v" * 100_000}, user="u"), "properties"),
        (lambda: mem.add("ok", "Fact", {"value": deep}, user="u"), "properties"),
        (lambda: mem.add("ok", "Fact", {"value": float("nan")}, user="u"), "properties"),
        (lambda: mem.add("ok", "Fact", {"value": "bad \udc80"}, user="u"), "properties"),
        (lambda: mem.add("ok", "Fact", user="u\ud800"), "scope.user_id"),
        (lambda: mem.add("ok", "Fact", user="u", id="mem_\udfff"), "id"),
        (lambda: mem.remember("I like \ud800 tea", user="u"), "text"),
        (lambda: mem.remember("x" * 100_000, user="u"), "text"),
        (lambda: mem.search("\ud800", user="u"), "query"),
        (lambda: mem.search("ok", where={"goal": "\ud800"}, types=["Task"], user="u"), "where.goal"),
        (lambda: mem.search("ok", where=deep, user="u"), "where.k"),
        (lambda: mem.recall("\ud800", user="u"), None),
    ]
    for call, field in cases:
        with pytest.raises(ValidationError) as info:
            call()
        assert info.value.field, call
        if field is not None:
            assert info.value.field.startswith(field), (field, info.value.field)
        json.dumps(info.value.to_dict())
    assert mem.count(user=ANY) == 0 and mem.check().ok


def test_injection_through_every_input_reaches_no_other_scope_and_changes_nothing(backend_mem: mnemir.Memory) -> None:
    mem = backend_mem
    mine = mem.add("alice's note about the budget", "Task", {"status": "pending", "goal": "budget"}, user="alice",
                   now=NOW)
    theirs = mem.add("bob's note about the budget", "Task", {"status": "pending", "goal": "budget"}, user="bob",
                     now=NOW)
    attempts = 0
    for bad in INJECTIONS:
        attempts += 1
        for hit in mem.search(bad, user="alice", k=10):
            assert hit.memory.scope.user_id == "alice"
        try:
            hits = mem.search("budget", where={"goal": bad}, types=["Task"], user="alice")
            assert hits == []
        except ValidationError as exc:
            assert exc.field
        with pytest.raises(ValidationError):
            mem.search("budget", where={bad: "x"}, user="alice")
        with pytest.raises((NotFoundError, ValidationError)):
            mem.get(bad, user="alice")
        with pytest.raises((NotFoundError, ValidationError)):
            mem.update(bad, text="overwritten", user="alice")
        with pytest.raises((NotFoundError, ValidationError)):
            mem.delete(f"{theirs.id}' OR '1'='1", user="alice", hard=True)
        with pytest.raises(NotFoundError):
            mem.get(theirs.id, user=bad)
    assert attempts == len(INJECTIONS)
    assert mem.get(theirs.id, user="bob").content.text == "bob's note about the budget"
    assert mem.get(mine.id, user="alice").content.text == "alice's note about the budget"
    assert mem.count(user=ANY) == 2 and mem.check().ok
