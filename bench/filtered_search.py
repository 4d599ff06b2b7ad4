"""Filtered exact vector search on a 100k-memory SQLite store: latency, recall, insert throughput.

    .venv/bin/python bench/filtered_search.py                 # reuses the store cached under /tmp
    .venv/bin/python bench/filtered_search.py --rebuild       # builds it again (and times the build)

The store holds ``--n`` Fact records written through ``SQLiteStore.write()`` in batches of 1000, with
random L2-normalised vectors (embedding 100k real texts with the default model would take minutes and
measures the embedder, not the store). Properties are laid out so that filters have known selectivity:

* ``entity`` (core, indexed): 1000 values, evenly spread    -> ``{"entity": "e42"}`` selects 0.1 %
* ``attribute`` (core, indexed): "weather" on 15 % of rows  -> ``{"attribute": "weather"}`` selects 15 %
* ``confidence`` (not core: JSON): uniform in [0, 1)        -> ``{"confidence": {"$gte": 0.85}}`` selects 15 %

For each filter: p50/p95 latency of ``vector_search(k=10)`` over random query vectors, recall@10 of both the
fast and the SQL path against numpy brute force over the same filtered rows (the filtered set is computed
independently, in Python, with ``filters.matches`` on the generated properties), and, side by side, the
brute-force time on rows that are already in one matrix (a lower bound with no filtering cost). Insert throughput is measured through
``write()`` into a fresh store at several batch sizes.
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

from mnemir.ir import MemIR, MemoryStatus
from mnemir.ontology import Ontology
from mnemir.store.base import Selection, Store, Write
from mnemir.store.filters import matches, parse_filter
from mnemir.store.sqlite import SQLiteStore

MODEL = "bench-random-512"
USER = "bench"
ATTRIBUTES = ["weather", "residence", "allergy", "job", "hobby", "birthday", "pet", "car"]
CITIES = ["上海", "北京", "London", "Berlin", "Paris", "深圳", "Tokyo", "Madrid"]
#: full-text queries: a rare token (only record 4242 holds the number; "记录编号 4242" would segment into an OR of
#: three words and match half the store), a value on 1/8 of the records, words in over half of them
TEXT_QUERIES = ["4242", "Tokyo", "weather of e42 in London"]
#: name -> (where, types); the last two restrict only scope (and types), so the cache's scope codes answer them
CASES: dict[str, tuple[dict[str, Any] | None, tuple[str, ...] | None]] = {
    "0.1% (core property, indexed)": ({"entity": "e42"}, None),
    "15% (core property, indexed)": ({"attribute": "weather"}, None),
    "15% (JSON property, json_extract)": ({"confidence": {"$gte": 0.85}}, None),
    "100% (scope + types, as recall asks)": (None, ("Fact", "Preference", "Task")),
    "100% (no filter)": (None, None),
}


def filterable_ontology() -> Ontology:
    """The built-in ontology with Fact.confidence marked filterable (the stores index it like a core property)."""
    from dataclasses import replace

    from mnemir.ontology.builtin import BUILTIN_TYPES

    types = [replace(t, properties={**t.properties, "confidence": replace(t.properties["confidence"], filterable=True)})
             if t.name == "Fact" else t for t in BUILTIN_TYPES]
    return Ontology(types)


def properties(i: int, rng: np.random.Generator) -> dict[str, Any]:
    attribute = "weather" if rng.random() < 0.15 else ATTRIBUTES[1 + int(rng.integers(len(ATTRIBUTES) - 1))]
    return {"entity": f"e{i % 1000}", "attribute": attribute, "value": CITIES[i % len(CITIES)],
            "confidence": round(float(rng.random()), 4)}


def text_of(i: int, props: dict[str, Any]) -> str:
    if i % 2:
        return f"{props['entity']} 的 {props['attribute']} 是 {props['value']}，记录编号 {i}"
    return f"The {props['attribute']} of {props['entity']} is {props['value']} (note {i})"


def generate(n: int, dim: int, seed: int) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The records' properties and vectors, reproducible from the seed."""
    rng = np.random.default_rng(seed)
    props = [properties(i, rng) for i in range(n)]
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return props, vectors


