"""Continuity: what the store held for each failed checkpoint of the dialogue-state kinds (decision 0081).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/continuity_failures.py SPLIT OUT.json [KIND ...]
    PYTHONPATH=src python bench/continuity_failures.py classify OUT.json     # the failures by cause

For every checkpoint of the given kinds (default: open_tasks, task_status, next_step, decision, other_person)
that recall fails at k=5, one row: the intent, the top 5 (type, status, covered turns, flags), where a memory
covering a relevant turn first appears in a deeper recall (k=30), and every memory read from a relevant or
forbidden turn (type, status, record status, decision / settles / completes links). Never with ``test``.
"""
import json
import sys
import tempfile
from collections import Counter, defaultdict
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


CLOSED = ("pending", "in_progress", "blocked")


def classify(rows: list[dict[str, Any]]) -> None:
    """Print, per kind, the failed checkpoints by cause (the table of decision 0081)."""
    out: dict[str, Counter[str]] = defaultdict(Counter)

    def tasks(ms: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [m for m in ms if m["type"] in ("Task", "Plan")]

    def open_work(m: dict[str, Any]) -> bool:
        return m["rec"] in ("active", "disputed") and m["status"] in CLOSED

    for r in (r for r in rows if not r["acc"]):
        k = r["kind"]
        stored = {int(n): v for n, v in r["stored"].items()}
        if r["viol"]:
            causes = set()
            for h in r["top"]:
                for n in set(h["turns"]) & set(r["forb"]) if h["forb"] else ():
                    ms = stored.get(n, [])
                    if k == "open_tasks":
                        if h["type"] in ("Task", "Plan") and h["status"] in CLOSED:
                            c = "forbidden task still open"
                        elif not tasks(ms):
                            c = f"forbidden work never stored as a task ({h['type']} shown)"
                        elif any(open_work(m) for m in tasks(ms)):
                            c = f"forbidden turn's task still open; its {h['type']} shown"
                        else:
                            c = f"task closed but its {h['type']} shown"
                    elif k == "task_status":
                        c = f"old state shown: {h['type']}/{h['status']}"
                    else:
                        c = f"forbidden {h['type']} shown"
                    causes.add(c)
            for c in causes:
                out[k]["V: " + c] += 1
            out[k][f"V total (a relevant memory shown: {any(h['rel'] for h in r['top'])})"] += 1
            continue
        rel = [m for n in r["rel"] for m in stored.get(n, [])]
        if not rel:
            c = "relevant turn read into nothing"
        elif k == "decision" and not any(m.get("decision") or "settles" in m["links"] for m in rel):
            c = "no decision read from the relevant turn"
        elif k in ("open_tasks", "next_step") and not tasks(rel):
            c = "relevant work stored as no Task/Plan"
        elif k == "open_tasks" and not any(open_work(m) for m in tasks(rel)):
            c = "relevant task closed wrongly"
        else:
            d = r["first_relevant_deep"]
            c = "ranked out: " + ("not in top 30" if d is None else ("6-10" if d < 10 else "11-30"))
        out[k]["M: " + c] += 1
    for k, counts in out.items():
        print(k)
        for cause, n in sorted(counts.items(), key=lambda x: -x[1]):
            print(f"   {n:4d} {cause}")


if __name__ == "__main__":
    if sys.argv[1] == "classify":
        classify(json.loads(Path(sys.argv[2]).read_text(encoding="utf-8")))
    else:
        main()
