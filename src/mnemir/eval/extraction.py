"""Extraction quality on the labelled corpus (dev split by default).

    mnemir eval extraction            # or: python -m mnemir.eval.extraction [--split train] [--json]

Per language: per-type precision/recall/F1 of the memory types an utterance
yields (set-based: each (utterance, type) pair counts once), macro-F1 over the
types, how often chit-chat is correctly kept out of memory, and the accuracy of
key properties (status, deadline, polarity, emotion type; on facts, ``decision`` and ``about``: who or what the
fact is about) on items whose type was found. ``Hypothesis`` is a hedged belief. Rows said by the assistant
(``"speaker": "assistant"``) expect nothing: they count as chit-chat kept out of memory. ``TaskUpdate`` is a report on an existing task ("报销单已经交上去了").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from mnemir._paths import benchmarks_dir, training_dir
from mnemir.embed import default_embedder
from mnemir.errors import ValidationError
from mnemir.eval import report_main, zh_first
from mnemir.understand.extract import MEMORY_LABELS, Draft, Extractor
from mnemir.understand.extract import label_of as draft_label
from mnemir.understand.fill import about_whom, person_mention, relation_key
from mnemir.understand.model import read_jsonl
from mnemir.understand.train import training_rows

TYPES = MEMORY_LABELS
#: the splits (docs/EVALUATION.md) and their files. train: what the models learn from (training/understand);
#: dev: every file whose results were read while developing (the first dev set, the old held-out set and the blind
#: "fresh" set); test: written blind, frozen, run once by the lead at the end of a piece of work.
SPLITS = {"train": ("extraction_train.jsonl",),
          "dev": ("extraction_dev.jsonl", "extraction_heldout.jsonl", "extraction_fresh.jsonl",
                  "extraction_dev_b1.jsonl", "extraction_dev_b2.jsonl", "extraction_dev_b3.jsonl",
                  "extraction_dev_b4.jsonl", "extraction_dev_b5.jsonl", "extraction_dev_b6.jsonl",
                  "extraction_dev_b7.jsonl", "extraction_dev_b8.jsonl",
                  "extraction_dev_b9.jsonl", "extraction_dev_b10.jsonl",
                  "extraction_dev_b11.jsonl", "extraction_dev_b12.jsonl",
                  "extraction_dev_b13.jsonl", "extraction_dev_b14.jsonl",
                  "extraction_dev_b15.jsonl", "extraction_dev_b16.jsonl",
                  "extraction_dev_b17.jsonl", "extraction_dev_b18.jsonl",
                  "extraction_dev_b19.jsonl", "extraction_dev_b20.jsonl",
                  "extraction_dev_b21.jsonl", "extraction_dev_b22.jsonl",
                  "extraction_dev_b23.jsonl", "extraction_dev_b24.jsonl", "extraction_dev_b25.jsonl",
                  "extraction_dev_b26.jsonl", "extraction_dev_b27.jsonl",
                  "extraction_dev_b28.jsonl"),
          "test": ("extraction_test.jsonl",),
          # issue 15's new behaviour (hedges, decisions, who a fact is about, assistant turns), written by the
          # engineer who wrote the eighth training batch: a sanity check, not a measurement
          "dev15": ("extraction_dev15.jsonl",)}
INTENT_SPLITS = {"train": ("intent_train.jsonl",),
                 "dev": ("intent_dev.jsonl", "intent_heldout.jsonl", "intent_fresh.jsonl", "intent_dev_b1.jsonl",
                         "intent_dev_b2.jsonl", "intent_dev_b3.jsonl",
                         "intent_dev_b4.jsonl", "intent_dev_b5.jsonl", "intent_dev_b6.jsonl",
                         "intent_dev_b7.jsonl", "intent_dev_b8.jsonl",
                         "intent_dev_b9.jsonl", "intent_dev_b10.jsonl",
                         "intent_dev_b11.jsonl", "intent_dev_b12.jsonl",
                         "intent_dev_b13.jsonl", "intent_dev_b14.jsonl",
                         "intent_dev_b15.jsonl", "intent_dev_b16.jsonl",
                         "intent_dev_b17.jsonl", "intent_dev_b18.jsonl",
                         "intent_dev_b19.jsonl", "intent_dev_b20.jsonl",
                         "intent_dev_b21.jsonl", "intent_dev_b22.jsonl",
                         "intent_dev_b23.jsonl", "intent_dev_b24.jsonl", "intent_dev_b25.jsonl",
                         "intent_dev_b26.jsonl", "intent_dev_b27.jsonl",
                         "intent_dev_b28.jsonl"),
                 "test": ("intent_test.jsonl",)}
#: every utterance in the corpus is resolved against this instant (a Wednesday, UTC+8)
ANCHOR_NOW = datetime.fromisoformat("2026-03-04T10:00:00+08:00")
PROPERTY_KEYS = {"status": "status", "deadline": "deadline", "polarity": "preference_type", "emotion": "emotion_type"}


def corpus_path(name: str) -> Path:
    """A split's file: the train split lives with the training corpora, the others with the benchmarks."""
    return training_dir() / "understand" / name if "_train" in name else benchmarks_dir() / "understand" / name


