"""Same answers: run a bench (collapse_variants.py, dialogue_qa_variants.py ...) with every ``mem.recall`` made twice
on the same store, under the shipped code and under a reference implementation of one of its steps, and count the
recalls whose results differ (hits, scores, roles, context, notes: ``Recall.to_dict()``).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/recall_same_answers.py bench/collapse_variants.py dev
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/recall_same_answers.py bench/dialogue_qa_variants.py \
        dev unlabelled /tmp/dqa.json

The reference here is decision 0109's: "what is still open" reading every reading of the candidates' utterances
and dropping those of an utterance read into more than ``SIBLINGS_AT_MOST`` memories afterwards (the code before
``Store.edge_counts``). ``REFERENCE=takers`` (environment): decision 0107's reading of the takers beyond the pool,
every reading of every utterance in the pool (before decision 0112 counted them first). Never with ``test`` (the
bench refuses it too).
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from collections import Counter
from collections.abc import Mapping
from typing import Any

from mnemir.memory import recall as memory_recall
from mnemir.retrieve import judgements as J
from mnemir.retrieve import recall as R


def reference_completed_elsewhere(store: Any, pool: Mapping[str, Any]) -> dict[str, str]:
    """:func:`mnemir.retrieve.judgements.completed_elsewhere` as it was before it counted the readings first."""
    groups: dict[str, list[str]] = {}
    for mid, c in pool.items():
        groups.setdefault(J.utterance_of(c.record), []).append(mid)
    done = {e.target: e.source for e in store.edges(list(groups), relations=[J.COMPLETES], direction="in")}
    out = {mid: f"a later report said this work was done ({done[group]})"
           for group, ids in groups.items() if group in done for mid in ids}
    if not J.CLOSED_WORK_SIBLINGS:
        return out
    edges = store.edges([g for g in groups if g not in done], relations=[J.DERIVED_FROM], direction="in")
    counts = Counter(e.target for e in edges)
    edges = [e for e in edges if counts[e.target] <= J.SIBLINGS_AT_MOST]
    readings = {r.id: r for r in store.fetch(list({e.source for e in edges}))}
    work: dict[str, list[str]] = {}
    for e in edges:
        record = readings.get(e.source)
        if record is not None and record.type in J.TASK_TYPES and str(record.status) in ("active", "disputed"):
            work.setdefault(e.target, []).append(J.task_status(record) or "pending")
    for group, statuses in work.items():
        if all(s in J.CLOSED_STATUSES for s in statuses):
            out.update((mid, "read from an utterance whose work is all closed") for mid in groups[group]
                       if pool[mid].record.type not in J.TASK_TYPES)
    return out


def reference_takers_beyond(store: Any, pool: Mapping[str, Any], by: dict[str, list[tuple[Any, str]]],
                             qvec: Any) -> None:
    """:func:`mnemir.retrieve.judgements._takers_beyond` as it was before it counted the readings first."""
    groups = {J.utterance_of(c.record) for c in pool.values()}
    readings = {e.source for e in store.edges(list(groups), relations=[J.DERIVED_FROM], direction="in")}
    edges = [e for e in store.edges(list(groups | readings), relations=list(J.TAKES_BACK), direction="in")
             if e.source not in pool]
    if not edges:
        return
    users = {c.record.scope.user_id for c in pool.values()}
    takers = {r.id: r for r in store.fetch(list({e.source for e in edges}))
              if r.status in J.LIVE_STATUSES and r.scope.user_id in users}
    vectors = store.vectors(list(takers))
    for e in edges:
        record, vector = takers.get(e.source), vectors.get(e.source)
        if record is None or vector is None:
            continue
        by.setdefault(e.target, []).append((J.Candidate(record, similarity=float(J.np.dot(vector, qvec))),
                                            e.relation))


STATS = Counter[str]()


def main() -> None:
    if "test" in sys.argv[2:]:
        raise SystemExit("never with the test split")
    takers = os.environ.get("REFERENCE") == "takers"
    owner, name = (J, "_takers_beyond") if takers else (R, "completed_elsewhere")
    reference_step = reference_takers_beyond if takers else reference_completed_elsewhere
    shipped_step, shipped_recall = getattr(owner, name), memory_recall.role_aware_recall

    def twice(*args: Any, **kwargs: Any) -> Any:
        result = shipped_recall(*args, **kwargs)
        setattr(owner, name, reference_step)
        try:
            reference = shipped_recall(*args, **kwargs)
        finally:
            setattr(owner, name, shipped_step)
        STATS["recalls"] += 1
        STATS["open work"] += getattr(result.intent, "kind", None) == "open_tasks"
        same = json.dumps(result.to_dict(), sort_keys=True, default=str) == \
            json.dumps(reference.to_dict(), sort_keys=True, default=str)
        STATS["same" if same else "differ"] += 1
        return result

    memory_recall.role_aware_recall = twice
    target, sys.argv = sys.argv[1], sys.argv[1:]
    try:
        runpy.run_path(target, run_name="__main__")
    finally:
        print("same answers:", dict(STATS), flush=True)


if __name__ == "__main__":
    main()
