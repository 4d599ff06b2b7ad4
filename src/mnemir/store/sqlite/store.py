"""The embedded SQLite backend of the store contract."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Vectors
from mnemir.errors import StoreError, ValidationError
from mnemir.ir import HistoryEntry, MemIR
from mnemir.ontology import Ontology
from mnemir.store import checks, grouped, records
from mnemir.store.base import ANY, Capabilities, Edge, Keyset, Selection, Store, Write, _Any
from mnemir.store.integrity import CheckReport
from mnemir.store.sql_filters import Params, check_selection, compile_selection, owner_condition, record_order_fields
from mnemir.store.sqlite import integrity as integrity_tables
from mnemir.store.sqlite import rows, schema, signs, text
from mnemir.store.sqlite.ann import MIN_CANDIDATES, AnnIndex, ensure_store_uid
from mnemir.store.sqlite.cache_file import CacheFile
from mnemir.store.sqlite.connection import SYNCHRONOUS, Connection
from mnemir.store.sqlite.dialect import SQLiteDialect, json_path
from mnemir.store.sqlite.fts_index import TextIndex, fts_term
from mnemir.store.sqlite.vectors import VectorCache

#: ordering on record fields (besides property names)
ORDER_FIELDS = record_order_fields("r")
#: BM25 weights of the FTS columns: words of text/summary, words of property values, single hanzi
FTS_WEIGHTS = (1.0, 0.5, 0.2)
_CHUNK = 500  # ids per IN (...) list
#: the tenant column in a read by ids: ``+`` keeps SQLite from using it as an index term, so the ids are looked up by
#: their own index (with a few hundred ids and a user condition, the planner chose to walk the user's whole scope:
#: 500 ids of one user in a 100k store took 34 ms instead of 4.6 ms); the rows found are the same
BY_ID_USER = "+r.user_id"
T = TypeVar("T")
#: text searches whose words match fewer rows than this share of the store, and fewer than TEXT_SQL_ROWS, run in
#: SQL (cheaper for a few matches: FTS5 scores ~2 us per match; at 1M rows a word in 0.6 % of them took 20 ms CPU
#: there against ~2 ms in process)
TEXT_SQL_BELOW = 0.01
TEXT_SQL_ROWS = 2000
#: compiled selections kept by a store (:meth:`SQLiteStore._where`); emptied when full
COMPILED_LIMIT = 2048
#: order fields stored in NOT NULL columns
NOT_NULL_ORDER = frozenset({"@created_at", "@updated_at", "@type"})


class SQLiteStore(Store):
    """One SQLite file in WAL mode: records, core properties, relationships, history, vectors, full text, meta.

    ``busy_timeout_s``: how long SQLite waits for another process's write lock per attempt;
    ``retry_for_s``: how long a transaction is retried (with backoff) before giving up with a StoreError.
    ``ann``: answer vector searches over large, weakly filtered scopes (at least ``ann_min_candidates`` rows) from
    an approximate index kept beside the store (:mod:`mnemir.store.sqlite.ann`; extra ``ann``), built at the
    first such search; :meth:`build_ann_index` builds it at once.
    ``cache_file``: keep the in-process vector cache as a file beside the store (``<store>.vec``:
    :mod:`mnemir.store.sqlite.cache_file`), so that a new process's first search reads it instead of every row
    through SQLite; None (the default): with ``ann``.
    ``synchronous``: what a committed write survives (:data:`~mnemir.store.sqlite.connection.SYNCHRONOUS`):
    "normal" (the default) a crash of the process, "full" also a crash of the operating system or a power cut
    (an fsync at every commit).
    """

    one_writer = True

    capabilities = Capabilities(name="sqlite", exact_filtered_vectors=True, ann=True, text_languages=("en", "zh"))

    def __init__(self, path: str | os.PathLike[str], *, ontology: Ontology, busy_timeout_s: float = 5.0,
                 retry_for_s: float = 60.0, ann: bool = False, ann_min_candidates: int = MIN_CANDIDATES,
                 cache_file: bool | None = None, synchronous: str = "normal") -> None:
        checks.check_ontology(ontology)
        if synchronous not in SYNCHRONOUS:
            raise ValidationError("unknown synchronous setting", field="synchronous", value=synchronous,
                                  allowed=list(SYNCHRONOUS))
        checks.check_seconds(busy_timeout_s=busy_timeout_s, retry_for_s=retry_for_s)
        self.path = Path(path)
        if self.path.is_dir():
            raise ValidationError("the SQLite store path is a directory; give a database file", field="path",
                                  value=str(self.path), allowed="a file path such as memory.db")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.ontology = ontology
        self._db = Connection(self.path, busy_timeout_s=float(busy_timeout_s), retry_for_s=float(retry_for_s),
                              synchronous=synchronous)
        if cache_file is not None and not isinstance(cache_file, bool):
            raise ValidationError("cache_file must be true, false or None", field="cache_file", value=cache_file,
                                  allowed="a bool, or None: the same as ann")
        #: the vector cache kept as a file beside the store (``<store>.vec``; by default with ``ann``)
        self._cache_file = CacheFile(Path(f"{self.path}.vec")) if (ann if cache_file is None else cache_file) \
            else None
        self._cache = VectorCache(self._cache_file)
        #: answer vector searches that restrict only scope, types and statuses from the cache's scope codes, without
        #: SQL (False: always select the candidates in SQL; the benchmark and the tests compare the two)
        self.scope_fast_path = True
        checks.check_count(ann_min_candidates, "ann_min_candidates")
        self.ann_min_candidates = ann_min_candidates
        #: with ``ann``: candidate sets at least this large are answered from sign codes with exact rescoring
        #: where their calibration holds recall (:mod:`mnemir.store.sqlite.signs`), before the HNSW index is asked
        self.sign_min_candidates = signs.MIN_CANDIDATES
        self._ann: AnnIndex | None = None
        #: how the last vector search was answered ("exact", "ann", "exact: <why not ann>")
        self.last_search_path = "exact"
        #: answer text searches from the in-process BM25 postings (:mod:`mnemir.store.sqlite.fts_index`) where they
        #: are exact (False: always SQL; the tests compare the two)
        self.text_fast_path = True
        self._text = TextIndex(FTS_WEIGHTS)
        self._complete_at = -1  # the write_seq at which the vector cache was seen to hold every record
        #: compiled WHERE conditions and their bound values by (selection repr, indexed properties) (:meth:`_where`)
        self._compiled: dict[tuple[str, frozenset[str]], tuple[str, dict[str, Any]]] = {}
        try:
            if self._db.read("open", self._needs_preparing):  # most opens find nothing to do: no write lock
                self._db.write("open (schema migration)", self._prepare)
        except BaseException:
            self._db.close()
            raise
        if ann:
            self.build_ann_index(now=False)
        elif self._cache_file is not None:
            self._ensure_uid()

    # -- opening --------------------------------------------------------------
    def _needs_preparing(self, conn: sqlite3.Connection) -> bool:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone() is None:
            return True
        applied = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
        if applied != set(range(1, schema.SCHEMA_VERSION + 1)):
            return True  # missing migrations, or a newer database (the write path raises the clear error)
        return not self.ontology.indexed_properties() <= self._indexed(conn) or _stale_statistics(conn, _UNREAD)

    def _prepare(self, conn: sqlite3.Connection) -> None:
        schema.migrate(conn, f"SQLite store {self.path}")
        self._index_core_properties(conn)
        _refresh_statistics(conn)

    def _index_core_properties(self, conn: sqlite3.Connection) -> None:
        """Make the props table cover every core and filterable property of this ontology (back-filling older
        records)."""
        indexed = self._indexed(conn)
        missing = sorted(self.ontology.indexed_properties() - indexed)
        if not missing:
            return
        for rid, props in conn.execute("SELECT rid, props FROM records").fetchall():
            conn.executemany("INSERT INTO props VALUES (?, ?, ?, ?, ?)",
                             rows.property_rows(rid, json.loads(props), missing))
        _set_meta(conn, "indexed_properties", json.dumps(sorted(indexed | set(missing))))

    @staticmethod
    def _indexed(conn: sqlite3.Connection) -> frozenset[str]:
        found = conn.execute("SELECT value FROM meta WHERE key = 'indexed_properties'").fetchone()
        return frozenset(json.loads(found[0])) if found else frozenset()

    # -- writing --------------------------------------------------------------
    def write(self, writes: Sequence[Write], *, model_id: str, delete_ids: Sequence[str] = ()) -> None:
        checks.check_model_id(model_id)
        delete_ids = checks.id_list(delete_ids, "delete_ids")
        deleted = set(delete_ids)
        # all the CPU work (JSON, segmentation, vector checks) happens before the write lock is taken
        prepared = [_prepare_write(checks.check_write(w, i), i, skip_record=w.record.id in deleted)
                    for i, w in enumerate(writes)]
        if not prepared and not delete_ids:
            return
        known = self._segment(prepared)
        if delete_ids and self._cache_file is not None:
            self._cache_file.remove()  # it may hold the vectors of what is deleted: written again without them
        self._db.write("write", lambda conn: self._write(conn, prepared, model_id, delete_ids, known))
        if delete_ids:
            self._db.checkpoint()  # the write-ahead log still holds the deleted pages: fold it into the file

    def _segment(self, prepared: list[rows.PreparedWrite]) -> dict[str, str | None] | None:
        """Segment the text of the records whose indexed text changed (or that are new), outside the write lock.
        A record replaced meanwhile by another process is segmented inside the transaction instead.

        Returns what it read (id -> text key of the stored records) when this thread holds the store's write
        transaction (:meth:`exclusive`): nothing can change it before :meth:`_write`, which then need not read it
        again; None otherwise."""
        ids = [p.record.id for p in prepared if p.row is not None]

        def body(conn: sqlite3.Connection) -> tuple[dict[str, str | None], bool]:
            return _stored_keys(conn, ids), self._db.held  # held: by this thread (the lock is ours here)

        stored, held = self._db.read("write (read text keys)", body)
        for p in prepared:
            if p.row is not None and stored.get(p.record.id) != p.fts_key:
                p.fts = records.fts_columns(p.record)
        return stored if held else None

    def _write(self, conn: sqlite3.Connection, prepared: list[rows.PreparedWrite], model_id: str,
               delete_ids: list[str], known: dict[str, str | None] | None = None) -> None:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        seq = int(meta.get("write_seq", "0")) + 1  # stamps what this transaction writes: readers' caches follow
        _set_meta(conn, "write_seq", str(seq))
        dims = [p.dim for p in prepared if p.dim is not None]
        if dims and checks.check_vector_model(meta, model_id, dims):  # the first vectors fix the model and dimension
            _set_meta(conn, "embedding_model", model_id)
            _set_meta(conn, "embedding_dim", str(dims[0]))
        indexed = sorted(json.loads(meta.get("indexed_properties", "[]")))
        ids = [p.record.id for p in prepared if p.row is not None]
        # read again inside the transaction (another process may have written these records since _segment), unless
        # _segment read them inside this same transaction; which records exist and their text keys, in one query
        found = _stored_keys(conn, ids) if known is None else known
        stored = {mid: key for mid, key in found.items() if key is not None}
        for chunk in _chunks(delete_ids):  # before this call's history: a hard delete keeps only its tombstone
            conn.execute(f"DELETE FROM history WHERE memory_id IN ({', '.join('?' * len(chunk))})", chunk)
        conn.executemany("INSERT OR IGNORE INTO history (id, memory_id, at, entry) VALUES (?, ?, ?, ?)",
                         [h for p in prepared for h in p.history])
        # the records' rows are inserted in one batch per table, and only the records that existed have old rows to
        # delete first; a record written twice in one call is flushed at once, so its second write sees the first
        batch = _Batch(set(found))
        repeated = len(set(ids)) != len(ids)
        for i, p in enumerate(prepared):
            if p.row is None:
                continue  # written and deleted at once: only its history stays (e.g. a hard delete's entry)
            rid = self._put_record(conn, p, {**p.row, "seq": seq}, indexed, stored.get(p.record.id) == p.fts_key,
                                   batch)
            stored[p.record.id] = p.fts_key
            if p.vector is not None:
                batch.embeddings.append((rid, model_id, p.dim, p.vector, seq))
            elif p.record.id not in batch.existed or \
                    conn.execute("SELECT 1 FROM embeddings WHERE rid = ?", (rid,)).fetchone() is None:
                raise ValidationError("a new record needs a vector", field=f"writes[{i}].vector", value=None,
                                      allowed="the record's embedding", id=p.record.id)
            if repeated:
                batch.flush(conn)
                batch.existed.add(p.record.id)
        batch.flush(conn)
        for chunk in _chunks(delete_ids):
            self._delete(conn, chunk, seq)
        if delete_ids:
            # a deleted row's words stay in the full-text index's segments until they are merged: merge them all
            conn.execute("INSERT INTO fts (fts) VALUES ('optimize')")
        _refresh_statistics(conn, meta.get("analyzed_at_rid"))

    @staticmethod
    def _put_record(conn: sqlite3.Connection, p: rows.PreparedWrite, row: dict[str, Any], indexed: list[str],
                    text_unchanged: bool, batch: _Batch) -> int:
        row = {**row, "fts_key": p.fts_key}
        columns = [c for c in row if c != "record"]
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != "id")
        found = conn.execute(
            f"INSERT INTO records ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates} RETURNING rid", row).fetchone()
        rid = int(found[0])
        batch.add(conn, rid, p, row["record"], rows.property_rows(rid, p.record.properties, indexed),
                  None if text_unchanged else p.fts if p.fts is not None else records.fts_columns(p.record))
        return rid

    @staticmethod
    def _delete(conn: sqlite3.Connection, ids: Sequence[str], seq: int) -> None:
        marks = ", ".join("?" * len(ids))
        found = conn.execute(f"SELECT rid FROM records WHERE id IN ({marks})", ids).fetchall()
        rids = [r for (r,) in found]
        if rids:
            conn.executemany("INSERT OR REPLACE INTO deleted (rid, seq) VALUES (?, ?)", [(r, seq) for r in rids])
            rid_marks = ", ".join("?" * len(rids))
            for table, column in (("props", "rid"), ("embeddings", "rid"), ("fts", "rowid"), ("documents", "rid"),
                                  ("records", "rid")):
                conn.execute(f"DELETE FROM {table} WHERE {column} IN ({rid_marks})", rids)
        conn.execute(f"DELETE FROM relationships WHERE source IN ({marks})", ids)

    # -- reading --------------------------------------------------------------
    def fetch(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> list[MemIR]:
        ids = checks.id_list(ids, "ids")
        if not ids and not self._db.closed:
            return []  # nothing to read (governance and reports often ask for none): no transaction

        def body(conn: sqlite3.Connection) -> list[MemIR]:
            found: dict[str, MemIR] = {}
            for chunk in _chunks(list(dict.fromkeys(ids))):
                p = Params()
                sql = (f"SELECT r.id, d.record FROM records r JOIN documents d USING (rid) WHERE r.id IN "
                       f"({p.many(chunk)}){owner_condition(BY_ID_USER, user, p)}")
                for mid, data in conn.execute(sql, p.values):
                    found[mid] = records.load_record(data)
            return [found[i] for i in ids if i in found]

        return self._db.read("fetch", body)

    def select(self, selection: Selection, *, order_by: Sequence[tuple[str, bool]] = (), limit: int | None = None,
               offset: int = 0, _after: Keyset | None = None) -> list[MemIR]:
        checks.check_paging(limit, offset)
        after = checks.check_keyset(_after, order_by)
        order = self._order_sql(order_by, selection)

        def body(conn: sqlite3.Connection) -> list[MemIR]:
            return self._select(conn, selection, order, limit, offset, after)

        return self._db.read("select", body)

    def select_many(self, selections: Sequence[Selection], *, limit: int | None = None) -> list[list[MemIR]]:
        """Every selection in one read transaction (what one ``select`` each returns); a selection asked twice is
        read once, and a record found by several is loaded once (records are not changed in place). Selections
        that differ only in the values of the same ``$in`` property conditions (governance's key and rule look-ups,
        one per record of a batch) are read by one query per group (:mod:`mnemir.store.grouped`)."""
        checks.check_paging(limit, 0)
        if not selections:
            return []

        def body(conn: sqlite3.Connection) -> list[list[MemIR]]:
            loaded: dict[str, MemIR] = {}
            answers: dict[str, list[MemIR]] = {}
            indexed = self._indexed(conn)  # one read for all: nothing writes inside this read
            for members in grouped.groups(selections):
                answers.update(self._select_group(conn, members, limit, loaded, indexed))
            out = []
            for selection in selections:
                key = repr(selection)
                if key not in answers:
                    answers[key] = self._select(conn, selection, self._order_sql((), selection), limit, 0, None,
                                                loaded, indexed, key)
                out.append(list(answers[key]))
            return out

        return self._db.read("selects", body)

    def _select_group(self, conn: sqlite3.Connection, members: dict[str, Selection], limit: int | None,
                      loaded: dict[str, MemIR], indexed: frozenset[str]) -> dict[str, list[MemIR]]:
        """The answers of one group of selections (by ``repr``), read by one query (select_many)."""
        union = grouped.union(members)
        if union is None:  # too many values to bind in one statement: one by one
            return {key: self._select(conn, selection, self._order_sql((), selection), limit, 0, None, loaded,
                                      indexed, key) for key, selection in members.items()}
        p = Params()
        where = compile_selection(union, SQLiteDialect(indexed), p) or "1"
        sql = (f"SELECT r.id, r.props, d.record FROM records r JOIN documents d USING (rid) WHERE {where} "
               f"ORDER BY {self._order_sql((), union)}")
        return grouped.answers(members, conn.execute(sql, p.values).fetchall(), limit, loaded, records.load_record)

    def _select(self, conn: sqlite3.Connection, selection: Selection, order: str, limit: int | None, offset: int,
                after: Keyset | None, loaded: dict[str, MemIR] | None = None,
                indexed: frozenset[str] | None = None, shown: str | None = None) -> list[MemIR]:
        p = Params()
        where = self._where(conn, selection, p, indexed, shown)
        if after is not None:  # the order is exactly (created_at, id): a row-value comparison continues it
            where += f" AND (r.created_at, r.id) > ({p(rows.iso(after[0]))}, {p(after[1])})"
        if loaded is None:
            sql = (f"SELECT d.record FROM records r JOIN documents d USING (rid) WHERE {where} "
                   f"ORDER BY {order} LIMIT {p(-1 if limit is None else limit)} OFFSET {p(offset)}")
            return [records.load_record(data) for (data,) in conn.execute(sql, p.values).fetchall()]
        sql = (f"SELECT r.id, d.record FROM records r JOIN documents d USING (rid) WHERE {where} "
               f"ORDER BY {order} LIMIT {p(-1 if limit is None else limit)} OFFSET {p(offset)}")
        out = []
        for mid, data in conn.execute(sql, p.values).fetchall():
            if mid not in loaded:
                loaded[mid] = records.load_record(data)
            out.append(loaded[mid])
        return out

    def count(self, selection: Selection) -> int:
        def body(conn: sqlite3.Connection) -> int:
            p = Params()
            where = self._where(conn, selection, p)
            return int(conn.execute(f"SELECT count(*) FROM records r WHERE {where}", p.values).fetchone()[0])

        return self._db.read("count", body)

    def vector_search(self, selection: Selection, query: Vectors, k: int) -> list[tuple[str, float]]:
        checks.check_count(k, "k")
        blob, dim = records.vector_blob(query, "query")
        return self._vector_searches(selection, [records.blob_vector(blob)], [dim], k, "vector search")[0]

    def vector_search_many(self, selection: Selection, queries: Sequence[Vectors],
                           k: int) -> list[list[tuple[str, float]]]:
        """Every query in one read: the cache synced, the scope resolved and (by sign codes) its codes gathered
        once; each query then ranked exactly as :meth:`vector_search` ranks it (same candidates, same scores)."""
        checks.check_count(k, "k")
        vectors, dims = [], []
        for i, query in enumerate(queries):
            blob, dim = records.vector_blob(query, f"queries[{i}]")
            vectors.append(records.blob_vector(blob))
            dims.append(dim)
        if not vectors:
            return []
        return self._vector_searches(selection, vectors, dims, k, "vector searches")

    def _vector_searches(self, selection: Selection, vectors: list[Vectors], dims: list[int], k: int,
                         operation: str) -> list[list[tuple[str, float]]]:
        def body(conn: sqlite3.Connection) -> list[list[tuple[str, float]]]:
            check_selection(selection)
            self._cache.sync(conn)
            if self._cache.size:
                for dim in dims:
                    checks.check_query_dim(dim, self._cache.model, self._cache.dim)
            if k == 0 or not self._cache.size:
                return [[] for _ in vectors]
            pos = None
            if self.scope_fast_path and self._cache.answers(selection):
                pos = self._cache.scope_positions(selection)  # numpy masks over the cached scope codes
            elif self.scope_fast_path:
                pos = self._cache.filtered_positions(selection, conn)  # + masks over cached property columns
            if pos is None:
                pos = self._cache.rid_positions(self._candidates(conn, selection))
            found: list[list[tuple[int, float]] | None] = [None] * len(vectors)
            self.last_search_path = "exact"
            if self._ann is not None and len(pos) >= self.sign_min_candidates:
                plan = self._sign_plan()
                if plan.usable:
                    found = list(signs.top_k_many(self._cache, pos, vectors, k, plan.depth))
                    self.last_search_path = "signs"
            for i, vector in enumerate(vectors):
                if found[i] is None and self._ann is not None and self._ann.wanted(len(pos), self._cache.size):
                    found[i] = self._ann.top_k(conn, self._cache, pos, vector, k)
                    self.last_search_path = self._ann.last_path
            exact = [i for i, f in enumerate(found) if f is None]
            for i, f in zip(exact, self._cache.top_k_many(pos, [vectors[i] for i in exact], k), strict=True):
                found[i] = f
            self._keep_cache_file(conn)
            best = [b or [] for b in found]
            ids = self._ids_of(conn, list(dict.fromkeys(rid for b in best for rid, _ in b)))
            return [[(ids[rid], score) for rid, score in b if rid in ids] for b in best]

        return self._db.read(operation, body)

    def text_search(self, selection: Selection, query: str, k: int) -> list[tuple[str, float]]:
        checks.check_count(k, "k")
        checks.check_text_query(query)
        expression = text.match_expression(query)
        if expression is None or k == 0:
            return []

        terms = [fts_term(t) for t in text.query_tokens(query)]

        def body(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            if self.text_fast_path and all(terms):
                found = self._text_top_k(conn, selection, [t for t in terms if t], k)
                if found is not None:
                    return found
            p = Params()
            match = p(expression)
            where = self._where(conn, selection, p)
            weights = ", ".join(map(str, FTS_WEIGHTS))
            sql = (f"SELECT r.id, -bm25(fts, {weights}) AS score FROM fts JOIN records r ON r.rid = fts.rowid "
                   f"WHERE fts MATCH {match} AND {where} ORDER BY score DESC, r.id LIMIT {p(k)}")
            return [(mid, float(score)) for mid, score in conn.execute(sql, p.values)]

        return self._db.read("text search", body)

    def _text_top_k(self, conn: sqlite3.Connection, selection: Selection, terms: list[str],
                    k: int) -> list[tuple[str, float]] | None:
        """Full-text top-k from the in-process postings, or None where that would not be exact (the SQL query
        answers): the vector cache must hold every record and answer the selection."""
        check_selection(selection)
        cache = self._cache
        cache.sync(conn)
        if not cache.size:
            return None
        if self._complete_at != cache.seq:
            records = conn.execute("SELECT count(*) FROM records").fetchone()[0]
            if records != int(np.count_nonzero(cache.live[: cache.size])):
                return None
            self._complete_at = cache.seq
        self._keep_cache_file(conn)
        self._text.sync(conn)
        if self._text.matches(conn, terms) < min(TEXT_SQL_BELOW * cache.size, TEXT_SQL_ROWS):
            return None  # rare words: FTS5 scores the few matches faster than masks over every row
        if cache.answers(selection):
            pos = cache.scope_positions(selection)
        else:
            found = cache.filtered_positions(selection, conn)
            if found is None:
                return None
            pos = found
        inside = np.zeros(cache.size, dtype=bool)
        inside[pos] = True

        def admitted(rids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            at, known = cache.positions(rids)
            return known & inside[at]

        # the admitted rows that can be in the top k (all of them, or the candidates of the rarer words when the
        # commoner ones cannot lift any other row to the k-th score: fts_index.TextIndex.top_rows)
        rids, scores = self._text.top_rows(conn, terms, k, admitted)
        if not len(rids):
            return []
        if len(rids) > k:  # every row tied with the k-th is kept: ties are broken by id, as in SQL
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            better, tied = rids[scores > kth], rids[scores == kth]
            chosen = [*better.tolist(), *self._text.smallest_ids(conn, tied, k - len(better))]
        else:
            chosen = rids.tolist()
        wanted = np.isin(rids, chosen)
        by_rid = dict(zip(rids[wanted].tolist(), scores[wanted].tolist(), strict=True))
        ids = self._ids_of(conn, chosen)
        ranked = sorted(((by_rid[r], ids[r]) for r in chosen if r in ids), key=lambda x: (-x[0], x[1]))
        return [(mid, s) for s, mid in ranked[:k]]

    def edges(self, ids: Sequence[str], *, relations: Sequence[str] | None = None,
              direction: str = "out", user: str | _Any | None = ANY) -> list[Edge]:
        ids, relations = checks.edge_arguments(ids, relations, direction)
        if relations is not None and not relations:
            return []

        def body(conn: sqlite3.Connection) -> list[Edge]:
            p, dialect = Params(), SQLiteDialect(())
            unique = list(dict.fromkeys(ids))
            # one query however many ids (long lists go through json_each): no chunks to merge or deduplicate
            ends = {"out": [dialect.id_list("source", unique, p)], "in": [dialect.id_list("target", unique, p)],
                    "both": [dialect.id_list("source", unique, p), dialect.id_list("target", unique, p)]}[direction]
            where = "(" + " OR ".join(ends) + ")"
            if user is not ANY:  # an edge belongs to its source record
                where += (" AND EXISTS (SELECT 1 FROM records r WHERE r.id = relationships.source"
                          f"{owner_condition('r.user_id', user, p)})")
            columns = "source, relation, target, properties, pos"
            if relations is None:
                sql = f"SELECT {columns} FROM relationships WHERE {where} ORDER BY source, pos"
            else:
                # one branch per relation: "end IN (...) AND relation = ?" seeks the (end, relation) index; with
                # "relation IN (...)" SQLite seeks the end alone and walks every edge of it (an utterance read into
                # hundreds of memories cost ~0.4 ms an utterance when asked for its corrections)
                branches = [f"SELECT {columns} FROM relationships WHERE {where} AND relation = {p(relation)}"
                            for relation in dict.fromkeys(relations)]
                sql = f"SELECT {columns} FROM ({' UNION ALL '.join(branches)}) ORDER BY source, pos"
            # most edges carry no properties (every reading's derived_from): no JSON to parse for those (an
            # utterance read into hundreds of memories made "what is still open" parse ~18k of them per recall)
            return [Edge(s, r, t, {} if props == "{}" else json.loads(props))
                    for s, r, t, props, _ in conn.execute(sql, p.values)]

        return self._db.read("edges", body)

    def edge_counts(self, ids: Sequence[str], *, relations: Sequence[str] | None = None, direction: str = "in",
                    user: str | _Any | None = ANY, at_most: int | None = None) -> dict[str, int]:
        ids, relations = checks.edge_arguments(ids, relations, direction)
        if direction not in ("in", "out"):
            return super().edge_counts(ids, relations=relations, direction=direction, user=user)  # raises
        at_most = checks.at_most(at_most)
        end = "target" if direction == "in" else "source"

        def body(conn: sqlite3.Connection) -> dict[str, int]:
            p, dialect = Params(), SQLiteDialect(())
            unique = list(dict.fromkeys(ids))
            where = ""
            if relations is not None:
                where += f" AND {dialect.id_list('relation', relations, p)}"
            if user is not ANY:  # an edge belongs to its source record (as in edges)
                where += (" AND EXISTS (SELECT 1 FROM records r WHERE r.id = relationships.source"
                          f"{owner_condition('r.user_id', user, p)})")
            if at_most is None:
                sql = (f"SELECT {end}, count(*) FROM relationships WHERE {dialect.id_list(end, unique, p)}{where} "
                       f"GROUP BY {end}")
            else:  # each record's index range is walked for at most N + 1 edges, however many meet it
                sql = (f"SELECT j.value, (SELECT count(*) FROM (SELECT 1 FROM relationships WHERE {end} = j.value"
                       f"{where} LIMIT {p(at_most + 1)})) FROM json_each({p(json.dumps(unique))}) j")
            return {k: n for k, n in conn.execute(sql, p.values).fetchall() if n}

        return self._db.read("edge counts", body)

    def histories(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, list[HistoryEntry]]:
        ids = checks.id_list(ids, "ids")

        def body(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            rows: list[tuple[str, str]] = []
            for chunk in _chunks(list(dict.fromkeys(ids))):
                p = Params()
                held = "" if user is ANY else (" AND EXISTS (SELECT 1 FROM records r WHERE r.id = history.memory_id"
                                               f"{owner_condition('r.user_id', user, p)})")
                rows += conn.execute(f"SELECT memory_id, entry FROM history WHERE memory_id IN ({p.many(chunk)})"
                                     f"{held} ORDER BY memory_id, at, seq", p.values).fetchall()
            return rows

        out: dict[str, list[HistoryEntry]] = {}
        for memory_id, entry in self._db.read("history", body):
            out.setdefault(memory_id, []).append(HistoryEntry.model_validate_json(entry))
        return out

    def vectors(self, ids: Sequence[str], *, user: str | _Any | None = ANY) -> dict[str, Vectors]:
        ids = checks.id_list(ids, "ids")
        if not ids and not self._db.closed:
            return {}

        def body(conn: sqlite3.Connection) -> dict[str, Vectors]:
            out: dict[str, Vectors] = {}
            for chunk in _chunks(list(dict.fromkeys(ids))):
                p = Params()
                sql = (f"SELECT r.id, e.vector FROM records r JOIN embeddings e ON e.rid = r.rid "
                       f"WHERE r.id IN ({p.many(chunk)}){owner_condition(BY_ID_USER, user, p)}")
                out.update((mid, records.blob_vector(blob)) for mid, blob in conn.execute(sql, p.values))
            return out

        return self._db.read("vectors", body)

    def get_meta(self, key: str) -> str | None:
        checks.check_key(key)
        found = self._db.read("get_meta", lambda conn: conn.execute(
            "SELECT value FROM meta WHERE key = ?", (key,)).fetchone())
        return found[0] if found else None

    def set_meta(self, key: str, value: str) -> None:
        checks.check_key(key)
        checks.check_meta_value(value)
        self._db.write("set_meta", lambda conn: _set_meta(conn, key, value))

    def build_ann_index(self, *, now: bool = True) -> dict[str, Any]:
        """Use the approximate index for large scopes from now on; ``now``: build (or load, or catch up) it at once
        instead of at the first search that wants it, and the sign codes (:mod:`mnemir.store.sqlite.signs`).
        Returns its description (size, calibrated width and recall, whether it is used; ``signs``: the codes'
        calibration). Needs the extra ``ann`` (usearch)."""
        if self._ann is None:
            self._ann = AnnIndex(Path(f"{self.path}.ann"), min_candidates=self.ann_min_candidates)
            self._ensure_uid()
        if not now:
            return self._ann.describe()
        ann = self._ann

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            self._cache.sync(conn)
            if not self._cache.size:
                return ann.describe()
            plan = self._sign_plan()  # the sign codes first: where they hold recall, the graph is not asked
            ann.ensure(conn, self._cache)
            self._keep_cache_file(conn)
            return {**ann.describe(), "signs": plan.describe()}

        return self._db.read("ann index", body)

    def _ensure_uid(self) -> None:
        """Give the store its identity for the cache files beside it (meta ``ann_uid``)."""
        if not self._db.read("ann (identity)", lambda conn: conn.execute(
                "SELECT 1 FROM meta WHERE key = 'ann_uid'").fetchone()):
            self._db.write("ann (identity)", ensure_store_uid)

    def _sign_plan(self) -> signs.SignPlan:
        """The sign codes' calibration (:func:`signs.ensure`); a new one is worth writing to the cache file."""
        before = self._cache.sign_plan
        plan = signs.ensure(self._cache)
        if self._cache_file is not None and self._cache.sign_plan is not before:
            self._cache_file.due = True
        return plan

    def _keep_cache_file(self, conn: sqlite3.Connection, *, closing: bool = False) -> None:
        """Write the cache file where it pays (:meth:`CacheFile.worth_saving`), never inside a held transaction
        (what it read might be rolled back)."""
        if self._cache_file is not None and not self._db.held and \
                self._cache_file.worth_saving(self._cache, closing=closing):
            self._cache_file.save(conn, self._cache)

    @property
    def cache_file(self) -> CacheFile | None:
        """The vector cache's file beside the store (None: not kept), for tests and benchmarks."""
        return self._cache_file

    def close(self) -> None:
        if self._ann is not None:
            self._ann.close()
        if self._cache_file is not None and self._cache.seq >= 0 and not self._db.closed:
            def keep(conn: sqlite3.Connection) -> None:
                self._cache.sync(conn)
                self._keep_cache_file(conn, closing=True)

            with contextlib.suppress(StoreError):  # a cache: failing to keep it must not fail the close
                self._db.read("cache file", keep)
        self._db.close()

    def writing_here(self) -> bool:
        return self._db.held_here

    @contextlib.contextmanager
    def exclusive(self, scope: str | _Any | None = ANY) -> Iterator[None]:
        """One write transaction for the whole block (:meth:`Connection.exclusive`): SQLite has one writer per
        file, so ``scope`` changes nothing."""
        try:
            with self._db.exclusive():
                yield
        except BaseException:
            # the caches may have read rows of the rolled-back transaction (rids and write_seq values are reused
            # after a rollback): both start again from the database
            self._cache = VectorCache(self._cache_file)
            self._text = TextIndex(FTS_WEIGHTS)
            self._complete_at = -1
            raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction for the whole block (:meth:`Connection.snapshot`)."""
        with self._db.snapshot():
            yield

    def _check_tables(self, report: CheckReport) -> None:
        self._db.read("check", lambda conn: integrity_tables.check(conn, report))

    @property
    def schema_version(self) -> int:
        found = self._db.read("schema_version", lambda conn: conn.execute(
            "SELECT max(version) FROM schema_migrations").fetchone())
        return int(found[0] or 0)

    # -- helpers --------------------------------------------------------------
    def _candidates(self, conn: sqlite3.Connection, selection: Selection) -> npt.NDArray[np.int64]:
        """The rids SQL selects."""
        p = Params()
        where = self._where(conn, selection, p)
        # one string from SQLite instead of a Python tuple per row: the row-by-row fetch dominated at 100k
        joined = conn.execute(f"SELECT group_concat(r.rid, ' ') FROM records r WHERE {where}", p.values).fetchone()[0]
        return np.array(joined.split(), dtype=np.int64) if joined else np.zeros(0, dtype=np.int64)

    def _where(self, conn: sqlite3.Connection, selection: Selection, p: Params,
               indexed: frozenset[str] | None = None, shown: str | None = None) -> str:
        """``indexed``: the store's indexed properties when the caller has just read them (else read here);
        ``shown``: ``repr(selection)`` when the caller has made it.

        A condition compiled into an empty ``p`` is kept (:attr:`_compiled`, by the selection's repr, which tells
        1, 1.0 and True apart, and the indexed properties): the same selection asked again (governance's key and
        rule look-ups, record after record) takes the same SQL text and bound values instead of being compiled
        again; a refused selection raised the first time and was never kept. Selections by ids are not kept."""
        indexed = self._indexed(conn) if indexed is None else indexed
        if p.values or selection.ids is not None:  # placeholders already taken (numbered after them); or an id
            # list, which is seldom asked twice and may be long
            return compile_selection(selection, SQLiteDialect(indexed), p) or "1"
        key = (repr(selection) if shown is None else shown, indexed)
        found = self._compiled.get(key)
        if found is None:
            where = compile_selection(selection, SQLiteDialect(indexed), p) or "1"
            if len(self._compiled) >= COMPILED_LIMIT:
                self._compiled.clear()
            self._compiled[key] = found = (where, dict(p.values))
            return where
        p.values.update(found[1])
        return found[0]

    def _order_sql(self, order_by: Sequence[tuple[str, bool]], selection: Selection) -> str:
        terms = []
        for name, ascending in checks.order_items(order_by, ORDER_FIELDS, self.ontology, selection.types):
            expr = ORDER_FIELDS[name] if name.startswith("@") else f"json_extract(r.props, {json_path(name)})"
            direction = "ASC" if ascending else "DESC"
            # missing values last in both directions; columns that are never NULL skip the test, so that an
            # index on them can give the order without a sort
            terms.append(f"{expr} {direction}" if name in NOT_NULL_ORDER else f"({expr} IS NULL), {expr} {direction}")
        if not order_by or order_by[-1][0] != "@created_at":
            terms.append("r.created_at ASC")
        terms.append("r.id ASC")  # a total order, so offset paging is stable
        return ", ".join(terms)

    @staticmethod
    def _ids_of(conn: sqlite3.Connection, rids: list[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for chunk in _chunks(rids):  # SQLite binds at most 32,766 values per statement (a large k)
            marks = ", ".join("?" * len(chunk))
            out.update(conn.execute(f"SELECT rid, id FROM records WHERE rid IN ({marks})", chunk).fetchall())
        return out

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"


class _Batch:
    """The rows of one write call's records, inserted table by table (``executemany``) when flushed; a record that
    existed before has its old rows deleted at once (the new ones go in with the batch)."""

    def __init__(self, existed: set[str]) -> None:
        self.existed = existed
        self.documents: list[tuple[Any, ...]] = []
        self.props: list[tuple[Any, ...]] = []
        self.edges: list[tuple[Any, ...]] = []
        self.fts: list[tuple[Any, ...]] = []
        self.embeddings: list[tuple[Any, ...]] = []

    def add(self, conn: sqlite3.Connection, rid: int, p: rows.PreparedWrite, document: str,
            props: list[tuple[Any, ...]], fts: tuple[str, str, str] | None) -> None:
        if p.record.id in self.existed:
            conn.execute("DELETE FROM props WHERE rid = ?", (rid,))
            conn.execute("DELETE FROM relationships WHERE source = ?", (p.record.id,))
            if fts is not None:
                conn.execute("DELETE FROM fts WHERE rowid = ?", (rid,))
        self.documents.append((rid, document))
        self.props.extend(props)
        self.edges.extend(p.edges)
        if fts is not None:
            self.fts.append((rid, *fts))

    def flush(self, conn: sqlite3.Connection) -> None:
        """Insert what was added since the last flush."""
        conn.executemany("INSERT OR REPLACE INTO documents (rid, record) VALUES (?, ?)", self.documents)
        conn.executemany("INSERT INTO props VALUES (?, ?, ?, ?, ?)", self.props)
        conn.executemany("INSERT INTO relationships (source, pos, relation, target, properties) VALUES "
                         "(?, ?, ?, ?, ?)", self.edges)
        conn.executemany("INSERT INTO fts (rowid, words, extra, hanzi) VALUES (?, ?, ?, ?)", self.fts)
        conn.executemany("INSERT OR REPLACE INTO embeddings (rid, model_id, dim, vector, seq) VALUES "
                         "(?, ?, ?, ?, ?)", self.embeddings)
        for pending in (self.documents, self.props, self.edges, self.fts, self.embeddings):
            pending.clear()


def _stored_keys(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str | None]:
    """id -> the key of the text its full-text row was made from (None: none yet), for the stored records among
    ``ids``."""
    stored: dict[str, str | None] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        marks = ", ".join("?" * len(chunk))
        stored.update(conn.execute(f"SELECT id, fts_key FROM records WHERE id IN ({marks})", chunk).fetchall())
    return stored


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                 (key, value))


def _stale_statistics(conn: sqlite3.Connection, analyzed_at: str | _Unread | None) -> bool:
    """Whether the table has doubled (plus 1000 rows) since the planner's statistics were taken. ``max(rid)``
    stands for the row count: rids only grow, and reading it costs one b-tree descent. ``analyzed_at``: the meta
    value ``analyzed_at_rid`` when the caller read it in this transaction (read here otherwise)."""
    top = conn.execute("SELECT max(rid) FROM records").fetchone()[0] or 0
    if isinstance(analyzed_at, _Unread):
        found = conn.execute("SELECT value FROM meta WHERE key = 'analyzed_at_rid'").fetchone()
        analyzed_at = found[0] if found else None
    return top > 2 * (int(analyzed_at) if analyzed_at is not None else 0) + 1000


class _Unread:
    """A meta value not read yet."""


_UNREAD = _Unread()


def _refresh_statistics(conn: sqlite3.Connection, analyzed_at: str | _Unread | None = _UNREAD) -> None:
    """Keep ANALYZE statistics roughly current (geometric schedule: O(log n) runs in a store's life).

    Without them SQLite assumes ``user_id = ?`` is very selective and scans the whole scope index even when
    a core-property filter matches 0.1 % of the rows: 10 ms instead of 0.2 ms at 100k records."""
    if not _stale_statistics(conn, analyzed_at):
        return
    conn.execute("PRAGMA analysis_limit = 1000")  # sample; a full ANALYZE reads every index
    conn.execute("ANALYZE")
    top = conn.execute("SELECT max(rid) FROM records").fetchone()[0] or 0
    _set_meta(conn, "analyzed_at_rid", str(top))


def _prepare_write(write: Write, i: int, *, skip_record: bool) -> rows.PreparedWrite:
    # a record deleted in the same call keeps only its history: its vector is neither stored nor checked (as on
    # PostgreSQL)
    vector = None if skip_record or write.vector is None else records.vector_blob(write.vector, f"writes[{i}].vector")
    return rows.prepare_write(write.record, vector, write.history, skip_record=skip_record)


def _chunks(items: list[T], size: int = _CHUNK) -> list[list[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


__all__ = ["SQLiteStore", "StoreError"]
