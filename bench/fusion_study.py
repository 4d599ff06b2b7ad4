"""The fusion study of decision 0095: the vector and keyword orders of plain search over the raw turns, with their
scores, dumped once per question, so that fusions are compared offline on the same orders.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/fusion_study.py dump SPLIT OUT.jsonl   # never test
    PYTHONPATH=src python bench/fusion_study.py score OUT.jsonl [OUT2.jsonl ...]

``dump`` reads dialogue QA (both modes: ``dqa-labelled`` / ``dqa-unlabelled`` rows) and continuity (``cont`` rows,
the store as it is at each checkpoint) of SPLIT. Each row: the suite, language, kind, the turns that answer it
(``rel``) and must not be shown (``forb``), and for each order (``vec``, ``txt``, 100 deep) [turns covered, score,
said by the assistant]; ``idf``: the BM25 idf, over the scope searched, of each of the question's words.
``score`` prints the fusions of :data:`FUSIONS` on every suite of the files given (turn recall @5 / @10 for dialogue
QA, acc@5 for continuity), with the per-question wins and losses against RRF 1:1.
"""
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

DEPTH = 100
SEARCHED = 50  # what ``search`` reads at k <= 12 (FusionConfig.candidate_factor x k, at least 50)


def _idf(texts: Sequence[str], query: str) -> list[float]:
    """The BM25 idf (as the store computes it) of each distinct word of ``query`` over ``texts``: a text has the word
    when it has any of the word's forms."""
    from mnemir.store.segment import tokens, word_forms

    docs = [set(tokens(t)) for t in texts]
    out = []
    for token in dict.fromkeys(tokens(query)):
        forms = set(word_forms(token))
        hits = sum(1 for d in docs if d & forms)
        out.append(math.log((len(docs) - hits + 0.5) / (hits + 0.5)))
    return out


def _orders(mem: Any, query: str, covers: Callable[[str], Sequence[Any]], assistant: Callable[[str], bool]
            ) -> dict[str, Any]:
    from mnemir.memory.core import NOT_DELETED
    from mnemir.store.base import ANY, Selection

    sel = Selection(user_id=ANY, statuses=NOT_DELETED)
    qvec = mem.embedder.embed_query(query)
    vec = mem.store.vector_search(sel, qvec, DEPTH)
    txt = mem.store.text_search(sel, query, DEPTH)
    return {"vec": [[list(covers(m)), round(float(s), 5), assistant(m)] for m, s in vec],
            "txt": [[list(covers(m)), round(float(s), 5), assistant(m)] for m, s in txt]}


def dump(split: str, out: str) -> None:
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    from mnemir.embed import default_embedder
    from mnemir.eval import continuity as C
    from mnemir.eval import dialogue_qa as D
    from mnemir.eval import locomo as L
    from mnemir.eval._embedcache import cached

    emb = cached(default_embedder())
    rows: list[dict[str, Any]] = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="fusion-study-") as tmp:
        for mode in ("labelled", "unlabelled"):
            samples = [(c, c.sample(mode)) for c in D.load(split)]
            emb.prefetch([t.text for _, s in samples for t in s.turns], [q.text for _, s in samples for q in s.questions])
            for i, (conv, sample) in enumerate(samples):
                built = L.build_turns(sample, Path(tmp) / f"{mode}{i}", emb)
                texts = [t.text for t in sample.turns]
                for q in sample.questions:
                    row = {"suite": f"dqa-{mode}", "conv": conv.id, "lang": conv.lang, "kind": D.CATEGORIES[q.category],
                           "rel": list(q.evidence), "forb": [], "idf": _idf(texts, q.text), "q_len": len(q.text)}
                    row.update(_orders(built.mem, q.text, lambda m, b=built: sorted(b.turns.get(m, ())),
                                       lambda m: False))
                    rows.append(row)
                built.mem.close()
            print(f"dqa {mode} {time.time() - started:.0f}s", file=sys.stderr, flush=True)
        convs = C.load(split)
        emb.prefetch([t.text for c in convs for t in c.turns], [p.q for c in convs for p in c.checkpoints])
        for conv in convs:
            stores = C._Stores(Path(tmp) / conv.id, emb, f"continuity-{conv.id}", ("turns_hybrid",))
            said: list[str] = []
            speaker: dict[int, str] = {t.n: t.speaker for t in conv.turns}
            try:
                for cp, _now in C.replay(conv, stores):
                    mem = stores.turns
                    said = [t.text for t in conv.turns if t.n <= cp.after]
                    turn_of: dict[str, int] = {}

                    def covers(m: str, mem: Any = mem, turn_of: dict[str, int] = turn_of) -> list[int]:
                        if m not in turn_of:
                            record = mem.store.fetch([m])[0]
                            turn_of[m] = record.metadata.source.turn
                        return [turn_of[m]]

                    row = {"suite": "cont", "conv": conv.id, "lang": conv.lang, "kind": cp.kind,
                           "rel": sorted(cp.relevant), "forb": sorted(cp.forbidden), "idf": _idf(said, cp.q),
                           "q_len": len(cp.q)}
                    row.update(_orders(mem, cp.q, covers, lambda m, c=covers, sp=speaker: sp[c(m)[0]] == "assistant"))
                    rows.append(row)
            finally:
                stores.close()
        print(f"continuity {time.time() - started:.0f}s", file=sys.stderr, flush=True)
    Path(out).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")


