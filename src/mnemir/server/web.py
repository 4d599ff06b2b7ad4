"""The web memory browser: server-rendered pages over the same facade calls as the API (no script, no CDN).

Pages: browse (by user, type, status and time, with a timeline), a memory (properties, provenance, history and
its relationships drawn as a small graph), recall (the inferred intent, each hit's role, score and reasons, and the
rendered context beside them) and the review queue (confirm / reject through the lifecycle calls of
:mod:`mnemir.server.review`). With API keys, a person signs in by pasting a key (kept in a same-site cookie).
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import UTC, date, timedelta
from importlib import resources
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from mnemir.errors import MnemirError, NotFoundError
from mnemir.ir import MemIR, MemoryStatus
from mnemir.server import review
from mnemir.server.api import RecallBody, recall_dict
from mnemir.server.auth import COOKIE, Access, Auth, Problem
from mnemir.server.problems import status_of
from mnemir.server.tenants import ServerConfig
from mnemir.store.base import ANY

_HERE = Path(str(resources.files("mnemir.server")))
STATIC = _HERE / "static"
TIMELINE_SAMPLE = 2000
PAGE = 50

_env = Environment(loader=FileSystemLoader(_HERE / "templates"), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)


def _short_time(value: str | None) -> str:
    return value[:16].replace("T", " ") if value else ""


_env.filters["when"] = _short_time


def build_web(auth: Auth, config: ServerConfig) -> APIRouter:
    router = APIRouter()

    def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = _env.get_template(template).render(multi=auth.multi, path=request.url.path, **values)
        return HTMLResponse(html, status_code=status)

    def access(request: Request) -> Access | Response:
        try:
            return auth.access(request.headers, request.cookies, request.state)
        except Problem as exc:
            if exc.status == 401:
                return RedirectResponse("/ui/login?" + urlencode({"next": str(request.url.path)}), 303)
            return page(request, "error.html", exc.status, title=exc.code, detail=exc.detail)

    def failed(request: Request, exc: MnemirError) -> HTMLResponse:
        return page(request, "error.html", status_of(exc), title=exc.code, detail=exc.message,
                    context=exc.to_dict())

    def scope_of(user: str | None) -> Any:
        return user if user else ANY

    @router.get("/")
    def home() -> RedirectResponse:
        return RedirectResponse("/ui/browse", 303)

    @router.get("/ui/login", response_class=HTMLResponse)
    def login_form(request: Request, next: str = "/ui/browse", error: str = "") -> HTMLResponse:
        return page(request, "login.html", next=next if next.startswith("/ui/") else "/ui/browse", error=error)

    @router.post("/ui/login")
    def login(request: Request, key: Annotated[str, Form(max_length=200)],
              next: Annotated[str, Form(max_length=300)] = "/ui/browse") -> Response:
        if auth.multi and (auth.keys is None or auth.keys.check(key.strip()) is None):
            return page(request, "login.html", 401, next=next, error="unknown or revoked key")
        target = next if next.startswith("/ui/") else "/ui/browse"
        response = RedirectResponse(target, 303)
        response.set_cookie(COOKIE, key.strip(), httponly=True, samesite="strict")
        return response

    @router.post("/ui/logout")
    def logout() -> Response:
        response = RedirectResponse("/ui/login", 303)
        response.delete_cookie(COOKIE)
        return response

    @router.get("/ui/browse", response_class=HTMLResponse)
    def browse(request: Request, user: str = "", type: str = "", status: str = "", day: str = "",
               offset: Annotated[int, Query(ge=0)] = 0) -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        mem = a.tenant.memory
        try:
            where = None
            if day:
                start = date.fromisoformat(day)
                where = {"@created_at": {"$gte": start.isoformat(),
                                         "$lt": (start + timedelta(days=1)).isoformat()}}
            statuses = [status] if status else [s.value for s in MemoryStatus if s != MemoryStatus.deleted]
            items = mem.list(types=[type] if type else None, where=where, user=scope_of(user), statuses=statuses,
                             limit=PAGE + 1, offset=offset)
            sample = mem.list(types=[type] if type else None, user=scope_of(user), statuses=statuses,
                              limit=TIMELINE_SAMPLE)
            users = known_users(mem)
        except (MnemirError, ValueError) as exc:
            if isinstance(exc, MnemirError):
                return failed(request, exc)
            return page(request, "error.html", 422, title="validation_error", detail=f"bad day {day!r}: {exc}")
        filters = {"user": user, "type": type, "status": status, "day": day}
        more = len(items) > PAGE
        return page(request, "browse.html", items=items[:PAGE], users=users, filters=filters,
                    types=sorted(t["name"] for t in mem.ontology.describe()["types"]),
                    statuses=[s.value for s in MemoryStatus], timeline=_timeline(sample, filters),
                    offset=offset, next_offset=offset + PAGE if more else None,
                    prev_offset=max(0, offset - PAGE) if offset else None,
                    query=lambda **kw: urlencode({k: v for k, v in {**filters, **kw}.items() if v not in ("", None)}),
                    tenant=a.tenant.name)

    @router.get("/ui/memory/{memory_id}", response_class=HTMLResponse)
    def memory_page(request: Request, memory_id: str) -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        mem = a.tenant.memory
        try:
            record = mem.get(memory_id, user=ANY, include_deleted=True)
            history = mem.history(memory_id, user=ANY)
        except MnemirError as exc:
            return failed(request, exc)
        links = _links(mem, record)
        return page(request, "memory.html", m=record, props=record.properties, history=history, links=links,
                    graph=_graph(record, links), tenant=a.tenant.name)

    @router.get("/ui/recall", response_class=HTMLResponse)
    def recall_page(request: Request, q: Annotated[str, Query(max_length=16_000)] = "", user: str = "",
                    k: Annotated[int, Query(ge=1, le=50)] = 5) -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        result = None
        if q.strip():
            try:
                result = recall_dict(a.tenant, RecallBody(query=q, user=user or None, k=k))
            except MnemirError as exc:
                return failed(request, exc)
        return page(request, "recall.html", q=q, user=user, k=k, result=result, tenant=a.tenant.name,
                    users=known_users(a.tenant.memory))

    @router.get("/ui/review", response_class=HTMLResponse)
    def review_page(request: Request, user: str = "", done: str = "") -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        try:
            items = review.queue(a.tenant, user=scope_of(user), low_confidence=config.low_confidence)
        except MnemirError as exc:
            return failed(request, exc)
        return page(request, "review.html", user=user, q=items, done=done, tenant=a.tenant.name,
                    users=known_users(a.tenant.memory))

    @router.post("/ui/review/{memory_id}")
    def review_decide(request: Request, memory_id: str, decision: Annotated[str, Form(max_length=16)],
                      user: Annotated[str, Form(max_length=256)] = "") -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        try:
            result = review.decide(a.tenant, memory_id, decision, user=ANY, actor="web review")
        except MnemirError as exc:
            return failed(request, exc)
        note = f"{result['action']} {memory_id}"
        return RedirectResponse("/ui/review?" + urlencode({"user": user, "done": note}), 303)

    @router.post("/ui/confirmations/{confirmation_id}")
    def answer(request: Request, confirmation_id: str, choice: Annotated[str, Form(max_length=128)] = "",
               user: Annotated[str, Form(max_length=256)] = "") -> Response:
        a = access(request)
        if isinstance(a, Response):
            return a
        try:
            review.answer(a.tenant, confirmation_id, choice or None)
        except MnemirError as exc:
            return failed(request, exc)
        return RedirectResponse("/ui/review?" + urlencode({"user": user, "done": f"answered {confirmation_id}"}),
                                303)

    return router


def known_users(mem: Any) -> list[str]:
    """The users of the latest memories (a sample: the store keeps no list of users)."""
    return sorted({r.scope.user_id for r in mem.list(user=ANY, statuses=list(MemoryStatus), limit=TIMELINE_SAMPLE)
                   if r.scope.user_id})


def _timeline(records: list[MemIR], filters: dict[str, str]) -> dict[str, Any]:
    """Memories per day (created), as bars of a small SVG; each bar links to that day."""
    days = Counter(r.metadata.created_at.astimezone(UTC).date() for r in records)
    if not days:
        return {"bars": [], "width": 0, "height": 0}
    first, last = min(days), max(days)
    span = min((last - first).days + 1, 120)
    first = last - timedelta(days=span - 1)
    peak = max(days.values())
    step = max(8, min(24, 900 // span))  # a few days get wide bars, four months narrow ones
    width, height, bar = max(240, span * step), 70, step - 2
    bars = []
    for i in range(span):
        day = first + timedelta(days=i)
        n = days.get(day, 0)
        h = 0 if n == 0 else max(3, round(50 * n / peak))
        query = urlencode({k: v for k, v in {**filters, "day": day.isoformat()}.items() if v})
        bars.append({"x": i * step + 1, "y": 56 - h, "w": bar, "h": h, "n": n, "day": day.isoformat(),
                     "href": f"/ui/browse?{query}", "selected": filters.get("day") == day.isoformat()})
    return {"bars": bars, "width": width, "height": height, "first": first.isoformat(), "last": last.isoformat(),
            "sampled": len(records)}


def _links(mem: Any, record: MemIR) -> list[dict[str, Any]]:
    """Relationships leaving and entering a memory, with the other memory's type and text (same store)."""
    out: list[dict[str, Any]] = []
    edges = [("out", e.relation, e.target) for e in mem.store.edges([record.id], direction="out")]
    edges += [("in", e.relation, e.source) for e in mem.store.edges([record.id], direction="in")]
    for direction, relation, other_id in edges[:40]:
        try:
            other = mem.get(other_id, user=ANY, include_deleted=True)
            out.append({"direction": direction, "relation": relation, "id": other_id, "type": other.type,
                        "text": other.content.text, "status": other.status.value})
        except NotFoundError:
            out.append({"direction": direction, "relation": relation, "id": other_id, "type": "?",
                        "text": "(not in this store)", "status": "missing"})
    return out


