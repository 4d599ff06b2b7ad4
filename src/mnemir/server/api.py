"""The JSON API (``/v1``): each route checks its input, calls the ``Memory`` facade and returns its ``to_dict``.

No memory logic lives here. Writes take the tenant's write lock (governance reads before it writes), except ``add``,
whose concurrent calls share the store's group commit; reads run concurrently.
"""

from __future__ import annotations

import io
import json
import re
import secrets
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, WithJsonSchema

from mnemir.errors import ValidationError
from mnemir.ir import MemIR, MemoryStatus
from mnemir.server import review
from mnemir.server.auth import Access, Auth, Problem
from mnemir.server.tenants import ServerConfig, Tenant
from mnemir.store.base import ANY

MAX_TURNS = 500
JSONL_TYPES = frozenset({"application/x-ndjson", "application/jsonl", "application/x-jsonlines"})
#: most items one page of a listing returns
MAX_PAGE = 200
MAX_TEXT = 16_000
#: text that holds something besides white space; the memory layer refuses blank scopes, texts and queries, so the
#: schema says so. The white space is Python's str.isspace, written out: a schema's ``\s`` is read differently by
#: JSON Schema's ECMA-262 regexes (no U+0085, but U+FEFF) than by the server's.
NOT_BLANK = r"[^\x09-\x0d\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _rfc3339(value: Any) -> Any:
    """Times are RFC 3339 strings with their offset, as the schema says (pydantic alone would also take a
    number or a numeric string as Unix time, and a time without offset)."""
    if isinstance(value, datetime) or (isinstance(value, str) and _RFC3339.match(value)):
        return value
    raise ValueError("an RFC 3339 date-time with its offset, e.g. 2026-11-29T10:00:00Z")


def _whole(value: Any) -> Any:
    """JSON integers (2, or 2.0, which JSON Schema also calls an integer); not true/false, not "2"."""
    if isinstance(value, bool) or not isinstance(value, int | float) or (isinstance(value, float)
                                                                        and not value.is_integer()):
        raise ValueError("a whole number")
    return int(value)


def whole(ge: int, le: int | None = None) -> Any:
    """A whole number in [ge, le] (the schema is written out: pydantic does not carry the bounds of a number it
    hands to a validator first)."""
    shown = {"type": "integer", "minimum": ge, **({"maximum": le} if le is not None else {})}
    return Annotated[int, BeforeValidator(_whole), Field(ge=ge, le=le), WithJsonSchema(shown)]


Instant = Annotated[datetime, BeforeValidator(_rfc3339)]
Scope = Annotated[str | None, Field(min_length=1, max_length=256, pattern=NOT_BLANK)]
#: what understanding reads (an utterance, a query) holds no control characters (tab and newlines aside) and no
#: U+FFFD (the mark of a failed decoding)
PRINTABLE = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]*$"


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must hold something besides white space")
    return value


#: a memory's text may hold any character but NUL, which the stores refuse; the schema says so beside NOT_BLANK
NO_NUL = r"^[^\x00]*$"


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not hold NUL characters (\\x00)")
    return value


Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK,
                            json_schema_extra={"allOf": [{"pattern": NO_NUL}]}), AfterValidator(_no_nul)]
