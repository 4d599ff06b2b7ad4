"""Where the end-to-end collapse benchmark loses: what ``remember`` made of each memory a failed query needed.

    python -m mnemir.eval.collapse_diagnosis [--split train|dev] [--limit N] [--json OUT] [--show N]

Each scenario of the split is built twice, as :mod:`mnemir.eval.collapse` builds it: typed by hand (``recall``)
and through ``remember`` (``remember_recall``, the memory texts said as utterances, oldest first). For each query
that ``remember_recall`` fails at k=3 (no relevant memory shown, or a forbidden one shown) it names the first
cause that applies, from what ``remember`` reported for each memory's utterance and what recall showed:

* ``typed_fails_too``: typed recall fails the same query (a ranking matter, not a write-side one);
* forbidden memories shown (per forbidden key, the first that applies):
  - ``not_superseded``: the scenario says a later memory replaces it (``supersedes``; a newer preference or fact),
    and no record read from it was superseded;
  - ``status_unsaid``: a task or step the scenario gives a closed status (completed / failed / cancelled) whose
    text says nothing of it (worded as a request), and no later utterance closed it;
  - ``status_not_applied``: the same, but the scenario has a later memory that reports on it (``task:`` link or
    text) and the record stayed open;
  - ``wrong_type_forbidden``: a typed record of it has another type than the scenario's;
  - ``episode_of_replaced``: it is shown through its verbatim utterance (Episode) while its typed reading is
    superseded or closed;
  - ``episode_forbidden``: it is shown through its Episode (the typed reading is live, of the right type);
  - ``ranking_forbidden``: its typed record, of the right type and status, is shown;
* relevant memories not shown (when no forbidden one is):
  - ``dropped``: nothing live was read from the relevant text (no typed record, or all superseded / merged away);
  - ``wrong_type_relevant``: its typed record has another type than the scenario's;
  - ``ranking_relevant``: of the right type and live, ranked below the top 3.

The report also counts, over every scenario memory, what ``remember`` stored against the scenario's type
(a confusion table) and whether a ``supersedes`` in the scenario became a supersession.

Train and dev only: the test files are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mnemir.embed import Embedder, default_embedder
from mnemir.errors import ValidationError
from mnemir.eval import collapse
from mnemir.eval._embedcache import cached

SPLITS = ("train", "dev")
K = 3
CLOSED = frozenset({"completed", "failed", "cancelled"})
EPISODE = "Episode"
#: the coarser kinds of a failure: a wrong type (no reading of the memory has its hand type), an extra reading (one
#: reading has the hand type, another is shown in the trap's role), a wrong status or lifecycle (a closed task left
#: open, a replaced memory left live), a missing memory, or ranking with the right types
KINDS = ("wrong_type", "extra_reading", "status", "missing", "ranking")
CAUSES = ("typed_fails_too", "not_superseded", "status_unsaid", "status_not_applied", "wrong_type_forbidden",
          "episode_of_replaced", "episode_forbidden", "ranking_forbidden", "dropped", "wrong_type_relevant",
          "ranking_relevant")


@dataclass
class Stored:
    """What ``remember`` made of one scenario memory's utterance, and how it stands after the whole scenario."""

    key: str
    truth_type: str
    truth_status: str | None
    text: str
    #: (id, type, status of the record, task status, properties) of each typed record read from it
    typed: list[tuple[str, str, str, str | None, dict[str, Any]]] = field(default_factory=list)
    episode: str | None = None
    #: ids it changed when said (superseded, status moved)
    changed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: keys the scenario says this memory replaces
    replaces: list[str] = field(default_factory=list)


