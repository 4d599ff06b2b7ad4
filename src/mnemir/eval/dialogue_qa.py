"""Dialogue QA: our own two-person conversations in LoCoMo's shape, evidence retrieval (no LLM).

    mnemir eval dialogue_qa [--split dev] [--out DIR]
    python -m mnemir.eval.dialogue_qa [--split dev] [--modes labelled,unlabelled] [--out DIR]

The files are ``benchmarks/dialogue_qa/<split>/*.yaml`` (``benchmarks/dialogue_qa/FORMAT.md``): long chats between two
people who know each other, over several sessions, and third-person questions (single_hop, multi_hop, temporal,
open_domain) whose ``evidence`` names the turns that hold the answer. Splits: train (authors C, fitted and tuned
on), dev (authors A, errors read), test (authors B, sealed; the lead's single run).

Every conversation runs through the LoCoMo harness's systems and metrics (:mod:`mnemir.eval.locomo`: the same stores,
rankers and judges), side by side: ``remember`` + ``recall``, ``remember`` + hybrid search, hybrid search, BM25 and
plain vector search over the raw turns. Turn recall@k (an evidence turn among the top k memories' turns), coverage,
nDCG@10 and session recall, overall, per kind and per language.

How a turn is said (``MODES``; both are run and reported):

* ``labelled``: ``"<speaker>: <text>"`` said by the user, as a two-person transcript is kept and as the LoCoMo
  harness says every turn: who said what is in the words;
* ``unlabelled``: the turn's own words, said by the user: who said it is not in the text (``remember`` has no
  argument for a participant's name: a speaker is the user, the assistant, the system or a tool).

Both speakers' turns are said as ``user`` in one scope per conversation (both are people whose facts matter; recall
reads one scope), with ``now`` = the session's time (turns a second apart); questions are asked after the last turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from mnemir._paths import benchmarks_dir
from mnemir.embed import Embedder, default_embedder
from mnemir.errors import NotFoundError, ValidationError
from mnemir.eval import locomo
from mnemir.eval._embedcache import cached

SPLITS = ("train", "dev", "test")
KINDS = ("single_hop", "multi_hop", "temporal", "open_domain")
#: the kinds as the harness's category numbers
CATEGORIES = {i: kind for i, kind in enumerate(KINDS, start=1)}
LANGUAGES = ("en", "zh")
MODES = ("labelled", "unlabelled")
MODE_TITLES = {"labelled": "every turn '<speaker>: <text>' said by the user (the LoCoMo harness's way)",
               "unlabelled": "every turn's own words said by the user (no speaker in the text)"}
SYSTEMS = locomo.SYSTEMS
SYSTEM_TITLES = locomo.SYSTEM_TITLES
K_VALUES = (5, 10)


# -- data ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Conversation:
    id: str
    lang: str
    speakers: tuple[str, str]
    file: str
    #: (session number, its time, [(n, speaker, text)])
    sessions: tuple[tuple[int, datetime, tuple[tuple[int, str, str], ...]], ...]
    #: (question, kind, evidence turn numbers)
    questions: tuple[tuple[str, str, tuple[int, ...]], ...]

    @property
    def turns(self) -> int:
        return sum(len(turns) for _, _, turns in self.sessions)

    def sample(self, mode: str = "labelled", max_turns: int | None = None) -> locomo.Sample:
        """The conversation as the LoCoMo harness reads it (turn ``n`` of session ``s`` -> ``D<s>:<n>``), its
        turns said as ``mode`` says; with ``max_turns``, its first turns and the questions they answer."""
        if mode not in MODES:
            raise ValidationError("unknown mode", field="mode", value=mode, allowed=list(MODES))
        turns: list[locomo.Turn] = []
        session_of: dict[int, int] = {}
        for number, at, said in self.sessions:
            for index, (n, speaker, text) in enumerate(said):
                session_of[n] = number
                words = f"{speaker}: {text}" if mode == "labelled" else text
                turns.append(locomo.Turn(f"D{number}:{n}", number, index, words, at + timedelta(seconds=index)))
        if max_turns is not None:
            turns = turns[:max_turns]
        kept = {t.dia_id for t in turns}
        questions = []
        for text, kind, evidence in self.questions:
            ids = tuple(f"D{session_of[e]}:{e}" for e in evidence)
            if set(ids) <= kept:
                questions.append(locomo.Question(text, KINDS.index(kind) + 1, ids))
        skipped = {"past the quick slice": len(self.questions) - len(questions)} if max_turns is not None else {}
        return locomo.Sample(self.id, tuple(turns), tuple(questions), skipped)


def data_dir(split: str) -> Path:
    if split not in SPLITS:
        raise ValidationError("unknown split", field="split", value=split, allowed=list(SPLITS))
    return benchmarks_dir() / "dialogue_qa" / split


def load(split: str = "dev", *, folder: str | Path | None = None,
         limit_conversations: int | None = None) -> list[Conversation]:
    """The conversations of ``split`` (or of the YAML files in ``folder``), checked; a clear error if there are
    none or a file is malformed (the error names the file, the field and the bad value)."""
    where = Path(folder) if folder is not None else data_dir(split)
    files = sorted(where.glob("*.yaml")) if where.is_dir() else []
    if not files:
        raise NotFoundError(f"the dialogue QA {split} split has no files: no *.yaml in {where}", field="split",
                            value=split, allowed=f"a folder of dialogue QA YAML files ({where})")
    conversations: list[Conversation] = []
    seen: dict[str, str] = {}
    for path in files:
        for conv in _read_file(path):
            if conv.id in seen:
                _bad(path, "conversations.id", conv.id, f"the id is used again (first in {seen[conv.id]})")
            seen[conv.id] = path.name
            conversations.append(conv)
    return conversations if limit_conversations is None else conversations[:limit_conversations]


def _bad(path: Path, field_name: str, value: object, why: str, allowed: object = None) -> None:
    raise ValidationError(f"{path.name}: {field_name}: {why}", field=f"{path.name}:{field_name}", value=value,
                          allowed=allowed)


def _read_file(path: Path) -> list[Conversation]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{path.name} is not YAML: {exc}", field=path.name, value=str(path),
                              allowed="a dialogue QA file (benchmarks/dialogue_qa/FORMAT.md)") from exc
    if not isinstance(raw, Mapping) or not isinstance(raw.get("conversations"), list) or not raw["conversations"]:
        _bad(path, "conversations", type(raw.get("conversations") if isinstance(raw, Mapping) else raw).__name__,
             "a non-empty list of conversations is required", "conversations: [...]")
    return [_conversation(path, item, i) for i, item in enumerate(raw["conversations"])]


def _conversation(path: Path, item: Any, i: int) -> Conversation:
    at = f"conversations[{i}]"
    if not isinstance(item, Mapping):
        _bad(path, at, type(item).__name__, "a conversation is a mapping")
    cid = item.get("id")
    if not isinstance(cid, str) or not cid.strip():
        _bad(path, f"{at}.id", cid, "a conversation needs a non-empty id")
    lang = item.get("lang")
    if lang not in LANGUAGES:
        _bad(path, f"{at}.lang", lang, "unknown language", list(LANGUAGES))
    speakers = item.get("speakers")
    if not isinstance(speakers, list) or len(speakers) != 2 or not all(isinstance(s, str) and s.strip()
                                                                       for s in speakers) \
            or speakers[0] == speakers[1]:
        _bad(path, f"{at}.speakers", speakers, "two different names are required", "[Name A, Name B]")
    sessions_raw = item.get("sessions")
    if not isinstance(sessions_raw, list) or not sessions_raw:
        _bad(path, f"{at}.sessions", sessions_raw, "a non-empty list of sessions is required")
    sessions = []
    numbers: set[int] = set()
    for s, session in enumerate(sessions_raw):
        sat = f"{at}.sessions[{s}]"
        if not isinstance(session, Mapping):
            _bad(path, sat, type(session).__name__, "a session is a mapping with at and turns")
        when = _time(path, f"{sat}.at", session.get("at"))
        turns_raw = session.get("turns")
        if not isinstance(turns_raw, list) or not turns_raw:
            _bad(path, f"{sat}.turns", turns_raw, "a non-empty list of turns is required")
        turns = []
        for t, turn in enumerate(turns_raw):
            tat = f"{sat}.turns[{t}]"
            if not isinstance(turn, Mapping):
                _bad(path, tat, type(turn).__name__, "a turn is a mapping with n, speaker and text")
            n = turn.get("n")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                _bad(path, f"{tat}.n", n, "a turn number is a positive integer")
            if n in numbers:
                _bad(path, f"{tat}.n", n, "the turn number is used again in this conversation")
            numbers.add(n)
            if turn.get("speaker") not in speakers:
                _bad(path, f"{tat}.speaker", turn.get("speaker"), "not one of the conversation's speakers", speakers)
            text = turn.get("text")
            if not isinstance(text, str) or not text.strip():
                _bad(path, f"{tat}.text", text, "a turn needs its text")
            turns.append((n, str(turn["speaker"]), text.strip()))
        sessions.append((s + 1, when, tuple(turns)))
    questions_raw = item.get("questions")
    if not isinstance(questions_raw, list) or not questions_raw:
        _bad(path, f"{at}.questions", questions_raw, "a non-empty list of questions is required")
    questions = []
    for q, question in enumerate(questions_raw):
        qat = f"{at}.questions[{q}]"
        if not isinstance(question, Mapping):
            _bad(path, qat, type(question).__name__, "a question is a mapping with q, kind and evidence")
        text = question.get("q")
        if not isinstance(text, str) or not text.strip():
            _bad(path, f"{qat}.q", text, "a question needs its text")
        if question.get("kind") not in KINDS:
            _bad(path, f"{qat}.kind", question.get("kind"), "unknown kind", list(KINDS))
        evidence = question.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            _bad(path, f"{qat}.evidence", evidence, "a non-empty list of turn numbers is required")
        for e in evidence:
            if isinstance(e, bool) or not isinstance(e, int) or e not in numbers:
                _bad(path, f"{qat}.evidence", e, "no turn of this conversation has that number")
        questions.append((text.strip(), str(question["kind"]), tuple(dict.fromkeys(evidence))))
    return Conversation(cid, lang, (speakers[0], speakers[1]), path.name, tuple(sessions), tuple(questions))


def _time(path: Path, field_name: str, value: object) -> datetime:
    try:
        when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        _bad(path, field_name, value, "unreadable session time", "ISO 8601 with its offset, '2026-01-10T19:30:00+08:00'")
    assert when is not None
    return when


# -- running ------------------------------------------------------------------------------------------
@dataclass
class Report:
    split: str
    k_values: tuple[int, ...]
    systems: tuple[str, ...]
    #: one harness report per mode
    modes: dict[str, locomo.Report] = field(default_factory=dict)
    #: conversation id -> its language
    languages: dict[str, str] = field(default_factory=dict)
    conversations: int = 0
    turns: int = 0
    seconds: float = 0.0

    def by_language(self, lang: str) -> set[str]:
        return {cid for cid, lg in self.languages.items() if lg == lang}

    def misses(self, mode: str, k: int = 5) -> list[dict[str, Any]]:
        """The questions ``turns_hybrid`` answers at ``k`` and ``remember_recall`` does not (and the reverse)."""
        report = self.modes[mode]
        hits = {(r.sample, r.question, r.system): r.hit for r in report.rows if r.k == k}
        out = []
        for (sample, question, system), hit in hits.items():
            if system != "remember_recall" or ("turns_hybrid" not in self.systems):
                continue
            hybrid = hits.get((sample, question, "turns_hybrid"), False)
            if hybrid != hit:
                out.append({"conversation": sample, "question": question, "hybrid": hybrid, "recall": hit})
        return out

    def figures(self, mode: str, system: str) -> dict[str, Any]:
        report = self.modes[mode]
        return {"overall": report.figures(system),
                "by_kind": {kind: report.figures(system, c) for c, kind in CATEGORIES.items()},
                "by_language": {lang: report.figures(system, samples=self.by_language(lang))
                                for lang in LANGUAGES if self.by_language(lang)},
                "ingest_ms_per_turn": round(report.ingest_ms_per_turn(system), 2),
                "query_ms": {q: round(v, 2) for q, v in report.latency_ms(system).items()}}

    def to_dict(self) -> dict[str, Any]:
        first = next(iter(self.modes.values()), None)
        return {"split": self.split, "conversations": self.conversations, "turns": self.turns,
                "questions": first.questions() if first else 0, "k_values": list(self.k_values),
                "seconds": round(self.seconds, 1),
                "modes": {mode: {"title": MODE_TITLES[mode],
                                 "systems": {s: self.figures(mode, s) for s in self.systems},
                                 "stores": {name: {"turns": st.turns, "memories": dict(st.memories)}
                                            for name, st in report.stores.items()},
                                 "misses": self.misses(mode)}
                          for mode, report in self.modes.items()}}

    def render(self) -> str:
        first = next(iter(self.modes.values()), None)
        n = first.questions() if first else 0
        lines = [f"Dialogue QA ({self.split}): {self.conversations} conversations, {self.turns} turns, {n} questions "
                 f"({self.seconds:.0f} s); turn recall@k = an evidence turn among the top k memories' turns", ""]
        for mode, report in self.modes.items():
            lines += [f"mode {mode}: {MODE_TITLES[mode]}", ""]
            head = f"{'system':<28}" + "".join(f"{'rec@' + str(k):>9}" for k in self.k_values) \
                + "".join(f"{lang + '@' + str(k):>9}" for lang in LANGUAGES for k in self.k_values) \
                + f"{'query p50 ms':>14}"
            lines += [head, "-" * len(head)]
            for system in self.systems:
                cells = "".join(f"{report.metric(system, k)['recall']:>9.3f}" for k in self.k_values)
                cells += "".join(f"{report.metric(system, k, samples=self.by_language(lang))['recall']:>9.3f}"
                                 for lang in LANGUAGES for k in self.k_values)
                lines.append(f"{SYSTEM_TITLES[system]:<28}{cells}{report.latency_ms(system)['p50']:>14.1f}")
            for k in self.k_values:
                lines += ["", f"turn recall@{k} by kind:",
                          f"{'kind':<22}" + "".join(f"{SYSTEM_TITLES[s]:>28}" for s in self.systems)]
                for c, kind in CATEGORIES.items():
                    label = f"{kind} ({report.questions(c)})"
                    lines.append(f"{label:<22}" + "".join(f"{report.metric(s, k, c)['recall']:>28.3f}"
                                                         for s in self.systems))
            lines.append("")
        return "\n".join(lines).rstrip()


def run(split: str = "dev", *, folder: str | Path | None = None, modes: Sequence[str] = MODES,
        systems: Sequence[str] = SYSTEMS, k_values: Iterable[int] = K_VALUES, limit_conversations: int | None = None,
        max_turns: int | None = None, progress: Callable[[int, int], None] | None = None,
        embedder: Embedder | None = None) -> Report:
    """Build every conversation's stores in each mode and ask its questions through every system."""
    k_values = tuple(sorted(set(k_values)))
    if not k_values or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50 for k in k_values):
        raise ValidationError("k values must be integers in [1, 50]", field="k_values", value=list(k_values))
    if not modes or any(m not in MODES for m in modes):
        raise ValidationError("unknown or no mode", field="modes", value=list(modes), allowed=list(MODES))
    if not systems or any(s not in locomo.RANKERS for s in systems):
        raise ValidationError("unknown or no system", field="systems", value=list(systems), allowed=list(SYSTEMS))
    conversations = load(split, folder=folder, limit_conversations=limit_conversations)
    embedder = cached(embedder or default_embedder())
    samples = {mode: [c.sample(mode, max_turns) for c in conversations] for mode in modes}
    embedder.prefetch([t.text for ss in samples.values() for s in ss for t in s.turns],
                      [q.text for s in next(iter(samples.values())) for q in s.questions])
    report = Report(split, k_values, tuple(systems), conversations=len(conversations),
                    languages={c.id: c.lang for c in conversations},
                    turns=sum(len(s.turns) for s in next(iter(samples.values()))))
    for mode in modes:
        report.modes[mode] = locomo.Report(str(folder or data_dir(split)), k_values, tuple(systems),
                                           len(conversations), categories=CATEGORIES, title="Dialogue QA",
                                           kinds_label="4 kinds")
    started = time.perf_counter()
    steps, done = len(conversations) * len(modes), 0
    with tempfile.TemporaryDirectory(prefix="mnemir-dialogue-qa-") as tmp:
        for mode in modes:
            for i, sample in enumerate(samples[mode]):
                report.modes[mode].skipped.update(sample.skipped)
                locomo.run_sample(sample, Path(tmp) / f"{mode}-{i}", embedder, report.modes[mode])
                done += 1
                if progress:
                    progress(done, steps)
    report.seconds = time.perf_counter() - started
    for r in report.modes.values():
        r.seconds = report.seconds
    return report


def write(report: Report, out: str | Path) -> Path:
    """``results.json`` (every figure; on the test split no question text) and ``report.md`` in the folder ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    data = report.to_dict()
    if report.split == "test":  # the lead's single run keeps aggregate figures only
        for mode in data["modes"].values():
            mode.pop("misses", None)
    (folder / "results.json").write_text(json.dumps({"dialogue_qa": data}, ensure_ascii=False, indent=1) + "\n",
                                         encoding="utf-8")
    (folder / "report.md").write_text(f"# Dialogue QA, {report.split} split\n\n```\n{report.render()}\n```\n",
                                      encoding="utf-8")
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=SPLITS)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, default both")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--out", default=None, help="also write results.json and report.md to this folder")
    args = parser.parse_args(argv)
    report = run(args.split, modes=args.modes.split(","), limit_conversations=args.conversations,
                 progress=lambda i, n: print(f"{i}/{n} conversations done", file=sys.stderr, flush=True))
    print(report.render())
    if args.out:
        print(f"results written to {write(report, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
