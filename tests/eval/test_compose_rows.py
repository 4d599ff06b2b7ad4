"""Utterances of several memories composed from one-memory rows (``python -m mnemir.eval.compose_rows``), and the
count model that learns from them (docs/decisions/0118), on rows of our own."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mnemir._paths import training_dir
from mnemir.eval import compose_rows
from mnemir.understand import train

ROWS = [
    {"id": "en-own-1", "lang": "en", "speaker": "user", "text": "My sister keeps bees on her allotment.",
     "expect": [{"type": "Fact"}]},
    {"id": "en-own-2", "lang": "en", "speaker": "user", "text": "Book the boiler service for next Tuesday",
     "expect": [{"type": "Task", "status": "pending", "deadline": "2026-03-10"}]},
    {"id": "en-own-3", "lang": "en", "speaker": "user", "text": "Honestly I can't stand runny honey",
     "expect": [{"type": "Preference", "polarity": "dislike"}]},
    {"id": "zh-own-1", "lang": "zh", "speaker": "user", "text": "我姐姐在郊区养了几箱蜜蜂。",
     "expect": [{"type": "Fact"}]},
    {"id": "zh-own-2", "lang": "zh", "speaker": "user", "text": "帮我约一下周二的锅炉保养",
     "expect": [{"type": "Task", "status": "pending"}]},
]


def test_a_row_of_one_memory_and_one_clause_is_a_source() -> None:
    assert compose_rows.one_clause(ROWS[0])
    assert not compose_rows.one_clause({**ROWS[0], "speaker": "assistant"})
    assert not compose_rows.one_clause({**ROWS[0], "text": "My sister keeps bees. She sells the wax too."})
    assert not compose_rows.one_clause({**ROWS[0], "expect": [{"type": "Fact"}, {"type": "Task"}]})


@pytest.mark.parametrize(("lang", "first", "nxt", "joiner", "joined"), [
    ("en", "My sister keeps bees.", "Book the boiler service", ", but {}", "My sister keeps bees, but book the boiler service"),
    ("en", "My sister keeps bees.", "Book the boiler service", ". Also, {}", "My sister keeps bees. Also, Book the boiler service"),
    ("en", "Rain again.", "I can't stand it", ", and {}", "Rain again, and I can't stand it"),
    ("zh", "我姐姐养了蜜蜂。", "帮我约一下保养", "，另外{}", "我姐姐养了蜜蜂，另外帮我约一下保养"),
])
def test_clauses_are_chained_the_way_people_chain_them(lang: str, first: str, nxt: str, joiner: str,
                                                       joined: str) -> None:
    assert compose_rows.chain(lang, first, nxt, joiner) == joined


def test_a_composed_row_expects_the_union_of_its_memories_of_other_types_in_one_language() -> None:
    vectors = np.eye(len(ROWS), dtype=np.float32)
    rows = compose_rows.compose(ROWS, vectors)
    assert rows == compose_rows.compose(ROWS, vectors)  # deterministic
    for row in rows:
        parts = [next(r for r in ROWS if r["id"] == i) for i in row["from"]]
        assert {p["lang"] for p in parts} == {row["lang"]}
        assert row["expect"] == [e for p in parts for e in p["expect"]]
        assert len({e["type"] for e in row["expect"]}) == len(parts) >= 2
        assert all(p["text"].rstrip("。.")[1:] in row["text"] for p in parts)


def test_the_count_model_learns_one_or_many_where_the_reading_unit_is_a_choice() -> None:
    rows = [{"text": "I'm so cross. The plumber never turned up.", "expect": [{"type": "EmotionalState"}]},
            {"text": "My sister keeps bees. Book the boiler service.", "expect": [{"type": "Fact"}, {"type": "Task"}]},
            {"text": "我姐姐养了蜜蜂，帮我约一下保养", "expect": [{"type": "Fact"}, {"type": "Task"}]},
            {"text": "Quiet day at home.", "expect": [{"type": "Fact"}]},  # one clause: nothing to choose
            {"text": "Thanks. See you.", "expect": []}]  # nothing to remember
    texts, labels, weights = train.count_examples(rows)
    assert list(zip(texts, labels, strict=True)) == [(rows[0]["text"], "ONE"), (rows[1]["text"], "MANY"),
                                                      (rows[2]["text"], "MANY")]
    assert weights == [1.0, 1.0, 1.0]


def test_the_shipped_file_is_trained_on_by_the_count_model_only_and_shares_no_run_with_an_evaluation_text() -> None:
    from tests.test_no_split_text import findings

    shipped = [json.loads(line) for line in (training_dir() / "understand" / compose_rows.FILE)
               .read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(shipped) > 1000 and len({r["id"] for r in shipped}) == len(shipped)
    assert all(len({e["type"] for e in r["expect"]}) >= 2 for r in shipped)
    assert compose_rows.FILE in train.TRAIN_FILES["memory_count"]
    assert compose_rows.FILE not in train.TRAIN_FILES["extractor"]
    shared = sum(1 for r in shipped if findings(str(r["text"])))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"
