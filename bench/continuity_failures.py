"""Continuity: what the store held for each failed checkpoint of the dialogue-state kinds (decision 0081).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/continuity_failures.py SPLIT OUT.json [KIND ...]

For every checkpoint of the given kinds (default: open_tasks, task_status, next_step, decision, other_person)
that recall fails at k=5, one row: the intent, the top 5 (type, status, covered turns, flags), where a memory
covering a relevant turn first appears in a deeper recall (k=30), and every memory read from a relevant or
forbidden turn (type, status, record status, decision / settles / completes links). Never with ``test``.
"""
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import continuity as C
from mnemir.eval._embedcache import cached
from mnemir.memory.core import ALL_STATUSES
from mnemir.retrieve.query_kinds import read_query
from mnemir.store.base import Selection

KINDS = ("open_tasks", "task_status", "next_step", "decision", "other_person")
DEEP = 30


def _memory(r: Any, covers: set[int]) -> dict[str, Any]:
    return {"id": r.id[:8], "type": r.type, "status": r.properties.get("status"), "rec": str(r.status),
            "speaker": r.metadata.source.speaker if r.metadata.source else None,
            "decision": r.properties.get("attribute") == "decision", "turns": sorted(covers), "text": r.text[:100],
            "links": sorted({rel.relation for rel in r.relationships}),
            "valid_to": str(r.valid_to) if getattr(r, "valid_to", None) else None}


def main() -> None:
    split, out = sys.argv[1], sys.argv[2]
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    kinds = tuple(sys.argv[3:]) or KINDS
    convs = C.load(split)
    emb = cached(default_embedder())
    emb.prefetch([t.text for c in convs for t in c.turns], [p.q for c in convs for p in c.checkpoints])
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="cont-fail-") as tmp:
        for conv in convs:
            stores = C._Stores(Path(tmp) / conv.id, emb, f"continuity-{conv.id}", ("remember_recall",))
            try:
                for cp, now in C.replay(conv, stores):
                    if cp.kind not in kinds:
                        continue
                    mem = stores.remembered
                    assert mem is not None
                    res = mem.recall(cp.q, user=stores.user, k=C.K, now=now)
                    ids = [h.id for h in res.hits]
                    cov = stores.covered(mem, ids)
                    shown = frozenset().union(*cov)
                    viol = bool(shown & cp.forbidden)
                    acc = bool(shown & cp.relevant) and not viol
                    if acc:
                        rows.append({"conv": conv.id, "kind": cp.kind, "acc": True})
                        continue
                    deep = mem.recall(cp.q, user=stores.user, k=DEEP, now=now)
                    dcov = stores.covered(mem, [h.id for h in deep.hits])
                    first_rel = next((i for i, c in enumerate(dcov) if c & cp.relevant), None)
                    by_turn: dict[int, list[dict[str, Any]]] = {}
                    for r in mem.store.select(Selection(user_id=stores.user, statuses=ALL_STATUSES)):
                        covers = set(stores.covers.get(r.id, ())) | {
                            s.turn for s in (r.metadata.source, *r.metadata.merged_sources) if s.turn is not None}
                        for n in covers & (cp.relevant | cp.forbidden):
                            by_turn.setdefault(n, []).append(_memory(r, covers))
                    reading = read_query(emb.embed_query(cp.q), emb.model_id)
                    rows.append({
                        "conv": conv.id, "lang": conv.lang, "kind": cp.kind, "q": cp.q, "after": cp.after,
                        "acc": False, "viol": viol, "rel": sorted(cp.relevant), "forb": sorted(cp.forbidden),
                        "intent": res.intent.kind, "conf": round(float(res.intent.confidence), 2),
                        "reading": {k: round(v, 2) for k, v in reading.probabilities.items() if v >= 0.1},
                        "top": [{"type": h.memory.type, "status": h.memory.properties.get("status"),
                                 "turns": sorted(c), "flags": h.flags, "role": h.role, "text": h.memory.text[:90],
                                 "forb": bool(c & cp.forbidden), "rel": bool(c & cp.relevant)}
                                for h, c in zip(res.hits, cov, strict=True)],
                        "first_relevant_deep": first_rel,
                        "turn_text": {n: t.text[:160] for t in conv.turns for n in [t.n]
                                      if n in cp.relevant | cp.forbidden},
                        "speaker": {t.n: t.speaker for t in conv.turns if t.n in cp.relevant | cp.forbidden},
                        "stored": {n: by_turn.get(n, []) for n in sorted(cp.relevant | cp.forbidden)},
                        "notes": res.notes[:5]})
            finally:
                stores.close()
    Path(out).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    for kind in kinds:
        mine = [r for r in rows if r["kind"] == kind]
        if mine:
            bad = [r for r in mine if not r["acc"]]
            print(f"{kind:<14}{len(mine):>5} failed {len(bad):>4} (violations {sum(r['viol'] for r in bad)})")


if __name__ == "__main__":
    main()
