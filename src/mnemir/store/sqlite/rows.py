"""Converting records, properties, edges and vectors to and from SQLite rows."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from mnemir.embed.base import Vectors
from mnemir.errors import ValidationError
from mnemir.ir import MEMIR_VERSION, HistoryEntry, MemIR
from mnemir.store.sqlite import text

#: props.item: a scalar value, one item of a list, or a value that is present but compares with nothing
#: (an empty list, an object, a nested list or a null inside a list)
SCALAR, ITEM, OPAQUE = 0, 1, 2


def iso(value: datetime) -> str:
    """Fixed-width UTC text with microseconds: sorts chronologically as text."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def iso_or_none(value: datetime | None) -> str | None:
    return iso(value) if value is not None else None


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class PreparedWrite:
    """One write, turned into rows before the transaction starts (so the write lock is held briefly)."""

    record: MemIR
    #: None: only the history is written (the record is deleted in the same call)
    row: dict[str, Any] | None
    #: the FTS columns; None until segmented (skipped when the stored record has the same ``fts_key``)
    fts: tuple[str, str, str] | None
    #: a digest of the text the FTS columns are made from
    fts_key: str
    edges: list[tuple[Any, ...]]
    history: list[tuple[str, str, str, str]]
    vector: bytes | None
    dim: int | None


def prepare_write(record: MemIR, vector: tuple[bytes, int] | None, history: Sequence[HistoryEntry], *,
                  skip_record: bool = False) -> PreparedWrite:
    """``vector``: the checked vector from :func:`vector_blob`."""
    blob, dim = vector if vector is not None else (None, None)
    entries = [(h.id, h.memory_id, iso(h.at), h.model_dump_json()) for h in history]
    if skip_record:
        return PreparedWrite(record, None, None, "", [], entries, None, None)
    return PreparedWrite(record, record_row(record), None, fts_key(record), edge_rows(record), entries, blob, dim)


def record_row(record: MemIR) -> dict[str, Any]:
    """The ``records`` row of a record (plus ``record``, the JSON that goes to ``documents``)."""
    scope, meta, source = record.scope, record.metadata, record.metadata.source
    return {
        "id": record.id, "type": record.type, "status": str(record.status),
        "user_id": scope.user_id, "agent_id": scope.agent_id, "session_id": scope.session_id,
        "created_at": iso(meta.created_at), "updated_at": iso(meta.updated_at),
        "valid_from": iso_or_none(record.valid_from), "valid_to": iso_or_none(record.valid_to),
        "speaker": source.speaker, "source_session_id": source.session_id, "creator": source.creator,
        "props": dumps(record.properties), "record": record.to_json(),
    }


def load_record(data: str) -> MemIR:
    """A stored record; older MemIR versions go through the upgrade path."""
    if f'"memir_version":"{MEMIR_VERSION}"' in data[:40]:
        return MemIR.model_validate_json(data)
    return MemIR.from_json(data)


def property_rows(rid: int, properties: dict[str, Any], keys: Iterable[str]) -> list[tuple[Any, ...]]:
    """Side-table rows for the indexed (core) properties of one record."""
    rows: list[tuple[Any, ...]] = []
    for key in keys:
        value = properties.get(key)
        if value is None:
            continue
        if isinstance(value, list):
            rows.extend(_value_row(rid, key, v, ITEM) for v in value)
            if not value:
                rows.append((rid, key, OPAQUE, None, None))
        else:
            rows.append(_value_row(rid, key, value, SCALAR))
    return rows


def _value_row(rid: int, key: str, value: Any, item: int) -> tuple[Any, ...]:
    if isinstance(value, bool):
        return (rid, key, item, None, int(value))  # True == 1 in Python and in SQL alike
    if isinstance(value, (int, float)):
        return (rid, key, item, None, value)
    if isinstance(value, str):
        return (rid, key, item, value, None)
    return (rid, key, OPAQUE, None, None)


def edge_rows(record: MemIR) -> list[tuple[Any, ...]]:
    return [(record.id, pos, rel.relation, rel.target, dumps(rel.properties))
            for pos, rel in enumerate(record.relationships)]


def fts_inputs(record: MemIR) -> tuple[list[str], list[str]]:
    """What the full-text index is made from: text and summary, and the string property values."""
    main = [record.content.text] + ([record.content.summary] if record.content.summary else [])
    return main, list(_strings(record.properties.values()))


def fts_columns(record: MemIR) -> tuple[str, str, str]:
    return text.index_columns(*fts_inputs(record))


def fts_key(record: MemIR) -> str:
    """A digest of :func:`fts_inputs`: a replace whose digest is unchanged (a status change, a new time) does
    not segment the text again."""
    main, extra = fts_inputs(record)
    blob = "\x1f".join(main) + "\x1e" + "\x1f".join(extra)
    return hashlib.blake2b(blob.encode("utf-8"), digest_size=16).hexdigest()


def _strings(values: Iterable[Any]) -> Iterator[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


def vector_blob(vector: Vectors, field: str) -> tuple[bytes, int]:
    """A checked, L2-normalised float32 vector as bytes, and its dimension."""
    arr = np.asarray(vector, dtype=np.float32)
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1 or arr.size == 0:
        raise ValidationError("a vector must be one row of floats", field=field, value=f"shape {arr.shape}",
                              allowed="shape (dim,) or (1, dim)")
    if not np.all(np.isfinite(arr)):
        raise ValidationError("a vector must hold finite numbers", field=field, value="NaN or inf")
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        raise ValidationError("a vector must not be all zeros", field=field, value="zero vector")
    return (arr / norm).astype("<f4").tobytes(), int(arr.size)


def blob_vector(blob: bytes) -> Vectors:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)
