"""The type ontology: built-in types, enum normalisation (zh/en), packs, user types, versions."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from mnemir.errors import ConfigError, ValidationError
from mnemir.ontology import BUILTIN_TYPES, Ontology, TypeDef
from mnemir.ontology.registry import PACKS

SEED_TYPES = {"Fact", "Preference", "Task", "Plan", "EmotionalState", "DialogueAct", "ContextualFrame", "Hypothesis"}


@pytest.fixture
def onto() -> Ontology:
    return Ontology()


def test_builtin_types_carry_the_seed_properties() -> None:
    by_name = {t.name: t for t in BUILTIN_TYPES}
    assert set(by_name) == SEED_TYPES | {"Episode"}  # the seed's types and the verbatim utterance
    assert {"speaker", "session", "turn", "time"} <= set(by_name["Episode"].properties)
    assert {"entity", "attribute", "value", "confidence", "source"} <= set(by_name["Fact"].properties)
    assert {"subject", "preference_type", "strength", "context"} <= set(by_name["Preference"].properties)
    assert {"goal", "status", "deadline", "priority", "parent_task_id"} <= set(by_name["Task"].properties)
    assert {"associated_task_id", "order", "status", "prerequisites"} <= set(by_name["Plan"].properties)
    assert {"emotion_type", "intensity", "trigger", "duration"} <= set(by_name["EmotionalState"].properties)
    assert {"utterance", "act_type", "underlying_goal"} <= set(by_name["DialogueAct"].properties)
    assert {"frame_type", "rules", "participants", "topic"} <= set(by_name["ContextualFrame"].properties)
    assert {"statement", "confidence", "evidence"} <= set(by_name["Hypothesis"].properties)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [("Pending", "pending"), ("未开始", "pending"), ("待办", "pending"), ("in-progress", "in_progress"),
     ("进行中", "in_progress"), ("In Progress", "in_progress"), ("已完成", "completed"), ("done", "completed"),
     ("失败", "failed"), ("cancelled", "failed")],
)
def test_task_status_is_normalised(onto: Ontology, raw: str, canonical: str) -> None:
    assert onto.validate("Task", {"status": raw})[1]["status"] == canonical


def test_unknown_enum_value_lists_the_allowed_ones(onto: Ontology) -> None:
    with pytest.raises(ValidationError) as info:
        onto.validate("Task", {"status": "someday"})
    err = info.value
    assert err.field == "properties.status"
    assert err.value == "someday"
    assert list(err.allowed) == ["pending", "in_progress", "completed", "failed"]


@pytest.mark.parametrize(
    ("type_name", "props", "field"),
    [
        ("Fact", {"confidence": 1.5}, "properties.confidence"),
        ("Fact", {"confidence": "high"}, "properties.confidence"),
        ("Fact", {"colour": "red"}, "properties.colour"),
        ("Preference", {"subject": "coffee"}, "properties.preference_type"),
        ("Task", {"deadline": "next tuesday-ish"}, "properties.deadline"),
        ("Plan", {"order": "first"}, "properties.order"),
        ("ContextualFrame", {"frame_type": "meeting", "rules": "no phones"}, "properties.rules"),
        ("EmotionalState", {"emotion_type": "angry", "intensity": float("nan")}, "properties.intensity"),
    ],
)
def test_bad_properties_name_the_field(onto: Ontology, type_name: str, props: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        onto.validate(type_name, props)
    assert info.value.field == field


def test_types_resolve_by_alias_and_language(onto: Ontology) -> None:
    assert onto.resolve("任务").name == "Task"
    assert onto.resolve("step").name == "Plan"
    assert onto.resolve("情绪").name == "EmotionalState"
    with pytest.raises(ValidationError) as info:
        onto.resolve("Memo")
    assert "Fact" in info.value.allowed


def test_defaults_and_dates_are_normalised(onto: Ontology) -> None:
    _, props = onto.validate("Task", {"deadline": "2026-12-04", "priority": "紧急"})
    assert props == {"status": "pending", "deadline": "2026-12-04", "priority": "high"}
    _, props = onto.validate("Task", {"deadline": "2026-12-04T18:00:00+08:00"})
    assert props["deadline"] == "2026-12-04T10:00:00Z"


def test_packs_add_types_and_change_the_version(onto: Ontology) -> None:
    before = onto.version
    onto.load_pack("health")
    assert onto.version != before and "health" in onto.version
    _, props = onto.validate("症状", {"symptom": "sore throat", "severity": "严重"})
    assert props["severity"] == "severe"
    onto.load_pack("coding")
    assert {"CodeSnippet", "APIReference"} <= set(onto.types)
    with pytest.raises(ValidationError):
        onto.load_pack("finance")


def test_user_types_from_yaml_file(onto: Ontology, tmp_path: Path) -> None:
    path = tmp_path / "types.yaml"
    path.write_text(
        "types:\n"
        "  - name: Recipe\n"
        "    description: a dish the user cooks\n"
        "    role: answer\n"
        "    properties:\n"
        "      dish: {kind: str, core: true, required: true}\n"
        "      spice: {kind: enum, values: [mild, hot], synonyms: {辣: hot}}\n",
        encoding="utf-8",
    )
    before = onto.version
    onto.load_file(path)
    assert onto.version != before
    assert onto.validate("Recipe", {"dish": "麻婆豆腐", "spice": "辣"})[1] == {"dish": "麻婆豆腐", "spice": "hot"}
    assert "dish" in onto.core_properties()


def test_user_types_from_pydantic_class(onto: Ontology) -> None:
    class Book(BaseModel):
        """A book the user is reading."""

        title: str
        rating: float = Field(default=0.5, ge=0, le=1)

    onto.register_model(Book, core=["title"])
    assert onto.validate("Book", {"title": "三体"})[1] == {"title": "三体", "rating": 0.5}
    with pytest.raises(ValidationError) as info:
        onto.validate("Book", {"title": "三体", "rating": 4})
    assert info.value.field == "properties.rating"
    with pytest.raises(ValidationError):
        onto.validate("Book", {})


def test_version_is_deterministic_across_instances() -> None:
    assert Ontology(packs=["coding"]).version == Ontology(packs=["coding"]).version


def test_every_alias_of_the_builtin_types_and_packs_resolves_to_its_own_type() -> None:
    onto = Ontology(packs=PACKS)
    assert set(onto.packs) == set(PACKS)
    for typedef in onto.types.values():
        for alias in (typedef.name, *typedef.aliases):
            assert onto.resolve(alias).name == typedef.name, alias


@pytest.mark.parametrize("alias", ["step", "STEP", "Plan"])
def test_an_alias_another_type_owns_is_a_config_error_naming_both(onto: Ontology, alias: str) -> None:
    before = onto.version
    with pytest.raises(ConfigError) as info:
        onto.register(TypeDef("Project", "a project", aliases=("项目", alias)))
    message = str(info.value)
    assert repr(alias) in message and "'Project'" in message and "'Plan'" in message
    assert info.value.context == {"alias": alias, "type": "Project", "owner": "Plan", "pack": "core"}
    assert "Project" not in onto and "项目" not in onto  # nothing half-added
    assert onto.resolve(alias).name == "Plan" and onto.version == before


def test_a_file_with_a_clashing_alias_registers_none_of_its_types(onto: Ontology, tmp_path: Path) -> None:
    path = tmp_path / "types.yaml"
    path.write_text("types:\n"
                    "  - {name: Recipe, description: a dish, aliases: [菜谱]}\n"
                    "  - {name: Menu, description: a menu, aliases: [菜谱]}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        onto.load_file(path)
    assert "'菜谱'" in str(info.value) and "'Menu'" in str(info.value) and "'Recipe'" in str(info.value)
    assert "Recipe" not in onto and "Menu" not in onto and "菜谱" not in onto
