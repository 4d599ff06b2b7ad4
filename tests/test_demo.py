"""`make demo` runs `mnemir demo`: it must work on a fresh store and leave the memories it shows."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import mnemir
from mnemir.cli import cli


def test_demo_runs_and_builds_its_store(tmp_path: Path, embedder: mnemir.Embedder) -> None:
    result = CliRunner().invoke(cli, ["demo", "--path", str(tmp_path / "demo")], catch_exceptions=False)
    assert result.exit_code == 0
    assert "plain vector search" in result.stdout and "typed search" in result.stdout
    with mnemir.open(tmp_path / "demo", embedder=embedder) as mem:
        assert mem.count(user="alice") == 11
        bob_tasks = mem.list(user="bob", types=["Task"], where={"status": "completed"})
        assert any("报销单" in t.content.text for t in bob_tasks)
