"""Train the learned change reading (:mod:`mnemir.understand.same_change`) on the collapse *train* files only.

    python -m mnemir.eval.learn_same_change [--out src/mnemir/understand/data/same_change.json]

Pairs are mined from each train scenario's memories, oldest first. A later Preference, Fact or Hypothesis meets the
earlier statements of those types closest to it in meaning (up to ``POOL``, as the write side meets its
candidates). A pair is a change (positive) when

- the later memory says it replaces the earlier one (``supersedes`` or a ``supersedes`` rel), or
- a query shows the later one as relevant where the earlier one, of the same type, is forbidden, and the scenario
  gives both the same entity or attribute (content words shared between their ``entity`` or ``attribute``
  properties) or, for two preferences, the scenario is about a past preference overriding a present one.

A pair a query opposes that way without a shared entity or attribute is left out (unsure); every other pair is no
change. Features are :func:`mnemir.memory.understanding.change_pair_raw` of the two texts (the same function the
write side calls) with their scenario types. A logistic regression (classes weighing alike, an L2 penalty) is fitted
on them; its penalty, its threshold and the lead the best candidate needs over the next are chosen by
cross-validation over whole files, scoring what the write side would do (a new statement replaces its best candidate
or none) by F-beta (beta 0.5: a wrong replacement hides a statement still true; a missed one leaves an old one
beside the new). The dev and test files measure it (docs/EVALUATION.md); it never reads them.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed import Embedder, default_embedder
from mnemir.eval import collapse
from mnemir.eval._embedcache import cached
from mnemir.eval.learn_query_kinds import fit, out_of_fold
from mnemir.understand.same_change import FEATURES, TYPES, SameChange, dumps, row

POOL = 5
PENALTIES = (1e-3, 1e-2, 1e-1)
THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))  # 0.30 .. 0.95
LEADS = (0.0, 0.1, 0.2, 0.3)
BETA = 0.5
STEPS = 600
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "understand" / "data" / "same_change.json"
_WORD = re.compile(r"[a-z0-9]{3,}|[\u4e00-\u9fff]{2}")
_NOT_ABOUT = frozenset({"the", "and", "for", "with", "user", "users", "mine", "own"})


def _words(value: Any) -> set[str]:
    text = str(value or "").casefold()
    out = {w for w in _WORD.findall(text) if w not in _NOT_ABOUT}
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        out |= {run[i:i + 2] for i in range(len(run) - 1)}
    return out


def _same_thing(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    pa, pb = a.get("props") or {}, b.get("props") or {}
    return any(_words(pa.get(k)) & _words(pb.get(k)) for k in ("entity", "attribute"))


def _labels(scenario: collapse.Scenario) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(changes, unsure pairs) of the scenario, as (later key, earlier key)."""
    mems = {m["key"]: m for m in scenario.memories}
    age = {k: collapse.parse_age(m["age"]) for k, m in mems.items()}
    changes: set[tuple[str, str]] = set()
    for m in scenario.memories:
        changes |= {(m["key"], str(t)) for t in m.get("supersedes") or ()}
        changes |= {(m["key"], str(t)) for r, t in m.get("rels") or () if r == "supersedes"}
    unsure: set[tuple[str, str]] = set()
    for q in scenario.queries:
        for r in q.relevant:
            for f in q.forbidden:
                if r not in mems or f not in mems or mems[r]["type"] != mems[f]["type"] or age[f] <= age[r] \
                        or mems[r]["type"] not in TYPES or (r, f) in changes:
                    continue
                pref = mems[r]["type"] == "Preference" and scenario.symptom == "past_preference_overrides_present"
                if pref or _same_thing(mems[r], mems[f]):
                    changes.add((r, f))
                else:
                    unsure.add((r, f))
    return changes, unsure


