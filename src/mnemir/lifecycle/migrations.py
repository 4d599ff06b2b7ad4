"""Ontology migrations: renaming or splitting a type or property, renaming an enum value.

A :class:`Migration` is data (so it can be logged and replayed). :func:`migrate_record` is pure;
:func:`run_migration` upgrades every stored record it touches (all statuses, all scopes), checks every result
against the current ontology BEFORE writing anything, writes in batches with a ``migrated`` history entry per
record, and appends the migration to a log kept in the store's meta table. Running it again is a no-op; an
interrupted run is finished by running it again (migrated records no longer match the old names).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemir.errors import ValidationError
from mnemir.ir import Action, MemIR, MemoryStatus
from mnemir.lifecycle.records import entry
from mnemir.ontology import Ontology, format_datetime, norm_key
from mnemir.store.base import ANY, Selection, Store, Write

LOG_KEY = "lifecycle.migrations"


@dataclass(frozen=True)
class RenameType:
    old: str
    new: str

    def types(self) -> set[str]:
        return {self.old}

    def apply(self, record: MemIR) -> MemIR:
        return record.model_copy(update={"type": self.new}) if record.type == self.old else record


@dataclass(frozen=True)
class RenameProperty:
    type: str
    old: str
    new: str

    def types(self) -> set[str]:
        return {self.type}

    def apply(self, record: MemIR) -> MemIR:
        if record.type != self.type or self.old not in record.properties:
            return record
        props = {(self.new if k == self.old else k): v for k, v in record.properties.items()}
        return record.model_copy(update={"properties": props})


@dataclass(frozen=True)
class RenameEnumValue:
    type: str
    property: str
    old: str
    new: str

    def types(self) -> set[str]:
        return {self.type}

    def apply(self, record: MemIR) -> MemIR:
        value = record.properties.get(self.property)
        if record.type != self.type or value is None:
            return record
        if isinstance(value, list):
            renamed: Any = [self.new if v == self.old else v for v in value]
        else:
            renamed = self.new if value == self.old else value
        if renamed == value:
            return record
        return record.model_copy(update={"properties": {**record.properties, self.property: renamed}})


@dataclass(frozen=True)
class SplitType:
    """Records of ``old`` move to ``into[value of property by]``; others to ``default`` (None: they stay)."""

    old: str
    by: str
    into: Mapping[str, str]
    default: str | None = None
    #: properties the new types do not have, dropped on the way (kept in the history entry)
    drop: tuple[str, ...] = ()

    def types(self) -> set[str]:
        return {self.old}

    def apply(self, record: MemIR) -> MemIR:
        if record.type != self.old:
            return record
        routes = {norm_key(k): v for k, v in self.into.items()}
        target = routes.get(norm_key(record.properties.get(self.by)), self.default)
        if target is None:
            return record
        props = {k: v for k, v in record.properties.items() if k not in self.drop}
        return record.model_copy(update={"type": target, "properties": props})


Step = RenameType | RenameProperty | RenameEnumValue | SplitType
STEP_KINDS: dict[str, type] = {"rename_type": RenameType, "rename_property": RenameProperty,
                               "rename_enum_value": RenameEnumValue, "split_type": SplitType}


@dataclass(frozen=True)
class Migration:
    id: str
    steps: tuple[Step, ...]
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValidationError("a migration needs a non-empty id", field="id", value=self.id)
        if not self.steps:
            raise ValidationError("a migration needs at least one step", field="steps", value=[])
        for i, step in enumerate(self.steps):
            if not isinstance(step, tuple(STEP_KINDS.values())):
                raise ValidationError("unknown migration step", field=f"steps[{i}]", value=type(step).__name__,
                                      allowed=sorted(STEP_KINDS))

    def types(self) -> set[str]:
        return set().union(*(s.types() for s in self.steps))

    def to_dict(self) -> dict[str, Any]:
        kinds = {v: k for k, v in STEP_KINDS.items()}
        steps = [{"kind": kinds[type(s)], **{k: (dict(v) if isinstance(v, Mapping) else list(v)
                                                 if isinstance(v, tuple) else v) for k, v in vars(s).items()}}
                 for s in self.steps]
        return {"id": self.id, "description": self.description, "steps": steps}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Migration:
        steps: list[Step] = []
        for i, raw in enumerate(data.get("steps") or []):
            raw = dict(raw)
            kind = raw.pop("kind", None)
            if kind not in STEP_KINDS:
                raise ValidationError("unknown migration step kind", field=f"steps[{i}].kind", value=kind,
                                      allowed=sorted(STEP_KINDS))
            if "drop" in raw:
                raw["drop"] = tuple(raw["drop"])
            try:
                steps.append(STEP_KINDS[kind](**raw))
            except TypeError as exc:
                raise ValidationError(f"bad migration step: {exc}", field=f"steps[{i}]", value=raw) from None
        return cls(str(data.get("id", "")), tuple(steps), str(data.get("description", "")))


def migrate_record(record: MemIR, migration: Migration) -> MemIR:
    """The record after every step (the same object when no step applies)."""
    for step in migration.steps:
        record = step.apply(record)
    return record


@dataclass
class MigrationReport:
    migration_id: str
    dry_run: bool = False
    already_applied: bool = False
    scanned: int = 0
    changed: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    ontology_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    def render(self) -> str:
        if self.already_applied:
            return f"migration {self.migration_id}: already applied, nothing to do"
        verb = "would upgrade" if self.dry_run else "upgraded"
        detail = ", ".join(f"{t} {n}" for t, n in sorted(self.by_type.items())) or "none"
        return (f"migration {self.migration_id}: {verb} {self.changed} of {self.scanned} records ({detail}); "
                f"ontology {self.ontology_version}")


def applied_migrations(store: Store) -> list[dict[str, Any]]:
    raw = store.get_meta(LOG_KEY)
    return list(json.loads(raw)) if raw else []


def upgrade_record(record: MemIR, migrations: Iterable[Migration]) -> MemIR:
    """Read an old record (e.g. from an older JSONL export) under the current names."""
    for migration in migrations:
        record = migrate_record(record, migration)
    return record


def run_migration(store: Store, ontology: Ontology, migration: Migration, *, now: datetime, actor: str,
                  model_id: str, dry_run: bool = False, batch_size: int = 500) -> MigrationReport:
    report = MigrationReport(migration.id, dry_run=dry_run, ontology_version=ontology.version)
    log = applied_migrations(store)
    if any(item.get("id") == migration.id for item in log):
        report.already_applied = True
        return report
    selection = Selection(user_id=ANY, types=tuple(sorted(migration.types())), statuses=tuple(MemoryStatus))
    writes: list[Write] = []
    for record in store.select(selection, order_by=[("@created_at", True)]):
        report.scanned += 1
        moved = migrate_record(record, migration)
        if moved is record:
            continue
        type_name, props = _check(moved, ontology)
        meta = moved.metadata.model_copy(update={"ontology_version": ontology.version})
        upgraded = moved.model_copy(update={"type": type_name, "properties": props, "metadata": meta})
        writes.append(Write(upgraded, None, [entry(record, upgraded, Action.migrated, now=now, actor=actor,
                                                   reason=f"ontology migration {migration.id}",
                                                   extra={"migration": migration.id})]))
        report.by_type[type_name] = report.by_type.get(type_name, 0) + 1
    report.changed = len(writes)
    if dry_run:
        return report
    for start in range(0, len(writes), batch_size):
        store.write(writes[start:start + batch_size], model_id=model_id)
    log.append({**migration.to_dict(), "applied_at": format_datetime(now), "changed": report.changed,
                "ontology_version": ontology.version})
    store.set_meta(LOG_KEY, json.dumps(log, ensure_ascii=False))
    return report


def _check(record: MemIR, ontology: Ontology) -> tuple[str, dict[str, Any]]:
    try:
        return ontology.validate(record.type, record.properties)
    except ValidationError as exc:
        raise ValidationError(f"migration would leave memory {record.id} invalid: {exc.message}",
                              field=exc.field, value=exc.value, allowed=exc.allowed, id=record.id) from None
