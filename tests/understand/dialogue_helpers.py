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


def two_tasks_then(mem: mnemir.Memory, tasks: tuple[str, str], later: str, *, user: str,
                   start: datetime) -> mnemir.Remembered:
    """Two open tasks told in a first session (each acknowledged), then ``later`` in a second session three days
    on; returns what ``later`` was remembered as."""
    first, second = tasks
    turns = [("s1", "user", first), ("s1", "assistant", "Noted."), ("s1", "user", second),
             ("s1", "assistant", "Two things, got it."), ("s2", "user", later)]
    out = None
    for n, (session, speaker, text) in enumerate(turns, start=1):
        out = mem.remember(text, speaker=speaker, user=user, session=session, turn=n,
                           now=start + timedelta(days=3 if session == "s2" else 0, minutes=n))
    assert out is not None
    return out
