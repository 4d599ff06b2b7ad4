"""The core of the facade: typed CRUD, hybrid search and JSONL interchange.

Feature mixins (understanding, recall, lifecycle) live beside this module and
are composed into :class:`mnemir.memory.Memory`. Every write goes through
:meth:`MemoryCore._commit`: validate -> govern -> embed -> one store
transaction.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Concatenate, ParamSpec, Self, TypeVar

import numpy as np

from mnemir.embed.base import Embedder, Vectors
from mnemir.errors import ConflictError, MnemirError, ModelMismatchError, ValidationError
from mnemir.ir import (
    Action,
    Content,
    HistoryEntry,
    MemIR,
    MemoryStatus,
    Relationship,
    ensure_aware,
    iter_jsonl,
    new_id,
    utcnow,
)
from mnemir.ir.jsonl import dump_line
from mnemir.ir.record import check_unicode, parse_record
from mnemir.lifecycle.records import changed, entry
from mnemir.memory import bulk
from mnemir.memory.config import MemoryConfig
from mnemir.memory.group import GroupCommit
from mnemir.ontology import Ontology
from mnemir.retrieve.search import SearchHit, check_k, hybrid_search
from mnemir.store.base import ANY, LIVE_STATUSES, Selection, Store, Write, _Any
from mnemir.store.filters import parse_filter
from mnemir.store.integrity import CheckReport

Progress = Callable[[int, int | None], None]
ALL_STATUSES = tuple(MemoryStatus)
NOT_DELETED = tuple(s for s in MemoryStatus if s != MemoryStatus.deleted)
IMPORT_BATCH = 256


P = ParamSpec("P")
R = TypeVar("R")


def serialized(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """Run a read-modify-write operation inside ``store.exclusive(scope)``: what it reads cannot change before
    it writes, so two processes reinforcing one memory both count and two moving one task are applied in turn.
    The scope is the operation's ``user`` (it reads and writes that user's memories only; writers of other users
    need not wait where the backend can tell them apart); an operation without one, or with ``user=ANY``, locks
    every scope."""
    parameter = inspect.signature(method).parameters.get("user")
    default = parameter.default if parameter is not None else ANY

    @functools.wraps(method)
    def wrapper(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        user = kwargs.get("user", default) if parameter is not None else ANY
        with self.store.exclusive(_lock_scope(user)):
            return method(self, *args, **kwargs)

    return wrapper


def _lock_scope(user: Any) -> str | _Any | None:
    """The scope :func:`serialized` locks for a call with this ``user``."""
    return user if user is None or (isinstance(user, str) and user.strip()) else ANY


def resolve_now(now: datetime | None) -> datetime:
    return utcnow() if now is None else ensure_aware(now, "now")


def _check_scope_value(name: str, value: Any) -> None:
    if value is not None and value is not ANY and (not isinstance(value, str) or not value.strip()):
        raise ValidationError(f"{name} must be a non-empty string", field=name, value=value, allowed="string or None")


@dataclass
class _Add:
    """One ``add`` call on its way to the store: its record (prepared, or as parsed if the ontology refused it:
    ``refused``), its given vector, its own time and actor, whether the caller named the id, and its user."""

    record: MemIR
    refused: ValidationError | None
    given: Vectors | None
    now: datetime
    creator: str
    named_id: bool
    user: str | None
    #: what governance decided for this call alone (set when its write is governed)
    report: Any = None


class MemoryCore:
    """Typed memory over a store, an embedder and an ontology."""

    def __init__(self, store: Store, *, embedder: Embedder, ontology: Ontology,
                 config: MemoryConfig | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.ontology = ontology
        self.config = config or MemoryConfig()
        stored_model = store.model_id
        if stored_model is not None and stored_model != embedder.model_id:
            raise ModelMismatchError(
                f"this store holds vectors of the model {stored_model!r}, but the embedder is "
                f"{embedder.model_id!r}; open it with the same embedder (changing models needs a re-embedding "
                "migration: export without embeddings and import into a new store)",
                store_model=stored_model, embedder_model=embedder.model_id,
            )

    # -- scope -----------------------------------------------------------------
    def _selection(self, *, user: str | _Any | None = None, agent: str | _Any | None = None,
                   session: str | _Any | None = None, types: Iterable[str] | None = None,
                   where: Mapping[str, Any] | None = None, include_archived: bool = False,
                   statuses: Iterable[MemoryStatus | str] | None = None, valid_at: datetime | None = None,
                   ids: Iterable[str] | None = None) -> Selection:
        for name, value in (("user", user), ("agent", agent), ("session", session)):
            _check_scope_value(name, value)
        try:
            type_names = tuple(self.ontology.resolve(t).name for t in types) if types is not None else None
        except ValidationError as exc:  # the argument is ``types``
            raise ValidationError(exc.message, **{**exc.context, "field": "types"}) from None
        if type_names is not None and not type_names:
            raise ValidationError("types must not be empty (use None for all types)", field="types", value=[])
        if statuses is not None:
            status_tuple = tuple(_status(s) for s in statuses)
        else:
            status_tuple = LIVE_STATUSES + ((MemoryStatus.archived,) if include_archived else ())
        return Selection(
            user_id=user, agent_id=agent if agent is not None else ANY,
            session_id=session if session is not None else ANY, types=type_names, statuses=status_tuple,
            where=parse_filter(where, self.ontology, type_names), ids=tuple(ids) if ids is not None else None,
            valid_at=ensure_aware(valid_at, "as_of") if valid_at is not None else None,
        )

    # -- write path ------------------------------------------------------------
    def _prepare(self, record: MemIR, now: datetime, actor: str) -> MemIR:
        """Validate type and properties against the ontology and stamp times and version."""
        type_name, props = self.ontology.validate(record.type, record.properties)
        meta = record.metadata.model_copy(update={
            "ontology_version": self.ontology.version,
            "source": record.metadata.source if record.metadata.source.creator else
            record.metadata.source.model_copy(update={"creator": actor}),
        })
        return record.model_copy(update={"type": type_name, "properties": props, "metadata": meta})

    def _govern(self, records: list[MemIR], *, now: datetime, actor: str,
                vectors: Mapping[str, Vectors] | None = None) -> tuple[list[Write], dict[str, str]]:
        """Write-time governance hook: turn prepared records into writes (the lifecycle mixin overrides this).

        Returns the writes and ``merged``: input id -> id of the existing memory it was
        merged into (so callers get back the memory that now stands for what they wrote). ``vectors``: see
        :meth:`_commit`.
        """
        known = vectors or {}
        writes = [Write(r, known.get(r.id), [entry(None, r, Action.created, now=now, actor=actor, reason="added")])
                  for r in records]
        return writes, {}

    def _commit(self, records: Sequence[MemIR], *, now: datetime | None = None, actor: str = "api",
                govern: bool = True, vectors: Mapping[str, Vectors] | None = None,
                ready: bool = False) -> list[MemIR]:
        """Validate, govern, embed and store ``records`` in one transaction; return what was stored.

        ``ready``: the records come from :meth:`_prepare` already (with this ``now`` and ``actor``): not again.

        ``vectors`` (optional, record id -> vector): vectors the caller already made for these records' texts WITH
        THIS STORE'S EMBEDDER (the understanding step embeds each utterance piece once to classify it); a record
        is governed and stored with its vector instead of being embedded again.
        """
        now = resolve_now(now)
        prepared = list(records) if ready else [self._prepare(r, now, actor) for r in records]
        if govern:
            self._flush_queue()  # governance reads the store: it must see what this block already changed
            writes, merged = self._govern(prepared, now=now, actor=actor, vectors=vectors)
        else:
            writes, merged = [Write(r, (vectors or {}).get(r.id)) for r in prepared], {}
        self._write(writes)
        written = {w.record.id: w.record for w in writes}
        return [written[merged.get(r.id, r.id)] for r in prepared if merged.get(r.id, r.id) in written]

    # one transaction for several operations: a thread-local queue per Memory object (other threads write as usual)
    _queues = threading.local()

    def _queue(self) -> list[tuple[list[Write], list[str]]] | None:
        return getattr(self._queues, "by_memory", {}).get(id(self))

    @contextmanager
    def _one_transaction(self) -> Iterator[None]:
        """Queue every write made inside the block and store them all in ONE store transaction when it ends;
        if the block raises, nothing is written. Nested blocks join the outer one.

        Reads inside the block do not see the queued writes, so what reads the store first stores the queue:
        governing new records (merges, contradictions, supersedes are decided from the store), a caller about to read
        a record it may have queued, and a write that touches a record already queued. Such a block then takes
        more than one transaction; correctness comes before atomicity."""
        if self._queue() is not None:
            yield
            return
        queues = getattr(self._queues, "by_memory", None)
        if queues is None:
            queues = self._queues.by_memory = {}
        queues[id(self)] = []
        try:
            yield
            pending = queues[id(self)]
        finally:
            queues.pop(id(self), None)
        self._store_writes([w for ws, _ in pending for w in ws], [i for _, ds in pending for i in ds])

    def _write(self, writes: list[Write], delete_ids: Sequence[str] = ()) -> None:
        """Embed whatever is new or changed, then write everything in one store transaction (or queue it inside
        :meth:`_one_transaction`)."""
        queue = self._queue()
        if queue is None:
            self._store_writes(writes, delete_ids)
            return
        if self._queued_ids() & ({w.record.id for w in writes} | set(delete_ids)):
            self._flush_queue()
        queue.append((writes, list(delete_ids)))

    def _queued_ids(self) -> set[str]:
        queue = self._queue() or []
        return {w.record.id for ws, _ in queue for w in ws} | {i for _, ds in queue for i in ds}

    def _flush_queue(self) -> None:
        """Store what :meth:`_one_transaction` has queued so far (nothing outside such a block)."""
        queue = self._queue()
        if queue:
            self._store_writes([w for ws, _ in queue for w in ws], [i for _, ds in queue for i in ds])
            queue.clear()

    def _store_writes(self, writes: list[Write], delete_ids: Sequence[str] = ()) -> None:
        if not writes and not delete_ids:
            return
        unvectored = [w for w in writes if w.vector is None]  # only these may need the stored text to compare
        users = {w.record.scope.user_id for w in unvectored}
        existing = {r.id: r for r in self.store.fetch([w.record.id for w in unvectored],
                                                      user=users.pop() if len(users) == 1 else ANY)} \
            if unvectored else {}
        to_embed = [w for w in unvectored if
                    w.record.id not in existing or existing[w.record.id].content.text != w.record.content.text]
        if to_embed:
            vectors = self.embedder.embed([w.record.content.text for w in to_embed])
            for w, vec in zip(to_embed, vectors, strict=True):
                w.vector = vec
        self.store.write(writes, model_id=self.embedder.model_id, delete_ids=delete_ids)

    # -- CRUD ------------------------------------------------------------------
    def add(self, text: str, type: str, properties: Mapping[str, Any] | None = None, *, user: str | None = None,
            agent: str | None = None, session: str | None = None, speaker: str | None = None,
            turn: int | None = None, summary: str | None = None,
            relationships: Iterable[Relationship | Mapping[str, Any]] = (), id: str | None = None,
            valid_from: datetime | None = None, now: datetime | None = None, creator: str = "api",
            vector: Any = None) -> MemIR:
        """Add one typed memory (validated; merged or superseding per the lifecycle rules).

        ``vector``: the text's vector made with THIS store's embedder (e.g. by an earlier ``embedder.embed`` call),
        so the text is not embedded again.

        Calls from several threads (or AsyncMemory tasks) that arrive while another is writing are written together
        in one transaction on SQLite (``MemoryConfig.group_commit``; :mod:`mnemir.memory.group`): governed in
        arrival order, each returning once that transaction has committed, each failing only by its own error."""
        make = self._add_item(text, type, properties, user=user, agent=agent, session=session, speaker=speaker,
                              turn=turn, summary=summary, relationships=relationships, id=id, valid_from=valid_from,
                              now=now, creator=creator, vector=vector)
        made: list[_Add] = []

        def made_here() -> _Add:  # the call's own item, for its own report once written
            made.append(make())
            return made[0]

        group = self._add_group()
        if group is None:
            with self.store.exclusive(_lock_scope(user)):
                outcome = self._add_written([made_here()])[0]
            if isinstance(outcome, BaseException):
                raise outcome
            result: MemIR = outcome
        else:
            result = group.submit(made_here)
        self._keep_report(made[0].report)
        return result

    async def _add_async(self, *args: Any, **kwargs: Any) -> MemIR:
        """``add`` for :class:`~mnemir.memory.aio.AsyncMemory` while group commit is on (:meth:`_add_group`): the task
        joins the same queue as threads do, and awaits its transaction without holding a thread."""
        make = self._add_item(*args, **kwargs)
        made: list[_Add] = []

        def made_here() -> _Add:
            made.append(make())
            return made[0]

        group = self._add_group()
        if group is None:
            raise RuntimeError("_add_async needs group commit")  # AsyncMemory asks _add_group() first
        result: MemIR = await group.submit_async(made_here)
        self._keep_report(made[0].report)  # in the awaiting task's own context
        return result

    def _add_group(self) -> GroupCommit[_Add] | None:
        """The group commit for ``add`` (None where it does not apply: turned off, a store that takes several
        writers at once, or a caller already inside a write of this store, which must write in its own
        transaction and cannot wait for another thread's)."""
        if not (self.config.group_commit and getattr(self.store, "one_writer", False)):
            return None
        if self._queue() is not None or self.store.writing_here():
            return None
        group = self.__dict__.get("_group")
        if group is None:
            group = self.__dict__.setdefault("_group", GroupCommit(self._add_together))
        return group

    def _add_item(self, text: str, type: str, properties: Mapping[str, Any] | None = None, *,
                  user: str | None = None, agent: str | None = None, session: str | None = None,
                  speaker: str | None = None, turn: int | None = None, summary: str | None = None,
                  relationships: Iterable[Relationship | Mapping[str, Any]] = (), id: str | None = None,
                  valid_from: datetime | None = None, now: datetime | None = None, creator: str = "api",
                  vector: Any = None) -> Callable[[], _Add]:
        """Check ``add``'s arguments (ValidationError at once) and return what builds its record: called when the
        call takes its place in line (inside the store's lock, or the group's queue), so that its time stamp
        follows the order in which calls are written."""
        given = None
        if vector is not None:
            try:
                given = bulk.check_vectors([vector], 1, self.embedder.dim)[0]
            except ValidationError as exc:
                raise ValidationError(exc.message.split(";")[0].replace("vectors[0]", "vector"), field="vector",
                                      value=exc.value, allowed=exc.allowed) from None
        for name, value in (("user", user), ("agent", agent), ("session", session)):
            _check_scope_value(name, value)
        if not isinstance(text, str):
            raise ValidationError("text must be a string", field="content.text", value=text, allowed="string")
        links = [r.model_dump() if isinstance(r, Relationship) else dict(r) for r in relationships]

        def make() -> _Add:
            at = resolve_now(now)
            record = parse_record({
                "id": id if id is not None else new_id(),
                "content": {"text": text, "summary": summary},
                "type": type, "properties": dict(properties or {}),
                "scope": {"user_id": user, "agent_id": agent, "session_id": session},
                "metadata": {"created_at": at, "updated_at": at,
                             "source": {"speaker": speaker, "session_id": session, "turn": turn,
                                        "creator": creator, "at": at}},
                "relationships": links,
                "valid_from": valid_from or at,
            })
            try:  # the ontology's verdict is given after the id check, as a call alone gives it
                return _Add(self._prepare(record, at, creator), None, given, at, creator, id is not None, user)
            except ValidationError as exc:
                return _Add(record, exc, given, at, creator, id is not None, user)

        return make

    def _add_together(self, items: Sequence[_Add]) -> list[MemIR | BaseException]:
        """Write a group commit's batch of ``add`` calls in ONE transaction; one outcome per call. If the
        transaction fails (the store refused a row: a trigger, a full disk), each call is then written alone, so
        that the failure is only the failing call's, and the others are written as they would have been."""
        try:
            with self.store.exclusive(ANY):
                return self._add_written(items)
        except Exception as exc:
            # the store stayed busy (another process held it): nobody's own error, and nothing was written
            if len(items) == 1 or (isinstance(exc, MnemirError) and exc.context.get("busy")):
                return [exc] * len(items)
        return [self._add_together([item])[0] for item in items]

    def _add_written(self, items: Sequence[_Add]) -> list[MemIR | BaseException]:
        """Govern and write ``add`` calls inside the caller's transaction, as if made one after another in this
        order: one governance pass over consecutive calls (its look-ups batched: one duplicate search per scope),
        cut where a call names an id an earlier call of the pass wrote (that call must see the earlier write).
        A call's own error (its id taken by another scope, its type or properties refused) is its outcome."""
        named = [item.record.id for item in items if item.named_id]
        held = {r.id: r.scope.user_id for r in self.store.fetch(named)} if named else {}
        outcomes: list[MemIR | BaseException | None] = [None] * len(items)
        run: list[int] = []

        def flush() -> None:
            if not run:
                return
            records = [items[i].record for i in run]
            stamps = {items[i].record.id: (items[i].now, items[i].creator) for i in run}
            vectors = {item.record.id: item.given for item in (items[i] for i in run) if item.given is not None}
            self._flush_queue()  # governance reads the store: it must see what an enclosing block queued
            writes, stands = self._govern_each(records, stamps=stamps, vectors=vectors or None)
            self._write(writes)
            held.update((w.record.id, w.record.scope.user_id) for w in writes)
            for i in run:
                outcomes[i], items[i].report = stands[items[i].record.id]
            run.clear()

        for i, item in enumerate(items):
            rid = item.record.id
            if any(items[j].record.id == rid for j in run):
                flush()
            if item.named_id and rid in held and held[rid] != item.user:  # an id is no key to another scope's
                outcomes[i] = ConflictError(f"id {rid!r} is taken by a memory of another scope", id=rid)
            elif item.refused is not None:
                outcomes[i] = item.refused
            else:
                run.append(i)
        flush()
        assert all(o is not None for o in outcomes)
        return outcomes  # type: ignore[return-value]

    def _govern_each(self, records: list[MemIR], *, stamps: Mapping[str, tuple[datetime, str]],
                     vectors: Mapping[str, Vectors] | None = None) -> tuple[list[Write], dict[str, tuple[MemIR, Any]]]:
        """Govern records of several calls at once (each with its own time and actor, ``stamps``); returns the
        writes and, per record, the memory that stands for it right after its own decision (what its call alone
        returns) with that call's own report. The lifecycle mixin overrides this with the real governance."""
        known = vectors or {}
        writes = [Write(r, known.get(r.id), [entry(None, r, Action.created, now=stamps[r.id][0],
                                                   actor=stamps[r.id][1], reason="added")]) for r in records]
        return writes, {r.id: (r, None) for r in records}

    def _keep_report(self, report: Any) -> None:
        """Leave a call's own report as the caller's latest (the lifecycle mixin keeps reports)."""

    @serialized
    def add_many(self, items: Iterable[Mapping[str, Any]], *, user: str | None = None, agent: str | None = None,
                 session: str | None = None, vectors: Any = None, govern: bool = True, now: datetime | None = None,
                 creator: str = "api") -> list[MemIR]:
        """Add many typed memories of one scope in ONE store transaction; returns what was stored, in item order.

        Each item is a mapping of :meth:`add`'s per-record arguments (``text``, ``type``, ``properties``,
        ``summary``, ``speaker``, ``turn``, ``relationships``, ``id``, ``valid_from``). Every item is validated
        before anything is written: the first bad one raises a ValidationError naming ``items[i].<field>`` (and
        ``index``), with nothing written; a record the store refuses while writing (StoreError) fails the whole
        batch: nothing of it is stored, not even a merge into a memory held before (tested). ``vectors``: one per
        item, made with THIS store's embedder (e.g. by an earlier ``embedder.embed`` call), so the texts are not
        embedded again; otherwise they are embedded in one call. ``govern=True`` applies add's lifecycle rules to
        each item (merges, contradictions, supersedes: a vector search in the item's scope per item);
        ``govern=False`` stores the items as they are (a bulk load of records known to be new and distinct:
        no merging or conflict checks), each with its ``created`` history entry."""
        if not isinstance(govern, bool):
            raise ValidationError("govern must be true or false", field="govern", value=govern, allowed="a bool")
        now = resolve_now(now)
        for name, value in (("user", user), ("agent", agent), ("session", session)):
            _check_scope_value(name, value)
        if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
            raise ValidationError("items must be a list of mappings", field="items", value=items,
                                  allowed="a list of mappings of add()'s arguments")
        records = [bulk.item_record(i, item, user=user, agent=agent, session=session, now=now, creator=creator)
                   for i, item in enumerate(items)]
        bulk.duplicate_ids(records)
        given = bulk.check_vectors(vectors, len(records), self.embedder.dim) if vectors is not None else None
        prepared = []
        for i, record in enumerate(records):
            try:
                prepared.append(self._prepare(record, now, creator))
            except ValidationError as exc:
                raise bulk.at_item(exc, i) from None
        if not prepared:
            return []
        held = {r.id: r for r in self.store.fetch([r.id for r in prepared])}
        for i, record in enumerate(prepared):
            if record.id in held and held[record.id].scope.user_id != user:
                raise ConflictError(f"items[{i}]: id {record.id!r} is taken by a memory of another scope",
                                    id=record.id, index=i)
        known = dict(zip((r.id for r in prepared), given, strict=True)) if given is not None else None
        if govern:
            return self._commit(prepared, now=now, actor=creator, vectors=known, ready=True)
        if known is None:
            known = dict(zip((r.id for r in prepared), self.embedder.embed([r.content.text for r in prepared]),
                             strict=True))
        self._write([Write(r, known[r.id], [entry(None, r, Action.created, now=now, actor=creator,
                                                   reason="added")]) for r in prepared])
        return prepared

    def get(self, id: str, *, user: str | _Any | None = None, include_deleted: bool = False) -> MemIR:
        """One memory by id, inside the caller's scope (NotFoundError otherwise)."""
        statuses = ALL_STATUSES if include_deleted else NOT_DELETED
        return self.store.get(id, Selection(user_id=user, statuses=statuses))

    @serialized
    def update(self, id: str, *, text: str | None = None, summary: str | None = None,
               properties: Mapping[str, Any] | None = None, status: MemoryStatus | str | None = None,
               relationships: Iterable[Relationship | Mapping[str, Any]] = (), user: str | _Any | None = None,
               now: datetime | None = None, reason: str = "", actor: str = "api") -> MemIR:
        """Change a memory in place (properties are merged; ``None`` values remove a property). Recorded."""
        now = resolve_now(now)
        old = self.get(id, user=user)
        fields: dict[str, Any] = {}
        if text is not None or summary is not None:
            fields["content"] = Content(text=text if text is not None else old.content.text,
                                        summary=summary if summary is not None else old.content.summary)
        if status is not None:
            fields["status"] = _status(status)
        if relationships:
            extra = [r if isinstance(r, Relationship) else Relationship(**r) for r in relationships]
            fields["relationships"] = [*old.relationships, *[r for r in extra if r not in old.relationships]]
        new = self._prepare(changed(old, now, properties=properties or {}, **fields), now, actor)
        MemIR.model_validate(new.model_dump())  # re-check the whole record after the copy
        history = entry(old, new, _update_action(old, new), now=now, actor=actor, reason=reason or "updated")
        self._write([Write(new, None, [history])])
        return new

    @serialized
    def delete(self, id: str, *, user: str | _Any | None = None, hard: bool = False, now: datetime | None = None,
               reason: str = "", actor: str = "api", cascade: bool = True) -> None:
        """Soft-delete (status ``deleted``, kept as history) or hard-delete a memory.

        ``cascade`` (default): what was read from it goes too: forgetting an utterance (its ``Episode``) forgets the
        memories linked to it by ``derived_from``, in the same transaction. Deleting a typed memory alone leaves its
        episode.

        A hard delete forgets for real: the record, its vector, its text index entries, its relationships and
        its whole history are purged, and the bytes are overwritten in the SQLite file. What stays is a
        tombstone in history: id, time, actor and reason (keep personal data out of ``reason``)."""
        if not isinstance(cascade, bool):
            raise ValidationError("cascade must be true or false", field="cascade", value=cascade, allowed="a bool")
        now = resolve_now(now)
        old = self.get(id, user=user, include_deleted=True)
        derived = [e.source for e in self.store.edges([id], relations=["derived_from"], direction="in",
                                                      user=user)] if cascade else []
        if derived:
            with self._one_transaction():
                for mid in dict.fromkeys(derived):
                    if mid != id and self._existing_ids([mid]):
                        self.delete(mid, user=user, hard=hard, now=now, actor=actor, cascade=False,
                                    reason=reason or f"derived from {id}, which was deleted")
                self.delete(id, user=user, hard=hard, now=now, reason=reason, actor=actor, cascade=False)
            return
        if hard:
            self._write(*self._purge_writes([id], now=now, actor=actor, reason=reason, user=user))
            return
        if old.status == MemoryStatus.deleted:
            return
        self.update(id, status=MemoryStatus.deleted, user=user, now=now, reason=reason or "deleted", actor=actor)

    def _purge_writes(self, ids: Sequence[str], *, now: datetime, actor: str, reason: str,
                      user: str | _Any | None = ANY) -> tuple[list[Write], list[str]]:
        """The writes that hard-delete ``ids`` (``user``'s memories): a content-free tombstone for each, written
        with the purge."""
        scope = Selection(user_id=user, statuses=ALL_STATUSES)
        tombstones = [Write(self.store.get(i, scope), None, [HistoryEntry(memory_id=i, at=now, action=Action.deleted,
                                                                  actor=actor, reason=reason or "hard delete")])
                      for i in ids]
        return tombstones, list(ids)

    def forget_user(self, user: str, *, now: datetime | None = None, reason: str = "",
                    actor: str = "api") -> dict[str, int]:
        """Hard-delete every memory of one user (all agents and sessions), in batches; returns counts:
        ``memories`` purged and ``tombstones`` left (one per memory, no content)."""
        if not isinstance(user, str) or not user:
            raise ValidationError("forget_user needs one user id", field="user", value=user,
                                  allowed="a non-empty user id")
        now = resolve_now(now)
        selection = self._selection(user=user, statuses=list(MemoryStatus))
        purged = 0
        while True:
            ids = [r.id for r in self.store.select(selection, limit=500)]
            if not ids:
                break
            self._write(*self._purge_writes(ids, now=now, actor=actor, reason=reason or "forget user", user=user))
            purged += len(ids)
        return {"memories": purged, "tombstones": purged}

    def check(self) -> CheckReport:
        """Whether the store agrees with itself: every record has one vector of the store's model, full-text,
        property and relationship rows match the records, and history names only stored memories or
        tombstones (:mod:`mnemir.store.integrity`). Reads only; ``report.ok`` when nothing disagrees."""
        report = self.store.check()
        stored = self.store.model_id
        if stored is not None and stored != self.embedder.model_id:
            report.add("model_mismatch", None, f"the store's vectors are of {stored!r}, the embedder is "
                                               f"{self.embedder.model_id!r}")
        return report

    # -- read path ---------------------------------------------------------------
    def search(self, query: str = "", *, types: Iterable[str] | None = None, where: Mapping[str, Any] | None = None,
               k: int = 10, user: str | _Any | None = None, agent: str | None = None, session: str | None = None,
               include_archived: bool = False, as_of: datetime | None = None,
               now: datetime | None = None) -> list[SearchHit]:
        """Hybrid search inside a scope: type/property filters + vectors + BM25, fused; each hit says why.

        Plain search does not depend on the clock (``as_of`` asks for a point in time); ``now`` is accepted and
        checked so that every call can pass the same clock, as the time-dependent operations need it."""
        check_k(k)
        resolve_now(now)  # validated only: a naive datetime is an error here as everywhere
        if query is not None and not isinstance(query, str):
            raise ValidationError("query must be a string", field="query", value=query, allowed="string")
        if query:
            check_unicode(query, "query")
        statuses = NOT_DELETED if as_of is not None else None  # as-of sees superseded and archived history too
        selection = self._selection(user=user, agent=agent, session=session, types=types, where=where,
                                    include_archived=include_archived, statuses=statuses, valid_at=as_of)
        reasons = []
        if selection.types:
            reasons.append(f"type in {list(selection.types)}")
        if where:
            reasons.append(f"where {json.dumps(where, ensure_ascii=False, default=str)}")
        return hybrid_search(self.store, self.embedder, selection, query or "", k, self.config.fusion,
                             filter_reasons=reasons)

    def list(self, *, types: Iterable[str] | None = None, where: Mapping[str, Any] | None = None,
             user: str | _Any | None = None, agent: str | None = None, session: str | None = None,
             include_archived: bool = False, limit: int = 50, offset: int = 0,
             statuses: Iterable[MemoryStatus | str] | None = None) -> list[MemIR]:
        """Memories in a scope, newest first."""
        selection = self._selection(user=user, agent=agent, session=session, types=types, where=where,
                                    include_archived=include_archived, statuses=statuses)
        return self.store.select(selection, order_by=[("@created_at", False)], limit=limit, offset=offset)

    def count(self, *, types: Iterable[str] | None = None, user: str | _Any | None = None,
              include_archived: bool = False) -> int:
        return self.store.count(self._selection(user=user, types=types, include_archived=include_archived))

    # -- interchange ---------------------------------------------------------------
    def export_jsonl(self, target: str | Path | IO[str], *, user: str | _Any | None = ANY,
                     with_embeddings: bool = True, progress: Progress | None = None) -> int:
        """Write every memory in scope (all statuses) with its history to JSONL. Returns the record count.

        The export is a consistent snapshot: it reads in one read transaction, so writes made meanwhile (by other
        processes or other Memory objects) are either wholly in it or wholly out of it. Importing it into an empty
        store gives back the same ids, records, history and (``with_embeddings``) vectors."""
        selection = Selection(user_id=user, statuses=ALL_STATUSES)
        with self.store.snapshot():
            total = self.store.count(selection)
            if isinstance(target, (str, Path)):
                with open(target, "w", encoding="utf-8") as fh:
                    return self._export(fh, selection, total, with_embeddings, progress)
            return self._export(target, selection, total, with_embeddings, progress)

    def _export(self, out: IO[str], selection: Selection, total: int, with_embeddings: bool,
                progress: Progress | None) -> int:
        header = {"kind": "header", "memir_version": "1.0", "ontology_version": self.ontology.version,
                  "embedding_model": self.embedder.model_id if with_embeddings else None, "records": total}
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        count = 0
        batch: list[MemIR] = []

        def flush() -> None:
            nonlocal count
            vectors = self.store.vectors([r.id for r in batch]) if with_embeddings else {}
            histories = self.store.histories([r.id for r in batch])
            for rec in batch:
                vec = vectors.get(rec.id)
                if vec is not None:
                    rec = rec.model_copy(update={"embedding": [float(x) for x in vec]})
                out.write(dump_line(rec, with_embedding=with_embeddings) + "\n")
                for change in histories.get(rec.id, []):
                    out.write(json.dumps(change.to_line(), ensure_ascii=False) + "\n")
            count += len(batch)
            batch.clear()
            if progress:
                progress(count, total)

        for rec in self.store.iter_select(selection):
            batch.append(rec)
            if len(batch) >= IMPORT_BATCH:
                flush()
        if batch:
            flush()
        return count

    def import_jsonl(self, source: str | Path | IO[str], *, on_conflict: str = "replace",
                     progress: Progress | None = None, user: str | _Any | None = ANY) -> int:
        """Read MemIR JSONL (any supported version); records are validated against the ontology first.

        The whole file is checked before anything is written (every record against the ontology and, unless
        ``on_conflict="replace"``, every id against the store: ``"error"`` raises ConflictError with nothing
        written, ``"skip"`` leaves the ids the store already held untouched); then it is written in batches, each
        one transaction. Vectors in the file are reused when they come from this store's model.

        ``user``: import into one user's scope only: a record of another scope in the file is a ValidationError,
        an id the store holds in another scope a ConflictError, both before anything is written (the default,
        ANY, is an administrator's import of every scope).
        """
        _check_scope_value("user", user)
        if on_conflict not in ("replace", "skip", "error"):
            raise ValidationError("unknown on_conflict", field="on_conflict", value=on_conflict,
                                  allowed=["replace", "skip", "error"])
        records: list[MemIR] = []
        history: dict[str, list[HistoryEntry]] = {}
        model = None
        upgrade = self._import_upgrader()  # built once per import (it may read the store's migration log)
        for item in iter_jsonl(source):
            if isinstance(item, MemIR):
                item = upgrade(item)
                type_name, props = self.ontology.validate(item.type, item.properties)
                records.append(item.model_copy(update={"type": type_name, "properties": props}))
            elif item.get("kind") == "header":
                model = item.get("embedding_model")
            elif item.get("kind") == "history":
                logged = HistoryEntry.model_validate({k: v for k, v in item.items() if k != "kind"})
                history.setdefault(logged.memory_id, []).append(logged)
        if user is not ANY:
            foreign = [r for r in records if r.scope.user_id != user]
            if foreign:
                raise ValidationError(f"record {foreign[0].id} belongs to user {foreign[0].scope.user_id!r}, not "
                                      f"{user!r}; nothing was imported", field="scope.user_id",
                                      value=foreign[0].scope.user_id, allowed=[user], id=foreign[0].id)
            taken = sorted(r.id for rid in range(0, len(records), IMPORT_BATCH)
                           for r in self.store.fetch([x.id for x in records[rid:rid + IMPORT_BATCH]])
                           if r.scope.user_id != user)
            if taken:
                raise ConflictError(f"{len(taken)} ids belong to another scope (e.g. {taken[0]}); nothing was "
                                    "imported", ids=taken[:5])
        existing = self._existing_ids([r.id for r in records]) if on_conflict != "replace" else set()
        if on_conflict == "error" and existing:
            shown = sorted(existing)[:5]
            raise ConflictError(f"{len(existing)} ids already exist in this store (e.g. {', '.join(shown)}); "
                                "nothing was imported (use on_conflict='replace' or 'skip')", ids=shown)
        if on_conflict == "skip":
            records = [r for r in records if r.id not in existing]
        reuse = model == self.embedder.model_id
        done = 0
        for start in range(0, len(records), IMPORT_BATCH):
            chunk = records[start:start + IMPORT_BATCH]
            writes = []
            for rec in chunk:
                vec = None
                if reuse and rec.embedding is not None and len(rec.embedding) == self.embedder.dim:
                    vec = np.asarray(rec.embedding, dtype=np.float32)
                writes.append(Write(rec.model_copy(update={"embedding": None}), vec, history.get(rec.id, [])))
            self._write(writes)
            done += len(chunk)
            if progress:
                progress(done, len(records))
        return done

    def _existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` the store already holds (any status), looked up in batches."""
        found: set[str] = set()
        for start in range(0, len(ids), IMPORT_BATCH):
            found.update(r.id for r in self.store.fetch(ids[start:start + IMPORT_BATCH]))
        return found

    def _import_upgrader(self) -> Callable[[MemIR], MemIR]:
        """Hook: a function that brings an imported record written under an older ontology to the current names
        (the lifecycle mixin applies the store's logged ontology migrations). Called once per import."""
        return lambda record: record

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:  # the composed Memory, with every face, not just the core
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _status(value: MemoryStatus | str) -> MemoryStatus:
    try:
        return MemoryStatus(value)
    except ValueError:
        raise ValidationError("unknown memory status", field="status", value=value,
                              allowed=[s.value for s in MemoryStatus]) from None


def _update_action(old: MemIR, new: MemIR) -> Action:
    if old.status != new.status:
        return {MemoryStatus.archived: Action.archived, MemoryStatus.deleted: Action.deleted,
                MemoryStatus.superseded: Action.superseded, MemoryStatus.disputed: Action.disputed}.get(
            new.status, Action.restored if old.status in (MemoryStatus.archived, MemoryStatus.deleted)
            else Action.status_changed)
    return Action.updated