def _graph(record: MemIR, links: list[dict[str, Any]]) -> dict[str, Any]:
    """A radial layout: the memory in the middle, each related memory on a circle, arrows by direction."""
    width, height, cx, cy, radius = 560, 360, 280, 180, 130
    nodes = [{"x": cx, "y": cy, "label": record.type, "text": record.content.text[:18], "id": record.id,
              "center": True}]
    edges = []
    count = max(1, len(links))
    for i, link in enumerate(links):
        angle = 2 * math.pi * i / count - math.pi / 2
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        nodes.append({"x": round(x, 1), "y": round(y, 1), "label": link["type"], "text": link["text"][:18],
                      "id": link["id"], "center": False})
        (x1, y1), (x2, y2) = ((cx, cy), (x, y)) if link["direction"] == "out" else ((x, y), (cx, cy))
        shrink = 34 / max(1.0, math.hypot(x2 - x1, y2 - y1))
        edges.append({"x1": round(x1 + (x2 - x1) * shrink, 1), "y1": round(y1 + (y2 - y1) * shrink, 1),
                      "x2": round(x2 - (x2 - x1) * shrink, 1), "y2": round(y2 - (y2 - y1) * shrink, 1),
                      "label": link["relation"], "lx": round((x1 + x2) / 2, 1), "ly": round((y1 + y2) / 2 - 4, 1)})
    return {"width": width, "height": height, "nodes": nodes, "edges": edges}


