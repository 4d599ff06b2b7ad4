"""Corrections and what they take back (issue 15, docs/decisions/0107): a decimal said against a Chinese measure word
is stated; a correction that names its old value replaces a statement of that value, not one that only shares the
topic; recall counts what took an utterance back though the search left it out. Every sentence is made up here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np
import pytest

import mnemir
from mnemir.memory import understanding as U
from mnemir.retrieve.judgements import taken_back
from mnemir.retrieve.ranking import Candidate


@pytest.fixture
def switches() -> Iterator[None]:
    saved = (U.DECIMALS_BESIDE_HAN, U.NAMED_VALUE_FIRST)
    U.DECIMALS_BESIDE_HAN = U.NAMED_VALUE_FIRST = True
    yield
    U.DECIMALS_BESIDE_HAN, U.NAMED_VALUE_FIRST = saved


@pytest.mark.parametrize(("text", "value", "stated"), [
    ("阳台大概6.5个平方，朝南。", "6.5", True),
    ("阳台大概16.5个平方，朝南。", "6.5", False),
    ("押金一共2,300元，月底前交。", "2,300", True),
    ("The shed is 6.5 square metres.", "6.5", True),
    ("The shed is 6.55 square metres.", "6.5", False),
])
def test_a_decimal_beside_a_measure_word_is_stated(switches: None, text: str, value: str, stated: bool) -> None:
    assert U._states_value(text, value) is stated


def test_without_the_switch_a_decimal_beside_han_is_not_read(switches: None) -> None:
    U.DECIMALS_BESIDE_HAN = False
    assert not U._states_value("阳台大概6.5个平方，朝南。", "6.5")
    assert U._states_value("阳台大概6个平方，朝南。", "6")  # a whole number always was


def _said(mem: mnemir.Memory, turns: list[str], start: datetime, user: str = "mei") -> list[mnemir.Remembered]:
    return [mem.remember(text, speaker="user", user=user, session="s1", turn=n, now=start + timedelta(minutes=n))
            for n, text in enumerate(turns, start=1)]


def _live_texts(mem: mnemir.Memory, user: str = "mei") -> list[str]:
    return [r.text for r in mem.list(user=user) if r.type != "Episode"]


def test_a_correction_naming_its_value_replaces_the_statement_of_that_value(
        switches: None, mem: mnemir.Memory, wed: datetime) -> None:
    turns = ["阳台大概6.5个平方。", "老周说阳台的推拉门要换，阳台地砖也裂了，阳台得重新弄。",
             "还有，老周量了一下阳台，其实只有5.8平，我之前说的6.5把门口也算进去了。"]
    _said(mem, turns, wed)
    live = _live_texts(mem)
    assert not any("6.5个平方" in t for t in live), live
    assert any("推拉门" in t for t in live), live  # the statement that only shares the topic stays


def test_facts_about_different_people_are_never_replaced(switches: None, mem: mnemir.Memory, wed: datetime) -> None:
    _said(mem, ["My sister's flat is 48.5 square metres.",
                "My brother's flat is 50.5 square metres.",
                "Correction: my brother's flat is 52.5 square metres, not 50.5."], wed)
    live = _live_texts(mem)
    assert any("sister" in t for t in live), live
    assert not any("50.5 square" in t for t in live), live


# -- recall: what took an utterance back, found or not ---------------------------------------------------------
def test_a_taker_outside_the_candidates_takes_back(mem: mnemir.Memory, wed: datetime) -> None:
    done = _said(mem, ["The allotment plot is 9 metres long, next to the shed.",
                       "We watered the beans in the evening.",
                       "Sorry, I got that wrong earlier: it's 12 metres, not 9."], wed)
    old = done[0].episode
    assert old is not None
    correction = [r for r in done[2].created if r.type != "Episode"]
    assert any(rel.target == old.id for r in correction for rel in r.relationships
               if rel.relation in ("corrects", "supersedes")), [r.relationships for r in correction]
    qvec = mem.embedder.embed_query("How long is the allotment plot?")
    vector = mem.store.vectors([old.id])[old.id]
    pool = {old.id: Candidate(old, similarity=float(np.dot(vector, qvec)))}  # the correction is not a candidate
    assert taken_back(mem.store, pool, past=False) == {}
    assert old.id in taken_back(mem.store, pool, past=False, margin=1.0, qvec=qvec)
    assert taken_back(mem.store, pool, past=True, margin=1.0, qvec=qvec) == {}  # the past is asked about


def test_another_users_correction_takes_nothing_back(mem: mnemir.Memory, wed: datetime) -> None:
    done = _said(mem, ["The allotment plot is 9 metres long, next to the shed."], wed)
    _said(mem, ["The allotment plot is 9 metres long.", "Sorry, I got that wrong: it's 12 metres, not 9."], wed,
          user="tom")
    old = done[0].episode
    assert old is not None
    qvec = mem.embedder.embed_query("How long is the allotment plot?")
    pool = {old.id: Candidate(old, similarity=0.5)}
    assert taken_back(mem.store, pool, past=False, margin=1.0, qvec=qvec) == {}


def test_recall_config_takes_the_new_fields(mem: mnemir.Memory) -> None:
    config = replace(mem.recall_config, takers_beyond_pool=True, current_value_margin=0.5)
    assert config.takers_beyond_pool and config.current_value_margin == 0.5
    with pytest.raises(mnemir.MnemirError):
        replace(mem.recall_config, takers_beyond_pool="yes")
