"""Following relationships: plan steps with their task, supersedes, depth limits, and never across a scope."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from recall_helpers import add, intent

import mnemir
from mnemir.retrieve.graph import expand
from mnemir.retrieve.wording import asks_about_past
from mnemir.store.base import Selection

#: these tests pin the role-aware order (see conftest.role_order_only)
pytestmark = pytest.mark.usefixtures("role_order_only")


@pytest.fixture
def launch(mem: mnemir.Memory, now: datetime) -> dict[str, mnemir.MemIR]:
    task = add(mem, now, "Launch the new pricing page", "Task", {"goal": "launch", "status": "in_progress"}, days=9)
    steps = {}
    for order, (text, status) in enumerate([("Get legal sign-off on the copy", "completed"),
                                            ("A/B test the two layouts", "in_progress"),
                                            ("Switch the default layout", "pending")], start=1):
        steps[order] = add(mem, now, text, "Plan", {"associated_task_id": task.id, "order": order, "status": status},
                           days=8, relationships=[{"target": task.id, "relation": "step_of"}])
    return {"task": task, **{f"step{o}": s for o, s in steps.items()}}


def test_open_steps_come_with_their_task(mem: mnemir.Memory, now: datetime, launch: dict[str, mnemir.MemIR]) -> None:
    query = "What's left for the pricing page launch?"
    wanted = intent(query, "open_tasks", ("Task", "Plan"), where={"status": {"$in": ["pending", "in_progress"]}})

    result = mem.recall(query, user="alice", k=5, now=now, intent=wanted)
    ids = {h.id for h in result.hits}

    assert {launch["task"].id, launch["step2"].id, launch["step3"].id} <= ids
    assert launch["step1"].id not in ids  # completed


def test_expand_follows_steps_within_depth(mem: mnemir.Memory, launch: dict[str, mnemir.MemIR]) -> None:
    scope = Selection(user_id="alice")
    one = expand(mem.store, scope, [launch["step2"]], depth=1)
    two = expand(mem.store, scope, [launch["step2"]], depth=2)

    assert {link.record.id for link in one.links} == {launch["task"].id}
    assert {launch["step1"].id, launch["step3"].id} <= {link.record.id for link in two.links}
    assert all(link.depth <= 2 for link in two.links)
    assert expand(mem.store, scope, [launch["step2"]], depth=0).links == []


def test_walk_never_crosses_scope(mem: mnemir.Memory, now: datetime) -> None:
    secret = add(mem, now, "Bob's salary is 95k", "Fact", {"entity": "Bob", "attribute": "salary", "value": "95k"},
                 user="bob", days=3)
    mine = add(mem, now, "Bob is my manager", "Fact", {"entity": "Bob", "attribute": "role", "value": "manager"},
               days=2, relationships=[{"target": secret.id, "relation": "related_to_entity",
                                       "properties": {"entity": "Bob"}}])

    walk = expand(mem.store, Selection(user_id="alice"), [mine], depth=2)
    assert walk.links == [] and walk.out_of_scope == 1

    query = "What do I know about Bob?"
    result = mem.recall(query, user="alice", k=5, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    assert secret.id not in {h.id for h in result.hits}
    assert mine.id in {h.id for h in result.hits}
    assert "secret" not in result.context.render() and "95k" not in result.context.render()


@pytest.fixture
def prices(mem: mnemir.Memory, now: datetime) -> tuple[mnemir.MemIR, mnemir.MemIR]:
    old = add(mem, now, "The Pro plan costs $29 per month", "Fact",
              {"entity": "Pro plan (2025)", "attribute": "price", "value": "$29"}, days=40)
    new = add(mem, now, "The Pro plan price goes up to $35 per month", "Fact",
              {"entity": "Pro plan", "attribute": "price", "value": "$35"}, days=6,
              relationships=[{"target": old.id, "relation": "supersedes"}])
    return old, new


def test_a_superseded_memory_gives_way_to_its_replacement(mem: mnemir.Memory, now: datetime,
                                                          prices: tuple[mnemir.MemIR, mnemir.MemIR]) -> None:
    old, new = prices
    query = "How much is the Pro plan?"

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))

    assert result.hits[0].id == new.id
    assert old.id not in {h.id for h in result.hits}
    assert any(old.id in note and f"by {new.id}" in note for note in result.notes)


@pytest.mark.parametrize("query", ["How much did the Pro plan cost previously?", "Pro plan 以前多少钱？"])
def test_a_question_about_the_past_keeps_the_superseded_memory(mem: mnemir.Memory, now: datetime, query: str,
                                                               prices: tuple[mnemir.MemIR, mnemir.MemIR]) -> None:
    old, new = prices

    result = mem.recall(query, user="alice", k=3, now=now, intent=intent(query, "fact_lookup", ("Fact",)))
    hits = {h.id: h for h in result.hits}

    assert new.id in hits and old.id in hits
    assert "outdated" in hits[old.id].flags


def test_bad_depth_is_rejected(mem: mnemir.Memory, launch: dict[str, mnemir.MemIR]) -> None:
    with pytest.raises(mnemir.ValidationError) as err:
        expand(mem.store, Selection(user_id="alice"), [launch["task"]], depth=9)
    assert err.value.context["field"] == "graph_depth"


@pytest.mark.parametrize(("query", "days", "expected"), [
    ("How much is the Pro plan?", None, False),
    ("What did the Pro plan use to cost?", None, True),
    ("Pro plan 原来多少钱？", None, True),
    ("What did I pay last month?", (-40, -10), True),  # a range that has ended
    ("What's due this week?", (-2, 5), False),  # a range reaching into the future says when, not "before"
    ("How old is my son?", None, False),  # common words that do not ask about an earlier state
    ("What do I pack before the trip?", None, False),
    ("Which is the earlier flight?", None, False),
    ("我之前的号码是多少？", None, True),
])
def test_asks_about_past(now: datetime, query: str, days: tuple[int, int] | None, expected: bool) -> None:
    span = None if days is None else (now + timedelta(days=days[0]), now + timedelta(days=days[1]))
    assert asks_about_past(query, span, now) is expected
