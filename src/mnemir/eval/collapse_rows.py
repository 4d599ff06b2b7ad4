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
* never a text equal to a dev text of any suite (a collapse dev memory goes through this extractor end to end, a
  continuity dev turn too): those are dropped, and only their count is printed.

Train split only (``collapse.load("train")``); dev and test files are read for the equality check alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mnemir._paths import training_dir
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


def label_of(memory: Mapping[str, Any], *, closed_requests: bool = False) -> str | None:
    """The extraction label a train memory teaches, or None when it teaches none (see the module's list)."""
    if collapse._speaker(memory) != "user" or memory["type"] not in TYPES:
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


def rows(scenarios: Iterable[collapse.Scenario], dropped: Iterable[str] = (), *,
         closed_requests: bool = False) -> tuple[list[dict[str, Any]], Counter[str]]:
    """(rows, counts): one extraction row per memory that teaches a label, the first of equal texts only."""
    avoid = set(dropped)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for scenario in scenarios:
        for memory in scenario.memories:
            label = label_of(memory, closed_requests=closed_requests)
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
    args = parser.parse_args(argv)
    out, counts = rows(collapse.load("train"), _dev_texts(), closed_requests=args.closed_requests)
    path = args.out or training_dir() / "understand" / FILE
    write(path, out)
    print(f"{len(out)} rows -> {path}; {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
