"""The PostgreSQL backend of the store contract (pgvector for vectors, jieba-segmented tsvector for full text).

Same semantics as :class:`mnemir.store.sqlite.SQLiteStore`; the selection
compiler is shared (:mod:`mnemir.store.sql_filters`), rows are converted with the
same helpers, so the two backends answer every conformance test alike.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mnemir.embed.base import Vectors
from mnemir.errors import ConflictError, ValidationError
from mnemir.ir import HistoryEntry, MemIR
from mnemir.ontology import Ontology
from mnemir.store import checks, grouped, records
from mnemir.store.base import ANY, Capabilities, Edge, Keyset, Selection, Store, Write, _Any
from mnemir.store.filters import And
from mnemir.store.integrity import CheckReport
from mnemir.store.postgres import integrity as integrity_tables
from mnemir.store.postgres import prop_indexes, schema, tenants
from mnemir.store.postgres.connection import Connection, Cursor, pg_errors, scope_key
from mnemir.store.postgres.dialect import PostgresDialect, containment_shapes, order_expressions
from mnemir.store.postgres.text import RANK_NORMALIZATION, RANK_WEIGHTS, tsquery_literal, tsvector_literal
from mnemir.store.postgres.vectors import ANN_MIN_CANDIDATES, nearest, vector_text
from mnemir.store.sql_filters import Params, check_selection, compile_selection, record_order_fields

#: ordering on record fields (besides property names); ids compare by code point, as in SQLite
ORDER_FIELDS = record_order_fields("r")
_DIALECT = PostgresDialect()
#: the mark of a deliberate statement over every tenant (user=ANY: export, import, migration, maintenance): on a
#: cluster it goes to every shard; tests/store/test_postgres_tenant_scope.py keeps it out of a user's operations
ALL_TENANTS = "/* all tenants */"


class PostgresStore(Store):
    """A PostgreSQL database (with pgvector >= 0.8): records, properties, relationships, history, vectors, full
    text, meta. One connection per store object.

    ``ann_min_candidates``: once :meth:`build_ann_index` has been called, vector searches over at least this many
    candidate rows use the HNSW index (approximate); below it, and without the index, they are exact.
    ``None`` means always exact.
    ``retry_for_s``: how long a write that conflicts with other writers is retried before a StoreError.
    """

    capabilities = Capabilities(name="postgres", exact_filtered_vectors=True, ann=True, text_languages=("en", "zh"))

    def __init__(self, url: str, *, ontology: Ontology, ann_min_candidates: int | None = ANN_MIN_CANDIDATES,
                 retry_for_s: float = 60.0, connect_timeout_s: float = 10.0) -> None:
        checks.check_ontology(ontology)
        if not isinstance(url, str) or not url.startswith(("postgresql://", "postgres://")):
            raise ValidationError("a PostgreSQL store needs a postgresql:// URL", field="url", value=url,
                                  allowed="postgresql://user:password@host:port/database")
        if ann_min_candidates is not None:
            checks.check_count(ann_min_candidates, "ann_min_candidates")
        checks.check_seconds(retry_for_s=retry_for_s, connect_timeout_s=connect_timeout_s)
        self.ontology = ontology
        self.ann_min_candidates = ann_min_candidates
        #: how the last vector search ran: "exact", "ann", or "ann+exact" (the index came back short)
        self.last_search_path = "exact"
        self._db = Connection(url, retry_for_s=float(retry_for_s), connect_timeout_s=float(connect_timeout_s))
        try:
            self._db.write("open (schema migration)", lambda cur: schema.migrate(cur, f"PostgreSQL store "
                                                                                      f"{self._db.where}"))
            if prop_indexes.wanted(ontology):
                self._db.write("open (property indexes)", lambda cur: prop_indexes.ensure(cur, ontology))
        except BaseException:
            self._db.close()
            raise

    # -- writing --------------------------------------------------------------
    def write(self, writes: Sequence[Write], *, model_id: str, delete_ids: Sequence[str] = ()) -> None:
        checks.check_model_id(model_id)
        delete_ids = checks.id_list(delete_ids, "delete_ids")
        deleted = set(delete_ids)
        # the CPU work (JSON, segmentation, vector checks) happens before the transaction starts
        prepared = [_prepare(checks.check_write(w, i), i, skip_record=w.record.id in deleted) for i, w in enumerate(writes)]
        if not prepared and not delete_ids:
            return
        self._db.write("write", lambda cur: self._write(cur, prepared, model_id, delete_ids))

    def _write(self, cur: Cursor, prepared: list[_Prepared], model_id: str, delete_ids: list[str]) -> None:
        dims = {p.dim for p in prepared if p.dim is not None}
        if dims:
            _check_model(cur, model_id, dims)
        # every statement carries the tenant (docs/SCALING.md, "A cluster"): rows are locked in (tenant, id)
        # order, so two writes touching the same records cannot deadlock; the sort is stable, so several writes
        # of one id keep their order (the last one wins)
        ordered = sorted(prepared, key=lambda p: (p.tenant, p.record_id))
        deleted = _delete_tenants(cur, ordered, delete_ids) if delete_ids else {}
        if deleted:  # before this call's history: a hard delete keeps only its tombstone
            cur.executemany("DELETE FROM history WHERE tenant = %s AND memory_id = ANY(%s::text[])",
                            list(deleted.items()))
        live = [p for p in ordered if p.row is not None]  # the others are deleted in this same call
        if live:
            rids = self._put_records(cur, live)
            vectors = [(p.tenant, rid, model_id, p.vector) for p, rid in zip(live, rids, strict=True)
                       if p.vector is not None]
            if vectors:
                cur.executemany("INSERT INTO embeddings (tenant, rid, model_id, embedding) VALUES (%s, %s, %s, "
                                "%s::vector) ON CONFLICT (tenant, rid) DO UPDATE SET model_id = excluded.model_id, "
                                "embedding = excluded.embedding", vectors)
            _check_vectors_exist(cur, live, rids)
        history = [(p.tenant, *h) for p in ordered for h in p.history]
        if history:  # after the records: under row-level security a history row is reached through its record
            cur.executemany("INSERT INTO history (tenant, id, memory_id, at, entry) VALUES (%s, %s, %s, %s, "
                            "%s::jsonb) ON CONFLICT (tenant, id) DO NOTHING", history)
        if deleted:
            self._delete(cur, deleted)

    @staticmethod
    def _put_records(cur: Cursor, live: list[_Prepared]) -> list[int]:
        """Upsert the records (one pipelined batch) and replace their edges; return their rids in order.

        A record's tenant is fixed by its first write: writing its id for another user is refused (ConflictError),
        as on a cluster, where a row cannot move to another shard by an update."""
        try:
            _upsert_records(cur, live)
        except pg_errors.UniqueViolation as exc:  # the id is held in another tenant (the single server's guard)
            if exc.diag.constraint_name != "records_id_key":
                raise
            detail = exc.diag.message_detail or ""
            raise _moved(next((p.record_id for p in live if f"=({p.record_id})" in detail), live[0].record_id)) \
                from exc
        rids = []
        for p in live:
            found = cur.fetchone()
            if found is None:  # the same tenant (no user / user ""), another user: the update was refused
                raise _moved(p.record_id)
            rids.append(int(found[0]))
            cur.nextset()
        last = {(p.tenant, p.record_id): p for p in live}  # a record written twice in one call keeps its last edges
        cur.executemany("DELETE FROM relationships WHERE tenant = %s AND source = ANY(%s::text[])",
                        list(_by_tenant(last).items()))
        edges = [(tenant, *edge) for (tenant, _), p in last.items() for edge in p.edges]
        if edges:
            cur.executemany("INSERT INTO relationships (tenant, source, pos, relation, target, properties) VALUES "
                            "(%s, %s, %s, %s, %s, %s::jsonb)", edges)
        return rids

    @staticmethod
    def _delete(cur: Cursor, deleted: dict[str, list[str]]) -> None:
        # the record goes last: under row-level security the other rows are reachable through their record
        for tenant, ids in deleted.items():  # tenants in order, ids sorted: row locks in (tenant, id) order
            cur.execute("SELECT rid FROM records WHERE tenant = %s AND id = ANY(%s::text[]) ORDER BY id FOR UPDATE",
                        [tenant, ids])
            rids = [r for (r,) in cur.fetchall()]
            if rids:
                cur.execute("DELETE FROM embeddings WHERE tenant = %s AND rid = ANY(%s::bigint[])", [tenant, rids])
            cur.execute("DELETE FROM relationships WHERE tenant = %s AND source = ANY(%s::text[])", [tenant, ids])
            cur.execute("DELETE FROM records WHERE tenant = %s AND id = ANY(%s::text[])", [tenant, ids])

    # -- reading --------------------------------------------------------------
    def fetch(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> list[MemIR]:
        ids = checks.id_list(ids, "ids")
        if not ids:
            return []
        p = _DIALECT.params()
        sql = (f"SELECT r.id, r.record::text FROM records r WHERE r.id = ANY({p(list(dict.fromkeys(ids)))}::text[])"
               f"{_owner('r', user, p)}")

        def body(cur: Cursor) -> list[MemIR]:
            cur.execute(sql, p.values)
            found = {mid: records.load_record(data) for mid, data in cur.fetchall()}
            return [found[i] for i in ids if i in found]

        return self._db.read("fetch", body)

    def select(self, selection: Selection, *, order_by: Sequence[tuple[str, bool]] = (), limit: int | None = None,
               offset: int = 0, _after: Keyset | None = None) -> list[MemIR]:
        checks.check_paging(limit, offset)
        after = checks.check_keyset(_after, order_by)
        where, p = _where(selection)
        if after is not None:  # the order is (created_at, id by code point): continue it after this position
            t, mid = p(after[0]), p(after[1])
            where += f' AND (r.created_at > {t} OR (r.created_at = {t} AND r.id COLLATE "C" > {mid}))'
        order = self._order_sql(order_by, selection)
        sql = f"SELECT r.record::text FROM records r WHERE {where} ORDER BY {order} LIMIT {p(limit)} OFFSET {p(offset)}"

        def body(cur: Cursor) -> list[MemIR]:
            cur.execute(sql, p.values)
            return [records.load_record(data) for (data,) in cur.fetchall()]

        return self._db.read("select", body)

    def select_many(self, selections: Sequence[Selection], *, limit: int | None = None) -> list[list[MemIR]]:
        """Every selection in one read transaction (what one ``select`` each returns); a selection asked twice is
        read once, and a record found by several is loaded once (records are not changed in place). Selections
        that differ only in the values of the same ``$in`` property conditions (governance's key and rule look-ups,
        one per record of a batch) are read by one query per group (:mod:`mnemir.store.grouped`); the rest
        (fewer than ``GROUP_FROM`` of a shape: ``remember``'s look-ups, a lone ``add``'s) by one more statement
        when they are of one user (:func:`_each_rows`): each round trip to the server costs more than its rows."""
        checks.check_paging(limit, 0)
        if not selections:
            return []
        order = self._order_sql((), selections[0])  # the default order: the same for every selection

        def body(cur: Cursor) -> list[list[MemIR]]:
            loaded: dict[str, MemIR] = {}
            answers: dict[str, list[MemIR]] = {}
            for members in grouped.groups(selections):
                union = grouped.union(members)
                if union is None:  # too many values for one statement: one by one, below
                    continue
                answers.update(grouped.answers(members, _group_rows(cur, union, order), limit, loaded,
                                               records.load_record))
            alone = list({repr(s): s for s in selections if repr(s) not in answers}.values())
            users = {s.user_id for s in alone}
            each = _each_rows(cur, alone, order, limit) \
                if 1 < len(alone) <= grouped.GROUP_SIZE and len(users) == 1 and next(iter(users)) is not ANY else None
            if each is not None:  # the rest (remember's look-ups, a lone add's: a few of other shapes): one round trip
                for selection, rows in zip(alone, each, strict=True):
                    answers[repr(selection)] = [loaded[mid] if mid in loaded
                                                else loaded.setdefault(mid, records.load_record(data))
                                                for mid, data in rows]
            out = []
            for selection in selections:
                key = repr(selection)
                if key not in answers:
                    where, p = _where(selection)
                    cur.execute(f"SELECT r.id, r.record::text FROM records r WHERE {where} ORDER BY {order} "
                                f"LIMIT {p(limit)}", p.values)
                    answers[key] = [loaded[mid] if mid in loaded else loaded.setdefault(mid, records.load_record(data))
                                    for mid, data in cur.fetchall()]
                out.append(list(answers[key]))
            return out

        return self._db.read("selects", body)

    def count(self, selection: Selection) -> int:
        where, p = _where(selection)

        def body(cur: Cursor) -> int:
            cur.execute(f"SELECT count(*) FROM records r WHERE {where}", p.values)
            return int(cur.fetchone()[0])

        return self._db.read("count", body)

    def vector_search(self, selection: Selection, query: Vectors, k: int) -> list[tuple[str, float]]:
        checks.check_count(k, "k")
        blob, dim = records.vector_blob(query, "query")
        where, p = _where(selection)
        found, self.last_search_path = self._db.read("vector search", lambda cur: nearest(
            cur, where, p, vector_text(blob), dim, int(k), self.ann_min_candidates))
        return found

    def text_search(self, selection: Selection, query: str, k: int) -> list[tuple[str, float]]:
        checks.check_count(k, "k")
        checks.check_text_query(query)
        expression = tsquery_literal(query)
        where, p = _where(selection)
        if expression is None or k == 0:
            return []
        sql = (f"SELECT r.id, ts_rank_cd({p(RANK_WEIGHTS)}::real[], r.tsv, q.query, {RANK_NORMALIZATION}) AS score "
               f"FROM records r, (SELECT {p(expression)}::tsquery AS query) q WHERE r.tsv @@ q.query AND {where} "
               f'ORDER BY score DESC, r.id COLLATE "C" LIMIT {p(int(k))}')

        def body(cur: Cursor) -> list[tuple[str, float]]:
            cur.execute(sql, p.values)
            return [(mid, float(score)) for mid, score in cur.fetchall()]

        return self._db.read("text search", body)

    def edges(self, ids: Sequence[str], *, relations: Sequence[str] | None = None,
              direction: str = "out", user: str | _Any | None = ANY) -> list[Edge]:
        ids, relations = checks.edge_arguments(ids, relations, direction)
        if not ids or relations == []:
            return []
        p = _DIALECT.params()
        unique = p(list(dict.fromkeys(ids)))
        ends = {"out": f"source = ANY({unique}::text[])", "in": f"target = ANY({unique}::text[])",
                "both": f"(source = ANY({unique}::text[]) OR target = ANY({unique}::text[]))"}[direction]
        if relations is not None:
            ends += f" AND relation = ANY({p(relations)}::text[])"
        if user is ANY:
            ends += _owner("", user, p)
        else:  # an edge belongs to its source record, in the same tenant
            ends += (f" AND relationships.tenant = {p(_tenant(user))} AND EXISTS (SELECT 1 FROM records r WHERE "
                     f"r.tenant = relationships.tenant AND r.id = relationships.source{_owner('r', user, p)})")
        sql = f'SELECT source, relation, target, properties::text FROM relationships WHERE {ends} ' \
              'ORDER BY source COLLATE "C", pos'

        def body(cur: Cursor) -> list[Edge]:
            cur.execute(sql, p.values)
            return [Edge(s, r, t, json.loads(props)) for s, r, t, props in cur.fetchall()]

        return self._db.read("edges", body)

    def histories(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, list[HistoryEntry]]:
        ids = checks.id_list(ids, "ids")
        if not ids:
            return {}
        p = _DIALECT.params()
        held = _owner("", user, p) if user is ANY else \
            (f" AND history.tenant = {p(_tenant(user))} AND EXISTS (SELECT 1 FROM records r WHERE "
             f"r.tenant = history.tenant AND r.id = history.memory_id{_owner('r', user, p)})")
        sql = (f"SELECT memory_id, entry::text FROM history WHERE memory_id = ANY({p(list(dict.fromkeys(ids)))}"
               f"::text[]){held} ORDER BY memory_id, at, seq")

        def body(cur: Cursor) -> list[tuple[str, str]]:
            cur.execute(sql, p.values)
            return cur.fetchall()

        out: dict[str, list[HistoryEntry]] = {}
        for memory_id, entry in self._db.read("history", body):
            out.setdefault(memory_id, []).append(HistoryEntry.model_validate_json(entry))
        return out

    def vectors(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, Vectors]:
        ids = checks.id_list(ids, "ids")
        if not ids:
            return {}
        p = _DIALECT.params()
        sql = (f"SELECT r.id, e.embedding::real[] FROM records r JOIN embeddings e ON e.tenant = r.tenant "
               f"AND e.rid = r.rid WHERE r.id = ANY({p(list(dict.fromkeys(ids)))}::text[]){_owner('r', user, p)}")

        def body(cur: Cursor) -> dict[str, Vectors]:
            cur.execute(sql, p.values)
            return {mid: np.asarray(values, dtype=np.float32) for mid, values in cur.fetchall()}

        return self._db.read("vectors", body)

    def get_meta(self, key: str) -> str | None:
        checks.check_key(key)

        def body(cur: Cursor) -> str | None:
            cur.execute("SELECT value FROM meta WHERE key = %s", [key])
            found = cur.fetchone()
            return found[0] if found else None

        return self._db.read("get_meta", body)

    def set_meta(self, key: str, value: str) -> None:
        checks.check_key(key)
        checks.check_meta_value(value)
        self._db.write("set_meta", lambda cur: _set_meta(cur, key, value))

    def build_ann_index(self, *, maintenance_work_mem: str = "512MB") -> None:
        """Build the HNSW index (cosine) that vector searches over at least ``ann_min_candidates`` rows use.

        Worth it for stores of hundreds of thousands of vectors; below that every search is exact and fast.
        Once built, PostgreSQL keeps it up to date on every write (which makes writes slower)."""
        if self.model_id is None:
            raise ValidationError("the store holds no vectors yet: write some before building the index",
                                  field="embeddings", value=0, allowed="a store with vectors")
        self._db.write("build ANN index", lambda cur: schema.build_ann_index(cur, maintenance_work_mem))
        self._db.write("analyze", lambda cur: cur.execute("ANALYZE records, embeddings"))

    def enable_row_level_security(self, role: str) -> None:
        """Make the database keep users apart for ``role`` (a role without BYPASSRLS that tenants connect with,
        their session naming its user: :func:`mnemir.store.postgres.tenants.tenant_url`). Run as the tables'
        owner; idempotent. See :mod:`mnemir.store.postgres.tenants` for what the policies cover."""
        self._db.write("enable row-level security", lambda cur: tenants.install(cur, role))

    @property
    def has_ann_index(self) -> bool:
        return self._db.read("has_ann_index", schema.has_ann_index)

    def close(self) -> None:
        self._db.close()

    @contextlib.contextmanager
    def exclusive(self, scope: str | _Any | None = ANY) -> Iterator[None]:
        """One transaction for the whole block, under advisory locks: a block of one user scope waits only for
        blocks of the same scope (a 32-bit hash of it: two scopes that share a hash wait for each other too) and
        for whole-database blocks (``scope=ANY``), which wait for every block."""
        key = None if isinstance(scope, _Any) else scope_key(scope)
        with self._db.exclusive(schema.WRITER_LOCK, scope_key=key):
            yield

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One REPEATABLE READ, READ ONLY transaction for the whole block."""
        with self._db.exclusive(None, "snapshot"):
            yield

    def _check_tables(self, report: CheckReport) -> None:
        self._db.read("check", lambda cur: integrity_tables.check(cur, report))

    @property
    def schema_version(self) -> int:
        def body(cur: Cursor) -> int:
            cur.execute("SELECT max(version) FROM schema_migrations")
            return int(cur.fetchone()[0] or 0)

        return self._db.read("schema_version", body)

    # -- helpers --------------------------------------------------------------
    def _order_sql(self, order_by: Sequence[tuple[str, bool]], selection: Selection) -> str:
        terms = []
        for name, ascending in checks.order_items(order_by, ORDER_FIELDS, self.ontology, selection.types):
            direction = "ASC" if ascending else "DESC"
            if name.startswith("@"):
                expr = ORDER_FIELDS[name]
                terms.append(f'({expr} IS NULL), {expr} COLLATE "C" {direction}' if name == "@type" else
                             f"({expr} IS NULL), {expr} {direction}")  # missing values last
            else:
                missing, *keys = order_expressions(name, "r")
                terms.append(", ".join([missing, *(f"{key} {direction} NULLS LAST" for key in keys)]))
        terms.append('r.created_at ASC, r.id COLLATE "C" ASC')  # a total order, so offset paging is stable
        return ", ".join(terms)

    def __repr__(self) -> str:
        return f"PostgresStore({self._db.where!r})"