def load_split(split: str, kind: str = "extraction") -> list[dict[str, Any]]:
    """Every row of ``split``'s files, in file order; each row names its file under ``source``."""
    files = {"extraction": SPLITS, "intent": INTENT_SPLITS}[kind]
    if split not in files:
        raise ValidationError("unknown split", field="split", value=split, allowed=list(files))
    if split == "train":  # every file the trainer reads: the generated corpus and the handwritten batches
        return [{**row, "source": "train"} for row in training_rows("extractor" if kind == "extraction" else "intent")]
    rows = []
    for name in files[split]:
        path = corpus_path(name)
        if not path.is_file():
            raise ValidationError(f"a {kind} file of the {split} split is missing", field="split", value=str(path))
        rows += [{**row, "source": name} for row in read_jsonl(path)]
    return rows


def split_written(split: str) -> bool:
    """Whether every extraction and intent file of ``split`` exists (a new test split is registered before its
    blind authors have finished writing it)."""
    return all(corpus_path(name).is_file() for name in SPLITS.get(split, ()) + INTENT_SPLITS.get(split, ()))


def label_of(draft: Draft) -> str | None:
    return None if draft.type == "DialogueAct" else draft_label(draft)


@dataclass
class LanguageScores:
    counts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))  # tp, fp, fn
    props: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # right, total
    chit_chat: list[int] = field(default_factory=lambda: [0, 0])
    #: the assistant's turns that yielded no memory of the user (right, total): issue 15's provenance policy
    assistant: list[int] = field(default_factory=lambda: [0, 0])
    utterances: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    def per_type(self) -> dict[str, dict[str, float]]:
        out = {}
        for t in TYPES:
            tp, fp, fn = self.counts[t]
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            out[t] = {"precision": p, "recall": r, "f1": f, "support": tp + fn}
        return out

    def macro_f1(self) -> float:
        scores = [v["f1"] for v in self.per_type().values() if v["support"]]
        return sum(scores) / len(scores) if scores else 0.0


