"""Property and type definitions, and the coercion of values to them."""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from mnemir.errors import ValidationError
from mnemir.ontology.enums import EnumSpec

Kind = Literal["str", "text", "float", "int", "bool", "datetime", "date_or_datetime", "enum", "list", "id", "json"]
KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]

#: the roles a memory can play in recall (see mnemir.retrieve)
ROLES = ("answer", "background", "caution", "task", "context", "dialogue", "hypothesis")

MAX_PROPERTY_STR = 2_000


_NOT_KEY = re.compile(r"[\s\W_]+", re.UNICODE)


def norm_key(value: Any) -> str:
    """Canonical form of a key value (entity, subject, attribute) for comparing: NFKC, case-folded, punctuation
    and spaces removed ("The User", "the_user" -> "theuser"); "" for None."""
    if value is None:
        return ""
    text = value if type(value) is str else str(value)
    return _norm_short(text) if len(text) <= _KEPT_KEY_CHARS else _norm_text(text)


def _norm_text(text: str) -> str:
    return _NOT_KEY.sub("", unicodedata.normalize("NFKC", text).casefold())


#: keys (entities, attributes, subjects) are short and come back again and again (a batch's merge checks compare
#: each record's keys with about ten candidates': ~57 calls a record), so the short ones are kept; long texts are not
_KEPT_KEY_CHARS = 128
_norm_short = functools.lru_cache(maxsize=16_384)(_norm_text)


def format_datetime(value: datetime) -> str:
    # the year by hand: strftime's %Y is not zero-padded below 1000 on glibc ("999-01-02"), which no parser reads
    value = value.astimezone(UTC)
    return f"{value.year:04d}-{value:%m-%dT%H:%M:%S}Z"


def earlier(now: datetime, span: timedelta) -> datetime:
    """``now - span``, or the first representable instant when that lies before year 1: a clock near the start of
    the calendar is valid input, and a look-back window from it holds everything since then."""
    try:
        return now - span
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)


def parse_timestamp(value: object) -> datetime | None:
    """A stored ISO date/time (``completed_at``, ``confidence_checked_at``) as an aware datetime: a naive one is
    UTC, a bare date is its midnight UTC; None when absent or unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def parse_deadline(value: object) -> datetime | None:
    """The instant a stored ``deadline`` passes: a bare date ("2026-12-04", due that day) lasts to the end of
    that day (UTC); a date and time is that instant. None when absent or unreadable."""
    if isinstance(value, str) and len(value.strip()) == 10:
        try:
            return datetime.combine(date.fromisoformat(value.strip()), time.max, UTC)
        except ValueError:
            return None
    return parse_timestamp(value)


def parse_when(value: Any, field_name: str, *, allow_date: bool) -> str:
    """Normalise a date/datetime to ISO text that sorts correctly as a string."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValidationError("datetime must be timezone-aware", field=field_name, value=value.isoformat())
        return format_datetime(value)
    if isinstance(value, date):
        return value.isoformat() if allow_date else format_datetime(datetime.combine(value, time(23, 59, 59), UTC))
    if isinstance(value, str):
        text = value.strip()
        if allow_date and len(text) == 10:
            try:
                return date.fromisoformat(text).isoformat()
            except ValueError:
                pass
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None:
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
            return format_datetime(parsed)
    allowed = "ISO date (YYYY-MM-DD) or datetime" if allow_date else "ISO datetime, e.g. 2026-12-04T18:00:00Z"
    raise ValidationError(f"invalid date/time for {field_name}", field=field_name, value=value, allowed=allowed)


