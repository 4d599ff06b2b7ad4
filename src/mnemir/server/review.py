"""The review queue: what a person should check, and the lifecycle call each choice makes.

Used by the API (``/v1/review``) and the browser's review page alike.
"""

from __future__ import annotations

from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.server.tenants import Tenant
from mnemir.store.base import ANY

CONFIRMED_CONFIDENCE = 0.95
#: how a confirmation in review starts its history reason
REVIEWED = "confirmed in review"
QUEUE_LIMIT = 200
#: how many of the latest memories are checked for a low extraction confidence
RECENT_SCAN = 1000


def extraction_confidence(record: MemIR) -> float | None:
    """How sure the extractor was when it read this memory from dialogue (None: not extracted)."""
    found = record.metadata.extra.get("extraction")
    score = found.get("confidence") if isinstance(found, dict) else None
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None


def queue(tenant: Tenant, *, user: Any, low_confidence: float) -> dict[str, Any]:
    """Disputed pairs, unconfirmed hypotheses, low-confidence facts and pending confirmations of one scope."""
    mem = tenant.memory
    conflicts = mem.conflicts(user=user)
    hypotheses = mem.list(types=["Hypothesis"], user=user, limit=QUEUE_LIMIT)
    facts = mem.list(types=["Fact"], user=user, where={"confidence": {"$lt": low_confidence}}, limit=QUEUE_LIMIT)
    seen = {f.id for f in facts}
    # what the extractor read with little confidence (its score is in metadata.extra, not a filterable property),
    # unless a person already confirmed it (recorded in its history)
    unsure = [r for r in mem.list(user=user, limit=RECENT_SCAN) if r.id not in seen and r.type != "Hypothesis"
              and (extraction_confidence(r) or 1.0) < low_confidence]
    histories = mem.store.histories([r.id for r in unsure]) if unsure else {}
    facts += [r for r in unsure if not any(h.reason.startswith(REVIEWED) for h in histories.get(r.id, []))]
    pending = [{"id": cid, **c.to_dict(), "user": c.user} for cid, c in list(tenant.confirmations.items())
               if user is ANY or c.user == user]
    return {"conflicts": [c.to_dict() for c in conflicts],
            "hypotheses": [h.to_dict() for h in hypotheses],
            "low_confidence": [f.to_dict() for f in facts if f.status.value != "disputed"],
            "confirmations": pending}


def decide(tenant: Tenant, memory_id: str, decision: str, *, user: Any, reason: str = "",
           actor: str = "review") -> dict[str, Any]:
    """Confirm or reject one memory of the queue through the lifecycle:

    - disputed: confirm keeps it over the memory it contradicts (``resolve_conflict``); reject keeps the other;
    - Hypothesis: confirm promotes it to a Fact (``confirm_hypothesis``); reject deletes it (kept as history);
    - anything else (a low-confidence Fact, an unsure extraction): confirm raises its confidence property when its
      type has one, and records the confirmation in its history either way (``update``); reject deletes it.
    """
    if decision not in ("confirm", "reject"):
        raise ValidationError("unknown decision", field="decision", value=decision, allowed=["confirm", "reject"])
    mem = tenant.memory
    with tenant.write_lock:
        record: MemIR = mem.get(memory_id, user=user)
        why = reason or ("a person confirmed it" if decision == "confirm" else "rejected in review")
        if record.status.value == "disputed":
            others = [r.target for r in record.relations("contradicts")]
            rivals = [c for c in mem.conflicts(user=record.scope.user_id)
                      if memory_id in (c.a.id, c.b.id)]
            if not rivals:
                raise ValidationError("this disputed memory has no open conflict", field="id", value=memory_id,
                                      allowed=others)
            other = rivals[0].b.id if rivals[0].a.id == memory_id else rivals[0].a.id
            keep, drop = (memory_id, other) if decision == "confirm" else (other, memory_id)
            kept = mem.resolve_conflict(keep, drop, user=user, reason=why, actor=actor)
            return {"action": "resolve_conflict", "kept": kept.to_dict(), "dropped": drop}
        if record.type == "Hypothesis":
            if decision == "confirm":
                fact = mem.confirm_hypothesis(memory_id, user=user, actor=actor)
                return {"action": "confirm_hypothesis", "memory": fact.to_dict()}
            mem.delete(memory_id, user=user, reason=why, actor=actor)
            return {"action": "delete", "memory": mem.get(memory_id, user=user, include_deleted=True).to_dict()}
        if decision == "confirm":
            has_confidence = "confidence" in mem.ontology.resolve(record.type).properties
            updated = mem.update(memory_id, properties={"confidence": CONFIRMED_CONFIDENCE} if has_confidence
                                 else None, user=user, reason=f"{REVIEWED}: {why}", actor=actor)
            return {"action": "update", "memory": updated.to_dict()}
        mem.delete(memory_id, user=user, reason=why, actor=actor)
        return {"action": "delete", "memory": mem.get(memory_id, user=user, include_deleted=True).to_dict()}


def answer(tenant: Tenant, confirmation_id: str, choice: str | None) -> dict[str, Any]:
    """Apply a pending confirmation (``Memory.confirm``) and drop it from the queue."""
    from mnemir.errors import NotFoundError

    with tenant.write_lock:
        pending = tenant.confirmations.get(confirmation_id)
        if pending is None:
            raise NotFoundError(f"no pending confirmation {confirmation_id!r}", id=confirmation_id)
        result = tenant.memory.confirm(pending, choice)
        tenant.confirmations.pop(confirmation_id, None)
    return {"memory": result.to_dict() if result is not None else None}
