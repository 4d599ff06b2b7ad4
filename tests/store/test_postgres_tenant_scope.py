"""Every SQL statement the PostgreSQL backend issues on the tenant tables (``records``, ``embeddings``,
``relationships``, ``history``) carries the tenant, the distribution column of the sharded layout in docs/SCALING.md
("A cluster"): as a condition (``tenant = ...``) or, for an insert, as a value (``INSERT INTO t (tenant, ...``); and
every join between two tenant tables joins on it. The only exceptions are the deliberate statements over all
tenants, named below (``ADMIN``): ``user=ANY`` reads (export, import, migration, admin listing), the integrity check,
the schema migration's back-fill and an id deleted without its record. None of them appears in one user's session.

Statements are captured from the real driver (psycopg's cursor) while sessions run on a real server; any statement
neither tenant-carrying, nor admin, nor global (``GLOBAL``: schema, transactions, locks, statistics, ``meta``) fails
the test, so a new untenanted query cannot slip in unnoticed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from store_cases import MODEL, ONTOLOGY, open_backend, record, unit

import mnemir
from mnemir.ir import Action, HistoryEntry
from mnemir.ontology import Ontology
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.migrate import migrate
from mnemir.store.postgres.store import ALL_TENANTS

TABLES = "records|embeddings|relationships|history"
#: a statement that reads or writes a tenant table
TOUCHES = re.compile(rf"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+({TABLES})\b")
#: ... and carries the tenant: a condition on it, or (an insert) a value for it
CARRIES = re.compile(rf"\b(\w+\.)?tenant = %(\(p\d+\))?s|^INSERT INTO ({TABLES}) \(tenant, ")
#: a join of two tenant tables, with its join condition
JOINED = re.compile(rf"\bJOIN ({TABLES}) (\w+) ON (.*?)(?= WHERE |,| JOIN |$)")
#: the deliberate statements over every tenant (they fan out to every shard on a cluster); never in a user's session
ADMIN = {
    "user=ANY reads and selections (export, import's id checks, migration, admin listing)": re.escape(ALL_TENANTS),
    "migration: every memory id with history": r"^SELECT DISTINCT memory_id FROM history ORDER BY memory_id$",
    "check: the records": r"^SELECT rid, id, type, status, user_id, .* FROM records$",
    "check: the edges": r"^SELECT source, relation, target, properties::text FROM relationships ORDER BY source, pos$",
    "check: the text vectors": r"^SELECT x\.id FROM unnest\(.*\) AS x\(id, lit\) JOIN records r ON r\.id = x\.id",
    "check: the tenant columns": r"^SELECT .* /\* check: tenants \*/$",
    "check: the vectors": r"^SELECT rid, model_id, vector_dims\(embedding\) FROM embeddings$",
    "check: the history": r"^SELECT memory_id, entry::text FROM history ORDER BY memory_id, at, seq$",
    "check: counts": r"^SELECT count\(\*\) FROM relationships$",
    "schema migration: the tenant back-fill": rf"^UPDATE ({TABLES}) (\w+ )?SET tenant = ",
    "statistics": r"^ANALYZE records, embeddings$",
}
#: schema, transactions, locks, statistics, meta (a reference table on a cluster) and the test harness
GLOBAL = [
    r"^(BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)",
    r"^SELECT (key, )?value FROM meta( WHERE key|$)",
    r"^INSERT INTO meta \(key, value\)",
    r"^SELECT pg_advisory_xact_lock",
    r"^SELECT reltuples FROM pg_class",
    r"^SELECT set_config\(",
    r"^SELECT max\(version\) FROM schema_migrations",
    r"^(CREATE|ALTER|DROP INDEX|SELECT 1 FROM pg_|SELECT version FROM schema_migrations|INSERT INTO schema_migrations)",
    r"^SELECT to_regclass",
    r"^SELECT indexname FROM pg_indexes WHERE tablename = 'records'",
    r"^SELECT DISTINCT datname FROM pg_stat_activity",  # the test harness's database housekeeping, not the store
    r"^(DROP|CREATE) DATABASE ",  # the test harness
]


def _normal(query: object) -> str:
    return " ".join(re.sub(r"--[^\n]*", "", str(query)).split())


def _admin(statement: str) -> bool:
    return any(re.search(pattern, statement) for pattern in ADMIN.values())


def _global(statement: str) -> bool:
    return any(re.search(pattern, statement) for pattern in GLOBAL)


def _violations(statements: list[str], *, admin_allowed: bool) -> list[str]:
    """The statements that break the layout's rules (empty when all is well)."""
    out = []
    for s in statements:
        if TOUCHES.search(s) and not _global(s):
            if _admin(s):
                if not admin_allowed:
                    out.append(f"an all-tenants statement in one user's session: {s}")
            elif not CARRIES.search(s):
                out.append(f"no tenant: {s}")
            for table, alias, condition in JOINED.findall(s):
                if not re.search(rf"\b{alias}\.tenant = \w+\.tenant\b|\b\w+\.tenant = {alias}\.tenant\b",
                                 condition) and not _admin(s):
                    out.append(f"a join of {table} not on the tenant: {s}")
            if re.search(r"EXISTS \(SELECT 1 FROM records r WHERE (?!r\.tenant = \w+\.tenant)", s):
                out.append(f"a correlated read of records not on the tenant: {s}")
        elif not TOUCHES.search(s) and not _global(s):
            out.append(f"unknown statement (neither a tenant table's nor global): {s}")
    return out


