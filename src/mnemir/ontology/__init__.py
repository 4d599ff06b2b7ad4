"""The type ontology: built-in types, domain packs, user types, enums and versions."""

from mnemir.ontology.builtin import BUILTIN_TYPES, CORE_VERSION
from mnemir.ontology.enums import BUILTIN_ENUMS, EnumSpec
from mnemir.ontology.registry import PACKS, Ontology, typedef_from_dict
from mnemir.ontology.types import (
    ROLES,
    PropertySpec,
    TypeDef,
    earlier,
    format_datetime,
    norm_key,
    parse_deadline,
    parse_timestamp,
    parse_when,
)

__all__ = [
    "BUILTIN_ENUMS",
    "BUILTIN_TYPES",
    "CORE_VERSION",
    "PACKS",
    "ROLES",
    "EnumSpec",
    "Ontology",
    "PropertySpec",
    "TypeDef",
    "earlier",
    "format_datetime",
    "norm_key",
    "parse_deadline",
    "parse_timestamp",
    "parse_when",
    "typedef_from_dict",
]
