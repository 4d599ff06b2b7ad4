"""Check: governed typed writes on a large store decide as another checkout decides (a speed change must not change
what the lifecycle does).

    python bench/same_governed.py --compare /tmp/start/src                  # the 10k store of scale.py
    python bench/same_governed.py --compare /tmp/start/src --n 100000 --root /tmp/mnemir-scale

Each checkout runs in a process of its own (its ``src`` first on the path), ids made deterministic (``uuid4``
replaced by a counter), on a fresh copy of the store of N memories that ``scale.py`` builds (under ``--root``; built
there if missing). Written with their vectors given, half through ``add`` one record per call and the rest through
one ``add_many(govern=True)``: new facts (two per entity), repeats of earlier ones with their vector nudged (merges),
the same entity and attribute with a changed value (supersessions) and repeats of stored records of the store with
their own texts and vectors. Compared: every returned record, every write report's events (their messages hold the
similarities to two decimals), the final state and the whole history of every record involved, and the store's 5
nearest records (ids and scores) for every written vector, searched one query per call before any write. Exit
status 1 on any difference. Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _worker import add_options, run_both, verdict  # noqa: E402

SEED = 20261205


def worker(n: int, root: Path, copy: Path) -> dict[str, Any]:
    counter = iter(range(1, 1 << 62))
    uuid.uuid4 = lambda: uuid.UUID(int=next(counter))  # type: ignore[assignment]
    import numpy as np
    import scale

    import mnemir
    from mnemir.store.base import Selection
    from mnemir.store.sqlite import SQLiteStore

    path = scale.store_path(root, n)
    if not path.exists():
        scale.build(path, n, SEED)
    for file in path.parent.glob(path.name + "*"):  # the database, its log and the vector cache's file
        shutil.copy(file, copy.parent / file.name.replace(path.name, copy.name))
    onto = scale.ontology()
    store = SQLiteStore(copy, ontology=onto, ann=True)
    where = scale.centres(SEED)
    fresh = 120
    props = scale.chunk_props(SEED, 10**6 + 9, n, fresh)
    made = scale.chunk_vectors(SEED, 10**6 + 9, fresh, where)
    rng = np.random.default_rng(3)
    items: list[dict[str, Any]] = []
    vectors: list[Any] = []
    for j in range(fresh):
        r = scale.record_of(n + j, props, j)
        items.append({"text": r.content.text, "type": "Fact", "properties": {**r.properties, "entity": f"ing{j % 60}"},
                      "id": f"a{j}"})
        vectors.append(made[j])
    for j in range(0, fresh, 3):  # repeats, the vector nudged
        v = made[j] + rng.normal(0, 0.01, made[j].shape).astype(np.float32)
        items.append({**items[j], "id": f"r{j}"})
        vectors.append(v / np.linalg.norm(v))
    for j in range(1, fresh, 7):  # the same entity and attribute, another value
        items.append({**items[j], "id": f"c{j}", "properties": {**items[j]["properties"], "value": f"changed {j}"}})
        vectors.append(made[j])
    held = store.select(Selection(user_id=scale.USER, types=("Fact",)), limit=40)
    held_vectors = store.vectors([r.id for r in held], user=scale.USER)
    for r in held:  # repeats of stored records
        items.append({"text": r.content.text, "type": "Fact", "properties": dict(r.properties), "id": f"h-{r.id}"})
        vectors.append(held_vectors[r.id])
    # the duplicate search each write starts from, asked of the store before any write (one query per call)
    scope = Selection(user_id=scale.USER, types=("Fact",))
    searched = [store.vector_search(scope, v, 5) for v in vectors]
    texts: dict[str, Any] = {}
    for item, v in zip(items, vectors, strict=True):
        texts.setdefault(item["text"], v)
    mem = mnemir.Memory(store, embedder=scale.LookupEmbedder(texts), ontology=onto, config=mnemir.MemoryConfig())
    calls: list[Any] = []

    def events() -> list[dict[str, Any]]:
        report = mem.last_write_report
        return [vars(e) for e in report.events] if report is not None else []

    half = len(items) // 2
    for item, v in zip(items[:half], vectors[:half], strict=True):
        got = mem.add(item["text"], "Fact", item["properties"], user=scale.USER, id=item["id"], now=scale.NOW,
                      vector=v)
        calls.append(["add", got.to_dict(), events()])
    stored = mem.add_many(items[half:], user=scale.USER, vectors=np.vstack(vectors[half:]), govern=True, now=scale.NOW)
    calls.append(["add_many", [r.to_dict() for r in stored], events()])
    ids = sorted({item["id"] for item in items} | {r.id for r in held})
    final = [r.to_dict() for r in store.fetch(ids)]
    history = [[h.model_dump(mode="json") for h in store.history(i)] for i in ids]
    store.close()
    kinds: dict[str, int] = {}
    for call in calls:
        for event in call[2]:
            kinds[event["kind"]] = kinds.get(event["kind"], 0) + 1
    blob = json.dumps([searched, calls, final, history], sort_keys=True, default=str)
    return {"digest": hashlib.sha256(blob.encode()).hexdigest(), "events": kinds, "writes": len(items),
            "searched": searched, "calls": calls, "final": final, "history": history}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="the store size (scale.py's store)")
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"), help="where scale.py's stores are")
    add_options(parser, same=True)
    args = parser.parse_args(argv)
    if args.worker:
        args.out.write_text(json.dumps(worker(args.n, args.root, args.out.with_suffix(".db")), default=str))
        return 0
    if not args.compare:
        parser.error("--compare SRC is required")
    results = run_both(__file__, args.compare, ["--n", str(args.n), "--root", str(args.root)])
    if isinstance(results, int):
        return results
    a, b = results
    print(f"{a['writes']} governed writes on {args.n:,} memories; events {a['events']} (this checkout) vs "
          f"{b['events']}; digest {a['digest'][:16]} vs {b['digest'][:16]}")
    return verdict(a, b, ("searched", "calls", "final", "history"))


if __name__ == "__main__":
    raise SystemExit(main())
