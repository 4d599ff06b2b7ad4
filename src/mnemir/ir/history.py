"""History entries: every change to a memory, with what, when, why and by what."""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mnemir.ir.record import AwareDatetime, utcnow


class Action(StrEnum):
    created = "created"
    updated = "updated"
    merged = "merged"
    superseded = "superseded"
    disputed = "disputed"
    status_changed = "status_changed"
    archived = "archived"
    restored = "restored"
    deleted = "deleted"
    migrated = "migrated"
    accessed = "accessed"


class HistoryEntry(BaseModel):
    """One recorded change. ``before``/``after`` hold the changed parts of the record (JSON form)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: "hist_" + uuid.uuid4().hex)
    memory_id: str
    at: AwareDatetime = Field(default_factory=utcnow)
    action: Action
    reason: str = ""
    actor: str = "mnemir"
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    related_ids: list[str] = Field(default_factory=list)

    def to_line(self) -> dict[str, Any]:
        return {"kind": "history", **self.model_dump(mode="json")}
