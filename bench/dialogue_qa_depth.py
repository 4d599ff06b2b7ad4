"""Dialogue QA at depth: recall against hybrid, BM25 and vector search over the raw turns at @5 / @10 / @20, and
where recall loses an evidence turn that BM25 or hybrid holds in its top 10 (issue 14, decision 0112).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/dialogue_qa_depth.py SPLIT MODE OUT.json ['NAME={...}' ...]

Remembers each conversation once (as :mod:`mnemir.eval.dialogue_qa` does); every variant (``base`` first) is asked
on the same stores. For each question where BM25's or hybrid's top 10 over the raw turns covers an evidence turn and
a variant's top 10 does not, the loss gets its first matching cause:

* ``pool/absent``: recall's plain order (its plain search over the utterances, what it fuses with) never finds an
  evidence turn; ``pool/deep``: it finds one only past its 10th place (the fusion of its vector and keyword orders
  puts it there); ``pool/period``: a named past period put other utterances first;
* ``barred`` / ``ruled_out`` / ``asked_person``: a note names a memory of the evidence turn (a lifecycle bar, a
  confident intent's ruling, the asked-person step);
* ``pushed/kept`` / ``pushed/role``: in the plain order's top 10, at a place inside the places recall keeps for plain
  search or below them: the role order's memories took the places; ``/dup`` when one utterance holds two of the
  top 10 places (a typed memory and its own episode, or two readings of one turn).

``MERGE=N`` (environment): every N conversations of one language are kept in one store (sessions renumbered, the
questions of each asked over the whole store), a long store of several conversations as a proxy for conversations
several times longer than the suite's (LoCoMo's run to 300-700 turns). ``KS=5,10`` (environment): the depths asked
(10 among them). ``FIRST=N``: only the first N conversations of each language.

Losses at each asked depth under 10 (``KS``' 5) are read alike against that depth (``cause@5``: BM25's or hybrid's
top 5 holds an evidence turn, recall's does not; ``pool/deep`` when the plain order places it past the 5th).
``GRID='{"NAME": {"text_weight": 3, "rrf_k": 60, "score_weight": 0.25, "period_first": true}, ...}'``: the plain
order under each of these fusions too (decision 0117). ``AUTHORS=M,L``: only those authors' files.

Prints hit rates at each k and the cause counts (no benchmark text). Never with ``test``.
"""
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from dialogue_qa_variants import noted_cause, plain_places, replay, setup, variant_recalls

from mnemir.eval import dialogue_qa as D
from mnemir.eval import locomo as L
from mnemir.retrieve.fusion import plain_group_ranks
from mnemir.retrieve.recall import RecallConfig, _gather, _past_period, plain_utterance_order, said_orders
from mnemir.store.base import tenant_reads

BASE = RecallConfig()
KS = tuple(int(k) for k in os.environ.get("KS", "5,10,20").split(","))
REF = 10  # the depth at which raw search's hits are the reference for losses
#: ``GRID='{"NAME": {"text_weight": 3, "rrf_k": 60, "score_weight": 0.25, "period_first": true}, ...}'``
#: (environment): recall's plain order over the utterances placed under each of these fusions too (the same two
#: searches, read once per question), its hits at each k kept per question: a fit of the plain order's fusion on train
GRID: dict[str, dict[str, Any]] = json.loads(os.environ.get("GRID", "{}"))


def cause(notes: list[str], ids: set[str], plain_at: int | None, period: bool, kept: int, dup: bool,
          ref: int = REF) -> str:
    if plain_at is None:
        return "pool/absent"
    if plain_at >= ref:
        return "pool/period" if period else "pool/deep"
    return noted_cause(notes, ids) or "pushed/" + ("kept" if plain_at < kept else "role") + ("/dup" if dup else "")

