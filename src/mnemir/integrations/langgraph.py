"""A LangGraph long-term memory store backed by mnemir (extra ``langgraph``).

``MnemirStore(memory, user_label=1)`` implements ``langgraph.store.base.BaseStore`` (sync ``batch`` and async
``abatch`` run the same code; only the awaiting differs): ``put``, ``get``, ``search`` (filters and a
natural-language query through mnemir's hybrid search), ``delete``, ``list_namespaces``. A graph gets typed memory
by passing it as ``graph.compile(store=MnemirStore(...))``.

How items map to memories
-------------------------
- One item is one mnemir memory, with a stable id made from its namespace and key. The item's ``value`` is kept
  verbatim and read back unchanged (nested values included); ``namespace``, ``key``, ``created_at`` and
  ``updated_at`` are those of the item (a put on an existing key keeps ``created_at``).
- Scope: ``user_label`` (``agent_label``) is the position of the namespace label that is the mnemir user
  (agent); with ``("memories", "alice")`` and ``user_label=1`` the memory belongs to user ``alice``, so
  ``memory.recall(..., user="alice")`` sees it. With ``None`` (the default) items have no user scope. The whole
  namespace is kept with the memory and every operation matches on it.
- Type: a value ``{"type": <a type of the ontology>, "text": str, "properties": {...}}`` is stored as that type,
  its properties validated by the ontology. Any other value is a ``Fact`` whose text is read from the value (the
  ``index`` fields when a put names them, else a ``text``/``content``/``memory`` string, else every string in it),
  or, with ``typing="remember"``, typed by the extractor ``Memory.remember`` uses (the first memory it reads
  in that text; a Fact when it reads none). Items carry their memory's id, type and properties
  (:class:`MnemirItem`).
- Search: ``filter`` matches the value as LangGraph's own stores do (equality, nested objects, lists, and
  ``$eq $ne $gt $gte $lt $lte``), plus two mnemir keys: ``"$type"`` (a type name or a list) and ``"$where"`` (a
  filter in mnemir's filter language on the memory's properties). Without a query, items come newest update
  first; with one, in hybrid-search order (filters + vectors + BM25), items put with ``index=False`` after them
  without a score. Offsets and limits apply after that order.
- ``delete`` erases the memory (no history is kept). TTLs are not supported: a ``ttl`` is refused with
  ``NotImplementedError``, as the ``BaseStore`` contract asks.

Beyond the store, :meth:`MnemirStore.recall` and :meth:`MnemirStore.remember` (and their ``a``-versions) give a
graph node role-aware recall and dialogue understanding on the same memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from mnemir.errors import MissingDependencyError, ValidationError
from mnemir.ir import MAX_TEXT_CHARS, MemIR, MemoryStatus, utcnow
from mnemir.ir.record import parse_record
from mnemir.memory import Memory
from mnemir.memory.understanding import Remembered
from mnemir.retrieve.recall import Recall
from mnemir.retrieve.search import MAX_K, hybrid_search
from mnemir.store.base import ANY, Selection
from mnemir.store.filters import parse_filter
from mnemir.understand.dates import local_now

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        get_text_at_path,
        tokenize_path,
        validate_op_namespace,
    )
except ImportError as exc:  # pragma: no cover - exercised by simulating the missing package
    raise MissingDependencyError("the LangGraph store (mnemir.integrations.langgraph)", "langgraph",
                                 "langgraph") from exc

__all__ = ["MnemirItem", "MnemirSearchItem", "MnemirStore"]

CREATOR = "langgraph"
#: what an item's memory keeps about the item, in ``metadata.extra``
EXTRA = "langgraph"
TEXT_FIELDS = ("text", "content", "memory")
#: an item stays readable whatever mnemir's lifecycle did to its memory (archived, superseded...), until deleted
STATUSES = tuple(s for s in MemoryStatus if s != MemoryStatus.deleted)
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


class MnemirItem(Item):
    """A LangGraph item that also carries its mnemir memory's id, type and properties."""

    __slots__ = ("memory_id", "memory_type", "properties")

    def __init__(self, *, memory_id: str, memory_type: str, properties: dict[str, Any], **item: Any) -> None:
        super().__init__(**item)
        self.memory_id = memory_id
        self.memory_type = memory_type
        self.properties = properties


class MnemirSearchItem(SearchItem):
    """A search result (with ``score``) that also carries its memory's id, type and properties."""

    __slots__ = ("memory_id", "memory_type", "properties")

    def __init__(self, *, memory_id: str, memory_type: str, properties: dict[str, Any], score: float | None,
                 **item: Any) -> None:
        super().__init__(score=score, **item)
        self.memory_id = memory_id
        self.memory_type = memory_type
        self.properties = properties


