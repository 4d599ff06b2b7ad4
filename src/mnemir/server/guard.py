"""The ASGI layer in front of every route: request ids, structured logs, body size and JSON depth limits."""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mnemir.server.problems import MEDIA_TYPE, problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("mnemir.server")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
#: paths whose body is a JSONL file, not one JSON document
IMPORT_PATHS = ("/v1/import",)


class JsonFormatter(logging.Formatter):
    """One JSON object per log line (time, level, message and the record's ``fields``)."""

    def format(self, record: logging.LogRecord) -> str:
        line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) +
                f".{int(record.msecs):03d}Z", "level": record.levelname.lower(), "logger": record.name,
                "msg": record.getMessage()}
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def depth_of(value: Any) -> int:
    """Nesting depth of parsed JSON (objects and arrays; a scalar is 0)."""
    best = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            best = max(best, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return best


class Guard:
    """Gives each request an id (``X-Request-ID``, taken from the client when well formed), logs one line per
    request with it, and refuses bodies over the size limit (413) or nested deeper than allowed (422)."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_import_bytes: int, max_depth: int,
                 local_only: bool = False) -> None:
        self.app = app
        self.max_body = max_body_bytes
        self.max_import = max_import_bytes
        self.max_depth = max_depth
        #: without keys: only requests addressed to localhost (a page on another site that resolves its own
        #: name to 127.0.0.1 cannot use the server through the visitor's browser)
        self.local_only = local_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        given = headers.get("x-request-id", "")
        request_id = given if _REQUEST_ID.match(given) else secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        path = scope.get("path", "")
        started = time.perf_counter()
        status = {"code": 500}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            limit = self.max_import if path.startswith(IMPORT_PATHS) else self.max_body
            refused = self._check_origin(headers, scope.get("method", ""), path, request_id)
            body_receive = receive
            if refused is None and scope.get("method") in ("POST", "PUT", "PATCH", "DELETE"):
                refused, body_receive = await self._read_body(headers, receive, limit, path, request_id)
            if refused is not None:
                await _send_problem(send_with_id, refused)
            else:
                await self.app(scope, body_receive, send_with_id)
        finally:
            fields = {"request_id": request_id, "method": scope.get("method"), "path": path,
                      "status": status["code"], "ms": round((time.perf_counter() - started) * 1000, 2),
                      "tenant": scope["state"].get("tenant"), "key_id": scope["state"].get("key_id")}
            log.info("request", extra={"fields": fields})

    async def _read_body(self, headers: dict[str, str], receive: Receive, limit: int, path: str,
                         request_id: str) -> tuple[dict[str, Any] | None, Receive]:
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return self._too_large(int(declared), limit, path, request_id), receive
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None, receive
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return self._too_large(size, limit, path, request_id), receive
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if body and "json" in headers.get("content-type", "") and not path.startswith(IMPORT_PATHS):
            refused = self._check_json(body, path, request_id)
            if refused is not None:
                return refused, receive
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return None, replay

    def _check_origin(self, headers: dict[str, str], method: str, path: str,
                      request_id: str) -> dict[str, Any] | None:
        host = headers.get("host", "")
        if self.local_only and _hostname(host) not in LOCAL_NAMES:
            return problem(403, "not_local", "this server has no API keys and answers requests to localhost only",
                           instance=path, request_id=request_id, field="Host", value=host,
                           allowed=sorted(LOCAL_NAMES))
        origin = headers.get("origin")
        if method not in ("GET", "HEAD", "OPTIONS") and origin and origin != "null" and \
                origin.split("://", 1)[-1] != host:
            return problem(403, "cross_origin", "a write from a page of another origin is refused", instance=path,
                           request_id=request_id, field="Origin", value=origin, allowed=f"http://{host}")
        return None

    def _too_large(self, size: int, limit: int, path: str, request_id: str) -> dict[str, Any]:
        return problem(413, "too_large", f"the request body is larger than {limit} bytes", instance=path,
                       request_id=request_id, field="body", value=f"{size} bytes or more",
                       allowed=f"at most {limit} bytes")

    def _check_json(self, body: bytes, path: str, request_id: str) -> dict[str, Any] | None:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:  # FastAPI would answer a bare 400 naming nothing
            return problem(422, "validation_error", "the request body is not UTF-8", instance=path,
                           request_id=request_id, field="body", value=repr(body[exc.start:exc.start + 8]),
                           allowed="a JSON document in UTF-8")
        try:
            parsed = json.loads(text)
        except RecursionError:
            depth = None
        except ValueError:
            return None  # the route reports malformed JSON with its position
        else:
            depth = depth_of(parsed)
            if depth <= self.max_depth:
                return None
        return problem(422, "too_deep", f"the request body is nested deeper than {self.max_depth} levels",
                       instance=path, request_id=request_id, field="body",
                       value=f"depth {depth}" if depth is not None else "too deep to parse",
                       allowed=f"at most {self.max_depth} levels of objects and arrays")


def _hostname(host: str) -> str:
    """The name in a Host header, without the port ('[::1]:8765' -> '::1')."""
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _send_problem(send: Send, body: dict[str, Any]) -> None:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": body["status"],
                "headers": [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(data)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": data})