def grid_orders(mem: Any, scope: Any, intent: Any, qvec: Any, now: Any, k: int) -> dict[str, list[str]]:
    """Recall's plain order over the utterance groups under each fusion of ``GRID`` (as
    :func:`~mnemir.retrieve.recall.plain_utterance_order` reads it, its two searches read once)."""
    config = BASE
    scope = scope.with_(types=None, where=None)
    store = tenant_reads(mem.store, scope.user_id)
    deep: dict[str, Any] = {}
    full: dict[str, Any] = {}
    pool = _gather(store, scope, intent, (), None, qvec, now, max(config.candidates, 4 * k), config, deep, full)
    known = {**deep, **pool, **full}
    said = said_orders(store, scope, intent.query, qvec, k, config, known, deep)
    out: dict[str, list[str]] = {}
    for name, g in GRID.items():
        groups = plain_group_ranks(known, _past_period(intent, now), float(g.get("text_weight", 1.0)),
                                   config.plain_assistant_weight, orders=said, ties=config.plain_ties,
                                   score_weight=float(g.get("score_weight", config.plain_score_weight)),
                                   period_first=bool(g.get("period_first", True)), rrf_k=int(g.get("rrf_k", 60)))
        out[name] = sorted(groups, key=lambda gid: groups[gid])
    return out


def merged(samples: list[tuple[Any, Any]], n: int) -> list[tuple[Any, Any]]:
    """Every ``n`` conversations of one language as one sample: session s of the j-th becomes session 100 j + s."""
    out: list[tuple[Any, Any]] = []
    for lang in sorted({c.lang for c, _ in samples}):
        same = [(c, s) for c, s in samples if c.lang == lang]
        for start in range(0, len(same), n):
            group = same[start:start + n]
            turns: list[L.Turn] = []
            questions: list[L.Question] = []
            for j, (_, s) in enumerate(group):
                def moved(dia: str, j: int = j) -> str:
                    session, _, turn = dia[1:].partition(":")
                    return f"D{100 * j + int(session)}:{turn}"
                turns += [L.Turn(moved(t.dia_id), 100 * j + t.session, t.index, t.text, t.at) for t in s.turns]
                questions += [L.Question(q.text, q.category, tuple(moved(e) for e in q.evidence))
                              for q in s.questions]
            first = group[0][0]
            out.append((first, L.Sample("+".join(s.id for _, s in group), tuple(turns), tuple(questions), {})))
    return out


def main() -> None:
    out, variants, emb, samples = setup(sys.argv)
    if "FIRST" in os.environ:
        first = int(os.environ["FIRST"])
        samples = [(c, s) for c, s in samples if sum(1 for o, _ in samples[:samples.index((c, s))]
                                                      if o.lang == c.lang) < first]
    if int(os.environ.get("MERGE", "1")) > 1:
        samples = merged(samples, int(os.environ["MERGE"]))
    rows: list[dict[str, Any]] = []
    top = max(KS)
    assert REF in KS, "the reference depth (10) must be asked"
    for conv, sample, turns, remembered in replay(samples, emb, "dqa-depth-"):
        mem = remembered.mem
        for q in sample.questions:
            row: dict[str, Any] = {"conv": conv.id, "lang": conv.lang, "kind": D.CATEGORIES[q.category],
                                   "evidence": list(q.evidence), "raw": {}, "v": {}}
            for name, rank in (("hybrid", L.rank_hybrid), ("bm25", L.rank_bm25), ("vector", L.rank_vector)):
                cov = [turns.turns.get(m, frozenset()) for m in rank(turns, sample, q, top)]
                row["raw"][name] = {k: L.judge(cov, q.evidence, k)[0] for k in KS}
                row["raw"][name]["at"] = next((j for j, c in enumerate(cov) if c & set(q.evidence)), None)
            intent = mem.intent(q.text, now=sample.end)
            scope = mem._selection(user=L._user(sample))
            plain = plain_utterance_order(mem.store, scope, intent, emb.embed_query(q.text), sample.end,
                                          REF, BASE)
            pcov = [remembered.turns.get(g, frozenset()) for g in plain]
            row["plain"] = {k: L.judge(pcov, q.evidence, k)[0] for k in KS}
            plain_at = next((j for j, c in enumerate(pcov) if c & set(q.evidence)), None)
            row["plain_at"] = plain_at
            row["plain_len"] = len(plain)
            if GRID:
                orders = grid_orders(mem, scope, intent, emb.embed_query(q.text), sample.end, top)
                row["grid"] = {name: {k: L.judge([remembered.turns.get(g, frozenset()) for g in order],
                                                 q.evidence, k)[0] for k in KS} for name, order in orders.items()}
            period = _past_period(intent, sample.end) is not None
            ids = {mid for mid, c in remembered.turns.items() if c & set(q.evidence)}
            ref = row["raw"]["hybrid"][REF] or row["raw"]["bm25"][REF]
            for name, k, res, cov in variant_recalls(remembered, variants, sample, q, KS):
                d = row["v"].setdefault(name, {})
                d[k] = L.judge(cov, q.evidence, k)[0]
                if k < REF and not d[k] and (row["raw"]["hybrid"][k] or row["raw"]["bm25"][k]):
                    # a loss at a shallower depth too (issue 14's @5), its cause read against that depth
                    seen_k: Counter[str] = Counter(t for c in cov for t in c)
                    kept_k = plain_places(mem.recall_config, float(res.intent.confidence), k)
                    d[f"cause@{k}"] = cause(res.notes, ids, plain_at, period, kept_k,
                                            any(n > 1 for n in seen_k.values()), ref=k)
                if k == REF:
                    seen: Counter[str] = Counter(t for c in cov for t in c)
                    dup = any(n > 1 for n in seen.values())
                    d["dup"] = dup
                    d["types"] = [h.memory.type for h in res.hits]
                    if ref and not d[k]:
                        kept = plain_places(mem.recall_config, float(res.intent.confidence), k)
                        d["cause"] = cause(res.notes, ids, plain_at, period, kept, dup)
                        d["intent"] = [res.intent.kind, round(float(res.intent.confidence), 2)]
            rows.append(row)
    Path(out).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    report(rows, list(variants))


