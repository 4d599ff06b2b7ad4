"""``ingest`` embeds a conversation in batches and stores it in one transaction, yet gives exactly what ``remember``
called on each turn in order gives: the same records, supersessions, task moves, confirmations and notes."""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.ir import MemoryStatus
from mnemir.memory.understanding import Remembered

#: written for this test: requests, a proposal and its confirmation, reports that close tasks, corrections that
#: supersede facts, a postponement, a change of mind, a hedge, plan steps and small talk, in both languages
CONVERSATION: list[tuple[str, str]] = [
    ("user", "I need to book the car service before the road trip in May"),
    ("assistant", "Shall I find a garage near your office for you?"),
    ("user", "yes please"),
    ("user", "My brother Felix lives in Leeds and teaches chemistry"),
    ("user", "The parent-teacher meeting is on the 9th"),
    ("user", "Sorry, the parent-teacher meeting is on the 19th, not the 9th"),
    ("user", "帮我周四之前把水电费交了"),
    ("assistant", "收到，这就记上：周四之前交水电费"),
    ("user", "水电费已经交好了"),
    ("user", "I prefer window seats on long flights"),
    ("user", "Actually I'd rather have an aisle seat on long flights after all"),
    ("user", "为了搬家，我们先找搬家公司，再打包书，最后退租"),
    ("user", "搬家公司已经找好了"),
    ("user", "我猜楼下的噪音可能是装修"),
    ("user", "The dentist check-up got pushed to next Tuesday"),
    ("user", "Booked the car service for Saturday morning"),
    ("assistant", "Great, I have booked the garage for Saturday"),
    ("user", "我对猫毛过敏"),
    ("user", "谢谢你"),
    ("user", "I live in Bristol"),
    ("user", "Correction: I live in Bath, not Bristol"),
]

def _turns(start: datetime) -> list[dict[str, Any]]:
    return [{"speaker": s, "text": t, "turn": i, "now": start + timedelta(minutes=3 * i)}
            for i, (s, t) in enumerate(CONVERSATION)]


_ID = re.compile(r"\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b|\bm[0-9A-Za-z_-]{10,}\b")


def _canon(mem: mnemir.Memory, user: str) -> list[Any]:
    """Every record of the user (all statuses) with its history, ids replaced by the text they name."""
    records = mem.list(user=user, statuses=list(MemoryStatus), limit=10_000)
    names = {r.id: f"<{r.type}:{r.content.text}>" for r in records}

    def plain(value: Any) -> Any:
        if isinstance(value, str):
            return names.get(value, _ID.sub(lambda m: names.get(m.group(0), "ID"), value))
        if isinstance(value, dict):
            return {k: plain(v) for k, v in sorted(value.items())}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    out = []
    for r in records:
        history = [(h.action.value, plain(h.reason), plain(h.actor)) for h in mem.history(r.id, user=user)]
        out.append((r.type, r.content.text, r.status.value, plain(r.properties),
                    sorted((x.relation, plain(x.target), str(plain(x.properties))) for x in r.relationships),
                    plain(r.metadata.extra), r.metadata.source.turn, str(r.valid_from), str(r.valid_to), history))
    return sorted(out, key=repr)


def _summary(result: Any) -> list[Any]:
    ids = {m.id: f"<{m.type}:{m.content.text}>" for m in [*result.created, *result.updated, *result.episodes]}
    swap = lambda text: _ID.sub(lambda m: ids.get(m.group(0), "ID"), text)  # noqa: E731
    return [sorted(m.content.text for m in result.created), sorted(m.content.text for m in result.updated),
            [swap(n) for n in result.notes], [(c.kind, c.utterance, [x.text for x in c.candidates])
                                              for c in result.confirmations],
            [e.to_dict() for e in result.extractions]]


def _one_by_one(mem: mnemir.Memory, user: str, start: datetime) -> Remembered:
    out = Remembered()
    for t in _turns(start):
        out.absorb(mem.remember(t["text"], speaker=t["speaker"], user=user, session="s", turn=t["turn"],
                                now=t["now"]))
    return out


def test_ingest_gives_what_remembering_each_turn_gives(tmp_path: Path, embedder: USEEmbedder, wed: datetime) -> None:
    start = wed
    one = mnemir.open(tmp_path / "one", embedder=embedder)
    many = mnemir.open(tmp_path / "many", embedder=embedder)
    try:
        expected = _one_by_one(one, "ann", start)
        got = many.ingest(_turns(start), user="ann", session="s")
        seen = _canon(one, "ann")
        assert _canon(many, "ann") == seen
        assert _summary(got) == _summary(expected)
        # the conversation exercises what must not drift: facts superseded, tasks closed, a proposal confirmed
        statuses = {(t, s) for t, _, s, *_ in seen}
        assert ("Fact", "superseded") in statuses
        assert any(t == "Task" and p.get("status") == "completed" for t, _, _, p, *_ in seen)
        assert any(t == "Plan" and p.get("status") == "completed" for t, _, _, p, *_ in seen)
        assert any("confirmed the assistant's proposal" in n for n in expected.notes)
        assert len([r for r in seen if r[0] == "Episode"]) == len(CONVERSATION)
    finally:
        one.close()
        many.close()