def examples(split: str = "train", embedder: Embedder | None = None) -> list[dict[str, Any]]:
    """One entry per later statement that meets candidates: its file and its pairs (raw quantities and labels)."""
    from mnemir.memory.understanding import change_pair_raw

    scenarios = collapse.load(split)
    cache = cached(embedder or default_embedder())
    texts = sorted({str(m["text"]) for s in scenarios for m in s.memories})
    cache.prefetch(texts, [])
    vectors = {t: np.asarray(v, dtype=np.float64) for t, v in zip(texts, cache.embed(texts), strict=True)}
    out = []
    for scenario in scenarios:
        changes, unsure = _labels(scenario)
        ordered = sorted(scenario.memories, key=lambda m: -collapse.parse_age(m["age"]))
        for i, new in enumerate(ordered):
            if new["type"] not in TYPES or collapse._speaker(new) == "assistant":
                continue
            earlier = [m for m in ordered[:i] if m["type"] in TYPES
                       and collapse.parse_age(m["age"]) > collapse.parse_age(new["age"])]
            if not earlier:
                continue
            v = vectors[str(new["text"])]
            sims = sorted(((float(v @ vectors[str(m["text"])]), m) for m in earlier), key=lambda s: -s[0])[:POOL]
            pairs = []
            for rank, (sim, old) in enumerate(sims):
                key = (new["key"], old["key"])
                if key in unsure:
                    continue
                best_other = max((s for j, (s, _) in enumerate(sims) if j != rank), default=0.0)
                raw = change_pair_raw(str(new["text"]), new["type"], str(old["text"]), old["type"], similarity=sim,
                                      rank=rank, lead=sim - best_other, candidates=len(sims), language=scenario.lang)
                pairs.append({"raw": raw, "label": int(key in changes), "old": old["key"]})
            if pairs:
                out.append({"file": scenario.source, "scenario": scenario.id, "new": new["key"], "pairs": pairs})
    return out


def _decisions(entries: Sequence[dict[str, Any]], p: npt.NDArray[np.float64], threshold: float, lead: float
               ) -> tuple[float, float, float, float]:
    """(F-beta, F1, precision, recall) of replacing each entry's best pair when it passes ``threshold`` and ``lead``
    (a move is right when its pair is a change; every entry with a change counts toward recall)."""
    at = 0
    moved = right = wanted = 0
    for e in entries:
        n = len(e["pairs"])
        probs = p[at:at + n]
        labels = [pair["label"] for pair in e["pairs"]]
        at += n
        wanted += int(any(labels))
        order = np.argsort(-probs)
        best = int(order[0])
        second = float(probs[order[1]]) if n > 1 else 0.0
        if probs[best] >= threshold and probs[best] - second >= lead:
            moved += 1
            right += labels[best]
    precision = right / max(moved, 1)
    recall = right / max(wanted, 1)
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    b2 = BETA * BETA
    fb = (1 + b2) * precision * recall / (b2 * precision + recall) if right else 0.0
    return fb, f1, precision, recall


def _matrix(entries: Sequence[dict[str, Any]]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[str]]:
    x = np.array([row(pair["raw"]) for e in entries for pair in e["pairs"]], dtype=np.float64)
    y = np.array([pair["label"] for e in entries for pair in e["pairs"]], dtype=np.int64)
    files = [e["file"] for e in entries for _ in e["pairs"]]
    return x, y, files



def train(embedder: Embedder | None = None) -> SameChange:
    entries = examples("train", embedder)
    x, y, files = _matrix(entries)
    print(f"{len(entries)} later statements, {len(y)} pairs, {int(y.sum())} changes, "
          f"{sum(any(p['label'] for p in e['pairs']) for e in entries)} statements with one", flush=True)
    best: dict[str, Any] | None = None
    tried = []
    for penalty in PENALTIES:
        p = out_of_fold(x, y, files, penalty, STEPS)
        for threshold in THRESHOLDS:
            for lead in LEADS:
                fb, f1, precision, recall = _decisions(entries, p, threshold, lead)
                got = {"penalty": penalty, "threshold": threshold, "lead": lead, "f_beta": round(fb, 4),
                       "f1": round(f1, 4), "precision": round(precision, 4), "recall": round(recall, 4)}
                tried.append(got)
                if best is None or fb > best["f_beta"] + 1e-9:
                    best = got
        print(json.dumps(max((t for t in tried if t["penalty"] == penalty), key=lambda t: t["f_beta"])), flush=True)
    assert best is not None
    w = fit(x, y, 2, best["penalty"], steps=STEPS)
    weights = w[1] - w[0]  # a two-class softmax is a logistic regression on the difference
    meta = {"trained_on": sorted(set(files)), "statements": len(entries), "pairs": len(y), "changes": int(y.sum()),
            "penalty": best["penalty"],
            "cross_validated": {k: best[k] for k in ("f_beta", "f1", "precision", "recall")},
            "note": "collapse train files: supersedes links and changes the queries imply against the closest other "
                    "earlier statements; python -m mnemir.eval.learn_same_change"}
    return SameChange(weights, float(best["threshold"]), float(best["lead"]), FEATURES, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mnemir.eval.learn_same_change", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    model = train()
    Path(args.out).write_text(dumps(model) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: threshold {model.threshold}, lead {model.lead}, {model.meta.get('cross_validated')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