@dataclass
class _Prepared:
    """One write as row values, made before the transaction starts."""

    index: int
    record_id: str
    #: the tenant the record's rows are kept under (:func:`tenant_of` its user)
    tenant: str
    #: None: only the history is written (the record is deleted in the same call)
    row: list[Any] | None
    edges: list[tuple[Any, ...]]
    history: list[tuple[Any, ...]]
    vector: str | None
    dim: int | None


def _prepare(write: Write, i: int, *, skip_record: bool) -> _Prepared:
    record = write.record
    history = [(h.id, h.memory_id, h.at, h.model_dump_json()) for h in write.history]
    tenant = tenant_of(record.scope.user_id)
    if skip_record:
        return _Prepared(i, record.id, tenant, None, [], history, None, None)
    vector, dim = None, None
    if write.vector is not None:
        blob, dim = records.vector_blob(write.vector, f"writes[{i}].vector")
        vector = vector_text(blob)
    scope, meta = record.scope, record.metadata
    row = [record.id, record.type, str(record.status), scope.user_id, scope.agent_id, scope.session_id,
           meta.created_at, meta.updated_at, record.valid_from, record.valid_to, records.dumps(record.properties),
           record.to_json(), tsvector_literal(*records.fts_columns(record))]
    return _Prepared(i, record.id, tenant, row, records.edge_rows(record), history, vector, dim)


