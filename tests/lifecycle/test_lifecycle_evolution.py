"""Ontology evolution: additions bump the version; renames/splits migrate stored memories (real store)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.errors import ValidationError
from mnemir.ir import MemoryStatus
from mnemir.lifecycle import Migration, RenameEnumValue, RenameProperty, RenameType, SplitType, diff_ontologies
from mnemir.ontology import Ontology, typedef_from_dict
from mnemir.store.base import ANY

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def intolerance(name: str = "Intolerance", prop: str = "substance", levels: tuple[str, ...] = ("mild", "severe"),
                extra: dict[str, Any] | None = None) -> Ontology:
    props: dict[str, Any] = {prop: {"kind": "str", "core": True},
                             "level": {"kind": "enum", "values": list(levels)}, **(extra or {})}
    ontology = Ontology()
    ontology.register(typedef_from_dict({"name": name, "description": "a food intolerance", "properties": props}))
    return ontology


@pytest.mark.parametrize("changed", [
    intolerance(extra={"since": {"kind": "date_or_datetime"}}),       # an added optional property
    intolerance(levels=("mild", "severe", "moderate")),                # an added enum value
])
def test_additions_bump_the_version_and_are_not_breaking(changed: Ontology) -> None:
    base = intolerance()
    diff = diff_ontologies(base, changed)
    assert diff.changed and diff.breaking == []
    assert base.version != changed.version
    with_type = intolerance()
    with_type.register(typedef_from_dict({"name": "Symptom", "properties": {"name": {"kind": "str"}}}))
    assert diff_ontologies(base, with_type).added_types == ["Symptom"] and with_type.version != base.version


def test_rename_type_property_and_enum_value_migrates_stored_memories(tmp_path: Path,
                                                                      embedder: USEEmbedder) -> None:
    path = tmp_path / "evolve"
    old = intolerance()
    with mnemir.open(path, embedder=embedder, ontology=old) as mem:
        kept = mem.add("lactose makes me ill", "Intolerance", {"substance": "lactose", "level": "mild"},
                       user="alice", now=NOW)
        mem.add("gluten is a problem", "Intolerance", {"substance": "gluten", "level": "severe"}, user="bob",
                now=NOW)
        mem.update(kept.id, status="archived", user="alice", now=NOW)  # history is migrated too
    new = intolerance(name="FoodIntolerance", prop="trigger", levels=("low", "severe"))
    migration = Migration("2026-05-rename-intolerance", (
        RenameType("Intolerance", "FoodIntolerance"),
        RenameProperty("FoodIntolerance", "substance", "trigger"),
        RenameEnumValue("FoodIntolerance", "level", "mild", "low"),
    ), "v2 names")
    with mnemir.open(path, embedder=embedder, ontology=new) as mem:
        # written under the older ontology: still readable before the migration
        assert mem.get(kept.id, user="alice").properties["substance"] == "lactose"
        with pytest.raises(ValidationError) as info:
            mem.migrate_ontology(Migration("partial", (RenameType("Intolerance", "FoodIntolerance"),)),
                                 previous=old, now=NOW)
        assert info.value.field == "migration.steps"
        assert mem.get(kept.id, user="alice").type == "Intolerance"  # nothing written
        preview = mem.migrate_ontology(migration, previous=old, now=NOW, dry_run=True)
        assert preview.changed == 2 and mem.migrations() == []
        report = mem.migrate_ontology(migration.to_dict(), previous=old, now=NOW)
        assert report.changed == 2 and report.by_type == {"FoodIntolerance": 2}
        upgraded = mem.get(kept.id, user="alice")
        assert (upgraded.type, upgraded.properties) == ("FoodIntolerance", {"trigger": "lactose", "level": "low"})
        assert upgraded.status == MemoryStatus.archived and upgraded.metadata.ontology_version == new.version
        assert mem.history(kept.id, user="alice")[-1].action == "migrated"
        assert [h.memory.id for h in mem.search(types=["FoodIntolerance"], where={"trigger": "gluten"},
                                                user="bob")]
        assert mem.migrate_ontology(migration, now=NOW).already_applied
        [logged] = mem.migrations()
        assert logged["id"] == migration.id and logged["changed"] == 2


def test_split_type_and_a_migration_that_would_leave_invalid_records(mem: mnemir.Memory) -> None:
    mem.add("allergic to peanuts", "Fact", {"entity": "user", "attribute": "allergy", "value": "peanuts"},
            user="alice", now=NOW)
    bad = Migration("split-to-unknown", (SplitType("Fact", by="attribute", into={"allergy": "Allergy"}),))
    with pytest.raises(ValidationError) as info:
        mem.migrate_ontology(bad, now=NOW)
    assert info.value.field == "type" and "Allergy" in str(info.value)
    assert mem.list(user="alice")[0].type == "Fact" and mem.migrations() == []
    assert mem.count(user=ANY) == 1


def test_an_export_from_before_a_migration_imports_under_the_new_names(tmp_path: Path,
                                                                       embedder: USEEmbedder) -> None:
    path = tmp_path / "evolve"
    old = intolerance()
    with mnemir.open(path, embedder=embedder, ontology=old) as mem:
        mem.add("gluten is a problem", "Intolerance", {"substance": "gluten", "level": "mild"}, user="bob", now=NOW)
        old_export = io.StringIO()
        mem.export_jsonl(old_export)
    new = intolerance(name="FoodIntolerance", prop="trigger", levels=("low", "severe"))
    migration = Migration("2026-05-rename-intolerance", (
        RenameType("Intolerance", "FoodIntolerance"),
        RenameProperty("FoodIntolerance", "substance", "trigger"),
        RenameEnumValue("FoodIntolerance", "level", "mild", "low"),
    ))
    with mnemir.open(path, embedder=embedder, ontology=new) as mem:
        mem.migrate_ontology(migration, previous=old, now=NOW)
        mem.import_jsonl(io.StringIO(old_export.getvalue()))  # the old file, read under the new names
        [back] = mem.list(user="bob", types=["FoodIntolerance"])
        assert back.properties == {"trigger": "gluten", "level": "low"}