Utterance = Annotated[str, Field(min_length=1, max_length=MAX_TEXT, pattern=PRINTABLE,
                                 json_schema_extra={"allOf": [{"pattern": NOT_BLANK}]}), AfterValidator(_not_blank)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScopeFields(Body):
    user: Scope = Field(default=None, description="user scope (omitted: memories with no user)")
    agent: Scope = None
    session: Scope = None


class AddBody(ScopeFields):
    text: Text
    type: str = Field(max_length=64, description="a type of the ontology (GET /v1/types)")
    properties: dict[str, Any] = Field(default_factory=dict)
    speaker: str | None = Field(default=None, max_length=64)
    turn: whole(0) | None = None  # type: ignore[valid-type]
    summary: str | None = Field(default=None, max_length=1000)
    relationships: list[dict[str, Any]] = Field(default_factory=list, max_length=100)
    id: str | None = Field(default=None, min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-]+$")
    valid_from: Instant | None = None
    now: Instant | None = None


class UpdateBody(Body):
    user: Scope = None
    text: Text | None = None
    summary: str | None = Field(default=None, max_length=1000)
    properties: dict[str, Any] | None = None
    status: MemoryStatus | None = None
    relationships: list[dict[str, Any]] = Field(default_factory=list, max_length=100)
    reason: str = Field(default="", max_length=1000)
    now: Instant | None = None


class RememberBody(ScopeFields):
    text: Utterance
    speaker: str = Field(default="user", max_length=64)
    turn: whole(0) | None = None  # type: ignore[valid-type]
    now: Instant | None = None


class Turn(Body):
    text: Utterance
    speaker: str = Field(default="user", max_length=64)
    turn: whole(0) | None = None  # type: ignore[valid-type]
    now: Instant | None = None


class IngestBody(ScopeFields):
    turns: list[Turn] = Field(max_length=MAX_TURNS)
    now: Instant | None = None


class SearchBody(ScopeFields):
    query: str = Field(default="", max_length=MAX_TEXT)
    types: list[str] | None = Field(default=None, min_length=1, max_length=64)
    where: dict[str, Any] | None = None
    k: whole(1, 1000) = 10  # type: ignore[valid-type]
    include_archived: StrictBool = False
    as_of: Instant | None = None
    now: Instant | None = None


class AsOfBody(Body):
    when: Instant
    query: str = Field(default="", max_length=MAX_TEXT)
    types: list[str] | None = Field(default=None, min_length=1, max_length=64)
    where: dict[str, Any] | None = None
    user: Scope = None
    k: whole(1, 1000) = 10  # type: ignore[valid-type]


class IntentOverride(Body):
    """Fields given replace the inferred ones (``"where": null`` clears the inferred filter)."""

    types: list[str] | None = Field(default=None, min_length=1, max_length=64)
    where: dict[str, Any] | None = None
    kind: str | None = None


class RecallBody(ScopeFields):
    query: Utterance
    k: whole(1, 1000) = 5  # type: ignore[valid-type]
    include_archived: StrictBool = False
    now: Instant | None = None
    intent: IntentOverride | None = Field(default=None, description="override parts of the inferred intent")
    max_chars: whole(1) | None = Field(default=None, description=(  # type: ignore[valid-type]
        "cut the rendered context to this many characters; at least the length of the block without memories "
        "(it quotes the query), else a 422 names the minimum"))


class IntentBody(Body):
    query: Utterance
    now: Instant | None = None


class TaskBody(Body):
    status: str
    user: Scope = None
    reason: str = Field(default="", max_length=1000)
    now: Instant | None = None


class ResolveBody(Body):
    keep_id: str = Field(max_length=128)
    drop_id: str = Field(max_length=128)
    user: Scope = None
    reason: str = Field(default="", max_length=1000)
    now: Instant | None = None


class MaintainBody(Body):
    now: Instant | None = None
    dry_run: StrictBool = False
    user: Scope = Field(default=None, description="one user's memories (omitted: all)")


class DecisionBody(Body):
    decision: Literal["confirm", "reject"]
    user: Scope = None
    reason: str = Field(default="", max_length=1000)


class ChoiceBody(Body):
    choice: str | None = Field(default=None, max_length=128, description="the chosen candidate id; null: none of them")


class Written(BaseModel):
    """A memory as stored after a write, and what governance decided (merged, superseded, disputed ...)."""

    memory: MemIR
    report: dict[str, Any] | None


class MemoryPage(BaseModel):
    items: list[MemIR]
    limit: int
    offset: int
    next_offset: int | None = Field(description="the offset of the next page; null on the last one")


class Hit(BaseModel):
    memory: MemIR
    score: float
    reasons: list[str]
    signals: dict[str, Any]


class Hits(BaseModel):
    hits: list[Hit]


class RecalledHit(BaseModel):
    memory: MemIR
    score: float
    role: str = Field(description="what the memory is for: answer, constraint, task, feeling, context ...")
    reasons: list[str]
    flags: list[str]
    via: str | None


class Recalled(BaseModel):
    query: str
    intent: dict[str, Any]
    hits: list[RecalledHit]
    context: dict[str, Any] = Field(description="the role-labelled context, structured")
    widened: bool
    notes: list[str]
    prompt: str = Field(description="the context rendered as the prompt block an agent gets")


class Remembered(BaseModel):
    created: list[MemIR]
    updated: list[MemIR]
    confirmations: list[dict[str, Any]] = Field(description="questions asked instead of guessing; each has an id "
                                                            "to answer at /v1/confirmations/{id}")
    extractions: list[dict[str, Any]]
    notes: list[str]


class ProblemDetails(BaseModel):
    """RFC 9457 problem details: every error of this API (``application/problem+json``)."""

    type: str = Field(description="urn:mnemir:problem:<code> (validation_error, not_found, conflict, ...)")
    title: str
    status: int
    detail: str
    instance: str | None = None
    request_id: str | None = None
    field: str | None = Field(default=None, description="the input that was refused")
    value: Any = Field(default=None, description="its value (shortened)")
    allowed: Any = Field(default=None, description="what is allowed there")
    errors: list[dict[str, Any]] | None = Field(default=None, description="every invalid field, when several")


#: in components/schemas (added by the app's openapi()), referred to by every error response
PROBLEM_REF = {"$ref": "#/components/schemas/ProblemDetails"}
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {"schema": PROBLEM_REF}}}
    for code, text in ((401, "no valid API key"), (403, "a write from another origin, or (without API keys) a "
                                                        "request not addressed to localhost"),
                       (404, "no such memory in the caller's scope"),
                       (409, "a conflict or an invalid lifecycle transition"), (413, "the body is too large"),
                       (422, "invalid input: the field, the value and what is allowed"),
                       (415, "the body is not of a media type this operation reads"),
                       (429, "over the key's rate limit (see Retry-After)"))}


