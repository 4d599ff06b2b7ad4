"""How ``remember`` finds what an utterance is about: task matching across embedding models, entity links."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.understand.entities import aliases


class ReversedEmbedder:
    """Another model with the default one's dimension: the real default vectors with their axes reversed (still
    unit length, but not comparable with the default model's vectors)."""

    model_id = "use-reversed"

    def __init__(self, inner: USEEmbedder) -> None:
        self.inner = inner
        self.dim = inner.dim

    def embed(self, texts: list[str]) -> Any:
        return np.ascontiguousarray(self.inner.embed(texts)[:, ::-1])

    def embed_query(self, text: str) -> Any:
        return np.ascontiguousarray(self.inner.embed_query(text)[::-1])


def test_task_updates_match_when_the_store_uses_another_model_of_the_same_size(
        tmp_path: Path, embedder: USEEmbedder, wed: datetime) -> None:
    reversed_model = ReversedEmbedder(embedder)
    with mnemir.open(tmp_path / "mem", embedder=reversed_model) as mem:  # type: ignore[arg-type]
        [task] = mem.remember("帮我下周五之前把报销单交了", user="ann", now=wed)
        stored = mem.store.vectors([task.id])[task.id]
        assert stored.shape == (embedder.dim,) and float(np.dot(stored, embedder.embed([task.text])[0])) < 0.5
        result = mem.remember("报销单已经交上去了", user="ann", now=wed)
        assert [u.id for u in result.updated] == [task.id], result.notes
        assert mem.get(task.id, user="ann").properties["status"] == "completed"


def test_entity_links_search_once_per_entity(mem: mnemir.Memory, wed: datetime,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    [sister] = mem.remember("My sister lives in Shanghai", user="fay", now=wed)
    queries: Counter[str] = Counter()
    real_search = mem.search

    def counting_search(query: str = "", **kwargs: Any) -> Any:
        queries[query] += 1
        return real_search(query, **kwargs)

    monkeypatch.setattr(mem, "search", counting_search)
    made = mem.remember("帮我订下周五去上海的机票，我姐姐住在上海", user="fay", now=wed)
    task, fact = sorted(made.created, key=lambda r: r.type != "Task")
    assert (task.type, fact.type) == ("Task", "Fact")
    keys = {*task.metadata.extra["entities"], *fact.metadata.extra["entities"]}
    assert "shanghai" in set(task.metadata.extra["entities"]) & set(fact.metadata.extra["entities"])
    for key in keys:  # both records mention shanghai: one search serves both
        assert queries[" ".join(aliases(key))] == 1, key
    for record, sibling in ((task, fact), (fact, task)):
        targets = {r.target for r in record.relationships
                   if r.relation == "related_to_entity" and r.properties["entity"] == "shanghai"}
        assert {sister.id, sibling.id} <= targets
