"""Helpers for the recall tests: memories written with explicit ages relative to the fixed clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import mnemir
from mnemir.understand import RetrievalIntent


def add(mem: mnemir.Memory, now: datetime, text: str, type: str, props: dict[str, Any] | None = None, *,
        days: float = 0.0, hours: float = 0.0, user: str = "alice", **kwargs: Any) -> mnemir.MemIR:
    """Add a memory stated ``days``/``hours`` before ``now``."""
    when = now - timedelta(days=days, hours=hours)
    return mem.add(text, type, props or {}, user=user, now=when, speaker=kwargs.pop("speaker", "user"), **kwargs)


def intent(query: str, kind: str, types: tuple[str, ...], **fields: Any) -> RetrievalIntent:
    """A hand-made intent (pins recall's ranking independently of the intent model)."""
    return RetrievalIntent(query=query, types=types, kind=kind, **fields)
