"""Isolation enforced inside PostgreSQL: row-level security for a role without BYPASSRLS, the session naming its
user. Even when the application is made to ask for another user's scope, or raw SQL is sent through the tenant's
connection, the database shows and changes only the session user's rows."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NOW

import mnemir
from mnemir.errors import ConflictError, MnemirError, NotFoundError
from mnemir.store.base import ANY, Selection
from mnemir.store.postgres.server import SUPERUSER
from mnemir.store.postgres.tenants import tenant_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from postgres_cases import database_url, server

ROLE = "mnemir_tenant"


@contextmanager
def tenant_stores(tmp_path: Path, embedder: Any
                  ) -> Iterator[tuple[mnemir.Memory, Callable[[str], mnemir.Memory]]]:
    """The administrator's store (the tables' owner) and a way to open a tenant's store: connected as ``ROLE``
    (NOBYPASSRLS, owns nothing), the session naming its user. Row-level security is enabled on the first
    tenant opened, so the administrator can set the scene first."""
    import psycopg

    url = database_url(tmp_path, "rls")
    with psycopg.connect(server().url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() is None:
            conn.execute(f"CREATE ROLE {ROLE} LOGIN NOBYPASSRLS")
        assert conn.execute("SELECT rolbypassrls OR rolsuper FROM pg_roles WHERE rolname = %s",
                            [ROLE]).fetchone() == (False,)
    admin = mnemir.open(url, embedder=embedder)
    opened: list[mnemir.Memory] = []

    def open_tenant(user: str) -> mnemir.Memory:
        if not opened:
            admin.store.enable_row_level_security(ROLE)  # type: ignore[attr-defined]
        tenant = url.replace(f"postgresql://{SUPERUSER}@", f"postgresql://{ROLE}@", 1)
        memory = mnemir.open(tenant_url(tenant, user), embedder=embedder)
        opened.append(memory)
        return memory

    try:
        yield admin, open_tenant
    finally:
        for memory in opened:
            memory.close()
        admin.close()


@pytest.fixture
def stores(tmp_path: Path, embedder: Any) -> Iterator[tuple[mnemir.Memory, mnemir.Memory, dict[str, str]]]:
    with tenant_stores(tmp_path, embedder) as (admin, open_tenant):
        ids = {"alice": admin.add("Alice's flat is on Elm street", "Fact", {"entity": "user", "attribute": "home",
                                                                        "value": "Elm"}, user="alice", now=NOW).id,
               "bob": admin.add("Bob's PIN is 4417", "Fact", {"entity": "user", "attribute": "pin",
                                                               "value": "4417"}, user="bob", now=NOW).id,
               "bob_task": admin.add("Bob: renew the lease", "Task", {"status": "pending"}, user="bob",
                                     now=NOW).id}
        yield admin, open_tenant("alice"), ids


def test_the_database_shows_a_tenant_only_its_own_rows(stores: tuple[mnemir.Memory, mnemir.Memory, dict[str, str]]
                                                       ) -> None:
    admin, alice, ids = stores
    everything = Selection(user_id=ANY, statuses=tuple(mnemir.MemoryStatus))
    assert [r.id for r in alice.store.select(everything)] == [ids["alice"]]  # ANY: still only alice's rows
    assert admin.store.count(everything) == 3
    # the application made to ask for bob's scope: the database answers as if bob had nothing
    for call in (lambda: alice.get(ids["bob"], user="bob"), lambda: alice.history(ids["bob"], user="bob"),
                 lambda: alice.update(ids["bob"], text="mine now", user="bob"),
                 lambda: alice.delete(ids["bob"], user="bob", hard=True),
                 lambda: alice.update_task(ids["bob_task"], status="completed", user="bob")):
        with pytest.raises(NotFoundError):
            call()
    assert alice.search("PIN 4417", user="bob", k=5) == [] and alice.store.vectors([ids["bob"]]) == {}
    with pytest.raises(MnemirError):  # writing into bob's scope is refused by the policy (or the id check)
        alice.add("planted in bob's scope", "Fact", user="bob", now=NOW)
    with pytest.raises(MnemirError):
        alice.add("taking bob's id", "Fact", user="alice", id=ids["bob"], now=NOW)


def test_raw_sql_through_the_tenant_connection_is_confined(
        stores: tuple[mnemir.Memory, mnemir.Memory, dict[str, str]]) -> None:
    admin, alice, ids = stores
    db: Any = alice.store._db  # type: ignore[attr-defined]

    def run(sql: str, params: list[Any] | None = None) -> Any:
        def body(cur: Any) -> Any:
            cur.execute(sql, params or [])
            return cur.fetchall() if cur.description else cur.rowcount
        return db.write("raw", body)

    for table in ("records", "embeddings", "relationships", "history"):
        mine = run(f"SELECT count(*) FROM {table}")[0][0]
        theirs = admin.store._db.read("n", lambda cur, t=table: (cur.execute(f"SELECT count(*) FROM {t}"),  # type: ignore[attr-defined]
                                                                 cur.fetchone()[0])[1])
        assert mine <= theirs
    assert run("SELECT id FROM records") == [(ids["alice"],)]
    assert run("UPDATE records SET status = 'deleted'") == 1  # only alice's own row
    assert run("DELETE FROM history") >= 1
    assert run("DELETE FROM embeddings WHERE rid IN (SELECT rid FROM records)") == 1
    with pytest.raises(ConflictError):  # refused by the policy
        run("INSERT INTO records (id, type, status, user_id, created_at, updated_at, props, record, tsv) "
            "VALUES ('mem_x', 'Fact', 'active', 'bob', now(), now(), '{}', '{}', '')")
    with pytest.raises(ConflictError):  # refused by the policy
        run("INSERT INTO history (id, memory_id, at, entry) VALUES ('h_x', %s, now(), '{}')", [ids["bob"]])
    with pytest.raises(ConflictError):  # refused by the policy
        run("UPDATE records SET user_id = 'bob' WHERE id = %s", [ids["alice"]])  # no pushing rows out either
    bob = admin.get(ids["bob"], user="bob")
    assert bob.content.text == "Bob's PIN is 4417" and bob.status == mnemir.MemoryStatus.active
    assert admin.store.vectors([ids["bob"]]) and admin.history(ids["bob"], user="bob")


def test_a_tenant_works_normally_inside_its_scope(stores: tuple[mnemir.Memory, mnemir.Memory, dict[str, str]]
                                                  ) -> None:
    admin, alice, _ = stores
    said = alice.remember("I moved to Oak street last week", user="alice", now=NOW)
    assert said.created
    assert alice.recall("where do I live?", user="alice", k=5, now=NOW).hits
    rec = alice.add("Call the plumber", "Task", {"status": "pending"}, user="alice", now=NOW)
    alice.update_task(rec.id, status="completed", user="alice", now=NOW)
    alice.delete(rec.id, user="alice", hard=True, now=NOW)
    assert alice.forget_user("alice", now=NOW)["memories"] >= 2
    assert admin.count(user="bob") == 2 and admin.count(user="alice") == 0
    assert admin.check().ok
