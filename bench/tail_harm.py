"""What the tail (``plain_tail_said``) brings into collapse end to end at k = 10: for every query that a variant
collapses and the base does not, the memories new in its top k that show a forbidden key, counted by how they came
(a stand-in for a ruled-out reading, and which ruling; a kept place) and by what was read from the utterance (the
ruled-out memory's type and status; the forbidden key's labelled type).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/tail_harm.py SPLIT 'VARIANT={...}' [EVERY]

Never with ``test``."""
import collections
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from mnemir.embed import default_embedder
from mnemir.eval import collapse as K
from mnemir.eval._embedcache import cached
from mnemir.retrieve import RecallConfig

STOOD = re.compile(r"plain search's match (\S+) \(rank \d+\) is ruled out as read \((.*)\); (?:what was said|the "
                   r"utterance it was read from \((\S+)\)) keeps its place")


def ruling(why: str) -> str:
    if "only a feeling was read" in why:
        return "felt utterance"
    if "a task is not" in why:
        return "task ruled out"
    if "a feeling is not" in why:
        return "feeling ruled out"
    return "other"


def reading_of(read: Any, confidences: list[float], acts: collections.Counter[str], store: Any = None) -> None:
    """The extraction's confidence and dialogue act of a ruled-out reading (an episode: its own act, no confidence)."""
    extra = read.metadata.extra
    acts[str(extra.get("dialogue_act"))] += 1
    if "extraction" in extra:
        confidences.append(float(extra["extraction"]["confidence"]))
    elif read.type == "Episode" and store is not None:  # an utterance only a feeling was read from: the feeling's
        ids = [e.source for e in store.edges([read.id], relations=["derived_from"], direction="in")]
        sure = [float(r.metadata.extra["extraction"]["confidence"]) for r in store.fetch(ids)
                if r.type == "EmotionalState" and "extraction" in r.metadata.extra]
        if sure:
            confidences.append(max(sure))


def report_readings(confidences: list[float], acts: collections.Counter[str]) -> None:
    print("dialogue acts of the ruled-out readings:", dict(acts.most_common()))
    cuts = (0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
    low = 0.0
    spread = []
    for cut in cuts:
        spread.append(f"[{low:.1f},{min(cut, 1.0):.1f}): {sum(low <= c < cut for c in confidences)}")
        low = cut
    print("extraction confidence of the ruled-out readings:", ", ".join(spread))
    print("  each:", " ".join(f"{c:.2f}" for c in sorted(confidences)))


def main() -> None:
    split, spec = sys.argv[1], sys.argv[2]
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    name, _, js = spec.partition("=")
    variant = RecallConfig().with_(**json.loads(js))
    base = RecallConfig()
    emb = cached(default_embedder())
    scen = list(K.load(split))[::every]
    emb.prefetch([str(m["text"]) for m in K.noise()] + [str(m["text"]) for s in scen for m in s.memories],
                 [q.text for s in scen for q in s.queries])
    counts: collections.Counter[str] = collections.Counter()
    lost = won = n = 0
    confidences: list[float] = []
    acts: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="tail-harm-") as tmp:
        for scenario in scen:
            mem, covers = K.build_remembered(scenario, Path(tmp) / scenario.id, emb, K.noise())
            types = {m["key"]: m["type"] for m in scenario.memories}
            try:
                for query in scenario.queries:
                    n += 1
                    out = {}
                    for label, cfg in (("base", base), (name, variant)):
                        mem.recall_config = cfg
                        r = mem.recall(query.text, user=K.USER, k=10, now=scenario.now)
                        out[label] = r
                    judged = {lb: K.judge_covered([covers.get(h.id, frozenset()) for h in r.hits], query, 10)
                              for lb, r in out.items()}
                    if judged[name].isolated and not judged["base"].isolated:
                        won += 1
                    if not (judged[name].collapsed and not judged["base"].collapsed):
                        continue
                    lost += 1
                    r = out[name]
                    before = {h.id for h in out["base"].hits}
                    stood = {m.group(3) or m.group(1): (m.group(1), m.group(2))
                             for note in r.notes if (m := STOOD.search(note))}
                    for h in r.hits:
                        bad = set(covers.get(h.id, frozenset())) & set(query.forbidden)
                        if h.id in before or not bad:
                            continue
                        labelled = ",".join(sorted(types.get(b, "?") for b in bad))
                        if h.id in stood:
                            read_id, why = stood[h.id]
                            read = mem.store.get(read_id)
                            key = f"stand-in / {ruling(why)} / read {read.type} ({read.status.value}) / " \
                                  f"labelled {labelled} / intent {r.intent.kind}"
                            reading_of(read, confidences, acts, mem.store)
                        else:
                            key = f"kept place / {h.memory.type} ({h.memory.status.value}) / labelled {labelled}"
                        counts[key] += 1
            finally:
                mem.close()
    print(f"{split} every {every}: {n} queries; {name} vs base @10: isolation won {won}, collapse lost {lost}")
    for key, c in counts.most_common():
        print(f"{c:4d}  {key}")
    report_readings(confidences, acts)


if __name__ == "__main__":
    main()