def tenant_of(user: str | None) -> str:
    """The tenant (distribution column) of a user's rows: the user id, :data:`schema.NO_USER` for no user."""
    return schema.NO_USER if user is None else user


def _tenant(user: str | _Any | None) -> str:
    """The tenant of a user scope given to a read (``user=``)."""
    if user is not None and not isinstance(user, str):
        raise ValidationError("user must be a string, None or ANY", field="user", value=user)
    return tenant_of(user)


def _owner(alias: str, user: str | _Any | None, p: Params) -> str:
    """The condition (`` AND ...``) that keeps a statement to ``user``'s rows: the tenant, and for the tenant that
    no-user records share with user "", the user itself. For :data:`ANY`, the all-tenants mark, no condition."""
    if user is ANY:
        return f" {ALL_TENANTS}"
    tenant = _tenant(user)
    condition = f" AND {alias}.tenant = {p(tenant)}"
    if tenant == schema.NO_USER:
        condition += f" AND {alias}.user_id IS NULL" if user is None else f" AND {alias}.user_id = {p(user)}"
    return condition


def _where(selection: Selection, p: Params | None = None) -> tuple[str, Params]:
    """The selection's condition and its parameters (added to ``p`` when given: its placeholders are named, so
    several selections' conditions can share one statement); callers add theirs to the same ``Params``. The user
    scope is the tenant (the distribution column): a selection of one user is routed to one shard on a cluster."""
    check_selection(selection)
    p = _DIALECT.params() if p is None else p
    owner = _owner("r", selection.user_id, p)
    rest = compile_selection(dataclasses.replace(selection, user_id=ANY), _DIALECT, p)
    if selection.user_id is ANY:
        return f"{rest or 'TRUE'} {ALL_TENANTS}", p
    return " AND ".join(part for part in (owner[len(" AND "):], rest) if part), p


