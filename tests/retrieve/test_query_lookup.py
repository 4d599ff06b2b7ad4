"""The query-kind model can say "none of these": a question that asks for no kind recall reads (a plain lookup of a
present fact) carries its probability on ``lookup`` rather than on a decision, a task's standing or what comes next
(docs/decisions/0072), and where no kind fits, plain hybrid search's order stands in recall. Real store, real
embedder, the shipped models; every sentence is made up for these tests."""

from __future__ import annotations

from datetime import datetime

import pytest
from recall_helpers import add

import mnemir
from mnemir.embed import default_embedder
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.query_kinds import LOOKUP, QueryReading, read_query, shipped_query_kinds


def _read(query: str) -> QueryReading:
    embedder = default_embedder()
    return read_query(embedder.embed_query(query), embedder.model_id)


def test_the_shipped_model_has_a_none_of_these_class() -> None:
    model = shipped_query_kinds()
    assert model is not None and LOOKUP in model.kinds
    assert model.meta["checkpoints"] < model.meta["examples"]  # lookups beside the continuity checkpoints
    assert QueryReading().plain == 0.0  # nothing read: no lookup probability either


@pytest.mark.parametrize("query", ["How many litres does my fish tank hold?",
                                   pytest.param("我的护照号码是多少？", marks=pytest.mark.xfail(
                                       strict=True, reason="since the refit with T13 (docs/decisions/0079) read as the "
                                       "current value of a corrected fact (0.50) before a lookup (0.40); it asks no "
                                       "kind of work either way")),
                                   "What's the sort code of my savings account at the credit union?", "我家路由器的管理密码是多少？"])
def test_a_present_fact_question_reads_as_a_lookup_and_asks_no_kind(query: str) -> None:
    reading = _read(query)
    assert max(reading.probabilities, key=reading.probabilities.__getitem__) == LOOKUP, reading.probabilities
    assert not (reading.asks_decision or reading.asks_next or reading.asks_task_standing), reading.probabilities


@pytest.mark.parametrize("query", ["Which of the two removal firms did I pick for the flat?", "下一步我该先弄哪个？",
                                   "What jobs remain before my garden gathering?"])
def test_a_question_of_a_kind_is_no_lookup(query: str) -> None:
    reading = _read(query)
    assert reading.plain < 0.3, reading.probabilities


def test_a_lookup_keeps_plain_searchs_best_in_recall(mem: mnemir.Memory, now: datetime) -> None:
    """Typing adds to plain search: where the question is a plain lookup, what hybrid search ranks first is in the
    top k of recall, whatever the typed memories around it."""
    said = add(mem, now, "The combination for the bike lock is 4471", "Fact", {"attribute": "bike lock code"},
               days=20)
    add(mem, now, "Buy a new lock for the bike, the old one is rusty", "Task",
        {"goal": "buy a bike lock", "status": "pending"}, days=2)
    add(mem, now, "I love cycling to the office along the old canal towpath", "Preference", {"preference_type": "like"}, days=5)
    add(mem, now, "Ask the neighbour whether the bike shed has a lock", "Task",
        {"goal": "ask about the shed", "status": "pending"}, days=1)
    query = "What's the code for my bike lock?"
    assert _read(query).plain > 0.0
    best = mem.search(query, user="alice", k=1, now=now)[0]
    mem.recall_config = RecallConfig()
    hits = [h.id for h in mem.recall(query, user="alice", k=3, now=now).hits]
    assert best.id in hits and said.id in hits


def test_a_query_kind_model_can_be_handed_in(mem: mnemir.Memory, now: datetime) -> None:
    """A refit is measured beside the shipped model on the same store (``RecallConfig.query_kinds``)."""
    add(mem, now, "The spare fuse for the amplifier is taped inside its lid", "Fact", {"attribute": "spare fuse"},
        days=9)
    query = "Where is the spare fuse for my amplifier kept?"
    shipped = [h.id for h in mem.recall(query, user="alice", k=3, now=now).hits]
    mem.recall_config = RecallConfig(query_kinds=shipped_query_kinds())
    assert [h.id for h in mem.recall(query, user="alice", k=3, now=now).hits] == shipped
    with pytest.raises(mnemir.ValidationError):
        RecallConfig(query_kinds="the shipped one")  # type: ignore[arg-type]
