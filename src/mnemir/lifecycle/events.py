"""What write-time governance did, in a form the agent can read."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

EventKind = Literal["created", "merged", "superseded", "stored_as_history", "disputed", "clarify", "evidence",
                    "status_changed", "archived", "resolved"]


@dataclass(frozen=True)
class GovernanceEvent:
    """One decision: ``memory_id`` is the memory the write produced or changed, ``other_id`` the one it met."""

    kind: EventKind
    memory_id: str
    message: str
    other_id: str | None = None
    rule: str | None = None
    #: a clarification question the agent should ask the user (strategy "clarify")
    question: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class WriteReport:
    """Everything governance decided for one write (see ``Memory.last_write_report``)."""

    events: list[GovernanceEvent] = field(default_factory=list)

    def of_kind(self, *kinds: str) -> list[GovernanceEvent]:
        return [e for e in self.events if e.kind in kinds]

    @property
    def questions(self) -> list[str]:
        return [e.question for e in self.events if e.question]

    @property
    def merged(self) -> list[GovernanceEvent]:
        return self.of_kind("merged")

    @property
    def superseded(self) -> list[GovernanceEvent]:
        return self.of_kind("superseded", "stored_as_history")

    @property
    def disputed(self) -> list[GovernanceEvent]:
        return self.of_kind("disputed", "clarify")

    def render(self) -> str:
        return "\n".join(e.message + (f" Question: {e.question}" if e.question else "") for e in self.events)

    def to_dict(self) -> dict[str, Any]:
        return {"events": [e.to_dict() for e in self.events]}
