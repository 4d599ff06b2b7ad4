"""Collapse, typed recall over every scenario and end to end over those where a step may act (a query read as asking
about a choice, or naming a person the scenario's memories introduce), each scenario built once (typed) and
remembered once (end to end), then every query recalled with the steps of decision 0081 off (the behaviour before
them) and on (the defaults):

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/collapse_steps_0081.py dev

Prints isolation / collapse at k=3 for each. Never with ``test``."""
import sys
import tempfile
from pathlib import Path

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval._embedcache import cached
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.query_kinds import read_query
from mnemir.understand.people import asked_about, read_people

split = sys.argv[1] if len(sys.argv) > 1 else "dev"
if split == "test":
    raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
emb = cached(default_embedder())
scen = list(K.load(split))
emb.prefetch([str(m["text"]) for m in K.noise()] + [str(m["text"]) for s in scen for m in s.memories],
             [q.text for s in scen for q in s.queries])
CFG = {"off": RecallConfig(decision_options=1.0, asked_person_fill=False), "on": RecallConfig()}
ks = (3, 5)
# end to end only where a step may act: a query read as asking about a choice, or naming a person the scenario's
# memories introduce (the asked-person step); the typed run covers every scenario
def may_act(s: K.Scenario) -> bool:
    people = read_people([str(m["text"]) for m in s.memories])
    return any(read_query(emb.embed_query(q.text), emb.model_id).asks_decision or asked_about(q.text, people)
               for q in s.queries)


e2e = [s for s in scen if may_act(s)]
print(len(scen), "scenarios,", len(e2e), "end to end", flush=True)
reps = {n: K.Report(split, ks, len(scen), sum(len(s.queries) for s in scen), systems=("recall", "remember_recall"))
        for n in CFG}
extra = K.noise()
with tempfile.TemporaryDirectory(prefix="s22-collapse-") as tmp:
    for i, (scenario, mem, ids) in enumerate(K.built(scen, emb), start=1):
        keys = K.key_cover(ids)
        for n, cfg in CFG.items():
            mem.recall_config = cfg
            K._run_scenario(mem, scenario, ids, keys, ["recall"], ks, reps[n])
        if i % 100 == 0:
            print("typed", i, len(scen), flush=True)
    for n, rep in reps.items():
        print(n, "recall", {k: round(v, 4) for k, v in rep.metric("recall", 3).items()}, flush=True)
    for i, scenario in enumerate(e2e, start=1):
        ids = {m["key"]: K._memory_id(scenario.id, m["key"]) for m in scenario.memories}
        remembered, covers = K.build_remembered(scenario, Path(tmp) / scenario.id, emb, extra)
        try:
            for n, cfg in CFG.items():
                remembered.recall_config = cfg
                K._run_scenario(remembered, scenario, ids, covers, ["remember_recall"], ks, reps[n])
        finally:
            remembered.close()
        if i % 20 == 0:
            print("e2e", i, len(e2e), flush=True)
            for n, rep in reps.items():
                print(" ", n, "remember_recall", {k: round(v, 4) for k, v in rep.metric("remember_recall", 3).items()},
                      flush=True)
for n, rep in reps.items():
    for system in ("recall", "remember_recall"):
        print(n, system, {k: round(v, 4) for k, v in rep.metric(system, 3).items()}, flush=True)
