"""The SQLite store's approximate index for large scopes: build, calibration, latency and recall against exact.

    .venv/bin/python bench/ann_index.py                    # 100k records x 512-d (low intrinsic dimension)
    .venv/bin/python bench/ann_index.py --n 20000 --vectors random

Records and vectors are those of bench/peers.py (``--vectors lowrank``: a 48-d Gaussian mapped into 512-d plus
noise, closer to sentence embeddings; ``random``: iid unit vectors, the worst case for any graph index). The store is
built through ``write()``, then ``build_ann_index()`` builds and calibrates the index; each query runs with the index
and exactly (interleaved), unfiltered and with a 50 % and a 15 % filter on an indexed property. Recall@10 is against
the exact answer. Then: reopening the store (the index is loaded from its file, not rebuilt) and catching up with
1,000 records written by another connection.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from peers import USER, MnemirSystem, dataset

from mnemir.ontology import Ontology
from mnemir.store.base import Selection
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--vectors", choices=("lowrank", "random"), default="lowrank")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    data = dataset(args.n, args.dim, args.seed, args.queries)
    if args.vectors == "random":
        rng = np.random.default_rng(args.seed)
        for name, count in (("vectors", args.n), ("queries", args.queries)):
            v = rng.standard_normal((count, args.dim), dtype=np.float32)
            data[name] = v / np.linalg.norm(v, axis=1, keepdims=True)
    root = Path(tempfile.mkdtemp(prefix="mnemir-bench-ann-"))
    system = MnemirSystem(root, args.dim)
    began = time.perf_counter()
    system.insert(data, 1000)
    insert_s = time.perf_counter() - began
    store: SQLiteStore = system.store
    store.ann_min_candidates = min(50_000, args.n // 2)
    began = time.perf_counter()
    info = store.build_ann_index()
    build_s = time.perf_counter() - began
    print(f"index: {info} in {build_s:.1f} s", file=sys.stderr, flush=True)
    onto = Ontology()
    # attribute == weather: 15 %; attribute != weather: 85 %; every record: 100 %
    cases = {"100% (no filter)": Selection(user_id=USER),
             "85% (indexed property)": Selection(user_id=USER, where=parse_filter({"attribute": {"$ne": "weather"}},
                                                                                  onto)),
             "15% (indexed property)": Selection(user_id=USER, where=parse_filter({"attribute": "weather"}, onto))}
    rows = []
    for name, selection in cases.items():
        times: dict[str, list[float]] = {"ann": [], "exact": []}
        recalls, paths = [], []
        for n, q in enumerate(data["queries"]):
            got = {}
            for path in ("ann", "exact") if n % 2 else ("exact", "ann"):
                keep = store._ann
                if path == "exact":
                    store._ann = None
                began = time.perf_counter()
                got[path] = store.vector_search(selection, q, args.k)
                times[path].append((time.perf_counter() - began) * 1000)
                if path == "ann":
                    paths.append(store.last_search_path)
                store._ann = keep
            want = {i for i, _ in got["exact"]}
            recalls.append(len(want & {i for i, _ in got["ann"]}) / max(len(want), 1))
        rows.append({"filter": name, "ann_p50_ms": statistics.median(times["ann"]),
                     "ann_p95_ms": float(np.percentile(times["ann"], 95)),
                     "exact_p50_ms": statistics.median(times["exact"]),
                     "exact_p95_ms": float(np.percentile(times["exact"], 95)),
                     "recall": float(np.mean(recalls)), "min_recall": float(np.min(recalls)),
                     "paths": {p: paths.count(p) for p in sorted(set(paths))}})
    store.close()
    began = time.perf_counter()
    again = SQLiteStore(root / "bench.db", ontology=onto, ann=True, ann_min_candidates=min(50_000, args.n // 2))
    again.vector_search(cases["100% (no filter)"], data["queries"][0], args.k)
    reopen_s = time.perf_counter() - began
    rebuilt_on_reopen = again._ann.builds if again._ann else None
    writer = MnemirSystem.__new__(MnemirSystem)
    writer.store, writer.server = SQLiteStore(root / "bench.db", ontology=onto), None
    extra = dataset(1000, args.dim, args.seed + 1, 1)
    from mnemir.ir import MemIR
    from mnemir.store.base import Write

    writer.store.write([Write(MemIR.model_validate({"id": f"x{i:07d}", "content": {"text": extra["texts"][i]},
                                                    "type": "Fact", "properties": extra["props"][i],
                                                    "scope": {"user_id": USER}}), extra["vectors"][i])
                        for i in range(1000)], model_id="bench-lowrank-512")
    writer.store.close()
    began = time.perf_counter()
    again.vector_search(cases["100% (no filter)"], data["queries"][1], args.k)
    catch_up_s = time.perf_counter() - began
    caught_up = {"path": again.last_search_path, "builds": again._ann.builds if again._ann else None}
    again.close()
    disk = {p.name: p.stat().st_size / 2**20 for p in root.iterdir() if p.is_file()}
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    result = {"n": args.n, "dim": args.dim, "k": args.k, "queries": args.queries, "vectors": args.vectors,
              "insert_records_per_s": args.n / insert_s, "build_s": build_s, "index": info, "search": rows,
              "reopen_and_first_search_s": reopen_s, "rebuilt_on_reopen": rebuilt_on_reopen,
              "catch_up_1000_writes_s": catch_up_s, "after_catch_up": caught_up, "disk_mib": disk}
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


def report(r: dict[str, Any]) -> None:
    i = r["index"]
    print(f"# approximate index, {r['n']} records x {r['dim']}-d ({r['vectors']} vectors), k={r['k']}, "
          f"{r['queries']} queries")
    print(f"insert {r['insert_records_per_s']:.0f} records/s; index build + calibration {r['build_s']:.1f} s: width "
          f"{i.get('width')}, calibration recall@10 {i.get('recall', 0):.3f}, used: {i.get('usable')} "
          f"({i.get('reason')})")
    print(f"reopen + first search {r['reopen_and_first_search_s']:.2f} s (rebuilds: {r['rebuilt_on_reopen']}); "
          f"catching up with 1,000 writes of another connection {r['catch_up_1000_writes_s']:.2f} s "
          f"({r['after_catch_up']}); files MiB {r['disk_mib']}\n")
    print("| filter | exact p50 / p95 ms | with index p50 / p95 ms | exact / index | recall@k (min) | paths |")
    print("|---|---:|---:|---:|---:|---|")
    for s in r["search"]:
        print(f"| {s['filter']} | {s['exact_p50_ms']:.2f} / {s['exact_p95_ms']:.2f} | {s['ann_p50_ms']:.2f} / "
              f"{s['ann_p95_ms']:.2f} | {s['exact_p50_ms'] / s['ann_p50_ms']:.1f}x | {s['recall']:.3f} "
              f"({s['min_recall']:.1f}) | {s['paths']} |")


if __name__ == "__main__":
    raise SystemExit(main())
