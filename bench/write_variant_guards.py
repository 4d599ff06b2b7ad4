"""Guards for write-side switches (module constants of ``memory.understanding``): collapse dev end to end (every
``E2E_EVERY``-th scenario, default 6) and dialogue QA dev labelled, one build per variant, per-query won / lost
against base (docs/decisions/0097).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/write_variant_guards.py 'NAME={"FLAG": true}' ..."""
import os
import sys
import tempfile
import time
from pathlib import Path

from _switches import each_variant, parse_variants

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval import dialogue_qa as D
from mnemir.eval._embedcache import cached

variants = parse_variants(sys.argv[1:])
emb = cached(default_embedder())
scen = list(K.load("dev"))
every = int(os.environ.get("E2E_EVERY", "6"))
e2e = scen[::every]
emb.prefetch([str(m["text"]) for m in K.noise()] + [str(m["text"]) for s in e2e for m in s.memories],
             [q.text for s in e2e for q in s.queries])
extra = K.noise()
res = {}
t0 = time.time()
for name in each_variant(variants):
    rep = K.Report("dev", (3, 5), len(e2e), sum(len(s.queries) for s in e2e), systems=("remember_recall",))
    with tempfile.TemporaryDirectory() as tmp:
        for s in e2e:
            ids = {m["key"]: K._memory_id(s.id, m["key"]) for m in s.memories}
            mem, covers = K.build_remembered(s, Path(tmp) / s.id, emb, extra)
            try:
                K._run_scenario(mem, s, ids, covers, ["remember_recall"], (3, 5), rep)
            finally:
                mem.close()
    col = {(r.scenario, r.query): (r.outcome.isolated, r.outcome.collapsed) for r in rep.rows if r.k == 3}
    print(name, "collapse e2e @3", {k: round(v, 4) for k, v in rep.metric("remember_recall", 3).items()},
          f"{time.time()-t0:.0f}s", flush=True)
    dq = D.run("dev", modes=("labelled",), systems=("remember_recall",), embedder=emb)
    m = dq.modes["labelled"]
    qa = {(r.sample, r.question, r.k): r.hit for r in m.rows}
    for k in (5, 10):
        hits = [v for (s, q, kk), v in qa.items() if kk == k]
        print(name, f"dialogue QA labelled recall@{k}", round(sum(hits) / len(hits), 4), len(hits), flush=True)
    print(f"{time.time()-t0:.0f}s", flush=True)
    res[name] = (col, qa)
base_col, base_qa = res["base"]
for name, (col, qa) in res.items():
    if name == "base":
        continue
    won = sum(1 for key, v in col.items() if v[0] and not base_col[key][0])
    lost = sum(1 for key, v in col.items() if base_col[key][0] and not v[0])
    print(name, "collapse e2e isolated@3 won", won, "lost", lost)
    for k in (5, 10):
        w = sum(1 for key, v in qa.items() if key[2] == k and v and not base_qa[key])
        lo = sum(1 for key, v in qa.items() if key[2] == k and base_qa[key] and not v)
        print(name, f"dialogue QA @{k} won", w, "lost", lo)
