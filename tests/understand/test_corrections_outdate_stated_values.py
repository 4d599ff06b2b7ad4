"""A correction that names the value it takes back outdates the facts read from the earlier utterances that state it
(docs/decisions/0069), also when nothing read from the correction replaced them (a correction read as a report of a
move, a postponement no task matched). Every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.memory import understanding

TURNS = [
    ("user", "Two, maybe three. My friend Jaroslav is singing in the spring concert on 15 May so he rehearses "
             "every evening."),
    ("assistant", "That's a lot of rehearsing. Are you going to the concert?"),
    ("user", "Definitely. And my landlord Pim said the rent is due on the 15th."),
    ("user", "Oh and Jaroslav's concert got moved, it's the 22nd of May now, not the 15th."),
]


@pytest.fixture
def read_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The correction's own reading replaces nothing (as when it is read as a report or a move)."""
    monkeypatch.setattr(understanding.UnderstandingMixin, "_correct_by_meaning",
                        lambda self, record, draft, text, ctx: False)


def _remember(mem: mnemir.Memory, now: datetime) -> None:
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.remember(text, speaker=speaker, user="ines", session="s1", turn=n,
                     now=now - timedelta(hours=1) + timedelta(minutes=n))


def _facts(mem: mnemir.Memory, turn: int) -> dict[str, str]:
    """Text -> status of the facts read from ``turn``."""
    return {r.text: str(r.status) for r in mem.list(user="ines", statuses=["active", "superseded"])
            if r.metadata.source.turn == turn and r.type == "Fact"}


@pytest.mark.usefixtures("read_otherwise")
def test_the_fact_stating_the_value_taken_back_is_superseded(mem: mnemir.Memory, now: datetime) -> None:
    _remember(mem, now)
    concert = {t: s for t, s in _facts(mem, 1).items() if "15 May" in t}
    assert concert and set(concert.values()) == {"superseded"}, _facts(mem, 1)
    new = [r for r in mem.list(user="ines") if r.metadata.source.turn == 4 and r.type == "Fact"]
    assert any(rel.relation == "supersedes" for r in new for rel in r.relationships)
    # "the 15th" of the rent shares nothing else with the correction: kept
    assert set(_facts(mem, 3).values()) == {"active"}, _facts(mem, 3)


@pytest.mark.usefixtures("read_otherwise")
def test_off_the_old_fact_stays(mem: mnemir.Memory, now: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "OUTDATE_STATED_VALUES", False)
    _remember(mem, now)
    assert "active" in {s for t, s in _facts(mem, 1).items() if "15 May" in t}
