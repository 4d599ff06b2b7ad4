"""mnemir as a Model Context Protocol server (``mnemir mcp``; extra ``mcp``), built on the official ``mcp`` SDK.

Tools: ``remember``, ``recall``, ``search``, ``update_task``, ``forget``, ``confirm``, ``list_open_tasks``.
Resources: ``mnemir://ontology`` and ``mnemir://users/{user}/tasks/open`` (``me`` names the caller).
Transports: stdio (:func:`serve_stdio`) and streamable HTTP (:func:`serve_http`, :func:`http_app`).

Who a call is for is decided by the server, never by a tool argument: an identity (see
:mod:`mnemir.integrations._tools`) turns the request's headers into a :class:`Principal`. Over stdio that is the
``user`` the server was started with. Over HTTP, :class:`LocalIdentity` reads ``X-Mnemir-User``: it trusts every
caller, so the server then listens on a loopback address only. An identity that authenticates
(:class:`ApiKeyIdentity`, or the HTTP API's own keys) lets it listen elsewhere.

Errors: a :class:`mnemir.MnemirError` comes back as a tool error whose text is its JSON (``error``, ``message``,
``field``, ``value``, ``allowed``); arguments of the wrong JSON type are refused by the SDK's schema check.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from mnemir.errors import ConfigError, MissingDependencyError, MnemirError
from mnemir.integrations._tools import (
    AccessDenied,
    ApiKeyIdentity,
    Identity,
    LocalIdentity,
    MemoryTools,
    Principal,
)
from mnemir.memory import Memory

try:
    import anyio
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp_types import ToolAnnotations
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised by simulating the missing package
    raise MissingDependencyError("the MCP server (mnemir.integrations.mcp)", "mcp", "mcp") from exc

__all__ = [
    "AccessDenied",
    "ApiKeyIdentity",
    "Identity",
    "LocalIdentity",
    "MemoryTools",
    "Principal",
    "build_server",
    "check_bind",
    "http_app",
    "serve_http",
    "serve_stdio",
]

T = TypeVar("T")
READS = ToolAnnotations(read_only_hint=True)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
LOOPBACK_NAMES = ("localhost",)
DEFAULT_PORT = 8765

INSTRUCTIONS = """\
mnemir is the user's long-term memory. It keeps typed memories: facts, preferences, tasks, plans, feelings,
hypotheses. Call `recall` before you answer anything that may depend on what the user said in earlier
conversations, and put its `context` block in your reasoning. Call `remember` after each user turn with what the
user said (and with your own commitments, speaker "assistant"). Use `list_open_tasks` to follow up on what the user
asked you to do, and `update_task` when a task is done or failed. If `remember` returns confirmations, ask the
user the question and answer it with `confirm`."""

REMEMBER = """\
Store what a conversation turn says that is worth keeping. Call it after every user turn, with the user's words
verbatim; mnemir decides what to keep and types it (Fact, Preference, Task, Plan, EmotionalState, ...), updates
tasks the user reports on ("the report is done") and supersedes corrected facts. Small talk is dropped.
Arguments: text: the utterance, verbatim (Chinese or English); speaker: "user" (default) or "assistant" (your own
commitments); session: optional conversation id.
Returns the memories created and updated, notes on what was skipped, and `confirmations`: changes it was unsure
where to apply; ask the user each `question` and answer with `confirm`.
Example: {"text": "I'm allergic to peanuts and need the visa form filed by Friday", "speaker": "user"}"""

RECALL = """\
Recall what serves a question, by role: facts answer it, preferences and feelings are background, tasks are
things to do. Call it before answering anything that may depend on earlier conversations.
Arguments: query: the user's question or the topic, in their words; k: at most this many memories (default 5);
max_chars: the context block's size limit in characters (default 2000; the lowest-ranked lines are left out).
Returns `context`, a prompt block that states each memory's role and source (paste it into your reasoning as is),
and `hits`, the same memories as data (id, type, role, text, properties, flags).
Example: {"query": "what should I cook for dinner tonight?", "max_chars": 1200}"""

SEARCH = """\
Search memories with filters, when you need exact records rather than an answer: "all my pending tasks", "facts
about Shanghai". Prefer `recall` for answering a question.
Arguments: query: words to match (may be empty with filters); types: memory types to keep, e.g. ["Task"] or
["Fact", "Preference"] (see the ontology resource for all types); where: a filter on properties, e.g.
{"status": {"$in": ["pending", "in_progress"]}}, {"deadline": {"$lte": "2026-12-31"}}, {"subject": {"$contains":
"coffee"}}; operators $in $nin $gt $gte $lt $lte $exists $contains $or $and $not; k: at most this many hits
(default 10); include_archived: also search archived memories.
Example: {"query": "report", "types": ["Task"], "where": {"status": "pending"}}"""

UPDATE_TASK = """\
Move a task through its lifecycle: pending -> in_progress -> completed or failed (a closed task may be reopened).
Call it when the user says a task is done, started, abandoned or back on. Its plan steps follow it.
Arguments: id: the task's id (from list_open_tasks, recall or search); status: pending, in_progress, completed or
failed; reason: optional, why (kept in the task's history).
Example: {"id": "mem_4c33983f...", "status": "completed", "reason": "user filed the form"}"""

FORGET = """\
Forget one memory. By default it is marked deleted and kept only in history; hard=true erases it. Call it when
the user asks you to forget something or a memory is plainly wrong.
Arguments: id: the memory's id; hard: erase completely (default false); reason: optional, why.
Example: {"id": "mem_4c33983f...", "reason": "user asked to forget it"}"""

CONFIRM = """\
Settle what awaits the user's word. With no arguments it lists what is pending: confirmations from `remember`
(an update or correction it was unsure where to apply, with a question and candidates) and hypotheses (guesses
about the user not yet confirmed). Then, after asking the user:
- a confirmation: id = its id ("cf-..."), choice = the id of the candidate the user meant, or "none";
- a hypothesis: id = its memory id, choice = "yes" (it becomes a Fact) or "no" (it is dropped).
Example: {"id": "cf-3f2a9c01de", "choice": "mem_4c33983f..."}"""

LIST_OPEN_TASKS = """\
The user's open tasks (pending or in progress), newest first, each with its deadline and whether it is overdue.
Call it at the start of a conversation or when the user asks what is left to do.
Arguments: limit: at most this many (default 50).
Example: {}"""


def _loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, identity: Identity) -> None:
    """Refuse to listen beyond localhost with an identity that trusts every caller."""
    if not _loopback(host) and not getattr(identity, "authenticates", False):
        raise ConfigError(
            f"the MCP HTTP transport listens on localhost only unless callers are authenticated (API keys); "
            f"got host {host!r}", field="host", value=host, allowed=["127.0.0.1", "::1", "localhost"])


def build_server(memory: Memory, *, user: str = "default", identity: Identity | None = None) -> MCPServer:
    """An MCP server over ``memory``. ``identity`` decides who each call is for (default:
    :class:`LocalIdentity` with ``user``)."""
    from mnemir import __version__

    tools = MemoryTools(memory)
    who_is = identity if identity is not None else LocalIdentity(user)
    Principal(user)  # the default user is checked now, not at the first call
    lock = anyio.Lock()
    server: MCPServer = MCPServer("mnemir", title="mnemir memory", instructions=INSTRUCTIONS, version=__version__,
                                  log_level="WARNING")

    def principal(ctx: Context | None) -> Principal:
        return who_is(ctx.headers if ctx is not None else None)

    async def run(ctx: Context | None, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            who = principal(ctx)
            async with lock:  # a store connection serves one thread at a time
                return await anyio.to_thread.run_sync(functools.partial(fn, who, *args, **kwargs))
        except MnemirError as exc:
            raise ToolError(json.dumps(exc.to_dict(), ensure_ascii=False)) from exc

    @server.tool(description=REMEMBER, annotations=WRITES)
    async def remember(
        text: Annotated[str, Field(description="the utterance, verbatim")],
        ctx: Context,
        speaker: Annotated[str, Field(description='"user" or "assistant"')] = "user",
        session: Annotated[str | None, Field(description="optional conversation id")] = None,
    ) -> dict[str, Any]:
        return await run(ctx, tools.remember, text, speaker=speaker, session=session)

    @server.tool(description=RECALL, annotations=READS)
    async def recall(
        query: Annotated[str, Field(description="the question or topic, in the user's words")],
        ctx: Context,
        k: Annotated[int, Field(description="at most this many memories")] = 5,
        max_chars: Annotated[int, Field(description="size limit of the context block, in characters")] = 2000,
    ) -> dict[str, Any]:
        return await run(ctx, tools.recall, query, k=k, max_chars=max_chars)

    @server.tool(description=SEARCH, annotations=READS)
    async def search(
        ctx: Context,
        query: Annotated[str, Field(description="words to match; may be empty when filtering")] = "",
        types: Annotated[list[str] | None, Field(description='memory types, e.g. ["Task"]')] = None,
        where: Annotated[dict[str, Any] | None, Field(description="a filter on properties")] = None,
        k: Annotated[int, Field(description="at most this many hits")] = 10,
        include_archived: Annotated[bool, Field(description="also search archived memories")] = False,
    ) -> dict[str, Any]:
        return await run(ctx, tools.search, query, types=types, where=where, k=k, include_archived=include_archived)

    @server.tool(description=UPDATE_TASK, annotations=WRITES)
    async def update_task(
        id: Annotated[str, Field(description="the task's memory id")],
        status: Annotated[str, Field(description="pending, in_progress, completed or failed")],
        ctx: Context,
        reason: Annotated[str, Field(description="why, kept in the history")] = "",
    ) -> dict[str, Any]:
        return await run(ctx, tools.update_task, id, status, reason=reason)

    @server.tool(description=FORGET, annotations=ERASES)
    async def forget(
        id: Annotated[str, Field(description="the memory's id")],
        ctx: Context,
        hard: Annotated[bool, Field(description="erase completely instead of marking deleted")] = False,
        reason: Annotated[str, Field(description="why, kept in the history")] = "",
    ) -> dict[str, Any]:
        return await run(ctx, tools.forget, id, hard=hard, reason=reason)

    @server.tool(description=CONFIRM, annotations=WRITES)
    async def confirm(
        ctx: Context,
        id: Annotated[str | None, Field(description="a confirmation id (cf-...) or a Hypothesis id; "
                                                    "omit to list what is pending")] = None,
        choice: Annotated[str | None, Field(description='the chosen candidate id or "none"; for a hypothesis '
                                                        '"yes" or "no"')] = None,
    ) -> dict[str, Any]:
        return await run(ctx, tools.confirm, id, choice)

    @server.tool(description=LIST_OPEN_TASKS, annotations=READS)
    async def list_open_tasks(
        ctx: Context,
        limit: Annotated[int, Field(description="at most this many tasks")] = 50,
    ) -> dict[str, Any]:
        return await run(ctx, tools.list_open_tasks, limit=limit)

    @server.resource("mnemir://ontology", name="ontology", mime_type="application/json",
                     description="The memory types, their properties and allowed values (JSON).")
    def ontology() -> str:
        return json.dumps(tools.ontology(), ensure_ascii=False)

    @server.resource("mnemir://users/{user}/tasks/open", name="open_tasks", mime_type="application/json",
                     description="A user's open tasks (JSON); 'me' names the caller. Only the caller's own user "
                                 "can be read.")
    async def open_tasks(user: str, ctx: Context) -> str:
        try:
            who = principal(ctx)
        except MnemirError as exc:
            raise ResourceError(exc.message) from exc
        if user not in ("me", who.user):
            raise ResourceError(f"only your own open tasks can be read: ask for users/me or users/{who.user}")
        async with lock:
            found = await anyio.to_thread.run_sync(functools.partial(tools.list_open_tasks, who))
        return json.dumps(found, ensure_ascii=False)

    return server


def http_app(memory: Memory, *, user: str = "default", identity: Identity | None = None, host: str = "127.0.0.1",
             path: str = "/mcp") -> Any:
    """The streamable-HTTP ASGI app (Starlette), for mounting in another app; see :func:`serve_http`."""
    who_is = identity if identity is not None else LocalIdentity(user)
    check_bind(host, who_is)
    return build_server(memory, user=user, identity=who_is).streamable_http_app(streamable_http_path=path, host=host)


def serve_http(memory: Memory, *, user: str = "default", identity: Identity | None = None, host: str = "127.0.0.1",
               port: int = DEFAULT_PORT, path: str = "/mcp", log_level: str = "warning") -> None:
    """Serve over streamable HTTP at ``http://host:port/path`` until interrupted (localhost unless ``identity``
    authenticates)."""
    import uvicorn

    app = http_app(memory, user=user, identity=identity, host=host, path=path)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level)).run()


def serve_stdio(memory: Memory, *, user: str = "default") -> None:
    """Serve over stdin/stdout (what MCP clients such as Claude Desktop start) until the client closes it."""
    build_server(memory, user=user).run("stdio")

