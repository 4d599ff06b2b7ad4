"""The collapse benchmark: does retrieval keep a memory's role, status and time apart from its words?

Each scenario (``benchmarks/collapse/*.yaml``) is one user's memory store with traps: memories that share
entities and words with a query but have the wrong role (a task for a fact question, an outburst for a calm
question), the wrong status (a completed task for "what's left") or the wrong time (an older preference
replaced by a newer one). Every scenario is built into a fresh real store through the public API
(``mnemir.open`` + ``mem.add`` with explicit types, properties and ``now=``), then every query runs against
these systems, side by side:

* ``vector``: plain vector retrieval, unfiltered exact cosine top-k over every stored record (the seed's
  unfiltered Chroma query; the seed keeps no record status, so superseded records are still there);
* ``bm25``: the store's full-text search over every stored record;
* ``oracle``: the seed's hybrid search with the correct type(s) handed in by hand (the types of the query's
  relevant memories), over every stored record: it cannot see status or time;
* ``oracle_live``: the same, over live records only (what mnemir's lifecycle adds to a type filter);
* ``recall``: ``mem.recall(query)`` with its own inferred intent;
* ``remember_recall`` (end to end): a second store, in which each memory of the scenario (and of the noise) is
  written through ``mem.remember(text)`` as an utterance of its speaker at its age, so extraction errors count: a
  memory typed wrongly, given no status, split, dropped or merged is judged as it was stored. Each record
  ``remember`` created (the utterance's episode included) stands for the memory whose text created it (and for any
  later memory whose utterance updated it: a completion report, a correction); then ``mem.recall(query)``;
* ``remember_search`` (end to end): the same store, plain ``mem.search(query)`` (what recall must add to).

The end-to-end figures are also given without the queries whose pass needs a status no utterance gives
(``Report.status_unsaid``, :func:`closed_unsaid`): a task or plan the scenario closes by hand (completed, failed,
cancelled) while its own utterance was read as open work and no later memory of the scenario reports on it. The
end-to-end store cannot know such a status; the typed store is handed it. Both figures are reported, labelled.

Metrics at each k: isolation (a relevant memory in the top k and no forbidden one), collapse (any forbidden
in the top k), recall@k (share of the relevant memories in the top k) and order (for queries that say the
user's present state must rank above a conflicting preference: satisfied when the first is in the top k and
above the second).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from mnemir._paths import benchmarks_dir
from mnemir.embed import Embedder, default_embedder
from mnemir.errors import ValidationError
from mnemir.eval._embedcache import cached
from mnemir.memory.core import NOT_DELETED
from mnemir.retrieve.learned import shipped_ranker
from mnemir.retrieve.recall import RecallConfig
from mnemir.retrieve.search import hybrid_search
from mnemir.store.base import ANY, Selection

#: the splits of the benchmark (docs/EVALUATION.md); which file is in which is read from ``splits.yaml``.
#: ``all`` is train + dev: the frozen test files are only ever loaded by name.
SPLITS = ("train", "dev", "test", "all")
FILE_SPLITS = ("train", "dev", "test")
#: the in-file ``split:`` labels of the older files (ignored: the manifest decides)
LEGACY_SPLIT_LABELS = ("dev", "heldout", "fresh", "train", "test")
MANIFEST = "splits.yaml"
#: files of the folder that are not scenario files
NOT_SCENARIOS = frozenset({MANIFEST, "noise.yaml"})
SYSTEMS = ("vector", "bm25", "oracle", "oracle_live", "recall", "remember_search", "remember_recall")
SYSTEM_TITLES = {
    "vector": "plain vector (seed, unfiltered)",
    "bm25": "BM25",
    "oracle": "oracle type filter (seed hybrid)",
    "oracle_live": "oracle type filter, live records",
    "recall": "mnemir recall() (typed)",
    "remember_search": "remember + search (end to end)",
    "remember_recall": "remember + recall (end to end)",
}
#: the systems that read the store built through ``remember`` (the others read the typed store)
END_TO_END = frozenset({"remember_search", "remember_recall"})
#: the systems whose top k is asked at each k rather than cut from a longer answer
ASKED_PER_K = frozenset({"recall", "remember_recall"})
USER = "bench-user"
#: the task statuses that close work (a closed task is out of "what's left")
CLOSED = frozenset({"completed", "failed", "cancelled"})
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the files are 3 MB
_AGE = re.compile(r"^(\d+(?:\.\d+)?)\s*([mhdw])$")


# -- data ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Query:
    text: str
    relevant: tuple[str, ...]
    forbidden: tuple[str, ...] = ()
    above: tuple[tuple[str, str], ...] = ()
    oracle_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    id: str
    split: str
    symptom: str
    lang: str
    domain: str
    now: datetime
    memories: tuple[Mapping[str, Any], ...]
    queries: tuple[Query, ...]
    #: the data file it comes from
    source: str = ""


def data_dir() -> Path:
    """``benchmarks/collapse`` of the checkout (or ``$MNEMIR_BENCHMARKS/collapse``)."""
    return benchmarks_dir() / "collapse"


def manifest(directory: Path | None = None) -> dict[str, tuple[str, ...]]:
    """``splits.yaml``: split -> its data files. Every scenario file of the folder is listed in exactly one split."""
    directory = directory or data_dir()
    path = directory / MANIFEST
    if not path.is_file():
        raise ValidationError(f"the collapse split manifest is missing at {path}", field="manifest", value=str(path))
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = sorted(set(raw) - set(FILE_SPLITS))
    if unknown:
        raise ValidationError(f"{path}: unknown split", field="manifest", value=unknown, allowed=list(FILE_SPLITS))
    out: dict[str, tuple[str, ...]] = {}
    for split in FILE_SPLITS:
        names = raw.get(split) or []
        if not isinstance(names, list) or not all(isinstance(n, str) and n.endswith(".yaml") for n in names):
            raise ValidationError(f"{path}: {split} must be a list of .yaml file names", field=f"manifest.{split}",
                                  value=names)
        out[split] = tuple(names)
    listed = [n for names in out.values() for n in names]
    twice = sorted({n for n in listed if listed.count(n) > 1} | (set(listed) & NOT_SCENARIOS))
    if twice:
        raise ValidationError(f"{path}: a file is listed twice or is not a scenario file", field="manifest",
                              value=twice)
    unlisted = sorted(p.name for p in directory.glob("*.yaml") if p.name not in NOT_SCENARIOS and p.name not in listed)
    if unlisted:
        raise ValidationError(f"{path}: scenario files in no split (add each to train, dev or test)",
                              field="manifest", value=unlisted, allowed=list(FILE_SPLITS))
    return out


def split_files(split: str, directory: Path | None = None) -> tuple[str, ...]:
    """The data files of ``split`` (``all`` = train + dev), in manifest order."""
    if split not in SPLITS:
        raise ValidationError("unknown split", field="split", value=split, allowed=list(SPLITS))
    files = manifest(directory)
    return (*files["train"], *files["dev"]) if split == "all" else files[split]


def split_of(directory: Path | None = None) -> dict[str, str]:
    """data file -> its split."""
    return {name: split for split, names in manifest(directory).items() for name in names}


def load(split: str = "dev", *, directory: Path | None = None) -> list[Scenario]:
    """The scenarios of one split (``train``, ``dev``, ``test`` or ``all`` = train + dev). Only that split's files
    are read; a file the manifest lists but the folder lacks is an error."""
    directory = directory or data_dir()
    names = split_files(split, directory)
    labels = split_of(directory)
    missing = [name for name in names if not (directory / name).is_file()]
    if missing:
        raise ValidationError(f"collapse files listed in {MANIFEST} are missing from {directory}",
                              field=f"manifest.{split}", value=missing)
    out = []
    for name in names:
        data = yaml.load((directory / name).read_text(encoding="utf-8"), Loader=_LOADER)
        out += [_scenario(s, name, labels[name]) for s in data["scenarios"]]
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        raise ValidationError("duplicate scenario ids", field="scenarios",
                              value=sorted({i for i in ids if ids.count(i) > 1}))
    return out


def noise(directory: Path | None = None) -> list[Mapping[str, Any]]:
    data = yaml.safe_load(((directory or data_dir()) / "noise.yaml").read_text(encoding="utf-8"))
    return list(data["memories"])


def _scenario(raw: Mapping[str, Any], source: str, split: str) -> Scenario:
    keys = {m["key"] for m in raw["memories"]}
    queries = []
    for q in raw["queries"]:
        query = Query(q["q"], tuple(q["relevant"]), tuple(q.get("forbidden") or ()),
                      tuple(tuple(p) for p in q.get("above") or ()), tuple(q.get("oracle_types") or ()))
        named = [*query.relevant, *query.forbidden, *(k for p in query.above for k in p)]
        unknown = [k for k in named if k not in keys]
        if unknown or not query.relevant:
            raise ValidationError(f"{source}: scenario {raw['id']}: query {q['q']!r} names unknown or no memories",
                                  field="queries", value=unknown, allowed=sorted(keys))
        queries.append(query)
    legacy = raw.get("split")  # the file's old label: checked loosely, never used
    if legacy is not None and legacy not in LEGACY_SPLIT_LABELS:
        raise ValidationError(f"{source}: unknown split label", field=f"{raw['id']}.split", value=legacy,
                              allowed=list(LEGACY_SPLIT_LABELS))
    return Scenario(raw["id"], split, raw["symptom"], raw["lang"], raw["domain"],
                    datetime.fromisoformat(raw["now"]), tuple(raw["memories"]), tuple(queries), source)


def parse_age(text: str) -> timedelta:
    match = _AGE.match(str(text).strip())
    if not match:
        raise ValidationError("bad age", field="age", value=text, allowed="e.g. 30m, 2h, 3d, 6w")
    value, unit = float(match.group(1)), match.group(2)
    return {"m": timedelta(minutes=value), "h": timedelta(hours=value), "d": timedelta(days=value),
            "w": timedelta(weeks=value)}[unit]


# -- building a scenario's store --------------------------------------------------------------------
def build(scenario: Scenario, path: Path, embedder: Embedder, extra: Sequence[Mapping[str, Any]] = ()) -> tuple[
        Any, dict[str, str]]:
    """A fresh store at ``path`` holding the scenario's memories (and ``extra`` ones), oldest first.

    Returns (mem, key -> memory id). When the lifecycle merges a scenario memory into an earlier one, the key maps
    to the memory it was merged into: the store holds one memory for both, and the queries see it as such (showing
    it covers both keys, for better and for worse); :func:`merged_keys` lists them for the report."""
    import mnemir

    mem = mnemir.open(path, embedder=embedder)
    items = [*({**m, "key": f"noise:{m['key']}"} for m in extra), *scenario.memories]
    items.sort(key=lambda m: -parse_age(m["age"]))
    ids = {m["key"]: _memory_id(scenario.id, m["key"]) for m in items}
    for m in items:
        when = scenario.now - parse_age(m["age"])
        props = dict(m.get("props") or {})
        rels = [{"target": ids[target], "relation": relation} for relation, target in m.get("rels") or ()]
        # the later files say what a memory replaces as ``supersedes: [key, ...]`` (the earlier as a ``rels`` pair)
        rels += [{"target": ids[target], "relation": "supersedes"} for target in m.get("supersedes") or ()]
        if m.get("task"):
            props["associated_task_id"] = ids[m["task"]]
            rels.append({"target": ids[m["task"]], "relation": "step_of"})
        if m.get("frame"):
            rels.append({"target": ids[m["frame"]], "relation": "in_frame"})
        stored = mem.add(m["text"], m["type"], props, user=USER, speaker=_speaker(m), relationships=rels,
                         id=ids[m["key"]], now=when)
        ids[m["key"]] = stored.id  # another id: merged into an earlier memory
        if m.get("status"):
            mem.update(stored.id, status=m["status"], user=USER, now=when, reason="benchmark setup")
    return mem, ids


def _memory_id(scenario_id: str, key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:\-]", "_", f"{scenario_id}.{key}")


def _speaker(memory: Mapping[str, Any]) -> str:
    source = str((memory.get("props") or {}).get("source"))
    return {"external": "tool", "assistant": "assistant"}.get(source, "user")


def build_remembered(scenario: Scenario, path: Path, embedder: Embedder,
                     extra: Sequence[Mapping[str, Any]] = ()) -> tuple[Any, dict[str, frozenset[str]]]:
    """A fresh store at ``path`` in which every memory's text (and ``extra``'s) went through ``remember`` as an
    utterance of its speaker at its age, oldest first. Returns (mem, record id -> the scenario keys it stands for):
    the key whose utterance created the record (or is kept verbatim as the episode), and the keys whose utterances
    later updated it."""
    import mnemir

    mem = mnemir.open(path, embedder=embedder)
    items = [*({**m, "key": f"noise:{m['key']}"} for m in extra), *scenario.memories]
    items.sort(key=lambda m: -parse_age(m["age"]))
    covers: dict[str, set[str]] = {}
    for m in items:
        done = mem.remember(m["text"], speaker=_speaker(m), user=USER, now=scenario.now - parse_age(m["age"]))
        # the utterance kept verbatim (its episode) stands for the memory it says, like what was read from it
        for record in [*done.created, *done.updated, *done.episodes]:
            covers.setdefault(record.id, set()).add(m["key"])
    return mem, {rid: frozenset(keys) for rid, keys in covers.items()}


def closed_unsaid(scenario: Scenario, mem: Any, covers: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The scenario's tasks and plans closed by hand (completed, failed, cancelled) whose status no utterance gave:
    no record read from their utterance (or updated by a later one) carries a closed status, and no later memory of
    the scenario reports on them (``task:``). A report misread as a request would be counted here too; the
    diagnosis (:mod:`mnemir.eval.collapse_diagnosis`) tells the two apart by what was read."""
    reported = {m["task"] for m in scenario.memories if m.get("task")}
    records: dict[str, list[str]] = {}
    for rid, keys in covers.items():
        for key in keys:
            records.setdefault(key, []).append(rid)
    out = []
    for m in scenario.memories:
        status = m.get("status") or (m.get("props") or {}).get("status")
        if m["type"] not in ("Task", "Plan") or status not in CLOSED or m["key"] in reported:
            continue
        said = False
        for rid in records.get(m["key"], ()):
            record = mem.get(rid, user=USER, include_deleted=True)
            said = said or record.properties.get("status") in CLOSED
        if not said:
            out.append(m["key"])
    return frozenset(out)