@dataclass
class Failure:
    scenario: str
    source: str
    symptom: str
    lang: str
    query: str
    cause: str
    key: str
    detail: str
    shown: list[str]
    #: the brief's coarser kind of the failure (:func:`kind_of`)
    kind: str = ""
    #: for each relevant and forbidden memory of the query: its role, the hand label and what ``remember`` stored
    memories: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Diagnosis:
    split: str
    queries: int = 0
    isolated: int = 0
    typed_isolated: int = 0
    collapsed: int = 0
    typed_collapsed: int = 0
    failures: list[Failure] = field(default_factory=list)
    #: (scenario type, stored type) over every scenario memory's primary typed record ("-" = none)
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: scenario supersessions: applied / not
    supersessions: Counter[str] = field(default_factory=Counter)
    by_symptom: dict[str, list[int]] = field(default_factory=dict)

    def causes(self) -> Counter[str]:
        return Counter(f.cause for f in self.failures)

    def kinds(self) -> Counter[str]:
        return Counter(f.kind for f in self.failures)

    def render(self, show: int = 0) -> str:
        n = max(self.queries, 1)
        lines = [f"collapse, split={self.split}: {self.queries} queries; end to end isolation@{K} "
                 f"{self.isolated / n:.3f} collapse@{K} {self.collapsed / n:.3f}; typed isolation@{K} "
                 f"{self.typed_isolated / n:.3f} collapse@{K} {self.typed_collapsed / n:.3f}",
                 "", "failed queries by first cause:"]
        for cause, n in self.causes().most_common():
            lines.append(f"  {cause:<24}{n:>5}")
        lines += ["", "failed queries by kind:"]
        for kind, n in self.kinds().most_common():
            lines.append(f"  {kind:<24}{n:>5}")
        lines += ["", "by symptom: end to end iso / col, typed iso / col, queries:"]
        for symptom, (iso, typed, count, col, typed_col) in sorted(self.by_symptom.items()):
            lines.append(f"  {symptom:<40}{iso / count:>7.3f}{col / count:>7.3f}{typed / count:>7.3f}"
                         f"{typed_col / count:>7.3f}{count:>6}")
        lines += ["", "scenario type -> stored type (primary typed record; '-' = none):"]
        for (truth, got), n in self.confusion.most_common():
            if truth != got:
                lines.append(f"  {truth:<16} -> {got:<16}{n:>5}")
        lines += ["", f"scenario supersessions: {dict(self.supersessions)}"]
        if show:
            lines += ["", f"first {show} failures:"]
            for f in self.failures[:show]:
                lines.append(f"  [{f.cause}] {f.scenario} ({f.symptom}) q={f.query!r} key={f.key}: {f.detail}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.split, "queries": self.queries, "isolated": self.isolated,
                "typed_isolated": self.typed_isolated, "collapsed": self.collapsed,
                "typed_collapsed": self.typed_collapsed, "causes": dict(self.causes()), "kinds": dict(self.kinds()),
                "by_symptom": self.by_symptom,
                "confusion": [[t, g, n] for (t, g), n in self.confusion.most_common()],
                "supersessions": dict(self.supersessions), "failures": [asdict(f) for f in self.failures]}


def _replaces(memory: Mapping[str, Any]) -> list[str]:
    keys = [str(k) for k in memory.get("supersedes") or ()]
    keys += [str(target) for relation, target in memory.get("rels") or () if relation == "supersedes"]
    return keys


def _truth_status(memory: Mapping[str, Any]) -> str | None:
    return memory.get("status") or (memory.get("props") or {}).get("status")


def build(scenario: collapse.Scenario, path: Path, embedder: Embedder, extra: Sequence[Mapping[str, Any]]
          ) -> tuple[Any, dict[str, frozenset[str]], dict[str, Stored]]:
    """The end-to-end store (as ``collapse.build_remembered``), plus what each scenario memory's utterance made."""
    import mnemir

    mem = mnemir.open(path, embedder=embedder)
    items = [*({**m, "key": f"noise:{m['key']}"} for m in extra), *scenario.memories]
    items.sort(key=lambda m: -collapse.parse_age(m["age"]))
    covers: dict[str, set[str]] = {}
    stored: dict[str, Stored] = {}
    for m in items:
        done = mem.remember(m["text"], speaker=collapse._speaker(m), user=collapse.USER,
                            now=scenario.now - collapse.parse_age(m["age"]))
        for record in [*done.created, *done.updated, *done.episodes]:
            covers.setdefault(record.id, set()).add(m["key"])
        if m["key"].startswith("noise:"):
            continue
        s = Stored(m["key"], m["type"], _truth_status(m), m["text"], replaces=_replaces(m))
        s.episode = done.episodes[-1].id if done.episodes else None
        s.typed = [(r.id, r.type, "", None, {}) for r in done.created]
        s.changed = [r.id for r in done.updated]
        s.notes = list(done.notes)
        stored[m["key"]] = s
    # how each record stands after the whole scenario was said
    for s in stored.values():
        now: list[tuple[str, str, str, str | None, dict[str, Any]]] = []
        for rid, _, _, _, _ in s.typed:
            r = mem.get(rid, user=collapse.USER, include_deleted=True)
            now.append((r.id, r.type, str(r.status), r.properties.get("status"), dict(r.properties)))
        s.typed = now
    return mem, {rid: frozenset(keys) for rid, keys in covers.items()}, stored


def _live(s: Stored) -> list[tuple[str, str, str, str | None, dict[str, Any]]]:
    return [t for t in s.typed if t[2] in ("active", "disputed")]


def _closed_later(key: str, stored: Mapping[str, Stored], scenario: collapse.Scenario) -> bool:
    """A later memory of the scenario reports on this task (linked to it by ``task:``)."""
    return any(m.get("task") == key and m["key"] != key for m in scenario.memories)


