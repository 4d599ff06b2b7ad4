"""Extraction and intent latency with the default (offline) model, one utterance at a time.

    .venv/bin/python bench/extraction_speed.py            # all held-out utterances and queries, 3 rounds
    .venv/bin/python bench/extraction_speed.py --rounds 1

Side by side in one run: the sentence embedding alone (the floor: one USE call per piece), the full
offline extraction of one utterance (split + embed + classify + rules), query intent, and
``Memory.remember`` end to end (extraction + update/link look-ups + one SQLite transaction). Inputs are the
held-out corpus (zh and en); the first call (model load) is reported separately as "cold".
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import mnemir
from mnemir.embed import default_embedder
from mnemir.eval.extraction import ANCHOR_NOW as NOW
from mnemir.eval.extraction import load_split
from mnemir.understand import Extractor, IntentRecognizer


def timed(fn: Callable[[str], object], items: list[str], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        for item in items:
            start = time.perf_counter()
            fn(item)
            out.append((time.perf_counter() - start) * 1000)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"n": len(ms), "mean": statistics.fmean(ms), "p50": ordered[len(ordered) // 2],
            "p95": ordered[int(len(ordered) * 0.95) - 1], "max": ordered[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    utterances = [str(r["text"]) for r in load_split("dev")]
    queries = [str(r["query"]) for r in load_split("dev", "intent")]
    embedder = default_embedder()

    start = time.perf_counter()
    extractor = Extractor(embedder)
    extractor.extract("帮我下周五之前把报销单交了", now=NOW)
    cold = (time.perf_counter() - start) * 1000
    recognizer = IntentRecognizer(embedder)

    results = {
        "embed one text (floor)": summary(timed(lambda t: embedder.embed([t]), utterances, args.rounds)),
        "extract one utterance": summary(timed(lambda t: extractor.extract(t, now=NOW), utterances, args.rounds)),
        # one round only: query vectors are cached, a second round would time the cache
        "intent one query": summary(timed(lambda q: recognizer.recognize(q, now=NOW), queries, 1)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        mem = mnemir.open(tmp, embedder=embedder)
        mem.remember("warm up", user="bench", now=NOW)
        results["Memory.remember (with store)"] = summary(
            timed(lambda t: mem.remember(t, user="bench", now=NOW), utterances, 1))
        mem.close()

    floor = results["embed one text (floor)"]["p50"]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
          f"{len(utterances)} utterances, {len(queries)} queries, {args.rounds} rounds")
    print(f"cold start (load model + first extraction): {cold:.0f} ms\n")
    print(f"| {'operation':<30} | {'n':>5} | {'mean ms':>8} | {'p50 ms':>7} | {'p95 ms':>7} | {'max ms':>7} | p50 / embed |")
    print(f"|{'-' * 32}|{'-' * 7}|{'-' * 10}|{'-' * 9}|{'-' * 9}|{'-' * 9}|-------------|")
    for name, s in results.items():
        print(f"| {name:<30} | {s['n']:>5} | {s['mean']:>8.2f} | {s['p50']:>7.2f} | {s['p95']:>7.2f} | {s['max']:>7.2f} |"
              f" {s['p50'] / floor:>11.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
