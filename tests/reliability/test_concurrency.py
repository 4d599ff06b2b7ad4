"""Several processes write and read one store at once (the SQLite file; one PostgreSQL database): no update is lost,
no "database is locked" reaches the caller. On PostgreSQL, writers of different users do not wait for each other,
writers of one user do.

Workers are forked from the test process, so they share the embedder already loaded (no model load per process);
each opens its own connection to the store file, as separate programs would.
"""

from __future__ import annotations

import multiprocessing
import threading
import traceback
import warnings
from pathlib import Path
from typing import Any

from tests.conftest import NOW
from tests.reliability.conftest import location

import mnemir
from mnemir.ir import Action
from mnemir.store.base import ANY

WORKERS = 3
ROUNDS = 6
PREFERENCE = ("I really like jasmine tea", "Preference", {"subject": "jasmine tea", "preference_type": "like"})
#: each worker changes its own property of one task: all of them must survive
OWN_PROPERTY = {0: ("goal", lambda i: f"goal set by worker 0 round {i}"),
                1: ("deadline", lambda i: f"2026-12-{10 + i:02d}"),
                2: ("priority", lambda i: ["low", "medium", "high"][i % 3])}


def _worker(path: str, embedder: Any, w: int, task_id: str, out: Any) -> None:
    errors: list[str] = []
    try:
        with mnemir.open(path, embedder=embedder) as mem:
            for i in range(ROUNDS):  # the real clock: history is ordered by time, which must be the order of commits
                name, value = OWN_PROPERTY[w][0], OWN_PROPERTY[w][1](i)
                status = "in_progress" if (i + w) % 2 == 0 else "pending"
                steps = (
                    lambda: mem.add(PREFERENCE[0], PREFERENCE[1], PREFERENCE[2], user="u"),
                    lambda name=name, value=value: mem.update(task_id, properties={name: value}, user="u"),
                    lambda status=status: mem.update_task(task_id, status=status, user="u"),
                    lambda: mem.search("jasmine tea", user="u", k=3),
                    lambda: mem.recall("what tea do I like", user="u", k=3),
                    lambda i=i: mem.remember(f"worker {w} note {i}: I bought a new kettle", user=f"w{w}"),
                )
                for step in steps:
                    try:
                        step()
                    except Exception as exc:  # every error is a failure of the test, "locked" above all
                        errors.append(f"{type(exc).__name__}: {exc}")
    except Exception:
        errors.append(traceback.format_exc())
    out.put((w, errors))


def test_processes_writing_one_store_lose_no_update(backend: str, tmp_path: Path, embedder: Any) -> None:
    path = location(backend, tmp_path, "shared")
    with mnemir.open(path, embedder=embedder) as mem:
        task = mem.add("Plan the team offsite", "Task", {"status": "pending"}, user="u", now=NOW)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: the workers use none of them
        procs = [ctx.Process(target=_worker, args=(path, embedder, w, task.id, out)) for w in range(WORKERS)]
        for p in procs:
            p.start()
    results = dict(out.get(timeout=170) for _ in procs)
    for p in procs:
        p.join(timeout=30)
    assert all(not errors for errors in results.values()), results

    with mnemir.open(path, embedder=embedder) as mem:
        prefs = mem.list(types=["Preference"], user="u")
        assert len(prefs) == 1  # every repeat merged into one memory...
        (pref,) = prefs
        repeats = WORKERS * ROUNDS - 1
        assert len(pref.metadata.merged_sources) == repeats  # ...and every one of them counted
        merges = [h for h in mem.history(pref.id, user="u") if h.action == Action.merged]
        assert len(merges) == repeats

        final = mem.get(task.id, user="u")
        for w, (name, value) in OWN_PROPERTY.items():  # the last change of every worker is there
            assert str(final.properties[name]) == str(value(ROUNDS - 1)), (w, name, final.properties)
        history = mem.history(task.id, user="u")
        moves = [h for h in history if h.action == Action.status_changed]
        assert moves, "no status change recorded"
        status = "pending"
        for h in moves:  # each recorded move starts where the previous one ended: none was made from a stale read
            assert (h.before or {}).get("properties", {}).get("status") == status, h
            status = (h.after or {}).get("properties", {}).get("status")
        assert final.properties["status"] == status
        assert mem.check().ok


def test_postgres_writers_of_different_users_do_not_wait_for_each_other(tmp_path: Path) -> None:
    """Store.exclusive(user) on PostgreSQL: while one connection holds a block of alice's scope, a block of bob's
    (or of the no-user scope) goes ahead, and one of alice's, or a whole-store block, waits until it ends."""
    from store_cases import open_backend

    holder, other = open_backend("postgres", tmp_path, "locks"), open_backend("postgres", tmp_path, "locks")

    def attempt(scope: Any) -> threading.Event:
        done = threading.Event()

        def run() -> None:
            with other.exclusive(scope):
                done.set()

        threading.Thread(target=run, daemon=True).start()
        return done

    def holding(held: Any, then: Any, waits: bool) -> None:
        inside, release = threading.Event(), threading.Event()

        def hold() -> None:
            with holder.exclusive(held):
                inside.set()
                release.wait(60)

        thread = threading.Thread(target=hold, daemon=True)
        thread.start()
        assert inside.wait(30)
        done = attempt(then)
        went_ahead = done.wait(0.5 if waits else 30)
        release.set()
        thread.join(30)
        assert done.wait(30), (held, then)  # ...and every block ran in the end
        assert went_ahead is not waits, (held, then, "waited" if waits else "went ahead")

    try:
        for held, then, waits in (("alice", "bob", False), ("alice", None, False), (None, "alice", False),
                                  ("alice", "alice", True), ("alice", ANY, True), (ANY, "bob", True),
                                  (ANY, ANY, True)):
            holding(held, then, waits)
    finally:
        holder.close()
        other.close()