def _forbidden_cause(key: str, shown_ids: Sequence[str], stored: Mapping[str, Stored], scenario: collapse.Scenario,
                     covers: Mapping[str, frozenset[str]]) -> tuple[str, str]:
    s = stored[key]
    replaced_by = [k for k, o in stored.items() if key in o.replaces]
    ids = [rid for rid in shown_ids if key in covers.get(rid, frozenset())]
    live = _live(s)
    by_episode = bool(ids) and all(rid == s.episode for rid in ids)
    typed_desc = ", ".join(f"{t}/{st}/{ts}" for _, t, st, ts, _ in s.typed) or "no typed record"
    shown_desc = ", ".join("episode" if rid == s.episode else next(
        (f"{t}/{st}/{ts}" for i, t, st, ts, _ in s.typed if i == rid), f"other record {rid}") for rid in ids)
    detail = f"truth {s.truth_type}/{s.truth_status}; stored {typed_desc}; shown as {shown_desc}; {s.text!r}"
    if replaced_by and live:
        return "not_superseded", detail + f"; replaced by {replaced_by}: " + "; ".join(
            repr(stored[k].text) for k in replaced_by)
    if s.truth_status in CLOSED and any(ts not in CLOSED for _, t, _, ts, _ in live if t in ("Task", "Plan")):
        return ("status_not_applied" if _closed_later(key, stored, scenario) else "status_unsaid"), detail
    if any(t != s.truth_type for _, t, _, _, _ in live) and not by_episode:
        return "wrong_type_forbidden", detail
    if by_episode and (not live or replaced_by or s.truth_status in CLOSED):
        return "episode_of_replaced", detail
    if by_episode:
        return "episode_forbidden", detail
    return "ranking_forbidden", detail


def _relevant_cause(key: str, stored: Mapping[str, Stored]) -> tuple[str, str]:
    s = stored[key]
    live = _live(s)
    typed_desc = ", ".join(f"{t}/{st}/{ts}" for _, t, st, ts, _ in s.typed) or "no typed record"
    detail = f"truth {s.truth_type}/{s.truth_status}; stored {typed_desc}; {s.text!r}"
    if not live:
        return "dropped", detail + ("; notes: " + " | ".join(s.notes[:3]) if s.notes else "")
    if all(t != s.truth_type for _, t, _, _, _ in live):
        return "wrong_type_relevant", detail
    return "ranking_relevant", detail


def _cause(query: collapse.Query, shown: Sequence[str], ranked: Sequence[str], stored: Mapping[str, Stored],
           scenario: collapse.Scenario, covers: Mapping[str, frozenset[str]]) -> tuple[str, str, str]:
    """The first cause that applies: what was written wrong for a forbidden memory shown, then for a relevant one
    missing, then how the right records were ranked."""
    bad = [(k, *_forbidden_cause(k, ranked, stored, scenario, covers)) for k in query.forbidden if k in shown]
    write_side = [b for b in bad if b[1] not in ("episode_forbidden", "ranking_forbidden")]
    if write_side:
        return write_side[0][1], write_side[0][0], write_side[0][2]
    missing = [(k, *_relevant_cause(k, stored)) for k in query.relevant if k not in shown]
    if not set(query.relevant) & set(shown):
        wrong = [m for m in missing if m[1] != "ranking_relevant"]
        if len(wrong) == len(missing):  # every relevant memory was written wrong
            return wrong[0][1], wrong[0][0], wrong[0][2]
    if bad:
        return bad[0][1], bad[0][0], bad[0][2]
    return missing[0][1], missing[0][0], missing[0][2]


def kind_of(cause: str, key: str, stored: Mapping[str, Stored], shown_ids: Sequence[str],
            covers: Mapping[str, frozenset[str]]) -> str:
    """The coarser kind of a failure's first cause. A forbidden memory shown through a reading of another type is an
    extra reading when another of its live readings has the hand type (one utterance stored as two memories), and a
    wrong type when none has."""
    if cause in ("typed_fails_too", "ranking_forbidden", "ranking_relevant", "episode_forbidden"):
        return "ranking"
    if cause in ("not_superseded", "status_unsaid", "status_not_applied", "episode_of_replaced"):
        return "status"
    if cause == "dropped":
        return "missing"
    if cause == "wrong_type_forbidden" and key in stored:
        s = stored[key]
        if any(t == s.truth_type for _, t, _, _, _ in _live(s)):
            return "extra_reading"
    return "wrong_type"