def doc(model: type[BaseModel], status: int = 200) -> dict[str, Any]:
    """Route arguments that document the response with ``model`` (the route returns the facade's to_dict)."""
    return {"response_model": None, "responses": {status: {"model": model}}}


def access(request: Request) -> Access:
    """The caller's tenant (and key), checked against the app's keys and rate limits."""
    auth: Auth = request.app.state.auth
    return auth.access(request.headers, request.cookies, request.state)


Acc = Annotated[Access, Depends(access)]
UserQ = Annotated[str | None, Query(min_length=1, max_length=256, pattern=NOT_BLANK,
                                    description="user scope (omitted: memories with no user)")]


def build_router(config: ServerConfig) -> APIRouter:
    router = APIRouter(prefix="/v1", responses=PROBLEMS)

    def _remembered(tenant: Tenant, result: Any) -> dict[str, Any]:
        out = result.to_dict()
        for item, pending in zip(out["confirmations"], result.confirmations, strict=True):
            cid = "cfm_" + secrets.token_hex(8)
            tenant.confirmations[cid] = pending
            item["id"] = cid
        return out

    @router.get("/types", tags=["ontology"], summary="The ontology: types, properties, enums, version")
    def types(a: Acc) -> dict[str, Any]:
        return a.tenant.memory.ontology.describe()

    @router.post("/memories", status_code=201, tags=["memories"], summary="Add one typed memory", **doc(Written, 201))
    def add(body: AddBody, a: Acc) -> dict[str, Any]:
        mem = a.tenant.memory
        # no tenant lock: ``add`` is governed under the store's own lock, and concurrent requests share a group
        # commit (decision 0113); the report read here is this request's own (kept per thread)
        rec = mem.add(body.text, body.type, body.properties, user=body.user, agent=body.agent,
                      session=body.session, speaker=body.speaker, turn=body.turn, summary=body.summary,
                      relationships=body.relationships, id=body.id, valid_from=body.valid_from, now=body.now,
                      creator="http")
        report = mem.last_write_report
        return {"memory": rec.to_dict(), "report": report.to_dict() if report is not None else None}

    @router.get("/memories", tags=["memories"], summary="List memories, newest first (paginated)", **doc(MemoryPage))
    def list_memories(a: Acc, user: UserQ = None, all_users: bool = False,
                      type: Annotated[list[str] | None, Query(max_length=64)] = None,
                      status: Annotated[list[MemoryStatus] | None, Query(max_length=8)] = None,
                      where: Annotated[str | None, Query(max_length=4000, description="filter as JSON")] = None,
                      limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
                      offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0) -> dict[str, Any]:
        scope = ANY if all_users else user
        try:
            items = a.tenant.memory.list(types=type or None, where=_json_param(where, "where"), user=scope,
                                         statuses=status or None, limit=limit + 1, offset=offset)
        except ValidationError as exc:
            if exc.context.get("field") != "types":
                raise
            raise ValidationError(exc.message, **{**exc.context, "field": "type"}) from None  # the parameter's name
        more = len(items) > limit
        return {"items": [r.to_dict() for r in items[:limit]], "limit": limit, "offset": offset,
                "next_offset": offset + limit if more else None}

    @router.get("/memories/{memory_id}", tags=["memories"], summary="One memory by id", **doc(MemIR))
    def get(memory_id: str, a: Acc, user: UserQ = None, include_deleted: bool = False) -> dict[str, Any]:
        return a.tenant.memory.get(memory_id, user=user, include_deleted=include_deleted).to_dict()

    @router.patch("/memories/{memory_id}", tags=["memories"], summary="Change a memory in place (recorded)",
                  **doc(MemIR))
    def update(memory_id: str, body: UpdateBody, a: Acc) -> dict[str, Any]:
        with a.tenant.write_lock:
            rec = a.tenant.memory.update(memory_id, text=body.text, summary=body.summary, properties=body.properties,
                                         status=body.status, relationships=body.relationships, user=body.user,
                                         now=body.now, reason=body.reason, actor="http")
        return rec.to_dict()

    @router.delete("/memories/{memory_id}", status_code=204, tags=["memories"],
                   summary="Soft-delete (kept as history) or hard-delete a memory")
    def delete(memory_id: str, a: Acc, user: UserQ = None, hard: bool = False,
               reason: Annotated[str, Query(max_length=1000)] = "") -> Response:
        with a.tenant.write_lock:
            a.tenant.memory.delete(memory_id, user=user, hard=hard, reason=reason, actor="http")
        return Response(status_code=204)

    @router.get("/memories/{memory_id}/history", tags=["lifecycle"], summary="Every recorded change, oldest first")
    def history(memory_id: str, a: Acc, user: UserQ = None) -> list[dict[str, Any]]:
        return [h.model_dump(mode="json") for h in a.tenant.memory.history(memory_id, user=user)]

    @router.post("/remember", tags=["understanding"], summary="One utterance in, typed memories out",
                 **doc(Remembered))
    def remember(body: RememberBody, a: Acc) -> dict[str, Any]:
        with a.tenant.write_lock:
            result = a.tenant.memory.remember(body.text, speaker=body.speaker, user=body.user, agent=body.agent,
                                              session=body.session, turn=body.turn, now=body.now)
            return _remembered(a.tenant, result)

    @router.post("/ingest", tags=["understanding"], summary="A whole conversation, in order", **doc(Remembered))
    def ingest(body: IngestBody, a: Acc) -> dict[str, Any]:
        turns = [t.model_dump(exclude_none=True) for t in body.turns]
        with a.tenant.write_lock:
            result = a.tenant.memory.ingest(turns, user=body.user, agent=body.agent, session=body.session,
                                            now=body.now)
            return _remembered(a.tenant, result)

    @router.post("/search", tags=["retrieval"], summary="Hybrid search: filters + vectors + BM25", **doc(Hits))
    def search(body: SearchBody, a: Acc) -> dict[str, Any]:
        hits = a.tenant.memory.search(body.query, types=body.types, where=body.where, k=body.k, user=body.user,
                                      agent=body.agent, session=body.session, include_archived=body.include_archived,
                                      as_of=body.as_of, now=body.now)
        return {"hits": [h.to_dict() for h in hits]}

    @router.post("/as-of", tags=["lifecycle"], summary="Search among memories valid at a past instant",
                 **doc(Hits))
    def as_of(body: AsOfBody, a: Acc) -> dict[str, Any]:
        hits = a.tenant.memory.as_of(body.when, body.query, types=body.types, where=body.where, user=body.user,
                                     k=body.k)
        return {"hits": [h.to_dict() for h in hits]}

    @router.post("/intent", tags=["retrieval"], summary="What a query asks of memory")
    def intent(body: IntentBody, a: Acc) -> dict[str, Any]:
        return a.tenant.memory.intent(body.query, now=body.now).to_dict()

    @router.post("/recall", tags=["retrieval"], summary="Role-aware recall with the rendered prompt context",
                 **doc(Recalled))
    def recall(body: RecallBody, a: Acc) -> dict[str, Any]:
        return recall_dict(a.tenant, body)

    @router.post("/tasks/{task_id}/status", tags=["lifecycle"], summary="Move a task through its states",
                 **doc(Written))
    def update_task(task_id: str, body: TaskBody, a: Acc) -> dict[str, Any]:
        with a.tenant.write_lock:
            moved = a.tenant.memory.update_task(task_id, status=body.status, user=body.user, now=body.now,
                                                reason=body.reason, actor="http")
            report = a.tenant.memory.last_write_report
        return {"memory": moved.to_dict(), "report": report.to_dict() if report is not None else None}

    @router.get("/conflicts", tags=["lifecycle"], summary="Open disputes, with their questions")
    def conflicts(a: Acc, user: UserQ = None) -> dict[str, Any]:
        return {"conflicts": [c.to_dict() for c in a.tenant.memory.conflicts(user=user)]}

    @router.post("/conflicts/resolve", tags=["lifecycle"], summary="Keep one side of a dispute", **doc(MemIR))
    def resolve(body: ResolveBody, a: Acc) -> dict[str, Any]:
        with a.tenant.write_lock:
            kept = a.tenant.memory.resolve_conflict(body.keep_id, body.drop_id, user=body.user, now=body.now,
                                                    reason=body.reason, actor="http")
        return kept.to_dict()

    @router.post("/maintain", tags=["lifecycle"], summary="Apply the time policies (idempotent)")
    def maintain(body: MaintainBody, a: Acc) -> dict[str, Any]:
        with a.tenant.write_lock:
            report = a.tenant.memory.maintain(now=body.now, user=body.user if body.user is not None else ANY,
                                              dry_run=body.dry_run)
        return report.to_dict()

    @router.get("/review", tags=["review"], summary="The review queue of a user scope")
    def review_queue(a: Acc, user: UserQ = None) -> dict[str, Any]:
        return review.queue(a.tenant, user=user, low_confidence=config.low_confidence)

    @router.post("/review/{memory_id}", tags=["review"], summary="Confirm or reject a memory of the queue")
    def review_decide(memory_id: str, body: DecisionBody, a: Acc) -> dict[str, Any]:
        return review.decide(a.tenant, memory_id, body.decision, user=body.user, reason=body.reason)

    @router.get("/confirmations", tags=["review"], summary="Confirmations remember() asked for")
    def confirmations(a: Acc) -> dict[str, Any]:
        return {"confirmations": [{"id": cid, **c.to_dict(), "user": c.user}
                                  for cid, c in list(a.tenant.confirmations.items())]}

    @router.post("/confirmations/{confirmation_id}", tags=["review"], summary="Answer a pending confirmation")
    def confirm(confirmation_id: str, body: ChoiceBody, a: Acc) -> dict[str, Any]:
        return review.answer(a.tenant, confirmation_id, body.choice)

    @router.get("/export", tags=["interchange"], summary="MemIR JSONL with history",
                response_class=Response,
                responses={200: {"content": {"application/x-ndjson": {}}, "description": "MemIR JSONL"}})
    def export(a: Acc, user: UserQ = None, all_users: bool = True, embeddings: bool = False) -> Response:
        """Every memory of the scope (all statuses) with its history; ``user`` given: that user's only.

        The whole export is written first (in memory up to 8 MiB, then a temporary file), so that a failure is
        still a problem response, then streamed."""
        import tempfile

        scope = user if user is not None or not all_users else ANY
        spool = tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+b")  # noqa: SIM115 - closed by the stream
        try:
            text = io.TextIOWrapper(spool, encoding="utf-8", newline="\n", write_through=True)
            a.tenant.memory.export_jsonl(text, user=scope, with_embeddings=embeddings)
            text.detach()
            spool.seek(0)
        except BaseException:
            spool.close()
            raise

        def chunks() -> Iterator[bytes]:
            with spool:
                while block := spool.read(1 << 16):
                    yield block

        return StreamingResponse(chunks(), media_type="application/x-ndjson")

    @router.post("/import", tags=["interchange"], summary="Import MemIR JSONL (checked before anything is written)",
                 openapi_extra={"requestBody": {"required": True, "content": {
                     "application/x-ndjson": {"schema": {"type": "string"}}}}})
    async def import_(request: Request, a: Acc,
                      on_conflict: Literal["replace", "skip", "error"] = "replace") -> dict[str, Any]:
        import asyncio

        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in JSONL_TYPES:  # a page of another site can send text/plain, never these, to localhost
            raise Problem(415, "unsupported_media_type", "send the import as MemIR JSONL", field="Content-Type",
                          value=kind or None, allowed=sorted(JSONL_TYPES))
        raw = await request.body()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError("the import body is not UTF-8", field="body", value=raw[exc.start:exc.start + 8],
                                  allowed="MemIR JSONL in UTF-8") from None

        def run() -> int:
            with a.tenant.write_lock:
                return a.tenant.memory.import_jsonl(io.StringIO(text), on_conflict=on_conflict)

        return {"imported": await asyncio.to_thread(run)}

    return router


