"""The README's numbers table is the one generated from the committed results file."""

from __future__ import annotations

import json

import pytest

from mnemir._paths import repo_root
from mnemir.errors import ValidationError
from mnemir.eval import readme_table

LATEST = repo_root() / "benchmarks" / "results" / "headline.json"


def test_the_readme_table_matches_the_committed_results() -> None:
    results = json.loads(LATEST.read_text(encoding="utf-8"))
    assert not results["quick"] and results["headline"]
    readme = (repo_root() / "README.md").read_text(encoding="utf-8")
    assert readme_table.current_block(readme) == readme_table.render(results), (
        "regenerate: python -m mnemir.eval.readme_table benchmarks/results/headline.json")


def test_the_table_says_which_split_and_run_it_is() -> None:
    results = {"split": "dev", "date": "2026-12-04T23:00:00+00:00", "commit": "0123456789abcdef", "quick": False,
               "machine": {"cores": 2, "cpu": "Xeon"}, "headline": [
                   {"suite": "locomo", "measure": "turn recall@5", "mnemir": 0.25, "baseline": 0.4,
                    "baseline_name": "hybrid over raw turns", "n": 10}]}
    block = readme_table.render(results)
    assert "**dev split**" in block and "not a test result" in block and "`0123456789`" in block
    assert "| locomo | turn recall@5 | 0.250 | 0.400 (hybrid over raw turns) | 10 |" in block
    assert "its single run" in readme_table.render({**results, "split": "test"})
    text = f"before\n{readme_table.START}\nold\n{readme_table.END}\nafter\n"
    updated = readme_table.replace_block(text, block)
    assert updated.startswith("before\n") and updated.endswith(f"{readme_table.END}\nafter\n")
    assert readme_table.current_block(updated) == block
    with pytest.raises(ValidationError):
        readme_table.replace_block("no markers here", block)
    with pytest.raises(ValidationError):
        readme_table.render({**results, "headline": []})
