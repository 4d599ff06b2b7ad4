"""Write-time governance: turn validated new records into store writes (merge, contradictions, history).

The policies are pure (``merge``, ``contradictions``); this module only finds the candidates they need through
the store contract and collects the resulting writes so that the caller stores them in ONE transaction.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Embedder, Vectors
from mnemir.errors import ValidationError
from mnemir.ir import Action, MemIR, MemoryStatus
from mnemir.lifecycle.config import LifecycleConfig
from mnemir.lifecycle.contradictions import Conflict, find_conflicts, resolve
from mnemir.lifecycle.events import GovernanceEvent, WriteReport
from mnemir.lifecycle.merge import find_duplicate, merge_into
from mnemir.lifecycle.records import entry, is_live, short
from mnemir.lifecycle.terms import variants
from mnemir.ontology import Ontology
from mnemir.store.base import ANY, LIVE_STATUSES, Selection, Store, Write
from mnemir.store.filters import And, Cmp, FilterNode, matches, parse_filter

#: how many near neighbours (same type and scope) are checked for a duplicate
NEIGHBOURS = 5
#: at most this many key-matched candidates are read per lookup
KEY_LIMIT = 50
#: at most this many parsed filter conditions are kept per governor
PARSED_LIMIT = 16384
#: a governed batch scores its coming records against the batch's earlier rows of their scope this many at a time (one
#: matrix product), which only narrows each record's batch neighbours: they are then scored exactly, row by row
#: (comparing each record with every earlier row by a matrix-vector product made a batch of 10k quadratic: 1.2 ms a
#: record of its 2.8)
NEIGHBOUR_BLOCK = 256
#: below this many earlier rows in the scope, every row is scored exactly (nothing to narrow)
NEIGHBOUR_NARROW_FROM = 64
#: how far below the NEIGHBOURS-th best block score a row is still scored exactly, relative to |vector| * the largest
#: |row|: two float32 dot products of 512 numbers differ by at most about 2 * 512 * 2**-24 of that (6e-5)
NEIGHBOUR_MARGIN = 1e-3


class Governor:
    """Applies merge and contradiction rules to a batch of records being written."""

    def __init__(self, store: Store, ontology: Ontology, embedder: Embedder, config: LifecycleConfig, *,
                 parsed: dict[tuple[Any, ...], FilterNode] | None = None) -> None:
        self.store = store
        self.ontology = ontology
        self.embedder = embedder
        self.config = config
        #: parsed filter conditions by (property, values, types) (:meth:`_filter`); ``parsed``: a memo the caller
        #: keeps across governors of ONE ontology version (a condition parses the same while the ontology is the same)
        self._parsed: dict[tuple[Any, ...], FilterNode] = {} if parsed is None else parsed

    def govern(self, records: Sequence[MemIR], *, now: Any, actor: str, skip_ids: Collection[str] = (),
               vectors: Mapping[str, Vectors] | None = None, stamps: Mapping[str, tuple[Any, str]] | None = None,
               decided: dict[str, tuple[MemIR, int, int]] | None = None) -> tuple[list[Write], WriteReport]:
        """``vectors``: record id -> a vector of its text already made with this embedder (not embedded again).

        ``stamps``: record id -> (now, actor) of that record's own call, where records of several calls are
        governed together (the group commit of concurrent ``add`` calls): its history entries carry its own time
        and actor, as they would had it been written alone. ``decided`` (filled when given): record id -> the
        record that stands for it right after its own decision (itself, or the memory it merged into) and the
        span of ``report.events`` its decision appended: what a call of that record alone would have returned
        and reported, before any later record of the batch changed it."""
        report = WriteReport()
        pending: dict[str, Write] = {}
        batch = _Batch()
        known = dict(vectors or {})
        missing = [r for r in records if r.id not in known]
        if missing:
            known.update(zip([r.id for r in missing], self.embedder.embed([r.content.text for r in missing]),
                             strict=True))
        looked = self._look_up(records, known)
        batch.plan([r for r in records if is_live(r) and self.config.policy(r.type).merge_keys is not None], known)
        named = _Named()
        for record, vector in ((r, known[r.id]) for r in records):
            at, by = stamps.get(record.id, (now, actor)) if stamps else (now, actor)
            start = len(report.events)
            stands = self._decide(record, vector, batch, pending, report, looked, named, now=at, actor=by,
                                  skip_ids=skip_ids)
            if decided is not None:
                decided[record.id] = (pending[stands].record, start, len(report.events))
        return list(pending.values()), report

    def _decide(self, record: MemIR, vector: Vectors, batch: _Batch, pending: dict[str, Write], report: WriteReport,
                looked: _LookedUp, named: _Named, *, now: Any, actor: str, skip_ids: Collection[str]) -> str:
        """Govern one record of the batch; returns the id of the pending write that stands for it."""
        if not is_live(record):  # e.g. a record written as history; nothing to govern
            pending[record.id] = Write(record, vector, [entry(None, record, Action.created, now=now,
                                                              actor=actor, reason="added")])
            return record.id
        target = self._merge(record, vector, batch, pending, report, looked, now=now, actor=actor, skip=skip_ids)
        if target is not None:
            return target
        current, history = record, [entry(None, record, Action.created, now=now, actor=actor, reason="added")]
        for conflict in self._conflicts(record, batch, pending, skip_ids, looked):
            old = pending[conflict.old.id].record if conflict.old.id in pending else conflict.old
            res = resolve(Conflict(conflict.rule, current, old, conflict.strategy, conflict.question,
                                   conflict.supports), self.config, now=now, actor=actor)
            current = res.new
            history.extend(res.new_history)
            if res.old_changed:
                self._stage(pending, res.old, res.old_history)
            if res.event is not None:
                report.events.append(res.event)
        if record.id not in named.of(report.events):
            report.events.append(GovernanceEvent("created", record.id, f"stored {record.type} {record.id}: "
                                                 f"\"{short(record.text)}\"."))
        pending[record.id] = Write(current, vector, history)
        batch.append(current, vector)
        return record.id

    # -- merge -----------------------------------------------------------------------------
    def _merge(self, record: MemIR, vector: Vectors, batch: _Batch, pending: dict[str, Write],
               report: WriteReport, looked: _LookedUp, *, now: Any, actor: str, skip: Collection[str]) -> str | None:
        """Merge ``record`` into a duplicate if it has one; returns the id merged into (None: no duplicate)."""
        policy = self.config.policy(record.type)
        if policy.merge_keys is None:
            return None
        scope = self._scope(record, (record.type,))
        keyed_scope = looked.keyed_scope[record.id]
        sims, candidates = looked.merge_candidates(record.id, vector)
        # the records of this batch that the same look-ups would find had they been stored one by one: the
        # NEIGHBOURS most similar and the key-matched (comparing with every earlier item made a large batch
        # quadratic)
        for rec, sim in self._batch_neighbours(scope, vector, batch, record.id):
            candidates[rec.id] = rec
            sims[rec.id] = sim
        if keyed_scope is not None:
            for rec, vec in batch.found_by(keyed_scope):
                if rec.id not in candidates:
                    candidates[rec.id] = rec
                    sims[rec.id] = float(np.dot(vec, vector))
        for mid in [m for m in candidates if m in pending]:  # what this batch changed (not every pending write)
            candidates[mid] = pending[mid].record
        pool = [c for c in candidates.values() if c.id not in skip]
        target = find_duplicate(record, pool, sims, policy)
        if target is None:
            return None
        merged, history = merge_into(target, record, policy, now=now, actor=actor)
        self._stage(pending, merged, [history])
        report.events.append(GovernanceEvent("merged", target.id, f"merged into {target.id} (a repeat of "
                                             f"\"{short(target.text)}\"; similarity {sims.get(target.id, 1.0):.2f}).",
                                             record.id, "merge"))
        return target.id

    # -- contradictions ----------------------------------------------------------------------
    def _conflicts(self, record: MemIR, batch: _Batch, pending: dict[str, Write],
                   skip: Collection[str], looked: _LookedUp) -> list[Conflict]:
        candidates: dict[str, MemIR] = {}
        queries = looked.rule_queries[record.id]
        for found in looked.rule_matches(record.id):
            for rec in found:
                candidates[rec.id] = rec
        for query in queries:  # the batch's records that these look-ups would find had they been stored
            for rec, _ in batch.found_by(query):
                candidates[rec.id] = rec
        for mid in [m for m in candidates if m in pending]:  # what this batch changed (not every pending write)
            candidates[mid] = pending[mid].record
        pool = [c for c in candidates.values() if c.id not in skip]
        return find_conflicts(record, pool, self.config)

    def _rule_queries(self, record: MemIR) -> list[Selection]:
        """The selections whose live records the contradiction rules compare ``record`` with."""
        props = record.properties
        found: list[Selection | None] = []
        if record.type in ("Fact", "Hypothesis") and props.get("entity") and props.get("attribute"):
            found.append(self._keyed(self._scope(record, ("Fact", "Hypothesis")),
                                     {"entity": props["entity"], "attribute": props["attribute"]}))
        if record.type == "Preference" and props.get("subject"):
            found.append(self._keyed(self._scope(record, ("Preference",)), {"subject": props["subject"]}))
        for pair in self.config.conflict_pairs:
            for mine, other_type, other_where in ((pair.a_type, pair.b_type, pair.b_where),
                                                  (pair.b_type, pair.a_type, pair.a_where)):
                if record.type == mine and other_type in self.ontology:
                    found.append(self._keyed(self._scope(record, (other_type,)), dict(other_where), exact=True))
        return [q for q in found if q is not None]

    @staticmethod
    def _batch_neighbours(scope: Selection, vector: Vectors, batch: _Batch, rid: str) -> list[tuple[MemIR, float]]:
        """The NEIGHBOURS records of the batch inside ``scope`` most similar to ``vector``, with their similarity (each
        row's dot product with ``vector`` as ``np.einsum`` computes it, the same wherever the row is gathered from;
        ties in batch order)."""
        near = batch.nearest(scope, vector, rid)
        if near is not None:
            return [(batch.items[i][0], sim) for i, sim in near]
        found = batch.scope_rows(scope)
        if found is None:
            at = [i for i in batch.of_scope(scope) if batch.admitted(scope, i)]
            if not at:
                return []
            matrix = batch.matrix(at)
        else:
            at, matrix = found
            if not at:
                return []
        sims = _dots(matrix, vector)
        best = np.argsort(-sims, kind="stable")[:NEIGHBOURS]
        return [(batch.items[at[i]][0], float(sims[i])) for i in best]

    # -- store access ------------------------------------------------------------------------
    def _merge_keyed(self, record: MemIR, scope: Selection) -> Selection | None:
        policy = self.config.policy(record.type)
        if not policy.merge_keys:
            return None
        return self._keyed(scope, {k: record.properties.get(k) for k in policy.merge_keys})

    def _look_up(self, records: Sequence[MemIR], vectors: Mapping[str, Vectors]) -> _LookedUp:
        """What the store holds for every record of the batch, read before any decision (the store does not change
        while a batch is governed: its writes are stored after): the nearest neighbours of each record in its
        type's scope (one vector search per scope for all its records), the key- and rule-matched records (one
        read for every selection, each asked once), the neighbours' records and the key-matched records' vectors
        (one read each). Each record then sees exactly what its own look-ups one by one would have returned."""
        looked = _LookedUp()
        live = [r for r in records if is_live(r)]
        merging = [r for r in live if self.config.policy(r.type).merge_keys is not None]
        by_scope: dict[tuple[Any, str], tuple[Selection, list[MemIR]]] = {}
        for record in merging:  # a record's scope is made of its user and type only (_scope): keyed by them
            key = (record.scope.user_id, record.type)
            if key not in by_scope:
                by_scope[key] = (self._scope(record, (record.type,)), [])
            by_scope[key][1].append(record)
        for scope, members in by_scope.values():
            found = self.store.vector_search_many(scope, [vectors[r.id] for r in members], NEIGHBOURS)
            for record, hits in zip(members, found, strict=True):
                looked.sims[record.id] = {mid: float(sim) for mid, sim in hits}
        selections: list[Selection] = []
        for record in merging:
            keyed = looked.keyed_scope[record.id] = self._merge_keyed(record, self._scope(record, (record.type,)))
            looked.keyed[record.id] = (len(selections), 1) if keyed is not None else (len(selections), 0)
            selections += [keyed] if keyed is not None else []
        for record in live:
            queries = looked.rule_queries[record.id] = self._rule_queries(record)
            looked.rules[record.id] = (len(selections), len(queries))
            selections += queries
        looked.selected = self.store.select_many(selections, limit=KEY_LIMIT) if selections else []
        by_user: dict[Any, list[MemIR]] = {}
        for record in merging:
            by_user.setdefault(record.scope.user_id, []).append(record)
        for user, members in by_user.items():
            wanted = list(dict.fromkeys(mid for r in members for mid in looked.sims[r.id]))
            looked.fetched.update((r.id, r) for r in self.store.fetch(wanted, user=user))
            missing = list(dict.fromkeys(rec.id for r in members for rec in looked.keyed_records(r.id)
                                         if rec.id not in looked.sims[r.id]))
            looked.vectors.update(self.store.vectors(missing, user=user))
        return looked

    def _scope(self, record: MemIR, types: tuple[str, ...]) -> Selection:
        known = tuple(t for t in types if t in self.ontology)
        return Selection(user_id=record.scope.user_id, types=known or types, statuses=LIVE_STATUSES)

    def _keyed(self, scope: Selection, keys: dict[str, Any], *, exact: bool = False) -> Selection | None:
        """The live records in scope whose ``keys`` match (any common spelling unless ``exact``); None: none can."""
        if any(v is None or v == "" for v in keys.values()):
            return None
        where: dict[str, Any] = {}
        for name, value in keys.items():
            options = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
            spelled = options if exact else [v for o in options for v in variants(o)]
            where[name] = {"$in": spelled}
        node = self._filter(where, scope.types)
        if node is None:
            return None
        return scope.with_(where=node)

    def _filter(self, where: dict[str, Any], types: tuple[str, ...] | None) -> FilterNode | None:
        """``parse_filter(where)`` of a mapping of ``{"$in": values}`` conditions; each condition is kept once parsed
        (:attr:`_parsed`: the same keys, attributes and enum values come back record after record), so a filter
        whose conditions were all seen is put together from them (the node ``parse_filter`` makes: one condition per
        property, in order). A spelling the property's kind refuses is dropped (:meth:`_cleaned_filter`)."""
        keys = [(name, tuple((type(v), v) for v in cond["$in"]), types) for name, cond in where.items()]
        seen = [self._parsed.get(key) or self._condition(key) for key in keys]
        if all(item is not None for item in seen):
            items = [item for item in seen if item is not None]
            if len(self._parsed) + len(keys) > PARSED_LIMIT:
                self._parsed.clear()
            self._parsed.update(zip(keys, items, strict=True))
            return items[0] if len(items) == 1 else And(tuple(items))
        try:
            node = parse_filter(where, self.ontology, types)
        except ValidationError:
            return self._cleaned_filter(where, types)
        parts = node.items if isinstance(node, And) else (node,) if node is not None else ()
        if len(parts) == len(keys):
            if len(self._parsed) + len(keys) > PARSED_LIMIT:
                self._parsed.clear()
            self._parsed.update(zip(keys, parts, strict=True))
        return node

    def _condition(self, key: tuple[Any, ...]) -> FilterNode | None:
        """The condition ``parse_filter`` makes of ``{name: {"$in": values}}`` for ``key`` (name, values, types), put
        together from each value's own parsed condition where every value was seen (an entity is new record after
        record; its spelling variants, attributes and enum values come back): the property's spec and kind are the
        same for every value, and ``parse_filter`` coerces each value alone. Otherwise the whole condition is parsed
        once and each value's part kept. None where it does not parse (the caller parses the mapping then)."""
        name, values, types = key
        ones = [("value", name, value_key, types) for value_key in values]
        seen = [self._parsed.get(one) for one in ones]
        if not values:
            return None
        if any(node is None for node in seen):
            try:
                whole = parse_filter({name: {"$in": [v for _, v in values]}}, self.ontology, types)
            except ValidationError:
                return None
            if not isinstance(whole, Cmp) or whole.op != "$in" or len(whole.value) != len(values):
                return None
            if len(self._parsed) + len(ones) > PARSED_LIMIT:
                self._parsed.clear()
            self._parsed.update((one, Cmp(name, "$in", (value,), whole.kind))
                                for one, value in zip(ones, whole.value, strict=True))
            return whole
        parts = [node for node in seen if isinstance(node, Cmp)]
        return Cmp(name, "$in", tuple(node.value[0] for node in parts), parts[0].kind)

    def _cleaned_filter(self, where: dict[str, Any], types: tuple[str, ...] | None) -> FilterNode | None:
        try:
            return parse_filter(where, self.ontology, types)
        except ValidationError:
            # a spelling that the property's kind refuses (e.g. an enum synonym that is not one): drop it
            cleaned: dict[str, Any] = {}
            for name, cond in where.items():
                ok = []
                for value in cond["$in"]:
                    try:
                        parse_filter({name: value}, self.ontology, types)
                        ok.append(value)
                    except ValidationError:
                        continue
                if not ok:
                    return None
                cleaned[name] = {"$in": ok}
            return parse_filter(cleaned, self.ontology, types)

    @staticmethod
    def _stage(pending: dict[str, Write], record: MemIR, history: list[Any]) -> None:
        if record.id in pending:
            write = pending[record.id]
            write.record = record
            write.history.extend(history)
        else:
            pending[record.id] = Write(record, None, list(history))


