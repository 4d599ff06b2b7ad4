"""Group commit of concurrent ``add`` calls (decision 0113): calls from threads or AsyncMemory tasks that arrive while
a write is in flight are governed and written together in one SQLite transaction. What must hold: the store ends as
the same calls made one after another in arrival order leave it (records, history, merges, supersession, two
people's facts side by side), each call gets what it alone would have returned; one call's error fails only that
call and writes nothing of it; a call that returned is durable even if the process then ends at once. Every
sentence is made up here."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NOW

import mnemir
from mnemir.errors import ConflictError, StoreError, ValidationError
from mnemir.ir import MemoryStatus
from mnemir.memory.config import MemoryConfig
from mnemir.memory.core import _Add
from mnemir.store.base import ANY

PEOPLE = ["Ana", "Ben", "Cleo", "Dev"]
PLACES = ["Lisbon", "Osaka", "Lima", "Quito"]


def _calls() -> list[dict[str, Any]]:
    """A workload with repeats (merged), changed values (superseding), two people sharing an attribute and value
    (never superseding each other), preference flips, and two users."""
    calls: list[dict[str, Any]] = []
    for n in range(24):
        person, place = PEOPLE[n % 4], PLACES[(n * 3 // 4) % 4]
        user = "alice" if n % 5 else "bob"
        if n % 6 == 5:
            like = "like" if n % 4 else "dislike"
            calls.append({"text": f"I {like} green tea in the morning", "type": "Preference", "user": user,
                          "properties": {"subject": "green tea in the morning", "preference_type": like}})
        else:
            calls.append({"text": f"{person} lives in {place}", "type": "Fact", "user": user,
                          "properties": {"entity": person, "attribute": "home city", "value": place}})
    for n, call in enumerate(calls):
        call["id"] = f"m{n:02d}"
        call["now"] = NOW + timedelta(seconds=n)
    return calls


def _add(memory: mnemir.Memory, call: dict[str, Any], vectors: dict[str, Any]) -> Any:
    return memory.add(call["text"], call["type"], call["properties"], user=call["user"], id=call["id"],
                      now=call["now"], vector=vectors[call["text"]])


def _state(memory: mnemir.Memory) -> dict[str, tuple[Any, ...]]:
    """Every record with its history, in a form two stores can be compared by."""
    records = memory.store.select(memory._selection(user=ANY, statuses=list(MemoryStatus)))
    return {r.id: (r.to_dict(), [h.model_dump(exclude={"id"}) for h in memory.history(r.id, user=ANY)])  # random ids
            for r in records}


def _arrivals(memory: mnemir.Memory) -> list[str]:
    """Spy on the order in which the group commit wrote the calls (the ids of the calls, batch after batch)."""
    order: list[str] = []
    write = memory._add_together

    def logged(items: Sequence[_Add]) -> list[Any]:
        order.extend(item.record.id for item in items)
        return write(items)

    memory._add_together = logged  # type: ignore[method-assign]
    return order


def _sequential(path: Path, embedder: Any, calls: list[dict[str, Any]], order: list[str],
                vectors: dict[str, Any]) -> tuple[mnemir.Memory, dict[str, Any]]:
    """The same calls one after another in ``order``, without group commit."""
    memory = mnemir.open(path, embedder=embedder, config=MemoryConfig(group_commit=False))
    by_id = {c["id"]: c for c in calls}
    return memory, {cid: _add(memory, by_id[cid], vectors) for cid in order}


def _in_threads(calls: list[dict[str, Any]], call: Any, threads: int = 8) -> None:
    """Make ``calls`` from ``threads`` threads at once (each its share, in order), and wait for them all."""
    start = threading.Barrier(threads)

    def caller(mine: list[dict[str, Any]]) -> None:
        start.wait()
        for one in mine:
            call(one)

    running = [threading.Thread(target=caller, args=(calls[t::threads],)) for t in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(120)


@pytest.fixture(scope="module")
def vectors(embedder: Any) -> dict[str, Any]:
    texts = sorted({c["text"] for c in _calls()})
    return dict(zip(texts, embedder.embed(texts), strict=True))


def test_threads_store_what_the_calls_one_after_another_store(tmp_path: Path, embedder: Any,
                                                              vectors: dict[str, Any]) -> None:
    calls = _calls()
    memory = mnemir.open(tmp_path / "grouped", embedder=embedder)
    order = _arrivals(memory)
    returned: dict[str, Any] = {}

    def call(one: dict[str, Any]) -> None:
        returned[one["id"]] = _add(memory, one, vectors)

    _in_threads(calls, call)
    group = memory._add_group()
    assert group is not None and group.calls == len(calls)
    assert group.batches < len(calls)  # some calls shared a transaction: the comparison is not vacuous
    one_by_one, alone = _sequential(tmp_path / "sequential", embedder, calls, order, vectors)
    try:
        assert sorted(order) == sorted(c["id"] for c in calls)
        assert _state(memory) == _state(one_by_one)
        assert returned == alone  # each call got what it alone would have returned
        actions = {str(e["action"]) for _, history in _state(memory).values() for e in history}
        assert {"created", "merged", "superseded"} <= actions  # the workload exercised the rules
        assert memory.check().ok
    finally:
        memory.close()
        one_by_one.close()


def test_asyncio_tasks_store_what_the_calls_one_after_another_store(tmp_path: Path, embedder: Any,
                                                                     vectors: dict[str, Any]) -> None:
    calls = _calls()

    async def run() -> tuple[list[str], dict[str, Any], Any]:
        amem = await mnemir.open_async(tmp_path / "grouped", embedder=embedder)
        order = _arrivals(amem.sync)

        async def caller(mine: list[dict[str, Any]]) -> list[tuple[str, Any]]:
            return [(c["id"], await amem.add(c["text"], c["type"], c["properties"], user=c["user"], id=c["id"],
                                             now=c["now"], vector=vectors[c["text"]])) for c in mine]

        done = await asyncio.gather(*(caller(calls[t::8]) for t in range(8)))
        group = amem.sync._add_group()
        return order, dict(pair for pairs in done for pair in pairs), (amem, group)

    order, returned, (amem, group) = asyncio.run(run())
    assert group.calls == len(calls) and group.batches < len(calls)
    one_by_one, alone = _sequential(tmp_path / "sequential", embedder, calls, order, vectors)
    try:
        assert _state(amem.sync) == _state(one_by_one)
        assert returned == alone
    finally:
        amem.sync.close()
        one_by_one.close()


def test_a_lone_caller_writes_at_once_and_as_before(tmp_path: Path, embedder: Any, vectors: dict[str, Any]) -> None:
    """Nobody else writing: each call leads its own transaction at once (no waiting window), and the store equals
    the one written without group commit."""
    calls = _calls()
    memory = mnemir.open(tmp_path / "grouped", embedder=embedder)
    returned = {c["id"]: _add(memory, c, vectors) for c in calls}
    group = memory._add_group()
    assert group is not None and group.batches == group.calls == len(calls)
    one_by_one, alone = _sequential(tmp_path / "sequential", embedder, calls, [c["id"] for c in calls], vectors)
    try:
        assert _state(memory) == _state(one_by_one) and returned == alone
        assert one_by_one._add_group() is None
    finally:
        memory.close()
        one_by_one.close()


def _hold_then_release(memory: mnemir.Memory, group: Any, queued: int) -> None:
    """Hold the store's write transaction until ``queued`` calls wait behind the leader, so that they are
    written as one batch."""
    deadline = time.monotonic() + 60
    while len(group._queue) < queued and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(group._queue) == queued


def test_one_calls_error_fails_only_that_call(tmp_path: Path, embedder: Any, vectors: dict[str, Any]) -> None:
    """One batch holding: a record the store refuses while writing (a trigger, as a full disk or a broken constraint
    would), an id of another user's memory, a type the ontology does not know, and good calls among them (one a
    repeat to merge). Each bad call raises its own error and leaves nothing; the good ones are written and governed
    as they would have been."""
    memory = mnemir.open(tmp_path / "mem", embedder=embedder)
    text = "Ana lives in Lisbon"
    taken = memory.add(text, "Fact", {"entity": "Ana", "attribute": "home city", "value": "Lisbon"}, user="bob",
                       id="bobs", now=NOW, vector=vectors[text])
    with sqlite3.connect(memory.store.path) as conn:  # type: ignore[attr-defined]
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.id = 'refused' "
                     "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    group = memory._add_group()
    assert group is not None
    before = group.batches, group.calls
    calls: list[tuple[str, dict[str, Any]]] = [
        ("first", {"text": "Ben lives in Osaka", "type": "Fact",
                   "properties": {"entity": "Ben", "attribute": "home city", "value": "Osaka"}}),
        ("refused", {"text": "Cleo lives in Lima", "type": "Fact",
                     "properties": {"entity": "Cleo", "attribute": "home city", "value": "Lima"}}),
        ("bobs", {"text": "Dev lives in Quito", "type": "Fact",
                  "properties": {"entity": "Dev", "attribute": "home city", "value": "Quito"}}),
        ("untyped", {"text": "Dev lives in Lima", "type": "NoSuchType", "properties": {}}),
        ("repeat", {"text": "Ben lives in Osaka", "type": "Fact",
                    "properties": {"entity": "Ben", "attribute": "home city", "value": "Osaka"}}),
        ("moved", {"text": "Ben lives in Lima", "type": "Fact",
                   "properties": {"entity": "Ben", "attribute": "home city", "value": "Lima"}}),
    ]
    outcomes: dict[str, Any] = {}

    def caller(cid: str, call: dict[str, Any], at: int) -> None:
        try:
            outcomes[cid] = memory.add(call["text"], call["type"], call["properties"], user="alice", id=cid,
                                       now=NOW + timedelta(seconds=at),
                                       vector=embedder.embed([call["text"]])[0] if cid == "untyped" else None)
        except Exception as exc:  # the test compares each call's own error
            outcomes[cid] = exc

    with memory.store.exclusive():  # the first caller leads and waits for the store; the others queue behind it
        leader = threading.Thread(target=caller, args=("lead", {"text": "Eli lives in Perth", "type": "Fact",
                                  "properties": {"entity": "Eli", "attribute": "home city", "value": "Perth"}}, 0))
        leader.start()
        while not group._busy or group._queue:
            time.sleep(0.005)
        threads = []
        for n, (cid, call) in enumerate(calls, start=1):
            threads.append(threading.Thread(target=caller, args=(cid, call, n)))
            threads[-1].start()
            _hold_then_release(memory, group, n)  # one at a time: the queue's order is the calls' order
    for thread in [leader, *threads]:
        thread.join(120)
    # the leader alone, then the six together
    assert (group.batches - before[0], group.calls - before[1]) == (2, 7)
    assert isinstance(outcomes["refused"], StoreError)
    assert isinstance(outcomes["bobs"], ConflictError)
    assert isinstance(outcomes["untyped"], ValidationError)
    assert outcomes["repeat"].id == "first" and outcomes["moved"].id == "moved"
    assert memory.get("bobs", user="bob") == taken  # the other user's memory is untouched
    assert [h.action.value for h in memory.history("first", user="alice")] == ["created", "merged", "superseded"]
    assert memory.get("first", user="alice").status.value == "superseded"
    assert {r.id for r in memory.store.select(memory._selection(user="alice"))} == {"lead", "moved"}
    for gone in ("refused", "untyped", "repeat"):
        assert memory.store.fetch([gone]) == [] and memory.store.history(gone) == []
    assert memory.check().ok
    memory.close()


def _add_in_threads_and_vanish(path: str, embedder: Any, synchronous: str, texts: list[str], vectors: list[Any],
                               acked: Any) -> None:
    """In a forked child: eight threads add at once; every call that returned is reported through the pipe; the
    process ends at once (no close, no checkpoint) after the tenth acknowledgement, while other calls are still
    on their way."""
    memory = mnemir.open(path, embedder=embedder, config=MemoryConfig(sqlite_synchronous=synchronous))
    lock, count = threading.Lock(), [0]

    def caller(first: int) -> None:
        for n in range(first, len(texts), 8):
            memory.add(texts[n], "Fact", {"entity": f"parcel {n}", "attribute": "shelf", "value": str(n)},
                       user="ona", id=f"p{n}", now=NOW, vector=vectors[n])
            with lock:
                acked.send(f"p{n}")
                count[0] += 1
                if count[0] == 10:
                    os._exit(0)

    for t in range(8):
        threading.Thread(target=caller, args=(t,), daemon=True).start()
    time.sleep(60)
    os._exit(1)


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
@pytest.mark.parametrize("synchronous", ["normal", "full"])
def test_every_acknowledged_add_survives_the_process_ending(tmp_path: Path, embedder: Any, synchronous: str) -> None:
    path = str(tmp_path / f"store-{synchronous}")
    texts = [f"parcel {n} waits on shelf {n} of the back room" for n in range(40)]
    vectors = list(embedder.embed(texts))
    mnemir.open(path, embedder=embedder).close()  # the schema exists before the threads race to it
    receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(
        target=_add_in_threads_and_vanish, args=(path, embedder, synchronous, texts, vectors, send))
    child.start()
    child.join(120)
    send.close()
    acked = []
    with contextlib.suppress(EOFError):
        while receive.poll(0):
            acked.append(receive.recv())
    assert (child.exitcode, len(acked)) == (0, 10)
    with mnemir.open(path, embedder=embedder) as memory:
        for cid in acked:
            assert memory.get(cid, user="ona").id == cid
            assert [h.action.value for h in memory.history(cid, user="ona")] == ["created"]
        assert memory.check().ok


def _submit_in_child(group: Any, out: Any) -> None:
    out.send(group.submit(lambda: "written in the child"))
    os._exit(0)


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_forked_child_does_not_inherit_a_busy_queue() -> None:
    """A process forked while another thread leads (or holds the queue's lock) must not wait for that thread, which
    stayed in the parent: the child's first call starts a queue of its own."""
    from mnemir.memory.group import GroupCommit

    group: GroupCommit[str] = GroupCommit(lambda items: [f"{item}!" for item in items])
    receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)
    with group._mutex:  # as if a leader of the parent were taking its batch at the fork
        group._busy = True
        child = multiprocessing.get_context("fork").Process(target=_submit_in_child, args=(group, send))
        child.start()
    child.join(30)
    assert child.exitcode == 0 and receive.recv() == "written in the child!"