def test_the_rules_catch_untenanted_statements() -> None:
    """The checker itself: each kind of statement a cluster could not route is reported."""
    assert _violations(["DELETE FROM history WHERE memory_id = ANY(%s::text[])"], admin_allowed=True)
    assert _violations(["SELECT r.id FROM records r WHERE r.user_id = %(p0)s"], admin_allowed=True)
    assert _violations(["INSERT INTO embeddings (rid, model_id, embedding) VALUES (%s, %s, %s)"], admin_allowed=True)
    assert _violations(["SELECT r.id FROM records r JOIN embeddings e ON e.rid = r.rid WHERE r.tenant = %(p0)s"],
                       admin_allowed=True)
    assert _violations(["SELECT source FROM relationships WHERE relationships.tenant = %(p0)s AND EXISTS "
                        "(SELECT 1 FROM records r WHERE r.id = relationships.source)"], admin_allowed=True)
    assert _violations([f"SELECT r.id FROM records r WHERE TRUE {ALL_TENANTS}"], admin_allowed=False)
    assert _violations(["SELECT 42"], admin_allowed=True)
    assert not _violations(["SELECT r.id FROM records r JOIN embeddings e ON e.tenant = r.tenant AND e.rid = r.rid "
                            "WHERE r.tenant = %(p0)s", "INSERT INTO history (tenant, id) VALUES (%s, %s)",
                            "DELETE FROM records WHERE tenant = %s AND id = ANY(%s::text[])"], admin_allowed=False)


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def record_execute(self, query, params=None, **kw):  # type: ignore[no-untyped-def]
        statements.append(_normal(query))
        return execute(self, query, params, **kw)

    def record_executemany(self, query, params_seq, **kw):  # type: ignore[no-untyped-def]
        statements.append(_normal(query))
        return executemany(self, query, params_seq, **kw)

    monkeypatch.setattr(psycopg.Cursor, "execute", record_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", record_executemany)
    return statements


def test_every_statement_carries_the_tenant(tmp_path: Path, captured: list[str]) -> None:
    """The store contract for one user (writes, selections, searches, reads by id, meta, hard deletes): every
    statement carries the tenant; the admin forms appear only where asked for (an id deleted bare, user=ANY)."""
    store = open_backend("postgres", tmp_path, ann_min_candidates=2)  # searches of 2+ candidates use HNSW
    rng = np.random.default_rng(1)
    alice = [record(f"alice likes tea {i}", "Fact", {"entity": f"e{i % 3}"}, user="alice", id=f"a{i}",
                    relationships=[{"relation": "about", "target": "a0"}] if i else []) for i in range(6)]
    bob = [record("bob likes coffee", "Fact", user="bob", id="b0")]
    nobody = [record("a shared note", "Fact", user=None, id="n0"), record("an empty user", "Fact", user="", id="e0")]
    opened = len(captured)
    store.write([Write(r, v, [HistoryEntry(memory_id=r.id, action=Action.created)])
                 for r, v in zip(alice + bob + nobody, unit(rng, 9), strict=True)], model_id=MODEL)
    written = len(captured)
    store.build_ann_index()  # maintenance (CREATE INDEX, ANALYZE), outside the user's session
    searched = len(captured)
    for selection in (Selection(user_id="alice"), Selection(user_id="alice", types=("Fact",)),
                      Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY)),
                      Selection(user_id=None), Selection(user_id="")):
        store.select(selection, order_by=[("@created_at", False)], limit=3)
        store.count(selection)
        store.vector_search(selection, unit(rng)[0], 3)
        store.text_search(selection, "tea", 3)
    for user in ("alice", None, ""):
        store.fetch(["a1", "a2", "n0", "e0"], user=user)
        store.edges(["a1"], direction="both", user=user)
        store.histories(["a1", "b0", "n0"], user=user)
        store.vectors(["a1", "e0"], user=user)
    store.get_meta("embedding_model")
    store.set_meta("note", "x")
    a5 = store.fetch(["a5"], user="alice")[0]  # a hard delete as Memory writes it: the record comes with its tombstone
    store.write([Write(a5, None, [HistoryEntry(memory_id="a5", action=Action.deleted)])], model_id=MODEL,
                delete_ids=["a5"])
    session = captured[opened:written] + captured[searched:]
    assert any("ORDER BY e.embedding <=>" in s for s in session)  # the HNSW path was taken, and checked
    assert not _violations(session, admin_allowed=False), "\n".join(_violations(session, admin_allowed=False))
    assert len([s for s in session if TOUCHES.search(s) and not _global(s)]) >= 40

    bare = len(captured)
    store.write([], model_id=MODEL, delete_ids=["a4"])  # an id deleted bare: its tenant is looked up (admin form)
    assert sum(_admin(s) for s in captured[bare:]) == 1
    assert not _violations(captured[bare:], admin_allowed=True)
    assert store.fetch(["a4", "a5"]) == [] and store.histories(["a5"])["a5"][-1].action == Action.deleted
    store.close()


