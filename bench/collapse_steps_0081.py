"""Collapse, typed recall over every scenario and end to end over those where a step may act (a query read as asking
about a choice, or naming a person the scenario's memories introduce), each scenario built once (typed) and
remembered once (end to end), then every query recalled with the steps of decision 0081 off (the behaviour before
them) and on (the defaults):

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/collapse_steps_0081.py dev

Prints isolation / collapse at k=3 and 5 for each (`collapse_variants.compare`). Never with ``test``."""
import sys

from collapse_variants import compare

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval._embedcache import cached
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.query_kinds import read_query
from mnemir.understand.people import asked_about, read_people

emb = cached(default_embedder())


def may_act(s: K.Scenario) -> bool:
    """End to end only where a step may act: a query read as asking about a choice, or naming a person the
    scenario's memories introduce (the asked-person step); the typed run covers every scenario."""
    people = read_people([str(m["text"]) for m in s.memories])
    return any(read_query(emb.embed_query(q.text), emb.model_id).asks_decision or asked_about(q.text, people)
               for q in s.queries)


compare(sys.argv[1] if len(sys.argv) > 1 else "dev",
        {"off": RecallConfig(decision_options=1.0, asked_person_fill=False), "on": RecallConfig()}, e2e=may_act, emb=emb)
