"""CPU time (``time.process_time``) per search, new path against old path, on the 100k store of
bench/filtered_search.py: robust to a machine shared with other jobs, where wall-clock figures swing tenfold.

    .venv/bin/python bench/filtered_search.py --text-only     # builds /tmp/mnemir-bench/filtered.db once
    .venv/bin/python bench/cpu_paths.py

Vector search: the vector cache's masks (scope and indexed-property columns; "fast") against SQL choosing the
candidates ("sql", the path before them). Full text: in-process BM25 postings against the FTS5 query.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from filtered_search import CASES, TEXT_QUERIES, USER

from mnemir.ontology import Ontology
from mnemir.store.base import Selection
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "mnemir-bench" / "filtered.db")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    onto = Ontology()
    store = SQLiteStore(args.cache, ontology=onto)
    rng = np.random.default_rng(5)
    queries = rng.standard_normal((args.queries, 512), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    store.vector_search(Selection(user_id=USER), queries[0], 10)
    rows = []
    for name, (where, types) in CASES.items():
        selection = Selection(user_id=USER, types=types, where=parse_filter(where, onto))
        cpu = {}
        for path in ("sql", "fast"):
            store.scope_fast_path = path == "fast"
            store.vector_search(selection, queries[0], 10)
            began = time.process_time()
            for q in queries:
                store.vector_search(selection, q, 10)
            cpu[path] = (time.process_time() - began) / len(queries) * 1000
        rows.append({"what": f"vector_search {name}", "old_cpu_ms": cpu["sql"], "new_cpu_ms": cpu["fast"]})
    store.scope_fast_path = True
    for text in TEXT_QUERIES:
        cpu = {}
        for path in ("sql", "fast"):
            store.text_fast_path = path == "fast"
            store.text_search(Selection(user_id=USER), text, 10)
            began = time.process_time()
            for _ in range(10):
                store.text_search(Selection(user_id=USER), text, 10)
            cpu[path] = (time.process_time() - began) / 10 * 1000
        rows.append({"what": f"text_search {text!r}", "old_cpu_ms": cpu["sql"], "new_cpu_ms": cpu["fast"]})
    store.close()
    print("| search (100k, k=10) | old path CPU ms | new path CPU ms | old / new |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['what']} | {r['old_cpu_ms']:.2f} | {r['new_cpu_ms']:.2f} | {r['old_cpu_ms'] / r['new_cpu_ms']:.1f}x |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