def _one_tenanted_statement(store: Any, selections: list[Selection], captured: list[str]) -> list[Any]:
    """``select_many(selections, limit=2)`` read by ONE statement on the tenant tables, carrying the tenant, with the
    answers of ``select`` one by one; its answers."""
    before = len(captured)
    many = store.select_many(selections, limit=2)
    asked = [s for s in captured[before:] if TOUCHES.search(s)]
    assert len(asked) == 1, asked
    assert not _violations(asked, admin_allowed=False)
    assert [[r.id for r in found] for found in many] == [[r.id for r in store.select(s, limit=2)] for s in selections]
    return list(many)


def test_grouped_selections_are_one_tenanted_statement(tmp_path: Path, captured: list[str]) -> None:
    """``select_many`` of a batch's key look-ups (one ``$in`` selection per record, decision 0125): ONE statement
    for the group, carrying the tenant, and the answers of ``select`` one by one."""
    store = open_backend("postgres", tmp_path)
    rng = np.random.default_rng(3)
    mine = [record(f"alice fact {i}", "Fact", {"entity": f"e{i % 12}", "attribute": "job"}, user="alice", id=f"a{i}")
            for i in range(30)]
    store.write([Write(r, v) for r, v in zip(mine, unit(rng, len(mine)), strict=True)], model_id=MODEL)
    selections = [Selection(user_id="alice", types=("Fact",),
                            where=parse_filter({"entity": {"$in": [f"e{i}", f"E{i}"]}, "attribute": {"$in": ["job"]}},
                                               ONTOLOGY, ("Fact",))) for i in range(16)]
    many = _one_tenanted_statement(store, selections, captured)
    assert [len(found) for found in many] == [2] * 12 + [0] * 4
    store.close()


def test_a_few_look_ups_of_one_user_are_one_tenanted_statement(tmp_path: Path, captured: list[str]) -> None:
    """``select_many`` of a few look-ups of one user and of different shapes (``remember``'s, a lone ``add``'s: too
    few to group by shape): ONE statement, carrying the tenant, with the answers of ``select`` one by one."""
    store = open_backend("postgres", tmp_path)
    rng = np.random.default_rng(4)
    mine = [record(f"alice fact {i}", "Fact", {"entity": f"e{i % 4}", "attribute": ("job", "flat")[i % 2]},
                   user="alice", id=f"a{i}") for i in range(12)]
    store.write([Write(r, v) for r, v in zip(mine, unit(rng, len(mine)), strict=True)], model_id=MODEL)
    kinds = ("Fact", "Hypothesis")
    selections = [Selection(user_id="alice", types=kinds, where=parse_filter(where, ONTOLOGY, kinds)) for where in (
        {"entity": {"$in": ["e1", "E1"]}, "attribute": {"$in": ["job"]}}, {"entity": {"$in": ["e2"]}},
        {"entity": {"$in": ["e3"]}}, {"attribute": {"$in": ["flat"]}})]
    _one_tenanted_statement(store, selections, captured)
    store.close()