def readings(query: collapse.Query, scenario: collapse.Scenario, stored: Mapping[str, Stored],
             shown_ids: Sequence[str], covers: Mapping[str, frozenset[str]]) -> list[dict[str, Any]]:
    """Each relevant and forbidden memory of ``query``: the hand label (type, status, emotion, entity) beside each
    typed record ``remember`` read from its utterance (type, record status, task status, emotion, entity), and the
    readings of it that recall showed."""
    by_key = {m["key"]: m for m in scenario.memories}
    out = []
    for role, keys in (("relevant", query.relevant), ("forbidden", query.forbidden)):
        for key in keys:
            if key not in stored:
                continue
            s, props = stored[key], by_key[key].get("props") or {}
            shown = [rid for rid in shown_ids if key in covers.get(rid, frozenset())]
            out.append({"key": key, "role": role, "text": s.text, "truth_type": s.truth_type,
                        "truth_status": s.truth_status, "truth_emotion": props.get("emotion_type"),
                        "truth_entity": props.get("entity"),
                        "stored": [{"type": t, "record": st, "status": ts, "emotion": p.get("emotion_type"),
                                    "entity": p.get("entity"), "shown": rid in shown}
                                   for rid, t, st, ts, p in s.typed],
                        "episode_shown": s.episode in shown})
    return out


def run(split: str = "train", *, embedder: Embedder | None = None, limit_scenarios: int | None = None,
        scenarios: Sequence[collapse.Scenario] | None = None) -> Diagnosis:
    if split not in SPLITS:
        raise ValidationError("the diagnosis reads train and dev only", field="split", value=split,
                              allowed=list(SPLITS))
    chosen = list(collapse.load(split) if scenarios is None else scenarios)[:limit_scenarios]
    embedder = cached(embedder or default_embedder())
    extra = collapse.noise()
    embedder.prefetch([str(m["text"]) for m in extra] + [str(m["text"]) for s in chosen for m in s.memories],
                      [q.text for s in chosen for q in s.queries])
    out = Diagnosis(split)
    with tempfile.TemporaryDirectory(prefix="mnemir-collapse-diag-") as tmp:
        for scenario, typed_mem, ids in collapse.built(chosen, embedder):
            typed_cover = collapse.key_cover(ids)
            mem, covers, stored = build(scenario, Path(tmp) / scenario.id, embedder, extra)
            try:
                for m in scenario.memories:
                    s = stored[m["key"]]
                    out.confusion[(m["type"], s.typed[0][1] if s.typed else "-")] += 1
                    for old in s.replaces:
                        done = old in stored and not _live(stored[old])
                        out.supersessions["applied" if done else "not applied"] += 1
                for query in scenario.queries:
                    typed_ranked = collapse.rank_recall(typed_mem, scenario, query, ids, K)
                    typed_outcome = collapse.judge_covered([typed_cover.get(i, frozenset()) for i in typed_ranked],
                                                           query, K)
                    typed_ok = typed_outcome.isolated
                    ranked = collapse.rank_recall(mem, scenario, query, ids, K)
                    covered = [covers.get(i, frozenset()) for i in ranked]
                    outcome = collapse.judge_covered(covered, query, K)
                    out.queries += 1
                    out.isolated += outcome.isolated
                    out.typed_isolated += typed_ok
                    out.collapsed += outcome.collapsed
                    out.typed_collapsed += typed_outcome.collapsed
                    tally = out.by_symptom.setdefault(scenario.symptom, [0, 0, 0, 0, 0])
                    tally[0] += outcome.isolated
                    tally[1] += typed_ok
                    tally[2] += 1
                    tally[3] += outcome.collapsed
                    tally[4] += typed_outcome.collapsed
                    if outcome.isolated:
                        continue
                    shown = sorted(frozenset().union(*covered)) if covered else []
                    keys_shown = [k for k in shown if not k.startswith("noise:")]
                    if not typed_ok:
                        cause, key, detail = "typed_fails_too", "", ""
                    else:
                        cause, key, detail = _cause(query, shown, ranked, stored, scenario, covers)
                    out.failures.append(Failure(scenario.id, scenario.source, scenario.symptom, scenario.lang,
                                                query.text, cause, key, detail, keys_shown,
                                                kind_of(cause, key, stored, ranked, covers),
                                                readings(query, scenario, stored, ranked, covers)))
            finally:
                mem.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mnemir.eval.collapse_diagnosis", description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="train", choices=SPLITS)
    parser.add_argument("--limit", type=int, default=None, help="the first N scenarios only")
    parser.add_argument("--json", default=None, help="write every failure and count to this file")
    parser.add_argument("--show", type=int, default=0, help="print the first N failures")
    parser.add_argument("--every", type=int, default=1, help="every N-th scenario only (as E2E_EVERY)")
    args = parser.parse_args(argv)
    chosen = list(collapse.load(args.split))[::args.every][:args.limit]
    diagnosis = run(args.split, scenarios=chosen)
    print(diagnosis.render(args.show))
    if args.json:
        Path(args.json).write_text(json.dumps(diagnosis.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