def recall_dict(tenant: Tenant, body: RecallBody) -> dict[str, Any]:
    mem = tenant.memory
    given = None
    changes: dict[str, Any] = {}
    if body.intent is not None:
        changes = {k: (tuple(v) if k == "types" and v is not None else v)
                   for k, v in body.intent.model_dump(exclude_unset=True).items()}
        try:
            given = mem.intent(body.query, now=body.now).override(**changes) if changes else None
        except ValidationError as exc:  # a field of the override: name it where the body has it
            field = str(exc.context.get("field", ""))
            if not field.startswith(("kind", "type", "where")):
                raise
            field = "types" if field == "type" else field  # an unknown type name in the list
            raise ValidationError(exc.message, **{**exc.context, "field": f"intent.{field}"}) from None
    try:
        result = mem.recall(body.query, user=body.user, agent=body.agent, session=body.session, k=body.k,
                            now=body.now, intent=given, include_archived=body.include_archived)
    except ValidationError as exc:  # a type name or a filter only the override can have brought
        field = {"type": "types"}.get(str(exc.context.get("field")), str(exc.context.get("field")))
        if given is None or field.split(".")[0] not in ("types", "where") or field.split(".")[0] not in changes:
            raise
        raise ValidationError(exc.message, **{**exc.context, "field": f"intent.{field}"}) from None
    out = result.to_dict()
    out["prompt"] = result.context.render(max_chars=body.max_chars)
    return out


def _json_param(value: str | None, name: str) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{name} is not valid JSON: {exc.msg}", field=name, value=value,
                              allowed="a JSON object, e.g. {\"status\": \"pending\"}") from None

