"""``check`` (Memory.check, ``mnemir check``) on both backends, and forgetting with the same guarantees on both."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from tests.conftest import NOW

import mnemir
from mnemir.cli.app import cli
from mnemir.ir import Action

SECRET = "passport 7731946208"
SECRET_ZH = "银行卡号六二二八四八零"


def _workload(mem: mnemir.Memory) -> dict[str, str]:
    task = mem.add("Renew the passport", "Task", {"status": "pending", "goal": "passport"}, user="u", now=NOW)
    fact = mem.add(f"My {SECRET}", "Fact", {"entity": "user", "attribute": "passport", "value": SECRET},
                   user="u", now=NOW, relationships=[{"target": task.id, "relation": "related_to_entity"}])
    zh = mem.add(f"我的{SECRET_ZH}", "Fact", {"entity": "user", "attribute": "银行卡", "value": SECRET_ZH}, user="u",
                 now=NOW)
    mem.add("Renew the passport", "Task", {"status": "pending", "goal": "passport"}, user="u",
            now=NOW + timedelta(minutes=1))  # a repeat: merged
    mem.update_task(task.id, status="in_progress", user="u", now=NOW + timedelta(minutes=2))
    mem.remember("I live in Leeds", user="u", now=NOW + timedelta(minutes=3))
    mem.remember("我姐姐是护士", user="u", now=NOW + timedelta(minutes=4))
    mem.update(fact.id, properties={"confidence": 0.8}, user="u", now=NOW + timedelta(minutes=5))
    for n in range(3):
        mem.add(f"other user's note {n} okapi", "Fact", {"entity": "user", "attribute": f"n{n}", "value": "v"},
                user="other", now=NOW)
    return {"task": task.id, "fact": fact.id, "zh": zh.id}


def test_a_store_after_every_kind_of_write_is_consistent(backend_mem: mnemir.Memory) -> None:
    ids = _workload(backend_mem)
    report = backend_mem.check()
    assert report.ok, report.render()
    assert report.counts["records"] >= 8 and report.counts["vectors"] == report.counts["records"]
    backend_mem.delete(ids["fact"], hard=True, user="u", now=NOW + timedelta(hours=1))
    assert backend_mem.forget_user("other", now=NOW + timedelta(hours=1)) == {"memories": 3, "tombstones": 3}
    after = backend_mem.check()
    assert after.ok, after.render()
    assert after.counts["tombstoned memories"] == 4
    assert json.loads(json.dumps(after.to_dict()))["ok"] is True


def _tables_holding(mem: mnemir.Memory, backend: str, needle: str) -> list[str]:
    """Every table whose rows, as text, contain ``needle`` (PostgreSQL: row::text; SQLite: every column)."""
    store: Any = mem.store
    if backend == "postgres":
        def body(cur: Any) -> list[str]:
            cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            found = []
            for (table,) in cur.fetchall():
                cur.execute(f'SELECT count(*) FROM "{table}" t WHERE strpos(t::text, %s) > 0', [needle])
                if cur.fetchone()[0]:
                    found.append(table)
            return found
        return list(store._db.read("scan", body))

    def scan(conn: sqlite3.Connection) -> list[str]:
        found = []
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                if any(needle.encode() in (v if isinstance(v, bytes) else str(v).encode()) for v in row):
                    found.append(table)
                    break
        return found
    return list(store._db.read("scan", scan))


def test_a_hard_delete_leaves_no_row_holding_the_text_on_either_backend(backend: str,
                                                                        backend_mem: mnemir.Memory) -> None:
    ids = _workload(backend_mem)
    assert _tables_holding(backend_mem, backend, "7731946208")  # the scan finds what is there
    backend_mem.delete(ids["fact"], hard=True, user="u", now=NOW + timedelta(hours=1), reason="asked")
    backend_mem.delete(ids["zh"], hard=True, user="u", now=NOW + timedelta(hours=1))
    assert _tables_holding(backend_mem, backend, "7731946208") == []
    assert _tables_holding(backend_mem, backend, "六二二八四八零") == []
    for mid in (ids["fact"], ids["zh"]):
        history = backend_mem.store.history(mid)
        assert [h.action for h in history] == [Action.deleted]
        assert history[0].before is None and history[0].after is None
    assert backend_mem.check().ok


def test_forget_user_leaves_no_row_of_that_user_on_either_backend(backend: str, backend_mem: mnemir.Memory) -> None:
    _workload(backend_mem)
    backend_mem.forget_user("u", now=NOW + timedelta(hours=1))
    for needle in ("7731946208", "六二二八四八零", "Leeds", "护士", "Renew the passport"):
        assert _tables_holding(backend_mem, backend, needle) == [], needle
    assert backend_mem.count(user="u") == 0 and backend_mem.count(user="other") == 3
    assert backend_mem.check().ok


# -- what check finds ---------------------------------------------------------------------------------------
def _break_sqlite(mem: mnemir.Memory, ids: dict[str, str]) -> None:
    def body(conn: sqlite3.Connection) -> None:
        rid = conn.execute("SELECT rid FROM records WHERE id = ?", (ids["task"],)).fetchone()[0]
        conn.execute("DELETE FROM fts WHERE rowid = ?", (rid,))
        conn.execute("DELETE FROM embeddings WHERE rid = (SELECT rid FROM records WHERE id = ?)", (ids["zh"],))
        conn.execute("UPDATE props SET tval = 'completed' WHERE key = 'status' AND rid = ?", (rid,))
        conn.execute("INSERT INTO relationships VALUES ('ghost', 0, 'related_to_entity', 'x', '{}')")
        conn.execute("INSERT INTO history (id, memory_id, at, entry) SELECT id || '-copy', 'ghost', at, "
                     "replace(entry, memory_id, 'ghost') FROM history WHERE memory_id = ? LIMIT 1", (ids["fact"],))
        conn.execute("UPDATE records SET status = 'archived' WHERE id = ?", (ids["fact"],))
    mem.store._db.write("break", body)  # type: ignore[attr-defined]


def _break_postgres(mem: mnemir.Memory, ids: dict[str, str]) -> None:
    def body(cur: Any) -> None:
        cur.execute("UPDATE records SET tsv = to_tsvector('simple', 'nothing') WHERE id = %s", [ids["task"]])
        cur.execute("DELETE FROM embeddings WHERE rid = (SELECT rid FROM records WHERE id = %s)", [ids["zh"]])
        cur.execute("INSERT INTO relationships (tenant, source, pos, relation, target, properties) VALUES "
                    "('', 'ghost', 0, 'related_to_entity', 'x', '{}')")
        cur.execute("INSERT INTO history (tenant, id, memory_id, at, entry) SELECT tenant, id || '-copy', 'ghost', "
                    "at, jsonb_set(entry, '{memory_id}', '\"ghost\"') FROM history WHERE memory_id = %s LIMIT 1",
                    [ids["fact"]])
        cur.execute("UPDATE records SET status = 'archived' WHERE id = %s", [ids["fact"]])
        # history kept on another shard than its record (the sharded layout: docs/SCALING.md)
        cur.execute("UPDATE history SET tenant = 'elsewhere' WHERE memory_id = %s", [ids["task"]])
    mem.store._db.write("break", body)  # type: ignore[attr-defined]


def test_check_names_every_disagreement(backend: str, backend_mem: mnemir.Memory) -> None:
    ids = _workload(backend_mem)
    (_break_postgres if backend == "postgres" else _break_sqlite)(backend_mem, ids)
    report = backend_mem.check()
    assert not report.ok
    kinds = set(report.totals)
    want = {"missing_vector", "relationship_without_record", "history_without_record", "record_row_mismatch"}
    want |= {"text_index_stale", "wrong_tenant"} if backend == "postgres" else \
        {"record_not_in_text_index", "property_rows_mismatch"}
    assert want <= kinds, report.render()
    by_kind = {f.kind: f.id for f in report.findings}
    assert by_kind["missing_vector"] == ids["zh"] and by_kind["record_row_mismatch"] == ids["fact"]
    if backend == "postgres":
        assert by_kind["wrong_tenant"] == ids["task"]


# -- the command line ---------------------------------------------------------------------------------------
def test_cli_check_and_forget(tmp_path: Path, embedder: Any) -> None:
    path = str(tmp_path / "cli")
    with mnemir.open(path, embedder=embedder) as mem:
        ids = _workload(mem)
    runner = CliRunner()
    ok = runner.invoke(cli, ["--path", path, "--json", "check"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["ok"] is True
    refused = runner.invoke(cli, ["--path", path, "forget", "--user", "other"], input="n\n")
    assert refused.exit_code == 1
    done = runner.invoke(cli, ["--path", path, "--json", "forget", "--user", "other", "--yes"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == {"user": "other", "memories": 3, "tombstones": 0 + 3}
    with mnemir.open(path, embedder=embedder) as mem:
        assert mem.count(user="other") == 0
        _break_sqlite(mem, ids)
    broken = runner.invoke(cli, ["--path", path, "check"])
    assert broken.exit_code == 1 and "missing_vector" in broken.output


def test_cli_import_into_one_scope_refuses_another_users_records(tmp_path: Path) -> None:
    path, file = str(tmp_path / "cli"), tmp_path / "bob.jsonl"
    file.write_text(json.dumps({"memir_version": "1.0", "id": "mem_b1", "type": "Fact", "scope": {"user_id": "bob"},
                                "content": {"text": "bob's note"}}) + "\n", encoding="utf-8")
    runner = CliRunner()
    refused = runner.invoke(cli, ["--path", path, "import", str(file), "--user", "alice"])
    assert refused.exit_code == 2 and "bob" in refused.output
    done = runner.invoke(cli, ["--path", path, "--json", "import", str(file), "--user", "bob"])
    assert done.exit_code == 0 and "\"imported\": 1" in done.output, done.output
