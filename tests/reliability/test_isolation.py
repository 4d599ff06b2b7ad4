"""Isolation at the application level: alice, knowing bob's ids and trying every door (ids, filters, graph walks,
as-of queries, exports, imports naming bob), never reads or changes bob's memories. Both backends, and on
PostgreSQL also through a role under row-level security.

``CROSSINGS`` counts the attempts (quoted in the README)."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NOW

import mnemir
from mnemir.errors import ConflictError, NotFoundError, ValidationError
from mnemir.store.base import ANY

#: crossing attempts made by test_alice_never_reaches_bob (per backend: SQLite, PostgreSQL as the tables' owner,
#: PostgreSQL as a tenant role under row-level security)
CROSSINGS = 26

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test_row_level_security's tenant_stores


def _bob(mem: mnemir.Memory) -> dict[str, Any]:
    fact = mem.add("Bob's bank PIN is 4417", "Fact", {"entity": "bob", "attribute": "pin", "value": "4417"},
                   user="bob", now=NOW)
    task = mem.add("Bob: renew the lease", "Task", {"status": "pending", "goal": "lease"}, user="bob", now=NOW)
    hyp = mem.add("Bob might move to Oslo", "Hypothesis", {"entity": "bob", "attribute": "city", "value": "Oslo"},
                  user="bob", now=NOW)
    mem.add("Bob: renew the lease", "Task", {"status": "pending", "goal": "lease"}, user="bob",
            now=NOW + timedelta(minutes=1))  # a merge in bob's history
    return {"fact": fact, "task": task, "hyp": hyp}


def test_alice_never_reaches_bob(backend_mem: mnemir.Memory) -> None:
    """The application keeps the scopes apart (SQLite, and PostgreSQL through the tables' owner)."""
    _cross(backend_mem, lambda: backend_mem)


def test_alice_never_reaches_bob_through_row_level_security(tmp_path: Path, embedder: Any) -> None:
    """The same attempts, alice's store connected as a role without BYPASSRLS that owns no table: PostgreSQL's
    row-level security refuses them too (the administrator's store sets the scene and checks bob's memories)."""
    from test_row_level_security import tenant_stores

    with tenant_stores(tmp_path, embedder) as (admin, open_tenant):
        _cross(admin, lambda: open_tenant("alice"))


def _setup(mem: mnemir.Memory) -> tuple[dict[str, Any], Any]:
    bob = _bob(mem)
    # alice's memory points at bob's: a graph walk from it must stop at the scope's edge
    mine = mem.add("my PIN note, see the linked memory", "Fact", {"entity": "user", "attribute": "pin_note",
                                                                  "value": "linked"},
                   user="alice", now=NOW, relationships=[{"target": bob["fact"].id, "relation": "related_to_entity"},
                                                         {"target": bob["task"].id, "relation": "part_of"}])
    return bob, mine


def _cross(admin: mnemir.Memory, alice_store: Callable[[], mnemir.Memory]) -> None:
    """``admin`` sets up bob's memories (and alice's note linking to them); every attempt goes through the
    Memory ``alice_store`` opens (the same one, or a tenant connection); ``admin`` checks bob's are intact."""
    bob, mine = _setup(admin)
    fact, task, hyp = bob["fact"], bob["task"], bob["hyp"]
    mem = alice_store()
    tried = 0

    def refused(call: Any, *errors: type[BaseException]) -> None:
        nonlocal tried
        tried += 1
        with pytest.raises(errors or (NotFoundError,)):
            call()

    refused(lambda: mem.get(fact.id, user="alice"))
    refused(lambda: mem.history(fact.id, user="alice"))
    refused(lambda: mem.update(fact.id, text="overwritten", user="alice"))
    refused(lambda: mem.delete(fact.id, user="alice"))
    refused(lambda: mem.delete(fact.id, user="alice", hard=True))
    refused(lambda: mem.update_task(task.id, status="completed", user="alice"))
    refused(lambda: mem.unmerge(task.id, user="alice"))
    refused(lambda: mem.supersede(fact.id, {"content": {"text": "PIN is 0000"}, "type": "Fact",
                                            "scope": {"user_id": "alice"}}, user="alice"))
    refused(lambda: mem.resolve_conflict(mine.id, fact.id, user="alice"))
    refused(lambda: mem.add_evidence(hyp.id, supports=True, evidence="seen in Oslo", user="alice"))
    refused(lambda: mem.confirm_hypothesis(hyp.id, user="alice"))
    refused(lambda: mem.get(fact.id, user=None))  # "no user" is a scope of its own, not a wildcard
    refused(lambda: mem.search("PIN", where={"@user_id": "bob"}, user="alice"), ValidationError)
    refused(lambda: mem.search("PIN", where={"$or": [{"entity": "bob"}, {"@id": fact.id}]}, user="alice"),
            ValidationError)

    def nothing_of_bob(found: list[Any], what: str) -> None:
        nonlocal tried
        tried += 1
        ids = {getattr(getattr(x, "memory", x), "id", None) for x in found}
        assert not ids & {fact.id, task.id, hyp.id}, what

    nothing_of_bob(mem.search("Bob's bank PIN 4417", user="alice", k=20), "search")
    nothing_of_bob(mem.search("PIN", where={"entity": "bob"}, types=["Fact"], user="alice"), "filter on bob")
    nothing_of_bob(mem.list(user="alice", statuses=list(mnemir.MemoryStatus)), "list")
    nothing_of_bob(mem.as_of(NOW + timedelta(minutes=5), "PIN lease Oslo", user="alice", k=20), "as_of")
    nothing_of_bob(mem.recall("what is the PIN in my linked memory?", user="alice", k=10, now=NOW).hits,
                   "recall graph walk")
    context = mem.recall("renew the lease and the PIN", user="alice", k=10, now=NOW).context.render()
    tried += 1
    assert "Bob's bank PIN" not in context and "Bob: renew the lease" not in context, context
    assert mem.count(user="alice") == 1
    tried += 1
    out = io.StringIO()
    mem.export_jsonl(out, user="alice", with_embeddings=False)
    tried += 1
    assert "Bob's bank PIN" not in out.getvalue()
    exported = [json.loads(line) for line in out.getvalue().splitlines()[1:]]
    assert {x.get("memory_id", x.get("id")) for x in exported} == {mine.id}

    # imports that name bob: a record in bob's scope, or alice's record under one of bob's ids
    bobs = json.dumps({"memir_version": "1.0", "id": "mem_planted", "type": "Fact", "scope": {"user_id": "bob"},
                       "content": {"text": "Bob agreed to send alice his PIN"}}) + "\n"
    refused(lambda: mem.import_jsonl(io.StringIO(bobs), user="alice"), ValidationError)
    hijack = json.dumps({"memir_version": "1.0", "id": fact.id, "type": "Fact", "scope": {"user_id": "alice"},
                         "content": {"text": "now alice's"}}) + "\n"
    refused(lambda: mem.import_jsonl(io.StringIO(hijack), user="alice"), ConflictError)
    refused(lambda: mem.import_jsonl(io.StringIO(hijack), user="alice", on_conflict="skip"), ConflictError)
    refused(lambda: mem.add("alice's", "Fact", user="alice", id=fact.id), ConflictError, ValidationError)

    assert tried == CROSSINGS
    # bob's memories are as bob left them
    assert admin.get(fact.id, user="bob").content.text == "Bob's bank PIN is 4417"
    assert admin.get(task.id, user="bob").properties["status"] == "pending"
    assert admin.count(user="bob") == 3 and admin.store.fetch(["mem_planted"]) == []
    assert all(h.actor != "alice" for h in admin.history(fact.id, user="bob"))
    assert admin.count(user=ANY) == 4 and admin.check().ok
