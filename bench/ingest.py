"""Benchmark: ingest rates side by side (issue 20's last target), in CPU time and wall time.

    python bench/ingest.py                                    # this checkout: 10k and 100k stores, 5 rounds
    python bench/ingest.py --compare /work/main/src           # and another checkout's src, rounds interleaved
    python bench/ingest.py --compare /work/main/src --compare-bare   # ... that one without threadpoolctl
    python bench/ingest.py --sizes 10000 --rounds 2 --users 2 --add 30   # a quick run
    python bench/ingest.py --sizes none --compare /work/main/src         # the embedder and the dialogue rows only

Measured per round, each system in a process of its own (rounds alternate between systems, so both see the same
load):

* **embedder**: the default model on the utterances of a scripted two-speaker conversation (the one of
  ``remember_latency.py``), one text per call and all of them in one call; texts per second;
* **dialogue**: ``Memory.remember`` one utterance at a time and ``Memory.ingest`` of the whole conversation, each on a
  fresh store, ``--users`` conversations (the query cache cleared between them); utterances per second;
* **typed records** on the store of N memories that ``scale.py`` builds (under ``--root``; built there if
  missing): ``add`` one call per record (governed: merge and contradiction look-ups, as users call it), one record
  per ``add_many(govern=False)`` call (the ungoverned single write), ``add_many(govern=True)`` of ``--batch``
  records (and, with ``--big-batch``, one more call of that many) and ``add_many(govern=False)`` of 1,000-record
  batches; vectors precomputed (an embedder that looks them up: the store is measured, not the model). What is
  added is deleted again.

Every figure is the median over rounds with its spread ((max - min) / median); load averages are recorded per round.
Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _results import machine  # noqa: E402
from _worker import add_options, alternate, command_line, systems, worker_command, write_json  # noqa: E402
from remember_latency import CONVERSATION, NOW  # noqa: E402


def conversation_turns() -> list[dict[str, Any]]:
    """The bench conversation as ``ingest`` takes it."""
    return [{"speaker": s, "text": t, "turn": i, "now": NOW + timedelta(minutes=i)}
            for i, (s, t) in enumerate(CONVERSATION)]


def write_conversation(mem: Any, how: str, user: str) -> None:
    """The bench conversation written for ``user`` by ``remember`` turn by turn or by one ``ingest``."""
    cache = getattr(mem.embedder, "_cache", None)
    if cache is not None and hasattr(cache, "_data"):
        cache._data.clear()  # every turn embedded, as in a new conversation
    if how == "remember":
        for turn in conversation_turns():
            mem.remember(turn["text"], speaker=turn["speaker"], user=user, session=user, turn=turn["turn"],
                         now=turn["now"])
    else:
        mem.ingest(conversation_turns(), user=user, session=user)

SEED = 20261205


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _rate(count: int, spent: tuple[float, float]) -> dict[str, float]:
    wall, cpu = spent
    return {"per_s": count / wall, "per_cpu_s": count / cpu if cpu > 0 else float("inf")}


def measure_embedder(repeat: int) -> dict[str, Any]:
    from mnemir.embed import default_embedder

    embedder = default_embedder()
    texts = [f"{t} ({i})" if i else t for i in range(repeat) for _, t in CONVERSATION]  # distinct texts, same lengths
    embedder.embed(texts[:4])  # loads the model
    start = _clock()
    for t in texts:
        embedder.embed([t])
    single = _rate(len(texts), _since(start))
    start = _clock()
    embedder.embed(texts)
    batched = _rate(len(texts), _since(start))
    return {"texts": len(texts), "one_at_a_time": single, "batched": batched}


def measure_dialogue(users: int) -> dict[str, Any]:
    """Each way on a store of its own, after one untimed conversation through it (models, dictionaries, caches
    loaded); the two ways alternate conversation by conversation."""
    import mnemir

    out: dict[str, Any] = {"utterances": users * len(CONVERSATION)}
    with tempfile.TemporaryDirectory() as tmp:
        stores = {how: mnemir.open(Path(tmp) / how) for how in ("remember", "ingest")}
        spent = {how: [0.0, 0.0] for how in stores}
        for how, mem in stores.items():
            write_conversation(mem, how, "warm-up")
        for u in range(users):
            for how, mem in (stores.items() if u % 2 == 0 else reversed(stores.items())):
                start = _clock()
                write_conversation(mem, how, f"u{u}")
                wall, cpu = _since(start)
                spent[how][0] += wall
                spent[how][1] += cpu
        for how, mem in stores.items():
            out[how] = {**_rate(out["utterances"], (spent[how][0], spent[how][1])),
                        "memories": sum(mem.count(user=f"u{u}") for u in range(users))}
            mem.close()
    return out


def measure_records(n: int, root: Path, add: int, batch: int, bulk: int, big: int = 0) -> dict[str, Any]:
    import scale

    count = 2 * add + batch + big + bulk
    store, mem, records, vectors, open_s = scale.open_for_writes(root, n, SEED, 10**6 + 9, count)
    out: dict[str, Any] = {"n": n, "open_and_first_search_s": open_s}
    items = [{"text": r.content.text, "type": "Fact", "properties": {**r.properties, "entity": f"ing{j}"},
              "id": f"ing{SEED}-{j}"} for j, r in enumerate(records)]
    try:
        # the first call loads the text segmenter's dictionary: not counted
        mem.add(items[0]["text"], "Fact", items[0]["properties"], user=scale.USER, id=items[0]["id"], now=scale.NOW)
        start = _clock()
        for item in items[1:add]:
            mem.add(item["text"], "Fact", item["properties"], user=scale.USER, id=item["id"], now=scale.NOW)
        out["add_governed"] = _rate(add - 1, _since(start))
        lo = add
        start = _clock()
        for j in range(lo, lo + add):
            mem.add_many([items[j]], user=scale.USER, vectors=vectors[j:j + 1], govern=False, now=scale.NOW)
        out["add_single_ungoverned"] = _rate(add, _since(start))
        lo += add
        start = _clock()
        mem.add_many(items[lo:lo + batch], user=scale.USER, vectors=vectors[lo:lo + batch], govern=True, now=scale.NOW)
        out["add_many_governed"] = {**_rate(batch, _since(start)), "batch": batch}
        lo += batch
        if big:
            start = _clock()
            mem.add_many(items[lo:lo + big], user=scale.USER, vectors=vectors[lo:lo + big], govern=True,
                         now=scale.NOW)
            out["add_many_governed_big"] = {**_rate(big, _since(start)), "batch": big}
            lo += big
        start = _clock()
        for b in range(lo, lo + bulk, 1000):
            hi = min(b + 1000, lo + bulk)
            mem.add_many(items[b:hi], user=scale.USER, vectors=vectors[b:hi], govern=False, now=scale.NOW)
        out["add_many_ungoverned"] = {**_rate(bulk, _since(start)), "batch": 1000}
    finally:
        store.write([], model_id=scale.MODEL, delete_ids=[item["id"] for item in items])
        store.close()
    return out


def worker(args: argparse.Namespace) -> dict[str, Any]:
    import mnemir

    out: dict[str, Any] = {"mnemir": mnemir.__file__, "load_start": os.getloadavg()[0]}
    try:
        import threadpoolctl  # noqa: F401

        out["threadpoolctl"] = True
    except ImportError:
        out["threadpoolctl"] = False
    out["embedder"] = measure_embedder(args.embed_repeat)
    out["dialogue"] = measure_dialogue(args.users)
    out["records"] = {str(n): measure_records(n, args.root, args.add, args.batch, args.bulk, args.big_batch)
                      for n in args.sizes}
    out["load_end"] = os.getloadavg()[0]
    return out


def summary(runs: list[dict[str, Any]]) -> Any:
    """Median and spread of every number over the rounds (same shape as one round)."""
    first = runs[0]
    if isinstance(first, dict):
        return {k: summary([r[k] for r in runs]) for k in first}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        values = [float(r) for r in runs]
        median = statistics.median(values)
        return {"median": median, "spread": (max(values) - min(values)) / median if median else 0.0,
                "min": min(values), "max": max(values)}
    return first


def _m(node: Any) -> float:
    return float(node["median"])


def report(systems: dict[str, Any]) -> list[str]:
    lines = []
    for name, s in systems.items():
        e, d = s["embedder"], s["dialogue"]
        lines.append(f"## {name} (threadpoolctl: {s['threadpoolctl']}; load {_m(s['load_start']):.1f} at start)")
        lines.append("| what | per s (wall) | per CPU s | spread (CPU) |")
        lines.append("|---|---:|---:|---:|")

        def row(label: str, node: dict[str, Any]) -> None:
            lines.append(f"| {label} | {_m(node['per_s']):,.0f} | {_m(node['per_cpu_s']):,.0f} | "
                         f"{node['per_cpu_s']['spread']:.2f} |")

        row("embedder, one text per call (texts)", e["one_at_a_time"])
        row("embedder, batched (texts)", e["batched"])
        row("remember, one utterance per call", d["remember"])
        row("ingest, whole conversation", d["ingest"])
        for n, r in s["records"].items():
            row(f"{int(n):,}: add (governed, one per call)", r["add_governed"])
            row(f"{int(n):,}: add_many(govern=False), one record per call", r["add_single_ungoverned"])
            row(f"{int(n):,}: add_many(govern=True), {int(_m(r['add_many_governed']['batch']))} per call",
                r["add_many_governed"])
            if "add_many_governed_big" in r:
                row(f"{int(n):,}: add_many(govern=True), {int(_m(r['add_many_governed_big']['batch'])):,} per call",
                    r["add_many_governed_big"])
            row(f"{int(n):,}: add_many(govern=False), 1,000 per call", r["add_many_ungoverned"])
        cpu = lambda node: _m(node["per_cpu_s"])  # noqa: E731
        lines.append(f"ratios (CPU): ingest / remember {cpu(d['ingest']) / cpu(d['remember']):.2f}; ingest / batched "
                     f"embedder {cpu(d['ingest']) / cpu(e['batched']):.2f}; remember / one-text embedder "
                     f"{cpu(d['remember']) / cpu(e['one_at_a_time']):.2f}; batched / one-text embedder "
                     f"{cpu(e['batched']) / cpu(e['one_at_a_time']):.2f}")
        lines.append("")
    if len(systems) == 2:
        (a, sa), (b, sb) = systems.items()
        lines.append(f"{a} / {b}, per CPU s: remember "
                     f"{_m(sa['dialogue']['remember']['per_cpu_s']) / _m(sb['dialogue']['remember']['per_cpu_s']):.2f}x, "
                     f"ingest {_m(sa['dialogue']['ingest']['per_cpu_s']) / _m(sb['dialogue']['ingest']['per_cpu_s']):.2f}x"
                     + "".join(f", {int(n):,} governed add "
                               f"{_m(r['add_governed']['per_cpu_s']) / _m(sb['records'][n]['add_governed']['per_cpu_s']):.2f}x"
                               for n, r in sa["records"].items())
                     + "".join(f", {int(n):,} add_many(govern=True) of {int(_m(r[key]['batch'])):,} "
                               f"{_m(r[key]['per_cpu_s']) / _m(sb['records'][n][key]['per_cpu_s']):.2f}x"
                               for n, r in sa["records"].items()
                               for key in ("add_many_governed", "add_many_governed_big")
                               if key in r and key in sb["records"][n]))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",") if x not in ("", "none")],
                        default=[10_000, 100_000], help="store sizes for the typed-record rows ('none': dialogue only)")
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"), help="where scale.py's stores are")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--users", type=int, default=5, help="conversations per round for remember and ingest")
    parser.add_argument("--embed-repeat", type=int, default=10, help="the conversation's texts, this many times")
    parser.add_argument("--add", type=int, default=100, help="records for add and for single ungoverned writes")
    parser.add_argument("--batch", type=int, default=200, help="records in the add_many(govern=True) call")
    parser.add_argument("--bulk", type=int, default=5000, help="records for add_many(govern=False)")
    parser.add_argument("--big-batch", type=int, default=0,
                        help="records in a second, larger add_many(govern=True) call (0: none)")
    add_options(parser)
    parser.add_argument("--compare-bare", action="store_true",
                        help="run the compared checkout without threadpoolctl (as a venv without it)")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    passed = ["--sizes", ",".join(map(str, args.sizes)) or "none", "--root", str(args.root), "--users", str(args.users),
              "--embed-repeat", str(args.embed_repeat), "--add", str(args.add), "--batch", str(args.batch),
              "--bulk", str(args.bulk), "--big-batch", str(args.big_batch)]
    compared = systems(args.compare, f"{args.compare}{' (no threadpoolctl)' if args.compare_bare else ''}")
    bare = Path(tempfile.mkdtemp()) / "bare"
    bare.mkdir()
    (bare / "threadpoolctl.py").write_text("raise ImportError('hidden by bench/ingest.py --compare-bare')\n")

    def paths_for(name: str, path: str) -> list[str]:
        return [*([str(bare)] if args.compare_bare and path == args.compare else []), path]

    runs = alternate(compared, args.rounds, lambda name: worker_command(__file__, passed), paths_for=paths_for)
    result = {"machine": machine(), "command": command_line("ingest.py", argv),
              "systems": {name: summary(rs) for name, rs in runs.items()}, "rounds": runs}
    lines = report(result["systems"])
    print("\n".join(lines))
    result["report"] = lines
    write_json(args.json, result, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
