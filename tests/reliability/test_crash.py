"""A few SIGKILLs of a writing process (the long run is bench/crash_harness.py): nothing acknowledged is lost,
nothing half-written is visible, and check() finds the store consistent after every kill."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "bench" / "crash_harness.py"


def _harness() -> Any:
    spec = importlib.util.spec_from_file_location("crash_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")
def test_killed_writers_lose_nothing_they_acknowledged(tmp_path: Path, embedder: Any) -> None:
    result = _harness().run(tmp_path / "store", kills=5, seed=3, embedder=embedder, min_delay_s=0.4,
                            max_delay_s=1.5)
    assert result["problems"] == []
    assert result["kills"] == 5
    assert result["records"] > 0 and result["acknowledged_writes"] > 0  # the writer did write between kills
