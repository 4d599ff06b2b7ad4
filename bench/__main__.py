"""One entry point for every benchmark: ``python -m bench all`` (``make bench``), or one by name.

    python -m bench list                          # what there is
    python -m bench all                           # every benchmark, full size, 3 runs each (long: see list)
    python -m bench all --quick --repeat 1        # small sizes, one run each (a smoke run, minutes)
    python -m bench filtered_search --repeat 3    # one benchmark
    python -m bench peers -- --n 20000            # extra arguments after -- go to the script

Each benchmark runs ``--repeat`` times in its own process; a script that writes JSON (``--json``) has its runs
folded into medians and spreads (:mod:`bench._results`), the others keep each run's printed report. The results
go to ``bench/results/NAME.json`` (the latest run of that benchmark, with the exact command and machine info);
the report of the last run is printed. Never part of ``make test``: speed is measured here, not in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench._results import RESULTS, ROOT, machine, summarise

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Benchmark:
    script: str
    about: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()
    #: the script takes --json PATH
    json: bool = True
    #: a peer benchmark needs the bench venv (make bench-env): run with its interpreter when present
    venv: bool = False
    extra: dict[str, str] = field(default_factory=dict)


BENCHMARKS: dict[str, Benchmark] = {
    "filtered_search": Benchmark("filtered_search.py", "SQLite filtered vector search, full text, write() rates "
                                 "(100k; ~2 min with a cached store)", ("--insert-n", "1000"),
                                 ("--n", "20000", "--queries", "50", "--insert-n", "500")),
    "postgres_vs_sqlite": Benchmark("postgres_vs_sqlite.py", "PostgreSQL next to SQLite, same data (100k, ~10 min "
                                    "with the HNSW build)", (), ("--n", "20000", "--no-ann", "--queries", "50")),
    "peers": Benchmark("peers.py", "mnemir (SQLite, PostgreSQL) next to Chroma, LanceDB, sqlite-vec, mem0 on the "
                       "same vectors and texts (100k; needs make bench-env)", (), ("--n", "10000", "--queries", "30"),
                       venv=True),
    "ann": Benchmark("ann_index.py", "the approximate index for large scopes: latency and recall against exact "
                     "(100k)", (), ("--n", "20000", "--queries", "50")),
    "scale": Benchmark("scale.py", "cost vs N: one store of N memories in one scope (open, RSS, disk, filtered "
                       "search by selectivity with recall, full text, recall, add); the store is built once under "
                       "/tmp/mnemir-scale (1M: ~40 min on 2 shared cores)", ("--n", "100000"),
                       ("--n", "10000", "--queries", "20", "--rounds", "5", "--add", "100")),
    "governed_writes": Benchmark("governed_writes.py", "governed Memory.add and add_many(govern=True) on the scale "
                                 "benchmark's store (built there if missing)", ("--n", "100000"),
                                 ("--n", "10000", "--add", "20", "--batch", "50")),
    "ingest": Benchmark("ingest.py", "ingest rates side by side: the embedder one text / batched, remember vs ingest, "
                        "add (governed) and add_many at 10k and 100k (issue 20; the stores of scale.py, built if "
                        "missing)", (), ("--sizes", "10000", "--rounds", "2", "--users", "2", "--add", "30",
                                         "--bulk", "2000")),
    "add_profile": Benchmark("add_profile.py", "CPU per governed Memory.add (vector given) by stage, the SQL statements' "
                             "wall time, recall after the adds (scale.py's 10k and 100k stores)",
                             ("--sizes", "10000,100000", "--recall", "2"), ("--sizes", "10000", "--add", "100",
                                                                            "--rounds", "1")),
    "batch_add": Benchmark("batch_add.py", "one governed add_many of 1k and 10k typed records (vectors given, a "
                           "workload of merges and supersessions) by stage with a digest of what it stored, and "
                           "remember against the embedder's own rate (decision 0121; scale.py's 10k store)",
                           ("--rounds", "1"), ("--batches", "1000", "--rounds", "1", "--users", "1")),
    "select_many": Benchmark("select_many.py", "a governed batch's key look-ups through select_many, one query per "
                             "group against one query each, on SQLite and PostgreSQL (decision 0125; 10k records)",
                             ("--rounds", "1"), ("--n", "2000", "--selections", "200", "--rounds", "1")),
    "concurrent_add": Benchmark("concurrent_add.py", "governed add/s with 1, 2, 4, 8, 16 concurrent callers sharing "
                                "one Memory (group commit, decision 0113; scale.py's 10k and 100k stores)", (),
                                ("--sizes", "10000", "--rounds", "1", "--levels", "1,4", "--total", "64")),
    "write_path_profile": Benchmark("write_path_profile.py", "CPU per utterance of remember and ingest by part of "
                                    "the write path (model, extraction, searches, governance, store write, cache "
                                    "upkeep)", (), ("--users", "5", "--rounds", "1"), json=False),
    "cpu_paths": Benchmark("cpu_paths.py", "CPU time per search, new path against old (100k store of filtered_search)",
                           (), ("--queries", "10")),
    "recall_latency": Benchmark("recall_latency.py", "Memory.recall latency (100k memories)", (),
                                ("--n", "10000", "--rounds", "1"), json=False),
    "maintain": Benchmark("maintain.py", "lifecycle maintenance (100k memories)", (), ("--n", "10000"), json=False),
    "export_history": Benchmark("export_history.py", "export and history reading (20k)", (), ("--n", "5000"),
                                json=False),
    "extraction_speed": Benchmark("extraction_speed.py", "offline understanding speed", (), ("--rounds", "1"),
                                  json=False),
}


def interpreter(b: Benchmark) -> str:
    venv = ROOT / ".venv-bench" / "bin" / "python"
    return str(venv) if b.venv and venv.exists() else sys.executable


def run_one(name: str, repeat: int, quick: bool, extra: list[str], timeout_s: float) -> int:
    b = BENCHMARKS[name]
    args = [*(b.quick if quick else b.args), *extra]
    python = interpreter(b)
    command = [python, str(BENCH / b.script), *args]
    shown = " ".join(shlex.quote(a) for a in [os.path.relpath(python, ROOT) if python.startswith(str(ROOT))
                                              else "python", f"bench/{b.script}", *args])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(BENCH),
                                                        os.environ.get("PYTHONPATH", "")])}
    runs, reports, codes, walls = [], [], [], []
    before = machine()
    for i in range(repeat):
        print(f"== {name} run {i + 1}/{repeat}: {shown}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run.json"
            began = time.perf_counter()
            try:
                done = subprocess.run([*command, *(["--json", str(out)] if b.json else [])], env=env, cwd=ROOT,
                                      capture_output=True, text=True, timeout=timeout_s)
                code, stdout, stderr = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as exc:
                code = 124
                stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
                stderr = f"timed out after {timeout_s:.0f} s"
            walls.append(time.perf_counter() - began)
            codes.append(code)
            reports.append(stdout)
            if code != 0:
                print(stderr[-4000:], file=sys.stderr)
            if b.json and out.exists():
                runs.append(json.loads(out.read_text()))
    result = {"benchmark": name, "about": b.about, "command": shown, "quick": quick, "repeat": repeat,
              "exit_codes": codes, "wall_s": summarise(walls) if walls else None,
              "machine": before, "load_average_after": machine()["load_average"],
              "summary": summarise(runs) if runs else None, "runs": runs,
              "report": reports[-1] if reports else ""}
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"{name}{'-quick' if quick else ''}.json"
    target.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")
    print(reports[-1] if reports else "")
    print(f"-> {os.path.relpath(target, ROOT)} (exit codes {codes})", file=sys.stderr)
    return max(codes, default=0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="*", default=["list"], help="'all', 'list' or benchmark names")
    parser.add_argument("--repeat", type=int, default=3, help="runs per benchmark (median and spread)")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run before it is stopped")
    parser.add_argument("--skip", default="", help="comma-separated benchmarks to leave out of 'all'")
    args = parser.parse_args(argv)
    if args.what == ["list"]:
        for name, b in BENCHMARKS.items():
            print(f"{name:20s} {b.about}")
        return 0
    names = list(BENCHMARKS) if args.what == ["all"] else args.what
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHMARKS)}")
    skip = {s for s in args.skip.split(",") if s}
    worst = 0
    for name in names:
        if name not in skip:
            worst = max(worst, run_one(name, args.repeat, args.quick, extra, args.timeout))
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
