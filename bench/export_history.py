"""Benchmark: reading memories' histories for export, one query per record vs one query per batch.

Records (with two history entries each) are written straight through the store contract with random unit vectors;
then, side by side in one run, every record's history is read with ``store.history(id)`` (one query per record, what
``export_jsonl`` did before) and with ``store.histories(ids)`` in batches of ``IMPORT_BATCH`` (what it does now), and
a whole ``export_jsonl`` is timed once.

    .venv/bin/python bench/export_history.py                  # 20k records, SQLite
    .venv/bin/python bench/export_history.py --n 100000
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

import mnemir
from mnemir.embed.base import normalize_rows
from mnemir.ir import Action, Content, HistoryEntry, MemIR, Metadata, Scope
from mnemir.memory.core import IMPORT_BATCH
from mnemir.store.base import Write

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def build(mem: mnemir.Memory, n: int) -> list[str]:
    rng = np.random.default_rng(0)
    ids: list[str] = []
    for start in range(0, n, 2000):
        writes = []
        for i in range(start, min(start + 2000, n)):
            at = NOW - timedelta(minutes=i)
            rec = MemIR(content=Content(text=f"memory {i} about things"), type="Fact",
                        properties={"entity": f"e{i % 97}", "attribute": "a", "value": str(i)},
                        scope=Scope(user_id="u"), metadata=Metadata(created_at=at, updated_at=at))
            history = [HistoryEntry(memory_id=rec.id, at=at, action=Action.created),
                       HistoryEntry(memory_id=rec.id, at=at + timedelta(seconds=1), action=Action.updated)]
            vec = normalize_rows(rng.normal(size=(1, mem.embedder.dim)).astype(np.float32))[0]
            writes.append(Write(rec, vec, history))
            ids.append(rec.id)
        mem.store.write(writes, model_id=mem.embedder.model_id)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mem = mnemir.open(Path(tmp) / "bench")
        ids = build(mem, args.n)
        started = time.perf_counter()
        one_by_one = sum(len(mem.store.history(i)) for i in ids)
        per_record = time.perf_counter() - started
        started = time.perf_counter()
        batched = sum(len(entries) for b in range(0, len(ids), IMPORT_BATCH)
                      for entries in mem.store.histories(ids[b:b + IMPORT_BATCH]).values())
        per_batch = time.perf_counter() - started
        assert one_by_one == batched == 2 * args.n
        started = time.perf_counter()
        written = mem.export_jsonl(io.StringIO(), user="u", with_embeddings=False)
        export = time.perf_counter() - started
        mem.close()
    print(f"{args.n} records, {2 * args.n} history entries, SQLite")
    print(f"history(id) per record          {per_record * 1000:9.1f} ms")
    print(f"histories(ids) per {IMPORT_BATCH} records  {per_batch * 1000:9.1f} ms   "
          f"({per_record / per_batch:.1f} x faster)")
    print(f"export_jsonl ({written} records)   {export * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
