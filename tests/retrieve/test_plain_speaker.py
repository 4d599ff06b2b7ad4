"""Who said it, in plain search (decision 0043): what the assistant said weighs ``FusionConfig.assistant_weight`` of
what the user said in ``search``'s fusion, and ``RecallConfig.plain_assistant_weight`` in recall's plain search over
the utterances. An assistant's echo of the user's words no longer takes the user's place; it is moved, not removed."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import mnemir
from mnemir.errors import ValidationError
from mnemir.memory.config import MemoryConfig
from mnemir.retrieve import FusionConfig, RecallConfig

#: a user's statements, each followed by the assistant reflecting it back in more of the same words
TURNS = [
    ("user", "My sister Hannah moved to Lisbon last spring for a job at a design studio."),
    ("assistant", "So Hannah moved to Lisbon! Where did Hannah move from, and does she like the studio job?"),
    ("user", "I still need to renew my passport before the trip in March."),
    ("assistant", "Noted: renew the passport before March. Do you want a reminder?"),
    ("user", "The dentist appointment went fine, no cavities."),
    ("assistant", "Great news about the dentist!"),
]
ASKED = "Where did Hannah move?"


def _open(path: Path, embedder: mnemir.embed.Embedder, weight: float) -> mnemir.Memory:
    return mnemir.open(path, embedder=embedder, config=mnemir.MemoryConfig(fusion=FusionConfig(assistant_weight=weight)))


def _add_turns(mem: mnemir.Memory, now) -> None:
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.add(text, "Fact", user="u", session="s1", speaker=speaker, turn=n, now=now + timedelta(minutes=n))


def test_search_puts_the_users_statement_above_the_assistants_echo(tmp_path: Path, embedder, now) -> None:
    later = now + timedelta(hours=1)
    alike = _open(tmp_path / "alike", embedder, 1.0)
    weighed = _open(tmp_path / "weighed", embedder, FusionConfig().assistant_weight)
    try:
        for mem in (alike, weighed):
            _add_turns(mem, now)
        # weighed alike, the echo (more of the question's words) scores above the statement it echoes
        scores = {h.memory.metadata.source.speaker: h.score for h in alike.search(ASKED, user="u", k=2, now=later)}
        assert scores["assistant"] > scores["user"]
        hits = weighed.search(ASKED, user="u", k=3, now=later)
        assert hits[0].memory.content.text == TURNS[0][1]
        echo = next(h for h in hits if h.memory.metadata.source.speaker == "assistant")
        assert any("said by the assistant" in r for r in echo.reasons)
        assert not any("said by the assistant" in r for r in hits[0].reasons)
    finally:
        alike.close()
        weighed.close()


def test_what_only_the_assistant_said_is_still_found(mem: mnemir.Memory, now) -> None:
    _add_turns(mem, now)
    hits = mem.search("Did you offer me a reminder?", user="u", k=3, now=now + timedelta(hours=1))
    assert TURNS[3][1] in [h.memory.content.text for h in hits]


def test_recall_puts_the_users_statement_above_the_assistants_echo(mem: mnemir.Memory, now) -> None:
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.remember(text, user="u", session="s1", speaker=speaker, turn=n, now=now + timedelta(minutes=n))
    later = now + timedelta(hours=1)
    mem.recall_config = RecallConfig(plain_assistant_weight=1.0)
    alike = mem.recall(ASKED, user="u", k=3, now=later).hits
    mem.recall_config = RecallConfig()
    weighed = mem.recall(ASKED, user="u", k=3, now=later).hits
    assert alike[0].memory.metadata.source.speaker == "assistant"
    assert weighed[0].memory.metadata.source.speaker == "user"
    assert "Hannah" in weighed[0].memory.content.text
    # moved, not removed: the echo is still in the top k
    assert TURNS[1][1] in [h.memory.content.text for h in weighed]


@pytest.mark.parametrize("weight", [-0.1, 1.5, True, "0.8"])
def test_assistant_weight_is_checked(weight) -> None:
    with pytest.raises(ValidationError, match="assistant_weight"):
        FusionConfig(assistant_weight=weight)
    with pytest.raises(ValidationError, match="plain_assistant_weight"):
        RecallConfig(plain_assistant_weight=weight)


@pytest.mark.parametrize("score_weight", [0.0, 0.25])
def test_search_reads_past_a_top_crowded_by_the_assistant(tmp_path: Path, embedder, now, score_weight: float) -> None:
    """When the assistant's turns fill more than the first batch of records read, the top k is still exact: each k
    gives the first k of the whole weighed order. With ranks alone (score_weight 0) the user's turn is lifted past
    the assistant's; score-aware fusion (decision 0095) counts the assistant's stronger matches (both of the
    question's words, twice) and may leave them ahead: the order is exact either way."""
    mem = mnemir.open(tmp_path / "crowded", embedder=embedder,
                      config=MemoryConfig(fusion=FusionConfig(score_weight=score_weight)))
    for n in range(14):
        mem.add(f"Your garden tomatoes sound great, tip {n}: water the tomatoes early in the garden.", "Fact", user="u",
                speaker="assistant", turn=2 * n + 1, now=now + timedelta(minutes=2 * n + 1))
    for n, text in enumerate(["We picked the first tomatoes today.", "The garden fence needs paint.",
                              "I bought a new hose."]):
        mem.add(text, "Fact", user="u", speaker="user", turn=40 + n, now=now + timedelta(minutes=40 + n))
    later = now + timedelta(hours=1)
    query = "How are my garden tomatoes doing?"
    hits = mem.search(query, user="u", k=50, now=later)
    speakers = [h.memory.metadata.source.speaker for h in hits]
    assert speakers.count("assistant") > 12  # more than the first batch read for k = 1 (2k + 10)
    if score_weight == 0.0:
        assert speakers[0] == "user"  # a user's turn lifted past the assistant's
    whole = [h.id for h in hits]
    for k in (1, 2, 3, 5):
        assert [h.id for h in mem.search(query, user="u", k=k, now=later)] == whole[:k]
    mem.close()
