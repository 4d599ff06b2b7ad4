"""Evaluation suites: quality on the train / dev / test splits (docs/EVALUATION.md), baselines and reports."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def zh_first(languages: dict[str, Any]) -> dict[str, Any]:
    """Per-language scores in report order: Chinese first, then the rest as they came."""
    return dict(sorted(languages.items(), key=lambda kv: kv[0] != "zh"))


def report_main(run: Callable[[str], Any], splits: Iterable[str], argv: list[str] | None = None) -> int:
    """``python -m mnemir.eval.<suite> [--split S] [--json]``: run a suite and print its report (the same as
    ``mnemir eval <suite>``, without the store options)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev", choices=list(splits))
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args(argv)
    report = run(args.split)
    print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1) if args.json else report.render())
    return 0


def model_main(doc: str | None, default_out: Path, train: Callable[[], Any], summary: Callable[[Any], str],
               argv: list[str] | None = None) -> int:
    """The command line of a trainer: fit the model and write its JSON to ``--out`` (default ``default_out``)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=default_out)
    args = parser.parse_args(argv)
    model = train()
    args.out.write_text(json.dumps(model.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {summary(model)}")
    return 0