def test_a_users_session_carries_the_tenant(tmp_path: Path, captured: list[str], embedder: Any) -> None:
    """A representative session of one user through Memory (add with links, get, update, search, recall, history,
    soft and hard delete, list, count): every statement on the tenant tables carries the user's tenant, none is an
    all-tenants form, and every other one is global."""
    ontology = Ontology()
    mem = mnemir.Memory(open_backend("postgres", tmp_path, ontology=ontology), embedder=embedder, ontology=ontology)
    try:
        mem.add("Bob's PIN is 4417", "Fact", {"entity": "Bob", "attribute": "pin", "value": "4417"}, user="bob")
        start = len(captured)
        trip = mem.add("Trip to Oslo in March", "Plan", {"order": 1}, user="alice")
        tea = mem.add("Alice drinks green tea", "Preference", {"subject": "green tea", "preference_type": "like"},
                      user="alice", relationships=[{"relation": "related_to_entity", "target": trip.id}])
        mem.get(tea.id, user="alice")
        mem.update(tea.id, properties={"strength": 0.9}, user="alice")
        mem.search("tea", user="alice", k=3)
        mem.recall("what does Alice like to drink?", user="alice", k=3)
        mem.history(tea.id, user="alice")
        mem.list(user="alice")
        mem.count(user="alice")
        mem.delete(trip.id, user="alice")
        mem.delete(tea.id, user="alice", hard=True)
        session = captured[start:]
    finally:
        mem.close()
    reads = [s for s in session if re.search(rf"^SELECT .*\bFROM ({TABLES})\b", s)]
    assert len(reads) >= 10
    problems = _violations(session, admin_allowed=False)
    assert not problems, "statements a cluster could not route to the user's shard:\n" + "\n".join(problems)


def test_admin_work_uses_only_the_named_all_tenants_forms(tmp_path: Path, captured: list[str]) -> None:
    """Export, import, migration both ways and the integrity check: what is not tenant-carrying is one of the named
    admin forms (and each of those forms is used here, so none of them is dead weight in the list)."""
    source = open_backend("postgres", tmp_path, "source")
    rng = np.random.default_rng(2)
    rows = [record(f"note {i}", "Fact", user=user, id=f"m{i}") for i, user in enumerate(["alice", "bob", None, "",
                                                                                          "alice"])]
    source.write([Write(r, v, [HistoryEntry(memory_id=r.id, action=Action.created)])
                  for r, v in zip(rows, unit(rng, 5), strict=True)], model_id=MODEL)
    gone = source.fetch(["m4"])[0]
    source.write([Write(gone, None, [HistoryEntry(memory_id="m4", action=Action.deleted)])], model_id=MODEL,
                 delete_ids=["m4"])
    start = len(captured)
    assert source.check().ok
    target = open_backend("postgres", tmp_path, "target")
    migrate(source, target, source_name="source", batch=2)
    assert target.check().ok
    from mnemir.store.sqlite import SQLiteStore

    back = SQLiteStore(tmp_path / "back.db", ontology=ONTOLOGY)
    migrate(target, back, source_name="target", batch=2)
    assert {r.id for r in back.select(Selection(user_id=ANY))} == {"m0", "m1", "m2", "m3"}
    again = open_backend("postgres", tmp_path, "again")
    migrate(back, again, source_name="back", batch=3)
    assert again.histories(["m4"])["m4"][-1].action == Action.deleted
    admin = captured[start:]
    problems = _violations(admin, admin_allowed=True)
    assert not problems, "\n".join(problems)
    used = {name for name, pattern in ADMIN.items() if any(re.search(pattern, s) for s in admin)}
    assert set(ADMIN) - used <= {"schema migration: the tenant back-fill", "statistics"}, set(ADMIN) - used
    for store in (source, target, back, again):
        store.close()
