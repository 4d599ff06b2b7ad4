"""The README quickstart runs as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_quickstart_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "README has no python block"
    exec(compile(blocks[0], "README.md", "exec"), {"__name__": "readme"})


def test_readme_names_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text


def test_readme_command_lines_run(tmp_path: Path, embedder: object, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # every line of the README's command-line block, as written, against a fresh store (the benchmark line is
    # left to `mnemir eval`: it takes longer than a test should)
    from click.testing import CliRunner

    from mnemir.cli import cli

    block = re.search(r"## Command line\n\n```\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert block, "README has no command-line block"
    lines = [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEMIR_PATH", str(tmp_path / "store"))
    runner = CliRunner()
    ran = 0
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "mnemir", line
        if argv[1] == "eval":
            continue
        result = runner.invoke(cli, argv[1:], catch_exceptions=False)
        assert result.exit_code == 0, (line, result.output)
        ran += 1
    assert ran == len(lines) - 1