@dataclass
class ExtractionReport:
    split: str
    languages: dict[str, LanguageScores]
    target_macro_f1: float = 0.85
    #: the same scores per file of the split (the dev files were written at different times by different authors)
    by_file: dict[str, dict[str, LanguageScores]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "split": self.split,
            "target_macro_f1": self.target_macro_f1,
            "languages": {
                lang: {
                    "utterances": s.utterances,
                    "macro_f1": round(s.macro_f1(), 4),
                    "per_type": {t: {k: round(v, 4) if isinstance(v, float) else v for k, v in m.items()}
                                 for t, m in s.per_type().items()},
                    "chit_chat_kept_out": _ratio(s.chit_chat),
                    "assistant_turns_kept_out": _ratio(s.assistant),
                    "properties": {k: _ratio(v) for k, v in sorted(s.props.items())},
                    "errors": s.errors[:30],
                } for lang, s in self.languages.items()
            },
            "files": {name: {lang: {"utterances": s.utterances, "macro_f1": round(s.macro_f1(), 4),
                                    "f1": {t: round(m["f1"], 4) for t, m in s.per_type().items() if m["support"]}}
                             for lang, s in langs.items()} for name, langs in self.by_file.items()},
        }

    def render(self) -> str:
        lines = [f"Extraction quality on the {self.split} split (no LLM; target macro-F1 >= {self.target_macro_f1})"]
        for lang, s in self.languages.items():
            macro = s.macro_f1()
            verdict = "meets target" if macro >= self.target_macro_f1 else "BELOW target"
            lines += ["", f"[{lang}] {s.utterances} utterances - macro-F1 {macro:.3f} ({verdict})",
                      f"  {'type':<16}{'P':>7}{'R':>7}{'F1':>7}{'n':>6}"]
            for t, m in s.per_type().items():
                lines.append(f"  {t:<16}{m['precision']:>7.3f}{m['recall']:>7.3f}{m['f1']:>7.3f}{m['support']:>6}")
            right, total = s.chit_chat
            lines.append(f"  chit-chat kept out of memory: {right}/{total}")
            right, total = s.assistant
            lines.append(f"  assistant turns that yielded no user memory: {right}/{total}")
            for key, (right, total) in sorted(s.props.items()):
                acc = right / total if total else 0.0
                lines.append(f"  property {key:<9} accuracy {acc:.3f} ({right}/{total}, items whose type was found)")
        if not pinyin_available():
            lines += ["", "note: pypinyin is not installed, so Chinese names in 'about' compare as written, not "
                          "with their romanised spelling: pip install 'mnemir[eval]'"]
        if len(self.by_file) > 1:
            lines += ["", "macro-F1 per file:"]
            for name, langs in self.by_file.items():
                lines.append(f"  {name:<28}" + "  ".join(f"{lang} {s.macro_f1():.3f} ({s.utterances})"
                                                         for lang, s in langs.items()))
        return "\n".join(lines)


def _ratio(pair: list[int]) -> dict[str, Any]:
    right, total = pair
    return {"correct": right, "total": total, "accuracy": round(right / total, 4) if total else None}