def _group_rows(cur: Cursor, union: Selection, order: str) -> list[tuple[str, str, str]]:
    """The rows of a group's union selection (:mod:`mnemir.store.grouped`): (id, properties, record), in ``order``.
    Its first condition (the key, with every spelling of every member: hundreds of values) is not compiled to an
    OR of containments, which the planner weighs one by one (a group of 256 look-ups took longer than the 256
    queries); each of its containment documents is joined with the records instead, so that each is one probe of
    the properties' GIN index. Never prepared: a prepared statement's generic plan does not know how many
    documents the array holds, and scanned every record for each (17 ms a look-up against 1.4 one by one). A row
    found by two documents (a list holding two of the values) is kept once."""
    first, *rest = grouped.conditions(union.where)
    where, p = _where(union.with_(where=None if not rest else rest[0] if len(rest) == 1 else And(tuple(rest))))
    shapes = p(containment_shapes(first.field, first.value))
    cur.execute(f"SELECT r.id, r.props::text, r.record::text FROM records r, unnest({shapes}::jsonb[]) AS s(shape) "
                f"WHERE {where} AND r.props @> s.shape ORDER BY {order}", p.values, prepare=False)
    rows: dict[str, tuple[str, str, str]] = {}
    for row in cur.fetchall():
        rows.setdefault(row[0], row)
    return list(rows.values())