class _Named:
    """The memories a report's events name so far (events are only appended: each is read once)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.upto = 0

    def of(self, events: Sequence[GovernanceEvent]) -> set[str]:
        self.ids.update(e.memory_id for e in events[self.upto:])
        self.upto = len(events)
        return self.ids


class _LookedUp:
    """The store's answers to every look-up of a batch's records (:meth:`Governor._look_up`), by record id."""

    def __init__(self) -> None:
        self.sims: dict[str, dict[str, float]] = {}
        #: the selections the rules ask for, by record id (made once: parsing a filter is not free)
        self.keyed_scope: dict[str, Selection | None] = {}
        self.rule_queries: dict[str, list[Selection]] = {}
        self.keyed: dict[str, tuple[int, int]] = {}
        self.rules: dict[str, tuple[int, int]] = {}
        self.selected: list[list[MemIR]] = []
        self.fetched: dict[str, MemIR] = {}
        self.vectors: dict[str, Vectors] = {}

    def keyed_records(self, rid: str) -> list[MemIR]:
        at, count = self.keyed.get(rid, (0, 0))
        return [rec for found in self.selected[at:at + count] for rec in found]

    def rule_matches(self, rid: str) -> list[list[MemIR]]:
        at, count = self.rules.get(rid, (0, 0))
        return self.selected[at:at + count]

    def merge_candidates(self, rid: str, vector: Vectors) -> tuple[dict[str, float], dict[str, MemIR]]:
        """(similarities, candidates) of a record in the store, as its vector search, the fetch of the neighbours,
        its key-matched select and the vectors of those would give them."""
        sims = dict(self.sims[rid])
        candidates: dict[str, MemIR] = {}
        for rec in [*(self.fetched[mid] for mid in sims if mid in self.fetched), *self.keyed_records(rid)]:
            candidates[rec.id] = rec
        for mid in candidates:
            if mid not in sims and mid in self.vectors:
                sims[mid] = float(np.dot(self.vectors[mid], vector))
        return sims, candidates


class _Batch:
    """The records governed so far in one call, with their vectors; found as a store look-up would find them, through
    an index of their property values (a large batch is not scanned once per item)."""

    def __init__(self) -> None:
        self.items: list[tuple[MemIR, Vectors]] = []
        self._by_value: dict[tuple[str, Any], list[int]] = {}
        self._by_user_type: dict[tuple[Any, str], list[int]] = {}
        #: the items' vectors as rows of one array (grown by doubling), so that a scope's rows are gathered in one
        #: step instead of stacked from a list per item; None once an item's vector is not a float32 row of the
        #: first one's length (then they are stacked as before)
        self._rows: Vectors | None = None
        #: the same rows again by (user, type), each scope's rows contiguous in batch order, with their items'
        #: statuses (as positions in MemoryStatus): a governor's scope is then a slice, not a gather per item (made
        #: at a scope's first :meth:`scope_rows`, then kept up by :meth:`append`)
        self._scope_rows: dict[tuple[Any, str], Vectors] = {}
        self._scope_status: dict[tuple[Any, str], npt.NDArray[np.int8]] = {}
        #: the records still to be governed, by (user, type): their ids' places and their vectors as rows
        #: (:meth:`plan`), and the last block of them scored against the scope's rows (:meth:`nearest`)
        self._coming: dict[tuple[Any, str], tuple[dict[str, int], Vectors]] = {}
        self._blocks: dict[tuple[Any, str], _Block] = {}

    def plan(self, records: Sequence[MemIR], vectors: Mapping[str, Vectors]) -> None:
        """The records this batch will ask :meth:`nearest` for, in order, with their vectors (only where every
        vector is a float32 row of one length)."""
        by_key: dict[tuple[Any, str], list[MemIR]] = {}
        for record in records:
            by_key.setdefault((record.scope.user_id, record.type), []).append(record)
        for key, members in by_key.items():
            rows = [vectors[r.id] for r in members]
            places = {r.id: t for t, r in enumerate(members)}
            if len(members) < 2 or len(places) != len(members) \
                    or not all(_row_like(v) and len(v) == len(rows[0]) for v in rows):
                continue  # (an id twice: its place would be ambiguous)
            self._coming[key] = (places, np.vstack(rows))

    def nearest(self, selection: Selection, vector: Vectors, rid: str) -> list[tuple[int, float]] | None:
        """(position, similarity) of the NEIGHBOURS items inside a governor's scope most similar to ``vector`` (the
        vector of planned record ``rid``), most similar first, ties in batch order: the answer of an exact score of
        every row and a stable sort. The rows are first scored by a matrix product of a block of the coming records
        (:data:`NEIGHBOUR_BLOCK`) with the scope's rows, which only narrows them: every row within
        :data:`NEIGHBOUR_MARGIN` of the NEIGHBOURS-th best is scored exactly. None where nothing was planned for
        ``rid`` or the scope's rows are not kept (:meth:`scope_rows`)."""
        found = self._scope_all(selection)  # checks the selection and makes the scope's rows at the first look
        if found is None or selection.types is None:
            return None
        coming = self._coming.get((selection.user_id, selection.types[0]))
        if coming is None or rid not in coming[0]:
            return None
        members, rows, inside = found  # an item's status is the one it was appended with: fixed
        count = len(members)
        if count < NEIGHBOUR_NARROW_FROM:
            return None
        key = (selection.user_id, selection.types[0])
        t = coming[0][rid]
        block = self._blocks.get(key)
        if block is None or not block.start <= t < block.start + len(block.near) or block.count > count \
                or block.statuses != selection.statuses:
            block = self._blocks[key] = _Block.of(t, coming[1][t:t + NEIGHBOUR_BLOCK], rows, inside)
            block.statuses = selection.statuses
        # the rows scored with the block, narrowed; the rows appended since, all of them
        near = block.near[t - block.start]
        if count > block.count:
            near = np.concatenate([near, block.count + np.flatnonzero(inside[block.count:])])
        if not len(near):
            return []
        exact = _dots(rows[near], vector)
        order = np.lexsort((near, -exact))[:NEIGHBOURS]
        return [(members[near[i]], float(exact[i])) for i in order]

    def append(self, record: MemIR, vector: Vectors) -> None:
        at = len(self.items)
        self.items.append((record, vector))
        self._keep_row(at, vector)
        key = (record.scope.user_id, record.type)
        members = self._by_user_type.setdefault(key, [])
        members.append(at)
        self._keep_scope_row(key, len(members) - 1, record, vector)
        for name, value in record.properties.items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str | int | float | bool):
                    self._by_value.setdefault((name, item), []).append(at)

    def _keep_row(self, at: int, vector: Vectors) -> None:
        rows = self._rows
        if at == 0:
            rows = self._rows = np.zeros((16, len(vector)), dtype=np.float32) if _row_like(vector) else None
        if rows is None:
            return
        if not _row_like(vector) or len(vector) != rows.shape[1]:
            self._rows = None
            return
        if at >= len(rows):
            grown = np.zeros((2 * len(rows), rows.shape[1]), dtype=np.float32)
            grown[:at] = rows[:at]
            rows = self._rows = grown
        rows[at] = vector

    def _keep_scope_row(self, key: tuple[Any, str], at: int, record: MemIR, vector: Vectors) -> None:
        """Append to the scope's rows once :meth:`scope_rows` has made them (a batch of one record never does)."""
        rows, status = self._scope_rows.get(key), self._scope_status.get(key)
        if self._rows is None or rows is None or status is None:
            return
        if at >= len(rows):
            grown = np.zeros((2 * len(rows), rows.shape[1]), dtype=np.float32)
            grown[:at] = rows[:at]
            rows = self._scope_rows[key] = grown
            status = self._scope_status[key] = np.concatenate([status, np.zeros(len(status), dtype=np.int8)])
        rows[at] = vector
        status[at] = _STATUS_CODE[record.status]

    def scope_rows(self, selection: Selection) -> tuple[list[int], Vectors] | None:
        """(positions, rows) of the items inside a governor's scope (one user, one type, any agent and session, no
        ids, time or filter: only the status is checked), in batch order: the positions :meth:`of_scope` and
        :meth:`admitted` give and the rows :meth:`matrix` gives for them (a contiguous slice where every item is
        admitted). None for any other selection, or when the rows are not kept."""
        found = self._scope_all(selection)
        if found is None:
            return None
        members, rows, inside = found
        if inside.all():
            return members, rows
        return [m for m, keep in zip(members, inside.tolist(), strict=True) if keep], rows[inside]

    def _scope_all(self, selection: Selection) -> tuple[list[int], Vectors, npt.NDArray[np.bool_]] | None:
        """(positions, rows, inside) of every item of a governor's scope's user and type, with which of them the
        scope's statuses admit (:meth:`scope_rows`); None where :meth:`scope_rows` is None."""
        if self._rows is None or selection.user_id is ANY or selection.types is None or len(selection.types) != 1 \
                or selection.agent_id is not ANY or selection.session_id is not ANY or selection.ids is not None \
                or selection.valid_at is not None or selection.where is not None:
            return None
        key = (selection.user_id, selection.types[0])
        members = self._by_user_type.get(key, [])
        if not members:
            return [], np.zeros((0, self._rows.shape[1]), dtype=np.float32), np.zeros(0, dtype=bool)
        count = len(members)
        if key not in self._scope_rows:  # made at the first look: the rows kept so far, gathered once
            self._scope_rows[key] = np.zeros((max(16, 2 * count), self._rows.shape[1]), dtype=np.float32)
            self._scope_rows[key][:count] = self._rows[np.asarray(members, dtype=np.intp)]
            self._scope_status[key] = np.zeros(max(16, 2 * count), dtype=np.int8)
            self._scope_status[key][:count] = [_STATUS_CODE[self.items[i][0].status] for i in members]
        rows, status = self._scope_rows[key][:count], self._scope_status[key][:count]
        wanted = np.zeros(len(_STATUS_CODE), dtype=bool)
        wanted[[_STATUS_CODE[s] for s in selection.statuses]] = True
        return members, rows, wanted[status]

    def of_scope(self, selection: Selection) -> Sequence[int]:
        """Positions of the items that may be inside ``selection``, in batch order: those of its user and types
        when it names them (a record of another user or type is never inside), else all."""
        if selection.user_id is ANY or selection.types is None:
            return range(len(self.items))
        at = [i for t in selection.types for i in self._by_user_type.get((selection.user_id, t), ())]
        return sorted(at) if len(selection.types) > 1 else at

    def matrix(self, at: Sequence[int]) -> Vectors:
        """The vectors of the items at ``at``, one row each (the values ``np.vstack`` of them gives)."""
        if self._rows is not None:
            return self._rows[np.asarray(at, dtype=np.intp)]
        return np.vstack([self.items[i][1] for i in at])

    def admitted(self, selection: Selection, i: int) -> bool:
        """``selection.admits`` of item ``i``, where ``i`` comes from :meth:`of_scope`: for a selection of one user
        and named types, any agent and session, no ids and no time (a governor's scope), only the status is left
        to check."""
        record = self.items[i][0]
        if selection.user_id is not ANY and selection.types is not None and selection.agent_id is ANY \
                and selection.session_id is ANY and selection.ids is None and selection.valid_at is None:
            return record.status in selection.statuses
        return selection.admits(record)

    def found_by(self, selection: Selection) -> list[tuple[MemIR, Vectors]]:
        """The batch's records inside ``selection`` (scope, types, statuses, where), in batch order."""
        first = _equality(selection.where)
        if first is None or not all(isinstance(v, str | int | float | bool) for v in first[1]):
            at: Any = range(len(self.items))  # no equality to look up: every record is checked
        else:
            name, values = first
            at = sorted({i for v in values for i in self._by_value.get((name, v), ())})
        return [self.items[i] for i in at if _found_by(selection, self.items[i][0])]


