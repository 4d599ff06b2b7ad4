"""The MCP server, driven by the official SDK's own client over stdio (a real `mnemir mcp` subprocess) and
streamable HTTP (a real uvicorn server on a loopback port)."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import mnemir

mcp = pytest.importorskip("mcp")
uvicorn = pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from mnemir.integrations.mcp import (  # noqa: E402
    AccessDenied,
    ApiKeyIdentity,
    LocalIdentity,
    MemoryTools,
    Principal,
    check_bind,
    http_app,
)

SRC = Path(__file__).resolve().parents[2] / "src"
TOOLS = {"remember", "recall", "search", "update_task", "forget", "confirm", "list_open_tasks"}


def run(main: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(main)


# -- HTTP: a real server in a thread ---------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def serve(tmp_path: Path, embedder: mnemir.Embedder) -> Iterator[Callable[..., str]]:
    """Start an HTTP MCP server over a fresh memory (``serve(identity=...)``); returns its URL."""
    started: list[tuple[Any, threading.Thread, mnemir.Memory]] = []

    def start(**kwargs: Any) -> str:
        memory = mnemir.open(tmp_path / f"m{len(started)}", embedder=embedder)
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(http_app(memory, **kwargs), host="127.0.0.1", port=port,
                                               log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        started.append((server, thread, memory))
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the MCP HTTP server did not start"
            time.sleep(0.02)
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for server, thread, memory in started:
        server.should_exit = True
        thread.join(10)
        memory.close()


def http_client(url: str, **headers: str) -> Client:
    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)))


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return dict(result.structured_content)


def error_of(result: Any) -> dict[str, Any]:
    """A mnemir tool error: its text ends with the error's JSON."""
    assert result.is_error
    text = result.content[0].text
    return dict(json.loads(text[text.index("{"):]))


# -- what both transports must do ---------------------------------------------------------------------------------
async def check_round_trip(client: Client) -> None:
    listed = await client.list_tools()
    by_name = {t.name: t for t in listed.tools}
    assert set(by_name) == TOOLS
    for tool in listed.tools:  # descriptions written for a model: when to call, the arguments, an example
        assert "Example:" in (tool.description or ""), tool.name
    assert "max_chars" in by_name["recall"].input_schema["properties"]
    assert by_name["recall"].annotations.read_only_hint and by_name["forget"].annotations.destructive_hint
    assert "user" not in by_name["recall"].input_schema["properties"]  # the server decides whose memory it is

    kept = structured(await client.call_tool("remember", {"text": "I am allergic to peanuts", "speaker": "user"}))
    [fact] = kept["created"]
    assert fact["type"] == "Fact" and fact["properties"]["attribute"] == "allergy"

    recalled = structured(await client.call_tool("recall", {"query": "what am I allergic to?", "max_chars": 600}))
    assert fact["id"] in [h["id"] for h in recalled["hits"]]
    assert "peanuts" in recalled["context"] and len(recalled["context"]) <= 600
    assert recalled["hits"][0]["role"]

    bad = error_of(await client.call_tool("search", {"query": "peanuts", "types": ["Memo"]}))
    assert bad["error"] == "validation_error" and bad["field"] == "types"  # the argument it came in
    assert "Memo" in bad["value"] and "Fact" in bad["allowed"]

    too_small = error_of(await client.call_tool("recall", {"query": "allergy", "max_chars": 5}))
    assert too_small["field"] == "max_chars" and "100" in too_small["allowed"]

    wrong_type = await client.call_tool("recall", {"query": "allergy", "k": "many"})
    assert wrong_type.is_error and "k" in wrong_type.content[0].text


