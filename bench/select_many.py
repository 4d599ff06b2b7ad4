"""Benchmark: a governed batch's key look-ups through ``select_many`` (one query per group of selections, decisions
0121 and 0125) against the same selections one query each (the base class's loop), on SQLite and PostgreSQL.

    python bench/select_many.py                          # 10,000 Facts, 1,000 look-ups, 5 rounds
    python bench/select_many.py --n 20000 --selections 2000 --json out.json

The store holds ``--n`` Facts of one user (``--entities`` entities, 4 attributes); each look-up is what the governor
asks for one record: the live Facts and Hypotheses whose entity is one of its spellings (``variants``) and whose
attribute is the record's. Half of the look-ups name a stored entity, half a new one. Both ways run in the same
process on the same store, alternating round by round; the answers must be equal. Reported: wall and CPU ms per
look-up (median of the rounds), and the statements sent. PostgreSQL runs on the embedded server (the dev extra).
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _results import machine  # noqa: E402
from _worker import write_json  # noqa: E402

from mnemir.ir import MemIR  # noqa: E402
from mnemir.lifecycle.terms import variants  # noqa: E402
from mnemir.ontology import Ontology  # noqa: E402
from mnemir.store.base import LIVE_STATUSES, Selection, Store, Write  # noqa: E402
from mnemir.store.filters import parse_filter  # noqa: E402

USER, ATTRIBUTES, TYPES = "bench", ("job", "home", "car", "pet"), ("Fact", "Hypothesis")


def fill(store: Store, n: int, entities: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    start = datetime(2026, 12, 1, tzinfo=UTC)
    vectors = rng.standard_normal((n, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    writes = []
    for i in range(n):
        at = start + timedelta(seconds=i)
        record = MemIR.model_validate({
            "id": f"f{i:07d}", "type": "Fact", "content": {"text": f"fact {i}"}, "scope": {"user_id": USER},
            "properties": {"entity": f"Person {i % entities}", "attribute": ATTRIBUTES[i % 4], "value": f"v{i}"},
            "metadata": {"created_at": at, "updated_at": at}})
        writes.append(Write(record, vectors[i]))
    for lo in range(0, n, 1000):
        store.write(writes[lo:lo + 1000], model_id="bench-64")


def selections(count: int, entities: int, onto: Ontology, seed: int) -> list[Selection]:
    rng = np.random.default_rng(seed + 1)
    out = []
    for j in range(count):
        entity = f"person {int(rng.integers(0, entities))}" if j % 2 else f"newcomer {j}"
        where = {"entity": {"$in": variants(entity)}, "attribute": {"$in": [ATTRIBUTES[j % 4]]}}
        out.append(Selection(user_id=USER, types=TYPES, statuses=LIVE_STATUSES, where=parse_filter(where, onto, TYPES)))
    return out


def measure(store: Store, asked: list[Selection], rounds: int, limit: int, per_call: int | None = None
            ) -> dict[str, Any]:
    # ``per_call``: many small calls inside one snapshot, as remember's look-ups join its transaction (so both ways
    # pay for the statements, not for a transaction each)
    calls = [asked[lo:lo + per_call] for lo in range(0, len(asked), per_call)] if per_call else [asked]

    def grouped() -> list[list[Any]]:
        with store.snapshot():
            return [found for call in calls for found in store.select_many(call, limit=limit)]

    def one_each() -> list[list[Any]]:
        with store.snapshot():
            return [found for call in calls for found in Store.select_many(store, call, limit=limit)]

    ways = {"grouped": grouped, "one query each": one_each}
    answers = {name: [[r.id for r in found] for found in way()] for name, way in ways.items()}  # warm, and checked
    if answers["grouped"] != answers["one query each"]:
        raise SystemExit(f"{store!r}: the grouped answers differ from one query each")
    times: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name in ways}
    for r in range(rounds):
        for name in (list(ways) if r % 2 == 0 else list(reversed(ways))):
            wall, cpu = time.perf_counter(), time.process_time()
            ways[name]()
            times[name]["wall"].append((time.perf_counter() - wall) * 1000 / len(asked))
            times[name]["cpu"].append((time.process_time() - cpu) * 1000 / len(asked))
    return {"found": sum(map(len, answers["grouped"])),
            **{name: {"wall_ms": statistics.median(t["wall"]), "cpu_ms": statistics.median(t["cpu"]),
                      "wall_by_round": t["wall"]} for name, t in times.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--entities", type=int, default=2_500)
    parser.add_argument("--selections", type=int, default=1_000)
    parser.add_argument("--limit", type=int, default=50, help="the governor's KEY_LIMIT")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--per-call", type=int, default=0,
                        help="look-ups per select_many call (remember and a lone add ask 2-4; 0: all in one call)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    onto = Ontology()
    asked = selections(args.selections, args.entities, onto, args.seed)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mnemir-select-many-") as tmp:
        root = Path(tmp)
        root.chmod(0o711)  # as root the embedded server runs as 'nobody'
        for backend in [b for b in args.backends.split(",") if b]:
            print(f"{backend}: {args.n:,} records ...", file=sys.stderr, flush=True)
            if backend == "sqlite":
                from mnemir.store.sqlite import SQLiteStore

                store: Store = SQLiteStore(root / "bench.db", ontology=onto)
                fill(store, args.n, args.entities, args.seed)
                results[backend] = measure(store, asked, args.rounds, args.limit, args.per_call)
                store.close()
            else:
                import psycopg

                from mnemir.store.postgres import PostgresStore, start_embedded_server

                with start_embedded_server(root / "pg") as server:
                    with psycopg.connect(server.url, autocommit=True) as conn:
                        conn.execute("CREATE DATABASE bench")
                    store = PostgresStore(server.database_url("bench"), ontology=onto)
                    fill(store, args.n, args.entities, args.seed)
                    with psycopg.connect(server.database_url("bench"), autocommit=True) as conn:
                        conn.execute("VACUUM ANALYZE")
                    results[backend] = measure(store, asked, args.rounds, args.limit, args.per_call)
                    store.close()
    calls = f", {args.per_call} a call" if args.per_call else ""
    lines = [f"{args.selections:,} key look-ups{calls} on {args.n:,} records (median of {args.rounds} rounds; "
             "grouped / one query each)"]
    for backend, r in results.items():
        g, o = r["grouped"], r["one query each"]
        lines.append(f"  {backend:<9} wall ms a look-up {g['wall_ms']:.3f} / {o['wall_ms']:.3f} "
                     f"({o['wall_ms'] / g['wall_ms']:.2f}x); CPU {g['cpu_ms']:.3f} / {o['cpu_ms']:.3f} "
                     f"({o['cpu_ms'] / g['cpu_ms']:.2f}x); {r['found']:,} records found, the same answers")
    print("\n".join(lines))
    write_json(args.json, {"machine": machine(), "command": "python bench/select_many.py " + " ".join(
        sys.argv[1:] if argv is None else argv), "results": results, "report": lines}, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
