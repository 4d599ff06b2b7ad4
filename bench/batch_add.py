"""Benchmark: one governed ``add_many`` call of many typed records (vectors given) and ``remember`` of a few hundred
utterances, side by side with another checkout, with per-stage CPU timers (issue 20's ingest targets).

    python bench/batch_add.py --root /tmp/perf33/scale                          # this checkout, 1k and 10k
    python bench/batch_add.py --root /tmp/perf33/scale --compare /tmp/base/src --rounds 3 --json out.json

Each round, each system in a process of its own (the systems alternate, so both see the same load), copies
scale.py's store of ``--n`` memories (under ``--root``; built there if missing) and writes ONE
``add_many(govern=True)`` call of each ``--batches`` size, each on a fresh copy, with a mixed workload that makes
governance decide (``workload``): new facts, facts whose entity and attribute the store already holds with another
value (supersessions, clarifications), repeats of earlier items of the batch and repeats of stored memories
(merges). It reports records per second of the call (wall and CPU), CPU ms per record by stage, and a digest of
what the call stored (every touched record, its status, text, properties and history actions): the digests of the
two systems must be equal. Then ``remember`` one utterance a call over ``--users`` copies of the scripted
conversation, with the default embedder's own rate (one text a call, and batched) in the same process.
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _results import machine  # noqa: E402
from _stages import instrument, median_of  # noqa: E402
from _worker import add_options, alternate, command_line, systems, worker_command, write_json  # noqa: E402

SEED = 20261207

#: (label, module, attribute path): the stages timed (inclusive, outermost call only)
STAGES = [
    ("call, whole (add_many)", "mnemir.memory.core", "MemoryCore.add_many"),
    ("validation (item_record, _prepare)", "mnemir.memory.core", "MemoryCore._prepare"),
    ("governance, whole (Governor.govern)", "mnemir.lifecycle.governor", "Governor.govern"),
    ("  look-ups (_look_up)", "mnemir.lifecycle.governor", "Governor._look_up"),
    ("    duplicate search (vector_search_many)", "mnemir.store.sqlite.store", "SQLiteStore.vector_search_many"),
    ("    key and rule filters built (_keyed)", "mnemir.lifecycle.governor", "Governor._keyed"),
    ("    key and rule selections (select_many)", "mnemir.store.sqlite.store", "SQLiteStore.select_many"),
    ("    neighbour records read (fetch)", "mnemir.store.sqlite.store", "SQLiteStore.fetch"),
    ("    key-matched vectors read (vectors)", "mnemir.store.sqlite.store", "SQLiteStore.vectors"),
    ("  merge checks (_merge)", "mnemir.lifecycle.governor", "Governor._merge"),
    ("    find_duplicate", "mnemir.lifecycle.governor", "find_duplicate"),
    ("  supersession / contradiction checks (_conflicts)", "mnemir.lifecycle.governor", "Governor._conflicts"),
    ("store write, whole (SQLiteStore.write)", "mnemir.store.sqlite.store", "SQLiteStore.write"),
    ("  rows and history JSON (_prepare_write)", "mnemir.store.sqlite.store", "_prepare_write"),
    ("  full-text segmentation (_segment)", "mnemir.store.sqlite.store", "SQLiteStore._segment"),
    ("  the transaction's SQL (_write)", "mnemir.store.sqlite.store", "SQLiteStore._write"),
]


def workload(n: int, size: int, store: Any) -> tuple[list[dict[str, Any]], Any, list[str]]:
    """``size`` items (with their vectors) and the stored ids they may touch. Of every 20 items: 12 new facts
    (an entity of their own), 4 facts on an entity and attribute the store holds (scale.py's own properties: a
    value that may differ), 1 new value of an earlier new fact of the batch, 2 repeats of an earlier item of the batch, 1 repeat of a stored memory."""
    import numpy as np
    import scale

    from mnemir.store.base import Selection

    records, vectors = scale.new_records(SEED, 10**6 + 21, n, size, scale.centres(SEED))
    stored = store.select(Selection(user_id=scale.USER, types=("Fact",)), limit=max(1, size // 20))
    stored_vectors = store.vectors([r.id for r in stored], user=scale.USER)
    items: list[dict[str, Any]] = []
    out = np.array(vectors, dtype=np.float32, copy=True)
    for j, record in enumerate(records):
        kind = j % 20
        props = dict(record.properties)
        item = {"text": record.content.text, "type": "Fact", "properties": props, "id": f"b{SEED}-{j}"}
        if kind < 12:
            props["entity"] = f"batch{j}"
        elif kind == 16:  # an earlier new fact's entity and attribute with another value: a supersession
            earlier = items[j - 16]
            props = {**earlier["properties"], "value": f"{props['value']} {j}"}
            item = {**item, "properties": props}
        elif kind in (17, 18) and j >= 20:
            earlier = items[j - 20 + (kind - 17) * 3]
            item = {**earlier, "properties": dict(earlier["properties"]), "id": f"b{SEED}-{j}"}
            out[j] = out[j - 20 + (kind - 17) * 3]
        elif kind == 19 and stored:
            old = stored[(j // 20) % len(stored)]
            item = {"text": old.content.text, "type": "Fact", "properties": dict(old.properties),
                    "id": f"b{SEED}-{j}"}
            out[j] = stored_vectors[old.id]
        items.append(item)
    return items, out, [r.id for r in stored]


def digest(store: Any, ids: list[str]) -> tuple[str, dict[str, int]]:
    """A digest of the records at ``ids`` (any status) and their histories' actions and reasons; and the count of
    each history action among them."""
    import scale

    from mnemir.ir import MemoryStatus
    from mnemir.store.base import Selection

    h = hashlib.sha256()
    actions: dict[str, int] = {}
    found = {r.id: r for r in store.select(Selection(user_id=scale.USER, ids=list(ids), statuses=tuple(MemoryStatus)))}
    for mid in sorted(found):
        r = found[mid]
        h.update(json.dumps([r.id, r.status.value, r.content.text, r.properties, str(r.valid_to)],
                            sort_keys=True, default=str).encode())
        for e in store.history(mid):
            actions[e.action.value] = actions.get(e.action.value, 0) + 1
            h.update(json.dumps([e.action.value, e.reason, e.actor, str(e.at)]).encode())
    return h.hexdigest()[:16], actions


def measure_batch(n: int, root: Path, size: int) -> dict[str, Any]:
    import time

    import scale

    import mnemir
    from mnemir.store.sqlite import SQLiteStore

    path = scale.store_path(root, n)
    if not path.exists():
        scale.build(path, n, 20261205)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        copy = Path(tmp) / path.name
        for file in path.parent.glob(path.name + "*"):
            shutil.copy(file, copy.parent / file.name.replace(path.name, copy.name))
        onto = scale.ontology()
        store = SQLiteStore(copy, ontology=onto, ann=True)
        items, vectors, stored = workload(n, size, store)
        mem = mnemir.Memory(store, embedder=scale.LookupEmbedder({}), ontology=onto, config=mnemir.MemoryConfig())
        # warm-up: the segmenter's dictionary, the vector cache and its int8 copy, one governed write
        mem.add_many([{"text": "a warm-up fact", "type": "Fact", "properties": {"entity": "warm", "attribute": "up"},
                       "id": "warm-up"}], user=scale.USER, vectors=vectors[:1], govern=True, now=scale.NOW)
        spent, calls = instrument(STAGES)
        wall, cpu = time.perf_counter(), time.process_time()
        written = mem.add_many(items, user=scale.USER, vectors=vectors, govern=True, now=scale.NOW)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        touched = list(dict.fromkeys([*(i["id"] for i in items), *(r.id for r in written), *stored]))
        code, actions = digest(store, touched)
        store.close()
    return {"records": size, "per_s": size / wall, "per_cpu_s": size / cpu, "cpu_ms_per_record": 1000 * cpu / size,
            "stages_ms_per_record": {k: 1000 * v / size for k, v in spent.items()},
            "stage_calls": dict(calls), "digest": code, "history_actions": actions, "returned": len(written)}


def measure_remember(users: int, repeat: int) -> dict[str, Any]:
    from ingest import measure_dialogue, measure_embedder

    return {"embedder": measure_embedder(repeat), "dialogue": measure_dialogue(users)}


def worker(args: argparse.Namespace) -> dict[str, Any]:
    import os

    import mnemir

    out: dict[str, Any] = {"mnemir": mnemir.__file__, "load_start": os.getloadavg()[0]}
    out["batches"] = {str(size): measure_batch(args.n, args.root, size) for size in args.batches}
    if args.users:
        out["remember"] = measure_remember(args.users, args.embed_repeat)
    out["load_end"] = os.getloadavg()[0]
    return out


def report(runs: dict[str, list[dict[str, Any]]], batches: list[int], users: int) -> list[str]:
    names = list(runs)
    lines = [f"systems: {' | '.join(names)} (median of {len(next(iter(runs.values())))} rounds)"]
    first = names[0]
    for size in batches:
        key = str(size)
        lines.append(f"\none add_many(govern=True) of {size:,} records:")
        for label in ("per_s", "per_cpu_s", "cpu_ms_per_record"):
            vals = [median_of(runs[name], "batches", key, label) or 0.0 for name in names]
            ratio = f"  ({vals[0] / vals[-1]:.2f}x)" if len(vals) > 1 and vals[-1] else ""
            lines.append(f"  {label:<20} " + " | ".join(f"{v:,.2f}" for v in vals) + ratio)
        digests = {name: sorted({r["batches"][key]["digest"] for r in runs[name]}) for name in names}
        same = len({tuple(d) for d in digests.values()}) == 1 and len(digests[first]) == 1
        lines.append(f"  digest {digests[first]} {'SAME in every round and system' if same else 'DIFFERENT: ' + str(digests)}")
        lines.append(f"  history actions {runs[first][0]['batches'][key]['history_actions']}")
        lines.append("  CPU ms per record by stage:")
        for label, *_ in STAGES:
            vals = [median_of(runs[name], "batches", key, "stages_ms_per_record", label) for name in names]
            if any(v is not None for v in vals):
                lines.append(f"    {label:<52} " + " | ".join("-" if v is None else f"{v:.3f}" for v in vals))
    if users:
        lines.append("\nremember, one utterance a call, against the embedder in the same process:")
        for label, keys in (("embedder one text / s", ("embedder", "one_at_a_time", "per_s")),
                            ("embedder one text / CPU s", ("embedder", "one_at_a_time", "per_cpu_s")),
                            ("embedder batched / CPU s", ("embedder", "batched", "per_cpu_s")),
                            ("remember / s", ("dialogue", "remember", "per_s")),
                            ("remember / CPU s", ("dialogue", "remember", "per_cpu_s")),
                            ("ingest / CPU s", ("dialogue", "ingest", "per_cpu_s"))):
            vals = [median_of(runs[name], "remember", *keys) or 0.0 for name in names]
            lines.append(f"  {label:<28} " + " | ".join(f"{v:,.1f}" for v in vals))
        for name in names:
            share = [r["remember"]["dialogue"]["remember"]["per_cpu_s"]
                     / r["remember"]["embedder"]["one_at_a_time"]["per_cpu_s"] for r in runs[name]]
            lines.append(f"  {name}: remember / embedder one text (CPU), per round: "
                         + ", ".join(f"{s:.2f}" for s in share))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"), help="where scale.py's stores are")
    parser.add_argument("--n", type=int, default=10_000, help="the store's size")
    parser.add_argument("--batches", type=lambda v: [int(x) for x in v.split(",") if x], default=[1000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--users", type=int, default=3, help="conversations for remember (100 turns each; 0: none)")
    parser.add_argument("--embed-repeat", type=int, default=3, help="the conversation's texts, this many times")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    passed = ["--root", str(args.root), "--n", str(args.n), "--batches", ",".join(map(str, args.batches)),
              "--users", str(args.users), "--embed-repeat", str(args.embed_repeat)]
    runs = alternate(systems(args.compare), args.rounds, lambda name: worker_command(__file__, passed))
    lines = report(runs, args.batches, args.users)
    print("\n".join(lines))
    write_json(args.json, {"machine": machine(), "command": command_line("batch_add.py", argv), "report": lines,
                           "rounds": runs}, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