def _each_rows(cur: Cursor, selections: Sequence[Selection], order: str, limit: int | None
               ) -> list[list[tuple[str, str]]] | None:
    """Each selection's rows (id, record), as its own ``select`` returns them, read by ONE statement: every
    selection's query (its conditions, order and limit, unchanged) is one branch of a UNION ALL, its rows numbered
    in its order. The selections are of one user (one tenant: one shard on a cluster). None (nothing read) where
    the statement would bind more than ``grouped.GROUP_VALUES`` values."""
    p = _DIALECT.params()
    branches = []
    for at, selection in enumerate(selections):
        where, _ = _where(selection, p)
        branches.append(f"(SELECT {at} AS q, row_number() OVER (ORDER BY {order}) AS n, r.id, r.record::text AS rec "
                        f"FROM records r WHERE {where} ORDER BY {order} LIMIT {p(limit)})")
    if len(p.values) > grouped.GROUP_VALUES:
        return None
    cur.execute(f"SELECT u.q, u.id, u.rec FROM ({' UNION ALL '.join(branches)}) u ORDER BY u.q, u.n", p.values)
    out: list[list[tuple[str, str]]] = [[] for _ in selections]
    for at, mid, data in cur.fetchall():
        out[at].append((mid, data))
    return out


def _by_tenant(keys: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """(tenant, key) pairs as {tenant: [keys, sorted]}, tenants in order."""
    out: dict[str, list[Any]] = defaultdict(list)
    for tenant, mid in sorted(set(keys)):
        out[tenant].append(mid)
    return dict(out)


def _delete_tenants(cur: Cursor, ordered: list[_Prepared], delete_ids: list[str]) -> dict[str, list[str]]:
    """{tenant: ids} of the records to delete. A delete comes with its record's write (``Memory``'s tombstone),
    which names the tenant; only an id deleted bare is looked up in every tenant (an admin form)."""
    wanted = set(delete_ids)
    known = {(p.tenant, p.record_id) for p in ordered if p.record_id in wanted}
    bare = sorted(wanted - {mid for _, mid in known})
    if bare:
        cur.execute("SELECT tenant, id FROM records WHERE id = ANY(%s::text[]) UNION SELECT tenant, memory_id FROM "
                    f"history WHERE memory_id = ANY(%s::text[]) {ALL_TENANTS}", [bare, bare])
        known.update((tenant, mid) for tenant, mid in cur.fetchall())
    return _by_tenant(known)


def _upsert_records(cur: Cursor, live: list[_Prepared]) -> None:
    cur.executemany(
        "INSERT INTO records (tenant, id, type, status, user_id, agent_id, session_id, created_at, updated_at, "
        "valid_from, valid_to, props, record, tsv) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
        "%s::jsonb, %s::jsonb, %s::tsvector) ON CONFLICT (tenant, id) DO UPDATE SET type = excluded.type, "
        "status = excluded.status, agent_id = excluded.agent_id, session_id = excluded.session_id, "
        "created_at = excluded.created_at, updated_at = excluded.updated_at, valid_from = excluded.valid_from, "
        "valid_to = excluded.valid_to, props = excluded.props, record = excluded.record, tsv = excluded.tsv "
        "WHERE records.user_id IS NOT DISTINCT FROM excluded.user_id RETURNING rid",
        [[p.tenant, *p.row] for p in live if p.row is not None], returning=True)


def _moved(record_id: str) -> ConflictError:
    return ConflictError(f"memory {record_id} belongs to another user; a memory keeps the user it was first written "
                         "with", id=record_id, field="scope.user_id")


def _check_vectors_exist(cur: Cursor, live: list[_Prepared], rids: list[int]) -> None:
    """A record written without a vector must already have one (a new record without a vector is an error)."""
    keep = {rid: p for p, rid in zip(live, rids, strict=True) if p.vector is None}
    if not keep:
        return
    have: set[int] = set()
    for tenant, rids in _by_tenant([(p.tenant, rid) for rid, p in keep.items()]).items():
        cur.execute("SELECT rid FROM embeddings WHERE tenant = %s AND rid = ANY(%s::bigint[])", [tenant, rids])
        have.update(r for (r,) in cur.fetchall())
    missing = sorted((p.index, p.record_id) for rid, p in keep.items() if rid not in have)
    if missing:
        index, record_id = missing[0]
        raise ValidationError("a new record needs a vector", field=f"writes[{index}].vector", value=None,
                              allowed="the record's embedding", id=record_id)


def _set_meta(cur: Cursor, key: str, value: str) -> None:
    cur.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value])


def _check_model(cur: Cursor, model_id: str, dims: set[int]) -> None:
    """The first vectors fix the store's model and dimension (and the column's type); later ones must match."""
    meta = _model_meta(cur)
    if "embedding_model" not in meta:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", [schema.MODEL_LOCK])  # one first writer at a time
        meta = _model_meta(cur)
    if checks.check_vector_model(meta, model_id, dims):
        dim = next(iter(dims))
        _set_meta(cur, "embedding_model", model_id)
        _set_meta(cur, "embedding_dim", str(dim))
        schema.fix_dimension(cur, dim)


def _model_meta(cur: Cursor) -> dict[str, str]:
    cur.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
    return dict(cur.fetchall())


__all__ = ["PostgresStore"]
