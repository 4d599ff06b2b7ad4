"""Argument checks of the store contract, with errors naming the field (the same rules as the SQLite backend)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemir.errors import ValidationError
from mnemir.ir import HistoryEntry, MemIR
from mnemir.store.base import Write


def check_write(write: Any, i: int) -> Write:
    if not isinstance(write, Write) or not isinstance(write.record, MemIR):
        raise ValidationError("expected a Write holding a MemIR record", field=f"writes[{i}]", value=write)
    if not all(isinstance(h, HistoryEntry) for h in write.history):
        raise ValidationError("history entries must be HistoryEntry objects", field=f"writes[{i}].history",
                              value=write.history)
    return write


def check_count(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValidationError(f"{field} must be a whole number >= 0", field=field, value=value)
    return int(value)


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise ValidationError("meta keys are non-empty strings", field="key", value=key)
    return key


def id_list(ids: Any, field: str) -> list[str]:
    if isinstance(ids, (str, bytes)) or not all(isinstance(i, str) for i in ids):
        raise ValidationError(f"{field} must be a list of strings", field=field, value=ids)
    return list(ids)
