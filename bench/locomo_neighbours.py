"""LoCoMo, measure only (never for tuning): recall as configured (``remember_recall``) and recall with
``chat_neighbour_weight`` W (``recall_nb``) on the same stores, @5 and @10, beside BM25 and hybrid over the raw turns;
per category, with won / lost of W against the other; a partial summary after each sample (OUT.partial).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/locomo_neighbours.py W OUT.json

Hybrid over the raw turns is asked for its top 10 here (50 in ``mnemir eval locomo``), which reads a shallower
candidate pool and places it lower than that run does."""
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from mnemir.eval import locomo as L
from mnemir.retrieve.recall import RecallConfig

W = float(sys.argv[1])
OUT = sys.argv[2]

def rank_nb(built, sample, question, k):
    before = built.mem.recall_config
    built.mem.recall_config = RecallConfig(chat_neighbour_weight=W)
    try:
        return L.rank_recall(built, sample, question, k)
    finally:
        built.mem.recall_config = before

L.RANKERS["recall_nb"] = rank_nb
L.STORE_OF["recall_nb"] = "remembered"
L.ASKED_PER_K = L.ASKED_PER_K | {"recall_nb"}
_one = L.run_sample
done = []
def run_sample(sample, directory, embedder, report):
    _one(sample, directory, embedder, report)
    done.append(sample.id)
    summarise(report.rows, OUT + ".partial")
L.run_sample = run_sample

def summarise(rows, out):
    agg = defaultdict(lambda: [0, 0])
    for r in rows:
        for cat in (r.category, "all"):
            a = agg[(r.system, r.k, cat)]
            a[0] += r.hit
            a[1] += 1
    res = {f"{s}@{k}/{c}": round(h / n, 4) for (s, k, c), (h, n) in sorted(agg.items(), key=str)}
    res["counts"] = {str(c): agg[("remember_recall", 5, c)][1] for c in sorted({c for _, _, c in agg}, key=str)}
    by = defaultdict(dict)
    for r in rows:
        by[(r.sample, r.question, r.k)][r.system] = r.hit
    for k in (5, 10):
        won = sum(1 for (s, q, kk), d in by.items() if kk == k and d.get("recall_nb") and not d.get("remember_recall"))
        lost = sum(1 for (s, q, kk), d in by.items() if kk == k and d.get("remember_recall") and not d.get("recall_nb"))
        res[f"nb_vs_base@{k}"] = [won, lost]
    res["samples"] = list(done)
    Path(out).write_text(json.dumps(res, indent=1), encoding="utf-8")
    return res

systems = ("turns_bm25", "turns_hybrid", "remember_recall", "recall_nb")
t = time.time()
rep = L.run("dev", systems=systems, k_values=(5, 10), progress=lambda i, n: print(f"{i}/{n} {time.time()-t:.0f}s", flush=True))
res = summarise(rep.rows, OUT)
print(json.dumps(res, indent=1))
