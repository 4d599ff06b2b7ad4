"""A query finds a text that says its words in another regular English form (decision 0086): the full-text search
asks each English word with its inflections ("driving" -> "drive", "drives", ...). Every sentence is made up here;
real stores in temp dirs, the real embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import mnemir
from mnemir.store import segment
from mnemir.store.base import ANY, Selection
from mnemir.store.sqlite.text import match_expression, query_tokens


def test_an_inflected_word_brings_its_base_and_the_other_forms() -> None:
    assert {"drive", "drives", "driving"} <= set(segment.word_forms("driving"))
    assert {"repair", "repairs", "repaired"} <= set(segment.word_forms("repairing"))
    assert {"party", "parties"} <= set(segment.word_forms("parties"))
    assert {"stop", "stopped"} <= set(segment.word_forms("stopping"))
    assert segment.word_forms("driving")[0] == "driving"  # the word as asked comes first


def test_other_tokens_are_their_own_only_form() -> None:
    for token in ("猫毛", "2024", "van", "ok"):
        assert segment.word_forms(token) == (token,)
    assert "glas" not in segment.word_forms("glass")  # a double s is no plural ending
    assert "thi" not in segment.word_forms("this")


def test_the_match_expression_asks_every_form_once() -> None:
    tokens = query_tokens("painted paints")
    assert len(tokens) == len(set(tokens)) and {"painted", "paints", "paint", "painting"} <= set(tokens)
    expression = match_expression("repairing")
    assert expression is not None and '"repair"' in expression and '"repairing"' in expression


def test_full_text_search_finds_a_text_in_another_form(tmp_path, embedder) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)
    try:
        when = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        mem.add("Oskar repairs old clocks in his garage at weekends.", "Fact", user="u", now=when)
        mem.add("Mirela sings in a choir on Thursdays.", "Fact", user="u", now=when)
        found = mem.store.text_search(Selection(user_id=ANY), "who was repairing a clock?", 5)
        assert found and found[0][0] == mem.store.text_search(Selection(user_id=ANY), "repairs", 5)[0][0]
    finally:
        mem.close()


def test_hybrid_search_finds_the_turn_saying_the_other_form(tmp_path, embedder) -> None:
    """A conversation says a word in one form and the question asks it in another: the turn that holds the word
    is the best keyword match and the first hit (without the other forms it shares only a name with the question,
    and turns that share its common words come first)."""
    mem = mnemir.open(tmp_path / "m", embedder=embedder)
    try:
        start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        turns = ["Lukas: did you see the match last night?",
                 "Greta: no, I was at my cousin's place the whole evening.",
                 "Lukas: I finally painted the old canoe, bright green.",
                 "Greta: nice, what did you get for it?",
                 "Lukas: two hundred, and he is picking it up on Sunday.",
                 "Greta: I have been knitting scarves for the market stall.",
                 "Lukas: my sister visits next week with the kids."]
        for i, text in enumerate(turns):
            mem.add(text, "Fact", user="u", session="s1", turn=i + 1, now=start + timedelta(seconds=i))
        hits = mem.search("Is Lukas painting anything at the moment?", user="u", k=3, now=start + timedelta(hours=1))
        assert hits and "canoe" in hits[0].memory.content.text
        assert hits[0].signals.get("text_rank") == 1
    finally:
        mem.close()