def item_id(namespace: Sequence[str], key: str) -> str:
    """The memory id of an item: stable, and distinct for every (namespace, key)."""
    digest = hashlib.sha256(json.dumps([list(namespace), key], ensure_ascii=False).encode()).hexdigest()
    return f"lg_{digest[:40]}"


def _label_index(name: str, value: Any) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValidationError(f"{name} must be a namespace position (0, 1, ...) or None", field=name, value=value,
                              allowed="a non-negative integer or None")
    return value


class MnemirStore(BaseStore):
    """LangGraph's ``BaseStore`` over a :class:`mnemir.Memory` (see the module docstring for the mapping)."""

    supports_ttl = False

    def __init__(self, memory: Memory, *, user_label: int | None = None, agent_label: int | None = None,
                 typing: Literal["fact", "remember"] = "fact") -> None:
        if typing not in ("fact", "remember"):
            raise ValidationError("unknown typing", field="typing", value=typing, allowed=["fact", "remember"])
        self.memory = memory
        self.user_label = _label_index("user_label", user_label)
        self.agent_label = _label_index("agent_label", agent_label)
        self.typing = typing
        self._lock = threading.Lock()  # a store connection serves one thread at a time

    # -- the BaseStore contract --------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        with self._lock:
            return self._apply(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _apply(self, ops: list[Op]) -> list[Result]:
        """Each op in order: a read sees every write before it in the same batch."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise ValidationError("unknown store operation", field="op", value=type(op).__name__,
                                      allowed=["GetOp", "PutOp", "SearchOp", "ListNamespacesOp"])
        return results

    # -- get / put ---------------------------------------------------------------------------------
    def _fetch(self, namespace: tuple[str, ...], key: str) -> MemIR | None:
        found = self.memory.store.fetch([item_id(namespace, key)])
        if not found or found[0].status not in STATUSES or EXTRA not in found[0].metadata.extra:
            return None
        return found[0]

    def _get(self, op: GetOp) -> MnemirItem | None:
        record = self._fetch(tuple(op.namespace), str(op.key))
        return _item(record) if record is not None else None

    def _put(self, op: PutOp) -> None:
        namespace, key = tuple(op.namespace), str(op.key)
        if op.ttl is not None:
            raise NotImplementedError(f"TTL is not supported by {type(self).__name__}; put items with ttl=None")
        if not namespace:
            raise ValidationError("a namespace needs at least one label", field="namespace", value=namespace)
        existing = self._fetch(namespace, key)
        if op.value is None:
            if existing is not None:
                self.memory.delete(existing.id, user=ANY, hard=True, reason="deleted through the LangGraph store",
                                   actor=CREATOR)
            return
        if not isinstance(op.value, Mapping):
            raise ValidationError("an item's value must be a mapping", field="value",
                                  value=type(op.value).__name__, allowed="a dict with string keys")
        value = _json_copy(op.value)
        if op.index is not None and op.index is not False and (
                not isinstance(op.index, list) or not all(isinstance(p, str) for p in op.index)):
            raise ValidationError("index must be None, False or a list of field paths", field="index",
                                  value=op.index, allowed='None, False or e.g. ["text", "notes[*].body"]')
        now = utcnow()
        type_name, text, properties = self._typed(value, key, op.index)
        scope = {"user_id": self._label(namespace, self.user_label),
                 "agent_id": self._label(namespace, self.agent_label)}
        created = existing.metadata.created_at if existing is not None else now
        record = parse_record({
            "id": item_id(namespace, key),
            "content": {"text": text[:MAX_TEXT_CHARS]},
            "type": type_name,
            "properties": properties,
            "scope": scope,
            "metadata": {"created_at": created, "updated_at": now,
                         "source": {"creator": CREATOR, "at": now},
                         "extra": {EXTRA: {"namespace": list(namespace), "key": key, "value": value,
                                           "indexed": op.index is not False}}},
            "valid_from": created,
        })
        # an item is stored as given: no merge into a similar memory, no supersession (a key is a key)
        self.memory._commit([record], now=now, actor=CREATOR, govern=False)

    @staticmethod
    def _label(namespace: tuple[str, ...], position: int | None) -> str | None:
        return namespace[position] if position is not None and position < len(namespace) else None

    def _typed(self, value: dict[str, Any], key: str, index: Any) -> tuple[str, str, dict[str, Any]]:
        """The memory type, text and properties an item's value stands for."""
        declared = value.get("type")
        if isinstance(declared, str) and declared in self.memory.ontology and isinstance(value.get("text"), str):
            properties = value.get("properties") or {}
            if not isinstance(properties, Mapping):
                raise ValidationError("a typed item's properties must be a mapping", field="value.properties",
                                      value=properties, allowed="a dict of the type's properties")
            return self.memory.ontology.resolve(declared).name, value["text"], dict(properties)
        text = _text_of(value, index) or key
        if self.typing == "remember":
            drafts = [d for d in self.memory.extractor.extract(text, speaker="user", now=local_now(None)).drafts
                      if d.kind != "update"]
            if drafts:
                return drafts[0].type, text, dict(drafts[0].properties)
        return "Fact", text, {}

    # -- search ---------------------------------------------------------------------------------------
    def _scoped(self, prefix: Sequence[str]) -> dict[str, Any]:
        """The user/agent scope a namespace prefix pins down (ANY where it does not reach that label)."""
        scope: dict[str, Any] = {"user_id": ANY, "agent_id": ANY}
        for name, position in (("user_id", self.user_label), ("agent_id", self.agent_label)):
            if position is not None and position < len(prefix):
                scope[name] = prefix[position]
        return scope

    def _candidates(self, prefix: Sequence[str], types: tuple[str, ...] | None = None,
                    where: Mapping[str, Any] | None = None) -> list[MemIR]:
        """The store's items under a namespace prefix, newest update first."""
        condition: dict[str, Any] = {"@creator": CREATOR}
        if where:
            condition = {"$and": [condition, dict(where)]}
        selection = Selection(**self._scoped(prefix), types=types, statuses=STATUSES,
                              where=parse_filter(condition, self.memory.ontology, types))
        records = self.memory.store.select(selection, order_by=[("@updated_at", False)])
        n = len(prefix)
        return [r for r in records if EXTRA in r.metadata.extra
                and tuple(r.metadata.extra[EXTRA]["namespace"][:n]) == tuple(prefix)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        for name, number in (("limit", op.limit), ("offset", op.offset)):
            if isinstance(number, bool) or not isinstance(number, int) or number < 0:
                raise ValidationError(f"{name} must be a non-negative integer", field=name, value=number,
                                      allowed="0, 1, 2, ...")
        if not isinstance(op.filter or {}, Mapping):
            raise ValidationError("filter must be a mapping", field="filter", value=op.filter)
        value_filter = dict(op.filter or {})
        types = _types(value_filter.pop("$type", None), self.memory)
        where = value_filter.pop("$where", None)
        if where is not None and not isinstance(where, Mapping):
            raise ValidationError("$where must be a filter in mnemir's filter language", field="filter.$where",
                                  value=where, allowed='e.g. {"status": "pending"}')
        for field, wanted in value_filter.items():
            _check_filter(field, wanted)
        matched = [r for r in self._candidates(tuple(op.namespace_prefix), types, where)
                   if all(_matches(r.metadata.extra[EXTRA]["value"].get(f), w) for f, w in value_filter.items())]
        end = op.offset + op.limit
        if not op.query or not op.query.strip() or end == 0:
            return [_item(r, score=None) for r in matched[op.offset:end]]
        indexed = [r for r in matched if r.metadata.extra[EXTRA].get("indexed", True)]
        by_id = {r.id: r for r in indexed}
        ranked: list[tuple[MemIR, float | None]] = []
        if indexed:
            selection = Selection(user_id=ANY, ids=tuple(by_id), statuses=STATUSES)
            hits = hybrid_search(self.memory.store, self.memory.embedder, selection, op.query, min(end, MAX_K),
                                 self.memory.config.fusion)
            ranked = [(by_id[h.id], h.score) for h in hits if h.id in by_id]
        seen = {r.id for r, _ in ranked}
        ranked += [(r, None) for r in matched if r.id not in seen]  # unindexed (and unranked) items come last
        return [_item(r, score=s) for r, s in ranked[op.offset:end]]

    # -- namespaces -------------------------------------------------------------------------------------
    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        for condition in conditions:
            if condition.match_type not in ("prefix", "suffix"):
                raise ValidationError("unknown namespace match type", field="match_type",
                                      value=condition.match_type, allowed=["prefix", "suffix"])
        if op.max_depth is not None and (isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int)
                                         or op.max_depth < 1):
            raise ValidationError("max_depth must be a positive integer or None", field="max_depth",
                                  value=op.max_depth, allowed="1, 2, ... or None")
        fixed: list[str] = []  # the literal head of a prefix condition narrows the scan
        for condition in conditions:
            if condition.match_type == "prefix":
                for label in condition.path:
                    if label == "*":
                        break
                    fixed.append(label)
                break
        namespaces = {tuple(r.metadata.extra[EXTRA]["namespace"]) for r in self._candidates(tuple(fixed))}
        chosen = [ns for ns in namespaces if all(_namespace_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            chosen = list({ns[:op.max_depth] for ns in chosen})
        return sorted(chosen)[op.offset:op.offset + op.limit]

    # -- beyond the store: recall and remember on the same memory -----------------------------------------
    def recall(self, query: str, *, user: str | None = None, agent: str | None = None, k: int = 5,
               now: datetime | None = None) -> Recall:
        """Role-aware recall (:meth:`mnemir.Memory.recall`) in a user's scope; ``.context.render()`` is the
        prompt block."""
        with self._lock:
            return self.memory.recall(query, user=user, agent=agent, k=k, now=now)

    def remember(self, text: str, *, user: str | None = None, agent: str | None = None, speaker: str = "user",
                 session: str | None = None, now: datetime | None = None) -> Remembered:
        """Read one utterance into typed memories (:meth:`mnemir.Memory.remember`) in a user's scope."""
        with self._lock:
            return self.memory.remember(text, speaker=speaker, user=user, agent=agent, session=session, now=now)

    async def arecall(self, query: str, **kwargs: Any) -> Recall:
        return await asyncio.to_thread(lambda: self.recall(query, **kwargs))

    async def aremember(self, text: str, **kwargs: Any) -> Remembered:
        return await asyncio.to_thread(lambda: self.remember(text, **kwargs))


def _item(record: MemIR, *, score: float | Literal[False] | None = False) -> Any:
    """The LangGraph item a memory stands for (a search item when ``score`` is given, even as None)."""
    kept = record.metadata.extra[EXTRA]
    fields = {"namespace": tuple(kept["namespace"]), "key": kept["key"], "value": _json_copy(kept["value"]),
              "created_at": record.metadata.created_at, "updated_at": record.metadata.updated_at,
              "memory_id": record.id, "memory_type": record.type,
              "properties": record.to_dict().get("properties", {})}
    if score is False:
        return MnemirItem(**fields)
    return MnemirSearchItem(score=score, **fields)


def _json_copy(value: Any) -> Any:
    """A deep copy through JSON: what can be stored is exactly what comes back."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"an item's value must be JSON-serialisable: {exc}", field="value",
                              value=value, allowed="dicts, lists, strings, numbers, booleans and null") from exc


def _text_of(value: Mapping[str, Any], index: Any) -> str:
    """The text a memory gets for a plain value: the ``index`` paths, else a text field, else every string."""
    if isinstance(index, list) and index:
        parts = [t for path in index for t in get_text_at_path(value, tokenize_path(path))]
        return "\n".join(p for p in parts if p.strip())
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return str(value[name])
    return "\n".join(_strings(value))


def _strings(value: Any, name: str = "") -> list[str]:
    if isinstance(value, str):
        return [f"{name}: {value}" if name else value] if value.strip() else []
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in _strings(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, name)]
    return []


def _types(given: Any, memory: Memory) -> tuple[str, ...] | None:
    if given is None:
        return None
    names = [given] if isinstance(given, str) else given
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ValidationError("$type must be a type name or a list of them", field="filter.$type", value=given,
                              allowed=sorted(memory.ontology.types))
    return tuple(memory.ontology.resolve(n).name for n in names)


def _check_filter(field: str, wanted: Any) -> None:
    if field.startswith("$"):
        raise ValidationError("unknown filter key", field=f"filter.{field}", value=field,
                              allowed=["a value key", "$type", "$where"])
    if isinstance(wanted, Mapping):
        for key, inner in wanted.items():
            if key.startswith("$") and key not in OPERATORS:
                raise ValidationError("unknown filter operator", field=f"filter.{field}", value=key,
                                      allowed=list(OPERATORS))
            if not key.startswith("$"):
                _check_filter(f"{field}.{key}", inner)


def _matches(have: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: equality, nested objects, lists element by element, comparison operators."""
    if isinstance(wanted, Mapping):
        if any(k.startswith("$") for k in wanted):
            return all(_compare(have, op, arg) for op, arg in wanted.items())
        return isinstance(have, Mapping) and all(_matches(have.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(have, (list, tuple)) and len(have) == len(wanted)
                and all(_matches(h, w) for h, w in zip(have, wanted, strict=True)))
    return bool(have == wanted)


def _compare(have: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(have == arg)
    if op == "$ne":
        return bool(have != arg)
    try:
        left, right = float(have), float(arg)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric value is outside every range
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[op]


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path, strict=False) if condition.match_type == "prefix" else \
        zip(reversed(namespace), reversed(path), strict=False)
    return all(p == "*" or n == p for n, p in pairs)