class _Block:
    """A block of a scope's coming records (the ``start``-th on) scored against the scope's first ``count`` rows by
    one matrix product, and per record the rows that product leaves to score exactly (:meth:`_Batch.nearest`)."""

    def __init__(self, start: int, count: int, near: list[npt.NDArray[np.intp]]) -> None:
        self.start, self.count, self.near = start, count, near
        self.statuses: Any = None  # the statuses of the scope it was made for

    @classmethod
    def of(cls, start: int, coming: Vectors, rows: Vectors, inside: npt.NDArray[np.bool_]) -> _Block:
        """Per coming record, the rows inside the scope whose product score is within :data:`NEIGHBOUR_MARGIN`
        (relative) of its NEIGHBOURS-th best: a superset of its NEIGHBOURS most similar by exact score, ties
        included (both scores are within half the margin of the true dot product). Every inside row where there
        are no more than NEIGHBOURS of them, or where a score is not finite."""
        everyone = np.flatnonzero(inside)
        count = len(rows)
        if len(everyone) <= NEIGHBOURS:
            return cls(start, count, [everyone] * len(coming))
        scores = np.where(inside[None, :], coming @ rows.T, -np.inf)  # (coming, rows)
        finite: npt.NDArray[np.bool_] = np.asarray(np.isfinite(scores[:, everyone]).all(axis=1))
        kth = np.partition(scores, count - NEIGHBOURS, axis=1)[:, count - NEIGHBOURS]
        largest = float(np.sqrt(np.einsum("ij,ij->i", rows, rows).max()))
        lengths = np.sqrt(np.einsum("ij,ij->i", coming, coming))
        kept = scores >= (kth - NEIGHBOUR_MARGIN * lengths * largest)[:, None]
        return cls(start, count, [np.flatnonzero(k) if ok else everyone for k, ok in zip(kept, finite.tolist(), strict=True)])


_STATUS_CODE = {status: code for code, status in enumerate(MemoryStatus)}


def _dots(rows: Vectors, vector: Vectors) -> Vectors:
    """Each row's dot product with ``vector``, row by row (a row's value does not depend on the other rows)."""
    return np.einsum("ij,j->i", rows, np.asarray(vector, dtype=rows.dtype))


def _row_like(vector: Any) -> bool:
    return isinstance(vector, np.ndarray) and vector.dtype == np.float32 and vector.ndim == 1


def _equality(node: FilterNode | None) -> tuple[str, list[Any]] | None:
    """(property, values) of an equality the filter requires (itself or an item of its top-level AND), if any:
    only records holding one of the values can match."""
    for item in node.items if isinstance(node, And) else [node]:
        if isinstance(item, Cmp) and not item.is_record_field and item.op in ("$eq", "$in"):
            return item.field, list(item.value) if item.op == "$in" else [item.value]
    return None


def _found_by(selection: Selection, record: MemIR) -> bool:
    """Whether a store look-up of ``selection`` would find ``record`` (scope, types, statuses, where)."""
    return selection.admits(record) and matches(selection.where, record)
