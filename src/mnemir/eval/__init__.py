"""Evaluation suites: quality on held-out data, baselines and reports."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def zh_first(languages: dict[str, Any]) -> dict[str, Any]:
    """Per-language scores in report order: Chinese first, then the rest as they came."""
    return dict(sorted(languages.items(), key=lambda kv: kv[0] != "zh"))


def report_main(run: Callable[[str], Any], argv: list[str] | None = None) -> int:
    """``python -m mnemir.eval.<suite> [--split S] [--json]``: run a suite and print its report."""
    args = sys.argv[1:] if argv is None else argv
    split = args[args.index("--split") + 1] if "--split" in args else "heldout"
    report = run(split)
    print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1) if "--json" in args else report.render())
    return 0
