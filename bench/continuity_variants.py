"""Continuity: remember once per conversation, recall under several RecallConfig variants on the same stores,
beside turns + hybrid (a variant's figures differ from another's only by its settings, not by a replay).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/continuity_variants.py SPLIT OUT.json \
        'NAME={"event_reading": 1.0}' ...

``FUSIONS='{"NAME": {"score_weight": 0.25}, ...}'`` (environment): turns + hybrid under each of these FusionConfigs
too, beside turns + BM25 and turns + vector.

``K=n`` (environment): recall's k for the variants (default ``continuity.K``, 5; turns + hybrid stays at 5).

``CONV_EVERY=n`` (environment): every n-th conversation only (1, the default: all).

``base`` (the default RecallConfig) always runs first. OUT.json holds one row per checkpoint (kind, labels, the
query-kind reading, hybrid's and each variant's outcome; base's hits). Never with ``test``.
"""
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import continuity as C
from mnemir.eval._embedcache import cached
from mnemir.retrieve.query_kinds import read_query
from mnemir.retrieve.recall import RecallConfig
from mnemir.retrieve.search import FusionConfig

BASE = RecallConfig()
K = int(os.environ.get("K", str(C.K)))
FUSIONS: dict[str, dict[str, Any]] = json.loads(os.environ.get("FUSIONS", "{}"))


def main() -> None:
    split, out = sys.argv[1], sys.argv[2]
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    VARIANTS: dict[str, dict[str, Any]] = {"base": {}}
    for arg in sys.argv[3:]:
        name, _, spec = arg.partition("=")
        VARIANTS[name] = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(spec).items()}
    names = list(VARIANTS)
    convs = C.load(split)[::int(os.environ.get("CONV_EVERY", "1"))]
    emb = cached(default_embedder())
    emb.prefetch([t.text for c in convs for t in c.turns], [p.q for c in convs for p in c.checkpoints])
    rows: list[dict[str, Any]] = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="cont-var-") as tmp:
        for i, conv in enumerate(convs):
            stores = C._Stores(Path(tmp) / conv.id, emb, f"continuity-{conv.id}", ("turns_hybrid", "remember_recall"))
            try:
                for cp, now in C.replay(conv, stores):
                    row: dict[str, Any] = {"conv": conv.id, "src": conv.source, "lang": conv.lang, "kind": cp.kind, "q": cp.q,
                           "after": cp.after, "rel": sorted(cp.relevant), "forb": sorted(cp.forbidden)}
                    mem, ids = C._rank(stores, "turns_hybrid", cp.q, now)
                    cov = C._turns_of(mem, ids)
                    shown = frozenset().union(*cov)
                    row["hybrid"] = bool(shown & cp.relevant) and not (shown & cp.forbidden)
                    row["hybrid_cov"] = [sorted(c) for c in cov]
                    row["raw"] = {}
                    plain = stores.turns.config
                    for name, system, spec in (("bm25", "turns_bm25", None), ("vector", "turns_vector", None),
                                               *((n, "turns_hybrid", f) for n, f in FUSIONS.items())):
                        if spec is not None:
                            stores.turns.config = replace(plain, fusion=FusionConfig(**spec))
                        mem, ids = C._rank(stores, system, cp.q, now)
                        stores.turns.config = plain
                        shown = frozenset().union(*C._turns_of(mem, ids))
                        row["raw"][name] = bool(shown & cp.relevant) and not (shown & cp.forbidden)
                    r = read_query(emb.embed_query(cp.q), emb.model_id)
                    row["reading"] = {k: round(v, 3) for k, v in r.probabilities.items()}
                    row["v"] = {}
                    for name in names:
                        assert stores.remembered is not None
                        stores.remembered.recall_config = BASE.with_(**VARIANTS[name])
                        res = stores.remembered.recall(cp.q, user=stores.user, k=K, now=now)
                        hids = [h.id for h in res.hits]
                        cov = stores.covered(stores.remembered, hids)
                        shown = frozenset().union(*cov)
                        viol = bool(shown & cp.forbidden)
                        d: dict[str, Any] = {"acc": bool(shown & cp.relevant) and not viol, "viol": viol}
                        if name == "base":
                            d["intent"] = res.intent.kind
                            d["hits"] = [[h.memory.type, h.role, sorted(c), h.memory.text[:90], h.flags,
                                          h.memory.properties.get("status")]
                                         for h, c in zip(res.hits, cov, strict=True)]
                            d["notes"] = res.notes[:4]
                        row["v"][name] = d
                    rows.append(row)
            finally:
                stores.close()
            if (i + 1) % 20 == 0:
                print(f"{i + 1}/{len(convs)} {time.time() - started:.0f}s", flush=True)
    Path(out).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    kinds = sorted({r["kind"] for r in rows})
    print(f"{'variant':<16}{'all':>7}{'viol':>7}" + "".join(f"{k[:10]:>11}" for k in kinds))
    hy = rows
    print(f"{'hybrid':<16}{sum(r['hybrid'] for r in hy) / len(hy):>7.3f}{'':>7}" + "".join(
        f"{sum(r['hybrid'] for r in hy if r['kind'] == k) / sum(r['kind'] == k for r in hy):>11.3f}" for k in kinds))
    for name in ("bm25", "vector", *FUSIONS):
        print(f"{name[:16]:<16}{sum(r['raw'][name] for r in hy) / len(hy):>7.3f}{'':>7}" + "".join(
            f"{sum(r['raw'][name] for r in hy if r['kind'] == k) / sum(r['kind'] == k for r in hy):>11.3f}"
            for k in kinds))
    for name in FUSIONS:
        lost = sum(r["hybrid"] and not r["raw"][name] for r in rows)
        won = sum(r["raw"][name] and not r["hybrid"] for r in rows)
        print(f"{name} (raw): lost to hybrid {lost}, won {won}")
    for name in names:
        acc = sum(r["v"][name]["acc"] for r in rows) / len(rows)
        vio = sum(r["v"][name]["viol"] for r in rows) / len(rows)
        print(f"{name:<16}{acc:>7.3f}{vio:>7.3f}" + "".join(
            f"{sum(r['v'][name]['acc'] for r in rows if r['kind'] == k) / sum(r['kind'] == k for r in rows):>11.3f}"
            for k in kinds))


if __name__ == "__main__":
    main()