def test_stdio_transport_with_the_sdk_client(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from mnemir.cli import main; main()", "--path", str(tmp_path / "stdio"), "mcp", "--user", "ann"],
        env=env)

    async def main() -> None:
        async with Client(params) as client:
            await check_round_trip(client)
            resources = await client.list_resources()
            assert "mnemir://ontology" in [str(r.uri) for r in resources.resources]
            ontology = json.loads((await client.read_resource("mnemir://ontology")).contents[0].text)
            assert "Task" in [t["name"] for t in ontology["types"]]

    run(main)
    with mnemir.open(tmp_path / "stdio") as mem:  # what the server wrote is in the user's scope it was given
        # the remembered utterance (an Episode) and what was read from it, all in ann's scope
        assert mem.count(user="ann", types=["Episode"]) == 1 and mem.count(user="ann") >= 2
        assert mem.count(user="default") == 0


def test_http_transport_with_the_sdk_client(serve: Callable[..., str]) -> None:
    url = serve(user="ann")

    async def main() -> None:
        async with http_client(url) as client:
            await check_round_trip(client)
            task = structured(await client.call_tool("remember", {"text": "please renew my passport next week"}))
            [made] = task["created"]
            assert made["type"] == "Task"
            pending = structured(await client.call_tool("search", {"types": ["Task"], "where": {"status": "待办"}}))
            assert [h["id"] for h in pending["hits"]] == [made["id"]]  # enum synonyms normalised, as everywhere
            unknown = error_of(await client.call_tool("search", {"where": {"status": {"$like": "p%"}}}))
            assert unknown["error"] == "validation_error" and "$like" in unknown["message"]
            opened = structured(await client.call_tool("list_open_tasks", {}))
            assert [t["id"] for t in opened["tasks"]] == [made["id"]]
            mine = json.loads((await client.read_resource("mnemir://users/me/tasks/open")).contents[0].text)
            assert [t["id"] for t in mine["tasks"]] == [made["id"]]
            done = structured(await client.call_tool("update_task", {"id": made["id"], "status": "completed"}))
            assert done["task"]["properties"]["status"] == "completed"
            assert structured(await client.call_tool("list_open_tasks", {}))["tasks"] == []
            illegal = error_of(await client.call_tool("update_task", {"id": made["id"], "status": "sideways"}))
            assert illegal["field"] == "status" and "completed" in str(illegal["allowed"])

    run(main)


def test_two_users_cannot_reach_each_other_over_http(serve: Callable[..., str]) -> None:
    url = serve()

    async def main() -> None:
        async with http_client(url, **{"X-Mnemir-User": "alice"}) as alice, \
                http_client(url, **{"X-Mnemir-User": "bob"}) as bob:
            [secret] = structured(await alice.call_tool("remember", {"text": "I am allergic to shellfish"}))["created"]
            [task] = structured(await alice.call_tool("remember", {"text": "please book a dentist appointment"}))[
                "created"]
            recalled = structured(await bob.call_tool("recall", {"query": "what am I allergic to?"}))
            assert secret["id"] not in [h["id"] for h in recalled["hits"]] and "shellfish" not in recalled["context"]
            assert structured(await bob.call_tool("search", {"query": "shellfish allergy"}))["hits"] == []
            assert structured(await bob.call_tool("list_open_tasks", {}))["tasks"] == []
            for name, args in (("forget", {"id": secret["id"], "hard": True}),
                               ("update_task", {"id": task["id"], "status": "completed"}),
                               ("confirm", {"id": secret["id"], "choice": "yes"})):
                assert error_of(await bob.call_tool(name, args))["error"] == "not_found", name
            with pytest.raises(mcp.MCPError):
                await bob.read_resource("mnemir://users/alice/tasks/open")
            still = structured(await alice.call_tool("search", {"query": "shellfish allergy"}))
            assert secret["id"] in [h["id"] for h in still["hits"]]  # beside the utterance it was read from
            assert [t["id"] for t in structured(await alice.call_tool("list_open_tasks", {}))["tasks"]] == [task["id"]]

    run(main)