def make_record(i: int, props: dict[str, Any]) -> MemIR:
    return MemIR.model_validate({"id": f"m{i:07d}", "content": {"text": text_of(i, props)}, "type": "Fact",
                                 "properties": props, "scope": {"user_id": USER}})


def write_all(store: Store, props: list[dict[str, Any]], vectors: np.ndarray, batch: int,
              start: int = 0) -> float:
    """Write records ``start..start+len(props)`` in batches; return records per second."""
    began = time.perf_counter()
    for lo in range(0, len(props), batch):
        chunk = range(lo, min(lo + batch, len(props)))
        store.write([Write(make_record(start + i, props[i]), vectors[i]) for i in chunk], model_id=MODEL)
    return len(props) / (time.perf_counter() - began)


def open_cached(path: Path, n: int, dim: int, seed: int, rebuild: bool, onto: Ontology
                ) -> tuple[SQLiteStore, float | None, bool]:
    """The benchmark store: reused when it was built with the same parameters, else (re)built."""
    fingerprint = json.dumps({"n": n, "dim": dim, "seed": seed, "v": 3})
    if path.exists() and not rebuild:
        store = SQLiteStore(path, ontology=onto)
        if store.get_meta("bench_fingerprint") == fingerprint:
            rate = store.get_meta("bench_build_rate")
            return store, float(rate) if rate else None, False
        store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(path, ontology=onto)
    props, vectors = generate(n, dim, seed)
    print(f"building {n} records in {path} ...", file=sys.stderr, flush=True)
    rate = write_all(store, props, vectors, batch=1000)
    store.set_meta("bench_fingerprint", fingerprint)
    store.set_meta("bench_build_rate", f"{rate:.1f}")
    return store, rate, True


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def measure_search(store: SQLiteStore, onto: Ontology, props: list[dict[str, Any]], vectors: np.ndarray,
                   queries: np.ndarray, k: int) -> list[dict[str, Any]]:
    """Every query runs every case in turn (interleaved), so a load spike on a shared machine hits all cases
    alike and the ratios stay comparable. Each case runs twice per query: with the store's scope fast path (numpy
    masks over the vector cache's scope codes: "fast") and with it switched off (SQL selects the candidates, the
    only path before the fast path existed: "sql"). Cases with a ``where`` take the SQL path either way."""
    ids = np.array([f"m{i:07d}" for i in range(len(props))])
    cases = []
    for name, (where, types) in CASES.items():
        node = parse_filter(where, onto)
        allowed = np.array([i for i, p in enumerate(props) if matches(node, SimpleNamespace(properties=p))])
        cases.append({"name": name, "where": where, "types": types,
                      "selection": Selection(user_id=USER, types=types, where=node),
                      "allowed": allowed, "matrix": np.ascontiguousarray(vectors[allowed]),
                      "fast_ms": [], "sql_ms": [], "brute_ms": [], "fast_recall": [], "sql_recall": []})
    for n, q in enumerate(queries):
        for case in cases:
            got: dict[str, set[str]] = {}
            for path in ("fast", "sql") if n % 2 else ("sql", "fast"):  # neither always runs on warm caches
                store.scope_fast_path = path == "fast"
                began = time.perf_counter()
                hits = store.vector_search(case["selection"], q, k)
                case[f"{path}_ms"].append((time.perf_counter() - began) * 1000)
                got[path] = {i for i, _ in hits}
            began = time.perf_counter()
            scores = np.einsum("ij,j->i", case["matrix"], q)  # the same kernel the store uses
            best = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
            case["brute_ms"].append((time.perf_counter() - began) * 1000)
            want = set(ids[case["allowed"][best]])
            for path, found in got.items():  # both paths, not only the one that ran last
                case[f"{path}_recall"].append(len(want & found) / len(want))
    store.scope_fast_path = True
    return [{
        "filter": c["name"], "where": c["where"], "types": c["types"], "selected": len(c["allowed"]),
        "share": len(c["allowed"]) / len(props),
        "p50_ms": statistics.median(c["fast_ms"]), "p95_ms": percentile(c["fast_ms"], 95),
        "sql_p50_ms": statistics.median(c["sql_ms"]), "sql_p95_ms": percentile(c["sql_ms"], 95),
        "recall_at_k": float(np.mean(c["fast_recall"])), "sql_recall_at_k": float(np.mean(c["sql_recall"])),
        "min_recall": float(min(np.min(c["fast_recall"]), np.min(c["sql_recall"]))),
        "brute_p50_ms": statistics.median(c["brute_ms"]),
    } for c in cases]


