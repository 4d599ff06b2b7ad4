"""The PostgreSQL schema, as ordered recorded migrations (:mod:`mnemir.store.migrations`), and the runner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mnemir.errors import StoreError
from mnemir.ir import utcnow
from mnemir.store.migrations import Migration, latest_version, pending

#: a fixed advisory lock key: two processes opening a new database migrate one after the other
MIGRATION_LOCK = 0x6D6E656D6972  # "mnemir"
#: held while the first vectors fix the store's model and the vector column's dimension
MODEL_LOCK = MIGRATION_LOCK + 1
#: held by Store.exclusive blocks (a read-modify-write of memories): they run one at a time per database
WRITER_LOCK = MIGRATION_LOCK + 2

_V1_CORE = """
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);

-- one row per memory, props holds every property (JSONB, one GIN index answers equality/membership on any of them)
CREATE TABLE records (
    rid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- insertion order: ties in vector search break on it
    id text NOT NULL UNIQUE,
    type text NOT NULL,
    status text NOT NULL,
    user_id text,
    agent_id text,
    session_id text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    valid_from timestamptz,
    valid_to timestamptz,
    props jsonb NOT NULL,
    record jsonb NOT NULL,
    tsv tsvector NOT NULL
);
CREATE INDEX records_scope ON records (user_id, status, type);
CREATE INDEX records_agent ON records (agent_id);
CREATE INDEX records_session ON records (session_id);
CREATE INDEX records_created ON records (created_at);
CREATE INDEX records_updated ON records (updated_at);
CREATE INDEX records_props ON records USING gin (props jsonb_path_ops);
CREATE INDEX records_tsv ON records USING gin (tsv);

CREATE TABLE relationships (
    source text NOT NULL,
    pos integer NOT NULL,
    relation text NOT NULL,
    target text NOT NULL,
    properties jsonb NOT NULL,
    PRIMARY KEY (source, pos)
);
CREATE INDEX relationships_source ON relationships (source, relation);
CREATE INDEX relationships_target ON relationships (target, relation);

CREATE TABLE history (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    memory_id text NOT NULL,
    at timestamptz NOT NULL,
    entry jsonb NOT NULL
);
CREATE INDEX history_memory ON history (memory_id, at, seq);

