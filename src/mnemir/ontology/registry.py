"""The ontology: the set of known types, their version, and validation."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from mnemir.errors import ConfigError, ValidationError
from mnemir.ontology.builtin import BUILTIN_TYPES, CORE_VERSION
from mnemir.ontology.enums import BUILTIN_ENUMS, EnumSpec
from mnemir.ontology.types import KINDS, PropertySpec, TypeDef

PACKS = ("coding", "health")


class Ontology:
    """A versioned registry of memory types.

    Built-in types are always present. Domain packs and user types are added
    with :meth:`load_pack`, :meth:`load_file`, :meth:`register` or
    :meth:`register_model`; each addition changes :attr:`version`.
    """

    def __init__(self, types: Iterable[TypeDef] = BUILTIN_TYPES, packs: Iterable[str] = ()) -> None:
        self._types: dict[str, TypeDef] = {}
        self._aliases: dict[str, str] = {}
        self._packs: dict[str, int] = {}
        self._user_fingerprints: list[str] = []
        self._add(types)
        for pack in packs:
            self.load_pack(pack)

    # -- registration ---------------------------------------------------
    def _add(self, typedefs: Iterable[TypeDef]) -> None:
        """Add types, all or none: a name or alias that another type already owns is a ConfigError."""
        types, aliases = dict(self._types), dict(self._aliases)
        for typedef in typedefs:
            _claim(typedef, types, aliases)
        self._types, self._aliases = types, aliases

    def register(self, typedef: TypeDef) -> TypeDef:
        """Add a user-defined type; bumps the ontology version."""
        self._register([typedef])
        return typedef

    def _register(self, typedefs: Iterable[TypeDef]) -> None:
        new: list[TypeDef] = []
        for typedef in typedefs:
            if self._types.get(typedef.name) == typedef or typedef in new:
                continue  # registering the same type again changes nothing
            if typedef.name in self._types:
                raise ConfigError(f"type {typedef.name!r} is already defined", type=typedef.name)
            new.append(typedef)
        self._add(new)
        self._user_fingerprints.extend(_fingerprint(t) for t in new)

    def load_pack(self, name: str) -> list[TypeDef]:
        if name in self._packs:
            return [t for t in self._types.values() if t.pack == name]
        if name not in PACKS:
            raise ValidationError(f"unknown domain pack {name!r}", field="pack", value=name, allowed=list(PACKS))
        text = resources.files("mnemir.ontology").joinpath("packs", f"{name}.yaml").read_text(encoding="utf-8")
        data = _load_text(text, f"{name}.yaml")
        typedefs = [typedef_from_dict(t, pack=name) for t in data.get("types", [])]
        self._add(typedefs)
        self._packs[name] = int(data.get("version", 1))
        return typedefs

    def load_file(self, path: str | Path) -> list[TypeDef]:
        """Register user types from a YAML or JSON file (``{"types": [...]}``)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read ontology file {path}: {exc.strerror}", path=str(path)) from exc
        data = _load_text(text, path.name)
        pack = str(data.get("pack", "user"))
        typedefs = [typedef_from_dict(t, pack=pack) for t in data.get("types", [])]
        self._register(typedefs)  # all the file's types or none
        return typedefs

    def register_model(self, model: type, *, name: str | None = None, role: str = "answer",
                       description: str | None = None, core: Iterable[str] = ()) -> TypeDef:
        """Register a pydantic model class as a memory type (its fields become properties)."""
        from mnemir.ontology.from_pydantic import typedef_from_model

        return self.register(typedef_from_model(model, name=name, role=role, description=description, core=core))

    # -- lookup ---------------------------------------------------------
    @property
    def types(self) -> Mapping[str, TypeDef]:
        return dict(self._types)

    @property
    def packs(self) -> Mapping[str, int]:
        return dict(self._packs)

    @property
    def version(self) -> str:
        parts = [CORE_VERSION]
        parts += [f"{p}.{v}" for p, v in sorted(self._packs.items())]
        if self._user_fingerprints:
            digest = hashlib.sha256("|".join(sorted(self._user_fingerprints)).encode()).hexdigest()[:8]
            parts.append(f"user.{digest}")
        return "+".join(parts)

    def resolve(self, name: str) -> TypeDef:
        if isinstance(name, str):
            canonical = self._aliases.get(name.strip().lower())
            if canonical is not None:
                return self._types[canonical]
        raise ValidationError(f"unknown memory type {name!r}", field="type", value=name, allowed=sorted(self._types))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._aliases

    def validate(self, type_name: str, properties: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
        """Return the canonical type name and normalised properties, or raise."""
        typedef = self.resolve(type_name)
        return typedef.name, typedef.validate(properties)

    def property_spec(self, prop: str, types: Iterable[str] | None = None) -> PropertySpec:
        """The spec of a property among ``types`` (all types when None); error if no such property."""
        candidates = [self.resolve(t) for t in types] if types else list(self._types.values())
        for typedef in candidates:
            if prop in typedef.properties:
                return typedef.properties[prop]
        if any(t.allow_extra for t in candidates):
            return PropertySpec(prop, "json")
        known = sorted({p for t in candidates for p in t.properties})
        scope = f" of types {', '.join(t.name for t in candidates)}" if types else ""
        raise ValidationError(f"unknown property {prop!r}{scope}", field=prop, value=prop, allowed=known)

    def core_properties(self) -> frozenset[str]:
        return frozenset(p.name for t in self._types.values() for p in t.properties.values() if p.core)

    def indexed_properties(self) -> frozenset[str]:
        """The properties stores index: the core ones and those marked ``filterable``."""
        return frozenset(p.name for t in self._types.values() for p in t.properties.values()
                         if p.core or p.filterable)

    def describe(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "packs": self.packs,
            "types": [t.describe() for t in self._types.values()],
        }


def _claim(typedef: TypeDef, types: dict[str, TypeDef], aliases: dict[str, str]) -> None:
    """Add ``typedef`` to ``types`` and its name and aliases (case-insensitive) to ``aliases``, or raise
    ConfigError when another type already owns one of them (a silently dropped alias would resolve elsewhere)."""
    if typedef.name in types and types[typedef.name] != typedef:
        raise ConfigError(f"type {typedef.name!r} is already defined differently", type=typedef.name,
                          pack=typedef.pack)
    for alias in (typedef.name, *typedef.aliases):
        owner = aliases.get(alias.lower())
        if owner is not None and owner != typedef.name:
            which = "its name" if alias == typedef.name else f"its alias {alias!r}"
            raise ConfigError(f"type {typedef.name!r}: {which} already names type {owner!r}", alias=alias,
                              type=typedef.name, owner=owner, pack=typedef.pack)
    types[typedef.name] = typedef
    for alias in (typedef.name, *typedef.aliases):
        aliases[alias.lower()] = typedef.name


def _fingerprint(typedef: TypeDef) -> str:
    return json.dumps(typedef.describe(), sort_keys=True, ensure_ascii=False, default=str)


def _load_text(text: str, name: str) -> dict[str, Any]:
    if name.endswith(".json"):
        data = json.loads(text)
    else:
        import yaml

        data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ConfigError(f"ontology file {name} must hold a mapping with a 'types' list", file=name)
    return data


def typedef_from_dict(data: Mapping[str, Any], *, pack: str = "user") -> TypeDef:
    """Build a TypeDef from the data form used by packs and user files."""
    try:
        name = str(data["name"])
    except KeyError:
        raise ConfigError("a type definition needs a 'name'", pack=pack) from None
    props: dict[str, PropertySpec] = {}
    for prop_name, spec in (data.get("properties") or {}).items():
        spec = dict(spec or {})
        kind = spec.get("kind", "str")
        if kind not in KINDS:
            raise ValidationError(
                f"type {name}: property {prop_name!r} has unknown kind", field=f"{name}.{prop_name}.kind",
                value=kind, allowed=list(KINDS),
            )
        enum = None
        if kind == "enum" or spec.get("values"):
            enum_ref = spec.get("enum")
            if enum_ref:
                if enum_ref not in BUILTIN_ENUMS:
                    raise ValidationError(f"type {name}: unknown enum {enum_ref!r}", field=f"{name}.{prop_name}.enum",
                                          value=enum_ref, allowed=sorted(BUILTIN_ENUMS))
                enum = BUILTIN_ENUMS[enum_ref]
            else:
                enum = EnumSpec(f"{name}.{prop_name}", tuple(spec.get("values") or ()), dict(spec.get("synonyms") or {}))
        props[prop_name] = PropertySpec(
            prop_name, kind, str(spec.get("description", "")), enum=enum,
            minimum=spec.get("minimum"), maximum=spec.get("maximum"),
            required=bool(spec.get("required", False)), default=spec.get("default"), core=bool(spec.get("core", False)),
            filterable=bool(spec.get("filterable", False)),
            item_kind=spec.get("item_kind", "str"),
        )
    try:
        return TypeDef(
            name, str(data.get("description", "")), props, role=str(data.get("role", "answer")),
            aliases=tuple(data.get("aliases") or ()), pack=pack, allow_extra=bool(data.get("allow_extra", False)),
        )
    except ValueError as exc:
        raise ConfigError(str(exc), type=name) from exc
