"""Utterances of several memories composed from the extractor's one-memory training rows, for the learned reading
of how many memories an utterance holds (``understand.train``'s ``memory_count`` model; docs/decisions/0118).

    python -m mnemir.eval.compose_rows             # writes training/understand/extraction_composed.jsonl

Why: the extractor reads an utterance piece by piece (``segment.split_pieces``), and one piece gets one type. On dev
the errors sit in two shapes the training rows barely show: one memory told in several sentences (each supporting
sentence read alone adds a memory of its own) and two memories said in one sentence joined by a comma or a
conjunction (only one of them is read). The training split holds about 250 rows of the second shape. People chain
what they say: "X. Also Y", "X，另外Y", "X, but Y". So each one-memory row of one clause is joined with one or two
others of the same language and of other types, the way people chain clauses, and the composed row expects the union
of their memories (type and key properties).

Which rows and how:

* sources: the user's rows of the extractor's ``TRAIN_FILES`` other than the collapse train memories (a label
  source of its own, 0106), that expect exactly one memory and that the extractor reads as one piece of one clause;
* partners: among the ``NEIGHBOURS`` nearest rows by sentence vector (the same language, another type), so that the
  joined clauses speak of related things, as in a real utterance, and the reading cannot lean on a change of
  topic alone; a third clause for every ``THIRD``-th row;
* joiners: a full stop, a comma, a semicolon, and the conjunctions of a new topic or a contrast (``JOINERS``);
  deterministic (seed 7);
* never a row whose text shares a run of eight CJK characters or five words with a dev or test text of any suite,
  or equals one (``collapse_rows.shared_run_check``, the rule of ``tests/test_no_split_text.py``): dropped by position,
  only their count printed.

The extractor does not learn from these rows (its pieces would be its own rows again); only the count model does.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mnemir._paths import training_dir
from mnemir.embed import default_embedder
from mnemir.embed.base import Embedder
from mnemir.eval.collapse_rows import _dev_texts, shared_run_check
from mnemir.understand.segment import is_plan, split_clauses, split_pieces

FILE = "extraction_composed.jsonl"
#: the batches the sources come from: the extractor's training files less the collapse memories
SOURCE_FILES = ("extraction_train.jsonl", "extraction_hw8.jsonl", "extraction_hw9.jsonl", "extraction_hw11.jsonl",
                "extraction_hw12.jsonl", "extraction_s12e2e.jsonl", "extraction_s18.jsonl", "extraction_s14.jsonl")
NEIGHBOURS = 30
THIRD = 3
SEED = 7
#: how a clause is chained to the one before it ("{}" is the next clause; its first letter is lowered after a comma)
JOINERS = {
    "en": (". {}", ". Also, {}", ", and {}", ", but {}", "; {}", ". Oh, and {}", ", plus {}", ". By the way, {}",
           ", {}", " - {}"),
    "zh": ("。{}", "，{}", "，另外{}", "，而且{}", "；{}", "，不过{}", "。还有，{}", "，对了，{}", "，顺便说一下，{}", "。{}"),
}


def one_clause(row: dict[str, Any]) -> bool:
    """A user's row of exactly one memory that the extractor reads as one piece of one clause."""
    if row.get("speaker", "user") != "user" or len(row["expect"]) != 1 or is_plan(row["text"]):
        return False
    pieces = split_pieces(row["text"])
    return len(pieces) == 1 and len(split_clauses(pieces[0])) == 1


def chain(lang: str, first: str, nxt: str, joiner: str) -> str:
    """``first`` and ``nxt`` joined by ``joiner``: the first clause loses its end mark, the next one its capital after
    anything but a full stop (unless it opens with "I" or a name-like word in capitals)."""
    head = first.rstrip(" 。.!！?？；;")
    if lang == "en" and not joiner.startswith(".") and nxt[:1].isupper() and not nxt[1:2].isupper() \
            and not nxt.startswith(("I ", "I'")):
        nxt = nxt[:1].lower() + nxt[1:]
    return head + joiner.format(nxt)


def compose(rows: Sequence[dict[str, Any]], vectors: np.ndarray, *, seed: int = SEED) -> list[dict[str, Any]]:
    """One composed row per source row, in order: the row, a near row of another type, and for every ``THIRD``-th a
    third of a type of its own."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    by_lang = {lang: [i for i, r in enumerate(rows) if r["lang"] == lang] for lang in ("zh", "en")}
    for n, row in enumerate(rows):
        pool = by_lang[row["lang"]]
        sims = vectors[pool] @ vectors[n]
        near = [pool[j] for j in np.argsort(-sims)[:NEIGHBOURS * 3].tolist()]
        parts = [n]
        for _ in range(2 if n % THIRD == 0 else 1):
            types = {rows[p]["expect"][0]["type"] for p in parts}
            choices = [i for i in near if rows[i]["expect"][0]["type"] not in types][:NEIGHBOURS]
            if not choices:
                break
            parts.append(rng.choice(choices))
        if len(parts) < 2:
            continue
        text = rows[parts[0]]["text"].strip()
        for p in parts[1:]:
            text = chain(row["lang"], text, rows[p]["text"].strip(), rng.choice(JOINERS[row["lang"]]))
        out.append({"id": f"{row['lang']}-composed-{len(out):05d}", "lang": row["lang"], "speaker": "user",
                    "text": text, "expect": [e for p in parts for e in rows[p]["expect"]],
                    "from": [rows[p]["id"] for p in parts]})
    return out


def sources() -> list[dict[str, Any]]:
    from mnemir.understand.model import read_jsonl

    rows: list[dict[str, Any]] = []
    for name in SOURCE_FILES:
        path = training_dir() / "understand" / name
        if path.exists():
            rows += [r for r in read_jsonl(path) if one_clause(r)]
    return rows


def build(embedder: Embedder, shares_run: Callable[[str], bool] | None,
          avoid: set[str] = frozenset()) -> tuple[list[dict[str, Any]], Counter[str]]:  # type: ignore[assignment]
    rows = sources()
    vectors = np.asarray(embedder.embed([r["text"] for r in rows]), dtype=np.float32)
    counts: Counter[str] = Counter()
    kept = []
    for row in compose(rows, vectors):
        if row["text"] in avoid:
            counts["equal to a dev text (dropped)"] += 1
        elif shares_run is not None and shares_run(row["text"]):
            counts["shares a run with a dev or test text (dropped)"] += 1
        else:
            counts[f"{row['lang']} {len(row['expect'])} memories"] += 1
            kept.append(row)
    return kept, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mnemir.eval.compose_rows", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=None, help=f"default: training/understand/{FILE}")
    args = parser.parse_args(argv)
    check = shared_run_check()
    if check is None:
        print("runs shared with dev or test texts: not checked")
    out, counts = build(default_embedder(), check, _dev_texts())
    path = args.out or training_dir() / "understand" / FILE
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    print(f"{len(out)} rows -> {path}; {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
