"""Argument checks of the store contract, shared by every backend: each bad argument is a ValidationError naming
the field, the bad value and what is allowed, before anything is read or written."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.errors import ModelMismatchError, ValidationError
from mnemir.ir import HistoryEntry, MemIR
from mnemir.ir.record import check_unicode
from mnemir.ontology import Ontology
from mnemir.store.base import Keyset, Write

#: ``edges(direction=...)``
DIRECTIONS = ("out", "in", "both")


def check_ontology(ontology: Any) -> Ontology:
    if not isinstance(ontology, Ontology):
        raise ValidationError("ontology must be an Ontology", field="ontology", value=ontology)
    return ontology


def check_seconds(**values: Any) -> None:
    """Durations given to a store (timeouts, retry deadlines): numbers of seconds >= 0."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise ValidationError(f"{name} must be a number of seconds >= 0", field=name, value=value)


def check_write(write: Any, i: int) -> Write:
    """The shape of ``writes[i]`` (its vector is checked where it is converted: :func:`records.vector_blob`)."""
    if not isinstance(write, Write) or not isinstance(write.record, MemIR):
        raise ValidationError("expected a Write holding a MemIR record", field=f"writes[{i}]", value=write)
    if not all(isinstance(h, HistoryEntry) for h in write.history):
        raise ValidationError("history entries must be HistoryEntry objects", field=f"writes[{i}].history",
                              value=write.history)
    return write


def check_model_id(model_id: Any) -> str:
    if not isinstance(model_id, str) or not model_id:
        raise ValidationError("model_id must name the embedding model", field="model_id", value=model_id)
    return model_id


def check_count(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValidationError(f"{field} must be a whole number >= 0", field=field, value=value)
    return int(value)


def check_paging(limit: Any, offset: Any) -> None:
    """``select(limit=..., offset=...)``: whole numbers >= 0 (``limit=None``: no limit)."""
    if limit is not None:
        check_count(limit, "limit")
    check_count(offset, "offset")


def check_keyset(after: Any, order_by: Sequence[tuple[str, bool]]) -> Keyset | None:
    """``select(_after=...)``: a (created_at, id) pair, and only with the order it is a position in."""
    if after is None:
        return None
    if not (isinstance(after, tuple) and len(after) == 2 and isinstance(after[0], datetime)
            and after[0].tzinfo is not None and isinstance(after[1], str)):
        raise ValidationError("_after must be a (created_at, id) pair", field="_after", value=after,
                              allowed="(timezone-aware datetime, memory id)")
    if [tuple(item) for item in order_by] != [("@created_at", True)]:
        raise ValidationError("_after needs order_by=[('@created_at', True)]", field="order_by", value=order_by,
                              allowed=[("@created_at", True)])
    return after


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise ValidationError("meta keys are non-empty strings", field="key", value=key)
    return key


def check_meta_value(value: Any) -> str:
    return _string(value, "value", "meta values are strings")


def check_text_query(query: Any) -> str:
    return check_unicode(_string(query, "query", "a text query must be a string"), "query")


def _string(value: Any, field: str, message: str) -> str:
    if not isinstance(value, str):
        raise ValidationError(message, field=field, value=value)
    return value


def check_direction(direction: Any) -> str:
    if direction not in DIRECTIONS:
        raise ValidationError("unknown edge direction", field="direction", value=direction, allowed=list(DIRECTIONS))
    return str(direction)


def edge_arguments(ids: Any, relations: Any, direction: Any) -> tuple[list[str], list[str] | None]:
    """``edges(ids, relations=..., direction=...)``: the ids and relations as lists (``relations=None``: any)."""
    check_direction(direction)
    return id_list(ids, "ids"), None if relations is None else id_list(relations, "relations")


def at_most(value: Any) -> int | None:
    """``edge_counts(..., at_most=N)``: where counting may stop (None: count everything)."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValidationError("at_most must be a non-negative integer or None", field="at_most", value=value,
                              allowed="int >= 0 or None")
    return value


def id_list(ids: Any, field: str) -> list[str]:
    if isinstance(ids, (str, bytes)) or not all(isinstance(i, str) for i in ids):
        raise ValidationError(f"{field} must be a list of strings", field=field, value=ids)
    return list(ids)


def order_items(order_by: Any, record_fields: Collection[str], ontology: Ontology,
                types: Sequence[str] | None) -> list[tuple[str, bool]]:
    """``select(order_by=...)`` as checked (field, ascending) pairs: record fields (``@...``) from
    ``record_fields``, properties known to the ontology (for ``types``)."""
    if isinstance(order_by, (str, bytes)):
        raise ValidationError("order_by must be a list of (field, ascending) pairs", field="order_by",
                              value=order_by)
    items = []
    for i, item in enumerate(order_by):
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], bool)):
            raise ValidationError("order_by items are (field, ascending) pairs", field=f"order_by[{i}]",
                                  value=item, allowed="e.g. ('@created_at', False) or ('deadline', True)")
        name, ascending = item
        if name.startswith("@"):
            if name not in record_fields:
                raise ValidationError(f"cannot order by {name!r}", field=f"order_by[{i}]", value=name,
                                      allowed=sorted(record_fields))
        else:
            ontology.property_spec(name, types)  # unknown property -> ValidationError naming it
        items.append((name, ascending))
    return items


def check_vector_model(stored: dict[str, str], model_id: str, dims: Collection[int]) -> bool:
    """The first vectors fix the store's model and dimension; later ones must match them. ``stored``: the
    store's ``embedding_model`` and ``embedding_dim`` meta values (absent before the first vectors). Returns
    whether these are the first vectors (the caller records the model and the dimension)."""
    model = stored.get("embedding_model")
    if model is not None and model != model_id:
        raise ModelMismatchError(f"this store holds vectors of model {model!r}, not {model_id!r}; re-embed the "
                                 "store to change models", stored_model=model, model_id=model_id)
    want = int(stored["embedding_dim"]) if "embedding_dim" in stored else None
    if len(set(dims)) > 1 or (want is not None and set(dims) != {want}):
        raise ValidationError("vectors of one model must all have the same dimension", field="vector",
                              value=sorted(set(dims)), allowed=want if want is not None else "one dimension")
    return model is None


def check_query_dim(dim: int, model: str | None, stored_dim: int) -> None:
    if dim != stored_dim:
        raise ValidationError(f"the query vector has {dim} dimensions; this store's model {model!r} makes "
                              f"{stored_dim}", field="query", value=f"dim {dim}", allowed=f"dim {stored_dim}")
