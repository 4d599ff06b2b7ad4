"""The LoCoMo harness's systems over our own two-person dialogue QA files (benchmarks/dialogue_qa/<split>/).

    python bench/dialogue_qa.py [--split dev]

A stop-gap until the suite has its own evaluation: each conversation becomes a :class:`mnemir.eval.locomo.Sample`
(turn ``n`` of session ``s`` -> ``D<s>:<n>``; the kinds single_hop / multi_hop / temporal / open_domain -> LoCoMo's
categories 4 / 1 / 2 / 3; every turn ``"<speaker>: <text>"``), and every system of the LoCoMo harness reads it, side by
side, with the same metrics. The test split is sealed: only the lead installs and runs it.
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from mnemir._paths import benchmarks_dir
from mnemir.embed import default_embedder
from mnemir.eval import locomo
from mnemir.eval._embedcache import cached

KINDS = {"multi_hop": 1, "temporal": 2, "open_domain": 3, "single_hop": 4}


def sample(conversation: dict[str, Any]) -> locomo.Sample:
    turns, session_of = [], {}
    for number, session in enumerate(conversation["sessions"], start=1):
        start = datetime.fromisoformat(str(session["at"]))
        for index, turn in enumerate(session["turns"]):
            session_of[turn["n"]] = number
            turns.append(locomo.Turn(f"D{number}:{turn['n']}", number, index, f"{turn['speaker']}: {turn['text']}",
                                     start + timedelta(seconds=index)))
    questions = tuple(locomo.Question(q["q"], KINDS[q["kind"]], tuple(f"D{session_of[e]}:{e}" for e in q["evidence"]))
                      for q in conversation["questions"])
    return locomo.Sample(conversation["id"], tuple(turns), questions, {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=["dev"])
    args = parser.parse_args()
    folder = benchmarks_dir() / "dialogue_qa" / args.split
    samples = [sample(c) for f in sorted(folder.glob("*.yaml"))
               for c in yaml.safe_load(f.read_text(encoding="utf-8"))["conversations"]]
    embedder = cached(default_embedder())
    report = locomo.Report(str(folder), (5, 10, 25), tuple(locomo.SYSTEMS), len(samples))
    with tempfile.TemporaryDirectory(prefix="mnemir-dialogue-qa-") as tmp:
        for i, s in enumerate(samples):
            locomo._run_sample(s, Path(tmp) / f"s{i}", embedder, report)
    print(report.render())


if __name__ == "__main__":
    main()
