"""User-defined memory types from pydantic model classes."""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from mnemir.errors import ConfigError
from mnemir.ontology.enums import EnumSpec
from mnemir.ontology.types import Kind, PropertySpec, TypeDef


def _kind_of(annotation: Any) -> tuple[Kind, EnumSpec | None]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _kind_of(args[0])
        return "json", None
    if origin is typing.Literal:
        values = tuple(str(v) for v in typing.get_args(annotation))
        return "enum", EnumSpec("literal", values)
    if origin in (list, tuple, set, frozenset):
        return "list", None
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return "enum", EnumSpec(annotation.__name__, tuple(str(m.value) for m in annotation))
        if issubclass(annotation, bool):
            return "bool", None
        if issubclass(annotation, int):
            return "int", None
        if issubclass(annotation, float):
            return "float", None
        if issubclass(annotation, datetime):
            return "datetime", None
        if issubclass(annotation, date):
            return "date_or_datetime", None
        if issubclass(annotation, str):
            return "str", None
    return "json", None


def typedef_from_model(model: type, *, name: str | None = None, role: str = "answer",
                       description: str | None = None, core: Iterable[str] = ()) -> TypeDef:
    fields = getattr(model, "model_fields", None)
    if fields is None:
        raise ConfigError(f"{model!r} is not a pydantic model class")
    core_set = set(core)
    props: dict[str, PropertySpec] = {}
    for field_name, info in fields.items():
        kind, enum_spec = _kind_of(info.annotation)
        default = None if info.is_required() or info.default is None else info.default
        if isinstance(default, enum.Enum):
            default = default.value
        minimum = maximum = None
        for meta in info.metadata:
            minimum = getattr(meta, "ge", minimum)
            maximum = getattr(meta, "le", maximum)
        props[field_name] = PropertySpec(
            field_name, kind, info.description or "", enum=enum_spec, required=info.is_required(),
            default=default if isinstance(default, (str, int, float, bool)) else None,
            core=field_name in core_set, minimum=minimum, maximum=maximum,
        )
    return TypeDef(name or model.__name__, description or (model.__doc__ or "").strip(), props, role=role, pack="user")
