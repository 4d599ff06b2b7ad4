"""Ordered, recorded schema migrations, shared by the SQL backends.

A backend keeps a ``schema_migrations`` table (``version``, ``name``,
``applied_at``) and a list of :class:`Migration` in version order. Opening a
store applies, inside one write transaction, every migration not yet recorded,
and records each one. A database written by a newer mnemir (a version we do
not know) is refused with a clear error instead of being misread.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from mnemir.errors import StoreError


@dataclass(frozen=True)
class Migration:
    """One schema step. ``apply`` receives the backend's connection inside the migration transaction."""

    version: int
    name: str
    apply: Callable[[Any], None]


def check_sequence(migrations: Sequence[Migration]) -> None:
    """Migrations are numbered 1, 2, 3 ... without gaps (a programming error otherwise)."""
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 1..n in order; got {versions}")


def pending(migrations: Sequence[Migration], applied: Collection[int], *, where: str) -> list[Migration]:
    """The migrations still to apply, in order; refuse a database from a newer mnemir."""
    check_sequence(migrations)
    latest = latest_version(migrations)
    newest = max(applied, default=0)
    if newest > latest:
        raise StoreError(
            f"{where} has schema version {newest}, but this mnemir knows versions up to {latest}; "
            "it was written by a newer mnemir: upgrade mnemir to open it",
            schema_version=newest, supported=latest,
        )
    return [m for m in migrations if m.version not in applied]


def latest_version(migrations: Sequence[Migration]) -> int:
    return migrations[-1].version if migrations else 0
