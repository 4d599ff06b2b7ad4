"""The embedded SQLite backend: one file in WAL mode, exact filtered vector search, jieba-segmented FTS5."""

from mnemir.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from mnemir.store.sqlite.store import SQLiteStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLiteStore"]
