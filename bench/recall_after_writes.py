"""Benchmark: what the first mem.recall() after a batch of writes costs on a 100k-memory store (the cache path).

The store of bench/recall_latency.py (one user scope by default) is built, recall is warmed on its queries, and then
for each batch size N: N more memories are written (through the store contract, as the build writes them) and the
next recalls are timed, the first one apart (it catches the vector cache up with the writes: vectors, scopes,
indexed properties, the int8 copy) from those after it (nothing left to catch up). With ``--profile`` the first
recall after the largest batch is profiled too (cProfile, top functions by cumulative time).

    .venv/bin/python bench/recall_after_writes.py --users 1               # 100k, batches of 1, 10, 100, 1000, 5000
    .venv/bin/python bench/recall_after_writes.py --n 20000 --profile     # quicker
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import recall_latency as rl

import mnemir
from mnemir.embed.base import normalize_rows
from mnemir.store.base import Write


def write_more(mem: mnemir.Memory, count: int, start: int, users: int, queries: np.ndarray, rng: random.Random,
               nprng: np.random.Generator) -> None:
    types = [t for t, share in rl.MIX.items() for _ in range(round(share * 1000))]
    batch = []
    for i in range(start, start + count):
        record = rl.make_record(types[i % len(types)], i, rng, users)
        if rng.random() < 0.05:
            vec = queries[rng.randrange(len(queries))] + nprng.normal(0, 0.04, queries.shape[1])
        else:
            vec = nprng.normal(0, 1, queries.shape[1])
        batch.append(Write(record, normalize_rows(vec)[0]))
        if len(batch) == 1000:
            mem.store.write(batch, model_id=mem.embedder.model_id)
            batch = []
    if batch:
        mem.store.write(batch, model_id=mem.embedder.model_id)


def clocked(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 10, 100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=5, help="times each batch size is written and recalled after")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemir-recall-after-") as tmp:
        mem = mnemir.open(Path(tmp) / "mem")
        qvecs = np.vstack([mem.embedder.embed_query(q) for q in rl.QUERIES])
        seconds = rl.build(mem, args.n, args.users, qvecs, args.seed)
        print(f"built {args.n} memories over {args.users} users in {seconds:.1f} s; mnemir {mnemir.__file__}")
        rng, nprng = random.Random(args.seed + 1), np.random.default_rng(args.seed + 1)
        plan = [(q, f"user{rng.randrange(args.users)}") for q in rl.QUERIES]
        for q, user in plan[:5]:
            mem.recall(q, user=user, k=5, now=rl.NOW)
        steady = [clocked(lambda q=q, u=user: mem.recall(q, user=u, k=5, now=rl.NOW)) for q, user in plan]
        print(f"steady recall p50 wall {statistics.median(w for w, _ in steady):.1f} ms, "
              f"cpu {statistics.median(c for _, c in steady):.1f} ms")
        # each query alone once more (its own cost, nothing to catch up), then per batch size: N writes, the
        # query (first: the catch-up included), the same query again (second); the difference is the catch-up
        own = {q: clocked(lambda q=q, u=user: mem.recall(q, user=u, k=5, now=rl.NOW)) for q, user in plan}
        print("per query, steady (wall / cpu ms): " + ", ".join(f"{w:.0f}/{c:.0f}" for w, c in own.values()))
        print(f"{'batch':>6}{'write ms':>10}{'first wall':>12}{'first cpu':>11}{'again wall':>12}{'again cpu':>11}"
              f"{'extra cpu':>11}")
        written = args.n
        for count in args.batches:
            firsts, agains, writes = [], [], []
            for r in range(args.repeat):
                q, user = plan[(r * 4) % len(plan)]
                w0 = time.perf_counter()
                write_more(mem, count, written, args.users, qvecs, rng, nprng)
                writes.append((time.perf_counter() - w0) * 1000)
                written += count
                profile = args.profile and count == args.batches[-1] and r == 0
                if profile:
                    prof = cProfile.Profile()
                    prof.enable()
                firsts.append(clocked(lambda q=q, u=user: mem.recall(q, user=u, k=5, now=rl.NOW)))
                if profile:
                    prof.disable()
                    out = io.StringIO()
                    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(30)
                    profiled = out.getvalue()
                agains.append(clocked(lambda q=q, u=user: mem.recall(q, user=u, k=5, now=rl.NOW)))
            fw, fc = statistics.median(w for w, _ in firsts), statistics.median(c for _, c in firsts)
            aw, ac = statistics.median(w for w, _ in agains), statistics.median(c for _, c in agains)
            extra = statistics.median(f[1] - a[1] for f, a in zip(firsts, agains, strict=True))
            print(f"{count:>6}{statistics.median(writes):>10.0f}{fw:>12.1f}{fc:>11.1f}{aw:>12.1f}{ac:>11.1f}"
                  f"{extra:>11.1f}", flush=True)
        if args.profile:
            print(f"first recall after the last batch of {args.batches[-1]}:")
            print(profiled)
        mem.close()


if __name__ == "__main__":
    main()