-- the column gets its dimension (vector(dim)) when the first vectors fix the model, an HNSW index on request
CREATE TABLE embeddings (
    rid bigint PRIMARY KEY,
    model_id text NOT NULL,
    embedding vector NOT NULL
);
"""


def _v1_core(cur: Any) -> None:
    cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
    if cur.fetchone() is None:
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cur.fetchone() is None:
            raise StoreError("this PostgreSQL server has no pgvector extension; install pgvector (>= 0.8) or use "
                             "the bundled server (mnemir.store.postgres.server.start_embedded_server)")
        cur.execute("CREATE EXTENSION vector")
    for statement in _V1_CORE.split(";"):
        if statement.strip():
            cur.execute(statement)


#: the tenant (the distribution column of the sharded layout, docs/SCALING.md "A cluster"): the record's user_id, and
#: NO_USER for records without a user (a distribution column may not be NULL on Citus); the records of user ""
#: share that tenant (the same shard), and are still told apart by user_id in every read
NO_USER = ""

#: version 2: every tenant table gets ``tenant`` (back-filled from its record), and every primary or unique key
#: starts with it, as a cluster needs (a unique key must hold the distribution column). ``records_id_key`` (a memory
#: id is unique across tenants) stays: it is the single server's guard, dropped when the tables are distributed.
#: Every statement is written so that running it again changes nothing.
_V2_TENANT = """
ALTER TABLE records ADD COLUMN IF NOT EXISTS tenant text;
UPDATE records SET tenant = COALESCE(user_id, '') WHERE tenant IS NULL;
ALTER TABLE records ALTER COLUMN tenant SET NOT NULL;
ALTER TABLE embeddings ADD COLUMN IF NOT EXISTS tenant text;
UPDATE embeddings e SET tenant = r.tenant FROM records r WHERE e.tenant IS NULL AND r.rid = e.rid;
ALTER TABLE relationships ADD COLUMN IF NOT EXISTS tenant text;
UPDATE relationships x SET tenant = r.tenant FROM records r WHERE x.tenant IS NULL AND r.id = x.source;
ALTER TABLE history ADD COLUMN IF NOT EXISTS tenant text;
UPDATE history h SET tenant = r.tenant FROM records r WHERE h.tenant IS NULL AND r.id = h.memory_id;
-- rows of no record (a hard-deleted memory's tombstones; orphans that check reports): the no-user tenant
UPDATE embeddings SET tenant = '' WHERE tenant IS NULL;
UPDATE relationships SET tenant = '' WHERE tenant IS NULL;
UPDATE history SET tenant = '' WHERE tenant IS NULL;
ALTER TABLE embeddings ALTER COLUMN tenant SET NOT NULL;
ALTER TABLE relationships ALTER COLUMN tenant SET NOT NULL;
ALTER TABLE history ALTER COLUMN tenant SET NOT NULL;
-- reads of one user filter by tenant alone (the records of user "" share a tenant with no-user ones and are told
-- apart by user_id): a row under another tenant than its user's would be shown to the wrong user
ALTER TABLE records DROP CONSTRAINT IF EXISTS records_tenant_check;
ALTER TABLE records ADD CONSTRAINT records_tenant_check CHECK (tenant = COALESCE(user_id, ''));
ALTER TABLE records DROP CONSTRAINT IF EXISTS records_pkey;
ALTER TABLE records ADD CONSTRAINT records_pkey PRIMARY KEY (tenant, rid);
ALTER TABLE records DROP CONSTRAINT IF EXISTS records_tenant_id_key;
ALTER TABLE records ADD CONSTRAINT records_tenant_id_key UNIQUE (tenant, id);
ALTER TABLE embeddings DROP CONSTRAINT IF EXISTS embeddings_pkey;
ALTER TABLE embeddings ADD CONSTRAINT embeddings_pkey PRIMARY KEY (tenant, rid);
ALTER TABLE relationships DROP CONSTRAINT IF EXISTS relationships_pkey;
ALTER TABLE relationships ADD CONSTRAINT relationships_pkey PRIMARY KEY (tenant, source, pos);
ALTER TABLE history DROP CONSTRAINT IF EXISTS history_pkey;
ALTER TABLE history ADD CONSTRAINT history_pkey PRIMARY KEY (tenant, seq);
ALTER TABLE history DROP CONSTRAINT IF EXISTS history_id_key;
ALTER TABLE history DROP CONSTRAINT IF EXISTS history_tenant_id_key;
ALTER TABLE history ADD CONSTRAINT history_tenant_id_key UNIQUE (tenant, id);
-- selections filter by tenant first (the user's scope)
DROP INDEX IF EXISTS records_scope;
CREATE INDEX records_scope ON records (tenant, status, type)
"""


def _v2_tenant(cur: Any) -> None:
    for statement in _V2_TENANT.split(";\n"):
        if statement.strip():
            cur.execute(statement)
    # the property range indexes led with user_id; they are made again, after tenant, on open (prop_indexes)
    # (starts_with, not LIKE: "_" is a LIKE wildcard, and 'records_prop_%' matches the GIN index records_props)
    cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'records' "
                "AND starts_with(indexname, 'records_prop_')")
    for (name,) in cur.fetchall():
        cur.execute(f'DROP INDEX IF EXISTS "{name}"')


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "records (JSONB properties, tsvector), relationships, history, pgvector embeddings, meta", _v1_core),
    Migration(2, "a tenant column on every tenant table, first in every key (the sharded layout)", _v2_tenant),
)

SCHEMA_VERSION = latest_version(MIGRATIONS)


def migrate(cur: Any, where: str, migrations: Sequence[Migration] = MIGRATIONS) -> list[int]:
    """Apply the missing migrations (inside the caller's transaction); return the versions applied."""
    cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])
    cur.execute("SELECT to_regclass('schema_migrations') IS NULL")
    if cur.fetchone()[0]:  # asked only when missing: a tenant role (row-level security) may not create tables
        cur.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)")
    cur.execute("SELECT version FROM schema_migrations")
    applied = {v for (v,) in cur.fetchall()}
    todo = pending(migrations, applied, where=where)
    for migration in todo:
        migration.apply(cur)
        cur.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (%s, %s, %s)",
                    [migration.version, migration.name, utcnow()])
    if todo:
        cur.execute("INSERT INTO meta (key, value) VALUES ('schema_version', %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [str(latest_version(migrations))])
    return [m.version for m in todo]


#: the approximate index, built on request (PostgresStore.build_ann_index): keeping an HNSW graph up to date
#: costs ~5 ms per 512-d insert on one core, which small stores (searched exactly anyway) should not pay
ANN_INDEX = "embeddings_hnsw"


def fix_dimension(cur: Any, dim: int) -> None:
    """Give the vector column its dimension (an HNSW index needs one)."""
    cur.execute(f"ALTER TABLE embeddings ALTER COLUMN embedding TYPE vector({int(dim)})")
    if 4 * dim + 64 <= 8160:
        # keep vectors inline and uncompressed: a 512-d vector (2 KB) is just over the default TOAST threshold,
        # and fetching it back from the TOAST table made exact scoring ~10x slower
        cur.execute("ALTER TABLE embeddings SET (toast_tuple_target = 8160)")
        cur.execute("ALTER TABLE embeddings ALTER COLUMN embedding SET STORAGE MAIN")


def build_ann_index(cur: Any, maintenance_work_mem: str) -> None:
    cur.execute("SELECT set_config('maintenance_work_mem', %s, true)", [maintenance_work_mem])
    cur.execute(f"CREATE INDEX IF NOT EXISTS {ANN_INDEX} ON embeddings USING hnsw (embedding vector_cosine_ops)")


def has_ann_index(cur: Any) -> bool:
    cur.execute(f"SELECT to_regclass('{ANN_INDEX}') IS NOT NULL")
    return bool(cur.fetchone()[0])
