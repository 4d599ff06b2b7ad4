"""CPU time spent inside named functions, for the profiling benches: each stage's function is wrapped in place
so that a call records its own process time once (a recursive or nested call of the same stage counts once)."""

from __future__ import annotations

import collections
import functools
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def instrument(stages: Iterable[tuple[str, str, str]]) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """Wrap each ``(key, module, attribute path)`` stage; returns the seconds and the calls counted per key, filled
    as the wrapped functions run. A stage missing from the code (an older checkout) is left out."""
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    active: set[str] = set()
    for key, module_name, path in stages:
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, name = path.split(".")
            for part in parents:
                owner = getattr(owner, part)
            original = getattr(owner, name)
        except (ImportError, AttributeError):
            continue

        def timed(*args: Any, _original: Any = original, _key: str = key, **kwargs: Any) -> Any:
            if _key in active:
                return _original(*args, **kwargs)
            active.add(_key)
            start = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_key] += time.process_time() - start
                calls[_key] += 1
                active.discard(_key)

        setattr(owner, name, functools.wraps(original)(timed))
    return spent, calls


def alternate(systems: dict[str, str], rounds: int, command_for: Callable[[str], list[str]],
              bench_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Run each system's worker (``command_for(name)``, with that system's ``src`` first on PYTHONPATH) once a round,
    alternating the order from round to round so that neither always runs on the warmer machine; each worker prints
    its figures as JSON on its last line. A failed worker ends the bench with its exit status."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in systems}
    for r in range(rounds):
        for name, path in (list(systems.items()) if r % 2 == 0 else list(reversed(systems.items()))):
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, str(bench_dir)])}
            print(f"round {r + 1}/{rounds}: {name} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
            done = subprocess.run(command_for(name), env=env, capture_output=True, text=True, cwd=bench_dir.parent)
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                raise SystemExit(done.returncode)
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def median_of(runs: list[dict[str, Any]], *keys: str) -> float | None:
    """The median over the rounds of the figure at ``keys`` (None where no round has it)."""
    values = []
    for run in runs:
        node: Any = run
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            values.append(float(node))
    return statistics.median(values) if values else None
