"""Collapse, typed recall and end to end, under several RecallConfig variants on the same stores: each scenario
built once (typed) and remembered once (end to end), every query recalled under each variant (a variant's figures
differ from another's only by its settings, not by a replay):

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/collapse_variants.py SPLIT 'NAME={"plain_floor": 2}' ...

Won / lost per query against base are printed after the typed stores and at each 50 stores end to end as well.

``E2E_EVERY=n`` (environment): end to end over every n-th scenario only (1, the default: all); ``TYPED=0``: end to
end only (the typed figures then print as zero); ``TYPED_EVERY=n``: typed over every n-th scenario only. ``KS=3,5,10``
(environment): the depths measured (default 3 and 5; the last is printed beside @3).

``base`` (the default RecallConfig) always runs first. Prints isolation / collapse at k=3 (and isolation at 5) for
each. Never with ``test``."""
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval._embedcache import cached
from mnemir.retrieve import RecallConfig


def compare(split: str, variants: dict[str, RecallConfig], e2e: Callable[[K.Scenario], bool] | None = None,
            emb: Any = None) -> None:
    """Every query of ``split`` recalled under each variant: typed over every scenario, end to end over those ``e2e``
    keeps (default: every ``E2E_EVERY``-th), each store built once for all the variants."""
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    emb = emb or cached(default_embedder())
    scen = list(K.load(split))
    emb.prefetch([str(m["text"]) for m in K.noise()] + [str(m["text"]) for s in scen for m in s.memories],
                 [q.text for s in scen for q in s.queries])
    every = int(os.environ.get("E2E_EVERY", "1"))
    remembered_scen = [s for s in scen if e2e(s)] if e2e else scen[::every]
    print(len(scen), "scenarios,", len(remembered_scen), "end to end", flush=True)
    ks = tuple(int(k) for k in os.environ.get("KS", "3,5").split(","))
    reps = {n: K.Report(split, ks, len(scen), sum(len(s.queries) for s in scen),
                        systems=("recall", "remember_recall")) for n in variants}
    extra = K.noise()
    with tempfile.TemporaryDirectory(prefix="collapse-var-") as tmp:
        typed = scen[::int(os.environ.get("TYPED_EVERY", "1"))] if os.environ.get("TYPED", "1") != "0" else []
        for i, (scenario, mem, ids) in enumerate(K.built(typed, emb), start=1):
            keys = K.key_cover(ids)
            for n, cfg in variants.items():
                mem.recall_config = cfg
                K._run_scenario(mem, scenario, ids, keys, ["recall"], ks, reps[n])
            if i % 100 == 0:
                print("typed", i, len(scen), flush=True)
        for n, rep in reps.items():
            print(n, "recall", {k: round(v, 4) for k, v in rep.metric("recall", 3).items()}, flush=True)
        _won_lost(reps, ("recall",))
        for i, scenario in enumerate(remembered_scen, start=1):
            ids = {m["key"]: K._memory_id(scenario.id, m["key"]) for m in scenario.memories}
            remembered, covers = K.build_remembered(scenario, Path(tmp) / scenario.id, emb, extra)
            unsaid = K.unsaid_queries(scenario, K.closed_unsaid(scenario, remembered, covers))
            for rep in reps.values():
                rep.status_unsaid |= unsaid
            try:
                for n, cfg in variants.items():
                    remembered.recall_config = cfg
                    K._run_scenario(remembered, scenario, ids, covers, ["remember_recall"], ks, reps[n])
            finally:
                remembered.close()
            if i % 50 == 0:
                print("e2e", i, len(remembered_scen), flush=True)
                for n, rep in reps.items():
                    print(" ", n, "remember_recall",
                          {k: round(v, 4) for k, v in rep.metric("remember_recall", 3).items()}, flush=True)
                _won_lost(reps, ("remember_recall",))  # so far: a run cut short still tells
    for n, rep in reps.items():
        for system in ("recall", "remember_recall"):
            print(n, system, *(part for k in ks for part in
                               (f"@{k}", {m: round(v, 4) for m, v in rep.metric(system, k).items()})), flush=True)
        print(n, "remember_recall without the status no utterance gives", len(rep.status_unsaid), "left out",
              {m: round(v, 4) for m, v in rep.metric("remember_recall", 3, said_only=True).items()}, flush=True)
    _won_lost(reps, ("recall", "remember_recall"))


def _won_lost(reps: dict[str, K.Report], systems: tuple[str, ...]) -> None:
    """Per query won / lost against base at k=3 (isolation), each system."""
    base = reps["base"]
    for n, rep in reps.items():
        if n == "base":
            continue
        for system in systems:
            b = {(r.scenario, r.query): r.outcome.isolated for r in base.rows if r.system == system and r.k == 3}
            v = {(r.scenario, r.query): r.outcome.isolated for r in rep.rows if r.system == system and r.k == 3}
            won = sum(1 for key, ok in v.items() if ok and not b.get(key))
            lost = sum(1 for key, ok in v.items() if b.get(key) and not ok)
            print(n, system, "isolated@3 won", won, "lost", lost, flush=True)


def main() -> None:
    variants: dict[str, RecallConfig] = {"base": RecallConfig()}
    for arg in sys.argv[2:]:
        name, _, spec = arg.partition("=")
        changes: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(spec).items()}
        variants[name] = RecallConfig().with_(**changes)
    compare(sys.argv[1], variants)


if __name__ == "__main__":
    main()
