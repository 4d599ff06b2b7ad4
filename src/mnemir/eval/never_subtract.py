"""Never subtract: where does recall lose a relevant turn that plain hybrid search over the raw turns shows?

    python -m mnemir.eval.never_subtract [--split train] [--json]

Reads the continuity conversations (``benchmarks/continuity/<split>``) as :mod:`mnemir.eval.continuity` does, into
two stores: every turn verbatim (plain hybrid ``search``) and every turn through ``remember`` (``recall``). At each
checkpoint where hybrid search's top 5 covers a relevant turn and recall's top 5 covers none, it says why, from what
recall reports about itself (its top 20, reasons, flags and notes) and from plain search over the remembered store's
utterance groups (what recall fuses with):

* ``not_in_plain``: the relevant utterance is not among the remembered store's plain top 5 either (the store
  ``remember`` built differs from the raw turns: a write-side matter, or keyword statistics shifted by typed texts);
* ``excluded``: a memory of the relevant turn is left out by a named lifecycle exclusion (a note says so);
* ``ruled_out``: a confident intent ruled its role out (a note says so);
* ``replaced`` / ``faded`` / ``time_range`` / ``other_frame``: the relevant memory is in the top 20 with that flag or
  reason (judged replaced, a feeling faded, outside the asked time range, from another frame);
* ``duplicate``: recall's top 5 shows one turn twice;
* ``typed_others``: typed memories from other turns took most of the top 5 (3 or more);
* ``assistant``: the assistant's turns took most of the top 5 (3 or more);
* ``role_fit``: none of the above: the relevant memory is ranked below the top 5 by role fit and the fusion;
* ``absent``: none of the above and not in recall's top 20 at all.

A checkpoint counts under its first matching cause, in that order. ``systems`` (``RecallConfig`` variants, by name)
are asked at every checkpoint of one read, so settings can be compared on the same stores.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemir.embed import Embedder, default_embedder
from mnemir.eval import report_main
from mnemir.eval._embedcache import cached
from mnemir.eval.continuity import SPLITS, Conversation, K, _Stores, _turns_of, load, replay
from mnemir.retrieve.recall import RecallConfig, _gather, plain_utterance_order

CAUSES = ("not_in_plain", "excluded", "ruled_out", "replaced", "faded", "time_range", "other_frame", "duplicate",
          "typed_others", "assistant", "role_fit", "absent")
DEEP = 20


@dataclass
class Point:
    conversation: str
    lang: str
    kind: str
    question: str
    hybrid: bool  # hybrid over the raw turns covers a relevant turn (and no forbidden one)
    hybrid_relevant: bool  # ... covers a relevant turn
    systems: dict[str, tuple[bool, bool]]  # name -> (accurate, covers a relevant turn)
    cause: str | None = None
    detail: str = ""


@dataclass
class Report:
    split: str
    systems: tuple[str, ...]
    points: list[Point] = field(default_factory=list)

    def accuracy(self, system: str, kind: str | None = None) -> float:
        rows = [p for p in self.points if kind in (None, p.kind)]
        return sum(p.systems[system][0] for p in rows) / max(len(rows), 1)

    def hybrid_accuracy(self, kind: str | None = None) -> float:
        rows = [p for p in self.points if kind in (None, p.kind)]
        return sum(p.hybrid for p in rows) / max(len(rows), 1)

    def subtracted(self, system: str) -> list[Point]:
        """Checkpoints where hybrid shows a relevant turn and ``system`` shows none."""
        return [p for p in self.points if p.hybrid_relevant and not p.systems[system][1]]

    def added(self, system: str) -> list[Point]:
        return [p for p in self.points if not p.hybrid_relevant and p.systems[system][1]]

    def causes(self) -> Counter[str]:
        return Counter(p.cause for p in self.subtracted(self.systems[0]) if p.cause)

    def render(self) -> str:
        kinds = sorted({p.kind for p in self.points})
        lines = [f"never subtract, continuity split={self.split}: {len(self.points)} checkpoints, k={K}", "",
                 f"{'system':<24}{'acc@5':>7}{'lost':>6}{'won':>6}" + "".join(f"{k[:12]:>13}" for k in kinds)]
        lines.append(f"{'hybrid (raw turns)':<24}{self.hybrid_accuracy():>7.3f}{'':>12}"
                     + "".join(f"{self.hybrid_accuracy(k):>13.3f}" for k in kinds))
        for s in self.systems:
            lines.append(f"{s:<24}{self.accuracy(s):>7.3f}{len(self.subtracted(s)):>6}{len(self.added(s)):>6}"
                         + "".join(f"{self.accuracy(s, k):>13.3f}" for k in kinds))
        lines += ["", f"why {self.systems[0]} lost a relevant turn hybrid shows:"]
        for cause in CAUSES:
            n = self.causes().get(cause, 0)
            if n:
                lines.append(f"  {cause:<14}{n:>4}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.split, "systems": {s: {"accuracy": self.accuracy(s), "lost": len(self.subtracted(s)),
                                                     "won": len(self.added(s))} for s in self.systems},
                "hybrid": self.hybrid_accuracy(), "causes": dict(self.causes()),
                "lost": [{"conversation": p.conversation, "kind": p.kind, "cause": p.cause, "detail": p.detail}
                         for p in self.subtracted(self.systems[0])]}


def run(split: str = "train", systems: Mapping[str, RecallConfig] | None = None, *,
        embedder: Embedder | None = None, limit_conversations: int | None = None) -> Report:
    """Every checkpoint of ``split``, hybrid over the raw turns beside recall under each of ``systems`` (the first is
    diagnosed; default: the shipped ``RecallConfig``)."""
    systems = dict(systems or {"recall": RecallConfig()})
    conversations = load(split)[:limit_conversations]
    embedder = cached(embedder or default_embedder())
    embedder.prefetch([t.text for c in conversations for t in c.turns],
                      [p.q for c in conversations for p in c.checkpoints])
    report = Report(split, tuple(systems))
    with tempfile.TemporaryDirectory(prefix="mnemir-never-subtract-") as tmp:
        for conversation in conversations:
            report.points += _conversation(conversation, Path(tmp) / conversation.id, embedder, systems)
    return report


def _conversation(conversation: Conversation, directory: Path, embedder: Embedder,
                  systems: Mapping[str, RecallConfig]) -> list[Point]:
    stores = _Stores(directory, embedder, f"continuity-{conversation.id}", ("turns_hybrid", "remember_recall"))
    speaker = {t.n: t.speaker for t in conversation.turns}
    points = []
    try:
        for cp, now in replay(conversation, stores):
            turns_mem, mem = stores.turns, stores.remembered
            assert turns_mem is not None and mem is not None
            hits = turns_mem.search(cp.q, user=stores.user, k=K, now=now)
            shown = frozenset().union(*_turns_of(turns_mem, [h.id for h in hits]))
            point = Point(conversation.id, conversation.lang, cp.kind, cp.q,
                          bool(shown & cp.relevant) and not shown & cp.forbidden, bool(shown & cp.relevant), {})
            first = None
            for name, config in systems.items():
                mem.recall_config = config
                answer = mem.recall(cp.q, user=stores.user, k=K, now=now)
                covered = frozenset().union(*stores.covered(mem, [h.id for h in answer.hits]))
                point.systems[name] = (bool(covered & cp.relevant) and not covered & cp.forbidden,
                                       bool(covered & cp.relevant))
                if first is None:
                    first = answer
            mem.recall_config = next(iter(systems.values()))
            if point.hybrid_relevant and not next(iter(point.systems.values()))[1]:
                point.cause, point.detail = _diagnose(stores, mem, cp.q, now, cp.relevant & shown, first, speaker)
            points.append(point)
    finally:
        stores.close()
    return points


def _diagnose(stores: _Stores, mem: Any, q: str, now: Any, wanted: frozenset[int], answer: Any,
              speaker: Mapping[int, str]) -> tuple[str, str]:
    top = answer.hits
    top_cover = stores.covered(mem, [h.id for h in top])
    deep = mem.recall(q, user=stores.user, k=DEEP, now=now)
    deep_cover = stores.covered(mem, [h.id for h in deep.hits])
    # plain search over the remembered store's utterance groups, as recall fuses it
    intent = mem.intent(q, now=now)
    scope = mem._selection(user=stores.user).with_(types=None, where=None)
    qvec = mem.embedder.embed_query(q)
    plain_top = plain_utterance_order(mem.store, scope, intent, qvec, now, K, mem.recall_config)[:K]
    pool = _gather(mem.store, scope, intent, (), None, qvec, now, max(mem.recall_config.candidates, 4 * K),
                   mem.recall_config)
    plain_cover = frozenset().union(*stores.covered(mem, plain_top)) if plain_top else frozenset()
    types = ",".join(h.memory.type for h in top)
    detail = f"intent {intent.kind} {intent.confidence:.2f}; top5 {types}"
    notes = " | ".join(answer.notes)
    if not plain_cover & wanted:
        return "not_in_plain", detail
    if "left out" in notes and any(mid in notes for mid in _ids_covering(stores, mem, pool, wanted)):
        return "excluded", detail + "; " + notes
    if "not brought back" in notes and any(mid in notes for mid in _ids_covering(stores, mem, pool, wanted)):
        return "ruled_out", detail + "; " + notes
    at = next((i for i, c in enumerate(deep_cover) if c & wanted), None)
    if at is not None:
        hit = deep.hits[at]
        detail += f"; relevant at {at + 1} as {hit.memory.type} {hit.flags}"
        reasons = " ".join(hit.reasons)
        if "outdated" in hit.flags or "replaced" in reasons:
            return "replaced", detail
        if "faded" in hit.flags:
            return "faded", detail
        if "outside the asked time range" in reasons:
            return "time_range", detail
        if "other_frame" in hit.flags:
            return "other_frame", detail
    seen: Counter[int] = Counter(t for c in top_cover for t in c)
    if any(n > 1 for n in seen.values()):
        return "duplicate", detail
    typed = sum(1 for h, c in zip(top, top_cover, strict=True) if h.memory.type != "Episode" and not c & wanted)
    if typed >= 3:
        return "typed_others", detail
    assistant = sum(1 for c in top_cover if c and all(speaker.get(t) == "assistant" for t in c))
    if assistant >= 3:
        return "assistant", detail
    return ("role_fit" if at is not None else "absent"), detail


def _ids_covering(stores: _Stores, mem: Any, pool: Mapping[str, Any], wanted: frozenset[int]) -> list[str]:
    ids = list(pool)
    return [mid for mid, c in zip(ids, stores.covered(mem, ids), strict=True) if c & wanted]


def _run(split: str) -> Report:
    return run(split)


def main(argv: list[str] | None = None) -> int:
    return report_main(_run, [s for s in SPLITS if s != "test"], argv)


if __name__ == "__main__":
    raise SystemExit(main())
