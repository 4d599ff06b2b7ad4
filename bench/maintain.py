"""Benchmark: Memory.maintain() over N memories (default 100k), first run vs second run.

Records are built directly through the store contract with random unit vectors (the embedder is not the thing
measured), spread over many users and all built-in types, with a realistic share of work for maintain():
expired emotions, stale dialogue acts, completed tasks past their retention with their plan steps, refuted
hypotheses. The first run catches up on 60 days at once (the worst case); the second run, at the same ``now``,
must change nothing; a third run a day later shows the steady state of a daily maintain().

    .venv/bin/python bench/maintain.py            # 100k memories
    .venv/bin/python bench/maintain.py --n 20000  # quicker
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

import mnemir
from mnemir.ir import Content, MemIR, Metadata, Scope, Source
from mnemir.ontology import format_datetime
from mnemir.store.base import Write

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
#: type -> share of the records
MIX = {"Fact": 0.25, "Preference": 0.15, "Task": 0.12, "Plan": 0.18, "EmotionalState": 0.12,
       "DialogueAct": 0.10, "Hypothesis": 0.05, "ContextualFrame": 0.03}
EMOTIONS = ["anger", "joy", "sadness", "anxiety", "frustration"]


def make_record(type_: str, i: int, rng: random.Random, users: int, tasks: list[MemIR]) -> MemIR:
    user = f"user{rng.randrange(users)}"
    at = NOW - timedelta(minutes=rng.randrange(60 * 24 * 60))  # within the last 60 days
    session = f"{user}-s{rng.randrange(5)}"
    props: dict[str, object]
    if type_ == "Fact":
        props = {"entity": f"entity{i}", "attribute": "attr", "value": str(i), "confidence": 0.7, "source": "user"}
    elif type_ == "Preference":
        props = {"subject": f"thing{i}", "preference_type": rng.choice(["like", "dislike"]), "strength": 0.6}
    elif type_ == "Task":
        status = rng.choice(["pending", "in_progress", "completed", "completed", "failed"])
        props = {"goal": f"goal {i}", "status": status, "priority": "medium",
                 "deadline": (at + 10 * DAY).date().isoformat()}
        if status in ("completed", "failed"):
            props["completed_at"] = format_datetime(at + DAY)
    elif type_ == "Plan":
        task = rng.choice(tasks)
        user = task.scope.user_id or user
        props = {"associated_task_id": task.id, "order": rng.randrange(1, 6), "status": "pending"}
    elif type_ == "EmotionalState":
        props = {"emotion_type": rng.choice(EMOTIONS), "intensity": round(rng.random(), 2)}
    elif type_ == "DialogueAct":
        props = {"act_type": rng.choice(["question", "request", "inform"])}
    elif type_ == "Hypothesis":
        props = {"entity": f"entity{i}", "attribute": "guess", "value": "x",
                 "confidence": rng.choice([0.02, 0.3, 0.5, 0.8])}
    else:
        props = {"frame_type": "meeting", "topic": f"topic {i}"}
    return MemIR(content=Content(text=f"{type_} memory number {i}"), type=type_, properties=props,
                 scope=Scope(user_id=user, session_id=session),
                 metadata=Metadata(created_at=at, updated_at=at, source=Source(speaker="user", session_id=session,
                                                                               creator="bench", at=at)),
                 valid_from=at)


def build(mem: mnemir.Memory, n: int, users: int, seed: int) -> float:
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    counts = {t: int(n * share) for t, share in MIX.items()}
    counts["Fact"] += n - sum(counts.values())
    started = time.perf_counter()
    tasks: list[MemIR] = []
    order = ["Task"] + [t for t in counts if t != "Task"]
    i = 0
    for type_ in order:
        batch: list[Write] = []
        for _ in range(counts[type_]):
            record = make_record(type_, i, rng, users, tasks)
            i += 1
            if type_ == "Task":
                tasks.append(record)
            vec = nprng.standard_normal(mem.embedder.dim).astype(np.float32)
            batch.append(Write(record, vec / np.linalg.norm(vec)))
            if len(batch) == 5000:
                mem.store.write(batch, model_id=mem.embedder.model_id)
                batch = []
        if batch:
            mem.store.write(batch, model_id=mem.embedder.model_id)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="number of memories")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=None, help="where to put the store (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        target = args.dir or Path(tmp) / "bench-maintain"
        with mnemir.open(target) as mem:
            setup = build(mem, args.n, args.users, args.seed)
            total = mem.count(user=mnemir.store.base.ANY)
            dry = mem.maintain(now=NOW, dry_run=True)
            first = mem.maintain(now=NOW)
            second = mem.maintain(now=NOW)
            daily = mem.maintain(now=NOW + DAY)  # the steady state: one day's worth of expiries
            print(f"memories: {total} ({args.users} users); set-up {setup:.1f}s")
            print(f"dry run:     {dry.seconds:6.2f}s, would change {dry.changed}")
            print(f"first run:   {first.seconds:6.2f}s, changed {first.changed}, scanned {first.scanned}")
            print(first.render())
            print(f"second run:  {second.seconds:6.2f}s, changed {second.changed}, scanned {second.scanned}")
            print(f"second/first time ratio: {second.seconds / first.seconds:.2f}")
            print(f"next day:    {daily.seconds:6.2f}s, changed {daily.changed} (a daily run after catching up)")
            if second.changed != 0 or dry.changed != first.changed:
                raise SystemExit("FAILED: the second run changed something, or the dry run disagreed")


if __name__ == "__main__":
    main()
