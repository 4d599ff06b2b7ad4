"""Expression indexes for the properties an ontology indexes (``core`` and ``filterable``) on PostgreSQL.

Equality and membership on any property are answered by the GIN index on ``records.props`` (``@>``). Range filters
(``$gt`` ... on numbers and dates) compile to ``number_of(props -> 'name')`` / ``text_of(props -> 'name')``
(:mod:`mnemir.store.postgres.dialect`); an index on exactly that expression, after ``tenant`` (every selection
filters by tenant first), lets PostgreSQL answer them with an index range scan instead of reading every row of the
user. Created on open when missing (``IF NOT EXISTS``), one per indexed property of a number or date kind.
"""

from __future__ import annotations

import hashlib
from typing import Any

from mnemir.ontology import Ontology
from mnemir.store.postgres.dialect import number_of, sql_text, text_of
from mnemir.store.postgres.schema import MIGRATION_LOCK

NUMBER_KINDS = ("int", "float", "bool")
TEXT_KINDS = ("datetime", "date_or_datetime")


def wanted(ontology: Ontology) -> list[tuple[str, str]]:
    """(index name, CREATE INDEX statement) for every indexed property that range filters can use."""
    kinds: dict[str, set[str]] = {}
    for typedef in ontology.types.values():
        for spec in typedef.properties.values():
            if spec.core or spec.filterable:
                kinds.setdefault(spec.name, set()).add(spec.kind)
    out = []
    for name in sorted(kinds):
        value = f"(props -> {sql_text(name)})"
        for family, kinds_of, expr in (("num", NUMBER_KINDS, number_of(value)), ("txt", TEXT_KINDS, text_of(value))):
            if kinds[name] & set(kinds_of):
                digest = hashlib.sha1(f"{family}:{name}".encode()).hexdigest()[:12]
                index = f"records_prop_{family}_{digest}"
                collate = ' COLLATE "C"' if family == "txt" else ""
                out.append((index, f"CREATE INDEX IF NOT EXISTS {index} ON records (tenant, ({expr}){collate})"))
    return out


def ensure(cur: Any, ontology: Ontology) -> None:
    """Create the missing expression indexes (inside a write transaction)."""
    statements = wanted(ontology)
    if not statements:
        return
    cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'records'")
    missing = [(i, s) for i, s in statements if i not in {name for (name,) in cur.fetchall()}]
    if not missing:
        return
    cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])  # one opener creates them at a time
    cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'records'")
    present = {name for (name,) in cur.fetchall()}
    for index, statement in missing:
        if index not in present:
            cur.execute(statement)
