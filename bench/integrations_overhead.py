"""What the integrations add on top of the Memory calls they wrap: MCP (in process and over streamable HTTP on
loopback) and the LangGraph store.

    PYTHONPATH=src .venv/bin/python bench/integrations_overhead.py [--n 500] [--calls 50]

The memory holds ``--n`` typed memories of one user, made here from templates (no benchmark text): facts about
numbered entities, preferences and open tasks, added with ``Memory.add``. Timed, each ``--calls`` times with a
different query: ``Memory.recall`` directly; the MCP ``recall`` tool through the SDK's client in process and over
HTTP; the LangGraph store's ``get``, ``search`` with a filter, ``search`` with a query, and ``put``. Prints
p50 / p95 in milliseconds as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio

import mnemir

CITIES = ["Lisbon", "Osaka", "Quito", "Tromsø", "Accra", "Hobart", "Cusco", "Bergen", "Da Nang", "Tbilisi"]
THINGS = ["tea", "cycling", "jazz", "spicy food", "early mornings", "board games", "hiking", "sushi"]


def fill(mem: mnemir.Memory, n: int) -> None:
    for i in range(n):
        city = CITIES[i % len(CITIES)]
        kind = i % 3
        if kind == 0:
            mem.add(f"friend number {i} lives in {city}", "Fact",
                    {"entity": f"friend {i}", "attribute": "residence", "value": city}, user="u")
        elif kind == 1:
            thing = THINGS[i % len(THINGS)]
            mem.add(f"likes {thing} (note {i})", "Preference", {"subject": thing, "preference_type": "like"},
                    user="u")
        else:
            mem.add(f"send the report number {i} about {city}", "Task", {"status": "pending"}, user="u")


def stats(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    return {"p50": round(statistics.median(ms), 2), "p95": round(ms[int(0.95 * (len(ms) - 1))], 2)}


def timed(fn: Callable[[int], Any], calls: int) -> dict[str, float]:
    fn(0)  # warm
    out = []
    for i in range(calls):
        start = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - start)
    return stats(out)


def query(j: int) -> str:
    """The j-th question: about a friend the memory knows (fill() writes a residence for every third number)."""
    return f"where does friend number {3 * j} live?"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()

    import uvicorn
    from mcp import Client

    from mnemir.integrations.langgraph import MnemirStore
    from mnemir.integrations.mcp import build_server, http_app

    results: dict[str, Any] = {"n": args.n, "calls": args.calls, "machine": platform.platform()}
    with mnemir.open(tempfile.mkdtemp()) as mem:
        fill(mem, args.n)
        server = build_server(mem, user="u")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        web = uvicorn.Server(uvicorn.Config(http_app(mem, user="u"), host="127.0.0.1", port=port,
                                            log_level="warning"))
        thread = threading.Thread(target=web.run, daemon=True)
        thread.start()
        while not web.started:
            time.sleep(0.02)

        async def interleaved() -> dict[str, dict[str, float]]:
            """The three ways in turn, so that a busy machine slows them alike; each call asks a new question."""
            times: dict[str, list[float]] = {"Memory.recall": [], "mcp recall, in process": [],
                                             "mcp recall, streamable HTTP": []}
            async with Client(server) as local, Client(f"http://127.0.0.1:{port}/mcp") as remote:
                for i in range(-1, args.calls):  # -1 warms every path
                    for path, (name, call) in enumerate((
                            ("Memory.recall", lambda q: anyio.to_thread.run_sync(lambda: mem.recall(q, user="u"))),
                            ("mcp recall, in process", lambda q: local.call_tool("recall", {"query": q})),
                            ("mcp recall, streamable HTTP", lambda q: remote.call_tool("recall", {"query": q})))):
                        start = time.perf_counter()
                        await call(query(3 * i + path + 3))  # a query no path has asked before (recall caches)
                        if i >= 0:
                            times[name].append(time.perf_counter() - start)
            return {name: stats(t) for name, t in times.items()}

        results.update(anyio.run(interleaved))
        web.should_exit = True
        thread.join(10)

        store = MnemirStore(mem, user_label=1)
        for i in range(args.n):
            store.put(("memories", "u"), f"k{i}", {"text": f"note {i} about {CITIES[i % len(CITIES)]}", "i": i})
        results["langgraph get"] = timed(lambda i: store.get(("memories", "u"), f"k{i}"), args.calls)
        results["langgraph search, filter"] = timed(
            lambda i: store.search(("memories", "u"), filter={"i": {"$gte": i}}, limit=10), args.calls)
        results["langgraph search, query"] = timed(
            lambda i: store.search(("memories", "u"), query=f"note about {CITIES[i % len(CITIES)]}", limit=10),
            args.calls)
        results["langgraph put"] = timed(
            lambda i: store.put(("memories", "u"), f"new{i}", {"text": f"fresh note {i}"}), args.calls)
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
