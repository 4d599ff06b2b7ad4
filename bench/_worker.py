"""What the write benches share to measure this checkout beside another: the ``--compare`` / ``--json`` /
``--worker`` options, and the worker runs, each in a process of its own with one checkout's ``src`` first on
PYTHONPATH (this bench folder after it, so that a compared ``git archive`` of ``src`` finds the bench helpers).

- :func:`alternate`: the timing benches. Each system's worker once a round, the order alternating from round to
  round so that neither always runs on the warmer machine; each worker prints its figures as JSON on its last line.
- :func:`run_both`: the ``same_*`` benches. One worker per checkout, each writing its digest to ``--out``;
  :func:`verdict` compares the two.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: this checkout's ``src``: the first system of every comparison
SRC = str(HERE.parent / "src")
THIS = "this checkout"


def add_options(parser: argparse.ArgumentParser, *, same: bool = False) -> None:
    """``--compare SRC``, ``--worker`` (hidden) and ``--json PATH`` (a timing bench) or ``--out PATH`` (hidden, where
    a ``same_*`` worker writes its digest)."""
    if same:
        parser.add_argument("--compare", required=False, help="another checkout's src directory")
    else:
        parser.add_argument("--compare", default=None, help="another checkout's src directory, measured alongside")
        parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    if same:
        parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)


def systems(compare: str | None, name: str | None = None) -> dict[str, str]:
    """{name: src}: this checkout, and ``compare`` (named ``name``, by default its path) when given."""
    out = {THIS: SRC}
    if compare:
        out[name or compare] = compare
    return out


def _env(paths: Sequence[str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {**(extra or {}), **os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(HERE)])}


def alternate(systems: dict[str, str], rounds: int, command_for: Callable[[str], list[str]], *,
              paths_for: Callable[[str, str], list[str]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Run each system's worker (``command_for(name)``) once a round, alternating the order from round to round;
    ``paths_for(name, src)``: what goes first on PYTHONPATH (default: ``[src]``). Returns each system's figures by
    round. A failed worker ends the bench with its exit status (its stderr's end shown)."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in systems}
    for r in range(rounds):
        for name, path in (list(systems.items()) if r % 2 == 0 else list(reversed(systems.items()))):
            env = _env(paths_for(name, path) if paths_for else [path])
            print(f"round {r + 1}/{rounds}: {name} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
            done = subprocess.run(command_for(name), env=env, capture_output=True, text=True, cwd=HERE.parent)
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                raise SystemExit(done.returncode)
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def worker_command(script: str, args: Sequence[str]) -> list[str]:
    """The command that runs ``script``'s worker with ``args``."""
    return [sys.executable, script, "--worker", *args]


def run_both(script: str, compare: str, worker_args: Sequence[str],
             env: Mapping[str, str] | None = None) -> list[dict[str, Any]] | int:
    """The worker's results (what it wrote to ``--out``) on this checkout's src and on ``compare``, or the exit code
    of a worker that failed. ``env``: variables the workers get unless the caller's environment sets them."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate((SRC, compare)):
            out = Path(tmp) / f"{i}.json"
            done = subprocess.run(worker_command(script, [*worker_args, "--out", str(out)]), env=_env([src], env),
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


def command_line(script: str, argv: Sequence[str] | None) -> str:
    """How the bench was run, for its results file."""
    return f"python bench/{script} " + " ".join(sys.argv[1:] if argv is None else argv)


def write_json(path: Path | None, payload: Any, **dumps: Any) -> None:
    """The results file, where ``--json`` asked for one."""
    if path:
        path.write_text(json.dumps(payload, indent=2, **dumps) + "\n")
