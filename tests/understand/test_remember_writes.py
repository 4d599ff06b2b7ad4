"""How ``remember`` writes: each new memory embedded once, and one utterance stored in one transaction."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.errors import StoreError


class CountingEmbedder:
    """The real default embedder, counting which texts it is asked to embed (for storage or classification)."""

    def __init__(self, inner: USEEmbedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.texts: Counter[str] = Counter()

    def embed(self, texts: list[str]) -> Any:
        self.texts.update(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def test_each_new_memory_is_embedded_once(tmp_path: Path, embedder: USEEmbedder, wed: datetime) -> None:
    counting = CountingEmbedder(embedder)
    memory = mnemir.open(tmp_path / "mem", embedder=counting)  # type: ignore[arg-type]
    try:
        stored = memory.remember("我对花生过敏，但是特别爱吃海鲜", user="ann", now=wed)
        assert {m.type for m in stored} == {"Fact", "Preference"}
        for record in stored:
            assert counting.texts[record.content.text] == 1, record.content.text
            vector = memory.store.vectors([record.id])[record.id]
            assert np.allclose(vector, embedder.embed([record.content.text])[0], atol=1e-5)
    finally:
        memory.close()


def test_an_update_and_new_memories_share_one_transaction(mem: mnemir.Memory, wed: datetime,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    [task] = mem.remember("帮我下周五之前把报销单交了", user="bo", now=wed)
    calls = []
    real_write = mem.store.write

    def counting_write(*args: Any, **kwargs: Any) -> None:
        calls.append(args[0])
        real_write(*args, **kwargs)

    monkeypatch.setattr(mem.store, "write", counting_write)
    result = mem.remember("报销单我昨天交掉了。还有，明天提醒我联系一下房东", user="bo", now=wed)
    assert [u.id for u in result.updated] == [task.id]
    assert [m.type for m in result.created] == ["Task"]
    assert len(calls) == 1
    assert {w.record.id for w in calls[0]} >= {task.id, result.created[0].id}


def test_a_failed_write_stores_nothing_of_the_utterance(mem: mnemir.Memory, wed: datetime,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    [task] = mem.remember("帮我下周五之前把报销单交了", user="cy", now=wed)

    def failing_write(*args: Any, **kwargs: Any) -> None:
        raise StoreError("disk full (simulated)")

    monkeypatch.setattr(mem.store, "write", failing_write)
    with pytest.raises(StoreError):
        mem.remember("报销单我昨天交掉了。还有，明天提醒我联系一下房东", user="cy", now=wed)
    monkeypatch.undo()
    assert mem.get(task.id, user="cy").properties["status"] == "pending"
    assert mem.count(types=["Task"], user="cy") == 1


def test_a_correction_and_a_new_fact_in_one_utterance_form_one_chain(mem: mnemir.Memory, wed: datetime) -> None:
    [shanghai] = mem.remember("我住在上海", user="di", now=wed)
    mem.remember("其实我住在杭州，不是上海。我现在住在杭州西湖区", user="di", now=wed)

    live = mem.list(types=["Fact"], user="di")
    assert [r.properties["value"] for r in live] == ["杭州西湖区"]
    history = mem.store.history(shanghai.id)
    assert [h.action.value for h in history].count("superseded") == 1  # replaced once, not by both new facts
