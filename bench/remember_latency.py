"""Benchmark: ``Memory.remember`` latency per utterance over a conversation, both speakers, on a growing store.

A scripted conversation (user and assistant turns, written for this bench: requests, reports, corrections, hedges,
offers and confirmations) is replayed for several users into one SQLite store, one ``remember`` call per turn,
after a warm-up that loads the models. The embedder's cache is cleared between users, so every turn is embedded.
Reported: p50 / p95 per speaker and overall (wall time), the same of the CPU time per call (``cpu``: comparable on a
busy machine, where wall time is not), and the number of memories in the store at the end.

    .venv/bin/python bench/remember_latency.py                       # this checkout
    .venv/bin/python bench/remember_latency.py --users 20
    .venv/bin/python bench/remember_latency.py --compare /work/main/src   # also the code at that src, side by side

``--compare`` runs this same script in a subprocess with that ``src`` first on the path (e.g. the session-start
checkout), so both figures come from one sitting on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta

CONVERSATION = [
    ("user", "I need to renew my passport before the trip in June"),
    ("assistant", "Shall I look up the passport office opening hours for you?"),
    ("user", "yes, do that"),
    ("user", "My sister Dana lives in Porto and works as a pharmacist"),
    ("assistant", "Noted. Is Dana joining you on the trip?"),
    ("user", "Probably not, she might be busy with her exams"),
    ("user", "帮我下周五之前把车险续了"),
    ("assistant", "好的，要不要我提醒你带上行驶证？"),
    ("user", "好，就这么办"),
    ("user", "我对芒果过敏"),
    ("user", "The dentist appointment is on the 4th"),
    ("user", "Sorry, the dentist is on the 14th, not the 4th"),
    ("user", "我们最终定了那辆白色的车"),
    ("user", "房贷合同已经签好了"),
    ("user", "Finally got the passport photos done"),
    ("assistant", "Noted. Is there more I should keep an eye on?"),
    ("user", "From now on, book my haircuts on Saturday mornings"),
    ("user", "我估计是楼上的水管漏了"),
    ("user", "The plumber visit got pushed to next Monday"),
    ("user", "谢谢"),
]
NOW = datetime(2026, 3, 4, 2, 0, tzinfo=UTC)


def measure(users: int) -> dict[str, object]:
    import mnemir

    times: dict[str, list[float]] = {"user": [], "assistant": []}
    cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        mem = mnemir.open(tmp)
        mem.remember("warm-up: I like green tea", user="warm", now=NOW)  # loads the models
        mem.intent("warm-up")
        for u in range(users):
            cache = getattr(mem.embedder, "_cache", None)
            if hasattr(cache, "_data"):  # the query cache: every turn embedded, as in a new conversation
                cache._data.clear()
            for turn, (speaker, text) in enumerate(CONVERSATION):
                start, start_cpu = time.perf_counter(), time.process_time()
                mem.remember(text, speaker=speaker, user=f"u{u}", session=f"s{u}", turn=turn,
                             now=NOW + timedelta(minutes=turn))
                times[speaker].append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
        total = sum(mem.count(user=f"u{u}") for u in range(users))
        mem.close()
    every = times["user"] + times["assistant"]

    def stats(ms: list[float]) -> dict[str, float]:
        ms = sorted(ms)
        return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2)}

    return {"all": stats(every), "user": stats(times["user"]), "assistant": stats(times["assistant"]),
            "cpu": stats(cpu), "memories": total}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--compare", default=None, help="another checkout's src directory, measured in a subprocess")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"this checkout": measure(args.users)}
    if args.compare:
        env = {**os.environ, "PYTHONPATH": args.compare}
        out = subprocess.run([sys.executable, __file__, "--users", str(args.users), "--json"], env=env, check=True,
                             capture_output=True, text=True).stdout
        results[args.compare] = json.loads(out)["this checkout"]
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"remember() per utterance, {len(CONVERSATION)} turns x {args.users} users (ms)")
    for name, r in results.items():
        line = "  ".join(f"{k} p50 {v['p50_ms']} / p95 {v['p95_ms']} (n={v['n']})"
                         for k, v in r.items() if isinstance(v, dict))
        print(f"{name}: {line}; memories stored {r['memories']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
