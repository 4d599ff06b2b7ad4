"""What the tail (``plain_tail_said``) brings into dialogue QA at k = 10: for every question a variant finds and the
base does not (won) or the base finds and the variant does not (lost), the memories new in the variant's top k that
show an evidence turn, counted by how they came (a stand-in for a ruled-out reading, and which ruling; a kept place)
and by the ruled-out reading's type, its extraction confidence and dialogue act (compare ``bench/tail_harm.py``).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/tail_gain.py SPLIT MODE 'VARIANT={...}'

Never with ``test``."""
import collections
import json
import sys
import tempfile
from pathlib import Path

from tail_harm import STOOD, reading_of, report_readings, ruling

from mnemir.embed import default_embedder
from mnemir.eval import dialogue_qa as D
from mnemir.eval import locomo as L
from mnemir.eval._embedcache import cached
from mnemir.retrieve import RecallConfig


def main() -> None:
    split, mode, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    if split == "test":
        raise SystemExit("the test split is run by the lead only (docs/EVALUATION.md)")
    name, _, js = spec.partition("=")
    configs = {"base": RecallConfig(), name: RecallConfig().with_(**json.loads(js))}
    emb = cached(default_embedder())
    samples = [c.sample(mode) for c in D.load(split)]
    emb.prefetch([t.text for s in samples for t in s.turns], [q.text for s in samples for q in s.questions])
    counts: collections.Counter[str] = collections.Counter()
    confidences: list[float] = []
    acts: collections.Counter[str] = collections.Counter()
    won = lost = n = 0
    with tempfile.TemporaryDirectory(prefix="tail-gain-") as tmp:
        for i, sample in enumerate(samples):
            built = L.build_remembered(sample, Path(tmp) / f"r{i}", emb)
            try:
                for q in sample.questions:
                    n += 1
                    out, hit = {}, {}
                    for label, cfg in configs.items():
                        built.mem.recall_config = cfg
                        r = built.mem.recall(q.text, user=L._user(sample), k=10, now=sample.end)
                        out[label] = r
                        hit[label] = L.judge([built.turns.get(h.id, frozenset()) for h in r.hits], q.evidence, 10)[0]
                    lost += hit["base"] and not hit[name]
                    if not hit[name] or hit["base"]:
                        continue
                    won += 1
                    r = out[name]
                    before = {h.id for h in out["base"].hits}
                    stood = {m.group(3) or m.group(1): (m.group(1), m.group(2))
                             for note in r.notes if (m := STOOD.search(note))}
                    for h in r.hits:
                        if h.id in before or not set(built.turns.get(h.id, frozenset())) & set(q.evidence):
                            continue
                        if h.id in stood:
                            read_id, why = stood[h.id]
                            read = built.mem.store.get(read_id)
                            key = f"stand-in / {ruling(why)} / read {read.type} / intent {r.intent.kind}"
                            reading_of(read, confidences, acts, built.mem.store)
                        else:
                            key = f"kept place / {h.memory.type} / intent {r.intent.kind}"
                        counts[key] += 1
            finally:
                built.mem.close()
    print(f"{split} {mode}: {n} questions; {name} vs base @10: won {won}, lost {lost}")
    for key, c in counts.most_common():
        print(f"{c:4d}  {key}")
    report_readings(confidences, acts)


if __name__ == "__main__":
    main()