def report(rows: list[dict[str, Any]], names: list[str]) -> None:
    n = len(rows)
    print(f"{n} questions; " + "  ".join(f"@{k}" for k in KS))
    for name in ("hybrid", "bm25", "vector"):
        print(f"{name + ' (raw)':<22}" + "".join(f"{sum(r['raw'][name][k] for r in rows) / n:>8.3f}" for k in KS))
    print(f"{'plain order':<22}" + "".join(f"{sum(r['plain'][k] for r in rows) / n:>8.3f}" for k in KS))
    for name in rows[0].get("grid", {}):
        hits = [sum(r["grid"][name].get(k, r["grid"][name].get(str(k), False)) for r in rows) / n for k in KS]
        print(f"{'plain ' + name:<22}" + "".join(f"{h:>8.3f}" for h in hits))
    for name in names:
        print(f"{name:<22}" + "".join(f"{sum(r['v'][name][k] for r in rows) / n:>8.3f}" for k in KS))
    for name in names:
        base = "base"
        for k in KS:
            won = sum(r["v"][name][k] and not r["v"][base][k] for r in rows)
            lost = sum(r["v"][base][k] and not r["v"][name][k] for r in rows)
            wh = sum(r["v"][name][k] and not r["raw"]["hybrid"][k] for r in rows)
            lh = sum(r["raw"]["hybrid"][k] and not r["v"][name][k] for r in rows)
            print(f"{name} @{k}: vs base won {won} lost {lost}; vs hybrid won {wh} lost {lh}")
        causes = Counter(r["v"][name]["cause"] for r in rows if "cause" in r["v"][name])
        dups = sum(r["v"][name].get("dup", False) for r in rows)
        print(f"{name}: losses @{REF} to BM25-or-hybrid by cause {dict(causes.most_common())}; "
              f"questions with one turn in two of the top {REF}: {dups}")
        for k in (k for k in KS if k < REF):
            shallow = Counter(r["v"][name][f"cause@{k}"] for r in rows if f"cause@{k}" in r["v"][name])
            print(f"{name}: losses @{k} to BM25-or-hybrid by cause {dict(shallow.most_common())}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        data = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
        report(data, list(data[0]["v"]))
    else:
        main()
