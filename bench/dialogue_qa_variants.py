"""Dialogue QA: remember once per conversation, recall under several RecallConfig variants on the same stores,
beside hybrid search over the raw turns (a variant differs from another only by its settings, not by a replay).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/dialogue_qa_variants.py SPLIT MODE OUT.json \
        'NAME={"asked_person": false}' ...

``FUSIONS='{"NAME": {"score_weight": 0.25}, ...}'`` (environment): hybrid search over the raw turns under each of
these FusionConfigs too, beside BM25 and vector search alone over them (``search``'s own fusion is ``hybrid``).

``CONV_EVERY=n`` (environment): every n-th conversation only (1, the default: all).

``base`` (the default RecallConfig) always runs first. MODE is ``labelled`` or ``unlabelled``
(:mod:`mnemir.eval.dialogue_qa`). OUT.json holds one row per question (kind, language, evidence, hybrid's and each
variant's hit at 5 and 10; base's and hybrid's top 10 with their turns). Never with ``test``.
"""
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import dialogue_qa as D
from mnemir.eval import locomo as L
from mnemir.eval._embedcache import cached
from mnemir.retrieve.query_kinds import read_query
from mnemir.retrieve.recall import RecallConfig
from mnemir.retrieve.search import FusionConfig

BASE = RecallConfig()
FUSIONS: dict[str, dict[str, Any]] = json.loads(os.environ.get("FUSIONS", "{}"))
KS = (5, 10)


def setup(argv: list[str]) -> tuple[str, dict[str, dict[str, Any]], Any, list[tuple[Any, Any]]]:
    """``SPLIT MODE OUT.json ['NAME={...}' ...]`` read (never the test split): the output path, the variants (``base``
    first), the cached embedder and each conversation with its sample, their texts embedded ahead."""
    split, mode, out = argv[1], argv[2], argv[3]
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    variants: dict[str, dict[str, Any]] = {"base": {}}
    for arg in argv[4:]:
        name, _, spec = arg.partition("=")
        variants[name] = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(spec).items()}
    emb = cached(default_embedder())
    samples = [(c, c.sample(mode)) for c in _conversations(split)[::int(os.environ.get("CONV_EVERY", "1"))]]
    emb.prefetch([t.text for _, s in samples for t in s.turns], [q.text for _, s in samples for q in s.questions])
    return out, variants, emb, samples


def _conversations(split: str) -> list[Any]:
    """The split's conversations; ``AUTHORS=M,L`` (environment): only those of these authors' files
    (``qa_<AUTHOR>_<lang>.yaml``)."""
    authors = [a for a in os.environ.get("AUTHORS", "").split(",") if a]
    if not authors:
        return D.load(split)
    with tempfile.TemporaryDirectory(prefix="dqa-authors-") as tmp:
        for path in sorted(D.data_dir(split).glob("*.yaml")):
            if path.stem.split("_")[1] in authors:
                (Path(tmp) / path.name).symlink_to(path)
        return D.load(split, folder=tmp)


def replay(samples: list[tuple[Any, Any]], emb: Any, prefix: str) -> Iterator[tuple[Any, Any, Any, Any]]:
    """Each conversation remembered once, beside a store of its raw turns, in a temporary folder:
    ``(conversation, sample, raw turns, remembered)``, both stores closed and the progress printed after each."""
    started = time.time()
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for i, (conv, sample) in enumerate(samples):
            turns = L.build_turns(sample, Path(tmp) / f"t{i}", emb)
            remembered = L.build_remembered(sample, Path(tmp) / f"r{i}", emb)
            try:
                yield conv, sample, turns, remembered
            finally:
                turns.mem.close()
                remembered.mem.close()
            print(f"{i + 1}/{len(samples)} {time.time() - started:.0f}s", file=sys.stderr, flush=True)


def noted_cause(notes: list[str], ids: set[str]) -> str | None:
    """The step a recall note names as having set aside a memory in ``ids``: ``barred`` (a lifecycle bar),
    ``ruled_out`` (a confident intent's ruling), ``asked_person`` (the asked-person step), or None."""
    said = [n for n in notes if any(mid in n for mid in ids)]
    if any("left out" in n or "replaced" in n for n in said):
        return "barred"
    if any("not brought back" in n or ("is not kept" in n and "does not name" not in n) for n in said):
        return "ruled_out"
    if any("does not name" in n for n in said):
        return "asked_person"
    return None


def plain_places(config: RecallConfig, confidence: float, k: int) -> int:
    """How many of the top ``k`` places recall keeps for plain search at this intent confidence."""
    return max(1, int(k * min(1.0, config.plain_share + config.unsure_plain_share * (1 - confidence))))


