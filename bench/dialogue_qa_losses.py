"""Dialogue QA: where does recall lose an evidence turn that hybrid search over the raw turns shows? (issue 14)

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/dialogue_qa_losses.py SPLIT MODE OUT.json ['NAME={...}' ...]

Remembers each conversation once (as :mod:`mnemir.eval.dialogue_qa` does) and asks, per question and k (5, 10):
hybrid search over the raw turns, recall's own plain order over the remembered store (``plain_utterance_order``,
what recall fuses with), and recall under each variant (``base`` first). Where hybrid's top k covers an evidence turn
and a variant's does not, the loss gets its first matching cause:

* ``plain_order``: recall's plain order does not cover it in its top k either (``period``: the question names a past
  period, whose utterances the plain order puts first);
* ``barred``: a note names a memory of the evidence turn as left out (a named lifecycle exclusion);
* ``ruled_out``: a note names one as not brought back / not kept (a confident intent's ruling);
* ``asked_person``: a note names one as not naming the person asked about;
* ``pushed``: in the plain order's top k, at a plain rank inside the places recall keeps for plain search
  (``kept``) or below them (``role``): the role order's memories took the places.

Prints the counts per variant and the plain order's own hit rates. Never with ``test``.
"""
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from dialogue_qa_variants import noted_cause, plain_places, replay, setup, variant_recalls

from mnemir.eval import dialogue_qa as D
from mnemir.eval import locomo as L
from mnemir.retrieve.recall import RecallConfig, _past_period, plain_utterance_order

BASE = RecallConfig()
KS = (5, 10)


def cause(notes: list[str], ids: set[str], plain_hit: bool, period: bool, plain_at: int | None, kept: int) -> str:
    if not plain_hit:
        return "plain_order" + ("/period" if period else "")
    return noted_cause(notes, ids) or "pushed/" + ("kept" if plain_at is not None and plain_at < kept else "role")

def main() -> None:
    out, variants, emb, samples = setup(sys.argv)
    rows: list[dict[str, Any]] = []
    for conv, sample, turns, remembered in replay(samples, emb, "dqa-loss-"):
        mem = remembered.mem
        for q in sample.questions:
            row: dict[str, Any] = {"conv": conv.id, "lang": conv.lang, "kind": D.CATEGORIES[q.category],
                                   "q": q.text, "evidence": list(q.evidence)}
            hy = L.rank_hybrid(turns, sample, q, 10)
            row["hybrid"] = {k: L.judge([turns.turns.get(m, frozenset()) for m in hy], q.evidence, k)[0]
                             for k in KS}
            intent = mem.intent(q.text, now=sample.end)
            scope = mem._selection(user=L._user(sample))
            qvec = emb.embed_query(q.text)
            plain = plain_utterance_order(mem.store, scope, intent, qvec, sample.end, 10, BASE)
            pcov = [remembered.turns.get(g, frozenset()) for g in plain]
            row["plain"] = {k: L.judge(pcov, q.evidence, k)[0] for k in KS}
            plain_at = next((j for j, c in enumerate(pcov) if c & set(q.evidence)), None)
            row["plain_at"] = plain_at
            period = _past_period(intent, sample.end) is not None
            ids = {mid for mid, c in remembered.turns.items() if c & set(q.evidence)}
            row["v"] = {}
            for name, k, res, cov in variant_recalls(remembered, variants, sample, q, KS):
                d = row["v"].setdefault(name, {})
                d[k] = L.judge(cov, q.evidence, k)[0]
                if row["hybrid"][k] and not d[k]:
                    kept = plain_places(mem.recall_config, float(res.intent.confidence), k)
                    d[f"cause{k}"] = cause(res.notes, ids, row["plain"][k], period, plain_at, kept)
                    d[f"top{k}"] = [[h.memory.type, sorted(c)] for h, c in zip(res.hits, cov, strict=True)]
                    d[f"notes{k}"] = res.notes
            rows.append(row)
    Path(out).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    n = len(rows)
    for k in KS:
        h = sum(r["hybrid"][k] for r in rows)
        p = sum(r["plain"][k] for r in rows)
        lost = sum(r["hybrid"][k] and not r["plain"][k] for r in rows)
        won = sum(r["plain"][k] and not r["hybrid"][k] for r in rows)
        print(f"@{k}: hybrid (raw) {h / n:.3f}; recall's plain order {p / n:.3f} (lost {lost}, won {won})")
    for name in variants:
        for k in KS:
            hits = sum(r["v"][name][k] for r in rows)
            lost = sum(r["hybrid"][k] and not r["v"][name][k] for r in rows)
            won = sum(r["v"][name][k] and not r["hybrid"][k] for r in rows)
            causes = Counter(r["v"][name][f"cause{k}"] for r in rows if f"cause{k}" in r["v"][name])
            print(f"{name} @{k}: {hits / n:.3f} lost {lost} won {won}: {dict(causes.most_common())}")


if __name__ == "__main__":
    main()
