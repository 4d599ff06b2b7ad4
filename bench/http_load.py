"""Benchmark: the HTTP server under concurrent clients on loopback (recall and remember).

Starts a real ``mnemir serve`` process on a fresh store (seeded through the API), runs ``--clients`` threads for
``--seconds`` (each request is a recall or, with probability ``--write-share``, a remember), then reports
requests per second, p50 / p99 latency and errors per endpoint. Every acknowledged write is read back twice:
through the API while the server runs, and from the store file after a graceful shutdown (SIGTERM). Errors and
lost writes must both be 0 (the script exits 1 otherwise).

    .venv/bin/python bench/http_load.py                       # 8 clients, 30 s, 20 % writes
    .venv/bin/python bench/http_load.py --clients 16 --seconds 60 --write-share 0.5
    .venv/bin/python bench/http_load.py --writes add --write-share 1 --clients 16     # typed adds, POST /v1/memories
    .venv/bin/python bench/http_load.py --writes add --write-share 1 --src ../other/src  # another checkout's server

``--writes add``: each write is one typed Fact about a new subject (nothing to merge or supersede), so the figure
is the write path's own rate; concurrent adds share the store's group commit (decision 0113).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC).isoformat()
NAMES = ["Anna", "Ben", "Chen Wei", "Dana", "Eli", "Farah", "Gao Lin", "Hugo", "Ines", "Jun"]
THINGS = ["quarterly budget", "dentist appointment", "team offsite", "car insurance", "visa form", "birthday gift",
          "server migration", "book club", "tax return", "gym membership"]
FOODS = ["火锅", "饺子", "寿司", "咖喱", "拉面", "沙拉", "牛排", "豆腐"]
CITIES = ["杭州", "成都", "Berlin", "Lisbon", "Osaka", "深圳", "Toronto", "西安"]


def utterance(rng: random.Random) -> str:
    name, thing, food, city = rng.choice(NAMES), rng.choice(THINGS), rng.choice(FOODS), rng.choice(CITIES)
    forms = [f"Remind me to call {name} about the {thing} next week",
             f"I really like {food} these days",
             f"帮我在周五之前处理{thing}的事情",
             f"{name} moved to {city} last month",
             f"我下个月要去{city}出差",
             f"I'm worried about the {thing}",
             f"我不喜欢吃{food}",
             f"Please book a table for {name} and me on Saturday"]
    return rng.choice(forms)


def question(rng: random.Random) -> str:
    forms = [f"What do I think about {rng.choice(FOODS)}?", "我手上还剩什么事情要处理？", f"Where does {rng.choice(NAMES)} live?",
             f"What was I going to do about the {rng.choice(THINGS)}?", "这阵子我情绪如何？", "我下个月去哪里？"]
    return rng.choice(forms)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--write-share", type=float, default=0.2)
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--seed-per-user", type=int, default=25, help="memories remembered per user before timing")
    ap.add_argument("--path", default=None, help="store directory (default: a fresh temp dir)")
    ap.add_argument("--writes", choices=("remember", "add"), default="remember",
                    help="what a write request is: an utterance (POST /v1/remember) or a typed Fact (POST /v1/memories)")
    ap.add_argument("--src", default=None, help="the mnemir source the server runs (default: this checkout's src)")
    args = ap.parse_args()

    store = Path(args.path or tempfile.mkdtemp(prefix="mnemir-http-load-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    src = Path(args.src).resolve() if args.src else Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    log = open(store.parent / f"{store.name}-server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-c", "from mnemir.cli import main; main()", "--path", str(store),
                             "serve", "--port", str(port)], env=env, stdout=log, stderr=log)
    try:
        started = time.monotonic()
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() - started > 180:
                print("the server did not start; see", log.name)
                return 1
            time.sleep(0.2)
        users = [f"user{i}" for i in range(args.users)]
        rng = random.Random(7)
        with httpx.Client(base_url=url, timeout=60) as c:
            for user in users:
                turns = [{"text": utterance(rng)} for _ in range(args.seed_per_user)]
                r = c.post("/v1/ingest", json={"user": user, "turns": turns, "now": NOW})
                r.raise_for_status()
        print(f"seeded {args.users} users x {args.seed_per_user} utterances through /v1/ingest "
              f"({time.monotonic() - started:.0f} s incl. start-up)")

        writes = "memories" if args.writes == "add" else "remember"
        lat: dict[str, list[float]] = {"recall": [], writes: []}
        errors: dict[str, list[str]] = {"recall": [], writes: []}
        acked: list[tuple[str, str]] = []
        lock = threading.Lock()
        stop_at = time.monotonic() + args.seconds

        def client(n: int) -> None:
            crng = random.Random(1000 + n)
            with httpx.Client(base_url=url, timeout=60) as hc:
                while time.monotonic() < stop_at:
                    user = crng.choice(users)
                    write = crng.random() < args.write_share
                    kind = writes if write else "recall"
                    if not write:
                        body: dict[str, Any] = {"query": question(crng), "user": user, "k": 5, "now": NOW}
                    elif args.writes == "add":
                        subject = f"item {n}-{crng.getrandbits(48):x}"
                        body = {"text": f"The {subject} is kept in {crng.choice(CITIES)}", "type": "Fact",
                                "user": user, "now": NOW, "properties": {"entity": subject, "attribute": "kept in",
                                                                         "value": crng.choice(CITIES)}}
                    else:
                        body = {"text": utterance(crng), "user": user, "now": NOW}
                    t0 = time.perf_counter()
                    try:
                        r = hc.post(f"/v1/{kind}", json=body)
                        ok = r.status_code in (200, 201)
                    except httpx.HTTPError as exc:
                        ok, r = False, None
                        detail = repr(exc)
                    took = time.perf_counter() - t0
                    with lock:
                        if ok and r is not None:
                            lat[kind].append(took)
                            if write and args.writes == "add":
                                acked.append((user, r.json()["memory"]["id"]))
                            elif write:
                                data = r.json()
                                acked.extend((user, m["id"]) for m in data["created"] + data["updated"])
                        else:
                            errors[kind].append(detail if r is None else f"{r.status_code} {r.text[:200]}")

        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        t_start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t_start

        lost_api = 0
        with httpx.Client(base_url=url, timeout=60) as c:
            for user, mid in acked:
                if c.get(f"/v1/memories/{mid}", params={"user": user, "include_deleted": "true"}).status_code != 200:
                    lost_api += 1
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()

    sys.path.insert(0, str(src))
    import mnemir
    from mnemir.store.base import ANY

    with mnemir.open(store) as mem:
        lost_file = sum(1 for _, mid in acked if not _exists(mem, mid, ANY))

    total = sum(len(v) for v in lat.values())
    print(f"\n{args.clients} clients, {wall:.1f} s, write share {args.write_share:.0%} ({args.writes}), "
          f"{os.cpu_count()} CPUs, loopback; server: one `mnemir serve` process (SQLite store, default embedder)")
    print(f"{'endpoint':10} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind, values in lat.items():
        print(f"{kind:10} {len(values):9d} {len(values) / wall:8.1f} {percentile(values, 0.5) * 1000:8.1f} "
              f"{percentile(values, 0.99) * 1000:8.1f} {len(errors[kind]):7d}")
    print(f"{'all':10} {total:9d} {total / wall:8.1f}")
    print(f"acknowledged writes: {len(acked)} memories; lost (API read-back): {lost_api}; "
          f"lost (store after SIGTERM): {lost_file}; server exit code {proc.returncode}")
    for kind, errs in errors.items():
        for e in errs[:3]:
            print(f"  {kind} error: {e}")
    failed = any(errors.values()) or lost_api or lost_file
    return 1 if failed else 0


def _exists(mem: Any, mid: str, anyone: Any) -> bool:
    try:
        mem.get(mid, user=anyone, include_deleted=True)
        return True
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main())
