"""The ASGI application: the JSON API, the web memory browser, ``/healthz`` and the error translation."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from mnemir.embed import Embedder
from mnemir.errors import MnemirError
from mnemir.server import problems
from mnemir.server.api import ProblemDetails, build_router
from mnemir.server.auth import Auth, Problem
from mnemir.server.guard import Guard
from mnemir.server.keys import KeyStore
from mnemir.server.tenants import LOCAL, ServerConfig, Tenants

log = logging.getLogger("mnemir.server")
API_VERSION = "1"


def _problem_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=body["status"], media_type=problems.MEDIA_TYPE, headers=headers)


def create_app(config: ServerConfig | None = None, *, keys: KeyStore | None = None, multi: bool | None = None,
               embedder: Embedder | None = None) -> FastAPI:
    """The server's app. ``multi`` (tenants behind API keys) defaults to whether ``keys`` holds an active key;
    without keys one store is served, with no authentication (bind it to localhost only). ``embedder``: one
    already loaded (default: the one ``config.memory`` names, loaded with the first store)."""
    from mnemir import __version__

    config = config or ServerConfig()
    multi = (keys is not None and keys.has_active()) if multi is None else multi
    tenants = Tenants(config, multi=multi, embedder=embedder)
    auth = Auth(keys if multi else None, tenants)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not multi:  # open the one store (and load the models) before the first request, not during it
            import asyncio

            await asyncio.to_thread(tenants.get, LOCAL)
        log.info("ready", extra={"fields": {"mode": "tenants" if multi else "local"}})
        yield
        # uvicorn has stopped accepting and waited for the requests in flight: every acknowledged write is
        # committed; close the stores (each waits for a write still holding its lock)
        tenants.close()
        if keys is not None:
            keys.close()
        log.info("stopped: stores closed", extra={"fields": {}})

    # no Swagger UI / ReDoc pages: they load their scripts from a CDN; the document itself is at /openapi.json
    app = FastAPI(title="mnemir", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Typed long-term memory for AI agents: the HTTP API over the `Memory` facade. "
                              "Errors are RFC 9457 problem details (application/problem+json) naming the field, "
                              "the bad value and what is allowed. With API keys, each key's tenant is a store of "
                              "its own; send the key as `Authorization: Bearer <key>`.")
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:  # the error responses refer to ProblemDetails, which no route returns
            spec = FastAPI.openapi(app)
            schemas = spec.setdefault("components", {}).setdefault("schemas", {})
            schemas["ProblemDetails"] = ProblemDetails.model_json_schema(ref_template="#/components/schemas/{model}")
            return spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.state.tenants = tenants
    app.state.auth = auth
    app.state.config = config

    def request_id(request: Request) -> str | None:
        return getattr(request.state, "request_id", None)

    @app.exception_handler(MnemirError)
    async def mnemir_error(request: Request, exc: MnemirError) -> JSONResponse:
        body = problems.from_error(exc, instance=request.url.path, request_id=request_id(request))
        if body["status"] >= 500:
            log.error("error", extra={"fields": {"request_id": request_id(request), "code": exc.code,
                                                 "detail": exc.message}})
        return _problem_response(body)

    @app.exception_handler(Problem)
    async def own_problem(request: Request, exc: Problem) -> JSONResponse:
        body = problems.problem(exc.status, exc.code, exc.detail, instance=request.url.path,
                                request_id=request_id(request), **exc.extra)
        return _problem_response(body, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [dict(e) for e in exc.errors()]
        return _problem_response(problems.from_pydantic(errors, instance=request.url.path,
                                                        request_id=request_id(request)))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        headers = dict(exc.headers or {})
        extra: dict[str, Any] = {}
        if exc.status_code == 405:  # Starlette names the methods of the first route matching the path only
            allowed = _methods_of(request.app, request.scope.get("path", ""))
            headers["Allow"] = ", ".join(allowed)
            extra = {"field": "method", "value": request.method, "allowed": allowed}
        body = problems.problem(exc.status_code, code, str(exc.detail), instance=request.url.path,
                                request_id=request_id(request), **extra)
        return _problem_response(body, headers)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", extra={"fields": {"request_id": request_id(request)}})
        return _problem_response(problems.problem(500, "internal", "the server failed; the request id is in the "
                                                  "log", instance=request.url.path, request_id=request_id(request)))

    @app.get("/healthz", tags=["operations"], summary="Liveness and mode")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "api": API_VERSION,
                "mode": "tenants" if multi else "local"}

    app.include_router(build_router(config))
    from mnemir.server.web import build_web

    app.include_router(build_web(auth, config), include_in_schema=False)
    from fastapi.staticfiles import StaticFiles

    from mnemir.server.web import STATIC

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(Guard, max_body_bytes=config.max_body_bytes, max_import_bytes=config.max_import_bytes,
                       max_depth=config.max_depth, local_only=not multi)
    return app


def _methods_of(app: FastAPI, path: str) -> list[str]:
    """Every method some route of ``app`` answers at ``path``."""
    from starlette.routing import Route

    found: set[str] = set()
    for route in app.routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            found |= route.methods
    return sorted(found)


def openapi_spec(app: FastAPI | None = None) -> dict[str, Any]:
    """The OpenAPI document (the one served at ``/openapi.json``; a copy is kept in docs/openapi.json)."""
    app = app or create_app(ServerConfig(), multi=False)  # opens no store
    return app.openapi()