def measure_text(store: SQLiteStore, queries: list[str], k: int, rounds: int) -> list[dict[str, Any]]:
    """``text_search(k)`` in the bench user's scope: p50/p95 per query text and how many rows match it, from the
    in-process BM25 postings ("fast", the default) and from the FTS5 query ("sql", scoring every match: the only
    path before), interleaved; both answers must be identical."""
    out = []
    selection = Selection(user_id=USER)
    for text in queries:
        times: dict[str, list[float]] = {"fast": [], "sql": []}
        for n in range(rounds):
            got = {}
            for path in ("fast", "sql") if n % 2 else ("sql", "fast"):
                store.text_fast_path = path == "fast"
                began = time.perf_counter()
                got[path] = store.text_search(selection, text, k)
                times[path].append((time.perf_counter() - began) * 1000)
            if got["fast"] != got["sql"]:
                raise AssertionError(f"text paths disagree for {text!r}: {got}")
        store.text_fast_path = True
        matched = len(store.text_search(selection, text, 1_000_000))
        out.append({"query": text, "matched": matched, "p50_ms": statistics.median(times["fast"]),
                    "p95_ms": percentile(times["fast"], 95), "sql_p50_ms": statistics.median(times["sql"]),
                    "sql_p95_ms": percentile(times["sql"], 95)})
    return out


def measure_inserts(dim: int, seed: int, n: int, onto: Ontology) -> list[dict[str, Any]]:
    """New records at several batch sizes, then (batch 1000) replacing them with only the status changed,
    as archiving and decay do: that path keeps the full-text columns instead of segmenting the text again."""
    props, vectors = generate(n, dim, seed + 1)
    out = []
    for batch in (1, 10, 100, 1000):
        with tempfile.TemporaryDirectory() as tmp:
            store = SQLiteStore(Path(tmp) / "insert.db", ontology=onto)
            rate = write_all(store, props, vectors, batch=batch)
            out.append({"what": "insert", "batch": batch, "records_per_s": rate})
            if batch == 1000:
                out.append({"what": "replace, status only", "batch": batch,
                            "records_per_s": archive_all(store, len(props), batch)})
            store.close()
    return out


