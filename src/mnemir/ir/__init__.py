"""MemIR: the typed memory record, its JSON Schema, versions and JSONL interchange."""

from mnemir.ir.history import Action, HistoryEntry
from mnemir.ir.jsonl import iter_jsonl, write_jsonl
from mnemir.ir.record import (
    MAX_TEXT_CHARS,
    MEMIR_VERSION,
    Content,
    MemIR,
    MemoryStatus,
    Metadata,
    Relationship,
    Scope,
    Source,
    ensure_aware,
    new_id,
    utcnow,
)
from mnemir.ir.schema import json_schema
from mnemir.ir.versions import SUPPORTED as SUPPORTED_VERSIONS
from mnemir.ir.versions import upgrade

__all__ = [
    "Action",
    "HistoryEntry",
    "MAX_TEXT_CHARS",
    "MEMIR_VERSION",
    "SUPPORTED_VERSIONS",
    "Content",
    "MemIR",
    "MemoryStatus",
    "Metadata",
    "Relationship",
    "Scope",
    "Source",
    "ensure_aware",
    "iter_jsonl",
    "json_schema",
    "new_id",
    "upgrade",
    "utcnow",
    "write_jsonl",
]
