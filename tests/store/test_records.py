"""Reading stored records back (mnemir.store.records.load_record), whatever JSON text the backend returns."""

from __future__ import annotations

import json

import pydantic
import pytest
from store_cases import record

from mnemir.errors import ValidationError
from mnemir.ir import MEMIR_VERSION, MemIR
from mnemir.store.records import load_record

REC = record("订下周五去上海的机票", "Task", {"goal": "订机票", "status": "pending"}, session="s1",
             relationships=[{"target": "mem_x", "relation": "subtask_of"}])


def jsonb_text(rec: MemIR) -> str:
    """Like PostgreSQL's JSONB text: spaces after separators, keys shortest first (memir_version is not first)."""
    data = rec.to_dict()
    return json.dumps({k: data[k] for k in sorted(data, key=lambda k: (len(k), k))}, ensure_ascii=False)


@pytest.mark.parametrize("text", [REC.to_json(), jsonb_text(REC)], ids=["compact", "jsonb"])
def test_current_records_load_from_either_text_form(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_record(text) == REC
    assert f'"memir_version": "{MEMIR_VERSION}"' not in jsonb_text(REC)[:40]  # the form the old fast-path test never saw

    def no_fallback(*args: object, **kwargs: object) -> MemIR:
        raise AssertionError("a current record went through the upgrade path")

    # the direct path alone reads it: with the fallback gone, loading still works
    monkeypatch.setattr(MemIR, "from_json", no_fallback)
    assert load_record(text) == REC


def test_an_older_version_is_upgraded() -> None:
    seed = {"memir_version": "0.1", "id": "mem_abc123", "content": "用户想要预订下周五飞往上海的航班。",
            "type": "Task", "metadata": {"created_at": "2023-10-20T10:30:00Z", "source_dialogue_turn": 42},
            "relationships": [{"target_mem_id": "mem_def456", "relation_type": "subtask_of"}]}
    with pytest.raises(pydantic.ValidationError):  # the direct path refuses it, so the upgrade path reads it
        MemIR.model_validate_json(json.dumps(seed, ensure_ascii=False))
    rec = load_record(json.dumps(seed, ensure_ascii=False))
    assert rec.memir_version == MEMIR_VERSION and rec.content.text == "用户想要预订下周五飞往上海的航班。"
    assert rec.metadata.source.turn == 42 and rec.relationships[0].target == "mem_def456"


def test_a_broken_record_is_an_error_naming_the_field() -> None:
    data = {**REC.to_dict(), "status": "gone"}
    with pytest.raises(ValidationError) as info:
        load_record(json.dumps(data))
    assert info.value.field == "status"


def _tampered(value: str) -> str:
    """REC's stored text with one property value replaced by ``value`` (as a hand edit of the file could)."""
    data = REC.to_dict()
    data["properties"] = {**data["properties"], "goal": value}
    return json.dumps(data, ensure_ascii=False)


def test_a_store_read_does_not_walk_the_values_again_but_every_other_way_in_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What a store wrote passed check_json_value on the way in; reading it back (fetch, select, search) skips the
    walk (decision 0047). Every other way in (the API, from_json, assignment, the integrity check) still walks."""
    import mnemir.ir.record as record_module

    walked: list[str] = []
    real = record_module.check_json_value

    def counting(value: object, path: str, depth: int = 0) -> None:
        walked.append(path)
        real(value, path, depth)

    monkeypatch.setattr(record_module, "check_json_value", counting)
    text = REC.to_json()
    assert load_record(text) == REC and walked == []
    assert load_record(text, checked=True) == REC and walked
    walked.clear()
    assert MemIR.model_validate_json(text) == REC and walked
    walked.clear()
    copy = load_record(text)
    copy.properties = {"goal": "x"}  # assignment is validated as usual
    assert walked[0] == "properties"


def test_the_checked_read_refuses_a_value_no_store_could_hold() -> None:
    bad = _tampered("a\u0000b")  # a NUL character: check_json_value refuses it on every write
    with pytest.raises(ValidationError) as info:
        load_record(bad, checked=True)
    assert info.value.field == "properties"
    assert "NUL" in info.value.message
    assert load_record(bad).properties["goal"] == "a\u0000b"  # the store read gives back what is there
