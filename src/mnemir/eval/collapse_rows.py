"""The collapse TRAIN split's memories as extraction training rows: each memory's text with the type it was given
by hand, so that the extractor learns the roles the benchmark draws (a fact beside a task of the same words, an
outburst beside a calm fact, a present preference) from thousands of labelled memories instead of a rule per
wording.

    python -m mnemir.eval.collapse_rows            # writes training/understand/extraction_ctrain.jsonl

Which memories become rows (each a general fact about what the label means, not about a sentence):

* said by the user (a tool's text is kept as a fact whatever the model reads; the assistant's creates nothing);
* of a type the extractor draws (Fact, Preference, Task, Plan, EmotionalState, ContextualFrame, Hypothesis);
* a Task or Plan only when open (pending, or no status): a closed or running task's status was set by hand and its
  text may or may not say it (a report is the extractor's ``TaskUpdate``; a request marked done is still a request).
  With ``closed_requests`` (``--closed-requests``), a closed or running one worded as a request or a to-do item is a
  ``Task`` / ``Plan`` too, and only one whose text may tell the work as done, dropped or under way (the extractor's
  own cues, or ``fill.perfective``; loose: "get the floor refinished" trips them) is left out. Measured in
  docs/decisions/0092 (collapse dev end to end as without, continuity dev lower, more dialogue-state tests read
  differently): not the default;
* never a Plan: a scenario stores a plan's steps one by one, each typed Plan from the plan it belongs to, and a step's
  words alone are a to-do item ("Sow the seed mix in April"). The extractor reads a plan from an utterance that lays
  out its steps (``segment.is_plan``), not from one step; taught as Plan, these rows moved unsure readings of other
  shapes (a deliberation, a deed told without its subject) to Plan (docs/decisions/0106). With ``plan_steps``
  (``--plan-steps``) they are kept, as in the file ``extractor_roles`` was fitted on (docs/decisions/0092);
* never a text equal to a dev text of any suite (a collapse dev memory goes through this extractor end to end, a
  continuity dev turn too): those are dropped, and only their count is printed;
* never a text that shares a run of eight CJK characters or five words with a dev or test text of any suite (the
  rule of ``tests/test_no_split_text.py``, whose ``findings`` it calls, and of every batch the extractor is trained
  on since the blind batches): the train and dev scenarios share their authors' stock phrases. Dropped by position,
  only their count printed (docs/decisions/0106). Where the repository's tests are not there, nothing is checked and
  the count says so.

Train split only (``collapse.load("train")``); dev and test files are read for these two checks alone.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mnemir._paths import repo_root, training_dir
from mnemir.eval import collapse, continuity
from mnemir.eval import extraction as corpus
from mnemir.understand import fill
from mnemir.understand.lexicon import CUES

FILE = "extraction_ctrain.jsonl"
TYPES = frozenset({"Fact", "Preference", "Task", "Plan", "EmotionalState", "ContextualFrame", "Hypothesis"})
OPEN = frozenset({None, "", "pending"})
CLOSED = frozenset({"completed", "failed", "cancelled"})


def _status(memory: Mapping[str, Any]) -> str | None:
    return memory.get("status") or (memory.get("props") or {}).get("status")


def label_of(memory: Mapping[str, Any], *, closed_requests: bool = False, plan_steps: bool = False) -> str | None:
    """The extraction label a train memory teaches, or None when it teaches none (see the module's list)."""
    if collapse._speaker(memory) != "user" or memory["type"] not in TYPES:
        return None
    if memory["type"] == "Plan" and not plan_steps:
        return None
    text, status = str(memory["text"]), _status(memory)
    if memory["type"] in ("Task", "Plan") and status not in OPEN:
        if not closed_requests:
            return None
        told = bool(CUES["done"].search(text) or CUES["abandon"].search(text)) or fill.perfective(text)
        if (status in CLOSED and told) or (status == "in_progress" and CUES["progress"].search(text)):
            return None
    return str(memory["type"])


def _dev_texts() -> set[str]:
    texts = {str(m["text"]) for s in collapse.load("dev") for m in s.memories}
    texts |= {q.text for s in collapse.load("dev") for q in s.queries}
    texts |= set(continuity.iter_texts("dev"))
    texts |= {row["text"] for row in corpus.load_split("dev", "extraction")}
    return texts


def shared_run_check() -> Callable[[str], bool] | None:
    """Whether a text shares a run with (or holds) a dev or test text: the repository test's own check, or None
    where the tests are not there."""
    path = repo_root() / "tests" / "test_no_split_text.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_no_split_text", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    findings: Callable[[str], list[tuple[int, str]]] = module.findings
    return lambda text: bool(findings(text))


def rows(scenarios: Iterable[collapse.Scenario], dropped: Iterable[str] = (), *, closed_requests: bool = False,
         plan_steps: bool = False, shares_run: Callable[[str], bool] | None = None
         ) -> tuple[list[dict[str, Any]], Counter[str]]:
    """(rows, counts): one extraction row per memory that teaches a label, the first of equal texts only; with
    ``shares_run``, none for which it is true."""
    avoid = set(dropped)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for scenario in scenarios:
        for memory in scenario.memories:
            label = label_of(memory, closed_requests=closed_requests, plan_steps=plan_steps)
            text = str(memory["text"]).strip()
            if label is None:
                counts["no label"] += 1
                continue
            if text in avoid:
                counts["equal to a dev text (dropped)"] += 1
                continue
            if text in seen:
                counts["repeated"] += 1
                continue
            if shares_run is not None and shares_run(text):
                counts["shares a run with a dev or test text (dropped)"] += 1
                continue
            seen.add(text)
            counts[label] += 1
            out.append({"id": f"{scenario.lang}-ctrain-{scenario.id}-{memory['key']}", "lang": scenario.lang,
                        "speaker": "user", "text": text, "expect": [{"type": label}]})
    return out, counts


def write(path: Path, items: Sequence[Mapping[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mnemir.eval.collapse_rows", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=None, help=f"default: training/understand/{FILE}")
    parser.add_argument("--closed-requests", action="store_true",
                        help="also closed / running tasks worded as requests, as Task (measured, not the default)")
    parser.add_argument("--plan-steps", action="store_true",
                        help="also the steps of plans, as Plan, and no check of shared runs (the file extractor_roles "
                             "was fitted on; 0092, 0106)")
    args = parser.parse_args(argv)
    check = None if args.plan_steps else shared_run_check()
    if check is None:
        print("runs shared with dev or test texts: not checked")
    out, counts = rows(collapse.load("train"), _dev_texts(), closed_requests=args.closed_requests,
                       plan_steps=args.plan_steps, shares_run=check)
    path = args.out or training_dir() / "understand" / FILE
    write(path, out)
    print(f"{len(out)} rows -> {path}; {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