def test_a_batch_the_store_stays_busy_for_fails_every_call_alike(tmp_path: Path, embedder: Any,
                                                                 vectors: dict[str, Any]) -> None:
    """Another process holds the store past the retry deadline: nothing of the batch was written and no call owns
    the error, so every call gets the busy StoreError at once, without each being tried again alone."""
    memory = mnemir.open(tmp_path / "mem", embedder=embedder, config=MemoryConfig(busy_timeout_s=0.05))
    memory.store._db.retry_for_s = 0.5  # type: ignore[attr-defined]
    group = memory._add_group()
    assert group is not None
    tried: list[int] = []
    write = memory._add_together

    def counted(items: Sequence[_Add]) -> list[Any]:
        tried.append(len(items))
        return write(items)

    memory._add_together = counted  # type: ignore[method-assign]
    group._run = counted
    calls = _calls()[:5]
    outcomes: dict[str, Any] = {}

    def caller(call: dict[str, Any]) -> None:
        try:
            outcomes[call["id"]] = _add(memory, call, vectors)
        except StoreError as exc:
            outcomes[call["id"]] = exc

    other = sqlite3.connect(memory.store.path, isolation_level=None)  # type: ignore[attr-defined]
    other.execute("BEGIN IMMEDIATE")
    try:
        threads = [threading.Thread(target=caller, args=(call,)) for call in calls]
        threads[0].start()
        while not group._busy:
            time.sleep(0.005)
        for thread in threads[1:]:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert all(isinstance(o, StoreError) and o.context.get("busy") for o in outcomes.values()), outcomes
    assert len(outcomes) == 5 and sum(tried) == 5  # each call tried once, in its batch
    assert memory.count(user=ANY) == 0 and memory.check().ok
    memory.close()


