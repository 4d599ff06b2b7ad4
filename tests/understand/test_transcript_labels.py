"""A transcript's speaker label ("Name: words") says who speaks, not what is said (docs/decisions/0078): once labels
recur as a two-person transcript's do, ``remember`` reads a turn's words without its label, keeps the turn verbatim as
its episode, and what it reads from the words says who said it. A heading said now and then ("Noted: …") is read as
said. Sentences invented for these tests; real SQLite memory, real default embedder."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

import mnemir
from mnemir.understand.people import speaker_label


@pytest.mark.parametrize(("text", "expected"), [
    ("Birte: I moved my allotment to the north plot.", ("Birte", "I moved my allotment to the north plot.")),
    ("Ansel Fyfe: the ferry was late again", ("Ansel Fyfe", "the ferry was late again")),
    ("阿岚：我下周去青岛出差", ("阿岚", "我下周去青岛出差")),
    ("老秦: 鱼缸的灯坏了", ("老秦", "鱼缸的灯坏了")),
    ("Note: the boiler service is due", None),
    ("提醒：周五交房租", None),
    ("I told her: no more cake", None),
    ("10:30 works for me", None),
])
def test_a_speaker_label_is_a_name_and_a_colon_at_the_head(text: str, expected: tuple[str, str] | None) -> None:
    assert speaker_label(text) == expected


TRANSCRIPT = [
    ("Birte", "Hi Ansel, how was the trip north?"),
    ("Ansel", "Long but lovely. The ferry was late again."),
    ("Birte", "Typical. I finally repainted the shed door green."),
    ("Ansel", "Green suits it. My sister Maud wants the old paint tins."),
    ("Birte", "I switched my evening shift at the bakery to mornings."),
    ("Ansel", "I started restoring a rowing boat in my garage."),
]


def test_a_labelled_transcript_is_read_without_its_labels(tmp_path: Path, embedder: object) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)  # type: ignore[arg-type]
    start = datetime.fromisoformat("2026-04-02T19:00:00+00:00")
    try:
        kept = [mem.remember(f"{name}: {words}", user="pair", now=start + timedelta(seconds=i))
                for i, (name, words) in enumerate(TRANSCRIPT)]
        for (name, words), out in zip(TRANSCRIPT, kept, strict=True):
            assert out.episode is not None and out.episode.content.text == f"{name}: {words}"  # kept verbatim
        # the first four turns: neither label has opened two earlier turns yet, so they are read as said
        assert [out.extractions[0].text for out in kept[:4]] == [f"{n}: {w}" for n, w in TRANSCRIPT[:4]]
        # from then on, both labels recur: the words are read, and what is read from them names who said them
        typed = []
        for (name, words), out in zip(TRANSCRIPT[4:], kept[4:], strict=True):
            assert out.extractions[0].text == words
            typed += [(name, m) for m in out.created if m.type != "Episode"]
        assert typed and all(m.content.text.startswith(f"{name}: ") for name, m in typed)
    finally:
        mem.close()


def test_a_heading_is_read_as_said(tmp_path: Path, embedder: object) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)  # type: ignore[arg-type]
    now = datetime.fromisoformat("2026-04-02T19:00:00+00:00")
    # one heading, however often: a transcript of people talking has two labels at least
    said = ["Shopping: oat milk and rye bread", "Shopping: two lemons for the fish", "Shopping: dish soap",
            "Shopping: coffee beans, the dark roast", "Note: the picnic is by the weir on Sunday"]
    try:
        outs = [mem.remember(text, user="solo", now=now + timedelta(seconds=i)) for i, text in enumerate(said)]
        assert [o.extractions[0].text for o in outs] == said  # a heading is no speaker
        outs = [mem.remember(text, speaker="assistant", user="solo2", now=now) for text in said]
        assert [o.extractions[0].text for o in outs] == said  # nor is anything the assistant says read so
    finally:
        mem.close()


def test_a_reopened_store_goes_on_reading_the_transcript_without_labels(tmp_path: Path, embedder: object) -> None:
    start = datetime.fromisoformat("2026-04-02T19:00:00+00:00")
    mem = mnemir.open(tmp_path / "m", embedder=embedder)  # type: ignore[arg-type]
    try:
        for i, (name, words) in enumerate(TRANSCRIPT[:4]):
            mem.remember(f"{name}: {words}", user="pair", now=start + timedelta(seconds=i))
    finally:
        mem.close()
    mem = mnemir.open(tmp_path / "m", embedder=embedder)  # type: ignore[arg-type]
    try:
        name, words = TRANSCRIPT[4]
        out = mem.remember(f"{name}: {words}", user="pair", now=start + timedelta(seconds=4))
        assert out.extractions[0].text == words  # the labels counted before the store was closed still count
        assert out.episode is not None and out.episode.content.text == f"{name}: {words}"
        # another user's utterances are not counted for this one
        other = mem.remember(f"{name}: {words}", user="someone-else", now=start + timedelta(seconds=5))
        assert other.extractions[0].text == f"{name}: {words}"
    finally:
        mem.close()
