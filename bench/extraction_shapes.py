"""Extraction dev errors by the shape of the row (docs/decisions/0118): counts only, no text.

    python bench/extraction_shapes.py READINGS.json [OTHER.json ...]

READINGS: what ``bench/extraction_confusion.py OUT`` wrote (OUT/<name>.json). A row's shape is how the extractor
reads it: ``1s1c`` one piece of one clause, ``1sNc`` one piece of several clauses (``split_clauses``), ``Ns`` several
pieces (``split_pieces``); and how many memory types it expects (``m0`` / ``m1`` / ``m2+``). For each language, shape
and class: false positives and misses, and the rows exactly right.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from mnemir.eval.extraction import TYPES, load_split
from mnemir.understand.segment import split_clauses, split_pieces


def shape(text: str) -> str:
    pieces = split_pieces(text)
    if len(pieces) > 1:
        return "Ns"
    return "1sNc" if len(split_clauses(pieces[0])) > 1 else "1s1c"


def main(argv: list[str]) -> int:
    rows = load_split("dev")
    for name in argv:
        got = json.loads(Path(name).read_text(encoding="utf-8"))
        print(f"== {name}")
        for lang in ("zh", "en"):
            rows_by: Counter = Counter()
            right_by: Counter = Counter()
            fp: Counter = Counter()
            fn: Counter = Counter()
            for row in rows:
                if row["lang"] != lang:
                    continue
                want = {e["type"] for e in row["expect"]}
                m = "m0" if not want else "m1" if len(want) == 1 else "m2+"
                key = (shape(row["text"]), m)
                have = set(got[f'{row["source"]}:{row["id"]}'])
                rows_by[key] += 1
                right_by[key] += int(want == have)
                for t in have - want:
                    fp[(key, t)] += 1
                for t in want - have:
                    fn[(key, t)] += 1
            print(f"[{lang}] shape rows right wrong fp fn | per class fp/fn")
            for key in sorted(rows_by):
                n, r = rows_by[key], right_by[key]
                f = sum(v for (k, _), v in fp.items() if k == key)
                m = sum(v for (k, _), v in fn.items() if k == key)
                per = ", ".join(f"{t} {fp[(key, t)]}/{fn[(key, t)]}" for t in TYPES if fp[(key, t)] or fn[(key, t)])
                print(f"  {key[0]:<5}{key[1]:<4}{n:>6}{r:>6}{n - r:>6}{f:>5}{m:>5} | {per}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
