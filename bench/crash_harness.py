"""Crash safety: SIGKILL a writing process at random points, reopen the store, check that nothing acknowledged is lost.

Each life of the writer is a process forked from this one (it shares the embedder already loaded here, so a life
starts in milliseconds) that opens the embedded SQLite store and writes in a loop: single adds, batches (an import
of several records: one transaction), ``remember`` of dialogue, in-place updates, hard deletes and ``maintain``.
After each call returns the writer appends an acknowledgement line to a log (one ``write`` system call; before an
update or a delete it also logs what it is about to do). This process kills it with SIGKILL after a random delay,
reopens the store and checks:

- every acknowledged write is present and intact (same text, type and properties; updated text is the
  acknowledged one or the one that was in flight; hard-deleted memories stay gone);
- nothing half-written is visible: a batch cut by the kill is either entirely there or entirely absent;
- ``Memory.check()`` finds records, vectors, the text index, properties, relationships and history in agreement.

    .venv/bin/python bench/crash_harness.py                 # 200 kills
    .venv/bin/python bench/crash_harness.py --kills 1000 --seed 7

Unix only (fork, SIGKILL). The test suite runs a few kills (tests/reliability/test_crash.py).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import mnemir
from mnemir.ir import MemoryStatus

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
BATCH = 12
NOTES_EN = ["bought a {} kettle", "the {} train leaves at nine", "booked the {} room", "sent the {} parcel"]
NOTES_ZH = ["买了{}号水壶", "{}号房间订好了", "{}号快递寄出了"]


def _writer(path: str, embedder: Any, life: int, log: str, seed: int) -> None:
    """One life of the writer: write until killed (never returns normally within the harness's delays)."""
    rng = random.Random(seed * 100_003 + life)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def ack(**entry: Any) -> None:
        os.write(fd, (json.dumps(entry, ensure_ascii=False) + "\n").encode())

    mine: list[str] = []  # ids this life added (targets of updates and deletes)
    with mnemir.open(path, embedder=embedder) as mem:
        n = 0
        while True:
            n += 1
            tag = f"L{life}N{n}"
            now = T0 + timedelta(minutes=life * 1000 + n)
            op = rng.choices(["add", "batch", "remember", "update", "delete", "maintain"], [5, 2, 2, 2, 1, 1])[0]
            if op == "add":
                text = rng.choice(NOTES_EN + NOTES_ZH).format(tag)
                rec = mem.add(text, "Fact", {"entity": "user", "attribute": f"note {tag}", "value": tag}, user="u",
                              now=now)
                mine.append(rec.id)
                ack(op="add", id=rec.id, text=rec.content.text, props=rec.properties)
            elif op == "batch":
                ids = [f"mem_{tag}_{i}" for i in range(BATCH)]
                lines = [json.dumps({"memir_version": "1.0", "id": i, "type": "Task",
                                     "content": {"text": f"batch task {tag} item {k}"},
                                     "properties": {"status": "pending", "goal": f"{tag}-{k}"},
                                     "scope": {"user_id": "u"},
                                     "metadata": {"created_at": now.isoformat(), "updated_at": now.isoformat()}})
                         for k, i in enumerate(ids)]
                ack(op="batch-intent", ids=ids)
                mem.import_jsonl(io.StringIO("\n".join(lines) + "\n"))
                ack(op="batch", ids=ids)
            elif op == "remember":
                said = mem.remember(rng.choice(["I moved to {} street", "我在{}公司上班", "I prefer tea over coffee {}"])
                                    .format(tag), user="u", now=now)
                ack(op="remember", ids=[r.id for r in said.created], texts=[r.content.text for r in said.created])
            elif op == "update" and mine:
                target = rng.choice(mine)
                text = f"updated note {tag}"
                ack(op="update-intent", id=target, text=text)
                mem.update(target, text=text, user="u", now=now)
                ack(op="update", id=target, text=text)
            elif op == "delete" and mine:
                target = mine.pop(rng.randrange(len(mine)))
                ack(op="delete-intent", id=target)
                mem.delete(target, hard=True, user="u", now=now)
                ack(op="delete", id=target)
            elif op == "maintain":
                mem.maintain(now=now)
                ack(op="maintain")


def _verify(path: str, embedder: Any, log: str) -> dict[str, Any]:
    """Read the acknowledgements and check the reopened store against them."""
    entries = [json.loads(line) for line in Path(log).read_text(encoding="utf-8").splitlines() if line.strip()]
    expected: dict[str, dict[str, Any]] = {}  # id -> {"texts": allowed texts, "props": ...}
    deleted: set[str] = set()
    maybe_deleted: set[str] = set()
    batches: list[tuple[list[str], bool]] = []
    acked = 0
    for e in entries:
        op = e["op"]
        if op == "add":
            expected[e["id"]] = {"texts": {e["text"]}, "props": e["props"]}
            acked += 1
        elif op == "batch-intent":
            batches.append((e["ids"], False))
        elif op == "batch":
            batches[-1] = (e["ids"], True)
            for i in e["ids"]:
                expected[i] = {"texts": None, "props": None}
            acked += 1
        elif op == "remember":
            for i, t in zip(e["ids"], e["texts"], strict=True):
                expected[i] = {"texts": {t}, "props": None}
            acked += 1
        elif op == "update-intent":
            if e["id"] in expected:  # the new text may or may not have landed
                texts = expected[e["id"]]["texts"]
                if texts is not None:
                    texts.add(e["text"])
        elif op == "update":
            if e["id"] in expected:
                expected[e["id"]]["texts"] = {e["text"]}
            acked += 1
        elif op == "delete-intent":
            maybe_deleted.add(e["id"])
        elif op == "delete":
            deleted.add(e["id"])
            acked += 1
        elif op == "maintain":
            acked += 1
    problems: list[str] = []
    with mnemir.open(path, embedder=embedder) as mem:
        stored = {r.id: r for r in mem.store.fetch(list(expected) + sorted(deleted) +
                                                   [i for ids, _ in batches for i in ids])}
        for mid, want in expected.items():
            if mid in deleted:
                continue
            rec = stored.get(mid)
            if rec is None:
                if mid not in maybe_deleted:
                    problems.append(f"lost: {mid}")
                continue
            if want["texts"] is not None and rec.content.text not in want["texts"]:
                problems.append(f"changed: {mid} holds {rec.content.text!r}, acknowledged {sorted(want['texts'])}")
            if want["props"] is not None and any(rec.properties.get(k) != v for k, v in want["props"].items()):
                problems.append(f"properties changed: {mid}")
            if rec.status == MemoryStatus.deleted:
                problems.append(f"deleted without being asked: {mid}")
        for mid in deleted:
            if mid in stored:
                problems.append(f"hard-deleted memory is back: {mid}")
        torn = 0
        for ids, done in batches:
            present = sum(1 for i in ids if i in stored or i in deleted)
            if present not in (0, len(ids)):
                torn += 1
                problems.append(f"half-written batch: {present} of {len(ids)} ({ids[0]})")
            if done and present != len(ids):
                problems.append(f"acknowledged batch incomplete: {present} of {len(ids)}")
        report = mem.check()
        if not report.ok:
            problems.append("check: " + report.render())
        records = report.counts.get("records", 0)
    return {"acknowledged": acked, "problems": problems, "records": records, "torn_batches": torn}


def _warm_up(embedder: Any) -> None:
    """Load what the writer needs (the embedder, the segmenter's dictionary, the extraction models) before
    forking, so that every life shares it and starts writing at once."""
    with tempfile.TemporaryDirectory() as scratch, mnemir.open(scratch, embedder=embedder) as mem:
        mem.add("warm up 热身", "Fact", {"entity": "user", "attribute": "a", "value": "b"}, user="u", now=T0)
        mem.remember("I moved to Oak street", user="u", now=T0)
        mem.remember("我在一家公司上班", user="u", now=T0)


def run(path: str | Path, *, kills: int = 200, seed: int = 0, embedder: Any = None, min_delay_s: float = 0.05,
        max_delay_s: float = 1.2, verbose: bool = False) -> dict[str, Any]:
    """Kill the writer ``kills`` times; after each kill reopen and verify. Returns the figures."""
    if embedder is None:
        embedder = mnemir.USEEmbedder()
    _warm_up(embedder)
    path = str(path)
    log = path + ".acks.jsonl"
    rng = random.Random(seed)
    killed_mid_call = 0
    alive = 0.0
    last: dict[str, Any] = {}
    started = time.perf_counter()
    for life in range(kills):
        size_before = os.path.getsize(log) if os.path.exists(log) else 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: the child uses none of them
            pid = os.fork()
        if pid == 0:  # the writer
            code = 0
            try:
                _writer(path, embedder, life, log, seed)
            except BaseException:  # a writer that fails on its own is reported by its exit code
                import traceback
                traceback.print_exc()
                code = 3
            os._exit(code)
        delay = rng.uniform(min_delay_s, max_delay_s)
        alive += delay
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            raise RuntimeError(f"life {life}: the writer ended on its own (status {status}), not by the kill")
        lines = Path(log).read_bytes()[size_before:].decode().splitlines() if os.path.exists(log) else []
        if lines and json.loads(lines[-1])["op"].endswith("-intent"):
            killed_mid_call += 1
        last = _verify(path, embedder, log)
        if verbose:
            print(f"kill {life + 1}/{kills}: {last['acknowledged']} acknowledged, {last['records']} records, "
                  f"{len(last['problems'])} problems", file=sys.stderr)
        if last["problems"]:
            break
    return {"kills": life + 1 if kills else 0, "writer_seconds_alive": round(alive, 1), "acknowledged_writes": last.get("acknowledged", 0),
            "records": last.get("records", 0), "killed_inside_an_update_delete_or_batch": killed_mid_call,
            "problems": last.get("problems", []), "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=3.0, help="longest life of a writer, in seconds")
    parser.add_argument("--path", default=None, help="store location (default: a new temp dir)")
    args = parser.parse_args()
    root = Path(args.path) if args.path else Path(tempfile.mkdtemp(prefix="mnemir-crash-"))
    result = run(root / "store", kills=args.kills, seed=args.seed, max_delay_s=args.max_delay, verbose=True)
    print(json.dumps(result, ensure_ascii=False, indent=2))
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
