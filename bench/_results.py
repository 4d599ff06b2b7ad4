"""Results files of the benchmarks: machine info, and median + spread over repeated runs.

Every benchmark script that takes ``--json PATH`` writes one run's figures there; ``python -m bench`` runs it
several times and :func:`summarise` folds the runs into one file under ``bench/results/``: each number becomes
``{"median", "min", "max", "spread"}`` (spread = (max - min) / median), lists and tables keep their shape.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    """What the figures were measured on (load average included: the machine is shared)."""
    info: dict[str, Any] = {"cores": os.cpu_count(), "platform": platform.platform(),
                            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
    try:
        cpu = Path("/proc/cpuinfo").read_text()
        info["cpu"] = next(line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("model name"))
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
        info["memory_gib"] = round(int(mem) / 2**20, 1)
    except (OSError, StopIteration, IndexError, ValueError):
        info["cpu"] = platform.processor() or platform.machine()
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                        text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        info["dirty"] = bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        pass
    info["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return info


def summarise(runs: list[Any]) -> Any:
    """Fold several runs of one benchmark (same JSON shape) into medians and spreads."""
    first = runs[0]
    if isinstance(first, bool) or first is None or isinstance(first, str):
        return first if all(r == first for r in runs) else runs
    if isinstance(first, (int, float)):
        values = [float(r) for r in runs if isinstance(r, (int, float)) and not isinstance(r, bool)]
        if len(values) != len(runs):
            return runs
        median = statistics.median(values)
        out = {"median": median, "min": min(values), "max": max(values)}
        out["spread"] = (out["max"] - out["min"]) / median if median else 0.0
        return out
    if isinstance(first, dict):
        if not all(isinstance(r, dict) and r.keys() == first.keys() for r in runs):
            return runs
        return {key: summarise([r[key] for r in runs]) for key in first}
    if isinstance(first, list):
        if not all(isinstance(r, list) and len(r) == len(first) for r in runs):
            return runs
        return [summarise([r[i] for r in runs]) for i in range(len(first))]
    return runs


def median_of(node: Any) -> Any:
    """The medians of a summary, in the runs' own shape (for printing tables from a summary)."""
    if isinstance(node, dict):
        if set(node) == {"median", "min", "max", "spread"}:
            return node["median"]
        return {k: median_of(v) for k, v in node.items()}
    if isinstance(node, list):
        return [median_of(v) for v in node]
    return node
