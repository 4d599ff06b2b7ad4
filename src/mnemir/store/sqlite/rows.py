"""Converting records and properties to SQLite rows (the backend-neutral part: :mod:`mnemir.store.records`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mnemir.ir import HistoryEntry, MemIR
from mnemir.store.records import dumps, edge_rows, fts_key

#: props.item: a scalar value, one item of a list, or a value that is present but compares with nothing
#: (an empty list, an object, a nested list or a null inside a list)
SCALAR, ITEM, OPAQUE = 0, 1, 2


def iso(value: datetime) -> str:
    """Fixed-width UTC text with microseconds: sorts chronologically as text."""
    value = value.astimezone(UTC)  # the year by hand: strftime's %Y is not zero-padded below 1000 on glibc
    return f"{value.year:04d}-{value:%m-%dT%H:%M:%S.%f}Z"


def iso_or_none(value: datetime | None) -> str | None:
    return iso(value) if value is not None else None


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