# -- scoring ------------------------------------------------------------------------------------------
Fusion = Callable[[dict[str, Any]], list[tuple[Any, ...]]]
ASSISTANT = 0.8


def _candidates(row: dict[str, Any], depth: int = SEARCHED, ties: str = "signals"
                ) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Turn group -> its signals (ranks from 1, scores), the lists cut to ``depth``; ``ties`` as ``FusionConfig.ties``
    (the stored order breaks a tie of one list by id: "id" keeps it)."""
    lists = {name: row[name] for name in ("vec", "txt")}
    if ties == "signals":  # equal scores ordered by the other list's score (search.settle_ties)
        score_of = {name: {tuple(t): s for t, s, _ in lists[name]} for name in lists}
        for name, other in (("vec", "txt"), ("txt", "vec")):
            lists[name] = sorted(lists[name], key=lambda e, o=other: (-e[1], -score_of[o].get(tuple(e[0]), -9.0)))
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for name in ("vec", "txt"):
        for rank, (turns, score, asst) in enumerate(lists[name][:depth], start=1):
            key = tuple(turns)
            c = out.setdefault(key, {"asst": asst})
            c[name + "_rank"] = rank
            c[name] = score
    return out


def rrf(k: float = 60, wt: float = 1.0, wv: float = 1.0, depth: int = SEARCHED, ties: str = "signals",
        wt_of: Callable[[dict[str, Any]], float] | None = None, gap: float = 0.0) -> Fusion:
    def fuse(row: dict[str, Any]) -> list[tuple[Any, ...]]:
        cands = _candidates(row, depth, ties)
        w_t = wt_of(row) if wt_of is not None else wt
        top_v = max((c.get("vec", 0.0) for c in cands.values()), default=0.0) or 1.0
        top_t = max((c.get("txt", 0.0) for c in cands.values()), default=0.0) or 1.0
        scored = []
        for key, c in cands.items():
            s = (wv / (k + c["vec_rank"]) if "vec_rank" in c else 0.0) + (w_t / (k + c["txt_rank"]) if "txt_rank" in c else 0.0)
            strength = wv * max(c.get("vec", 0.0), 0.0) / top_v + w_t * max(c.get("txt", 0.0), 0.0) / top_t
            s += gap * strength / (k + 1)
            if c["asst"]:
                s *= ASSISTANT
            tie = -strength if ties == "signals" else 0.0
            scored.append((-s, tie, key))
        scored.sort(key=lambda t: (t[0], t[1]) if ties == "signals" else (t[0], hash(t[2])))
        return [key for _, _, key in scored]
    return fuse


def weighted(wt: float = 1.0, norm: str = "max") -> Fusion:
    def fuse(row: dict[str, Any]) -> list[tuple[Any, ...]]:
        cands = _candidates(row)
        vs = [c.get("vec", 0.0) for c in cands.values() if "vec" in c]
        ts = [c.get("txt", 0.0) for c in cands.values() if "txt" in c]

        def scale(x: float, xs: list[float]) -> float:
            if not xs:
                return 0.0
            if norm == "minmax":
                lo, hi = min(xs), max(xs)
                return (x - lo) / (hi - lo) if hi > lo else 1.0
            return x / (max(xs) or 1.0)

        scored = []
        for key, c in cands.items():
            s = (scale(c["vec"], vs) if "vec" in c else 0.0) + wt * (scale(c["txt"], ts) if "txt" in c else 0.0)
            if c["asst"]:
                s *= ASSISTANT
            scored.append((-s, key))
        scored.sort()
        return [key for _, key in scored]
    return fuse


def judge(row: dict[str, Any], order: list[tuple[Any, ...]], k: int) -> bool:
    shown = set().union(*[set(t) for t in order[:k]]) if order else set()
    rel = set(row["rel"])
    if row["suite"] == "cont":
        return bool(shown & rel) and not (shown & set(row["forb"]))
    return bool(shown & rel)


def specificity(row: dict[str, Any]) -> float:
    """The question's lexical specificity: the mean idf of its words found in the scope, as a share of the largest
    idf the scope allows (a word said once)."""
    idf = [x for x in row["idf"] if x > 0]
    return sum(idf) / len(idf) if idf else 0.0


def adaptive(low: float, high: float, lo_w: float, hi_w: float, feature: Callable[[dict[str, Any]], float],
             k: float = 60) -> Fusion:
    """The keyword weight moves from ``lo_w`` (feature <= low) to ``hi_w`` (feature >= high), linearly between."""
    def wt_of(row: dict[str, Any]) -> float:
        f = feature(row)
        t = min(max((f - low) / (high - low), 0.0), 1.0) if high > low else float(f >= high)
        return lo_w + t * (hi_w - lo_w)
    return rrf(k=k, wt_of=wt_of)


def max_idf(row: dict[str, Any]) -> float:
    return max(row["idf"], default=0.0)


def rare_share(row: dict[str, Any]) -> float:
    """The share of the question's words that are rare in the scope (idf >= 2: in about an eighth of it or less)."""
    return sum(1 for x in row["idf"] if x >= 2.0) / max(1, len(row["idf"]))