def variant_recalls(remembered: Any, variants: dict[str, dict[str, Any]], sample: Any, question: Any,
                    ks: tuple[int, ...]) -> Iterator[tuple[str, int, Any, list[frozenset[str]]]]:
    """Recall of ``question`` over the remembered store under each variant (``BASE`` with its fields) at each depth:
    ``(variant, k, result, the evidence turns each hit covers)``. The store's config is the variant's meanwhile."""
    for name, spec in variants.items():
        remembered.mem.recall_config = BASE.with_(**spec)
        for k in ks:
            res = remembered.mem.recall(question.text, user=L._user(sample), k=k, now=sample.end)
            yield name, k, res, [remembered.turns.get(h.id, frozenset()) for h in res.hits]


def main() -> None:
    out, variants, emb, samples = setup(sys.argv)
    rows: list[dict[str, Any]] = []
    for conv, sample, turns, remembered in replay(samples, emb, "dqa-var-"):
        text_of = {t.dia_id: t.text for t in sample.turns}
        for q in sample.questions:
            row: dict[str, Any] = {"conv": conv.id, "lang": conv.lang, "kind": D.CATEGORIES[q.category],
                                   "q": q.text, "evidence": list(q.evidence),
                                   "evidence_text": [text_of[e][:160] for e in q.evidence]}
            hy = L.rank_hybrid(turns, sample, q, 10)
            cov = [turns.turns.get(m, frozenset()) for m in hy]
            row["hybrid"] = {k: L.judge(cov, q.evidence, k)[0] for k in KS}
            row["hybrid_top"] = [sorted(c) for c in cov]
            row["raw"] = {}
            for name, rank in (("bm25", L.rank_bm25), ("vector", L.rank_vector)):
                cov = [turns.turns.get(m, frozenset()) for m in rank(turns, sample, q, 10)]
                row["raw"][name] = {k: L.judge(cov, q.evidence, k)[0] for k in KS}
            plain = turns.mem.config
            for name, spec in FUSIONS.items():
                turns.mem.config = replace(plain, fusion=FusionConfig(**spec))
                cov = [turns.turns.get(m, frozenset()) for m in L.rank_hybrid(turns, sample, q, 10)]
                row["raw"][name] = {k: L.judge(cov, q.evidence, k)[0] for k in KS}
            turns.mem.config = plain
            r = read_query(emb.embed_query(q.text), emb.model_id)
            row["reading"] = {k: round(v, 3) for k, v in r.probabilities.items() if v >= 0.05}
            row["v"] = {}
            for name, k, res, cov in variant_recalls(remembered, variants, sample, q, KS):
                d = row["v"].setdefault(name, {})
                d[k] = L.judge(cov, q.evidence, k)[0]
                if name == "base" and k == 10:
                    d["intent"] = res.intent.kind
                    d["top"] = [[h.memory.type, h.role, sorted(c), h.memory.text[:100]]
                                for h, c in zip(res.hits, cov, strict=True)]
                    d["notes"] = res.notes[:6]
            rows.append(row)
    Path(out).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    groups = [("all", lambda r: True), *((lg, lambda r, lg=lg: r["lang"] == lg) for lg in D.LANGUAGES),
              *((kd, lambda r, kd=kd: r["kind"] == kd) for kd in D.KINDS)]
    print(f"{'variant':<18}" + "".join(f"{g[:9] + '@' + str(k):>13}" for g, _ in groups for k in KS))

    def line(name: str, hit: Any) -> str:
        cells = ""
        for _, keep in groups:
            chosen = [r for r in rows if keep(r)]
            for k in KS:
                cells += f"{sum(hit(r, k) for r in chosen) / max(1, len(chosen)):>13.3f}"
        return f"{name:<18}{cells}"

    print(line("hybrid (raw)", lambda r, k: r["hybrid"][k]))
    for name in ("bm25", "vector", *FUSIONS):
        print(line(f"{name} (raw)"[:18], lambda r, k, name=name: r["raw"][name][k]))
    for name in FUSIONS:
        lost = sum(r["hybrid"][5] and not r["raw"][name][5] for r in rows)
        won = sum(r["raw"][name][5] and not r["hybrid"][5] for r in rows)
        print(f"{name} (raw): @5 lost to hybrid {lost}, won {won}")
    for name in variants:
        print(line(name, lambda r, k, name=name: r["v"][name][k]))
    for name in variants:
        lost = sum(r["hybrid"][5] and not r["v"][name][5] for r in rows)
        won = sum(r["v"][name][5] and not r["hybrid"][5] for r in rows)
        print(f"{name}: @5 lost to hybrid {lost}, won {won}")


if __name__ == "__main__":
    main()
