"""Benchmark: where ``remember`` and ``ingest`` spend their CPU time, per utterance, by part of the write path.

    python bench/write_path_profile.py                                  # this checkout, 20 conversations each way
    python bench/write_path_profile.py --compare /tmp/base/src          # and another checkout's src, rounds alternating
    python bench/write_path_profile.py --users 10 --rounds 3 --json out.json
    python bench/write_path_profile.py --searched-words 4000 --compare /tmp/base/src   # a store searched a while

The scripted conversation of ``remember_latency.py`` is replayed ``--users`` times into one store per way (after an
untimed warm-up conversation; the query cache cleared between conversations, so every turn is embedded), once with
``remember`` one turn per call and once with ``ingest`` of each whole conversation. Each part of the write path is
wrapped with a ``time.process_time`` accumulator (inclusive, outermost call only: a part called inside itself is
counted once), so the parts overlap (``_keep`` holds the searches, governance and the store write). The wrapping
costs a few microseconds a call: small parts called often (``load_record``) read high. ``--searched-words N``:
each store first holds N/4 notes of another user over N made-up words, and has been searched for every word (the
full-text postings a store that has answered searches for a while keeps in memory), untimed. Every round runs in a
process of its own; the systems alternate. Reported: median CPU ms per utterance over rounds, and the calls per
utterance. Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stages import instrument, median_of  # noqa: E402
from _worker import add_options, alternate, command_line, systems, worker_command, write_json  # noqa: E402
from ingest import write_conversation  # noqa: E402
from remember_latency import CONVERSATION  # noqa: E402

#: (module, attribute path): the parts measured (a missing one, e.g. in an older checkout, is left out)
PARTS = [
    ("mnemir.embed.use", "USEEmbedder._encode"),
    ("mnemir.understand.extract", "Extractor.extract"),
    ("mnemir.memory.understanding", "UnderstandingMixin._keep"),
    ("mnemir.memory.core", "MemoryCore.search"),
    ("mnemir.lifecycle.governor", "Governor.govern"),
    ("mnemir.lifecycle.governor", "Governor._merge"),
    ("mnemir.lifecycle.governor", "Governor._conflicts"),
    ("mnemir.memory.core", "MemoryCore._store_writes"),
    ("mnemir.store.sqlite.store", "SQLiteStore.write"),
    ("mnemir.store.sqlite.store", "SQLiteStore.vector_search"),
    ("mnemir.store.sqlite.store", "SQLiteStore.text_search"),
    ("mnemir.store.sqlite.store", "SQLiteStore.fetch"),
    ("mnemir.store.sqlite.store", "SQLiteStore.select"),
    ("mnemir.store.sqlite.vectors", "VectorCache.sync"),
    ("mnemir.store.sqlite.fts_index", "TextIndex.sync"),
    ("mnemir.store.sqlite.fts_index", "TextIndex._refresh_postings"),
    ("mnemir.store.records", "load_record"),
]


def searched_for_a_while(mem: Any, words: int) -> None:
    """``words // 4`` notes of another user, eight made-up words each, and a search for every word, eight a query."""
    import random

    rng = random.Random(20261207)
    vocabulary = [f"w{i}q" for i in range(words)]
    mem.add_many([{"text": " ".join(rng.sample(vocabulary, 8)), "type": "Fact", "properties": {"entity": f"e{i}"}}
                  for i in range(words // 4)], user="searched", govern=False)
    for lo in range(0, words, 8):
        mem.search(" ".join(vocabulary[lo:lo + 8]), user="searched", k=5)


def measure(users: int, searched_words: int = 0) -> dict[str, Any]:
    spent, calls = instrument((path, module, path) for module, path in PARTS)
    import mnemir

    out: dict[str, Any] = {"mnemir": mnemir.__file__}
    n = users * len(CONVERSATION)
    with tempfile.TemporaryDirectory() as tmp:
        for how in ("remember", "ingest"):
            mem = mnemir.open(Path(tmp) / how)
            if searched_words:
                searched_for_a_while(mem, searched_words)
            write_conversation(mem, how, "warm-up")
            spent.clear()
            calls.clear()
            cpu, wall = time.process_time(), time.perf_counter()
            for u in range(users):
                write_conversation(mem, how, f"u{u}")
            out[how] = {"total": {"cpu_ms": (time.process_time() - cpu) / n * 1e3,
                                  "wall_ms": (time.perf_counter() - wall) / n * 1e3},
                        "parts": {k: {"cpu_ms": v / n * 1e3, "calls": calls[k] / n} for k, v in spent.items()}}
            mem.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20, help="conversations each way per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--searched-words", type=int, default=0,
                        help="first fill each store with notes over this many words and search every word (untimed)")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.users, args.searched_words)))
        return 0
    compared = systems(args.compare)
    passed = ["--users", str(args.users), "--searched-words", str(args.searched_words)]
    runs = alternate(compared, args.rounds, lambda name: worker_command(__file__, passed))

    def median(name: str, how: str, *keys: str) -> float | None:
        return median_of(runs[name], how, *keys)

    names = list(compared)
    lines = []
    for how in ("remember", "ingest"):
        lines.append(f"## {how}: CPU ms per utterance (median of {args.rounds}; calls per utterance)")
        lines.append("| part | " + " | ".join(names) + " |")
        lines.append("|---|" + "---:|" * len(names))
        for label, keys in [("total (CPU)", ("total", "cpu_ms")), ("total (wall)", ("total", "wall_ms"))]:
            lines.append(f"| {label} | " + " | ".join(f"{median(n, how, *keys):.3f}" for n in names) + " |")
        for _, part in PARTS:
            cells = []
            for n in names:
                ms, per = median(n, how, "parts", part, "cpu_ms"), median(n, how, "parts", part, "calls")
                cells.append("-" if ms is None else f"{ms:.3f} ({per:.2f})")
            lines.append(f"| {part} | " + " | ".join(cells) + " |")
        lines.append("")
    print("\n".join(lines))
    write_json(args.json, {"command": command_line("write_path_profile.py", argv), "load": os.getloadavg(),
                           "runs": runs, "report": lines})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