def test_two_tenants_cannot_reach_each_other_over_http(serve: Callable[..., str]) -> None:
    url = serve(identity=ApiKeyIdentity({"key-acme": "acme", "key-globex": "globex"}))
    same_user = {"X-Mnemir-User": "alice"}  # the same user name in two tenants is two people

    async def main() -> None:
        async with http_client(url, Authorization="Bearer key-acme", **same_user) as acme, \
                http_client(url, Authorization="Bearer key-globex", **same_user) as globex, \
                http_client(url, Authorization="Bearer stolen", **same_user) as intruder:
            [fact] = structured(await acme.call_tool("remember", {"text": "my office is in Berlin"}))["created"]
            assert structured(await globex.call_tool("search", {"query": "office Berlin"}))["hits"] == []
            assert error_of(await globex.call_tool("forget", {"id": fact["id"]}))["error"] == "not_found"
            assert error_of(await intruder.call_tool("search", {"query": "office"}))["error"] == "unauthorized"
            assert fact["id"] in [h["id"] for h in
                                  structured(await acme.call_tool("search", {"query": "office Berlin"}))["hits"]]

    run(main)


# -- the parts without a transport ------------------------------------------------------------------------------------
def test_http_listens_beyond_localhost_only_with_authenticated_callers() -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        check_bind(host, LocalIdentity())
    with pytest.raises(mnemir.ConfigError) as refused:
        check_bind("0.0.0.0", LocalIdentity())
    assert refused.value.context["field"] == "host"
    check_bind("0.0.0.0", ApiKeyIdentity({"k": "t"}))


def test_identities() -> None:
    assert LocalIdentity("ann")(None) == Principal("ann")
    assert LocalIdentity("ann")({"X-Mnemir-User": "bob"}).scope_user == "bob"
    keyed = ApiKeyIdentity({"k1": "acme"})
    assert keyed({"authorization": "Bearer k1", "x-mnemir-user": "bob"}).scope_user == "acme:bob"
    for headers in (None, {}, {"authorization": "Bearer k2"}, {"authorization": "Basic k1"}):
        with pytest.raises(AccessDenied):
            keyed(headers)
    with pytest.raises(mnemir.ValidationError) as bad:  # ':' separates tenant and user in the scope
        LocalIdentity()({"x-mnemir-user": "acme:bob"})
    assert bad.value.field == "user"


def test_confirmations_and_hypotheses(mem: mnemir.Memory, now: Any) -> None:
    tools = MemoryTools(mem)
    carol = Principal("carol")
    first = tools.remember(carol, "帮我整理季度预算表", now=now)["created"][0]
    second = tools.remember(carol, "帮我整理年度预算表", now=now)["created"][0]
    asked = tools.remember(carol, "预算表整理好了", now=now)["confirmations"]
    [question] = asked
    assert {c["id"] for c in question["candidates"]} == {first["id"], second["id"]}
    assert tools.confirm(carol)["pending"][0]["id"] == question["id"]
    assert tools.confirm(Principal("dave"))["pending"] == []  # pending confirmations are per user too
    applied = tools.confirm(carol, question["id"], second["id"], now=now)["applied"]
    assert applied["id"] == second["id"] and applied["properties"]["status"] == "completed"
    assert tools.confirm(carol)["pending"] == []

    guess = mem.add("carol probably works night shifts", "Hypothesis",
                    {"entity": "carol", "attribute": "schedule", "value": "night shifts"}, user="carol", now=now)
    assert [h["id"] for h in tools.confirm(carol)["hypotheses"]] == [guess.id]
    with pytest.raises(mnemir.ValidationError) as unclear:
        tools.confirm(carol, guess.id, "maybe", now=now)
    assert unclear.value.field == "choice"
    fact = tools.confirm(carol, guess.id, "yes", now=now)["confirmed"]
    assert fact["type"] == "Fact" and fact["properties"]["value"] == "night shifts"
    with pytest.raises(mnemir.ValidationError):  # a Fact is not something to confirm
        tools.confirm(carol, fact["id"], "yes", now=now)
