"""Benchmark: governed ``add`` calls per second with 1, 2, 4, 8 and 16 concurrent callers (decision 0113).

    python bench/concurrent_add.py --compare /tmp/start/src                 # this checkout and another, side by side
    python bench/concurrent_add.py --sizes 10000 --rounds 1 --total 160     # a quick run
    python bench/concurrent_add.py --compare /tmp/start/src --asyncio        # callers are asyncio tasks instead
    python bench/concurrent_add.py --compare /tmp/start/src --synchronous full   # an fsync at every commit

On the store of N memories that ``scale.py`` builds (under ``--root``; built there if missing), ``C`` threads sharing
one ``Memory`` each add ``--total / C`` new Fact records into the big scope, one governed ``add`` per record, with
their vectors precomputed (``add(vector=...)``: the store is measured, not the model), no ``id`` and no ``now`` (as
an application calls it); every record is about a new subject, so governance searches for duplicates and rules and
finds none. Timed: from the start barrier to the last call's return (wall), the process's CPU time over the same
span, and each call's own wall time (p50, p99). What is added is deleted again after each level.

Each round runs every size and level in a process of its own per checkout; rounds alternate between checkouts, so
both see the same load. Reported: the median over rounds and the spread ((max - min) / median), the load averages,
and this checkout's batches (calls per transaction). Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _results import machine  # noqa: E402
from _worker import add_options, alternate, command_line, systems, worker_command, write_json  # noqa: E402

SEED = 20261207
LEVELS = (1, 2, 4, 8, 16)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def measure_level(mem: Any, items: list[dict[str, Any]], vectors: Any, callers: int, use_asyncio: bool,
                  user: str) -> dict[str, Any]:
    """``callers`` concurrent callers, ``len(items)`` adds in all; returns rates and the ids to delete."""
    shares = [list(range(c, len(items), callers)) for c in range(callers)]
    took: list[float] = []
    ids: list[str] = []
    group = mem._add_group() if hasattr(mem, "_add_group") else None
    before = (group.batches, group.calls) if group is not None else (0, 0)

    def one(j: int) -> None:
        t = time.perf_counter()
        stored = mem.add(items[j]["text"], "Fact", items[j]["properties"], user=user, vector=vectors[j])
        took.append(time.perf_counter() - t)
        ids.append(stored.id)

    if use_asyncio:
        import mnemir

        amem = mnemir.AsyncMemory(mem)

        async def caller(share: list[int]) -> None:
            for j in share:
                t = time.perf_counter()
                stored = await amem.add(items[j]["text"], "Fact", items[j]["properties"], user=user,
                                        vector=vectors[j])
                took.append(time.perf_counter() - t)
                ids.append(stored.id)

        async def run_all() -> tuple[float, float]:
            t0, c0 = time.perf_counter(), time.process_time()
            await asyncio.gather(*(caller(s) for s in shares))
            return time.perf_counter() - t0, time.process_time() - c0

        wall, cpu = asyncio.run(run_all())
    else:
        barrier = threading.Barrier(callers + 1)
        done = threading.Barrier(callers + 1)

        def caller(share: list[int]) -> None:
            barrier.wait()
            for j in share:
                one(j)
            done.wait()

        threads = [threading.Thread(target=caller, args=(s,)) for s in shares]
        for thread in threads:
            thread.start()
        barrier.wait()
        t0, c0 = time.perf_counter(), time.process_time()
        done.wait()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        for thread in threads:
            thread.join()
    out: dict[str, Any] = {"calls": len(items), "per_s": len(items) / wall, "per_cpu_s": len(items) / cpu,
                           "p50_ms": statistics.median(took) * 1000, "p99_ms": _pct(took, 99) * 1000}
    if group is not None:
        batches, calls = group.batches - before[0], group.calls - before[1]
        out["calls_per_batch"] = calls / batches if batches else 0.0
    out["_ids"] = ids
    return out


def measure_size(n: int, root: Path, total: int, use_asyncio: bool, synchronous: str,
                 levels: tuple[int, ...] = LEVELS) -> dict[str, Any]:
    import scale

    count = total * (len(levels) + 1)
    store, mem, records, vectors, _ = scale.open_for_writes(root, n, SEED, 10**6 + 13, count, synchronous=synchronous)
    items = [{"text": r.content.text, "properties": {**r.properties, "entity": f"conc{j}"}}
             for j, r in enumerate(records)]
    out: dict[str, Any] = {"n": n}
    try:
        warm = measure_level(mem, items[:total], vectors[:total], 4, use_asyncio, scale.USER)  # caches, dictionary
        store.write([], model_id=scale.MODEL, delete_ids=warm.pop("_ids"))
        for k, callers in enumerate(levels, start=1):
            lo = k * total
            load = os.getloadavg()[0]
            level = measure_level(mem, items[lo:lo + total], vectors[lo:lo + total], callers, use_asyncio,
                                  scale.USER)
            store.write([], model_id=scale.MODEL, delete_ids=level.pop("_ids"))
            out[str(callers)] = {**level, "load": load}
    finally:
        store.close()
    return out


def worker(args: argparse.Namespace) -> dict[str, Any]:
    import mnemir

    out: dict[str, Any] = {"mnemir": mnemir.__file__, "load_start": os.getloadavg()[0]}
    out["sizes"] = {str(n): measure_size(n, args.root, args.total if n < 50_000 else args.total_large, args.asyncio,
                                        args.synchronous, tuple(args.levels))
                    for n in args.sizes}
    out["load_end"] = os.getloadavg()[0]
    return out


def summary(runs: list[Any]) -> Any:
    first = runs[0]
    if isinstance(first, dict):
        return {k: summary([r[k] for r in runs]) for k in first if all(k in r for r in runs)}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        values = [float(r) for r in runs]
        median = statistics.median(values)
        return {"median": median, "spread": (max(values) - min(values)) / median if median else 0.0,
                "min": min(values), "max": max(values)}
    return first


def report(systems: dict[str, Any], levels: list[int]) -> list[str]:
    names = list(systems)
    lines = []
    sizes = systems[names[0]]["sizes"]
    for n in sizes:
        lines.append(f"### {int(n):,} memories")
        head = " | ".join(f"{name}: add/s wall (spread), per CPU s, p50 / p99 ms" for name in names)
        lines.append(f"| callers | {head} |" + (" ratio wall | calls per transaction |" if len(names) == 2 else ""))
        lines.append("|---:|" + "---|" * len(names) + ("---:|---:|" if len(names) == 2 else ""))
        for level in map(str, levels):
            cells = []
            for name in names:
                r = systems[name]["sizes"][n][level]
                cells.append(f"{r['per_s']['median']:,.0f} ({r['per_s']['spread']:.2f}), "
                             f"{r['per_cpu_s']['median']:,.0f}, {r['p50_ms']['median']:.1f} / "
                             f"{r['p99_ms']['median']:.1f}")
            row = f"| {level} | " + " | ".join(cells) + " |"
            if len(names) == 2:
                a, b = (systems[name]["sizes"][n][level] for name in names)
                per_batch = a.get("calls_per_batch", {}).get("median", 1.0)
                row += f" {a['per_s']['median'] / b['per_s']['median']:.2f}x | {per_batch:.1f} |"
            lines.append(row)
        loads = [systems[name]["sizes"][n][lv]["load"] for name in names for lv in map(str, levels)]
        lines.append(f"load (1-min average at each level's start): {min(x['min'] for x in loads):.1f}-"
                     f"{max(x['max'] for x in loads):.1f}")
        lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",") if x], default=[10_000, 100_000])
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"), help="where scale.py's stores are")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--total", type=int, default=480, help="adds per level under 50,000 memories")
    parser.add_argument("--total-large", type=int, default=240, help="adds per level from 50,000 memories")
    parser.add_argument("--levels", type=lambda v: [int(x) for x in v.split(",") if x], default=list(LEVELS),
                        help="numbers of concurrent callers")
    parser.add_argument("--asyncio", action="store_true", help="callers are asyncio tasks on AsyncMemory")
    parser.add_argument("--synchronous", choices=("normal", "full"), default="normal",
                        help="the SQLite store's sqlite_synchronous setting")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    passed = ["--sizes", ",".join(map(str, args.sizes)), "--root", str(args.root), "--total", str(args.total),
              "--total-large", str(args.total_large), "--synchronous", args.synchronous,
              "--levels", ",".join(map(str, args.levels)),
              *(["--asyncio"] if args.asyncio else [])]
    runs = alternate(systems(args.compare), args.rounds, lambda name: worker_command(__file__, passed))
    result = {"machine": machine(), "command": command_line("concurrent_add.py", argv),
              "systems": {name: summary(rs) for name, rs in runs.items()}, "rounds": runs}
    lines = report(result["systems"], args.levels)
    print("\n".join(lines))
    result["report"] = lines
    write_json(args.json, result, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
