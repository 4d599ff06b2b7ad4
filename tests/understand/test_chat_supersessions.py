"""In a chat between people, what one speaker says of themselves is not replaced by what another says of
themselves, and a change word tells of the statement it is said in (docs/decisions/0087). Sentences invented for these tests; real SQLite memory, real
default embedder."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

import mnemir
from mnemir.ir import MemIR, MemoryStatus
from mnemir.lifecycle.terms import said_by_another
from mnemir.memory import understanding
from mnemir.memory.understanding import _UPDATED, Remembered, _marked_in_statement

START = datetime.fromisoformat("2026-05-03T18:00:00+00:00")
OPENING = [
    ("Wenna", "Evening! How did the move go?"),
    ("Corin", "Slowly. Boxes everywhere, the cat is sulking."),
    ("Wenna", "Poor thing. Mine hides under the bed for days."),
    ("Corin", "Ha, exactly what she is doing."),
]


def _chat(mem: mnemir.Memory, turns: list[tuple[str, str]], offset: int = 0) -> list[Remembered]:
    return [mem.remember(f"{name}: {words}", user="pair", now=START + timedelta(days=offset + i))
            for i, (name, words) in enumerate(turns)]


def test_another_speakers_news_does_not_replace_a_speakers_own(tmp_path: Path, embedder: object) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)  # type: ignore[arg-type]
    try:
        _chat(mem, OPENING)
        first = _chat(mem, [("Wenna", "I signed up for the pottery course at the community hall, Tuesday evenings."),
                            ("Corin", "Nice. I've changed my gym sessions, they are now Tuesday evenings at the hall.")],
                      offset=len(OPENING))
        wenna = [r for r in first[0].created if r.type != "Episode"]
        assert wenna
        corin = first[1]
        # Corin's change is about Corin: Wenna's course is not what it replaced
        assert not any(r.id in {w.id for w in wenna} and r.status is MemoryStatus.superseded for r in corin.updated)
        for record in wenna:
            assert mem.get(record.id, user="pair").status is MemoryStatus.active
        # every memory read from a labelled turn says who said it
        assert all(r.metadata.extra.get("said_by") == "Wenna" for r in [first[0].episode, *wenna] if r is not None)
    finally:
        mem.close()


def test_who_said_it_is_compared_only_inside_a_transcript_and_a_named_speaker_is_compared() -> None:
    old = MemIR.from_dict({"memir_version": "1.0", "type": "Fact", "content": {"text": "I swim on Mondays"},
                           "metadata": {"extra": {"said_by": "Wenna"}}})
    assert said_by_another("Corin", "I swim on Fridays now", True, old)
    assert not said_by_another("Corin", "I swim on Fridays now", False, old)  # no transcript recognised
    assert not said_by_another("Wenna", "I swim on Fridays now", True, old)  # the same speaker
    assert not said_by_another("Corin", "Wenna swims on Fridays now", True, old)  # names the other speaker
    assert not said_by_another("Corin", "I swim on Fridays now", True,
                               MemIR.from_dict({"memir_version": "1.0", "type": "Fact",
                                                "content": {"text": "the pool opens at nine"}}))


def test_a_change_word_tells_of_its_own_statement_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``CHANGE_WORD_IN_STATEMENT`` (off by default: continuity dev fell with it, docs/decisions/0087)."""
    assert not understanding.CHANGE_WORD_IN_STATEMENT
    assert _marked_in_statement(_UPDATED, "My classmate is a nurse.", "My classmate is a nurse. I no longer drive.")
    monkeypatch.setattr(understanding, "CHANGE_WORD_IN_STATEMENT", True)
    turn = "The two students from my class are both nurses. Anyway, I no longer take the early bus."
    assert not _marked_in_statement(_UPDATED, "The two students from my class are both nurses.", turn)
    assert _marked_in_statement(_UPDATED, "I no longer take the early bus.", turn)
    # a change word said before a statement tells of it
    assert _marked_in_statement(_UPDATED, "The quiz is on Thursdays.", "It changed now. The quiz is on Thursdays.")
    assert _marked_in_statement(_UPDATED, "the quiz is now on Thursdays", "the quiz is now on Thursdays")