def _as_day(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return None if value is None else str(value)[:10]


def score_row(row: dict[str, Any], drafts: list[Draft], scores: LanguageScores) -> None:
    expected = {e["type"] for e in row["expect"]}
    predicted = {label for d in drafts if (label := label_of(d)) is not None}
    for t in TYPES:
        if t in expected and t in predicted:
            scores.counts[t][0] += 1
        elif t in predicted:
            scores.counts[t][1] += 1
        elif t in expected:
            scores.counts[t][2] += 1
    if not expected:
        scores.chit_chat[1] += 1
        scores.chit_chat[0] += int(not predicted)
    if row.get("speaker") == "assistant":
        scores.assistant[1] += 1
        scores.assistant[0] += int(not predicted)
    if expected != predicted:
        scores.errors.append({"id": row["id"], "text": row["text"], "expected": sorted(expected),
                              "predicted": sorted(predicted)})
    for item in row["expect"]:
        match = next((d for d in drafts if label_of(d) == item["type"]), None)
        if match is None:
            continue
        for key, right in (("decision", _decision_right), ("about", _about_right)):
            if key not in item:
                continue
            candidates = [d for d in drafts if label_of(d) == item["type"]]
            ok = any(right(item[key], d) for d in candidates)
            scores.props[key][1] += 1
            scores.props[key][0] += int(ok)
            if not ok:
                scores.errors.append({"id": row["id"], "text": row["text"], "property": key, "expected": item[key],
                                      "got": [{k: d.properties.get(k) for k in ("entity", "attribute")}
                                              for d in candidates]})
        for key, prop in PROPERTY_KEYS.items():
            if key not in item:
                continue
            got = match.properties.get(prop)
            got = _as_day(got) if key == "deadline" else got
            scores.props[key][1] += 1
            if got == item[key]:
                scores.props[key][0] += 1
            else:
                scores.errors.append({"id": row["id"], "text": row["text"], "property": key, "expected": item[key],
                                      "got": got})


def _decision_right(expected: object, draft: Draft) -> bool:
    """A decision is a Fact with attribute ``decision`` (the ontology has no Decision type)."""
    return (draft.properties.get("attribute") == "decision") == bool(expected)


_OWNER = re.compile(r"^(?:我们的?|我的?|咱们的?|咱家的?|我家的?|(?:my|our|the)\s+)", re.I)


def _about_key(text: str) -> str:
    """A who-or-what as a comparable key: possessive dropped ("我姐姐" -> "姐姐", "my uncle" -> "uncle"), a relation
    word mapped to its relation key (so "姐姐" and "older sister" meet), lower case."""
    bare = _OWNER.sub("", str(text).strip()).strip().lower()
    return relation_key(bare) or bare


def _about_right(expected: object, draft: Draft) -> bool:
    """The draft's entity names who or what the fact is about: either key contains the other, after
    :func:`_about_key`, compared in romanised form (:func:`romanised`: "小唐" meets "xiaotang").

    A person named both ways in the sentence ("my brother Tom", "Omar, my line manager", "我们家那只黑猫叫煤球") has the name
    as entity; the relation the extractor read beside it (:func:`mnemir.understand.fill.person_mention`) names the
    same person and counts too. ``user`` is right when the entity is ``user``. A decision Fact keeps the chosen option as its entity; the one who
    decided is the speaker, so it counts as about ``user`` too, unless the sentence names someone else as its
    subject ("my sister decided to…": then it is about her and must say so)."""
    want = _about_key(str(expected))
    got = _about_key(str(draft.properties.get("entity") or ""))
    if not want or not got:
        return False
    if want == "user":
        return got == "user" or (draft.properties.get("attribute") == "decision" and about_whom(draft.text) is None)
    if got == "user":
        return False
    names = [got]
    mention = person_mention(draft.text)
    if mention is not None and mention.relation and _about_key(mention.key) == got:
        names.append(mention.relation)  # "my brother Tom": the entity is Tom, who is the user's brother
    want = romanised(want)
    return any(want and name and (want in name or name in want) for name in map(romanised, names))


def pinyin_available() -> bool:
    """Whether ``pypinyin`` (the ``eval`` extra) is installed, so that Chinese names compare with their romanised
    spelling; without it they compare as written (a warning line in the report says so)."""
    return _lazy_pinyin() is not None


def _lazy_pinyin() -> Callable[[str], list[str]] | None:
    try:
        from pypinyin import lazy_pinyin
    except ImportError:
        return None
    return cast(Callable[[str], list[str]], lazy_pinyin)


@lru_cache(maxsize=4096)
def romanised(text: str) -> str:
    """``text`` with Chinese characters in toneless pinyin, lower case, without spaces, hyphens or apostrophes
    ("小唐" -> "xiaotang", "Xiao Tang" -> "xiaotang"); unchanged but for case and spacing without pypinyin."""
    convert = _lazy_pinyin()
    if convert is not None and _HAN.search(text):
        text = "".join(convert(text))
    return re.sub(r"[\s'’-]+", "", text.lower())


_HAN = re.compile(r"[\u4e00-\u9fff]")


def sample_rows(rows: list[dict[str, Any]], per_language: int | None) -> list[dict[str, Any]]:
    """The first ``per_language`` rows of each language (all rows when None): for quick smoke runs."""
    if per_language is None:
        return rows
    seen: dict[str, int] = defaultdict(int)
    out = []
    for row in rows:
        if seen[row["lang"]] < per_language:
            seen[row["lang"]] += 1
            out.append(row)
    return out


def run(split: str = "dev", extractor: Extractor | None = None, *,
        per_language: int | None = None) -> ExtractionReport:
    rows = sample_rows(load_split(split), per_language)
    extractor = extractor or Extractor(default_embedder())
    languages: dict[str, LanguageScores] = {}
    by_file: dict[str, dict[str, LanguageScores]] = {}
    for row in rows:
        now = datetime.fromisoformat(row["now"]) if row.get("now") else ANCHOR_NOW
        result = extractor.extract(row["text"], speaker=row.get("speaker", "user"), now=now)
        for scores in (languages.setdefault(row["lang"], LanguageScores()),
                       by_file.setdefault(row["source"], {}).setdefault(row["lang"], LanguageScores())):
            scores.utterances += 1
            score_row(row, result.drafts, scores)
    return ExtractionReport(split, zh_first(languages), by_file={k: zh_first(v) for k, v in by_file.items()})


def main(argv: list[str] | None = None) -> int:
    return report_main(run, SPLITS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