def test_cancelled_tasks_never_stall_the_queue(tmp_path: Path, embedder: Any, vectors: dict[str, Any]) -> None:
    """Tasks cancelled while they join, wait or lead: the calls already queued are written (as ``to_thread`` work
    was), a batch handed to a worker thread is led to its end, and the adds after them go through."""
    calls = _calls()

    async def run() -> tuple[Any, int]:
        amem = await mnemir.open_async(tmp_path / "mem", embedder=embedder)

        async def one(call: dict[str, Any]) -> Any:
            return await amem.add(call["text"], call["type"], call["properties"], user=call["user"], id=call["id"],
                                  now=call["now"], vector=vectors[call["text"]])

        for delay in (0.0, 0.001, 0.005, 0.02):
            tasks = [asyncio.ensure_future(one(c)) for c in calls[:12]]
            await asyncio.sleep(delay)
            for task in tasks[::2]:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        later = await asyncio.wait_for(one(calls[12]), 30)
        group = amem.sync._add_group()
        for _ in range(1000):  # calls queued by cancelled tasks finish in worker threads
            if not group._busy:
                break
            await asyncio.sleep(0.01)
        return amem, later

    amem, later = asyncio.run(run())
    try:
        assert amem.sync.get(later.id, user=later.scope.user_id) == later
        assert amem.sync._add_group()._busy is False
        assert amem.sync.check().ok
    finally:
        amem.sync.close()


