"""The embedded SQLite backend: one file in WAL mode, exact filtered vector search, jieba-segmented FTS5."""

from mnemir.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from mnemir.store.sqlite.store import SQLiteStore
from mnemir.store.sqlite.vectors import SearchPlan, plan_search

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLiteStore", "SearchPlan", "plan_search"]