def test_ingest_in_several_batches_and_through_the_async_api(tmp_path: Path, embedder: USEEmbedder, wed: datetime,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemir.memory import understanding

    one = mnemir.open(tmp_path / "one", embedder=embedder)
    try:
        _one_by_one(one, "bo", wed)
        expected = _canon(one, "bo")
    finally:
        one.close()
    monkeypatch.setattr(understanding, "INGEST_BATCH", 4)  # a conversation longer than a batch: six transactions

    async def run() -> list[Any]:
        amem = await mnemir.open_async(tmp_path / "async", embedder=embedder)
        try:
            await amem.ingest(_turns(wed), user="bo", session="s")
            return _canon(amem.sync, "bo")
        finally:
            await amem.aclose()

    assert asyncio.run(run()) == expected


def test_prefilled_vectors_are_the_batch_ones_and_stay_in_their_thread(embedder: USEEmbedder) -> None:
    # texts no earlier test searched for: a text in the shared embedder's query cache is taken from there instead
    tag = uuid.uuid4().hex[:8]
    texts = [f"the garage is booked for Saturday ({tag})", f"我对猫毛过敏 {tag}", f"a third sentence to batch {tag}"]
    batch = embedder.embed(texts)
    seen: list[Any] = []
    with embedder.prefilled(texts):
        assert np.array_equal(embedder.embed([texts[1]])[0], batch[1])  # no new encoding: the batch's row
        assert np.array_equal(embedder.embed_query(texts[2]), batch[2])
        mixed = embedder.embed([texts[0], "not prefilled"])
        assert np.array_equal(mixed[0], batch[0]) and mixed.shape == (2, 512)
        with embedder.prefilled(["nested one"]):
            pass
        assert embedder._table() is not None and "nested one" in embedder._table()  # joined the outer block
        worker = threading.Thread(target=lambda: seen.append(embedder._table()))
        worker.start()
        worker.join()
    assert seen == [None]  # another thread never sees this thread's vectors
    assert embedder._table() is None


class _RefusesOneTurn:
    """The offline extractor, except that a turn holding ``BROKEN`` yields a draft of a type the ontology lacks (the
    write of that turn fails validation, after earlier turns of the batch were written)."""

    creator = "test"

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def extract(self, text: str, *, speaker: str = "user", now: Any = None) -> Any:
        from mnemir.understand.extract import Draft

        out = self.inner.extract(text, speaker=speaker, now=now)
        if "BROKEN" in text:
            out.drafts = [Draft("NoSuchType", text, {})]
        return out


def test_a_batch_is_one_transaction(tmp_path: Path, embedder: USEEmbedder, wed: datetime) -> None:
    mem = mnemir.open(tmp_path / "m", embedder=embedder)
    try:
        mem.use_extractor(_RefusesOneTurn(mem.extractor))
        turns = [*_turns(wed)[:6], {"speaker": "user", "text": "BROKEN turn", "turn": 6, "now": wed}]
        with pytest.raises(mnemir.MnemirError):
            mem.ingest(turns, user="cy", session="s")
        assert mem.count(user="cy", include_archived=True) == 0  # the six turns before it are not kept either
        with pytest.raises(mnemir.MnemirError):
            mem.remember("BROKEN again", user="dee", now=wed)
        mem.remember(CONVERSATION[0][1], user="dee", now=wed)  # turn by turn, what came before stays
        assert mem.count(user="dee") >= 2
        mem.ingest(_turns(wed)[:6], user="cy", session="s")  # the store is sound after the rollback
        assert mem.count(user="cy") >= 6 and mem.check().ok
    finally:
        mem.close()


#: written for this test: a fact about a person named by a relation, decisions naming their option, a proposal the
#: user accepts, a guess about a neighbour
SEARCHING = [
    ("user", "My dentist wants me to come back in the autumn"),
    ("user", "We finally decided on the walnut bookcase"),
    ("assistant", "Shall I put the bookcase delivery in your calendar?"),
    ("user", "yes please"),
    ("user", "I suspect my neighbour is running a workshop at night"),
    ("user", "我们最终挑了那张橡木餐桌"),
]


def _counting(embedder: USEEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    encode = embedder._encode

    def counted(texts: Any) -> Any:
        calls.append(list(texts))
        return encode(texts)

    monkeypatch.setattr(embedder, "_encode", counted)
    monkeypatch.setattr(embedder._cache, "_data", type(embedder._cache._data)())  # nothing searched before
    return calls


def test_what_the_turns_search_with_is_embedded_with_the_batch(tmp_path: Path, embedder: USEEmbedder, wed: datetime,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A relation's words and the option a decision names, which the turns search with, are embedded in ingest's
    second batch: two model calls for the whole conversation (one per search text before)."""
    calls = _counting(embedder, monkeypatch)
    with mnemir.open(tmp_path / "m", embedder=embedder) as mem:
        mem.ingest([{"speaker": s, "text": t, "now": wed + timedelta(minutes=i)} for i, (s, t) in enumerate(SEARCHING)],
                   user="ed")
        assert len(calls) == 2, calls
        second = calls[1]
        assert "walnut bookcase" in second and any("橡木餐桌" in t for t in second)  # the options the decisions name
        assert any(t.startswith("neighbour ") for t in second)  # the words searched for the person so named
        assert mem.count(user="ed", types=["Task"]) >= 1  # the accepted proposal became a task


def test_an_accepted_proposal_is_embedded_with_the_answer(tmp_path: Path, embedder: USEEmbedder, wed: datetime,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``remember`` of the user's "yes" embeds the proposal it accepts in the same model call as the turn."""
    calls = _counting(embedder, monkeypatch)
    with mnemir.open(tmp_path / "m", embedder=embedder) as mem:
        for i, (speaker, text) in enumerate(SEARCHING[2:4]):
            calls.clear()
            done = mem.remember(text, speaker=speaker, user="fay", now=wed + timedelta(minutes=i))
        assert [c for c in calls] == [["yes please", "put the bookcase delivery in your calendar"]]
        assert [m.content.text for m in done.created] == ["put the bookcase delivery in your calendar"]


def test_a_proposal_is_embedded_only_where_a_later_turn_of_the_batch_may_accept_it(
        tmp_path: Path, embedder: USEEmbedder, wed: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    """``remember`` of the assistant's proposal does not embed the proposal's goal (a model call of its own, unused
    before the user's answer, which embeds it with the answer); ``ingest`` of the proposal with its answer embeds it
    with the batch; the same task is stored either way (decision 0047)."""
    calls = _counting(embedder, monkeypatch)
    offer, answer = SEARCHING[2], SEARCHING[3]
    goal = "put the bookcase delivery in your calendar"
    with mnemir.open(tmp_path / "r", embedder=embedder) as mem:
        mem.remember(offer[1], speaker=offer[0], user="gil", now=wed)
        assert len(calls) == 1 and goal not in calls[0], calls  # the turn alone: one model call
        done = mem.remember(answer[1], speaker=answer[0], user="gil", now=wed + timedelta(minutes=1))
        assert calls[1] == [answer[1], goal]
        assert [m.content.text for m in done.created] == [goal]
    calls.clear()
    monkeypatch.setattr(embedder._cache, "_data", type(embedder._cache._data)())
    with mnemir.open(tmp_path / "i", embedder=embedder) as mem:
        mem.ingest([{"speaker": offer[0], "text": offer[1], "now": wed}], user="gil")
        assert not any(goal in c for c in calls), calls  # the batch ends with the offer: nothing may accept it
        calls.clear()
        mem.ingest([{"speaker": s, "text": t, "now": wed + timedelta(minutes=i)} for i, (s, t) in
                    enumerate([offer, answer])], user="hal")
        assert any(goal in c for c in calls[1:]), calls  # a later turn of the batch accepts it: in the batch
        assert [m.content.text for m in mem.list(user="hal", types=["Task"])] == [goal]


def test_searched_texts_are_kept_and_reused_by_prefills(embedder: USEEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text searched for inside a prefilled block keeps its vector in the query cache; a prefill takes a text the
    query cache holds from it instead of encoding it again."""
    calls = _counting(embedder, monkeypatch)
    alone = embedder.embed_query("a text searched for on its own")
    with embedder.prefilled(["a text searched for on its own", "a new text in the batch"]):
        assert np.array_equal(embedder.embed_query("a text searched for on its own"), alone)
        batched = embedder.embed_query("a new text in the batch")
    assert calls == [["a text searched for on its own"], ["a new text in the batch"]]
    assert np.array_equal(embedder.embed_query("a new text in the batch"), batched)  # kept: no third call
    assert len(calls) == 2