def archive_all(store: SQLiteStore, n: int, batch: int) -> float:
    ids = [f"m{i:07d}" for i in range(n)]
    records = store.fetch(ids)
    began = time.perf_counter()
    for lo in range(0, n, batch):
        store.write([Write(r.model_copy(update={"status": MemoryStatus.archived}), None)
                     for r in records[lo : lo + batch]], model_id=MODEL)
    return n / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--insert-n", type=int, default=2000, help="records per batch-size insert run")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "mnemir-bench" / "filtered.db")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--text-only", action="store_true", help="only the full-text figures (no vector, no inserts)")
    parser.add_argument("--filterable", action="store_true",
                        help="mark Fact.confidence filterable (indexed like a core property); its own cached store")
    args = parser.parse_args(argv)

    onto = filterable_ontology() if args.filterable else Ontology()
    if args.filterable:
        args.cache = args.cache.with_name(f"{args.cache.stem}-filterable{args.cache.suffix}")
    store, build_rate, built = open_cached(args.cache, args.n, args.dim, args.seed, args.rebuild, onto)
    props, vectors = generate(args.n, args.dim, args.seed)
    rng = np.random.default_rng(args.seed + 7)
    queries = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    began = time.perf_counter()
    store.vector_search(Selection(user_id=USER), queries[0], args.k)  # loads the vector cache
    cold_ms = (time.perf_counter() - began) * 1000
    search = [] if args.text_only else measure_search(store, onto, props, vectors, queries, args.k)
    texts = measure_text(store, TEXT_QUERIES, args.k, rounds=max(5, args.queries // 10))
    store.close()
    inserts = [] if args.text_only else measure_inserts(args.dim, args.seed, args.insert_n, onto)

    result = {
        "filterable": args.filterable,
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, Python "
                   f"{platform.python_version()}, numpy {np.__version__}",
        "n": args.n, "dim": args.dim, "k": args.k, "queries": args.queries,
        "build_records_per_s": build_rate, "built_now": built, "cold_first_search_ms": cold_ms,
        "search": search, "text": texts, "inserts": inserts,
    }
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    bad = [r["filter"] for r in search if r["min_recall"] < 1.0]
    if bad:
        print(f"RECALL BELOW 1.0 for: {bad}", file=sys.stderr)
        return 1
    return 0


def report(r: dict[str, Any]) -> None:
    print(f"# filtered vector search, {r['n']} records x {r['dim']}-d, k={r['k']}, {r['queries']} queries")
    print(f"machine: {r['machine']}")
    build = f"{r['build_records_per_s']:.0f} records/s" if r["build_records_per_s"] else "unknown"
    print(f"build (write() in batches of 1000): {build}{'' if r['built_now'] else ' (measured when cached)'}")
    print(f"first search (loads the vector cache): {r['cold_first_search_ms']:.0f} ms\n")
    print("| filter | selected | SQL path p50 / p95 ms | fast path p50 / p95 ms | SQL / fast p50 | "
          "recall@k SQL / fast | "
          "numpy on pre-gathered rows p50 ms | fast / floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for s in r["search"]:
        print(f"| {s['filter']} | {s['selected']} ({s['share']:.1%}) | {s['sql_p50_ms']:.2f} / {s['sql_p95_ms']:.2f} | "
              f"{s['p50_ms']:.2f} / {s['p95_ms']:.2f} | {s['sql_p50_ms'] / s['p50_ms']:.2f}x | "
              f"{s['sql_recall_at_k']:.3f} / {s['recall_at_k']:.3f} | {s['brute_p50_ms']:.2f} | "
              f"{s['p50_ms'] / s['brute_p50_ms']:.1f}x |")
    if r["search"]:
        base = r["search"][-1]["p50_ms"]
        print("\nfiltered p50 / unfiltered p50 (fast path): " + ", ".join(
            f"{s['filter'].split(' ')[0]} {s['p50_ms'] / base:.2f}" for s in r["search"]))
    print("\n| text_search query | rows matching | SQL (FTS5) p50 / p95 ms | in-process BM25 p50 / p95 ms | SQL / fast |")
    print("|---|---:|---:|---:|---:|")
    for t in r["text"]:
        print(f"| {t['query']} | {t['matched']} | {t['sql_p50_ms']:.2f} / {t['sql_p95_ms']:.2f} | {t['p50_ms']:.2f} / "
              f"{t['p95_ms']:.2f} | {t['sql_p50_ms'] / t['p50_ms']:.1f}x |")
    if not r["inserts"]:
        return
    print("\n| write() | batch | records/s | vs insert, batch 1000 |")
    print("|---|---:|---:|---:|")
    top = next(i["records_per_s"] for i in r["inserts"] if i["what"] == "insert" and i["batch"] == 1000)
    for ins in r["inserts"]:
        print(f"| {ins['what']} | {ins['batch']} | {ins['records_per_s']:.0f} | {ins['records_per_s'] / top:.2f} |")


if __name__ == "__main__":
    raise SystemExit(main())