def _reports_one_by_one(path: Path, embedder: Any, calls: list[dict[str, Any]], order: list[str],
                        vectors: dict[str, Any]) -> dict[str, Any]:
    """What ``last_write_report`` says after each call when the calls are made one after another in ``order``."""
    memory = mnemir.open(path, embedder=embedder, config=MemoryConfig(group_commit=False))
    by_id = {c["id"]: c for c in calls}
    reports = {}
    try:
        for cid in order:
            _add(memory, by_id[cid], vectors)
            reports[cid] = memory.last_write_report
    finally:
        memory.close()
    return reports


def test_each_thread_reads_the_report_of_its_own_add(tmp_path: Path, embedder: Any,
                                                       vectors: dict[str, Any]) -> None:
    """Threads sharing one Memory (an HTTP server's request threads): after its ``add`` returns, each thread's
    ``last_write_report`` holds what governance decided for its own call (merged into, superseded), equal to what
    the same call reports made one after another, never another thread's decisions."""
    calls = _calls()
    memory = mnemir.open(tmp_path / "grouped", embedder=embedder)
    order = _arrivals(memory)
    reports: dict[str, Any] = {}

    def call(one: dict[str, Any]) -> None:
        _add(memory, one, vectors)
        time.sleep(0.001)  # let another thread's call finish in between
        reports[one["id"]] = memory.last_write_report

    _in_threads(calls, call)
    memory.close()
    alone = _reports_one_by_one(tmp_path / "sequential", embedder, calls, order, vectors)
    assert reports == alone
    assert any(r.merged for r in alone.values()) and any(r.superseded for r in alone.values())


