"""Copy a store to another backend (SQLite -> PostgreSQL and back), losslessly, in batches, resumable.

Everything goes through the store contract, so any pair of backends works:

1. **records** in the order (created_at, id), ``batch`` at a time: each record with its vector and its whole
   history, written in one transaction of the target (relationships are part of the record);
2. **histories of hard-deleted memories** (history rows whose memory no longer exists), by memory id, written as
   history only.

After every batch the target's meta ``migrate.progress`` records the source and where the copy stands; a run that
finds it continues from there (an interrupted run loses at most the batch in flight, and writing a batch again is
harmless: records are replaced, history entries are keyed by their own id). A target that already holds records
and no progress marker from this source is refused: a migration never merges into a store in use.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir import MemIR, MemoryStatus
from mnemir.store.base import ANY, Selection, Store, Write

PROGRESS_KEY = "migrate.progress"
EVERYTHING = Selection(user_id=ANY, statuses=tuple(MemoryStatus))

#: (phase, copied so far, total) -> None; may raise to stop the run (it can be resumed)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Migrated:
    records: int
    histories: int
    resumed: bool


def history_ids(store: Store) -> list[str]:
    """Every memory id that has history in ``store``, sorted (the contract reads histories by id only)."""
    from mnemir.store.sqlite import SQLiteStore

    sql = "SELECT DISTINCT memory_id FROM history ORDER BY memory_id"
    if isinstance(store, SQLiteStore):
        return [r for (r,) in store._db.read("migrate (history ids)", lambda conn: conn.execute(sql).fetchall())]
    from mnemir.store.postgres import PostgresStore

    if isinstance(store, PostgresStore):
        def body(cur: Any) -> list[str]:
            cur.execute(sql)
            return [r for (r,) in cur.fetchall()]

        return store._db.read("migrate (history ids)", body)
    raise ValidationError("no way to list the histories of this backend", field="source", value=repr(store))


def migrate(source: Store, target: Store, *, source_name: str, batch: int = 500,
            progress: Progress | None = None) -> Migrated:
    """Copy ``source`` into ``target`` (see the module doc). ``source_name`` identifies the source in the target's
    progress marker (a resumed run must name the same source)."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValidationError("batch must be a whole number >= 1", field="batch", value=batch)
    state = _progress(target, source_name)
    resumed = state is not None
    state = state or {"source": source_name, "phase": "records", "after": None, "records": 0, "histories": 0}
    model = source.model_id
    total = source.count(EVERYTHING)
    report = progress or (lambda phase, done, of: None)
    if state["phase"] == "records":
        after = (_time(state["after"][0]), state["after"][1]) if state["after"] else None
        while True:
            rows = source.select(EVERYTHING, order_by=[("@created_at", True)], limit=batch, _after=after)
            if rows:
                _copy(source, target, rows, model)
                after = (rows[-1].metadata.created_at, rows[-1].id)
                state.update(after=[after[0].isoformat(), after[1]], records=state["records"] + len(rows))
                _save(target, state)
                report("records", state["records"], total)
            if len(rows) < batch:
                break
        state.update(phase="histories", after=None)
        _save(target, state)
    if state["phase"] == "histories":
        kept = {r.id for r in source.iter_select(EVERYTHING, batch=max(batch, 1000))}
        orphans = [i for i in history_ids(source) if i not in kept and (state["after"] is None or i > state["after"])]
        for lo in range(0, len(orphans), batch):
            chunk = orphans[lo : lo + batch]
            found = source.histories(chunk)
            writes = [Write(_placeholder(mid), None, found[mid]) for mid in chunk if mid in found]
            if writes:
                target.write(writes, model_id=model or "none", delete_ids=[w.record.id for w in writes])
            state.update(after=chunk[-1], histories=state["histories"] + len(chunk))
            _save(target, state)
            report("histories", state["histories"], len(orphans))
        state.update(phase="done", after=None)
        _save(target, state)
    return Migrated(int(state["records"]), int(state["histories"]), resumed)


def _copy(source: Store, target: Store, rows: list[MemIR], model: str | None) -> None:
    ids = [r.id for r in rows]
    vectors = source.vectors(ids)
    histories = source.histories(ids)
    missing = [i for i in ids if i not in vectors]
    if missing or model is None:
        raise ValidationError("a record has no vector of the store's model; re-embed it before migrating",
                              field="vectors", value=missing[:5], allowed=f"vectors of {model!r}")
    target.write([Write(r, vectors[r.id], histories.get(r.id, [])) for r in rows], model_id=model)


def _placeholder(memory_id: str) -> MemIR:
    """A record that is never stored: it carries the id of a deleted memory whose history is copied."""
    return MemIR.model_validate({"id": memory_id, "content": {"text": "deleted"}, "type": "Fact"})


def _progress(target: Store, source_name: str) -> dict[str, Any] | None:
    raw = target.get_meta(PROGRESS_KEY)
    if raw is not None:
        state: dict[str, Any] = json.loads(raw)
        if state.get("source") != source_name:
            raise ValidationError("the target holds a migration from another source", field="target",
                                  value=state.get("source"), allowed=source_name)
        return state
    if target.count(EVERYTHING):
        raise ValidationError("the target store already holds memories; migrate into an empty store",
                              field="target", value=target.count(EVERYTHING), allowed="an empty store")
    return None


def _save(target: Store, state: dict[str, Any]) -> None:
    target.set_meta(PROGRESS_KEY, json.dumps(state))


def _time(text: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text)
