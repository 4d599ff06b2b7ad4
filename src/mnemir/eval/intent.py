"""Query-intent quality on the labelled corpus (dev split by default).

    mnemir eval intent                # or: python -m mnemir.eval.intent [--split train] [--json]

Intent type accuracy: the intent's first (best) memory type equals the type
that answers the labelled kind (for "general" queries: the kind is general).
Kind accuracy is reported beside it, with a confusion list.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import report_main, zh_first
from mnemir.eval.extraction import ANCHOR_NOW, INTENT_SPLITS, load_split, sample_rows
from mnemir.understand.intent import KIND_TYPES, IntentRecognizer


@dataclass
class IntentScores:
    total: int = 0
    type_correct: int = 0
    kind_correct: int = 0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def type_accuracy(self) -> float:
        return self.type_correct / self.total if self.total else 0.0

    @property
    def kind_accuracy(self) -> float:
        return self.kind_correct / self.total if self.total else 0.0


@dataclass
class IntentReport:
    split: str
    languages: dict[str, IntentScores]
    target: float = 0.90
    #: type accuracy per file of the split and language
    by_file: dict[str, dict[str, IntentScores]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.split, "target_type_accuracy": self.target, "languages": {
            lang: {"queries": s.total, "type_accuracy": round(s.type_accuracy, 4),
                   "kind_accuracy": round(s.kind_accuracy, 4),
                   "confusions": [{"expected": e, "predicted": p, "count": n} for (e, p), n in s.confusions.most_common()],
                   "errors": s.errors[:30]}
            for lang, s in self.languages.items()},
            "files": {name: {lang: {"queries": s.total, "type_accuracy": round(s.type_accuracy, 4)}
                             for lang, s in langs.items()} for name, langs in self.by_file.items()}}

    def render(self) -> str:
        lines = [f"Query intent on the {self.split} split (no LLM; target type accuracy >= {self.target})"]
        for lang, s in self.languages.items():
            verdict = "meets target" if s.type_accuracy >= self.target else "BELOW target"
            lines += ["", f"[{lang}] {s.total} queries - type accuracy {s.type_accuracy:.3f} ({verdict}), "
                          f"kind accuracy {s.kind_accuracy:.3f}"]
            for (expected, predicted), n in s.confusions.most_common(8):
                lines.append(f"  {expected} -> {predicted}: {n}")
        if len(self.by_file) > 1:
            lines += ["", "type accuracy per file:"]
            for name, langs in self.by_file.items():
                lines.append(f"  {name:<24}" + "  ".join(f"{lang} {s.type_accuracy:.3f} ({s.total})"
                                                         for lang, s in langs.items()))
        return "\n".join(lines)


def expected_type(kind: str) -> str:
    return "*" if kind == "general" else KIND_TYPES[kind][0]


#: the splits this suite runs on
SPLITS = tuple(INTENT_SPLITS)


def run(split: str = "dev", recognizer: IntentRecognizer | None = None, *,
        per_language: int | None = None) -> IntentReport:
    rows = sample_rows(load_split(split, "intent"), per_language)
    recognizer = recognizer or IntentRecognizer(default_embedder())
    languages: dict[str, IntentScores] = {}
    by_file: dict[str, dict[str, IntentScores]] = {}
    for row in rows:
        scores = languages.setdefault(row["lang"], IntentScores())
        per_file = by_file.setdefault(row["source"], {}).setdefault(row["lang"], IntentScores())
        intent = recognizer.recognize(row["query"], now=ANCHOR_NOW)
        scores.total += 1
        per_file.total += 1
        got_type = "*" if intent.kind == "general" else intent.types[0]
        if got_type == expected_type(row["kind"]):
            scores.type_correct += 1
            per_file.type_correct += 1
        if intent.kind == row["kind"]:
            scores.kind_correct += 1
        else:
            scores.confusions[(row["kind"], intent.kind)] += 1
            scores.errors.append({"id": row["id"], "query": row["query"], "expected": row["kind"], "got": intent.kind})
    return IntentReport(split, zh_first(languages), by_file={k: zh_first(v) for k, v in by_file.items()})


def main(argv: list[str] | None = None) -> int:
    return report_main(run, SPLITS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
