"""Governed writes on a large store: ``Memory.add`` one record at a time and ``Memory.add_many(govern=True)``, with
their duplicate and contradiction look-ups, on a store built by ``bench/scale.py`` (issue 20).

    python bench/governed_writes.py --n 1000000 --root /tmp/s11-scale --json out.json

Opens the store (``ann=True``), times the first search (the vector cache's load: from its file beside the store
when there is one), then adds ``--add`` new Fact records of the store's one user through ``Memory.add`` (vectors
precomputed: an embedder that looks them up) and ``--batch`` more through one ``add_many(govern=True)`` call, and
removes them all again. Wall and CPU time per record (the machine is shared: CPU time moves less with its load);
for ``add``, p50 and the slowest call. Nothing here is specific to the current code: run it with an older checkout's
``src`` on ``PYTHONPATH`` to compare versions on the same store.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale  # the store's data and helpers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"))
    parser.add_argument("--add", type=int, default=50)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--label", default="")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    import mnemir
    from mnemir.store.base import Selection
    from mnemir.store.sqlite import SQLiteStore

    path = scale.store_path(args.root, args.n)
    if not path.exists():
        scale.build(path, args.n, args.seed)
    onto = scale.ontology()
    out: dict[str, Any] = {"n": args.n, "label": args.label, "mnemir": mnemir.__file__,
                           "load_average_start": os.getloadavg()}
    began, cpu0 = time.perf_counter(), time.process_time()
    store = SQLiteStore(path, ontology=onto, ann=True)
    where = scale.centres(args.seed)
    store.vector_search(Selection(user_id=scale.USER, types=("Fact",)), scale.queries(args.seed, 1, where)[0], 10)
    out["first_search_s"] = time.perf_counter() - began
    out["first_search_cpu_s"] = time.process_time() - cpu0
    cache_file = getattr(store, "cache_file", None)
    out["cache_load"] = cache_file.last_load if cache_file is not None else "sqlite (no cache file)"

    count = args.add + args.batch
    props = scale.chunk_props(args.seed, 10**6 + 5, args.n, count)
    vectors = scale.chunk_vectors(args.seed, 10**6 + 5, count, where)
    records = [scale.record_of(args.n + j, props, j) for j in range(count)]
    table = {r.content.text: vectors[j] for j, r in enumerate(records)}
    mem = mnemir.Memory(store, embedder=scale.LookupEmbedder(table), ontology=onto, config=mnemir.MemoryConfig())
    ids = [f"gw{args.seed}-{j}" for j in range(count)]
    try:
        walls, cpus = [], []
        for j in range(args.add):
            r = records[j]
            t0, c0 = time.perf_counter(), time.process_time()
            mem.add(r.content.text, "Fact", {**r.properties, "entity": f"gw{j}"}, user=scale.USER, id=ids[j],
                    now=scale.NOW)
            walls.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.process_time() - c0) * 1000)
        steady = walls[1:] or walls  # the first call loads the text segmenter's dictionary
        out["add"] = {"records": args.add, "p50_ms": statistics.median(steady), "max_ms": max(steady),
                      "cpu_p50_ms": statistics.median(cpus[1:] or cpus), "first_ms": walls[0],
                      "records_per_s": args.add / (sum(walls) / 1000),
                      "records_per_cpu_s": args.add / (sum(cpus) / 1000)}
        items = [{"text": records[j].content.text, "type": "Fact",
                  "properties": {**records[j].properties, "entity": f"gw{j}"}, "id": ids[j]}
                 for j in range(args.add, count)]
        t0, c0 = time.perf_counter(), time.process_time()
        mem.add_many(items, user=scale.USER, vectors=vectors[args.add :], govern=True, now=scale.NOW)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out["add_many_governed"] = {"records": args.batch, "seconds": wall, "records_per_s": args.batch / wall,
                                    "cpu_s": cpu, "records_per_cpu_s": args.batch / cpu}
    finally:
        store.write([], model_id=scale.MODEL, delete_ids=ids)
    out["load_average_end"] = os.getloadavg()
    began = time.perf_counter()
    store.close()
    out["close_s"] = time.perf_counter() - began
    out["command"] = "python bench/governed_writes.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(json.dumps(out, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
