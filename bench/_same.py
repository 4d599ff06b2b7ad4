"""What the ``same_*`` benchmarks share: run one worker per checkout, each in a process of its own with that
checkout's ``src`` first on the path, and compare the two digests (a first difference shown where they part)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def run_both(script: str, compare: str, worker_args: Sequence[str]) -> list[dict[str, Any]] | int:
    """The worker's results on this checkout's src and on ``compare``, or the exit code of a worker that failed."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate((str(HERE.parent / "src"), compare)):
            out = Path(tmp) / f"{i}.json"
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(HERE)])}
            done = subprocess.run([sys.executable, script, "--worker", *worker_args, "--out", str(out)], env=env,
                                  capture_output=True, text=True, cwd=HERE.parent)
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                return done.returncode
            results.append(json.loads(out.read_text()))
    return results


def verdict(a: dict[str, Any], b: dict[str, Any], keys: Sequence[str]) -> int:
    """Print SAME (0) when the digests agree, else the first difference under each of ``keys`` and DIFFERENT (1)."""
    if a["digest"] == b["digest"]:
        print("SAME")
        return 0
    for key in keys:
        for i, (x, y) in enumerate(zip(a[key], b[key], strict=False)):
            if x != y:
                print(f"first difference: {key}[{i}]\n  {json.dumps(x)[:600]}\n  {json.dumps(y)[:600]}")
                break
    print("DIFFERENT")
    return 1
