"""Operations: the OpenAPI copy in the repository, the keys command, the start-up rules, and a graceful shutdown
under concurrent writes that loses no acknowledged write (a real `mnemir serve` process)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from tests.conftest import NOW
from tests.server.conftest import free_port, local_app, running

from mnemir.cli import cli
from mnemir.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "docs" / "openapi.json"


def test_the_served_openapi_is_the_copy_in_the_repository(tmp_path: Path, embedder: Any) -> None:
    with running(local_app(tmp_path, embedder)) as srv, srv.client() as c:
        served = c.get("/openapi.json").json()
    kept = json.loads(SPEC.read_text(encoding="utf-8"))
    assert served == kept, "docs/openapi.json is stale: run `mnemir serve --write-openapi docs/openapi.json`"
    paths = set(served["paths"])
    for needed in ("/v1/remember", "/v1/ingest", "/v1/memories", "/v1/memories/{memory_id}", "/v1/search",
                   "/v1/recall", "/v1/intent", "/v1/memories/{memory_id}/history", "/v1/as-of",
                   "/v1/tasks/{task_id}/status", "/v1/conflicts", "/v1/conflicts/resolve", "/v1/maintain",
                   "/v1/types", "/v1/import", "/v1/export", "/v1/review", "/healthz"):
        assert needed in paths, needed


def test_write_openapi_matches_the_repository_copy(tmp_path: Path) -> None:
    out = tmp_path / "spec.json"
    result = CliRunner().invoke(cli, ["serve", "--write-openapi", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == SPEC.read_text(encoding="utf-8")


def test_keys_command_creates_lists_and_revokes(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    runner = CliRunner()
    made = runner.invoke(cli, ["--path", store, "--json", "keys", "create", "acme", "--name", "bot", "--rate", "5"])
    assert made.exit_code == 0, made.output
    record = json.loads(made.output)
    assert record["tenant"] == "acme" and record["key"].startswith("mnr_" + record["key_id"])
    raw = (tmp_path / "store" / "keys.db").read_bytes()
    assert record["key"].encode() not in raw  # only the hash is stored
    listed = json.loads(runner.invoke(cli, ["--path", store, "--json", "keys", "list"]).output)
    assert [k["key_id"] for k in listed] == [record["key_id"]] and "key" not in listed[0]
    gone = runner.invoke(cli, ["--path", store, "--json", "keys", "revoke", record["key_id"]])
    assert gone.exit_code == 0 and json.loads(gone.output)["revoked_at"]
    assert json.loads(runner.invoke(cli, ["--path", store, "--json", "keys", "list"]).output) == []
    assert len(json.loads(runner.invoke(cli, ["--path", store, "--json", "keys", "list", "--all"]).output)) == 1
    bad = runner.invoke(cli, ["--path", store, "keys", "create", "../etc"])
    assert bad.exit_code == 2 and "tenant" in bad.output
    missing = runner.invoke(cli, ["--path", store, "keys", "revoke", "nosuchkey"])
    assert missing.exit_code == 3


def test_without_keys_the_server_stays_on_localhost(tmp_path: Path) -> None:
    from mnemir.server import KeyStore, ServerConfig
    from mnemir.server.run import plan

    config = ServerConfig(path=str(tmp_path / "s"))
    with pytest.raises(ConfigError) as err:
        plan(config, "0.0.0.0")
    assert err.value.context["field"] == "host" and "127.0.0.1" in err.value.context["allowed"]
    keys, multi, line = plan(config, "127.0.0.1")
    assert not multi and "WITHOUT authentication" in line and "localhost only" in line
    store = KeyStore(tmp_path / "s" / "keys.db")
    store.create("acme")
    store.close()
    keys, multi, line = plan(config, "0.0.0.0")
    assert multi and keys is not None and "1 API key" in line
    keys.close()


def test_graceful_shutdown_loses_no_acknowledged_write(tmp_path: Path) -> None:
    import mnemir

    store = tmp_path / "store"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO),
                                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", "from mnemir.cli import main; main()", "--path", str(store),
                             "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        acked: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def writer(n: int) -> None:
            with httpx.Client(base_url=url, timeout=30) as c:
                i = 0
                while not stop.is_set():
                    try:
                        r = c.post("/v1/memories", json={"text": f"writer {n} note {i}", "type": "Fact",
                                                         "properties": {"entity": f"w{n}-{i}", "attribute": "n",
                                                                        "value": str(i)},
                                                         "user": "u", "now": NOW.isoformat()})
                    except httpx.TransportError:
                        return  # the server has gone: an unanswered write was never acknowledged
                    if r.status_code == 201:
                        with lock:
                            acked.append(r.json()["memory"]["id"])
                    i += 1

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        # the signal comes while writes are in flight: after some were acknowledged (the first ones load the
        # model, which takes seconds on a loaded machine), not after a fixed pause
        deadline = time.monotonic() + 120
        while len(acked) < 8 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        stop.set()
        for t in threads:
            t.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = (proc.stdout.read() if proc.stdout else "") + (proc.stderr.read() if proc.stderr else "")
    # uvicorn exits by re-raising the signal it handled, after the graceful shutdown (stores closed)
    assert proc.returncode in (0, -signal.SIGTERM), out
    assert '"msg": "stopped: stores closed"' in out, out
    assert "WITHOUT authentication" in out and "localhost only" in out
    assert acked, "no write was acknowledged before shutdown"
    with mnemir.open(store) as mem:
        kept = {r.id for r in mem.list(user="u", limit=100_000)}
    assert set(acked) <= kept, len(set(acked) - kept)


def test_demo_ends_by_serving_its_store(tmp_path: Path) -> None:
    store = tmp_path / "demo"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", "from mnemir.cli import main; main()", "demo", "--serve",
                             "--path", str(store), "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/v1/memories", params={"user": "alice", "limit": 50},
                              timeout=1)
                if r.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.2)
        assert len(r.json()["items"]) == 11  # the sample is loaded and served
        assert httpx.get(f"http://127.0.0.1:{port}/ui/browse", timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert "typed search" in out and f"http://127.0.0.1:{port}/ui/browse" in out


def test_pending_confirmations_survive_a_restart(tmp_path: Path, embedder: Any) -> None:
    with running(local_app(tmp_path, embedder)) as srv, srv.client() as c:
        for text in ("Send the report to Anna", "Send the report to Ben"):
            c.post("/v1/memories", json={"text": text, "type": "Task", "properties": {"status": "pending"},
                                         "user": "kim", "now": NOW.isoformat()}).raise_for_status()
        asked = c.post("/v1/remember", json={"text": "I sent the report", "user": "kim",
                                             "now": NOW.isoformat()}).json()["confirmations"]
    assert len(asked) == 1
    with running(local_app(tmp_path, embedder)) as srv, srv.client() as c:
        [kept] = c.get("/v1/confirmations").json()["confirmations"]
        assert kept["id"] == asked[0]["id"] and kept["question"] == asked[0]["question"]
        assert [x["id"] for x in kept["candidates"]] == [x["id"] for x in asked[0]["candidates"]]
        choice = kept["candidates"][1]["id"]
        done = c.post(f"/v1/confirmations/{kept['id']}", json={"choice": choice}).json()
        assert done["memory"]["id"] == choice and done["memory"]["properties"]["status"] == "completed"
        assert c.get("/v1/confirmations").json()["confirmations"] == []
    assert (tmp_path / "pending.db").exists()
