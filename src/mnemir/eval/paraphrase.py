"""Rewordings: does recall hold when each query of the collapse benchmark is said another way?

A paraphrase file ``benchmarks/collapse/paraphrases/<data file>`` rewords every query of one collapse data file. It
is written by an author who read the queries (and the memories they are about), never the code: the same meaning,
other words, the same language. Format::

    scenarios:
      <scenario id>: ["reworded query 1", "reworded query 2", ...]   # the file's queries, same order and count

``run`` asks the original and the reworded queries side by side (plain vector, BM25 and ``recall``, typed stores,
one run) on the scenarios that have rewordings. The figure of interest is the difference: recall that learned its
wording from the benchmark's own sentences loses points on rewordings; plain search shows what rewording costs
anyway.

    python -m mnemir.eval.paraphrase [--split test] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from mnemir.embed import Embedder
from mnemir.errors import ValidationError
from mnemir.eval import collapse

__all__ = ["FOLDER", "SYSTEMS", "Report", "load", "reworded", "run"]

FOLDER = "paraphrases"
SYSTEMS = ("vector", "bm25", "recall")


def load(split: str = "dev", *, directory: Path | None = None) -> dict[str, tuple[str, ...]]:
    """Scenario id -> its reworded queries, from the paraphrase files of ``split``'s data files (none: empty)."""
    directory = directory or collapse.data_dir()
    out: dict[str, tuple[str, ...]] = {}
    for name in collapse.split_files(split, directory):
        path = directory / FOLDER / name
        if not path.is_file():
            continue
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        scenarios = raw.get("scenarios")
        if not isinstance(scenarios, dict):
            raise ValidationError(f"{path}: expected a mapping under 'scenarios'", field="scenarios",
                                  value=type(scenarios).__name__, allowed="{scenario id: [reworded queries]}")
        for scenario_id, queries in scenarios.items():
            if not isinstance(queries, list) or not all(isinstance(q, str) and q.strip() for q in queries):
                raise ValidationError(f"{path}: rewordings must be a list of non-empty strings",
                                      field=f"scenarios.{scenario_id}", value=queries)
            out[str(scenario_id)] = tuple(queries)
    return out


def reworded(scenarios: Sequence[collapse.Scenario], paraphrases: dict[str, tuple[str, ...]]
             ) -> tuple[list[collapse.Scenario], list[collapse.Scenario]]:
    """(the scenarios that have rewordings, the same scenarios with every query reworded)."""
    known = {s.id for s in scenarios}
    stray = sorted(set(paraphrases) - known)
    if stray:
        raise ValidationError("rewordings for scenarios the split does not have", field="scenarios", value=stray,
                              allowed=f"ids of the split's {len(known)} scenarios")
    originals, changed = [], []
    for scenario in scenarios:
        if scenario.id not in paraphrases:
            continue
        texts = paraphrases[scenario.id]
        if len(texts) != len(scenario.queries):
            raise ValidationError(f"{scenario.id}: one rewording per query, in order", field=scenario.id,
                                  value=len(texts), allowed=len(scenario.queries))
        unchanged = sorted({q.text for q in scenario.queries} & set(texts))
        if unchanged:
            raise ValidationError(f"{scenario.id}: a rewording repeats one of the scenario's queries word for word",
                                  field=scenario.id, value=len(unchanged), allowed="other words than the originals")
        originals.append(scenario)
        changed.append(replace(scenario, queries=tuple(replace(q, text=t) for q, t in zip(scenario.queries, texts,
                                                                                        strict=True))))
    return originals, changed


@dataclass
class Report:
    split: str
    k: int
    original: collapse.Report
    reworded: collapse.Report

    def metric(self, system: str) -> dict[str, float]:
        o, r = self.original.metric(system, self.k), self.reworded.metric(system, self.k)
        return {"isolation": o["isolation"], "isolation_reworded": r["isolation"],
                "collapse": o["collapse"], "collapse_reworded": r["collapse"],
                "isolation_change": r["isolation"] - o["isolation"], "n": o["n"]}

    def render(self) -> str:
        lines = [f"Rewordings, collapse {self.split} split: {self.original.scenarios} scenarios, "
                 f"{self.original.queries} queries, k={self.k}", "",
                 f"{'system':<34}{'iso':>8}{'iso rew.':>10}{'change':>8}{'col':>8}{'col rew.':>10}"]
        for system in SYSTEMS:
            m = self.metric(system)
            lines.append(f"{collapse.SYSTEM_TITLES[system]:<34}{m['isolation']:>8.3f}{m['isolation_reworded']:>10.3f}"
                         f"{m['isolation_change']:>+8.3f}{m['collapse']:>8.3f}{m['collapse_reworded']:>10.3f}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.split, "k": self.k, "scenarios": self.original.scenarios,
                "queries": self.original.queries, "systems": {s: self.metric(s) for s in SYSTEMS}}


def run(split: str = "dev", k: int = 3, *, embedder: Embedder | None = None, directory: Path | None = None,
        limit_scenarios: int | None = None, progress: Callable[[int, int], None] | None = None) -> Report:
    """Original and reworded queries of ``split``'s scenarios that have rewordings, side by side in one run."""
    paraphrases = load(split, directory=directory)
    if not paraphrases:
        raise ValidationError(f"no paraphrase files for the {split} split", field="split", value=split,
                              allowed=f"a split with files under {FOLDER}/")
    originals, changed = reworded(collapse.load(split, directory=directory), paraphrases)
    originals, changed = originals[:limit_scenarios], changed[:limit_scenarios]
    # each store is built once and asked both wordings; the rows are then told apart by their query text (a
    # rewording never repeats one of its scenario's queries: checked in reworded())
    both = [replace(o, queries=o.queries + c.queries) for o, c in zip(originals, changed, strict=True)]
    run = collapse.run(split, (k,), embedder=embedder, systems=SYSTEMS, scenarios=both, progress=progress)
    new_wording = {(c.id, q.text) for c in changed for q in c.queries}

    def part(reworded: bool) -> collapse.Report:
        return collapse.Report(split, (k,), len(originals), sum(len(o.queries) for o in originals),
                               rows=[r for r in run.rows if ((r.scenario, r.query) in new_wording) == reworded],
                               seconds=run.seconds, systems=SYSTEMS)

    return Report(split, k, part(False), part(True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Collapse queries reworded, side by side with the originals.")
    parser.add_argument("--split", default="dev", choices=collapse.FILE_SPLITS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.split)
    print(json.dumps(report.to_dict(), indent=1) if args.json else report.render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
