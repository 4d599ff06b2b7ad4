"""The where filter language: parsing, validation against the ontology, and the reference evaluator."""

from __future__ import annotations

import pytest

from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.ontology import Ontology
from mnemir.store.filters import Cmp, Or, matches, parse_filter

ONTO = Ontology()


def task(**props: object) -> MemIR:
    _, clean = ONTO.validate("Task", props)
    return MemIR(content={"text": "t"}, type="Task", properties=clean)


def test_enum_values_are_normalised_in_filters() -> None:
    node = parse_filter({"status": "未开始"}, ONTO, ["Task"])
    assert node == Cmp("status", "$eq", "pending", "enum")


def test_in_and_or_evaluate() -> None:
    node = parse_filter({"$or": [{"status": {"$in": ["进行中", "pending"]}}, {"priority": "high"}]}, ONTO, ["Task"])
    assert isinstance(node, Or)
    assert matches(node, task(status="in_progress"))
    assert matches(node, task(status="completed", priority="high"))
    assert not matches(node, task(status="completed"))


def test_dates_compare_and_missing_properties() -> None:
    node = parse_filter({"deadline": {"$lte": "2026-12-05"}}, ONTO, ["Task"])
    assert matches(node, task(deadline="2026-12-04"))
    assert not matches(node, task(deadline="2026-12-06"))
    assert not matches(node, task())
    assert matches(parse_filter({"deadline": {"$exists": False}}, ONTO, ["Task"]), task())
    assert matches(parse_filter({"priority": {"$ne": "high"}}, ONTO, ["Task"]), task())


@pytest.mark.parametrize(
    ("where", "field"),
    [
        ({"colour": "red"}, "where.colour"),
        ({"status": {"$regex": "p.*"}}, "where.status.$regex"),
        ({"$nor": []}, "where.$nor"),
        ({"status": "someday"}, "where.status"),
        ({"goal": {"$gt": 3}}, "where.goal.$gt"),
        ({"status": {"$in": "pending"}}, "where.status.$in"),
        ({"$or": []}, "where.$or"),
        ({"@nope": 1}, "where.@nope"),
        ({}, "where"),
    ],
)
def test_bad_filters_raise_naming_the_place(where: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_filter(where, ONTO, ["Task"])
    assert info.value.field == field


def test_property_of_another_type_is_unknown_when_types_are_given() -> None:
    with pytest.raises(ValidationError) as info:
        parse_filter({"emotion_type": "anger"}, ONTO, ["Task"])
    assert "status" in info.value.allowed
    assert parse_filter({"emotion_type": "生气"}, ONTO, None) == Cmp("emotion_type", "$eq", "anger", "enum")
