"""What the MCP tools do, without the SDK: who is asking (a :class:`Principal`), each tool's work on a
:class:`mnemir.Memory` in that principal's scope, compact JSON results, and the confirmations ``remember`` left
pending.

The MCP module only wraps these methods (argument schemas, descriptions, running them off the event loop, errors
as tool errors); tests and other interfaces can call them directly.

Scoping: every call runs for one :class:`Principal`, decided by the server, never by the model. An *identity*
turns a request's headers (``None`` on stdio) into a principal. :class:`LocalIdentity` (the default) trusts the
``X-Mnemir-User`` header, so it is only for a server bound to localhost; :class:`ApiKeyIdentity` maps an API key to
a tenant and is the plug for the HTTP API's keys. A tenant's users are stored as ``"<tenant>:<user>"`` in the
memory's user scope, so two tenants (and two users) never see each other's memories.
"""

from __future__ import annotations

import hmac
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from mnemir.errors import MnemirError, ValidationError
from mnemir.ir import MemIR
from mnemir.memory import Memory
from mnemir.memory.understanding import Confirmation
from mnemir.ontology.enums import OPEN_STATUSES

#: the header a local client names its user with (HTTP transport)
USER_HEADER = "x-mnemir-user"
#: pending confirmations kept per scope (oldest dropped first)
MAX_PENDING = 50
MAX_LABEL = 128
#: bounds of the recall context block
MIN_CHARS, MAX_CHARS = 100, 100_000
MAX_LIST = 200
YES = ("yes", "confirm", "true")
NO = ("no", "reject", "false")


class AccessDenied(MnemirError):
    """A request the server's identity does not accept (no key, an unknown key)."""

    code = "unauthorized"
    exit_code = 2


def _label(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL or ":" in value:
        raise ValidationError(f"{name} must be a non-empty string of at most {MAX_LABEL} characters without ':'",
                              field=name, value=value, allowed=f"1-{MAX_LABEL} characters, no ':'")
    return value.strip()


@dataclass(frozen=True)
class Principal:
    """Who a tool call runs for: a user, optionally inside a tenant, optionally as one agent."""

    user: str
    tenant: str | None = None
    agent: str | None = None

    def __post_init__(self) -> None:
        _label("user", self.user)
        if self.tenant is not None:
            _label("tenant", self.tenant)
        if self.agent is not None:
            _label("agent", self.agent)

    @property
    def scope_user(self) -> str:
        """The memory's user scope: the user, prefixed by the tenant when there is one."""
        return self.user if self.tenant is None else f"{self.tenant}:{self.user}"


class Identity(Protocol):
    """Turns a request's headers (``None`` on stdio) into the :class:`Principal` it runs for."""

    #: whether it authenticates callers, so that the HTTP transport may listen beyond localhost
    authenticates: bool

    def __call__(self, headers: Mapping[str, str] | None) -> Principal: ...


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}


@dataclass(frozen=True)
class LocalIdentity:
    """Everyone is trusted: the user comes from the ``X-Mnemir-User`` header, else ``user``. Localhost only."""

    user: str = "default"
    authenticates = False

    def __call__(self, headers: Mapping[str, str] | None) -> Principal:
        named = _lower(headers).get(USER_HEADER) if headers else None
        return Principal(named if named is not None else self.user)


@dataclass(frozen=True)
class ApiKeyIdentity:
    """``Authorization: Bearer <key>`` names the tenant (``keys``: key -> tenant); the user inside it comes from
    ``X-Mnemir-User``, else ``user``. A request without a known key is refused."""

    keys: Mapping[str, str]
    user: str = "default"
    authenticates = True

    def __call__(self, headers: Mapping[str, str] | None) -> Principal:
        given = _lower(headers or {})
        scheme, _, key = given.get("authorization", "").partition(" ")
        tenant = None
        if scheme.lower() == "bearer" and key:
            for known, name in self.keys.items():  # compare every key in constant time
                if hmac.compare_digest(known.encode(), key.strip().encode()):
                    tenant = name
        if tenant is None:
            raise AccessDenied("an API key is required: send 'Authorization: Bearer <key>' with a known key")
        return Principal(given.get(USER_HEADER, self.user), tenant=tenant)


def compact(record: MemIR) -> dict[str, Any]:
    """A memory as a tool shows it: id, type, text, properties, status, when, who said it."""
    data = record.to_dict()
    out: dict[str, Any] = {"id": record.id, "type": record.type, "text": record.content.text,
                           "properties": data.get("properties", {}), "status": record.status.value,
                           "created_at": data["metadata"]["created_at"]}
    if record.metadata.source.speaker:
        out["speaker"] = record.metadata.source.speaker
    return out


def _int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationError(f"{name} out of range", field=name, value=value, allowed=f"integer in [{low}, {high}]")
    return value


