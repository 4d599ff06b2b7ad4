"""Filtered vector search, PostgreSQL (pgvector) next to SQLite, on the same records in one run.

    .venv/bin/python bench/postgres_vs_sqlite.py                 # 100k records x 512-d
    .venv/bin/python bench/postgres_vs_sqlite.py --n 20000 --no-ann

Both stores are built fresh through ``write()`` (batches of 1000) from the same generated records as
bench/filtered_search.py (random L2-normalised vectors; properties with known selectivity). PostgreSQL is the
bundled embedded server (PostgreSQL 18 + pgvector), started in a temp directory for this run with
``shared_buffers=1GB`` and otherwise default (durable) settings, reached over a Unix socket.

For each filter: p50/p95 of ``vector_search(k)`` and recall@k against numpy brute force over the same rows
(the filtered set is computed in Python with ``filters.matches``). PostgreSQL runs its exact path (filter in
SQL, every candidate scored); then, unless ``--no-ann``, the HNSW index is built and the same searches are
run with the ANN path forced (``ann_min_candidates=1``), to show what the index buys and costs in recall.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from filtered_search import CASES, USER, generate, write_all  # the same data as the SQLite benchmark

from mnemir.ontology import Ontology
from mnemir.store.base import Selection, Store
from mnemir.store.filters import matches, parse_filter
from mnemir.store.postgres import PostgresStore, start_embedded_server
from mnemir.store.sqlite import SQLiteStore


def measure(store: Store, selection: Selection, queries: np.ndarray, k: int, allowed: np.ndarray,
            vectors: np.ndarray, ids: np.ndarray) -> dict[str, Any]:
    for q in queries[:3]:  # warm caches (SQLite's vector matrix, PostgreSQL's buffers)
        store.vector_search(selection, q, k)
    times, recalls, paths = [], [], []
    candidates = np.ascontiguousarray(vectors[allowed])
    for q in queries:
        began = time.perf_counter()
        got = store.vector_search(selection, q, k)
        times.append((time.perf_counter() - began) * 1000)
        paths.append(str(getattr(store, "last_search_path", "exact")))
        scores = candidates @ q
        best = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        want = set(ids[allowed[best]])
        recalls.append(len(want & {i for i, _ in got}) / max(len(want), 1))
    return {"p50_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95)),
            "recall": float(np.mean(recalls)), "min_recall": float(np.min(recalls)),
            "paths": ", ".join(f"{path} {paths.count(path)}" for path in sorted(set(paths)))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--no-ann", action="store_true", help="skip building the HNSW index")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    onto = Ontology()
    props, vectors = generate(args.n, args.dim, args.seed)
    ids = np.array([f"m{i:07d}" for i in range(args.n)])
    rng = np.random.default_rng(args.seed + 7)
    queries = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    root = Path(tempfile.mkdtemp(prefix="mnemir-bench-pg-"))
    root.chmod(0o711)  # as root the server runs as 'nobody'
    began = time.perf_counter()
    server = start_embedded_server(root / "data", settings={"shared_buffers": "1GB"})
    server_start_s = time.perf_counter() - began
    try:
        import psycopg

        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        pg = PostgresStore(server.database_url("bench"), ontology=onto)
        sqlite = SQLiteStore(root / "bench.db", ontology=onto)
        print(f"building {args.n} records in SQLite and PostgreSQL ...", file=sys.stderr, flush=True)
        rates = {"sqlite": write_all(sqlite, props, vectors, 1000), "postgres": write_all(pg, props, vectors, 1000)}
        with psycopg.connect(server.database_url("bench"), autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")  # what a long-running server's autovacuum would have done

        rows = []
        for name, (where, types) in CASES.items():
            node = parse_filter(where, onto)
            allowed = np.array([i for i, p in enumerate(props) if matches(node, SimpleNamespace(properties=p))])
            selection = Selection(user_id=USER, types=types, where=node)
            row: dict[str, Any] = {"filter": name, "selected": len(allowed), "share": len(allowed) / args.n}
            row["sqlite"] = measure(sqlite, selection, queries, args.k, allowed, vectors, ids)
            row["postgres"] = measure(pg, selection, queries, args.k, allowed, vectors, ids)
            rows.append(row)

        ann: dict[str, Any] = {}
        if not args.no_ann:
            print("building the HNSW index ...", file=sys.stderr, flush=True)
            began = time.perf_counter()
            pg.build_ann_index()
            ann["build_s"] = time.perf_counter() - began
            forced = PostgresStore(server.database_url("bench"), ontology=onto, ann_min_candidates=1)
            for row, (_name, (where, types)) in zip(rows, CASES.items(), strict=True):
                node = parse_filter(where, onto)
                allowed = np.array([i for i, p in enumerate(props) if matches(node, SimpleNamespace(properties=p))])
                row["postgres_ann"] = measure(forced, Selection(user_id=USER, types=types, where=node), queries,
                                              args.k, allowed, vectors, ids)
            forced.close()
        pg.close()
        sqlite.close()
    finally:
        server.stop()
        import shutil

        shutil.rmtree(root, ignore_errors=True)

    result = {"machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, Python "
                         f"{platform.python_version()}",
              "n": args.n, "dim": args.dim, "k": args.k, "queries": args.queries, "server_start_s": server_start_s,
              "build_records_per_s": rates, "ann": ann, "search": rows}
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    exact_bad = [r["filter"] for r in rows if r["postgres"]["min_recall"] < 1.0 or r["sqlite"]["min_recall"] < 1.0]
    if exact_bad:
        print(f"EXACT PATH RECALL BELOW 1.0 for: {exact_bad}", file=sys.stderr)
        return 1
    return 0


def report(r: dict[str, Any]) -> None:
    print(f"# PostgreSQL vs SQLite, filtered vector search, {r['n']} records x {r['dim']}-d, k={r['k']}, "
          f"{r['queries']} queries")
    print(f"machine: {r['machine']}; embedded server started in {r['server_start_s']:.1f} s")
    b = r["build_records_per_s"]
    print(f"build through write() (batches of 1000): SQLite {b['sqlite']:.0f} records/s, PostgreSQL "
          f"{b['postgres']:.0f} records/s ({b['postgres'] / b['sqlite']:.2f}x)\n")
    print("| filter | selected | SQLite p50 / p95 ms | PostgreSQL exact p50 / p95 ms | PG / SQLite p50 | "
          "recall SQLite / PG |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in r["search"]:
        lite, pg = s["sqlite"], s["postgres"]
        print(f"| {s['filter']} | {s['selected']} ({s['share']:.1%}) | {lite['p50_ms']:.2f} / {lite['p95_ms']:.2f} "
              f"| {pg['p50_ms']:.2f} / {pg['p95_ms']:.2f} | {pg['p50_ms'] / lite['p50_ms']:.1f}x | "
              f"{lite['recall']:.3f} / {pg['recall']:.3f} |")
    if r["ann"]:
        print(f"\nHNSW index build: {r['ann']['build_s']:.0f} s. ANN path forced (ann_min_candidates=1):\n")
        print("| filter | PG ANN p50 / p95 ms | vs PG exact p50 | recall@k (min) | paths taken |")
        print("|---|---:|---:|---:|---|")
        for s in r["search"]:
            a = s["postgres_ann"]
            print(f"| {s['filter']} | {a['p50_ms']:.2f} / {a['p95_ms']:.2f} | "
                  f"{a['p50_ms'] / s['postgres']['p50_ms']:.2f}x | {a['recall']:.3f} ({a['min_recall']:.1f}) | "
                  f"{a['paths']} |")


if __name__ == "__main__":
    raise SystemExit(main())