def rel_idf(row: dict[str, Any]) -> float:
    """Mean idf as a share of the largest one the scope allows (a word found once)."""
    n = _scope_size(row)
    top = math.log((n - 0.5) / 1.5) if n > 2 else 1.0
    return specificity(row) / top if top > 0 else 0.0


def _scope_size(row: dict[str, Any]) -> int:
    return int(row.get("n", 0)) or 100


FUSIONS: dict[str, Fusion] = {
    "rrf60 (search)": rrf(),
    "rrf60 gap0.1": rrf(gap=0.1),
    "rrf60 gap0.15": rrf(gap=0.15),
    "rrf60 gap0.25": rrf(gap=0.25),
    "rrf60 id ties": rrf(ties="id"),
    "rrf30": rrf(k=30),
    "rrf100": rrf(k=100),
    "rrf60 txt1.3": rrf(wt=1.3),
    "rrf60 txt0.8": rrf(wt=0.8),
    "rrf60 depth30": rrf(depth=30),
    "rrf60 depth100": rrf(depth=100),
    "rrf60 gap0.5": rrf(gap=0.5),
    "rrf60 gap1": rrf(gap=1.0),
    "weighted max": weighted(),
    "weighted minmax": weighted(norm="minmax"),
    "weighted minmax t0.7": weighted(0.7, norm="minmax"),
}
for lo_w, hi_w in ((0.7, 1.5), (0.8, 1.3), (1.0, 1.5), (0.7, 1.0), (1.0, 2.0)):
    for name, feat, lo, hi in (("mean_idf", specificity, 1.0, 3.0), ("max_idf", max_idf, 2.0, 4.0),
                               ("rare_share", rare_share, 0.2, 0.8)):
        FUSIONS[f"adapt {name} {lo_w}->{hi_w}"] = adaptive(lo, hi, lo_w, hi_w, feat)


def score(paths: list[str]) -> None:
    rows = [json.loads(line) for p in paths for line in Path(p).read_text(encoding="utf-8").splitlines() if line]
    suites = sorted({r["suite"] for r in rows})
    base = FUSIONS["rrf60 (search)"]
    base_hits = {id(r): (judge(r, base(r), 5), judge(r, base(r), 10)) for r in rows}
    header = f"{'fusion':<34}" + "".join(f"{s[:14] + ' @5/@10':>22}" for s in suites) + f"{'won/lost @5':>14}"
    print(header)
    for name, fusion in FUSIONS.items():
        cells = ""
        won = lost = 0
        for s in suites:
            chosen = [r for r in rows if r["suite"] == s]
            h5 = h10 = 0
            for r in chosen:
                order = fusion(r)
                a, b = judge(r, order, 5), judge(r, order, 10)
                h5 += a
                h10 += b
                won += a and not base_hits[id(r)][0]
                lost += base_hits[id(r)][0] and not a
            cells += f"{h5 / len(chosen):>12.3f} /{h10 / len(chosen):.3f}"
        print(f"{name:<34}{cells}{won:>8}/{lost}")


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3])
    else:
        score(sys.argv[2:])
