"""Ontology evolution: what changed between two ontologies, and whether stored memories need a migration.

Additions (a type, an optional property, an enum value) are compatible: records written before stay valid,
and the ontology version changes (``Ontology.version`` fingerprints user types). Removals, renames, kind
changes and newly required properties are breaking: stored records need a :class:`Migration` first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mnemir.lifecycle.migrations import Migration, RenameEnumValue, RenameProperty, RenameType, SplitType, Step
from mnemir.ontology import Ontology, TypeDef


@dataclass
class OntologyDiff:
    old_version: str
    new_version: str
    added_types: list[str] = field(default_factory=list)
    removed_types: list[str] = field(default_factory=list)
    added_properties: list[tuple[str, str]] = field(default_factory=list)
    removed_properties: list[tuple[str, str]] = field(default_factory=list)
    changed_kinds: list[tuple[str, str]] = field(default_factory=list)
    newly_required: list[tuple[str, str]] = field(default_factory=list)
    added_enum_values: list[tuple[str, str, str]] = field(default_factory=list)
    removed_enum_values: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(getattr(self, name) for name in self._lists())

    @property
    def breaking(self) -> list[str]:
        """Human-readable breaking changes (each needs a migration step): those no migration covers."""
        return self.uncovered(None)

    def uncovered(self, migration: Migration | None) -> list[str]:
        """Breaking changes that ``migration`` does not address (a rename or split of each removed name)."""
        handled: set[tuple[str, ...]] = set()
        for step in (migration.steps if migration else ()):
            if isinstance(step, (RenameType, SplitType)):
                handled.add(("type", step.old))
            elif isinstance(step, RenameProperty):
                handled.add(("property", step.type, step.old))
            elif isinstance(step, RenameEnumValue):
                handled.add(("enum", step.type, step.property, step.old))
        out = [f"type {t} removed" for t in self.removed_types if ("type", t) not in handled]
        out += [f"property {t}.{p} removed" for t, p in self.removed_properties if ("property", t, p) not in handled]
        out += [f"property {t}.{p} changed kind" for t, p in self.changed_kinds]
        out += [f"property {t}.{p} became required" for t, p in self.newly_required]
        out += [f"enum value {t}.{p}={v} removed" for t, p, v in self.removed_enum_values
                if ("enum", t, p, v) not in handled]
        return out

    @staticmethod
    def _lists() -> tuple[str, ...]:
        return ("added_types", "removed_types", "added_properties", "removed_properties", "changed_kinds",
                "newly_required", "added_enum_values", "removed_enum_values")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"old_version": self.old_version, "new_version": self.new_version}
        out.update({name: [list(x) if isinstance(x, tuple) else x for x in getattr(self, name)]
                    for name in self._lists()})
        out["breaking"] = self.breaking
        return out


def diff_ontologies(old: Ontology, new: Ontology) -> OntologyDiff:
    diff = OntologyDiff(old.version, new.version)
    old_types, new_types = old.types, new.types
    diff.added_types = sorted(set(new_types) - set(old_types))
    diff.removed_types = sorted(set(old_types) - set(new_types))
    for name in sorted(set(old_types) & set(new_types)):
        _compare_type(name, old_types[name], new_types[name], diff)
    return diff


def _compare_type(name: str, old: TypeDef, new: TypeDef, diff: OntologyDiff) -> None:
    before, after = old.properties, new.properties
    diff.added_properties += [(name, p) for p in sorted(set(after) - set(before))]
    diff.removed_properties += [(name, p) for p in sorted(set(before) - set(after))]
    diff.newly_required += [(name, p) for p in sorted(set(after) - set(before))
                            if after[p].required and after[p].default is None]
    for prop in sorted(set(before) & set(after)):
        a, b = before[prop], after[prop]
        if a.kind != b.kind:
            diff.changed_kinds.append((name, prop))
        if b.required and not a.required and b.default is None:
            diff.newly_required.append((name, prop))
        old_values = set(a.enum.values) if a.enum else set()
        new_values = set(b.enum.values) if b.enum else set()
        diff.added_enum_values += [(name, prop, v) for v in sorted(new_values - old_values)]
        diff.removed_enum_values += [(name, prop, v) for v in sorted(old_values - new_values)]


def uncovered_changes(old: Ontology, new: Ontology, migration: Migration | None) -> list[str]:
    """Breaking changes from ``old`` to ``new`` that ``migration`` leaves unhandled.

    A renamed type is compared with its new self, so its removed properties and enum values need their own
    rename steps (written against either name).
    """
    out = diff_ontologies(old, new).uncovered(migration)
    steps = migration.steps if migration else ()
    for step in steps:
        if isinstance(step, RenameType) and step.old in old.types and step.new in new.types:
            inner = OntologyDiff(old.version, new.version)
            _compare_type(step.new, old.types[step.old], new.types[step.new], inner)
            aliased = Migration(migration.id if migration else "-", tuple(_as_new_name(s, step) for s in steps))
            out += inner.uncovered(aliased)
    return out


def _as_new_name(step: Step, rename: RenameType) -> Step:
    if isinstance(step, (RenameProperty, RenameEnumValue)) and step.type == rename.old:
        return replace(step, type=rename.new)
    return step
