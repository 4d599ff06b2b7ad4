"""Shared by the dialogue-state tests: a scripted conversation told turn by turn, and the turns recall shows."""

from __future__ import annotations

from datetime import datetime, timedelta

import mnemir


def say(mem: mnemir.Memory, turns: list[tuple[str, str]], *, user: str, start: datetime) -> None:
    """Each (speaker, text) through ``remember``, one minute apart from ``start``, turns numbered from 1."""
    for n, (speaker, text) in enumerate(turns, start=1):
        mem.remember(text, speaker=speaker, user=user, session="s1", turn=n, now=start + timedelta(minutes=n))


def shown_turns(hits: list[mnemir.RecallHit]) -> list[set[int]]:
    """For each hit, the turns it was read from (its own and those merged into it)."""
    return [{s.turn for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources) if s.turn}
            for h in hits]
