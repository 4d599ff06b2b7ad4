"""Errors as RFC 9457 problem details (``application/problem+json``).

MnemirError subclasses are translated here and nowhere else: the status, a stable ``type`` URI per error code,
and the error's own context (``field``, ``value``, ``allowed`` ...) as extension members.
"""

from __future__ import annotations

import json
from typing import Any

from mnemir.errors import (
    ConfigError,
    ConflictError,
    EndpointError,
    InvalidTransitionError,
    MissingDependencyError,
    MnemirError,
    NotFoundError,
    StoreError,
    ValidationError,
)

MEDIA_TYPE = "application/problem+json"
TITLES = {400: "Bad request", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed",
          409: "Conflict", 413: "Content too large", 415: "Unsupported media type", 422: "Unprocessable content",
          429: "Too many requests", 500: "Internal server error", 501: "Not implemented", 502: "Bad gateway",
          503: "Service unavailable"}


def status_of(exc: MnemirError) -> int:
    if isinstance(exc, InvalidTransitionError):
        return 409
    if isinstance(exc, ValidationError):
        return 422
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, MissingDependencyError):
        return 501
    if isinstance(exc, EndpointError):
        return 502
    if isinstance(exc, ConfigError):
        return 500
    return 500


def problem(status: int, code: str, detail: str, *, instance: str | None = None, request_id: str | None = None,
            **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"type": f"urn:mnemir:problem:{code}", "title": TITLES.get(status, "Error"),
                            "status": status, "detail": detail}
    if instance is not None:
        body["instance"] = instance
    if request_id is not None:
        body["request_id"] = request_id
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def from_error(exc: MnemirError, *, instance: str | None = None, request_id: str | None = None) -> dict[str, Any]:
    data = exc.to_dict()
    data.pop("error", None)
    data.pop("message", None)
    return problem(status_of(exc), exc.code, exc.message, instance=instance, request_id=request_id, **data)


def from_pydantic(errors: list[dict[str, Any]], *, instance: str | None = None,
                  request_id: str | None = None) -> dict[str, Any]:
    """FastAPI's request validation errors: the first names the field; all are listed under ``errors``."""
    listed = []
    for err in errors:
        if err.get("type") == "json_invalid":  # FastAPI puts the character position where the field would be
            where = err.get("loc", ("body", "?"))[-1]
            why = (err.get("ctx") or {}).get("error", "")
            listed.append({"field": "body", "value": f"character {where}", "allowed": "a JSON document",
                           "message": f"not valid JSON at character {where}" + (f" ({why})" if why else "")})
            continue
        loc = [str(p) for p in err.get("loc", ())]
        if loc and loc[0] in ("body", "query", "path", "header", "cookie"):  # where it was, not a field (a body
            loc = loc[1:]                                                     # field may be named "query")
        listed.append({"field": ".".join(loc) or "body", "value": _short(err.get("input")),
                       "allowed": _allowed(err), "message": err.get("msg", "")})
    first = listed[0] if listed else {"field": "body", "value": None, "allowed": None, "message": "invalid"}
    detail = f"invalid {first['field']}: {first['message']}" + (f" (and {len(listed) - 1} more)"
                                                               if len(listed) > 1 else "")
    return problem(422, "validation_error", detail, instance=instance, request_id=request_id, field=first["field"],
                   value=first["value"], allowed=first["allowed"], errors=listed)


def _allowed(err: dict[str, Any]) -> Any:
    ctx = err.get("ctx") or {}
    kind = err.get("type", "")
    if "expected" in ctx:
        return str(ctx["expected"])
    for key, word in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"), ("max_length", "length <="),
                      ("min_length", "length >=")):
        if key in ctx:
            return f"{word} {ctx[key]}"
    if kind == "extra_forbidden":
        return "no such field (see the OpenAPI schema)"
    if kind == "missing":
        return "required"
    return kind or None


def _short(value: Any, limit: int = 120) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
