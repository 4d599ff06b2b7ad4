"""mnemir.store.migrate: SQLite -> PostgreSQL -> SQLite copies every record, vector, relationship and history entry
(hard-deleted memories' histories included) exactly, and a run interrupted midway resumes where it stopped."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from store_cases import MODEL, T0, open_backend, random_gadget, record, unit

from mnemir.errors import ValidationError
from mnemir.ir import Action, HistoryEntry
from mnemir.store.base import Store, Write
from mnemir.store.migrate import EVERYTHING, PROGRESS_KEY, history_ids, migrate


class Stop(Exception):
    pass


def fill(store: Store, n: int = 90) -> None:
    rnd = random.Random(3)
    records = [random_gadget(i, rnd) for i in range(n)]
    linked = record("linked", "Fact", {"entity": "上海"}, id="f-link",
                    relationships=[{"relation": "about", "target": records[0].id, "properties": {"w": 1}}])
    records.append(linked)
    writes = []
    for i, (r, v) in enumerate(zip(records, unit(np.random.default_rng(3), len(records)), strict=True)):
        history = [HistoryEntry(memory_id=r.id, at=T0 + timedelta(minutes=j), action=Action.updated,
                                reason=f"change {j}", after={"n": i}) for j in range(i % 3)]
        writes.append(Write(r, v, history))
    store.write(writes, model_id=MODEL)
    gone = records[5]
    store.write([Write(gone, None, [HistoryEntry(memory_id=gone.id, at=T0, action=Action.deleted)])],
                model_id=MODEL, delete_ids=[gone.id])


def dump(store: Store) -> dict[str, Any]:
    """Everything the contract can read, in a comparable form."""
    rows = sorted(store.iter_select(EVERYTHING), key=lambda r: r.id)
    ids = [r.id for r in rows]
    every = history_ids(store)
    return {
        "records": [r.model_dump(mode="json") for r in rows],
        "vectors": {i: v.tobytes() for i, v in store.vectors(ids).items()},
        "histories": {i: [h.model_dump(mode="json") for h in hs] for i, hs in store.histories(every).items()},
        "edges": [(e.source, e.relation, e.target, e.properties) for e in store.edges(ids)],
        "model": store.model_id,
    }


def test_round_trip_with_an_interruption(tmp_path: Path) -> None:
    source = open_backend("sqlite", tmp_path, "source")
    fill(source)
    want = dump(source)
    assert want["edges"] and any(len(h) > 1 for h in want["histories"].values())
    assert set(want["histories"]) - {r["id"] for r in want["records"]}  # a hard-deleted memory's history
    pg = open_backend("postgres", tmp_path, "target")
    calls: list[int] = []

    def interrupt(phase: str, done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 3:
            raise Stop  # as a kill midway would

    with pytest.raises(Stop):
        migrate(source, pg, source_name="sqlite:source", batch=20, progress=interrupt)
    assert 0 < pg.count(EVERYTHING) < len(want["records"])
    done = migrate(source, pg, source_name="sqlite:source", batch=20)
    assert done.resumed and done.records == len(want["records"])
    assert dump(pg) == want
    again = migrate(source, pg, source_name="sqlite:source", batch=20)  # finished: nothing more to do
    assert again.records == len(want["records"]) and dump(pg) == want
    back = open_backend("sqlite", tmp_path, "back")
    migrate(pg, back, source_name="postgres:target", batch=33)
    assert dump(back) == want
    assert back.get_meta(PROGRESS_KEY) is not None
    for store in (source, pg, back):
        store.close()


def test_refuses_a_store_in_use(tmp_path: Path) -> None:
    source = open_backend("sqlite", tmp_path, "source")
    fill(source, 10)
    used = open_backend("sqlite", tmp_path, "used")
    used.write([Write(record("mine", "Fact", id="x1"), unit(np.random.default_rng(1))[0])], model_id=MODEL)
    with pytest.raises(ValidationError, match="already holds"):
        migrate(source, used, source_name="sqlite:source")
    other = open_backend("sqlite", tmp_path, "other")
    migrate(source, other, source_name="sqlite:source")
    with pytest.raises(ValidationError, match="another source"):
        migrate(source, other, source_name="sqlite:elsewhere")
    for store in (source, used, other):
        store.close()


def test_command_line(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner
    from postgres_cases import database_url

    from mnemir.cli import cli

    source = open_backend("sqlite", tmp_path, "source")
    fill(source, 30)
    want = dump(source)
    source.close()
    url = database_url(tmp_path, "cli")
    result = CliRunner().invoke(cli, ["--json", "migrate", "--from", f"sqlite:{tmp_path / 'source.db'}", "--to", url,
                                      "--batch", "7"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"records": len(want["records"]), "histories_of_deleted": 1,
                                         "resumed": False}
    pg = open_backend("postgres", tmp_path, "cli")
    assert dump(pg) == want
    pg.close()
