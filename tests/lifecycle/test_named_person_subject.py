"""Two facts whose entity is the same named person are about that person, though only one names the relation
(docs/decisions/0069); facts about different people never replace each other. Every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.lifecycle import contradictions
from mnemir.memory.understanding import Remembered


def _remember(mem: mnemir.Memory, texts: list[str], now: datetime) -> list[Remembered]:
    return [mem.remember(t, user="vida", now=now - timedelta(hours=1) + timedelta(minutes=i))
            for i, t in enumerate(texts)]


def test_a_later_fact_about_the_named_person_supersedes_the_earlier_one(mem: mnemir.Memory, now: datetime) -> None:
    first, second = _remember(mem, ["My cousin Ilse lives in Bremen.", "Ilse moved to Kassel in the spring."], now)
    old = next(r for r in first.created if r.type == "Fact")
    assert old.properties.get("entity") == second.created[-1].properties.get("entity") == "ilse"
    # superseded, or disputed with a question when the later reading is unsure: the two are one person's facts
    assert mem.get(old.id, user="vida").status in ("superseded", "disputed"), second.notes


@pytest.mark.parametrize("texts", [
    ["我姐姐是护士。", "我哥哥是程序员。"],
    ["My uncle lives in Bremen.", "My neighbour lives in Kassel."],
])
def test_facts_about_different_people_stand_side_by_side(mem: mnemir.Memory, now: datetime,
                                                         texts: list[str]) -> None:
    done = _remember(mem, texts, now)
    assert not done[1].updated, done[1].notes


def test_off_the_named_person_needs_the_same_relation_words(mem: mnemir.Memory, now: datetime,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contradictions, "NAMED_PERSON_IS_SUBJECT", False)
    first, _ = _remember(mem, ["My cousin Ilse lives in Bremen.", "Ilse moved to Kassel in the spring."], now)
    old = next(r for r in first.created if r.type == "Fact")
    assert mem.get(old.id, user="vida").status == "active"
