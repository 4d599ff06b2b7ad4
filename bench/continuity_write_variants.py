"""Continuity under write-side switches (module constants of ``memory.understanding``): one replay per variant
(the switches change the stores), per-checkpoint outcomes, won / lost against base (docs/decisions/0097).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/continuity_write_variants.py SPLIT OUT.json \
        'NAME={"ANSWERED_STATUS_QUESTIONS": true}' ...

``CONVS=FILE.json`` (a list of conversation ids, or an object keyed by them) replays only those conversations: the
ones a switch can act in (the others read alike in every variant), for a faster comparison (docs/decisions/0104).

Never with ``test``."""
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _switches import each_variant, parse_variants

from mnemir.embed import default_embedder
from mnemir.eval import continuity as C
from mnemir.eval._embedcache import cached

split, out = sys.argv[1], sys.argv[2]
assert split != "test"
variants = parse_variants(sys.argv[3:])
convs = C.load(split)
if os.environ.get("CONVS"):
    keep = set(json.loads(Path(os.environ["CONVS"]).read_text()))
    convs = [c for c in convs if c.id in keep]
    print(f"{len(convs)} conversations of {split} (CONVS)", flush=True)
emb = cached(default_embedder())
emb.prefetch([t.text for c in convs for t in c.turns], [p.q for c in convs for p in c.checkpoints])
res = {}
t0 = time.time()
for name in each_variant(variants):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for conv in convs:
            st = C._Stores(Path(tmp) / conv.id, emb, f"continuity-{conv.id}", ("remember_recall",))
            try:
                for i, (cp, now) in enumerate(C.replay(conv, st)):
                    r = st.remembered.recall(cp.q, user=st.user, k=C.K, now=now)
                    shown = frozenset().union(*st.covered(st.remembered, [h.id for h in r.hits]))
                    viol = bool(shown & cp.forbidden)
                    rows.append({"conv": conv.id, "i": i, "kind": cp.kind, "lang": conv.lang,
                                 "acc": bool(shown & cp.relevant) and not viol, "viol": viol})
            finally:
                st.close()
    res[name] = rows
    print(name, f"{time.time()-t0:.0f}s", flush=True)
Path(out).write_text(json.dumps(res))
def summ(rows):
    n = len(rows)
    return f"{sum(r['acc'] for r in rows)/n:.3f} / {sum(r['viol'] for r in rows)/n:.3f} ({n})"
kinds = sorted({r["kind"] for r in res["base"]})
for name, rows in res.items():
    print(f"{name:10s} overall {summ(rows)}")
    for k in kinds:
        print(f"   {k:15s} {summ([r for r in rows if r['kind']==k])}")
    if name != "base":
        won: dict[str, int] = defaultdict(int)
        lost: dict[str, int] = defaultdict(int)
        for a, b in zip(res["base"], rows, strict=True):
            if b["acc"] and not a["acc"]:
                won[a["kind"]] += 1
            if a["acc"] and not b["acc"]:
                lost[a["kind"]] += 1
        print(f"   won {sum(won.values())} {dict(won)} lost {sum(lost.values())} {dict(lost)}")
