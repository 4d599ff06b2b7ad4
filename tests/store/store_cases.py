"""Shared material for the store tests: an ontology covering every property kind, record factories, vectors."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mnemir.embed.base import Vectors
from mnemir.ir import MemIR, MemoryStatus
from mnemir.ontology import Ontology, PropertySpec, TypeDef
from mnemir.store.base import Store

#: every conformance test runs against each backend here (PostgreSQL: a real embedded server, started once per
#: session in about a second, so it is not marked and runs in ``make test``)
BACKENDS = [pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres")]

#: open_store("name", **options) -> a store of the current backend
OpenStore = Callable[..., Store]

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
MODEL = "test-random-16"
DIM = 16


def gadget_type() -> TypeDef:
    """A user type with every kind, each both as a core (indexed) and a JSON-only property."""
    P = PropertySpec
    props = [
        P("code", "str", core=True), P("note", "str"),
        P("size", "int", core=True), P("count", "int"),
        P("weight", "float", core=True), P("ratio", "float"),
        P("flag", "bool", core=True), P("lit", "bool"),
        P("made", "datetime", core=True), P("seen", "datetime"),
        P("due", "date_or_datetime", core=True), P("until", "date_or_datetime"),
        P("tags", "list", core=True), P("labels", "list"),
        P("blob", "json", core=True), P("extra", "json"),
    ]
    return TypeDef("Gadget", "a test type covering every property kind", {p.name: p for p in props})


def make_ontology() -> Ontology:
    onto = Ontology()
    onto.register(gadget_type())
    return onto


ONTOLOGY = make_ontology()


def open_backend(backend: str, directory: Path, name: str = "store", *, ontology: Ontology | None = None,
                 **options: Any) -> Store:
    """Open (or reopen: same directory and name) a store of ``backend``."""
    if backend == "sqlite":
        from mnemir.store.sqlite import SQLiteStore

        return SQLiteStore(directory / f"{name}.db", ontology=ontology or ONTOLOGY, **options)
    if backend == "postgres":  # a real server for the session, a database per (directory, name): postgres_cases.py
        from postgres_cases import database_url

        from mnemir.store.postgres import PostgresStore

        return PostgresStore(database_url(directory, name), ontology=ontology or ONTOLOGY, **options)
    raise AssertionError(f"no way to open backend {backend}")  # pragma: no cover


def unit(rng: np.random.Generator, n: int = 1, dim: int = DIM) -> Vectors:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def record(text: str = "a memory", type: str = "Fact", properties: dict[str, Any] | None = None, *,
           user: str | None = "alice", agent: str | None = None, session: str | None = None,
           status: MemoryStatus = MemoryStatus.active, created: datetime = T0, id: str | None = None,
           **fields: Any) -> MemIR:
    _, props = ONTOLOGY.validate(type, properties or {})
    data: dict[str, Any] = {
        "content": {"text": text}, "type": type, "properties": props,
        "scope": {"user_id": user, "agent_id": agent, "session_id": session}, "status": status,
        "metadata": {"created_at": created, "updated_at": created, **fields.pop("metadata", {})}, **fields,
    }
    if id is not None:
        data["id"] = id
    return MemIR.model_validate(data)


# -- random records for the filter-equivalence test --------------------------------------
WORDS = ["alpha", "beta", "gamma", "咖啡", "上海", "a", "ab", "B", ""]
STAMPS = ["2026-11-01T09:00:00Z", "2026-11-05T12:30:00Z", "2026-12-04T00:00:00Z", "2027-01-01T00:00:00Z"]
DAYS = ["2026-11-01", "2026-12-04", "2026-12-05"]


def random_value(kind: str, rnd: random.Random) -> Any:
    words = [w for w in WORDS if w]
    return {
        "str": lambda: rnd.choice(words) + rnd.choice(["", "x", " beta"]),
        "int": lambda: rnd.randint(-2, 3),
        "float": lambda: rnd.choice([-1.5, 0.0, 0.5, 1.0, 2.25]),
        "bool": lambda: rnd.random() < 0.5,
        "datetime": lambda: rnd.choice(STAMPS),
        "date_or_datetime": lambda: rnd.choice(STAMPS + DAYS),
        "list": lambda: rnd.sample(words, rnd.randint(0, 3)),
        "json": lambda: rnd.choice([rnd.choice(words), rnd.randint(0, 3), rnd.random() < 0.5, 1.5,
                                    rnd.sample(words, 2), {"k": "alpha"}, [], [1, "alpha"]]),
    }[kind]()


def random_gadget(i: int, rnd: random.Random) -> MemIR:
    spec = ONTOLOGY.resolve("Gadget").properties
    props = {name: random_value(p.kind, rnd) for name, p in spec.items() if rnd.random() < 0.6}
    created = T0 + timedelta(hours=rnd.randint(0, 24 * 60), microseconds=rnd.randint(0, 999_999))
    valid_from = rnd.choice([None, created + timedelta(days=rnd.randint(-3, 3))])
    valid_to = rnd.choice([None, None, (valid_from or created) + timedelta(days=rnd.randint(0, 40))])
    metadata = {"source": {"speaker": rnd.choice(["user", "assistant", None]),
                           "session_id": rnd.choice(["s1", "s2", None]), "creator": rnd.choice(["rules", None])}}
    return record(f"gadget {i} {rnd.choice(WORDS)}", "Gadget", props, user=rnd.choice(["alice", "bob", None]),
                  agent=rnd.choice(["a1", "a2", None]), session=rnd.choice(["s1", "s2", None]),
                  status=rnd.choice(list(MemoryStatus)), created=created, valid_from=valid_from,
                  valid_to=valid_to, metadata=metadata, id=f"g{i:03d}")


# -- a worker for the multi-process test (spawned processes import it by name) -----------
def write_many(path: str, worker: int, n: int) -> int:
    """Write ``n`` records one transaction at a time into the store at ``path``; return how many."""
    from mnemir.store.base import Write
    from mnemir.store.sqlite import SQLiteStore

    rng = np.random.default_rng(worker)
    store = SQLiteStore(path, ontology=ONTOLOGY, busy_timeout_s=0.05)
    try:
        for i in range(n):
            rec = record(f"worker {worker} note {i}", "Fact", {"entity": f"w{worker}"}, id=f"w{worker}-{i}")
            store.write([Write(rec, unit(rng)[0])], model_id=MODEL)
    finally:
        store.close()
    return n


def mutate(path: str, seed: int) -> list[str]:
    """From another process: change scopes, types and statuses, insert and hard-delete records of the store at
    ``path`` (a random store of :func:`random_gadget` records); return the ids deleted."""
    from mnemir.store.base import ANY, Selection, Write
    from mnemir.store.sqlite import SQLiteStore

    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    store = SQLiteStore(path, ontology=ONTOLOGY)
    try:
        held = store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))
        changed = [r.model_copy(update={"status": rnd.choice(list(MemoryStatus)),
                                        "scope": r.scope.model_copy(update={"user_id": rnd.choice(["alice", "dan"])}),
                                        "type": rnd.choice(["Gadget", "Fact"])})
                   for r in rnd.sample(held, len(held) // 4)]
        store.write([Write(r, None) for r in changed], model_id=MODEL)  # same vectors, new scope codes
        new = [random_gadget(1000 + i, rnd) for i in range(20)]
        store.write([Write(r, v) for r, v in zip(new, unit(rng, len(new)), strict=True)], model_id=MODEL)
        deleted = [r.id for r in rnd.sample(held, len(held) // 5)]
        store.write([], model_id=MODEL, delete_ids=deleted)
    finally:
        store.close()
    return deleted
