"""The SQLite schema, as an ordered list of migrations, and the runner that applies them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mnemir.ir import utcnow
from mnemir.store import records
from mnemir.store.migrations import Migration, latest_version, pending
from mnemir.store.sqlite import rows

_V1_CORE = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- one row per memory: the columns selections filter and sort on (times are fixed-width UTC text, so they sort)
-- and the properties as JSON. Kept narrow so that scans and rowid lookups touch few pages: the full record
-- JSON is in documents, one row per record.
CREATE TABLE records (
    rid INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the vector cache relies on it
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    user_id TEXT,
    agent_id TEXT,
    session_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    valid_from TEXT,
    valid_to TEXT,
    speaker TEXT,
    source_session_id TEXT,
    creator TEXT,
    props TEXT NOT NULL
);
CREATE TABLE documents (rid INTEGER PRIMARY KEY, record TEXT NOT NULL);
CREATE INDEX records_scope ON records (user_id, status, type);
CREATE INDEX records_agent ON records (agent_id);
CREATE INDEX records_session ON records (session_id);
CREATE INDEX records_created ON records (created_at);
CREATE INDEX records_updated ON records (updated_at);

-- the ontology's core properties, one row per value (per item for lists), indexed by (key, value)
CREATE TABLE props (
    rid INTEGER NOT NULL,
    key TEXT NOT NULL,
    item INTEGER NOT NULL,  -- 0 scalar, 1 list item, 2 present but never equal/compared
    tval TEXT,
    nval                    -- no declared type, so integers stay integers
);
-- covering: a property filter is answered from the index alone
CREATE INDEX props_text ON props (key, tval, item, rid);
CREATE INDEX props_number ON props (key, nval, item, rid);
CREATE INDEX props_rid ON props (rid);

CREATE TABLE relationships (
    source TEXT NOT NULL,
    pos INTEGER NOT NULL,
    relation TEXT NOT NULL,
    target TEXT NOT NULL,
    properties TEXT NOT NULL,
    PRIMARY KEY (source, pos)
) WITHOUT ROWID;
CREATE INDEX relationships_source ON relationships (source, relation);
CREATE INDEX relationships_target ON relationships (target, relation);

CREATE TABLE history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    memory_id TEXT NOT NULL,
    at TEXT NOT NULL,
    entry TEXT NOT NULL
);
CREATE INDEX history_memory ON history (memory_id, at, seq);

-- seq = meta.vector_seq (meta.write_seq since migration 4) of the transaction that wrote the vector: readers
-- refresh their cache from it
CREATE TABLE embeddings (
    rid INTEGER PRIMARY KEY,
    model_id TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    seq INTEGER NOT NULL
);
CREATE INDEX embeddings_seq ON embeddings (seq);
"""


def _v1_core(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V1_CORE)


def _v2_full_text(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(words, extra, hanzi, tokenize = 'unicode61 remove_diacritics 2')")
    # a database from before the index existed: index what it holds
    for rid, data in conn.execute("SELECT rid, record FROM documents").fetchall():
        conn.execute("INSERT INTO fts (rowid, words, extra, hanzi) VALUES (?, ?, ?, ?)",
                     (rid, *records.fts_columns(records.load_record(data))))


def _v3_fts_key(conn: sqlite3.Connection) -> None:
    # NULL for existing rows: their first replace segments the text again and fills it in
    conn.execute("ALTER TABLE records ADD COLUMN fts_key TEXT")


_V4_WRITE_SEQ = """
-- the write_seq of the transaction that last wrote the row, and the rows hard-deleted (never reused rids): readers
-- refresh the scope codes of their vector cache, and drop deleted rows, from these
ALTER TABLE records ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX records_seq ON records (seq);
CREATE TABLE deleted (rid INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
CREATE INDEX deleted_seq ON deleted (seq);
-- one counter for every write transaction (it counted vector writes only)
UPDATE meta SET key = 'write_seq' WHERE key = 'vector_seq'
"""


def _v4_write_seq(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V4_WRITE_SEQ)


def _v5_recent_by_type(conn: sqlite3.Connection) -> None:
    # recall reads "the newest memories of these types in this scope" (present state, active frames); without this
    # index SQLite sorts every row of the types in the scope (18 ms at 100k)
    conn.execute("CREATE INDEX records_user_type_created ON records (user_id, type, created_at)")


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "records, core properties, relationships, history, embeddings, meta", _v1_core),
    Migration(2, "full-text index (jieba-segmented FTS5 with BM25)", _v2_full_text),
    Migration(3, "records.fts_key: skip re-segmenting unchanged text on replace", _v3_fts_key),
    Migration(4, "records.seq, deleted rows, meta.write_seq: the vector cache keeps each row's scope", _v4_write_seq),
    Migration(5, "records (user_id, type, created_at): newest memories of a type in a scope", _v5_recent_by_type),
)

SCHEMA_VERSION = latest_version(MIGRATIONS)


def migrate(conn: sqlite3.Connection, where: str, migrations: Sequence[Migration] = MIGRATIONS) -> list[int]:
    """Apply the missing migrations (call inside a write transaction); return the versions applied."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                 "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    applied = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
    todo = pending(migrations, applied, where=where)
    for migration in todo:
        migration.apply(conn)
        conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                     (migration.version, migration.name, rows.iso(utcnow())))
    if todo:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                     (str(latest_version(migrations)),))
    return [m.version for m in todo]