@dataclass(frozen=True)
class PropertySpec:
    name: str
    kind: Kind = "str"
    description: str = ""
    enum: EnumSpec | None = None
    minimum: float | None = None
    maximum: float | None = None
    required: bool = False
    default: Any = None
    #: core properties get their own indexed column; the rest are JSON (still filterable)
    core: bool = False
    #: filtered often: stores index it like a core property (SQLite: the props side table, answered from the
    #: vector cache; PostgreSQL: an expression index), without making it part of the type's core
    filterable: bool = False
    item_kind: Kind = "str"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: unknown kind {self.kind!r}; allowed: {', '.join(KINDS)}")
        if self.kind == "enum" and self.enum is None:
            raise ValueError(f"property {self.name}: kind 'enum' needs an enum")

    def coerce(self, value: Any, path: str) -> Any:
        """Return ``value`` converted to this property's canonical form, or raise."""
        if value is None:
            return None
        kind = self.kind
        if kind == "enum":
            assert self.enum is not None
            return self.enum.normalize(value, path)
        if kind in ("str", "text", "id"):
            if isinstance(value, (int, float)) and not isinstance(value, bool) and kind != "id":
                value = str(value)
            if not isinstance(value, str):
                raise ValidationError(f"{path} must be a string", field=path, value=value, allowed="string")
            value = value.strip()
            limit = 200 if kind == "id" else MAX_PROPERTY_STR
            if len(value) > limit:
                raise ValidationError(f"{path} is too long ({len(value)} chars)", field=path, allowed=f"<= {limit}")
            return value
        if kind in ("float", "int"):
            return self._number(value, path)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "是", "否"):
                return value.strip().lower() in ("true", "yes", "是")
            raise ValidationError(f"{path} must be a boolean", field=path, value=value, allowed="true/false")
        if kind == "datetime":
            return parse_when(value, path, allow_date=False)
        if kind == "date_or_datetime":
            return parse_when(value, path, allow_date=True)
        if kind == "list":
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise ValidationError(f"{path} must be a list", field=path, value=value, allowed="list")
            item = PropertySpec(self.name, self.item_kind, enum=self.enum if self.item_kind == "enum" else None)
            return [item.coerce(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value  # json: anything JSON-serialisable

    def _number(self, value: Any, path: str) -> float | int:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValidationError(f"{path} must be a number", field=path, value=value, allowed=self._range_text())
        try:
            number = float(value) if self.kind == "float" else int(value)
        except (TypeError, ValueError):
            raise ValidationError(
                f"{path} must be a number", field=path, value=value, allowed=self._range_text()
            ) from None
        if isinstance(number, float) and not math.isfinite(number):
            raise ValidationError(f"{path} must be finite", field=path, value=value, allowed=self._range_text())
        if (self.minimum is not None and number < self.minimum) or (self.maximum is not None and number > self.maximum):
            raise ValidationError(f"{path} out of range", field=path, value=value, allowed=self._range_text())
        return number

    def _range_text(self) -> str:
        lo = "-inf" if self.minimum is None else f"{self.minimum:g}"
        hi = "inf" if self.maximum is None else f"{self.maximum:g}"
        return f"{self.kind} in [{lo}, {hi}]"

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.enum is not None:
            out["values"] = list(self.enum.values)
        if self.minimum is not None or self.maximum is not None:
            out["range"] = [self.minimum, self.maximum]
        if self.required:
            out["required"] = True
        if self.default is not None:
            out["default"] = self.default
        if self.core:
            out["core"] = True
        if self.filterable:
            out["filterable"] = True
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True)
class TypeDef:
    name: str
    description: str
    properties: Mapping[str, PropertySpec] = field(default_factory=dict)
    #: the role this type plays in recall unless a query says otherwise
    role: str = "answer"
    #: other names that resolve to this type (case-insensitive; zh included)
    aliases: tuple[str, ...] = ()
    pack: str = "core"
    #: user types may accept properties they did not declare
    allow_extra: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"type {self.name}: unknown role {self.role!r}; allowed: {', '.join(ROLES)}")

    def validate(self, properties: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check and normalise properties; fill defaults. Raises on the first problem."""
        properties = dict(properties or {})
        unknown = sorted(set(properties) - set(self.properties))
        if unknown and not self.allow_extra:
            raise ValidationError(
                f"unknown property {unknown[0]!r} for type {self.name}",
                field=f"properties.{unknown[0]}",
                value=unknown[0],
                allowed=sorted(self.properties),
            )
        out: dict[str, Any] = {}
        for name, spec in self.properties.items():
            value = properties.get(name)
            if value is None and spec.default is not None:
                value = spec.default
            value = spec.coerce(value, f"properties.{name}")
            if value is None:
                if spec.required:
                    raise ValidationError(
                        f"property {name!r} is required for type {self.name}",
                        field=f"properties.{name}",
                        allowed=spec.describe(),
                    )
                continue
            out[name] = value
        for name in unknown:
            out[name] = properties[name]
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "role": self.role,
            "pack": self.pack,
            "aliases": list(self.aliases),
            "properties": {n: p.describe() for n, p in self.properties.items()},
        }