def unsaid_queries(scenario: Scenario, unsaid: Collection[str]) -> set[tuple[str, str]]:
    """(scenario, query) of the queries naming (relevant or forbidden) a memory of ``unsaid``."""
    return {(scenario.id, q.text) for q in scenario.queries if set(unsaid) & {*q.relevant, *q.forbidden}}


# -- systems ------------------------------------------------------------------------------------------
Ranker = Callable[[Any, Scenario, Query, dict[str, str], int], list[str]]


def _everything() -> Selection:
    return Selection(user_id=ANY, statuses=NOT_DELETED)


def rank_vector(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    vector = mem.embedder.embed_query(query.text)
    return [mid for mid, _ in mem.store.vector_search(_everything(), vector, k)]


def rank_bm25(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    return [mid for mid, _ in mem.store.text_search(_everything(), query.text, k)]


def oracle_types(scenario: Scenario, query: Query) -> tuple[str, ...]:
    if query.oracle_types:
        return query.oracle_types
    by_key = {m["key"]: m["type"] for m in scenario.memories}
    return tuple(dict.fromkeys(by_key[key] for key in query.relevant))


def rank_oracle(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    selection = _everything().with_(types=oracle_types(scenario, query))
    hits = hybrid_search(mem.store, mem.embedder, selection, query.text, k, mem.config.fusion)
    return [h.id for h in hits]


def rank_oracle_live(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    return [h.id for h in mem.search(query.text, types=oracle_types(scenario, query), user=USER, k=k,
                                     now=scenario.now)]


def rank_recall(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    return [h.id for h in mem.recall(query.text, user=USER, k=k, now=scenario.now).hits]


def rank_search(mem: Any, scenario: Scenario, query: Query, ids: dict[str, str], k: int) -> list[str]:
    return [h.id for h in mem.search(query.text, user=USER, k=k, now=scenario.now)]


RANKERS: dict[str, Ranker] = {"vector": rank_vector, "bm25": rank_bm25, "oracle": rank_oracle,
                              "oracle_live": rank_oracle_live, "recall": rank_recall, "remember_search": rank_search,
                              "remember_recall": rank_recall}


# -- metrics ------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """One query's ranked ids under one system, judged at one k."""

    isolated: bool
    collapsed: bool
    recall: float
    order_pairs: int
    order_ok: int


def judge(ranked: Sequence[str], query: Query, ids: Mapping[str, str], k: int) -> Outcome:
    """``ranked`` memory ids judged against the query, each id standing for the key it was stored under."""
    keys = key_cover(ids)
    return judge_covered([keys.get(mid, frozenset()) for mid in ranked], query, k)


def judge_covered(covered: Sequence[frozenset[str]], query: Query, k: int) -> Outcome:
    """The ranked records given as the scenario keys each stands for (a record ``remember`` built may stand for
    none, one or several): isolation, collapse, recall and order at ``k``."""
    top = list(covered[:k])
    shown = frozenset().union(*top)
    found = set(query.relevant) & shown
    collapsed = bool(set(query.forbidden) & shown)

    def place(key: str) -> int | None:
        return next((i for i, keys in enumerate(top) if key in keys), None)

    ok = 0
    for first, second in query.above:
        a, b = place(first), place(second)
        if a is not None and (b is None or a < b):
            ok += 1
    return Outcome(bool(found) and not collapsed, collapsed, len(found) / len(query.relevant), len(query.above), ok)


@dataclass
class Row:
    scenario: str
    symptom: str
    lang: str
    query: str
    system: str
    k: int
    ranked: list[str]
    outcome: Outcome
    source: str = ""


@dataclass
class Report:
    split: str
    k_values: tuple[int, ...]
    scenarios: int
    queries: int
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    #: the data files recall's learned ranker was trained on (its numbers on them are not out-of-sample)
    trained_on: tuple[str, ...] = ()
    systems: tuple[str, ...] = SYSTEMS
    #: scenario memories the lifecycle merged into another while the typed store was built ("scenario.key")
    merged: list[str] = field(default_factory=list)
    #: (scenario, query) of the queries whose pass needs a status no utterance gives (:func:`closed_unsaid`): the
    #: end-to-end figures are also given without them (``said_only``)
    status_unsaid: set[tuple[str, str]] = field(default_factory=set)

    def metric(self, system: str, k: int, symptom: str | None = None,
               sources: Collection[str] | None = None, said_only: bool = False) -> dict[str, float]:
        """The system's figures at ``k``; ``said_only``: without the queries of ``status_unsaid``."""
        rows = [r for r in self.rows if r.system == system and r.k == k and (symptom is None or r.symptom == symptom)
                and (sources is None or r.source in sources)
                and not (said_only and (r.scenario, r.query) in self.status_unsaid)]
        if not rows:
            return {"isolation": 0.0, "collapse": 0.0, "recall": 0.0, "order": 0.0, "n": 0}
        pairs = sum(r.outcome.order_pairs for r in rows)
        return {
            "isolation": sum(r.outcome.isolated for r in rows) / len(rows),
            "collapse": sum(r.outcome.collapsed for r in rows) / len(rows),
            "recall": sum(r.outcome.recall for r in rows) / len(rows),
            "order": (sum(r.outcome.order_ok for r in rows) / pairs) if pairs else float("nan"),
            "n": len(rows),
        }

    def misses(self, system: str = "recall", k: int = 3) -> list[Row]:
        return [r for r in self.rows if r.system == system and r.k == k and not r.outcome.isolated]

    def symptoms(self) -> list[str]:
        return list(dict.fromkeys(r.symptom for r in self.rows))

    def sources(self) -> list[str]:
        return list(dict.fromkeys(r.source for r in self.rows))

    def untrained_sources(self) -> frozenset[str]:
        """The data files of this run the learned ranker never saw (all of them when none is known)."""
        return frozenset(s for s in self.sources() if s not in self.trained_on)

    def render(self) -> str:
        lines = [f"Collapse benchmark, split={self.split}: {self.scenarios} scenarios, {self.queries} queries "
                 f"({self.seconds:.0f} s)", ""]
        if self.merged:
            lines[-1:-1] = [f"merged into another memory while the typed store was built (one memory stands for "
                            f"both keys): {', '.join(self.merged)}"]
        head = f"{'system':<34}" + "".join(f"{'iso@' + str(k):>8}{'col@' + str(k):>8}{'rec@' + str(k):>8}"
                                           f"{'ord@' + str(k):>8}" for k in self.k_values)
        lines += [head, "-" * len(head)]
        for system in self.systems:
            cells = []
            for k in self.k_values:
                m = self.metric(system, k)
                cells.append(f"{m['isolation']:>8.3f}{m['collapse']:>8.3f}{m['recall']:>8.3f}{m['order']:>8.3f}")
            lines.append(f"{SYSTEM_TITLES[system]:<34}" + "".join(cells))
        k0 = self.k_values[0]
        said = [s for s in self.systems if s in END_TO_END]
        if said:
            n = self.metric(said[0], k0, said_only=True)["n"]
            lines += ["", f"end to end without the {len(self.status_unsaid)} queries whose pass needs a status no "
                      f"utterance gives (a task closed by hand, read as open, nothing later reports on it; {n} "
                      f"queries):"]
            for system in said:
                m = self.metric(system, k0, said_only=True)
                lines.append(f"{SYSTEM_TITLES[system]:<34}{m['isolation']:>8.3f}{m['collapse']:>8.3f}")
        unseen = self.untrained_sources()
        if unseen and len(unseen) < len(self.sources()):
            n = self.metric("recall", k0, sources=unseen)["n"]
            lines += ["", f"files recall's learned ranker was not trained on ({len(unseen)} files, {n} queries; the "
                      "others are in-sample for it):", f"{'system':<34}{'iso@' + str(k0):>8}{'col@' + str(k0):>8}"]
            for system in self.systems:
                m = self.metric(system, k0, sources=unseen)
                lines.append(f"{SYSTEM_TITLES[system]:<34}{m['isolation']:>8.3f}{m['collapse']:>8.3f}")
        lines += ["", f"isolation@{k0} by symptom:", f"{'symptom':<36}" + "".join(f"{s:>12}" for s in self.systems)]
        for symptom in self.symptoms():
            n = self.metric("recall", k0, symptom)["n"]
            lines.append(f"{symptom + f' ({n})':<36}" + "".join(
                f"{self.metric(s, k0, symptom)['isolation']:>12.3f}" for s in self.systems))
        if len(self.sources()) > 1:
            lines += ["", f"isolation@{k0} by data file:", f"{'file':<36}" + "".join(f"{s:>12}" for s in self.systems)]
            for source in self.sources():
                n = self.metric("recall", k0, sources={source})["n"]
                lines.append(f"{source + f' ({n})':<36}" + "".join(
                    f"{self.metric(s, k0, sources={source})['isolation']:>12.3f}" for s in self.systems))
        misses = self.misses("recall", k0)
        lines += ["", f"recall() misses at k={k0}: {len(misses)}"]
        lines += [f"  {r.scenario}: {r.query}" + (" (collapsed)" if r.outcome.collapsed else " (relevant not found)")
                  for r in misses]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "split": self.split, "k_values": list(self.k_values), "scenarios": self.scenarios,
            "queries": self.queries, "seconds": round(self.seconds, 1),
            "systems": {s: {f"k={k}": self.metric(s, k) for k in self.k_values} for s in self.systems},
            "by_symptom": {sym: {s: self.metric(s, self.k_values[0], sym) for s in self.systems}
                           for sym in self.symptoms()},
            "by_source": {src: {s: self.metric(s, self.k_values[0], sources={src}) for s in self.systems}
                          for src in self.sources()},
            "end_to_end_status_said": {s: {f"k={k}": self.metric(s, k, said_only=True) for k in self.k_values}
                                       for s in self.systems if s in END_TO_END},
            "status_unsaid_queries": len(self.status_unsaid),
            "learned_ranker_trained_on": list(self.trained_on),
            "merged_at_setup": list(self.merged),
            "untrained_files": {s: self.metric(s, self.k_values[0], sources=self.untrained_sources())
                                for s in self.systems},
            "misses": [{"scenario": r.scenario, "query": r.query, "ranked": r.ranked,
                        "collapsed": r.outcome.collapsed} for r in self.misses("recall", self.k_values[0])],
        }


# -- running ------------------------------------------------------------------------------------------
def run(split: str = "dev", k_values: Iterable[int] = (3, 5), *, embedder: Embedder | None = None,
        systems: Sequence[str] = SYSTEMS, progress: Callable[[int, int], None] | None = None,
        limit_scenarios: int | None = None, scenarios: Sequence[Scenario] | None = None) -> Report:
    """Build every scenario of ``split`` (the first ``limit_scenarios`` only, for a quick slice) and run every query
    through every system. ``scenarios``: run these instead of the split's files (reworded queries, a test's own)."""
    k_values = tuple(sorted(set(k_values)))
    if not k_values or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 20 for k in k_values):
        raise ValidationError("k values must be integers in [1, 20]", field="k_values", value=list(k_values))
    unknown = [s for s in systems if s not in RANKERS]
    if unknown:
        raise ValidationError("unknown system", field="systems", value=unknown, allowed=list(RANKERS))
    if limit_scenarios is not None and (isinstance(limit_scenarios, bool) or not isinstance(limit_scenarios, int)
                                        or limit_scenarios < 1):
        raise ValidationError("limit_scenarios must be a positive integer", field="limit_scenarios",
                              value=limit_scenarios, allowed="int >= 1 or None")
    scenarios = list(load(split) if scenarios is None else scenarios)[:limit_scenarios]
    embedder = cached(embedder or default_embedder())
    embedder.prefetch([str(m["text"]) for m in noise()] + [str(m["text"]) for s in scenarios for m in s.memories],
                      [q.text for s in scenarios for q in s.queries])
    ranker = shipped_ranker(RecallConfig().ranker_model)  # the one recall uses: its files are in sample
    report = Report(split, k_values, len(scenarios), sum(len(s.queries) for s in scenarios),
                    trained_on=ranker.trained_on if ranker is not None else (), systems=tuple(systems))
    started = time.perf_counter()
    typed = [s for s in systems if s not in END_TO_END]
    end_to_end = [s for s in systems if s in END_TO_END]
    extra = noise()
    with tempfile.TemporaryDirectory(prefix="mnemir-collapse-e2e-") as tmp:
        for i, (scenario, mem, ids) in enumerate(built(scenarios, embedder), start=1):
            keys = key_cover(ids)
            report.merged += [f"{scenario.id}.{key}" for key in merged_keys(scenario, ids)]
            _run_scenario(mem, scenario, ids, keys, typed, k_values, report)
            if end_to_end:
                remembered, covers = build_remembered(scenario, Path(tmp) / scenario.id, embedder, extra)
                try:
                    report.status_unsaid |= unsaid_queries(scenario, closed_unsaid(scenario, remembered, covers))
                    _run_scenario(remembered, scenario, ids, covers, end_to_end, k_values, report)
                finally:
                    remembered.close()
            if progress:
                progress(i, len(scenarios))
    report.seconds = time.perf_counter() - started
    return report


def merged_keys(scenario: Scenario, ids: Mapping[str, str]) -> list[str]:
    """The scenario's memory keys the lifecycle merged into another memory while the store was built."""
    return [key for key, mid in ids.items() if not key.startswith("noise:") and mid != _memory_id(scenario.id, key)]


def key_cover(ids: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """record id -> the scenario keys it stands for (several when memories were merged into it)."""
    cover: dict[str, set[str]] = {}
    for key, mid in ids.items():
        cover.setdefault(mid, set()).add(key)
    return {mid: frozenset(keys) for mid, keys in cover.items()}


def built(scenarios: Sequence[Scenario], embedder: Embedder) -> Iterator[tuple[Scenario, Any, dict[str, str]]]:
    """Each scenario built into its own fresh store (with the noise memories) in a temporary folder, one at a time:
    the store is closed when the caller moves on to the next."""
    extra = noise()
    with tempfile.TemporaryDirectory(prefix="mnemir-collapse-") as tmp:
        for scenario in scenarios:
            mem, ids = build(scenario, Path(tmp) / scenario.id, embedder, extra)
            try:
                yield scenario, mem, ids
            finally:
                mem.close()


def _run_scenario(mem: Any, scenario: Scenario, ids: dict[str, str], covers: Mapping[str, frozenset[str]],
                  systems: Sequence[str], k_values: tuple[int, ...], report: Report) -> None:
    """Every query through ``systems`` on ``mem``; ``covers``: record id -> the scenario keys it stands for."""
    depth = max(k_values)
    for query in scenario.queries:
        for system in systems:
            answer = RANKERS[system](mem, scenario, query, ids, depth)
            for k in k_values:
                # recall's top k is not the head of its top 2k (what it keeps for plain search depends on k): it is
                # asked at each k, as a user would ask it; a plain ranking is asked once and cut
                ranked = answer if k == depth or system not in ASKED_PER_K else RANKERS[system](mem, scenario, query,
                                                                                                ids, k)
                covered = [covers.get(mid, frozenset()) for mid in ranked]
                report.rows.append(Row(scenario.id, scenario.symptom, scenario.lang, query.text, system, k, ranked,
                                       judge_covered(covered, query, k), scenario.source))
