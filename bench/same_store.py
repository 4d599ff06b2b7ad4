"""Check: the write path stores the same memories as another checkout (a speed change must not change what is kept).

    python bench/same_store.py --compare /tmp/start/src                 # ingest: the dev conversations + the bench one
    python bench/same_store.py --compare /tmp/start/src --way remember  # one remember per turn
    python bench/same_store.py --compare /tmp/start/src --split train --limit 20

Each checkout runs in a process of its own (its ``src`` first on the path) with ids made deterministic (``uuid4``
replaced by a counter, so the n-th id is the same in both when the same records are made in the same order). Every
conversation of the continuity ``--split`` (read as input only) and the scripted conversation of
``remember_latency.py`` go into one SQLite store, one user per conversation, through ``ingest`` (or ``remember``).
Then the whole store is exported and compared record by record: type, content, properties, status, scope,
metadata, relationships and every history entry must be equal; vectors within ``--tolerance`` (a text embedded in
a batch and alone differs by about 1e-7). Exit status 1 on any difference, with the first ones printed.
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _worker import add_options, run_both  # noqa: E402


def _deterministic_ids() -> None:
    counter = iter(range(1, 1 << 62))
    uuid.uuid4 = lambda: uuid.UUID(int=next(counter))  # type: ignore[assignment]


def worker(args: argparse.Namespace) -> dict[str, Any]:
    _deterministic_ids()
    from remember_latency import CONVERSATION, NOW

    import mnemir
    from mnemir.eval import continuity

    conversations = [("bench", [(s, t, i, NOW + timedelta(minutes=i)) for i, (s, t) in enumerate(CONVERSATION)])]
    for c in continuity.load(args.split)[: args.limit]:
        conversations.append((c.id, [(t.speaker, t.text, t.n, t.at) for t in c.turns]))
    with tempfile.TemporaryDirectory() as tmp:
        mem = mnemir.open(Path(tmp) / "store")
        for user, turns in conversations:
            if args.way == "ingest":
                mem.ingest([{"speaker": s, "text": t, "turn": n, "now": at} for s, t, n, at in turns], user=user,
                           session=user)
            else:
                for s, t, n, at in turns:
                    mem.remember(t, speaker=s, user=user, session=user, turn=n, now=at)
        out = Path(tmp) / "export.jsonl"
        mem.export_jsonl(out)
        mem.close()
        records: dict[str, Any] = {}
        history: dict[str, list[Any]] = {}
        vectors: dict[str, list[float]] = {}
        for line in out.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            if item.get("kind") == "history":
                history.setdefault(item["memory_id"], []).append(item)
            elif item.get("kind") != "header":
                vectors[item["id"]] = item.pop("embedding", None)
                records[item["id"]] = item
    return {"conversations": len(conversations), "turns": sum(len(t) for _, t in conversations),
            "records": records, "history": history, "vectors": vectors}


def compare(a: dict[str, Any], b: dict[str, Any], tolerance: float) -> list[str]:
    problems = []
    for key in sorted(set(a["records"]) | set(b["records"])):
        ra, rb = a["records"].get(key), b["records"].get(key)
        if ra != rb:
            problems.append(f"record {key}:\n  {json.dumps(ra, ensure_ascii=False)[:600]}\n  "
                            f"{json.dumps(rb, ensure_ascii=False)[:600]}")
        elif a["history"].get(key) != b["history"].get(key):
            problems.append(f"history of {key} differs")
    worst = 0.0
    for key in set(a["vectors"]) & set(b["vectors"]):
        va, vb = a["vectors"][key], b["vectors"][key]
        if va is None or vb is None:
            if va != vb:
                problems.append(f"vector of {key}: one is missing")
            continue
        worst = max(worst, max(abs(x - y) for x, y in zip(va, vb, strict=True)))
    if worst > tolerance:
        problems.append(f"vectors differ by up to {worst:.2e} (tolerance {tolerance:.0e})")
    a["worst_vector_difference"] = worst
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--way", choices=("ingest", "remember"), default="ingest")
    parser.add_argument("--split", default="dev", help="continuity split whose conversations are written")
    parser.add_argument("--limit", type=int, default=None, help="at most this many of its conversations")
    parser.add_argument("--tolerance", type=float, default=1e-5)
    add_options(parser, same=True)
    args = parser.parse_args(argv)
    if args.worker:
        args.out.write_text(json.dumps(worker(args)))
        return 0
    if not args.compare:
        parser.error("--compare SRC is required")
    passed = ["--way", args.way, "--split", args.split, *(["--limit", str(args.limit)] if args.limit else [])]
    # a compared src outside a checkout (``git archive``) finds this checkout's benchmarks folder
    results = run_both(__file__, args.compare, passed, env={"MNEMIR_BENCHMARKS": str(HERE.parent / "benchmarks")})
    if isinstance(results, int):
        return results
    this, other = results
    problems = compare(this, other, args.tolerance)
    print(f"{args.way}: {this['conversations']} conversations, {this['turns']} turns; records {len(this['records'])} "
          f"(this checkout) vs {len(other['records'])}; history entries "
          f"{sum(map(len, this['history'].values()))} vs {sum(map(len, other['history'].values()))}; largest vector "
          f"difference {this['worst_vector_difference']:.1e}")
    for problem in problems[:10]:
        print(problem)
    print("SAME" if not problems else f"DIFFERENT: {len(problems)} differences")
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