def test_a_thread_never_reads_another_threads_report(tmp_path: Path, embedder: Any,
                                                     vectors: dict[str, Any]) -> None:
    """One thread adds (superseding), a second thread then adds (merging); the first thread still reads its own."""
    memory = mnemir.open(tmp_path / "mem", embedder=embedder)
    calls = {c["text"]: c for c in _calls()}
    first, moved = calls["Ana lives in Lisbon"], dict(calls["Ana lives in Osaka"], user="alice")
    _add(memory, dict(first, id="a0", user="alice"), vectors)
    _add(memory, dict(first, id="b0", user="bob"), vectors)
    mine: dict[str, Any] = {}
    added, other_done = threading.Event(), threading.Event()

    def one() -> None:
        _add(memory, dict(moved, id="a1"), vectors)
        added.set()
        other_done.wait(60)
        mine["report"] = memory.last_write_report

    def other() -> None:
        added.wait(60)
        _add(memory, dict(first, id="b1", user="bob"), vectors)  # a repeat: merged into b0
        mine["other"] = memory.last_write_report
        other_done.set()

    threads = [threading.Thread(target=one), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        assert [e.other_id for e in mine["report"].superseded] == ["a0"] and not mine["report"].merged
        assert [e.memory_id for e in mine["other"].merged] == ["b0"]
    finally:
        memory.close()


def test_each_asyncio_task_reads_the_report_of_its_own_calls(tmp_path: Path, embedder: Any,
                                                             vectors: dict[str, Any]) -> None:
    """AsyncMemory tasks: an ``add`` (group commit) and a task move (a worker thread) each leave their report in
    the awaiting task, where ``sync.last_write_report`` reads it; a task that wrote nothing reads what the code that
    started it had written last (a task starts with a copy of its creator's context), not the other tasks' writes."""
    calls = {c["text"]: c for c in _calls()}
    first, moved = calls["Ana lives in Lisbon"], calls["Ana lives in Osaka"]

    async def run() -> dict[str, Any]:
        amem = await mnemir.open_async(tmp_path / "mem", embedder=embedder)
        seen: dict[str, Any] = {}
        try:
            await amem.add(first["text"], "Fact", first["properties"], user="alice", id="a0", now=NOW,
                           vector=vectors[first["text"]])
            task = await amem.add("Renew the passport", "Task", {"goal": "renew the passport",
                                                                  "status": "pending"}, user="alice", now=NOW)
            seen["task"] = task.id
            gate = asyncio.Event()

            async def superseding() -> None:
                await amem.add(moved["text"], "Fact", moved["properties"], user="alice", id="a1",
                               now=NOW + timedelta(days=1), vector=vectors[moved["text"]])
                gate.set()
                await asyncio.sleep(0.05)
                seen["superseding"] = amem.sync.last_write_report

            async def moving() -> None:
                await gate.wait()
                await amem.update_task(task.id, status="completed", user="alice", now=NOW + timedelta(days=2))
                seen["moving"] = amem.sync.last_write_report

            async def idle() -> None:
                await asyncio.sleep(0.1)
                seen["idle"] = amem.sync.last_write_report

            await asyncio.gather(asyncio.create_task(superseding()), asyncio.create_task(moving()),
                                 asyncio.create_task(idle()))
        finally:
            await amem.aclose()
        return seen

    seen = asyncio.run(run())
    assert [e.other_id for e in seen["superseding"].superseded] == ["a0"]
    assert [e.kind for e in seen["moving"].events] == ["status_changed"]
    assert [(e.kind, e.memory_id) for e in seen["idle"].events] == [("created", seen["task"])]
