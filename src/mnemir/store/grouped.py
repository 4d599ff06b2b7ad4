"""Many selections read by one query each group (``select_many`` of the SQL backends, decisions 0121 and 0125).

Governance asks, for every record of a batch, the live records of its scope whose keys match: selections that
differ only in the values of the same ``$in`` property conditions. Such selections, :data:`GROUP_FROM` or more,
are read together, :data:`GROUP_SIZE` at a time, by ONE query (:func:`union`) whose conditions hold every value
of the group, in the default order (created_at, id: a total order), so each selection's answer is inside its
answer. Each selection's answer is then what :func:`~mnemir.store.filters.matches` keeps of those rows, in order,
cut at the limit (:func:`answers`): the rows its own query returns, because the compiled conditions agree with
``matches`` (the store conformance tests check it on both backends).

The backend runs the query; this module holds what both backends share: which selections group, the union, and
the answers made from the rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from mnemir.ir import MemIR
from mnemir.store.base import Selection
from mnemir.store.filters import And, Cmp, FilterNode, matches

#: at most this many selections are read by one query, and at least this many (a group's query is compiled for its
#: values: fewer selections, each compiled once and kept, read faster one by one)
GROUP_SIZE = 256
GROUP_FROM = 8
#: ... and at most this many values bound in one query (SQLite binds at most 32,766 values per statement)
GROUP_VALUES = 16_000


class _Props:
    """A row's stored properties, where :func:`matches` reads a record's."""

    def __init__(self, properties: dict[str, Any]) -> None:
        self.properties = properties


def conditions(node: FilterNode | None) -> tuple[Cmp, ...]:
    """The conditions of a filter that is one ``Cmp`` or an AND of them."""
    return node.items if isinstance(node, And) else (node,)  # type: ignore[return-value]


def shape(selection: Selection) -> Any:
    """What selections read together share: everything but the values of their conditions, each a ``$in`` of
    scalars on a property (None: a selection read on its own)."""
    if selection.ids is not None or selection.valid_at is not None or selection.where is None:
        return None
    out = []
    for cond in conditions(selection.where):
        if not isinstance(cond, Cmp) or cond.is_record_field or cond.op != "$in" or not cond.value \
                or not all(isinstance(v, str | int | float | bool) for v in cond.value):
            return None
        out.append((cond.field, cond.kind))
    return (selection.user_id, selection.agent_id, selection.session_id, selection.types, selection.statuses,
            tuple(out))


def groups(selections: Sequence[Selection]) -> list[dict[str, Selection]]:
    """The groups read by one query each ({``repr`` of a selection: the selection}, :data:`GROUP_SIZE` at most, a
    selection asked twice once); selections in no group are read one by one."""
    by_shape: dict[Any, dict[str, Selection]] = {}
    for selection in selections:
        key = shape(selection)
        if key is not None:
            by_shape.setdefault(key, {}).setdefault(repr(selection), selection)
    out = []
    for members in by_shape.values():
        if len(members) < GROUP_FROM:  # a few (remember's, a lone add's): one by one, their SQL kept compiled
            continue
        items = list(members.items())
        out += [dict(items[lo:lo + GROUP_SIZE]) for lo in range(0, len(items), GROUP_SIZE)]
    return out


def union(members: dict[str, Selection]) -> Selection | None:
    """One selection whose answer holds each member's (every value of each condition, in the members' order); None
    where it would bind more than :data:`GROUP_VALUES` values (the members are read one by one then)."""
    first = next(iter(members.values()))
    merged: list[Cmp] = []
    for at, cond in enumerate(conditions(first.where)):
        values: dict[tuple[type, Any], Any] = {}
        for selection in members.values():
            for value in conditions(selection.where)[at].value:
                values.setdefault((type(value), value), value)
        merged.append(Cmp(cond.field, "$in", tuple(values.values()), cond.kind))
    if sum(len(c.value) for c in merged) > GROUP_VALUES:
        return None
    return first.with_(where=merged[0] if len(merged) == 1 else And(tuple[FilterNode, ...](merged)))


def answers(members: dict[str, Selection], found: Sequence[tuple[str, str, str]], limit: int | None,
            loaded: dict[str, MemIR], load: Callable[[str], MemIR]) -> dict[str, list[MemIR]]:
    """Each member's answer from the union's rows ``found`` (id, the properties' JSON, the record's JSON; in the
    default order). A row is parsed into a record (``load``; kept in ``loaded``, shared by the whole read) only
    where some member may keep it: its stored properties (where a scalar equals what the record's own value
    equals, and more: a date as its text) are matched first, by the first condition's values and then by the
    whole filter, and the parsed record is matched again."""
    props = [_Props(json.loads(data)) for _, data, _ in found]
    field = conditions(next(iter(members.values())).where)[0].field
    by_value: dict[Any, list[int]] = {}
    for at, row in enumerate(props):
        have = row.properties.get(field)
        for item in have if isinstance(have, list) else [have]:
            if item is not None and isinstance(item, str | int | float | bool):
                by_value.setdefault(item, []).append(at)
    out: dict[str, list[MemIR]] = {}
    for key, selection in members.items():
        wanted = conditions(selection.where)[0].value
        kept: list[MemIR] = []
        for at in sorted({i for v in wanted if isinstance(v, str | int | float | bool) for i in by_value.get(v, ())}):
            if limit is not None and len(kept) >= limit:
                break
            if not matches(selection.where, props[at]):
                continue
            mid, _, data = found[at]
            if mid not in loaded:
                loaded[mid] = load(data)
            if matches(selection.where, loaded[mid]):
                kept.append(loaded[mid])
        out[key] = kept
    return out
