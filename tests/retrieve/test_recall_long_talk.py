"""Plain search's fusion over a long conversation between people (issue 14, docs/decisions/0117):
``RecallConfig.chat_period_first_long`` (a named past period's utterances first, or only fused as a third order),
``chat_fusion_k_long`` (the reciprocal ranks' constant), ``chat_score_weight_long``, ``chat_plain_share_long`` act
where the store is talk between people of at least ``chat_long_turns`` utterances, and nowhere else. Real stores, the
real embedder; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from tests.retrieve.test_recall_talk import ALONE
from tests.understand.test_corrections_take_back import _said

import mnemir
from mnemir.errors import ValidationError
from mnemir.retrieve import RecallConfig

#: told a month before the question: the only turn that names the van's sale
OLD = [("user", "Tomasz: My cousin Ansel finally sold his orange camper van to a surfer from Porto."),
       ("user", "Lidia: No way, he lived in that thing for two summers.")]
#: the last few days' chat between the same two friends, on other things
RECENT = [("user", "Lidia: The rain ruined the picnic, so we ate on the kitchen floor instead."),
          ("user", "Tomasz: Honestly a kitchen floor picnic sounds cosy."),
          ("user", "Lidia: The kids built a blanket fort and refused to leave it."),
          ("user", "Tomasz: Mine did the same with the sofa cushions on Tuesday."),
          ("user", "Lidia: I finally finished the scarf I started knitting in spring."),
          ("user", "Tomasz: Send a photo, I want to see the colours."),
          ("user", "Lidia: Work was hectic, three deadlines in one week."),
          ("user", "Tomasz: Same here, I barely slept before the Friday review."),
          ("user", "Lidia: We should get dinner once things calm down."),
          ("user", "Tomasz: Yes, the new noodle place by the station?"),
          ("user", "Lidia: Perfect, I heard their broth is amazing."),
          ("user", "Tomasz: It is, I went with my sister on Sunday.")]
QUERY = "What did Ansel sell last week?"


def _chat(mem: mnemir.Memory, now: datetime) -> None:
    _said(mem, OLD, now - timedelta(days=30))
    _said(mem, RECENT, now - timedelta(days=2))


def _texts(mem: mnemir.Memory, query: str, config: RecallConfig, now: datetime, k: int = 3) -> list[str]:
    mem.recall_config = config
    return [h.memory.text for h in mem.recall(query, user="ines", k=k, now=now).hits]


def _sold(texts: list[str]) -> bool:
    return any("camper van" in t for t in texts)


def test_a_named_period_no_longer_puts_its_turns_first_over_a_long_chat(mem: mnemir.Memory, now: datetime) -> None:
    """Asked about "last week", a turn told a month before that shares the question's words is found first once
    the period's turns are only fused (``chat_period_first_long`` False, the default), and is pushed under them
    while they come first; under ``chat_long_turns`` utterances the period's turns come first whatever the setting."""
    _chat(mem, now)
    n = len(OLD) + len(RECENT)
    first = _texts(mem, QUERY, RecallConfig(chat_long_turns=1, chat_period_first_long=True), now)
    fused = _texts(mem, QUERY, RecallConfig(chat_long_turns=1), now)
    assert not _sold(first), first
    assert _sold(fused), fused
    assert _texts(mem, QUERY, RecallConfig(chat_long_turns=n + 1, chat_period_first_long=True), now) == \
        _texts(mem, QUERY, RecallConfig(chat_long_turns=n + 1), now) == first


@pytest.mark.parametrize("query", ["When is my eye test?", "What should I buy last week?"])
def test_a_users_talk_with_the_assistant_keeps_its_fusion(mem: mnemir.Memory, now: datetime, query: str) -> None:
    """Where the assistant speaks the store is the user's talk with it: the long-talk settings are not consulted."""
    _said(mem, ALONE, now - timedelta(days=3))
    plain = _texts(mem, query, RecallConfig(), now, k=5)
    assert _texts(mem, query, RecallConfig(chat_long_turns=1, chat_period_first_long=True, chat_fusion_k_long=1,
                                           chat_score_weight_long=5.0, chat_plain_share_long=1.0), now, k=5) == plain


@pytest.mark.parametrize("change", [{"chat_fusion_k_long": 0}, {"chat_fusion_k_long": True},
                                    {"chat_score_weight_long": -1.0}, {"chat_plain_share_long": 1.5},
                                    {"chat_period_first_long": "no"}])
def test_the_settings_are_checked(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RecallConfig(**change)  # type: ignore[arg-type]
