"""LoCoMo evidence retrieval: an external benchmark on long multi-session conversations (retrieval only, no LLM).

    mnemir eval locomo [--data PATH] [--samples N]

LoCoMo (Maharana et al., 2024; CC BY-NC 4.0) is NOT shipped with mnemir: the file is read from ``data_path``,
``$MNEMIR_LOCOMO`` or the team's shared copy. Each sample is one conversation between two people over many
sessions, with questions whose ``evidence`` names the dialogue turns (``D3:7`` = session 3, turn 7) that hold the
answer. mnemir was never trained or tuned on it: the whole file is held-out data.

Every sample is built into fresh real stores (``mnemir.open`` on a temp dir, the default embedder), then every
question of categories 1-4 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; 5 = adversarial, unanswerable,
is left out and counted) runs through these systems, side by side:

* ``turns_bm25``: every turn stored verbatim as one ``Fact`` memory (below), the store's full-text (BM25) search over
  every stored record;
* ``turns_vector``: every turn stored verbatim as one ``Fact`` memory (``mem.add``; Fact is the neutral "something
  said" type and has no key properties, so only near-identical repeats merge), plain exact vector search over every
  stored record (``store.vector_search``, unfiltered): the classic RAG baseline;
* ``turns_hybrid``: the same store, ``mem.search`` (vectors + BM25 fused);
* ``remember_hybrid``: ``mem.search`` over the store ``remember`` built (below): what extraction keeps, without
  recall's role ranking;
* ``remember_recall``: every turn through ``mem.remember(..., speaker="user")`` with ``now`` = its session's date
  and time, then ``mem.recall(question, now=end of conversation)``. Both people are humans whose facts matter, so
  both speak as ``user`` in ONE user scope per conversation (recall reads one scope; the questions ask about
  either person). Every system sees the same text per turn, ``"<name>: <utterance>"`` (plus the shared photo's
  caption), so who said what is kept in the words.

A memory stands for the turns it came from: its ``metadata.source`` (session, turn) and every
``metadata.merged_sources`` entry (what lifecycle merges folded into it). Metrics at each k (5, 10, 25, 50 by
default), averaged over questions, per category and overall:

* turn ``recall@k``: at least one evidence turn among the top k memories' turns; ``coverage@k``: the share of the
  question's evidence turns found there;
* ``ndcg@k``: each of the top k memories gains 1 when it stands for an evidence turn no memory above it stood for,
  discounted by log2(rank + 1); ideal = one new evidence turn at each of the first min(evidence turns, k) ranks;
* session ``recall_any@k`` / ``recall_all@k``: the sessions of the top k memories' turns hold at least one / all of
  the sessions of the question's evidence turns.

A plain ranking is asked once at the largest k and the list is cut; ``recall`` is asked at each k (its top k
is not the head of a longer answer: what it keeps for plain search depends on k).
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mnemir.embed import Embedder, default_embedder
from mnemir.errors import NotFoundError, ValidationError
from mnemir.eval._embedcache import cached
from mnemir.ir import MemIR, MemoryStatus
from mnemir.memory.core import NOT_DELETED
from mnemir.store.base import ANY, Selection

SHARED_PATH = Path("/work/shared/benchmarks/locomo/locomo10.json")
ENV_VAR = "MNEMIR_LOCOMO"
#: LoCoMo is external data, never trained on; its results have been read while developing, so all of it counts as
#: one dev split (docs/EVALUATION.md). "all" is the same set.
SPLITS = ("dev", "all")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
SYSTEMS = ("turns_bm25", "turns_vector", "turns_hybrid", "remember_hybrid", "remember_recall")
#: the raw-turn baselines (the others read the store ``remember`` built)
BASELINES = ("turns_bm25", "turns_vector", "turns_hybrid")
SYSTEM_TITLES = {"turns_bm25": "turns + BM25", "turns_vector": "turns + vector", "turns_hybrid": "turns + hybrid",
                 "remember_hybrid": "remember + hybrid search", "remember_recall": "mnemir remember + recall"}
TURN_TYPE = "Fact"
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")  # also reads the file's few malformed ids ("D:11:26", "D8:6; D9:17")


# -- data ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    index: int
    text: str
    at: datetime


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Sample:
    id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    #: questions left out: adversarial (category 5), or no evidence id naming a turn of this conversation
    skipped: Mapping[str, int]

    @property
    def end(self) -> datetime:
        return max(t.at for t in self.turns) + timedelta(minutes=1)


def resolve_path(data_path: str | Path | None = None) -> Path:
    """The LoCoMo file: ``data_path``, else ``$MNEMIR_LOCOMO``, else the shared copy; a clear error if absent."""
    chosen = data_path or os.environ.get(ENV_VAR) or SHARED_PATH
    path = Path(chosen).expanduser()
    if not path.is_file():
        raise NotFoundError(f"LoCoMo data not found at {str(path)!r}: pass --data PATH (data_path=...) or set "
                            f"${ENV_VAR} to locomo10.json (it is not shipped with mnemir: CC BY-NC 4.0)",
                            field="data_path", value=str(path), allowed="an existing LoCoMo JSON file")
    return path


def load(data_path: str | Path | None = None, *, limit_samples: int | None = None,
         max_turns: int | None = None) -> list[Sample]:
    """The samples (the first ``limit_samples``); with ``max_turns``, each cut to its first turns and the questions
    those turns answer (a quick slice)."""
    path = resolve_path(data_path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{path} is not LoCoMo JSON: {exc}", field="data_path", value=str(path),
                              allowed="a JSON list of samples with conversation and qa") from exc
    if not isinstance(raw, list) or not raw:
        raise ValidationError("LoCoMo data must be a non-empty list of samples", field="data_path",
                              value=str(path), allowed="a JSON list of samples with conversation and qa")
    samples = [_sample(item, i) for i, item in enumerate(raw)]
    samples = samples if limit_samples is None else samples[:limit_samples]
    return samples if max_turns is None else [_cut(sample, max_turns) for sample in samples]


def _cut(sample: Sample, max_turns: int) -> Sample:
    turns = sample.turns[:max_turns]
    kept = {t.dia_id for t in turns}
    questions = tuple(q for q in sample.questions if set(q.evidence) <= kept)
    skipped = Counter(sample.skipped)
    skipped["past the quick slice"] += len(sample.questions) - len(questions)
    return Sample(sample.id, turns, questions, dict(skipped))


def parse_time(text: object, field_name: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware datetime (the data names no time zone: read as UTC)."""
    try:
        return datetime.strptime(str(text).strip(), _DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        raise ValidationError("unreadable session date", field=field_name, value=text,
                              allowed="like '1:56 pm on 8 May, 2023'") from None


def parse_evidence(raw: object) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else [raw]
    found = [f"D{s}:{t}" for item in items for s, t in _EVIDENCE.findall(str(item))]
    return tuple(dict.fromkeys(found))


def _sample(item: Any, position: int) -> Sample:
    where = f"samples[{position}]"
    if not isinstance(item, Mapping) or not isinstance(item.get("conversation"), Mapping) \
            or not isinstance(item.get("qa"), list):
        raise ValidationError(f"{where} is not a LoCoMo sample", field=where, value=type(item).__name__,
                              allowed="an object with conversation and qa")
    turns = _turns(item["conversation"], where)
    known = {t.dia_id for t in turns}
    questions, skipped = [], Counter[str]()
    for q in item["qa"]:
        category = int(q.get("category", 0))
        evidence = tuple(e for e in parse_evidence(q.get("evidence") or []) if e in known)
        if category == ADVERSARIAL:
            skipped["adversarial"] += 1
        elif category not in CATEGORIES:
            skipped["unknown category"] += 1
        elif not evidence:
            skipped["no usable evidence"] += 1
        else:
            questions.append(Question(str(q["question"]), category, evidence))
    return Sample(str(item.get("sample_id", position)), tuple(turns), tuple(questions), dict(skipped))


def _turns(conversation: Mapping[str, Any], where: str) -> list[Turn]:
    numbers = sorted(int(m.group(1)) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
    turns = []
    for n in numbers:
        start = parse_time(conversation.get(f"session_{n}_date_time"), f"{where}.session_{n}_date_time")
        for index, turn in enumerate(conversation[f"session_{n}"]):
            text = str(turn.get("text") or "").strip()
            if turn.get("blip_caption"):
                text = f"{text} [shares a photo: {turn['blip_caption']}]".strip()
            ids = parse_evidence(turn.get("dia_id", ""))
            if not text or not ids:
                continue
            # turns of a session are a second apart, so their order survives in the stored times
            turns.append(Turn(ids[0], n, index, f"{turn.get('speaker', '?')}: {text}", start + timedelta(seconds=index)))
    if not turns:
        raise ValidationError(f"{where} has no dialogue turns", field=f"{where}.conversation",
                              allowed="session_N lists of {speaker, dia_id, text}")
    return turns


# -- stores ---------------------------------------------------------------------------------------------
@dataclass
class Built:
    """A sample's store, how long it took to fill, and memory id -> the dia_ids it stands for."""

    mem: Any
    seconds: float
    turns: dict[str, frozenset[str]] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)


def _user(sample: Sample) -> str:
    return f"locomo-{sample.id}"


def _session(turn: Turn) -> str:
    return f"session_{turn.session}"


def build_turns(sample: Sample, path: Path, embedder: Embedder) -> Built:
    import mnemir

    mem = mnemir.open(path, embedder=embedder)
    started = time.perf_counter()
    for turn in sample.turns:
        mem.add(turn.text, TURN_TYPE, user=_user(sample), session=_session(turn), turn=turn.index, now=turn.at)
    return _mapped(Built(mem, time.perf_counter() - started), sample)


def build_remembered(sample: Sample, path: Path, embedder: Embedder) -> Built:
    import mnemir

    mem = mnemir.open(path, embedder=embedder)
    started = time.perf_counter()
    for turn in sample.turns:
        mem.remember(turn.text, speaker="user", user=_user(sample), session=_session(turn), turn=turn.index,
                     now=turn.at)
    return _mapped(Built(mem, time.perf_counter() - started), sample)


def _mapped(built: Built, sample: Sample) -> Built:
    """Read every stored memory back and map it to the turns in its source and merged sources."""
    by_source: dict[tuple[str, int | None], str] = {(_session(t), t.index): t.dia_id for t in sample.turns}
    for record in built.mem.store.iter_select(Selection(user_id=ANY, statuses=tuple(MemoryStatus))):
        built.turns[record.id] = dia_ids_of(record, by_source)
        built.types[record.id] = record.type
    return built


def dia_ids_of(record: MemIR, by_source: Mapping[tuple[str, int | None], str]) -> frozenset[str]:
    sources = [record.metadata.source, *record.metadata.merged_sources]
    return frozenset(by_source[key] for s in sources if (key := (s.session_id or "", s.turn)) in by_source)


# -- systems ------------------------------------------------------------------------------------------
Ranker = Callable[[Built, Sample, Question, int], list[str]]


def rank_bm25(built: Built, sample: Sample, question: Question, k: int) -> list[str]:
    return [mid for mid, _ in built.mem.store.text_search(Selection(user_id=ANY, statuses=NOT_DELETED),
                                                          question.text, k)]


def rank_vector(built: Built, sample: Sample, question: Question, k: int) -> list[str]:
    vector = built.mem.embedder.embed_query(question.text)
    return [mid for mid, _ in built.mem.store.vector_search(Selection(user_id=ANY, statuses=NOT_DELETED), vector, k)]


def rank_hybrid(built: Built, sample: Sample, question: Question, k: int) -> list[str]:
    return [h.id for h in built.mem.search(question.text, user=_user(sample), k=k, now=sample.end)]


def rank_recall(built: Built, sample: Sample, question: Question, k: int) -> list[str]:
    return [h.id for h in built.mem.recall(question.text, user=_user(sample), k=k, now=sample.end).hits]


#: remember + hybrid search separates what extraction loses from what recall's role ranking loses
RANKERS: dict[str, Ranker] = {"turns_bm25": rank_bm25, "turns_vector": rank_vector, "turns_hybrid": rank_hybrid,
                              "remember_hybrid": rank_hybrid, "remember_recall": rank_recall}
STORE_OF = {"turns_bm25": "turns", "turns_vector": "turns", "turns_hybrid": "turns", "remember_hybrid": "remembered",
            "remember_recall": "remembered"}
BUILDERS = {"turns": build_turns, "remembered": build_remembered}
#: the systems whose top k is asked at each k rather than cut from the answer at the largest k
ASKED_PER_K = frozenset({"remember_recall"})


# -- metrics ------------------------------------------------------------------------------------------
def judge(ranked_turns: Sequence[frozenset[str]], evidence: Iterable[str], k: int) -> tuple[bool, float]:
    """(any evidence turn in the top k, share of the evidence turns found there)."""
    wanted = set(evidence)
    found = wanted & set().union(*ranked_turns[:k])
    return bool(found), len(found) / len(wanted)


def ndcg(ranked_turns: Sequence[frozenset[str]], evidence: Iterable[str], k: int) -> float:
    """A memory gains 1 at its rank when it brings an evidence turn no memory above it brought."""
    wanted, seen = set(evidence), set[str]()
    dcg = 0.0
    for rank, turns in enumerate(ranked_turns[:k]):
        new = (wanted & turns) - seen
        if new:
            dcg += 1.0 / math.log2(rank + 2)
            seen |= new
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(wanted), k)))
    return dcg / ideal if ideal else 0.0


