"""The continuity benchmark: does memory follow a conversation across sessions?

    mnemir eval continuity [--split dev]      # or: python -m mnemir.eval.continuity [--split dev] [--json]

Each file (``benchmarks/continuity/{dev,test}/*.yaml``, format in ``benchmarks/continuity/README.md``) holds
multi-session conversations between a user and an assistant, written by authors who never saw the code. Every turn is
read in order, as it happens; at each checkpoint (right after a given turn) a question is asked and the answer is
judged by which turns the top 5 stand for. The checkpoint names the turns that answer it (``relevant``) and the turns
it must not show (``forbidden``: a task already done, a fact's old value, a rejected option, a replaced preference).

Systems, side by side in one run:

* ``remember_recall``: every turn through ``mem.remember(text, speaker=..., session=..., turn=n, now=...)``; each
  checkpoint through ``mem.recall(q, k=5, now=...)``;
* ``remember_search``: the same store, each checkpoint through plain ``mem.search(q, k=5, now=...)`` (what typing
  must add to, never subtract from);
* ``turns_bm25`` / ``turns_vector`` / ``turns_hybrid``: every turn stored verbatim as one ``Fact`` memory (both
  speakers), the store's full-text (BM25) search / plain exact vector search / ``mem.search`` (vectors + BM25) over
  what was said so far.

A memory stands for (covers) the turns it came from: its ``metadata.source`` turn, its ``metadata.merged_sources``,
the turns whose ``remember`` call updated it (a completion report, a correction), and the turns of the memories it
names ``derived_from``. At a checkpoint: ``accurate`` = the top 5 cover a relevant turn and no forbidden one;
``violation`` = they cover a forbidden turn. Reported per checkpoint kind and overall.

*Dialogue state* (the write side, apart from ranking), read from the same labels in the store built through
``remember``, at each checkpoint's time:

* ``closed``, at ``open_tasks`` checkpoints: a turn's tasks are the Task / Plan memories read from it (its source
  turn or a merged source). A ``forbidden`` turn's tasks should all be closed (completed / failed, or no longer
  live); a ``relevant`` turn's should not. Precision and recall of "closed" over the turns that yielded a task;
  turns that yielded none are counted apart (``untasked``: the task was never read, so state cannot act on it).
* ``superseded``, at ``corrected_fact`` checkpoints: the memories read from a ``forbidden`` turn (the old value)
  should include one that is superseded or expired; those of a ``relevant`` turn should not. Precision and recall
  over the turns that yielded a memory (``unread``: none).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from mnemir._paths import benchmarks_dir
from mnemir.embed import Embedder, default_embedder
from mnemir.errors import ValidationError
from mnemir.eval import report_main
from mnemir.eval._embedcache import cached
from mnemir.memory.core import ALL_STATUSES, NOT_DELETED
from mnemir.ontology.enums import OPEN_STATUSES
from mnemir.store.base import ANY, Selection

SPLITS = ("train", "dev", "test")
#: what a checkpoint asks for; past_event (something that happened, asked about later: "what did I do at...",
#: "when did...") and other_person (a fact about someone in the user's life) came with the second round of files
KINDS = ("open_tasks", "task_status", "decision", "corrected_fact", "preference", "next_step", "past_event",
         "other_person")
SPEAKERS = ("user", "assistant")
SYSTEMS = ("turns_bm25", "turns_vector", "turns_hybrid", "remember_search", "remember_recall")
SYSTEM_TITLES = {"turns_bm25": "turns + BM25", "turns_vector": "turns + vector", "turns_hybrid": "turns + hybrid",
                 "remember_search": "remember + search", "remember_recall": "mnemir remember + recall"}
#: the systems that read the store built through ``remember``
REMEMBERED = frozenset({"remember_search", "remember_recall"})
K = 5
#: turns of a session are this far apart; a checkpoint is asked this long after its turn
TURN_GAP = timedelta(minutes=1)
ASK_AFTER = timedelta(seconds=30)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# -- data ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    n: int
    speaker: str
    text: str
    session: int
    at: datetime


@dataclass(frozen=True)
class Checkpoint:
    after: int
    kind: str
    q: str
    relevant: frozenset[int]
    forbidden: frozenset[int]


@dataclass(frozen=True)
class Conversation:
    id: str
    lang: str
    domain: str
    turns: tuple[Turn, ...]
    checkpoints: tuple[Checkpoint, ...]
    source: str = ""

    def time_after(self, n: int) -> datetime:
        return next(t.at for t in self.turns if t.n == n) + ASK_AFTER


def data_dir(split: str) -> Path:
    return benchmarks_dir() / "continuity" / split


def load(split: str = "dev", *, directory: Path | None = None) -> list[Conversation]:
    """Every conversation of ``split`` (every ``*.yaml`` in its folder, in name order)."""
    if split not in SPLITS:
        raise ValidationError("unknown split", field="split", value=split, allowed=list(SPLITS))
    folder = directory or data_dir(split)
    files = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
    if not files:
        raise ValidationError(f"no continuity files in {folder}", field="split", value=split,
                              allowed="a folder of *.yaml conversation files")
    out = []
    for path in files:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        out += [_conversation(raw, f"{path.name}: conversations[{i}]", path.name)
                for i, raw in enumerate(data.get("conversations") or [])]
    ids = [c.id for c in out]
    if len(set(ids)) != len(ids):
        raise ValidationError("duplicate conversation ids", field="conversations.id",
                              value=sorted({i for i in ids if ids.count(i) > 1}))
    return out


def _need(raw: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(raw, Mapping) or key not in raw:
        raise ValidationError(f"{where} has no {key}", field=f"{where}.{key}", value=None)
    return raw[key]


def _conversation(raw: Mapping[str, Any], where: str, source: str) -> Conversation:
    turns: list[Turn] = []
    for s, session in enumerate(_need(raw, "sessions", where) or []):
        place = f"{where}.sessions[{s}]"
        try:
            start = datetime.fromisoformat(str(_need(session, "at", place)))
        except ValueError:
            raise ValidationError("unreadable session time", field=f"{place}.at", value=session.get("at"),
                                  allowed="ISO 8601 with an offset") from None
        if start.tzinfo is None:
            raise ValidationError("session time without an offset", field=f"{place}.at", value=session["at"],
                                  allowed="ISO 8601 with an offset")
        for i, turn in enumerate(_need(session, "turns", place) or []):
            speaker = str(_need(turn, "speaker", f"{place}.turns[{i}]"))
            if speaker not in SPEAKERS:
                raise ValidationError("unknown speaker", field=f"{place}.turns[{i}].speaker", value=speaker,
                                      allowed=list(SPEAKERS))
            turns.append(Turn(int(_need(turn, "n", f"{place}.turns[{i}]")), speaker,
                              str(_need(turn, "text", f"{place}.turns[{i}]")), s + 1, start + i * TURN_GAP))
    numbers = [t.n for t in turns]
    if numbers != list(range(1, len(turns) + 1)):
        raise ValidationError("turn numbers must run 1..N in order", field=f"{where}.sessions", value=numbers[:60])
    checkpoints = []
    for i, c in enumerate(raw.get("checkpoints") or []):
        place = f"{where}.checkpoints[{i}]"
        after, kind = int(_need(c, "after", place)), str(_need(c, "kind", place))
        relevant = frozenset(int(n) for n in _need(c, "relevant", place) or [])
        forbidden = frozenset(int(n) for n in c.get("forbidden") or [])
        if kind not in KINDS:
            raise ValidationError("unknown checkpoint kind", field=f"{place}.kind", value=kind, allowed=list(KINDS))
        if not relevant or not 1 <= after <= len(turns) or any(not 1 <= n <= after for n in relevant | forbidden):
            raise ValidationError("a checkpoint needs relevant turns, all at or before its turn", field=place,
                                  value={"after": after, "relevant": sorted(relevant), "forbidden": sorted(forbidden)})
        checkpoints.append(Checkpoint(after, kind, str(_need(c, "q", place)), relevant, forbidden))
    return Conversation(str(_need(raw, "id", where)), str(raw.get("lang", "")), str(raw.get("domain", "")),
                        tuple(turns), tuple(checkpoints), source)


# -- running ------------------------------------------------------------------------------------------
@dataclass
class Row:
    conversation: str
    lang: str
    kind: str
    question: str
    system: str
    accurate: bool
    violation: bool
    covered: list[list[int]]


@dataclass
class StateRow:
    """One labelled turn at one checkpoint, as the store built through ``remember`` holds it then."""

    conversation: str
    lang: str
    measure: str  # "closed" (open_tasks) or "superseded" (corrected_fact)
    turn: int
    should: bool  # a forbidden turn: its task should be closed / its old value superseded
    state: str  # "yes" (closed / superseded), "no", or "none" (no task / memory was read from the turn)


#: the checkpoint kind each dialogue-state measure reads, and the types it looks at (None: every typed memory)
STATE_MEASURES = {"closed": ("open_tasks", ("Task", "Plan")), "superseded": ("corrected_fact", None)}
#: memories that are no reading of a turn (the verbatim utterance, a bare dialogue act)
_UNREAD = frozenset({"Episode", "DialogueAct"})


@dataclass
class Report:
    split: str
    systems: tuple[str, ...]
    conversations: int = 0
    turns: int = 0
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    states: list[StateRow] = field(default_factory=list)

    def state_metric(self, measure: str, lang: str | None = None) -> dict[str, float]:
        """Precision / recall of ``measure`` ("closed" or "superseded") over the labelled turns that yielded what
        it looks at, plus the labelled turns that yielded nothing (``unread``, forbidden / relevant)."""
        rows = [r for r in self.states if r.measure == measure and lang in (None, r.lang)]
        read = [r for r in rows if r.state != "none"]
        hit = sum(r.should and r.state == "yes" for r in read)
        said = sum(r.state == "yes" for r in read)
        due = sum(r.should for r in read)
        return {"precision": hit / said if said else 0.0, "recall": hit / due if due else 0.0,
                "forbidden": sum(r.should for r in rows), "relevant": sum(not r.should for r in rows),
                "unread_forbidden": sum(r.should and r.state == "none" for r in rows),
                "unread_relevant": sum(not r.should and r.state == "none" for r in rows)}

    def metric(self, system: str, kind: str | None = None, lang: str | None = None) -> dict[str, float]:
        rows = [r for r in self.rows if r.system == system and kind in (None, r.kind) and lang in (None, r.lang)]
        if not rows:
            return {"accuracy": 0.0, "violations": 0.0, "n": 0}
        return {"accuracy": sum(r.accurate for r in rows) / len(rows),
                "violations": sum(r.violation for r in rows) / len(rows), "n": len(rows)}

    def kinds(self) -> list[str]:
        return [k for k in KINDS if any(r.kind == k for r in self.rows)]

    def render(self) -> str:
        n = self.metric(self.systems[0])["n"] if self.systems else 0
        lines = [f"Continuity benchmark, split={self.split}: {self.conversations} conversations, {self.turns} turns, "
                 f"{n} checkpoints ({self.seconds:.0f} s); accuracy@{K}: a relevant turn covered and no forbidden "
                 "one", ""]
        head = f"{'system':<28}{'acc@5':>8}{'viol@5':>8}" + "".join(f"{k:>16}" for k in self.kinds())
        lines += [head, "-" * len(head)]
        for system in self.systems:
            m = self.metric(system)
            lines.append(f"{SYSTEM_TITLES[system]:<28}{m['accuracy']:>8.3f}{m['violations']:>8.3f}" + "".join(
                f"{self.metric(system, k)['accuracy']:>16.3f}" for k in self.kinds()))
        lines += ["", "checkpoints per kind: " + ", ".join(f"{k} {self.metric(self.systems[0], k)['n']}"
                                                          for k in self.kinds())] if self.systems else []
        if self.states:
            lines += ["", "Dialogue state in the remembered store (write side, apart from ranking): a forbidden turn's "
                      "task closed (open_tasks) / its old value superseded (corrected_fact); P/R over the labelled "
                      "turns that yielded a task / memory", "",
                      f"{'measure':<14}{'P':>7}{'R':>7}{'forbidden':>11}{'relevant':>10}{'unread F/R':>13}"]
            for measure in STATE_MEASURES:
                m = self.state_metric(measure)
                lines.append(f"{measure:<14}{m['precision']:>7.3f}{m['recall']:>7.3f}{m['forbidden']:>11}"
                             f"{m['relevant']:>10}{m['unread_forbidden']:>7}/{m['unread_relevant']}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "split": self.split, "conversations": self.conversations, "turns": self.turns, "k": K,
            "seconds": round(self.seconds, 1),
            "systems": {s: {"overall": self.metric(s), "by_kind": {k: self.metric(s, k) for k in self.kinds()},
                            "by_language": {lang: self.metric(s, lang=lang) for lang in ("en", "zh")}}
                        for s in self.systems},
            "state": {m: {"overall": self.state_metric(m),
                          "by_language": {lang: self.state_metric(m, lang) for lang in ("en", "zh")},
                          "misses": [{"conversation": r.conversation, "turn": r.turn, "forbidden": r.should,
                                      "state": r.state} for r in self.states
                                     if r.measure == m and r.state != "none" and (r.state == "yes") != r.should]}
                      for m in STATE_MEASURES} if self.states else {},
            "misses": [{"conversation": r.conversation, "kind": r.kind, "question": r.question,
                        "violation": r.violation, "covered": r.covered}
                       for r in self.rows if r.system == "remember_recall" and not r.accurate],
        }


def run(split: str = "dev", *, systems: Sequence[str] = SYSTEMS, embedder: Embedder | None = None,
        limit_conversations: int | None = None, max_turns: int | None = None, directory: Path | None = None,
        progress: Callable[[int, int], None] | None = None) -> Report:
    """Read every conversation of ``split`` turn by turn into each system's store and judge every checkpoint (the
    first ``limit_conversations``, each cut to its first ``max_turns`` turns and their checkpoints, for a quick
    slice)."""
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        raise ValidationError("unknown or no system", field="systems", value=list(systems), allowed=list(SYSTEMS))
    if limit_conversations is not None and (isinstance(limit_conversations, bool)
                                            or not isinstance(limit_conversations, int) or limit_conversations < 1):
        raise ValidationError("limit_conversations must be a positive integer", field="limit_conversations",
                              value=limit_conversations, allowed="int >= 1 or None")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
        raise ValidationError("max_turns must be a positive integer", field="max_turns", value=max_turns,
                              allowed="int >= 1 or None")
    conversations = [cut(c, max_turns) for c in load(split, directory=directory)[:limit_conversations]]
    embedder = cached(embedder or default_embedder())
    embedder.prefetch([t.text for c in conversations for t in c.turns],
                      [p.q for c in conversations for p in c.checkpoints])
    report = Report(split, tuple(systems), len(conversations), sum(len(c.turns) for c in conversations))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mnemir-continuity-") as tmp:
        for i, conversation in enumerate(conversations, start=1):
            rows, states = run_conversation_states(conversation, Path(tmp) / conversation.id, embedder, systems)
            report.rows += rows
            report.states += states
            if progress:
                progress(i, len(conversations))
    report.seconds = time.perf_counter() - started
    return report


def cut(conversation: Conversation, max_turns: int | None) -> Conversation:
    """The conversation up to turn ``max_turns`` and the checkpoints asked by then."""
    if max_turns is None:
        return conversation
    return Conversation(conversation.id, conversation.lang, conversation.domain, conversation.turns[:max_turns],
                        tuple(c for c in conversation.checkpoints if c.after <= max_turns), conversation.source)


class _Stores:
    """The two stores a conversation is read into, and which turns each memory covers."""

    def __init__(self, directory: Path, embedder: Embedder, user: str, systems: Iterable[str]) -> None:
        import mnemir

        wanted = set(systems)
        self.user = user
        self.turns = mnemir.open(directory / "turns", embedder=embedder) if wanted - REMEMBERED else None
        self.remembered = mnemir.open(directory / "remembered", embedder=embedder) \
            if wanted & REMEMBERED else None
        self.covers: dict[str, set[int]] = {}

    def read(self, turn: Turn) -> None:
        session = f"s{turn.session}"
        if self.turns is not None:
            self.turns.add(turn.text, "Fact", user=self.user, session=session, speaker=turn.speaker, turn=turn.n,
                           now=turn.at)
        if self.remembered is not None:
            done = self.remembered.remember(turn.text, speaker=turn.speaker, user=self.user, session=session,
                                            turn=turn.n, now=turn.at)
            for record in [*done.created, *done.updated]:
                self.covers.setdefault(record.id, set()).add(turn.n)

    def covered(self, mem: Any, ids: Sequence[str]) -> list[frozenset[int]]:
        """The turns each of ``ids`` stands for: its source and merged sources, the turns that created or updated
        it, and those of what it was derived from."""
        records = {r.id: r for r in mem.store.fetch(list(ids))}
        out = []
        for mid in ids:
            turns = set(self.covers.get(mid, ()))
            record = records.get(mid)
            if record is not None:
                turns |= {s.turn for s in (record.metadata.source, *record.metadata.merged_sources)
                          if s.turn is not None}
                for rel in record.relationships:
                    if rel.relation == "derived_from":
                        turns |= self.covers.get(rel.target, set())
                        turns |= {r.metadata.source.turn for r in mem.store.fetch([rel.target])
                                  if r.metadata.source.turn is not None}
            out.append(frozenset(turns))
        return out

    def close(self) -> None:
        for mem in (self.turns, self.remembered):
            if mem is not None:
                mem.close()


#: the stores a conversation is read into, for the trainers that replay conversations as this benchmark does
Stores = _Stores


def _rank(stores: _Stores, system: str, question: str, now: datetime) -> tuple[Any, list[str]]:
    if system == "remember_recall":
        return stores.remembered, [h.id for h in stores.remembered.recall(question, user=stores.user, k=K,  # type: ignore[union-attr]
                                                                          now=now).hits]
    if system == "remember_search":
        assert stores.remembered is not None
        return stores.remembered, [h.id for h in stores.remembered.search(question, user=stores.user, k=K, now=now)]
    mem = stores.turns
    assert mem is not None
    if system == "turns_vector":
        vector = mem.embedder.embed_query(question)
        return mem, [mid for mid, _ in mem.store.vector_search(Selection(user_id=ANY, statuses=NOT_DELETED), vector, K)]
    if system == "turns_bm25":
        return mem, [mid for mid, _ in mem.store.text_search(Selection(user_id=ANY, statuses=NOT_DELETED), question, K)]
    return mem, [h.id for h in mem.search(question, user=stores.user, k=K, now=now)]


def run_conversation(conversation: Conversation, directory: Path, embedder: Embedder,
                     systems: Sequence[str] = SYSTEMS) -> list[Row]:
    """Read ``conversation`` turn by turn; after each turn, ask the checkpoints that follow it."""
    return run_conversation_states(conversation, directory, embedder, systems)[0]


def run_conversation_states(conversation: Conversation, directory: Path, embedder: Embedder,
                            systems: Sequence[str] = SYSTEMS) -> tuple[list[Row], list[StateRow]]:
    """:func:`run_conversation`, plus the dialogue state of every labelled turn at each open_tasks and
    corrected_fact checkpoint (when a system reads the remembered store)."""
    stores = _Stores(directory, embedder, f"continuity-{conversation.id}", systems)
    rows: list[Row] = []
    states: list[StateRow] = []
    try:
        for checkpoint, now in replay(conversation, stores):
            if stores.remembered is not None:
                states += _states(conversation, checkpoint, stores.remembered, stores.user, now)
            for system in systems:
                mem, ids = _rank(stores, system, checkpoint.q, now)
                covered = stores.covered(mem, ids) if system in REMEMBERED else _turns_of(mem, ids)
                shown = frozenset().union(*covered)
                violation = bool(shown & checkpoint.forbidden)
                rows.append(Row(conversation.id, conversation.lang, checkpoint.kind, checkpoint.q, system,
                                bool(shown & checkpoint.relevant) and not violation, violation,
                                [sorted(c) for c in covered]))
    finally:
        stores.close()
    return rows, states


def replay(conversation: Conversation, stores: _Stores) -> Iterator[tuple[Checkpoint, datetime]]:
    """Read ``conversation`` into ``stores`` turn by turn, yielding each checkpoint (with its time) right after the
    turn it follows."""
    asked = _by_turn(conversation.checkpoints)
    for turn in conversation.turns:
        stores.read(turn)
        for checkpoint in asked.get(turn.n, ()):
            yield checkpoint, conversation.time_after(turn.n)


def _states(conversation: Conversation, checkpoint: Checkpoint, mem: Any, user: str,
            now: datetime) -> list[StateRow]:
    """The labelled turns of ``checkpoint`` as the store holds them at ``now`` (see the module doc)."""
    measure = next((m for m, (kind, _) in STATE_MEASURES.items() if kind == checkpoint.kind), None)
    if measure is None:
        return []
    types = STATE_MEASURES[measure][1]
    by_turn: dict[int, list[Any]] = {}
    for record in mem.store.select(Selection(user_id=user, statuses=ALL_STATUSES)):
        if record.type in _UNREAD or (types is not None and record.type not in types):
            continue
        for source in (record.metadata.source, *record.metadata.merged_sources):
            if source.turn is not None:
                by_turn.setdefault(source.turn, []).append(record)
    out = []
    for n in sorted(checkpoint.forbidden | checkpoint.relevant):
        records = by_turn.get(n, [])
        if not records:
            state = "none"
        elif measure == "closed":
            state = "no" if any(_live(r, now) and r.properties.get("status", "pending") in OPEN_STATUSES
                                for r in records) else "yes"
        else:
            state = "yes" if any(not _live(r, now) for r in records) else "no"
        out.append(StateRow(conversation.id, conversation.lang, measure, n, n in checkpoint.forbidden, state))
    return out


def _live(record: Any, now: datetime) -> bool:
    """Active (or disputed) and valid at ``now``."""
    return str(record.status) in ("active", "disputed") and record.is_valid_at(now)


def _turns_of(mem: Any, ids: Sequence[str]) -> list[frozenset[int]]:
    """A verbatim turn stands for itself (its ``metadata.source`` turn, and any repeat merged into it)."""
    records = {r.id: r for r in mem.store.fetch(list(ids))}
    out = []
    for mid in ids:
        record = records.get(mid)
        sources = (record.metadata.source, *record.metadata.merged_sources) if record is not None else ()
        out.append(frozenset(s.turn for s in sources if s.turn is not None))
    return out


def _by_turn(checkpoints: Iterable[Checkpoint]) -> dict[int, list[Checkpoint]]:
    out: dict[int, list[Checkpoint]] = {}
    for c in checkpoints:
        out.setdefault(c.after, []).append(c)
    return out


def iter_texts(split: str) -> Iterator[str]:
    """Every turn and question of ``split`` (for the separation checks)."""
    for conversation in load(split):
        yield from (t.text for t in conversation.turns)
        yield from (c.q for c in conversation.checkpoints)


def main(argv: list[str] | None = None) -> int:
    return report_main(run, SPLITS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
