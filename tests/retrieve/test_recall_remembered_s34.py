"""The remembered-store ranker as the default on a user's talk with the assistant, the typed-store ranker over talk
between people (decision 0123). Real stores, the real embedder and the shipped models; every sentence is made up
here (the talk fixtures of ``test_recall_talk``)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.retrieve.test_recall_talk import ALONE, CHAT
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.learned import DEFAULT_RANKER_MODEL, REMEMBERED_RANKER_MODEL, shipped_ranker
from mnemir.understand.talk import shipped_talk_turns

TYPED_EVERYWHERE = RecallConfig(ranker_model=DEFAULT_RANKER_MODEL, chat_ranker_model=None)
REMEMBERED_EVERYWHERE = RecallConfig(ranker_model=REMEMBERED_RANKER_MODEL, chat_ranker_model=None)


def _read(mem: mnemir.Memory, query: str, now: datetime, config: RecallConfig) -> list[tuple[str, list[str]]]:
    mem.recall_config = config
    return [(h.id, h.reasons) for h in mem.recall(query, user="ines", k=10, now=now).hits]


def test_the_defaults_name_both_shipped_rankers() -> None:
    assert RecallConfig().ranker_model == REMEMBERED_RANKER_MODEL
    assert RecallConfig().chat_ranker_model == DEFAULT_RANKER_MODEL
    assert shipped_ranker(REMEMBERED_RANKER_MODEL) is not None and shipped_ranker(DEFAULT_RANKER_MODEL) is not None


@pytest.mark.parametrize("query", ["When is my eye test?", "What do I do on Mondays?"])
def test_a_users_talk_with_the_assistant_is_ranked_by_the_remembered_store_ranker(
        mem: mnemir.Memory, now: datetime, query: str) -> None:
    _said(mem, ALONE, now - timedelta(days=3))
    default = _read(mem, query, now, RecallConfig())
    assert default == _read(mem, query, now, REMEMBERED_EVERYWHERE)
    assert default != _read(mem, query, now, TYPED_EVERYWHERE)
    assert any(r.startswith("learned ranker: score") for _, reasons in default for r in reasons)


@pytest.mark.skipif(shipped_talk_turns() is None, reason="no talk model shipped")
@pytest.mark.parametrize("query", ["When did they first say the eye test was?", "How did they get home?"])
def test_talk_between_people_keeps_the_typed_store_ranker(mem: mnemir.Memory, now: datetime, query: str) -> None:
    _said(mem, [("user", t) for t in CHAT], now - timedelta(days=3))
    default = _read(mem, query, now, RecallConfig())
    assert default == _read(mem, query, now, TYPED_EVERYWHERE)
    assert default != _read(mem, query, now, REMEMBERED_EVERYWHERE)  # the two models nudge differently
