"""MemIR v1: shape validation, JSON Schema drift, version upgrades, lossless JSONL."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemir.errors import ValidationError, VersionError
from mnemir.ir import MemIR, iter_jsonl, write_jsonl
from mnemir.ir.schema import render, schema_path

MINIMAL = {"memir_version": "1.0", "content": {"text": "上海今天晴"}, "type": "Fact"}


def test_schema_file_matches_models() -> None:
    assert schema_path().read_text(encoding="utf-8") == render(), (
        "schema/memir-1.0.schema.json drifted from the models; regenerate: python -m mnemir.ir.schema"
    )


def test_embedding_is_not_in_default_json() -> None:
    rec = MemIR.from_dict({**MINIMAL, "embedding": [0.1, 0.2]})
    assert "embedding" not in json.loads(rec.to_json())
    assert json.loads(rec.to_json(with_embedding=True))["embedding"] == [0.1, 0.2]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"content": {"text": ""}}, "content.text"),
        ({"content": {"text": "   "}}, "content.text"),
        ({"content": {"text": "x" * 16_001}}, "content.text"),
        ({"status": "gone"}, "status"),
        ({"id": "has space"}, "id"),
        ({"metadata": {"created_at": "2026-01-01T00:00:00"}}, "metadata.created_at"),
        ({"relationships": [{"target": "m1", "relation": "Bad Relation"}]}, "relationships.0.relation"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_shape_names_the_field(patch: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        MemIR.from_dict({**MINIMAL, **patch})
    assert info.value.field == field


def test_unknown_version_is_an_error_listing_supported() -> None:
    with pytest.raises(VersionError) as info:
        MemIR.from_dict({**MINIMAL, "memir_version": "7.3"})
    assert "1.0" in info.value.allowed
    with pytest.raises(VersionError):
        MemIR.from_dict({k: v for k, v in MINIMAL.items() if k != "memir_version"})


def test_seed_draft_shape_is_upgraded() -> None:
    seed = {
        "memir_version": "0.1", "id": "mem_abc123",
        "content": {"text": "用户想要预订下周五飞往上海的航班。", "summary": "预订沪周五航班"},
        "type": "Task", "properties": {"status": "pending"}, "embedding_vector": [0.12, -0.45],
        "metadata": {"created_at": "2023-10-20T10:30:00Z", "source_dialogue_turn": 42, "creator": "dlg"},
        "relationships": [{"target_mem_id": "mem_def456", "relation_type": "subtask_of"}],
    }
    rec = MemIR.from_dict(seed)
    assert rec.memir_version == "1.0"
    assert rec.embedding == [0.12, -0.45]
    assert rec.metadata.source.turn == 42 and rec.metadata.source.creator == "dlg"
    assert rec.relationships[0].target == "mem_def456" and rec.relationships[0].relation == "subtask_of"


# -- lossless JSONL round trip (property-based) ---------------------------------------------
_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=60)
_texts = _text.filter(lambda s: s.strip() != "")
_times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
_json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53),
                         st.floats(allow_nan=False, allow_infinity=False), _text)
_props = st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True),
                         st.one_of(_json_scalar, st.lists(_json_scalar, max_size=3)), max_size=5)
_ids = st.from_regex(r"[A-Za-z0-9_]{1,20}", fullmatch=True)


@st.composite
def records(draw: st.DrawFn) -> MemIR:
    created = draw(_times)
    valid_from = draw(st.one_of(st.none(), st.just(created)))
    return MemIR.from_dict({
        "memir_version": "1.0",
        "id": draw(_ids),
        "content": {"text": draw(_texts), "summary": draw(st.one_of(st.none(), _texts))},
        "type": draw(st.sampled_from(["Fact", "Task", "Preference", "Plan", "EmotionalState"])),
        "properties": draw(_props),
        "embedding": draw(st.one_of(st.none(), st.lists(st.floats(-1, 1, width=32), min_size=1, max_size=4))),
        "metadata": {
            "created_at": created.isoformat(), "updated_at": (created + timedelta(seconds=1)).isoformat(),
            "source": {"speaker": draw(st.one_of(st.none(), _texts)), "session_id": draw(st.one_of(st.none(), _ids)),
                       "turn": draw(st.one_of(st.none(), st.integers(0, 10_000))), "creator": "test"},
            "ontology_version": "1.0",
        },
        "relationships": [{"target": t, "relation": r, "properties": p} for t, r, p in draw(st.lists(
            st.tuples(_ids, st.sampled_from(["subtask_of", "supersedes", "related_to_entity"]), _props), max_size=3))],
        "scope": {"user_id": draw(st.one_of(st.none(), _ids)), "agent_id": None, "session_id": None},
        "status": draw(st.sampled_from(["active", "archived", "superseded", "disputed", "deleted"])),
        "valid_from": valid_from.isoformat() if valid_from else None,
        "valid_to": (created + timedelta(days=3)).isoformat() if draw(st.booleans()) else None,
    })


@settings(max_examples=150, deadline=None)
@given(st.lists(records(), max_size=5))
def test_jsonl_round_trip_is_lossless(recs: list[MemIR]) -> None:
    buf = io.StringIO()
    write_jsonl(recs, buf, with_embedding=True)
    buf.seek(0)
    back = list(iter_jsonl(buf))
    assert back == recs


def test_jsonl_errors_name_the_line() -> None:
    good = MemIR.from_dict(MINIMAL).to_json()
    buf = io.StringIO(good + "\n" + "{not json\n")
    with pytest.raises(ValidationError, match="line 2"):
        list(iter_jsonl(buf))
