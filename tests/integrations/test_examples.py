"""The runnable examples run (slow: each starts a fresh process that loads the embedding model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize(("script", "expected"), [
    ("mcp_client.py", "open tasks: ['please book a table for Friday evening']"),
    ("langgraph_agent.py", "You told me before: I'm allergic to peanuts"),
])
def test_example_runs(tmp_path: Path, script: str, expected: str) -> None:
    pytest.importorskip("mcp" if script.startswith("mcp") else "langgraph")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / script), str(tmp_path / "store")], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    assert expected in done.stdout
