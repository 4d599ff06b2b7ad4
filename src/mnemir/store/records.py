"""Converting records, edges, full-text inputs and vectors to and from the values every SQL backend stores.

What differs between the backends (SQLite's text timestamps and property side table, PostgreSQL's JSONB and
tsvector literals) stays in their packages; this is the part they share.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pydantic

from mnemir.embed.base import Vectors
from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.ir.record import load_stored
from mnemir.store import segment


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def load_record(data: str, *, checked: bool = False) -> MemIR:
    """A stored record (compact JSON from SQLite, JSONB text from PostgreSQL). Current records take pydantic's
    direct JSON path, without re-walking the property values the write checked (``checked=True``: with it, as
    an integrity check reads); older MemIR versions fail its ``memir_version`` literal and go through the upgrade
    path (which also turns any other problem into an error naming the field)."""
    try:
        return MemIR.model_validate_json(data) if checked else load_stored(data)
    except pydantic.ValidationError:
        return MemIR.from_json(data)


def edge_rows(record: MemIR) -> list[tuple[Any, ...]]:
    return [(record.id, pos, rel.relation, rel.target, dumps(rel.properties))
            for pos, rel in enumerate(record.relationships)]


def fts_inputs(record: MemIR) -> tuple[list[str], list[str]]:
    """What the full-text index is made from: text and summary, and the string property values."""
    main = [record.content.text] + ([record.content.summary] if record.content.summary else [])
    return main, list(_strings(record.properties.values()))


def fts_columns(record: MemIR) -> tuple[str, str, str]:
    return segment.index_columns(*fts_inputs(record))


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
    # the squared length is np.linalg.norm's own computation (so the norm is the same to the last bit); it is not
    # finite when an element is NaN or infinite (or the sum overflows: the element test below tells them apart), so
    # the element-by-element test runs only then (a third of this function's time on every write and search)
    square = arr.dot(arr)
    if not np.isfinite(square) and not np.all(np.isfinite(arr)):
        raise ValidationError("a vector must hold finite numbers", field=field, value="NaN or inf")
    norm = float(np.sqrt(square))
    if norm == 0.0:
        raise ValidationError("a vector must not be all zeros", field=field, value="zero vector")
    if abs(norm - 1.0) > 1e-6:  # a vector of unit length already is kept bit for bit (an export comes back exact)
        arr = arr / norm
    return (arr if arr.dtype.str == "<f4" else arr.astype("<f4")).tobytes(), int(arr.size)


def blob_vector(blob: bytes) -> Vectors:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)