class MemoryTools:
    """The tools' work on one :class:`mnemir.Memory`, each call for one :class:`Principal`.

    Not thread-safe on its own: the MCP server runs one call at a time (a store connection serves one thread)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._pending: dict[str, OrderedDict[str, Confirmation]] = {}

    # -- writing ---------------------------------------------------------------------------
    def remember(self, who: Principal, text: str, speaker: str = "user", session: str | None = None,
                 now: datetime | None = None) -> dict[str, Any]:
        done = self.memory.remember(text, speaker=speaker, user=who.scope_user, agent=who.agent, session=session,
                                    now=now)
        asks = [self._hold(who, c) for c in done.confirmations]
        return {"created": [compact(r) for r in done.created], "updated": [compact(r) for r in done.updated],
                "confirmations": asks, "notes": list(done.notes)}

    def update_task(self, who: Principal, id: str, status: str, reason: str = "",
                    now: datetime | None = None) -> dict[str, Any]:
        task = self.memory.update_task(id, status=status, user=who.scope_user, now=now, reason=reason)
        report = self.memory.last_write_report
        return {"task": compact(task), "events": [e.message for e in getattr(report, "events", [])]}

    def forget(self, who: Principal, id: str, hard: bool = False, reason: str = "") -> dict[str, Any]:
        if not isinstance(hard, bool):
            raise ValidationError("hard must be true or false", field="hard", value=hard, allowed=[True, False])
        self.memory.delete(id, user=who.scope_user, hard=hard, reason=reason or "forgotten on request")
        return {"forgotten": id, "hard": hard}

    def confirm(self, who: Principal, id: str | None = None, choice: str | None = None,
                now: datetime | None = None) -> dict[str, Any]:
        if id is None:
            return self._awaiting(who)
        pending = self._pending.get(who.scope_user, OrderedDict())
        if id in pending:
            confirmation = pending[id]
            chosen = None if choice is None or choice.strip().lower() == "none" else choice
            applied = self.memory.confirm(confirmation, chosen)
            del pending[id]
            return {"confirmation": id, "applied": compact(applied) if applied is not None else None}
        record = self.memory.get(id, user=who.scope_user)
        if record.type != "Hypothesis":
            raise ValidationError("id is neither a pending confirmation nor a Hypothesis of this user", field="id",
                                  value=id, allowed="a confirmation id from remember/confirm, or a Hypothesis id")
        answer = choice.strip().lower() if isinstance(choice, str) else choice
        if answer in YES:
            return {"hypothesis": id, "confirmed": compact(self.memory.confirm_hypothesis(
                id, user=who.scope_user, now=now))}
        if answer in NO:
            self.memory.delete(id, user=who.scope_user, now=now, reason="rejected by the user")
            return {"hypothesis": id, "rejected": True}
        raise ValidationError("to settle a hypothesis, choice must say yes or no", field="choice", value=choice,
                              allowed=["yes", "no"])

    def _hold(self, who: Principal, confirmation: Confirmation) -> dict[str, Any]:
        pending = self._pending.setdefault(who.scope_user, OrderedDict())
        key = "cf-" + uuid.uuid4().hex[:10]
        pending[key] = confirmation
        while len(pending) > MAX_PENDING:
            pending.popitem(last=False)
        return {"id": key, "kind": confirmation.kind, "question": confirmation.question,
                "status": confirmation.status,
                "candidates": [{"id": c.id, "text": c.text, "score": round(c.score, 3)}
                               for c in confirmation.candidates]}

    def _awaiting(self, who: Principal) -> dict[str, Any]:
        pending = self._pending.get(who.scope_user, OrderedDict())
        asks = [{"id": key, "kind": c.kind, "question": c.question, "status": c.status,
                 "candidates": [{"id": x.id, "text": x.text, "score": round(x.score, 3)} for x in c.candidates]}
                for key, c in pending.items()]
        hypotheses = self.memory.list(types=["Hypothesis"], user=who.scope_user, agent=who.agent, limit=MAX_LIST)
        return {"pending": asks, "hypotheses": [compact(h) for h in hypotheses]}

    # -- reading ---------------------------------------------------------------------------
    def recall(self, who: Principal, query: str, k: int = 5, max_chars: int = 2000,
               now: datetime | None = None) -> dict[str, Any]:
        _int("max_chars", max_chars, MIN_CHARS, MAX_CHARS)
        found = self.memory.recall(query, user=who.scope_user, agent=who.agent, k=k, now=now)
        return {"context": found.context.render(max_chars=max_chars),
                "intent": {"kind": found.intent.kind, "types": list(found.intent.types)},
                "hits": [{**compact(h.memory), "role": h.role, "score": round(h.score, 4), "flags": list(h.flags)}
                         for h in found.hits],
                "notes": list(found.notes)}

    def search(self, who: Principal, query: str = "", types: Sequence[str] | None = None,
               where: Mapping[str, Any] | None = None, k: int = 10, include_archived: bool = False,
               now: datetime | None = None) -> dict[str, Any]:
        if where is not None and not isinstance(where, Mapping):
            raise ValidationError("where must be an object in the filter language", field="where", value=where,
                                  allowed='e.g. {"status": {"$in": ["pending", "in_progress"]}}')
        hits = self.memory.search(query, types=types, where=where, k=k, user=who.scope_user, agent=who.agent,
                                  include_archived=include_archived, now=now)
        return {"hits": [{**compact(h.memory), "score": round(h.score, 4), "reasons": h.reasons} for h in hits]}

    def list_open_tasks(self, who: Principal, limit: int = 50, now: datetime | None = None) -> dict[str, Any]:
        _int("limit", limit, 1, MAX_LIST)
        tasks = self.memory.list(types=["Task"], where={"status": {"$in": list(OPEN_STATUSES)}},
                                 user=who.scope_user, agent=who.agent, limit=limit)
        overdue = {t.id for t in self.memory.overdue_tasks(user=who.scope_user, now=now)}
        return {"tasks": [{**compact(t), "overdue": t.id in overdue} for t in tasks]}

    def ontology(self) -> dict[str, Any]:
        return self.memory.ontology.describe()