def session_of(dia_id: str) -> str:
    """``D3:7`` -> ``D3``."""
    return dia_id.split(":", 1)[0]


def judge_sessions(ranked_turns: Sequence[frozenset[str]], evidence: Iterable[str], k: int) -> tuple[bool, bool]:
    """(the top k memories' sessions hold any / all of the evidence's sessions)."""
    wanted = {session_of(e) for e in evidence}
    shown = {session_of(t) for turns in ranked_turns[:k] for t in turns}
    return bool(wanted & shown), wanted <= shown


#: the figures of one question at one k (all but ``n`` are averaged over questions)
METRICS = ("recall", "coverage", "ndcg", "session_any", "session_all")


@dataclass
class Row:
    sample: str
    question: str
    category: int
    system: str
    k: int
    hit: bool
    coverage: float
    ndcg: float = 0.0
    session_any: bool = False
    session_all: bool = False


@dataclass
class StoreStats:
    turns: int = 0
    seconds: float = 0.0
    memories: Counter[str] = field(default_factory=Counter)
    turns_with_memory: int = 0
    turns_with_knowledge: int = 0  # a memory other than a DialogueAct (what recall treats as knowledge)


@dataclass
class Report:
    data_path: str
    k_values: tuple[int, ...]
    systems: tuple[str, ...]
    samples: int = 0
    rows: list[Row] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    stores: dict[str, StoreStats] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    #: the question categories by number (another suite in LoCoMo's shape names its own kinds)
    categories: Mapping[int, str] = field(default_factory=lambda: dict(CATEGORIES))
    title: str = "LoCoMo evidence retrieval"
    kinds_label: str = "categories 1-4"

    def metric(self, system: str, k: int, category: int | None = None,
               samples: Collection[str] | None = None) -> dict[str, float]:
        """recall, coverage, ndcg, session_any, session_all at ``k`` (averaged over questions; those of ``samples``
        only when given) and n."""
        rows = [r for r in self.rows if r.system == system and r.k == k and category in (None, r.category)
                and (samples is None or r.sample in samples)]
        if not rows:
            return {**dict.fromkeys(METRICS, 0.0), "n": 0}
        values: dict[str, list[float]] = {
            "recall": [float(r.hit) for r in rows], "coverage": [r.coverage for r in rows],
            "ndcg": [r.ndcg for r in rows], "session_any": [float(r.session_any) for r in rows],
            "session_all": [float(r.session_all) for r in rows]}
        return {**{name: sum(v) / len(rows) for name, v in values.items()}, "n": len(rows)}

    def figures(self, system: str, category: int | None = None,
                samples: Collection[str] | None = None) -> dict[str, float]:
        """The headline figures by name: turn recall@k for every k, nDCG@10, session recall_any / recall_all at
        5 and 10 (where those k were run)."""
        out: dict[str, float] = {}
        for k in self.k_values:
            m = self.metric(system, k, category, samples)
            out[f"turn_recall@{k}"] = m["recall"]
            out[f"turn_coverage@{k}"] = m["coverage"]
            if k == 10:
                out["ndcg@10"] = m["ndcg"]
            if k in (5, 10):
                out[f"session_recall_any@{k}"] = m["session_any"]
                out[f"session_recall_all@{k}"] = m["session_all"]
        out["n"] = self.questions(category, samples)
        return out

    def questions(self, category: int | None = None, samples: Collection[str] | None = None) -> int:
        return int(self.metric(self.systems[0], self.k_values[0], category, samples)["n"]) if self.systems else 0

    def latency_ms(self, system: str) -> dict[str, float]:
        values = self.latencies.get(system) or [0.0]
        ordered = sorted(values)
        return {"p50": statistics.median(ordered) * 1000, "p95": ordered[int(0.95 * (len(ordered) - 1))] * 1000}

    def ingest_ms_per_turn(self, system: str) -> float:
        stats = self.stores.get(STORE_OF[system], StoreStats())
        return stats.seconds / stats.turns * 1000 if stats.turns else 0.0

    def render(self) -> str:
        lines = [f"{self.title} ({self.data_path}): {self.samples} conversations, {self.questions()} "
                 f"questions of {self.kinds_label} ({self.seconds:.0f} s); left out: "
                 + (", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items())) or "none"), ""]
        extra = [name for name in ("ndcg@10", "session_recall_any@5", "session_recall_any@10",
                                   "session_recall_all@5", "session_recall_all@10")
                 if self.systems and name in self.figures(self.systems[0])]
        short = {"ndcg@10": "nDCG@10", "session_recall_any@5": "s-any@5", "session_recall_any@10": "s-any@10",
                 "session_recall_all@5": "s-all@5", "session_recall_all@10": "s-all@10"}
        head = f"{'system':<28}" + "".join(f"{'rec@' + str(k):>9}" for k in self.k_values) \
            + "".join(f"{short[n]:>10}" for n in extra) + f"{'ingest ms/turn':>16}{'query p50 ms':>14}"
        lines += [head, "-" * len(head)]
        for system in self.systems:
            figures = self.figures(system)
            cells = "".join(f"{figures[f'turn_recall@{k}']:>9.3f}" for k in self.k_values) \
                + "".join(f"{figures[n]:>10.3f}" for n in extra)
            lines.append(f"{SYSTEM_TITLES[system]:<28}{cells}{self.ingest_ms_per_turn(system):>16.1f}"
                         f"{self.latency_ms(system)['p50']:>14.1f}")
        lines.append("query p50: per question, excluding embedding the question (embedded once before any system)")
        for k in [k for k in self.k_values if k <= 10] or list(self.k_values[:1]):
            lines += ["", f"evidence recall@{k} by category:",
                      f"{'category':<24}" + "".join(f"{SYSTEM_TITLES[s]:>28}" for s in self.systems)]
            for cat, name in self.categories.items():
                label = f"{cat} {name} ({self.questions(cat)})"
                lines.append(f"{label:<24}" + "".join(f"{self.metric(s, k, cat)['recall']:>28.3f}"
                                                       for s in self.systems))
        for name, stats in self.stores.items():
            kinds = ", ".join(f"{t} {n}" for t, n in stats.memories.most_common())
            lines.append("")
            lines.append(f"store '{name}': {stats.turns} turns -> {sum(stats.memories.values())} memories ({kinds}); "
                         f"turns with a memory {stats.turns_with_memory}, with a non-DialogueAct memory "
                         f"{stats.turns_with_knowledge}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "data_path": self.data_path, "samples": self.samples, "questions": self.questions(),
            "k_values": list(self.k_values), "seconds": round(self.seconds, 1), "skipped": dict(self.skipped),
            "systems": {s: {"overall": self.figures(s),
                            "by_category": {name: self.figures(s, c) for c, name in self.categories.items()},
                            "ingest_ms_per_turn": round(self.ingest_ms_per_turn(s), 2),
                            "query_ms": {q: round(v, 2) for q, v in self.latency_ms(s).items()}}
                        for s in self.systems},
            "stores": {name: {"turns": st.turns, "seconds": round(st.seconds, 2), "memories": dict(st.memories),
                              "turns_with_memory": st.turns_with_memory,
                              "turns_with_knowledge": st.turns_with_knowledge} for name, st in self.stores.items()},
        }


# -- running ------------------------------------------------------------------------------------------
def run(split: str = "dev", *, data_path: str | Path | None = None, systems: Sequence[str] = SYSTEMS,
        k_values: Iterable[int] = (5, 10, 25, 50), limit_samples: int | None = None, max_turns: int | None = None,
        progress: Callable[[int, int], None] | None = None, embedder: Embedder | None = None) -> Report:
    """Build every sample's stores and ask every question of categories 1-4 through every system.

    ``split`` exists for the suite interface: LoCoMo is one dev split, so only "dev" (or "all") is accepted."""
    if split not in SPLITS:
        raise ValidationError("LoCoMo has one split (all of it is dev data)", field="split", value=split,
                              allowed=list(SPLITS))
    k_values = tuple(sorted(set(k_values)))
    if not k_values or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50 for k in k_values):
        raise ValidationError("k values must be integers in [1, 50]", field="k_values", value=list(k_values))
    unknown = [s for s in systems if s not in RANKERS]
    if unknown or not systems:
        raise ValidationError("unknown or no system", field="systems", value=list(systems), allowed=list(RANKERS))
    if limit_samples is not None and (isinstance(limit_samples, bool) or not isinstance(limit_samples, int)
                                      or limit_samples < 1):
        raise ValidationError("limit_samples must be a positive integer", field="limit_samples",
                              value=limit_samples, allowed="int >= 1 or None")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
        raise ValidationError("max_turns must be a positive integer", field="max_turns", value=max_turns,
                              allowed="int >= 1 or None")
    samples = load(data_path, limit_samples=limit_samples, max_turns=max_turns)
    embedder = cached(embedder or default_embedder())
    embedder.prefetch([t.text for s in samples for t in s.turns], [q.text for s in samples for q in s.questions])
    report = Report(str(resolve_path(data_path)), k_values, tuple(systems), len(samples))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mnemir-locomo-") as tmp:
        for i, sample in enumerate(samples, start=1):
            report.skipped.update(sample.skipped)
            run_sample(sample, Path(tmp) / f"s{i}", embedder, report)
            if progress:
                progress(i, len(samples))
    report.seconds = time.perf_counter() - started
    return report


def run_sample(sample: Sample, directory: Path, embedder: Embedder, report: Report) -> None:
    """Build ``sample``'s stores under ``directory`` and ask its questions through ``report``'s systems (its rows,
    latencies and store counts grow)."""
    depth = max(report.k_values)
    needed = list(dict.fromkeys(STORE_OF[s] for s in report.systems))
    built = {name: BUILDERS[name](sample, directory / name, embedder) for name in needed}
    try:
        for name, b in built.items():
            _count_store(report.stores.setdefault(name, StoreStats()), b, sample)
        for question in sample.questions:
            embedder.embed_query(question.text)  # cached: no system's time includes embedding the question
            for system in report.systems:
                b = built[STORE_OF[system]]
                started = time.perf_counter()
                answer = RANKERS[system](b, sample, question, depth)
                report.latencies.setdefault(system, []).append(time.perf_counter() - started)
                for k in report.k_values:
                    # recall's top k is not the head of its top 50 (what it keeps for plain search depends on k):
                    # it is asked at each k, as a user would ask it; a plain ranking is asked once and cut
                    ranked = answer if k == depth or system not in ASKED_PER_K else RANKERS[system](b, sample,
                                                                                                    question, k)
                    ranked_turns = [b.turns.get(mid, frozenset()) for mid in ranked]
                    hit, coverage = judge(ranked_turns, question.evidence, k)
                    any_session, all_sessions = judge_sessions(ranked_turns, question.evidence, k)
                    report.rows.append(Row(sample.id, question.text, question.category, system, k, hit, coverage,
                                           ndcg(ranked_turns, question.evidence, k), any_session, all_sessions))
    finally:
        for b in built.values():
            b.mem.close()


def _count_store(stats: StoreStats, built: Built, sample: Sample) -> None:
    stats.turns += len(sample.turns)
    stats.seconds += built.seconds
    stats.memories.update(built.types.values())
    covered = set().union(*built.turns.values())
    knowledge = set().union(*(ids for mid, ids in built.turns.items() if built.types[mid] != "DialogueAct"))
    stats.turns_with_memory += len(covered)
    stats.turns_with_knowledge += len(knowledge)

