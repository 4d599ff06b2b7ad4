"""The end-to-end collapse failures of kind *ranking* (the right types were stored), side by side with the same query
on the hand-typed store: what each store showed (record type, episode or typed, the scenario key it stands for, score,
reasons), where the relevant and forbidden memories ranked at depth 10, the intent each recall used, and the
properties of each relevant / forbidden memory in both stores (decision 0114).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/collapse_e2e_ranking.py SPLIT OUT.json [EVERY]

Train and dev only. Writes one row per failed query (every kind; ``kind`` says which) for :mod:`collapse_e2e_causes`
to count."""
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval import collapse_diagnosis as D
from mnemir.eval._embedcache import cached

DEEP = 10
PROPS = ("status", "entity", "subject", "emotion_type", "intensity", "goal", "attribute", "preference_type",
         "trigger", "valid_from", "event_time", "source")


def _hits(mem: Any, scenario: K.Scenario, text: str, k: int, covers: dict[str, frozenset[str]],
          query: K.Query) -> tuple[list[dict[str, Any]], Any]:
    got = mem.recall(text, user=K.USER, k=k, now=scenario.now)
    out = []
    for h in got.hits:
        keys = sorted(covers.get(h.id, frozenset()))
        role = ("relevant" if set(keys) & set(query.relevant) else "forbidden" if set(keys) & set(query.forbidden)
                else "noise" if keys and all(key.startswith("noise:") for key in keys) else "other" if keys
                else "none")
        out.append({"id": h.id, "type": h.memory.type, "keys": keys, "qrole": role, "score": round(h.score, 4),
                    "role": h.role, "reasons": list(h.reasons)[:6], "flags": list(h.flags),
                    "status": str(h.memory.status), "task_status": h.memory.properties.get("status"),
                    "props": {p: h.memory.properties.get(p) for p in PROPS if h.memory.properties.get(p) is not None},
                    "created": str(h.memory.created_at) if hasattr(h.memory, "created_at") else None,
                    "speaker": getattr(h.memory, "speaker", None)})
    intent = got.intent.to_dict() if hasattr(got.intent, "to_dict") else str(got.intent)
    return out, {"intent": intent, "notes": list(got.notes)[:8], "widened": got.widened}


def main() -> None:
    split, out_path = sys.argv[1], sys.argv[2]
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if split not in ("train", "dev"):
        raise SystemExit("train and dev only")
    emb = cached(default_embedder())
    scen = list(K.load(split))[::every]
    extra = K.noise()
    emb.prefetch([str(m["text"]) for m in extra] + [str(m["text"]) for s in scen for m in s.memories],
                 [q.text for s in scen for q in s.queries])
    rows = []
    with tempfile.TemporaryDirectory(prefix="e2e-rank-") as tmp:
        for n, (scenario, typed_mem, ids) in enumerate(K.built(scen, emb), start=1):
            typed_cover = K.key_cover(ids)
            mem, covers, stored = D.build(scenario, Path(tmp) / scenario.id, emb, extra)
            by_key = {m["key"]: m for m in scenario.memories}
            try:
                for query in scenario.queries:
                    ranked = K.rank_recall(mem, scenario, query, ids, D.K)
                    cov = [covers.get(i, frozenset()) for i in ranked]
                    outcome = K.judge_covered(cov, query, D.K)
                    t_ranked = K.rank_recall(typed_mem, scenario, query, ids, D.K)
                    t_out = K.judge_covered([typed_cover.get(i, frozenset()) for i in t_ranked], query, D.K)
                    row: dict[str, Any] = {"scenario": scenario.id, "symptom": scenario.symptom,
                                           "lang": scenario.lang, "query": query.text,
                                           "relevant": list(query.relevant), "forbidden": list(query.forbidden),
                                           "iso": outcome.isolated, "col": outcome.collapsed,
                                           "typed_iso": t_out.isolated, "typed_col": t_out.collapsed}
                    if outcome.isolated:
                        rows.append(row)
                        continue
                    shown = sorted(frozenset().union(*cov)) if cov else []
                    if not t_out.isolated:
                        cause, key = "typed_fails_too", ""
                    else:
                        cause, key, _ = D._cause(query, shown, ranked, stored, scenario, covers)
                    row["cause"], row["key"] = cause, key
                    row["kind"] = D.kind_of(cause, key, stored, ranked, covers)
                    row["e2e3"], row["e2e_meta"] = _hits(mem, scenario, query.text, 3, covers, query)
                    row["typed3"], row["typed_meta"] = _hits(typed_mem, scenario, query.text, 3, typed_cover, query)
                    row["e2e10"], _ = _hits(mem, scenario, query.text, DEEP, covers, query)
                    row["typed10"], _ = _hits(typed_mem, scenario, query.text, DEEP, typed_cover, query)
                    mems = {}
                    for key2 in (*query.relevant, *query.forbidden):
                        s, m = stored[key2], by_key[key2]
                        hand = dict(m.get("props") or {})
                        if m.get("status"):
                            hand["status"] = m["status"]
                        mems[key2] = {"text": s.text, "hand_type": m["type"], "age": m["age"],
                                      "hand": {p: hand.get(p) for p in PROPS if hand.get(p) is not None},
                                      "stored": [{"type": t, "record": st, "props": {p: pr.get(p) for p in PROPS
                                                                                     if pr.get(p) is not None}}
                                                 for _, t, st, _, pr in s.typed],
                                      "n_readings": len(s.typed), "episode": s.episode}
                    row["memories"] = mems
                    rows.append(row)
            finally:
                mem.close()
            if n % 50 == 0:
                print(n, len(scen), flush=True)
    Path(out_path).write_text(json.dumps(rows, ensure_ascii=False, default=str), encoding="utf-8")
    failed = [r for r in rows if not r["iso"]]
    print(len(rows), "queries;", len(failed), "failed end to end;",
          sum(r["kind"] == "ranking" for r in failed), "of kind ranking")


if __name__ == "__main__":
    main()
