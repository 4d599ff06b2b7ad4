"""A correction about the speaker's own value takes nothing back from another person's statement of that value
(issue 15, docs/decisions/0111): "I'm 1.70, not 1.65" against "my sister is 1.65". Facts about different people never
supersede each other. Real SQLite memory and the real default embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import mnemir
import mnemir.memory.understanding as understanding

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _live(mem: mnemir.Memory, user: str) -> list[str]:
    return [r.content.text for r in mem.list(user=user) if r.type != "Episode"]


def _taken_back(mem: mnemir.Memory, user: str) -> list[str]:
    return [rel.relation for r in mem.list(user=user) for rel in r.relationships
            if rel.relation in ("corrects", "supersedes")]


@pytest.mark.parametrize(("first", "second"), [
    ("My sister is 1.65 metres tall.", "Actually I'm 1.70 metres tall, not 1.65."),
    ("My dad's blood pressure pill is 5mg.", "Sorry, my blood pressure pill is 10mg, not 5mg."),
    ("我姐的车是2019年买的。", "我的车是2021年买的，不是2019年，我记错了。"),
    ("我妈身高1.58米。", "我说错了，我身高1.62米，不是1.58米。"),
])
def test_a_correction_about_the_speaker_takes_nothing_back_from_a_relative(mem: mnemir.Memory, first: str,
                                                                          second: str) -> None:
    mem.remember(first, user="ned", now=START)
    mem.remember(second, user="ned", now=START + timedelta(minutes=1))
    assert first in _live(mem, "ned")
    assert not _taken_back(mem, "ned")


@pytest.mark.parametrize(("first", "second"), [
    ("I'm 1.65 metres tall.", "Actually I'm 1.70 metres tall, not 1.65."),
    ("我身高1.58米。", "我说错了，我身高1.62米，不是1.58米。"),
])
def test_a_correction_about_the_speaker_still_takes_back_their_own_value(mem: mnemir.Memory, first: str,
                                                                         second: str) -> None:
    mem.remember(first, user="ned", now=START)
    mem.remember(second, user="ned", now=START + timedelta(minutes=1))
    assert first not in _live(mem, "ned") or _taken_back(mem, "ned")


def test_who_a_correction_is_about_is_read_past_what_was_said() -> None:
    # saying "I said" or "I got it wrong" is the speaker talking, not the subject of the corrected value
    assert understanding._own_subject("我上次说它3.5公斤，今天去医院一称其实是4.3公斤。") is None
    assert understanding._own_subject("I said 3.5kg but the vet weighed her at 4.3") is None
    assert understanding._own_subject("Sorry, I got that wrong, my sister is 1.70") == "sister"
    assert understanding._own_subject("我说错了，我身高1.62米，不是1.58米。") == "user"
    # a correction that names the relative is about them: the guard stands aside
    assert not understanding._about_the_speaker_and_another("I got it wrong, my sister is 1.70, not 1.65",
                                                            "My sister is 1.65 metres tall.")
    assert understanding._about_the_speaker_and_another("Actually I'm 1.70 metres tall, not 1.65.",
                                                        "My sister is 1.65 metres tall.")


def test_the_guard_is_a_switch() -> None:
    assert understanding.SPEAKER_AGAINST_ANOTHER is True
