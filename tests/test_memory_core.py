"""The facade over a real SQLite store and the real default embedder: CRUD, scopes, search, bad input."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import mnemir
from mnemir.errors import ConflictError, NotFoundError, ValidationError
from mnemir.memory.core import IMPORT_BATCH
from mnemir.store.base import ANY


def seed(mem: mnemir.Memory, now: datetime) -> dict[str, str]:
    ids = {}
    ids["flight"] = mem.add("帮我订下周五去上海的机票", "Task", {"status": "pending", "deadline": "2026-12-04"},
                            user="alice", now=now).id
    ids["weather"] = mem.add("上海今天晴，25摄氏度", "Fact",
                             {"entity": "上海", "attribute": "weather", "value": "晴", "source": "external"},
                             user="alice", now=now).id
    ids["coffee"] = mem.add("I like black coffee without sugar", "Preference",
                            {"subject": "black coffee", "preference_type": "like"}, user="alice", now=now).id
    ids["bob"] = mem.add("Bob's flight to Shanghai is on Friday", "Task", {"status": "pending"}, user="bob",
                         now=now).id
    return ids


def test_add_validates_and_stamps(mem: mnemir.Memory, now: datetime) -> None:
    rec = mem.add("报销单下周五前交", "任务", {"status": "待办", "priority": "紧急"}, user="alice", session="s1",
                  speaker="user", turn=3, now=now)
    assert rec.type == "Task"
    assert rec.properties == {"status": "pending", "priority": "high"}
    assert rec.metadata.ontology_version == mem.ontology.version
    assert rec.metadata.created_at == now and rec.metadata.source.turn == 3
    assert mem.get(rec.id, user="alice") == rec


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"text": "x", "type": "Memo"}, "type"),
        ({"text": "x", "type": "Task", "properties": {"status": "someday"}}, "properties.status"),
        ({"text": "x", "type": "Fact", "properties": {"confidence": "very"}}, "properties.confidence"),
        ({"text": "", "type": "Fact"}, "content.text"),
        ({"text": "x" * 20_000, "type": "Fact"}, "content.text"),
        ({"text": "x", "type": "Fact", "user": ""}, "user"),
    ],
)
def test_bad_input_raises_and_writes_nothing(mem: mnemir.Memory, kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        mem.add(**kwargs)
    assert info.value.field == field
    assert mem.count(user=ANY) == 0


def test_scopes_never_leak(mem: mnemir.Memory, now: datetime) -> None:
    ids = seed(mem, now)
    with pytest.raises(NotFoundError):
        mem.get(ids["bob"], user="alice")
    hits = mem.search("flight to Shanghai", user="alice", k=10)
    assert ids["bob"] not in {h.id for h in hits}
    assert {h.id for h in mem.search("flight", user="bob", k=10)} == {ids["bob"]}


def test_typed_search_filters_exactly(mem: mnemir.Memory, now: datetime) -> None:
    ids = seed(mem, now)
    plain = mem.search("上海天气怎么样", user="alice", k=3)
    assert ids["flight"] in {h.id for h in plain}  # the collapse a plain search shows
    typed = mem.search("上海天气怎么样", types=["Fact"], where={"attribute": "weather"}, user="alice", k=3)
    assert [h.id for h in typed] == [ids["weather"]]
    assert any("type in" in r for r in typed[0].reasons)
    tasks = mem.search("", types=["Task"], where={"status": {"$in": ["pending", "进行中"]}}, user="alice")
    assert [h.id for h in tasks] == [ids["flight"]]


def test_bad_filter_is_an_error_not_an_empty_result(mem: mnemir.Memory, now: datetime) -> None:
    seed(mem, now)
    with pytest.raises(ValidationError):
        mem.search("x", types=["Task"], where={"colour": "red"}, user="alice")
    with pytest.raises(ValidationError):
        mem.search("x", where={"status": {"$like": "p%"}}, user="alice")
    with pytest.raises(ValidationError):
        mem.search("x", k=0, user="alice")


def test_update_records_history_and_delete(mem: mnemir.Memory, now: datetime) -> None:
    ids = seed(mem, now)
    later = now + timedelta(hours=1)
    updated = mem.update(ids["flight"], properties={"status": "进行中"}, user="alice", now=later, reason="started")
    assert updated.properties["status"] == "in_progress" and updated.metadata.updated_at == later
    history = mem.store.history(ids["flight"])
    assert [h.action.value for h in history][-1] in ("updated", "status_changed")
    assert history[-1].before == {"properties": {"status": "pending"}}
    mem.delete(ids["coffee"], user="alice", now=later)
    assert ids["coffee"] not in {h.id for h in mem.search("coffee", user="alice")}
    mem.delete(ids["coffee"], user="alice", hard=True)
    with pytest.raises(NotFoundError):
        mem.get(ids["coffee"], user="alice", include_deleted=True)


def test_export_import_round_trip_is_lossless(mem: mnemir.Memory, now: datetime, tmp_path: Path,
                                              embedder: mnemir.Embedder) -> None:
    seed(mem, now)
    mem.update(mem.list(user="alice", types=["Task"])[0].id, properties={"priority": "high"}, user="alice", now=now)
    first = io.StringIO()
    count = mem.export_jsonl(first)
    assert count == 4
    with mnemir.open(tmp_path / "other", embedder=embedder) as other:
        assert other.import_jsonl(io.StringIO(first.getvalue())) == 4
        second = io.StringIO()
        other.export_jsonl(second)
    def lines(buf: io.StringIO) -> list[dict]:
        return sorted((json.loads(x) for x in buf.getvalue().splitlines()), key=lambda d: json.dumps(d, sort_keys=True))
    assert lines(first) == lines(second)


def test_import_checks_everything_before_writing(mem: mnemir.Memory, tmp_path: Path) -> None:
    good = {"memir_version": "1.0", "id": "m1", "content": {"text": "ok"}, "type": "Fact"}
    bad = {"memir_version": "1.0", "id": "m2", "content": {"text": "bad"}, "type": "Task",
           "properties": {"status": "someday"}}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="status"):
        mem.import_jsonl(path)
    assert mem.count(user=ANY) == 0


def _import_file(tmp_path: Path, ids: list[str]) -> Path:
    path = tmp_path / "many.jsonl"
    lines = [json.dumps({"memir_version": "1.0", "id": i, "content": {"text": f"note {i}"}, "type": "Fact"})
             for i in ids]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_import_conflict_in_a_later_batch_writes_nothing(mem: mnemir.Memory, now: datetime, tmp_path: Path) -> None:
    taken = mem.add("already here", "Fact", id="taken", now=now)
    # the conflicting id sits in the second write batch: the first batch must not be written either
    ids = [f"n{i:04d}" for i in range(IMPORT_BATCH + 40)] + ["taken"]
    with pytest.raises(ConflictError) as info:
        mem.import_jsonl(_import_file(tmp_path, ids), on_conflict="error")
    assert mem.count(user=ANY) == 1
    assert "taken" in str(info.value) and info.value.context["ids"] == ["taken"]
    assert mem.get("taken").content.text == taken.content.text


def test_import_skip_keeps_what_the_store_held(mem: mnemir.Memory, now: datetime, tmp_path: Path) -> None:
    mem.add("already here", "Fact", id="taken", now=now)
    assert mem.import_jsonl(_import_file(tmp_path, ["n1", "taken", "n2"]), on_conflict="skip") == 2
    assert mem.get("taken").content.text == "already here"
    assert sorted(r.id for r in mem.list(user=ANY)) == ["n1", "n2", "taken"]


def test_a_repeat_returns_the_memory_it_was_merged_into(mem: mnemir.Memory, now: datetime) -> None:
    first = mem.add("I like black coffee", "Preference", {"subject": "black coffee", "preference_type": "like"},
                    user="alice", now=now)
    again = mem.add("I really like black coffee", "Preference",
                    {"subject": "black coffee", "preference_type": "like"}, user="alice", now=now + timedelta(days=1))
    assert again.id == first.id
    assert again.properties["strength"] > first.properties["strength"]
    assert mem.count(user="alice") == 1
