"""The Task status state machine, plan steps that follow their task, and overdue checks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from mnemir.errors import InvalidTransitionError, ValidationError
from mnemir.ir import Action, HistoryEntry, MemIR, MemoryStatus
from mnemir.lifecycle.records import changed, entry, is_live
from mnemir.ontology import format_datetime, parse_deadline
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES, TASK_STATUS

#: allowed moves. Closing is possible from any open state; a closed task can be reopened or retried,
#: but never flipped straight from completed to failed (or back) without being reopened first.
TRANSITIONS: dict[str, frozenset[str]] = {
    "pending": frozenset({"in_progress", "completed", "failed"}),
    "in_progress": frozenset({"pending", "completed", "failed"}),
    "completed": frozenset({"pending", "in_progress"}),
    "failed": frozenset({"pending", "in_progress"}),
}

TASK_TYPES = ("Task",)
STEP_TYPES = ("Plan",)


def normalize_status(value: object) -> str:
    return TASK_STATUS.normalize(value, "status")


def check_task(record: MemIR) -> None:
    if record.type not in TASK_TYPES:
        raise ValidationError("not a Task", field="type", value=record.type, allowed=list(TASK_TYPES), id=record.id)


def check_transition(current: str, target: str, *, task_id: str) -> None:
    """Raise InvalidTransitionError unless ``current -> target`` is allowed (staying put is allowed)."""
    if current == target:
        return
    allowed = TRANSITIONS.get(current)
    if allowed is None or target not in allowed:
        raise InvalidTransitionError(
            f"task {task_id} cannot go from {current!r} to {target!r}"
            f" (allowed from {current!r}: {', '.join(sorted(allowed or ()))})",
            field="status", value=target, allowed=sorted(allowed or ()), current=current, id=task_id)


def transition(task: MemIR, target: object, *, now: datetime, actor: str,
               reason: str = "") -> tuple[MemIR, HistoryEntry | None]:
    """The task moved to ``target`` (a status or synonym) and its history entry; (task, None) if unchanged."""
    check_task(task)
    status = normalize_status(target)
    current = str(task.properties.get("status", "pending"))
    check_transition(current, status, task_id=task.id)
    if status == current:
        return task, None
    closing = status in CLOSED_STATUSES
    props: dict[str, object | None] = {"status": status, "completed_at": format_datetime(now) if closing else None}
    if not is_live(task) and task.status != MemoryStatus.deleted:
        moved = changed(task, now, properties=props, status=MemoryStatus.active)  # reopening restores it
    else:
        moved = changed(task, now, properties=props)
    why = reason or ("reopened" if current in CLOSED_STATUSES and not closing else f"{current} -> {status}")
    return moved, entry(task, moved, Action.status_changed, now=now, actor=actor, reason=why)


def cascade_to_steps(task: MemIR, steps: Sequence[MemIR], *, now: datetime, actor: str, on_completed: str,
                     on_failed: str) -> list[tuple[MemIR, HistoryEntry]]:
    """Open plan steps follow their task when it closes: completed/failed with it, or archived."""
    status = task.properties.get("status")
    if status not in CLOSED_STATUSES:
        return []
    mode = on_completed if status == "completed" else on_failed
    if mode == "keep":
        return []
    out = []
    for step in steps:
        if step.type not in STEP_TYPES or not is_live(step) or step.properties.get("status") in CLOSED_STATUSES:
            continue
        if mode == "archive":
            new = changed(step, now, status=MemoryStatus.archived)
            action = Action.archived
        else:
            new = changed(step, now, properties={"status": status})
            action = Action.status_changed
        out.append((new, entry(step, new, action, now=now, actor=actor,
                               reason=f"task {task.id} {status}", related=[task.id])))
    return out


def is_overdue(task: MemIR, now: datetime) -> bool:
    due = parse_deadline(task.properties.get("deadline"))
    return (task.type in TASK_TYPES and is_live(task) and task.properties.get("status", "pending") in OPEN_STATUSES
            and due is not None and due < now)


def overdue_bound(now: datetime) -> str:
    """A string bound for a store pre-filter (``deadline < bound``) that keeps every overdue task."""
    return format_datetime(now + timedelta(days=1))
