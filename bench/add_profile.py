"""Benchmark: where one governed ``Memory.add`` (vector given) spends its time, by stage, on scale.py's store.

    python bench/add_profile.py                                   # 10k store, 300 adds, 3 rounds
    python bench/add_profile.py --sizes 10000,100000 --compare /tmp/base/src --rounds 4 --json out.json

Each round copies the store of N memories that ``scale.py`` builds (under ``--root``; built there if missing) and
adds ``--add`` new Facts one call at a time, as ``bench/ingest.py`` does (own ids, precomputed vectors, one entity
each). Every stage is wrapped with a ``time.process_time`` accumulator (inclusive, outermost call only); the SQL
statements are timed in wall time by statement (the connection class is replaced by a subclass that times
``execute``; that costs ~1 us a statement). Stages overlap: governance holds its look-ups, the store write holds
its SQL. Each round runs in a process of its own; the systems alternate. Reported: median CPU ms per ``add`` over
rounds, calls per ``add``, and the wall ms of the largest statements. Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stages import instrument, median_of  # noqa: E402
from _worker import THIS, add_options, alternate, command_line, systems, worker_command, write_json  # noqa: E402

SEED = 20261205

#: (label, module, attribute path): the stages measured (a missing one, e.g. in an older checkout, is left out)
STAGES = [
    ("add, whole call", "mnemir.memory.core", "MemoryCore.add"),
    ("record validation (parse_record)", "mnemir.memory.core", "parse_record"),
    ("ontology validation (_prepare)", "mnemir.memory.core", "MemoryCore._prepare"),
    ("governance, whole", "mnemir.lifecycle.governor", "Governor.govern"),
    ("  look-ups (_look_up)", "mnemir.lifecycle.governor", "Governor._look_up"),
    ("    duplicate search (vector_search_many)", "mnemir.store.sqlite.store", "SQLiteStore.vector_search_many"),
    ("      vector cache catch-up (sync)", "mnemir.store.sqlite.vectors", "VectorCache.sync"),
    ("      exact pass (top_k_many)", "mnemir.store.sqlite.vectors", "VectorCache.top_k_many"),
    ("      sign codes (signs.top_k_many)", "mnemir.store.sqlite.signs", "top_k_many"),
    ("    key and rule selections (select_many)", "mnemir.store.sqlite.store", "SQLiteStore.select_many"),
    ("      filter parsing (Governor._filter)", "mnemir.lifecycle.governor", "Governor._filter"),
    ("      SQL compiling (compile_selection)", "mnemir.store.sqlite.store", "compile_selection"),
    ("    record reads (fetch)", "mnemir.store.sqlite.store", "SQLiteStore.fetch"),
    ("    vector reads (vectors)", "mnemir.store.sqlite.store", "SQLiteStore.vectors"),
    ("  merge check (_merge)", "mnemir.lifecycle.governor", "Governor._merge"),
    ("  supersession / contradiction check (_conflicts)", "mnemir.lifecycle.governor", "Governor._conflicts"),
    ("store write, whole (SQLiteStore.write)", "mnemir.store.sqlite.store", "SQLiteStore.write"),
    ("  rows and history JSON (_prepare_write)", "mnemir.store.sqlite.store", "_prepare_write"),
    ("  full-text segmentation and text keys (_segment)", "mnemir.store.sqlite.store", "SQLiteStore._segment"),
    ("  the transaction's SQL (_write)", "mnemir.store.sqlite.store", "SQLiteStore._write"),
]


def _timed_sql() -> tuple[collections.Counter[str], collections.Counter[str]]:
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()

    class Timed(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            start = time.perf_counter()
            try:
                return super().execute(sql, *args)
            finally:
                key = " ".join(sql.split())[:60]
                spent[key] += time.perf_counter() - start
                calls[key] += 1

        def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            start = time.perf_counter()
            try:
                return super().executemany(sql, *args)
            finally:
                key = "(many) " + " ".join(sql.split())[:53]
                spent[key] += time.perf_counter() - start
                calls[key] += 1

    connect = sqlite3.connect
    sqlite3.connect = functools.partial(connect, factory=Timed)  # type: ignore[assignment]
    return spent, calls


def measure(n: int, root: Path, add: int, synchronous: str | None, recall_rounds: int = 0) -> dict[str, Any]:
    import scale

    spent, calls = instrument(STAGES)
    sql_spent, sql_calls = _timed_sql()
    import mnemir
    from mnemir.store.sqlite import SQLiteStore

    path = scale.store_path(root, n)
    if not path.exists():
        scale.build(path, n, SEED)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        copy = Path(tmp) / path.name
        for file in path.parent.glob(path.name + "*"):
            shutil.copy(file, copy.parent / file.name.replace(path.name, copy.name))
        onto = scale.ontology()
        options = {"synchronous": synchronous} if synchronous else {}
        store = SQLiteStore(copy, ontology=onto, ann=True, **options)
        where = scale.centres(SEED)
        props = scale.chunk_props(SEED, 10**6 + 9, n, add + 1)
        vectors = scale.chunk_vectors(SEED, 10**6 + 9, add + 1, where)
        records = [scale.record_of(n + j, props, j) for j in range(add + 1)]
        items = [{"text": r.content.text, "properties": {**r.properties, "entity": f"ing{j}"}, "id": f"ing{SEED}-{j}"}
                 for j, r in enumerate(records)]
        mem = mnemir.Memory(store, embedder=scale.LookupEmbedder({r.content.text: vectors[j]
                                                                  for j, r in enumerate(records)}),
                            ontology=onto, config=mnemir.MemoryConfig())
        first = items[0]  # loads the text segmenter's dictionary: not counted
        mem.add(first["text"], "Fact", first["properties"], user=scale.USER, id=first["id"], now=scale.NOW,
                vector=vectors[0])
        spent.clear(), calls.clear(), sql_spent.clear(), sql_calls.clear()
        each = []  # wall ms of each call: a checkpoint makes a few calls much slower than the rest
        cpu, wall = time.process_time(), time.perf_counter()
        for j, item in enumerate(items[1:], 1):
            began = time.perf_counter()
            mem.add(item["text"], "Fact", item["properties"], user=scale.USER, id=item["id"], now=scale.NOW,
                    vector=vectors[j])
            each.append((time.perf_counter() - began) * 1e3)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        each.sort()
        stages = {k: {"cpu_ms": v / add * 1e3, "calls": calls[k] / add} for k, v in spent.items()}
        sql = {k: {"wall_ms": v / add * 1e3, "calls": sql_calls[k] / add} for k, v in sql_spent.items()}
        # recall on the same store right after the adds (their log not yet copied into the file), query embedding
        # excluded, as scale.py measures it
        recall = scale.measure_recall(store, onto, recall_rounds) if recall_rounds else None
        mem.close()
    return {"mnemir": mnemir.__file__, "n": n, "load": os.getloadavg()[0], "recall": recall,
            "total": {"cpu_ms": cpu / add * 1e3, "wall_ms": wall / add * 1e3, "per_s": add / wall,
                      "per_cpu_s": add / cpu, "p50_ms": each[len(each) // 2], "p99_ms": each[int(len(each) * 0.99)],
                      "max_ms": each[-1]},
            "stages": stages, "sql": sql}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",") if x], default=[10000])
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"), help="where scale.py's stores are")
    parser.add_argument("--add", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recall", type=int, default=0, help="then Memory.recall p50 over this many rounds of "
                        "scale.py's recall queries (0: not measured)")
    parser.add_argument("--synchronous", default=None, help="SQLiteStore(synchronous=...) (this checkout only)")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps({str(n): measure(n, args.root, args.add, args.synchronous, args.recall) for n in args.sizes}))
        return 0
    compared = systems(args.compare, "compared")

    def command_for(name: str) -> list[str]:
        command = worker_command(__file__, ["--sizes", ",".join(map(str, args.sizes)), "--root", str(args.root),
                                            "--add", str(args.add), "--recall", str(args.recall)])
        if args.synchronous and name == THIS:
            command += ["--synchronous", args.synchronous]
        return command

    runs = alternate(compared, args.rounds, command_for)

    def median(name: str, n: int, *keys: str) -> float | None:
        return median_of(runs[name], str(n), *keys)

    names = list(compared)
    lines = []
    for n in args.sizes:
        lines.append(f"## governed add at {n:,}: CPU ms per add (median of {args.rounds}; calls per add)")
        lines.append("| stage | " + " | ".join(names) + " |")
        lines.append("|---|" + "---:|" * len(names))
        for label, keys in [("adds per s (wall)", ("total", "per_s")), ("adds per CPU s", ("total", "per_cpu_s")),
                            ("CPU ms per add", ("total", "cpu_ms")), ("wall ms per call, p50", ("total", "p50_ms")),
                            ("wall ms per call, p99", ("total", "p99_ms")), ("wall ms per call, max", ("total", "max_ms")), ("recall p50 ms after the adds", ("recall", "p50_ms")),
                            ("recall CPU p50 ms", ("recall", "cpu_p50_ms"))]:
            if all(median(x, n, *keys) is not None for x in names):
                lines.append(f"| {label} | " + " | ".join(f"{median(x, n, *keys):.2f}" for x in names) + " |")
        for label, _, _ in STAGES:
            cells = []
            for x in names:
                ms, per = median(x, n, "stages", label, "cpu_ms"), median(x, n, "stages", label, "calls")
                cells.append("-" if ms is None else f"{ms:.3f} ({per:.2f})")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
        spreads = []
        for x in names:
            rates = [run[str(n)]["total"]["per_s"] for run in runs[x]]
            spreads.append(f"{x}: wall adds/s by round {', '.join(f'{r:.0f}' for r in rates)} (spread "
                           f"{(max(rates) - min(rates)) / statistics.median(rates):.2f})")
        lines.append("; ".join(spreads))
        lines.append("")
        lines.append(f"SQL statements at {n:,}, wall ms per add (calls per add), {names[0]}:")
        last = runs[names[0]][-1][str(n)]["sql"]
        for key in sorted(last, key=lambda k: -last[k]["wall_ms"])[:14]:
            others = "".join(f" / {median(x, n, 'sql', key, 'wall_ms') or 0:.3f}" for x in names[1:])
            lines.append(f"- `{key}`: {median(names[0], n, 'sql', key, 'wall_ms') or 0:.3f}{others} "
                         f"({last[key]['calls']:.2f})")
        lines.append(f"- statements per add: {sum(v['calls'] for v in last.values()):.1f}")
        lines.append("")
    print("\n".join(lines))
    write_json(args.json, {"command": command_line("add_profile.py", argv), "load": os.getloadavg(), "runs": runs,
                           "report": lines})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
