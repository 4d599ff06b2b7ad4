"""Backup: an export taken while another writer keeps writing is one consistent snapshot, and importing it into an
empty store reproduces it exactly (ids, records, history, vectors): exporting the copy gives the same bytes."""

from __future__ import annotations

import io
import json
import threading
import time
from typing import Any

from tests.conftest import NOW
from tests.reliability.conftest import OpenMemory

import mnemir


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_an_export_during_writes_is_a_snapshot_and_imports_back_exactly(open_mem: OpenMemory) -> None:
    mem = open_mem("live")
    counter = mem.add("the counter", "Fact", {"entity": "counter", "attribute": "n", "value": "0"}, user="u", now=NOW)
    seed = [{"memir_version": "1.0", "id": f"mem_seed_{i:04d}", "type": "Fact", "scope": {"user_id": "u"},
             "content": {"text": f"note {i} about the garden"},
             "properties": {"entity": "user", "attribute": f"note{i}", "value": str(i)},
             "metadata": {"created_at": NOW.isoformat()}} for i in range(300)]  # several pages of the export
    mem.import_jsonl(io.StringIO("".join(json.dumps(line) + "\n" for line in seed)))
    writer_mem = open_mem("live")  # another connection: a second program writing the same store
    stop = threading.Event()
    written: list[int] = []
    errors: list[BaseException] = []

    def write() -> None:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                writer_mem.update(counter.id, properties={"value": str(n)}, user="u")
                writer_mem.add(f"written during the export {n}", "Fact",
                               {"entity": "user", "attribute": f"during{n}", "value": str(n)}, user="u")
                written.append(n)
                time.sleep(0.005)  # leave the exporting thread some of the GIL
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        while len(written) < 2:
            time.sleep(0.01)
        first = io.StringIO()
        mem.export_jsonl(first, with_embeddings=True)
        after_export = len(written)
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not errors, errors
    assert after_export > 2 or len(written) > 2  # the writer did write around the export

    lines = _lines(first.getvalue())
    header, records = lines[0], [x for x in lines if x.get("kind", "memory") == "memory"]
    assert header["records"] == len(records)  # counted and written from the same state
    history = [x for x in lines if x.get("kind") == "history"]
    (snap,) = [r for r in records if r["id"] == counter.id]
    updates = [h for h in history if h["memory_id"] == counter.id and h["action"] == "updated"]
    assert int(snap["properties"]["value"]) == len(updates)  # the record and its history from the same instant
    during = {int(r["properties"]["value"]) for r in records if r["properties"]["attribute"].startswith("during")}
    assert during == set(range(1, len(during) + 1))  # writes in order, none half-seen
    assert all(r.get("embedding") for r in records)

    copy = open_mem("copy")
    assert copy.import_jsonl(io.StringIO(first.getvalue())) == len(records)
    second = io.StringIO()
    copy.export_jsonl(second, with_embeddings=True)
    assert second.getvalue() == first.getvalue()  # same ids, records, history and vectors, byte for byte
    assert copy.check().ok and mem.check().ok


def test_import_into_an_empty_store_keeps_vectors_bit_for_bit(open_mem: OpenMemory) -> None:
    mem = open_mem("a")
    rec = mem.add("我喜欢在周末去爬山", "Preference", {"subject": "爬山", "preference_type": "like"}, user="u", now=NOW)
    out = io.StringIO()
    mem.export_jsonl(out)
    copy = open_mem("b")
    copy.import_jsonl(io.StringIO(out.getvalue()))
    a, b = mem.store.vectors([rec.id])[rec.id], copy.store.vectors([rec.id])[rec.id]
    assert a.tobytes() == b.tobytes()
    assert copy.history(rec.id, user="u") == mem.history(rec.id, user="u")
    assert isinstance(copy, mnemir.Memory)
