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


def utterance(mem: mnemir.Memory, now: datetime, text: str, days: float,
              *readings: tuple[str, str, dict[str, Any]]) -> str:
    """An utterance kept verbatim (its episode) and the typed memories read from it; returns the episode's id."""
    episode = add(mem, now, text, "Episode", {"speaker": "user"}, days=days)
    for reading, type_, props in readings:
        add(mem, now, reading, type_, props, days=days, relationships=[{"target": episode.id,
                                                                         "relation": "derived_from"}])
    return episode.id


def intent(query: str, kind: str, types: tuple[str, ...], **fields: Any) -> RetrievalIntent:
    """A hand-made intent (pins recall's ranking independently of the intent model)."""
    return RetrievalIntent(query=query, types=types, kind=kind, **fields)
