"""Following relationships from recalled memories, with depth limits and never across a scope.

A plan step brings its task and a task its steps; ``related_to_entity``, ``supports`` and ``contradicts`` bring
their other end; ``supersedes`` marks its target as replaced. Every record reached is checked with
:meth:`Selection.admits` (user, agent, session, statuses) before it is used: a walk never crosses a scope
it was not given, and a record outside the scope is not even named in the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.store.base import Selection, Store, TenantReads, tenant_reads
from mnemir.store.filters import Cmp

#: relations by which a plan step (or a subtask) points at its task
STEP_RELATIONS = ("step_of", "subtask_of", "part_of")
#: relations worth following during recall (both directions)
FOLLOW_RELATIONS = (*STEP_RELATIONS, "related_to_entity", "supports", "contradicts", "supersedes", "settles")
MAX_DEPTH = 3


@dataclass(frozen=True)
class Link:
    """A record reached from ``source`` by ``relation`` at ``depth`` (1 = a direct neighbour)."""

    record: MemIR
    relation: str
    source: str
    depth: int


@dataclass
class Walk:
    links: list[Link] = field(default_factory=list)
    #: ids a reached memory declares it supersedes (inside the scope)
    superseded: dict[str, str] = field(default_factory=dict)
    #: id -> ids it contradicts (inside the scope)
    contradicted: dict[str, set[str]] = field(default_factory=dict)
    #: edges whose other end lay outside the scope (counted, never shown)
    out_of_scope: int = 0


def expand(store: Store, scope: Selection, seeds: Sequence[MemIR], *, depth: int = 2,
           relations: Iterable[str] = FOLLOW_RELATIONS, limit: int = 20) -> Walk:
    """Breadth-first walk from ``seeds`` along ``relations``, at most ``depth`` steps and ``limit`` records."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise ValidationError("graph depth out of range", field="graph_depth", value=depth,
                              allowed=f"integer in [0, {MAX_DEPTH}]")
    relations = tuple(relations)
    store = tenant_reads(store, scope.user_id)
    walk = Walk()
    seen = {r.id for r in seeds}
    seed_ids = frozenset(seen)
    frontier = [r for r in seeds if scope.admits(r)]
    for record in frontier:
        _note_claims(record, walk)
    for level in range(1, depth + 1):
        if not frontier or len(walk.links) >= limit:
            break
        reached = _neighbours(store, scope, frontier, relations, walk)
        frontier = []
        for relation, source, record in reached:
            if record.id in seed_ids and record.id != source:  # a seed reached from another seed: note the link
                walk.links.append(Link(record, relation, source, level))
                continue
            if record.id in seen or len(walk.links) >= limit:
                continue
            seen.add(record.id)
            walk.links.append(Link(record, relation, source, level))
            _note_claims(record, walk)
            frontier.append(record)
    return walk


def _neighbours(store: Store, scope: Selection, frontier: Sequence[MemIR], relations: tuple[str, ...],
                walk: Walk) -> list[tuple[str, str, MemIR]]:
    ids = [r.id for r in frontier]
    pairs: list[tuple[str, str, str]] = []  # (relation, from, to)
    for edge in store.edges(ids, relations=relations, direction="both"):
        if edge.source in ids:
            pairs.append((edge.relation, edge.source, edge.target))
        if edge.target in ids:
            pairs.append((edge.relation, edge.target, edge.source))
    for record in frontier:  # a plan step names its task in a property too
        task_id = record.properties.get("associated_task_id") or record.properties.get("parent_task_id")
        if isinstance(task_id, str) and "step_of" in relations:
            pairs.append(("step_of", record.id, task_id))
    steps = _steps_of(store, scope, [r for r in frontier if r.type == "Task"]) if "step_of" in relations else []
    found = {r.id: r for r in store.fetch(list(dict.fromkeys(target for _, _, target in pairs)))}
    any_type = scope.with_(types=None)
    out: list[tuple[str, str, MemIR]] = []
    for relation, source, target in pairs:
        reached = found.get(target)
        if reached is None and isinstance(store, TenantReads):
            walk.out_of_scope += 1  # another user's memory (or one forgotten since): not read at all
            continue
        if reached is None:
            continue
        if not any_type.admits(reached):
            walk.out_of_scope += 1
            continue
        out.append((relation, source, reached))
    out.extend(steps)
    return out


def _steps_of(store: Store, scope: Selection, tasks: Sequence[MemIR]) -> list[tuple[str, str, MemIR]]:
    """Plan steps that name one of ``tasks`` in ``associated_task_id`` (inside the scope)."""
    if not tasks:
        return []
    task_ids = tuple(t.id for t in tasks)
    selection = scope.with_(types=("Plan",), where=Cmp("associated_task_id", "$in", task_ids, "id"))
    return [("step_of", str(r.properties["associated_task_id"]), r)
            for r in store.select(selection, order_by=[("order", True)], limit=50)]


def _note_claims(record: MemIR, walk: Walk) -> None:
    for rel in record.relationships:
        if rel.relation == "supersedes":
            walk.superseded.setdefault(rel.target, record.id)
        elif rel.relation == "contradicts":
            walk.contradicted.setdefault(record.id, set()).add(rel.target)
