"""The MemIR v1 record.

MemIR is the interchange format between every stage of mnemir. This module
knows nothing of the ontology: it checks the *shape* of a record (fields,
times, sizes). Whether ``type`` and ``properties`` make sense is the
ontology's job (``mnemir.ontology``).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mnemir.errors import ValidationError

MEMIR_VERSION = "1.0"
#: the longest ``content.text`` a record may carry (characters)
MAX_TEXT_CHARS = 16_000
MAX_SUMMARY_CHARS = 1_000
MAX_ID_CHARS = 128


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return "mem_" + uuid.uuid4().hex


def ensure_aware(value: datetime, field: str = "now") -> datetime:
    """Times in mnemir are timezone-aware and kept in UTC."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationError(
            "time must be timezone-aware", field=field, value=value.isoformat(), allowed="e.g. 2026-11-29T10:00:00+00:00"
        )
    return value.astimezone(UTC)


class MemoryStatus(StrEnum):
    active = "active"
    archived = "archived"
    superseded = "superseded"
    disputed = "disputed"
    deleted = "deleted"


def _aware(v: Any) -> Any:
    if isinstance(v, datetime):
        if v.tzinfo is None or v.utcoffset() is None:
            raise ValueError("datetime must be timezone-aware (add +00:00 or Z)")
        return v.astimezone(UTC)
    return v


AwareDatetime = Annotated[datetime, pydantic.AfterValidator(_aware)]


#: how deeply property values (and metadata extras) may nest
MAX_DEPTH = 16
_INT64 = 2**63


#: the validation context under which a store reads back a record it wrote (see :func:`stored`)
_STORED = {"mnemir.stored": True}


def stored(info: pydantic.ValidationInfo) -> bool:
    """Whether this validation reads back a record a store wrote: its property values and metadata extras passed
    :func:`check_json_value` when they were written and came back from the store's own JSON, so the walk over every
    value is not repeated on each read (it was a tenth of ``ingest``'s CPU). Every other way in (the API,
    ``from_dict``/``from_json``, assignment, an integrity check) checks them."""
    return bool(info.context) and info.context.get("mnemir.stored") is True  # type: ignore[union-attr]


def load_stored(data: str) -> MemIR:
    """A current-version record as a store wrote it (compact JSON): pydantic's JSON path, without re-walking
    property values and extras. Raises pydantic.ValidationError for anything else (the caller's checked path)."""
    return MemIR.model_validate_json(data, context=_STORED)


def check_json_value(value: Any, path: str, depth: int = 0) -> None:
    """A property value (or metadata extra) every backend can store and give back unchanged: no lone surrogates
    (text that is not valid UTF-8) or NUL characters in strings or keys, strings of at most MAX_TEXT_CHARS,
    finite floats, integers that fit 64 bits, nesting at most MAX_DEPTH deep. Raises ValueError naming the path."""
    if depth > MAX_DEPTH:
        raise ValueError(f"{path}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        _check_string(value, path)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise ValueError(f"{path}: integer out of the 64-bit range")
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{path}: {value} is not a finite number")
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                _check_string(k, f"{path} (a key)")
            check_json_value(v, f"{path}.{k}" if isinstance(k, str) else path, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_json_value(v, f"{path}[{i}]", depth + 1)


def _check_string(value: str, path: str) -> None:
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"{path}: a string longer than {MAX_TEXT_CHARS} characters")
    if "\x00" in value:
        raise ValueError(f"{path}: NUL characters are not allowed")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{path}: not valid Unicode text (a lone surrogate)") from None


def check_unicode(value: str, field: str) -> str:
    """``value`` if it is valid Unicode text (no lone surrogates, which no UTF-8 store can hold); a
    ValidationError naming ``field`` otherwise."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(f"{field} is not valid Unicode text (a lone surrogate at position {exc.start})",
                              field=field, value=value, allowed="text that encodes as UTF-8") from None
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, str_strip_whitespace=False)


class Content(_Model):
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    summary: str | None = Field(default=None, max_length=MAX_SUMMARY_CHARS)

    @field_validator("text")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("text must not be blank")
        if "\x00" in v:
            raise ValueError("text must not contain NUL characters")
        return v


class Source(_Model):
    """Where a memory came from: who said it, in which session and turn, and which extractor made it."""

    speaker: str | None = None
    session_id: str | None = None
    turn: int | None = Field(default=None, ge=0)
    creator: str | None = None
    at: AwareDatetime | None = None


class Metadata(_Model):
    created_at: AwareDatetime = Field(default_factory=utcnow)
    updated_at: AwareDatetime = Field(default_factory=utcnow)
    source: Source = Field(default_factory=Source)
    #: every further source that was merged into this memory (provenance is never lost)
    merged_sources: list[Source] = Field(default_factory=list)
    ontology_version: str | None = None
    last_accessed_at: AwareDatetime | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("extra")
    @classmethod
    def _storable_extra(cls, v: dict[str, Any], info: pydantic.ValidationInfo) -> dict[str, Any]:
        if not stored(info):
            check_json_value(v, "metadata.extra")
        return v

    @pydantic.model_validator(mode="before")
    @classmethod
    def _updated_defaults_to_created(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("created_at") is not None and data.get("updated_at") is None:
            data = {**data, "updated_at": data["created_at"]}
        return data


class Relationship(_Model):
    target: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    relation: str = Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_]*$")
    properties: dict[str, Any] = Field(default_factory=dict)

    @field_validator("properties")
    @classmethod
    def _storable_properties(cls, v: dict[str, Any], info: pydantic.ValidationInfo) -> dict[str, Any]:
        if not stored(info):
            check_json_value(v, "relationship properties")
        return v


class Scope(_Model):
    user_id: str | None = Field(default=None, max_length=256)
    agent_id: str | None = Field(default=None, max_length=256)
    session_id: str | None = Field(default=None, max_length=256)


class MemIR(_Model):
    """One typed memory."""

    memir_version: Literal["1.0"] = "1.0"
    id: str = Field(default_factory=new_id, min_length=1, max_length=MAX_ID_CHARS, pattern=r"^[A-Za-z0-9_.:\-]+$")
    content: Content
    type: str = Field(min_length=1, max_length=64)
    properties: dict[str, Any] = Field(default_factory=dict)
    #: the content's vector; never part of the default JSON output
    embedding: list[float] | None = None
    metadata: Metadata = Field(default_factory=Metadata)
    relationships: list[Relationship] = Field(default_factory=list)
    scope: Scope = Field(default_factory=Scope)
    status: MemoryStatus = MemoryStatus.active
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None

    @field_validator("properties")
    @classmethod
    def _storable_properties(cls, v: dict[str, Any], info: pydantic.ValidationInfo) -> dict[str, Any]:
        if not stored(info):
            check_json_value(v, "properties")
        return v

    @field_validator("valid_to")
    @classmethod
    def _after_from(cls, v: datetime | None, info: pydantic.ValidationInfo) -> datetime | None:
        start = info.data.get("valid_from")
        if v is not None and start is not None and v < start:
            raise ValueError("valid_to must not be before valid_from")
        return v

    # -- conveniences -------------------------------------------------
    @property
    def text(self) -> str:
        return self.content.text

    def relations(self, relation: str | None = None) -> list[Relationship]:
        return [r for r in self.relationships if relation is None or r.relation == relation]

    def is_valid_at(self, when: datetime) -> bool:
        start = self.valid_from or self.metadata.created_at
        return start <= when and (self.valid_to is None or when < self.valid_to)

    def to_dict(self, *, with_embedding: bool = False) -> dict[str, Any]:
        exclude = None if with_embedding and self.embedding is not None else {"embedding"}
        return self.model_dump(mode="json", exclude=exclude)

    def to_json(self, *, with_embedding: bool = False) -> str:
        exclude = None if with_embedding and self.embedding is not None else {"embedding"}
        return self.model_dump_json(exclude=exclude)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemIR:
        """Parse a record of any supported ``memir_version`` (older ones are upgraded)."""
        from mnemir.ir.versions import upgrade

        return parse_record(upgrade(data))

    @classmethod
    def from_json(cls, text: str) -> MemIR:
        import json

        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"not valid JSON: {exc.msg} at position {exc.pos}", field="record") from exc
        if not isinstance(data, dict):
            raise ValidationError("a MemIR record must be a JSON object", field="record", value=type(data).__name__)
        return cls.from_dict(data)


def parse_record(data: dict[str, Any]) -> MemIR:
    """Validate a v1 dict, turning pydantic's errors into one of ours naming the field."""
    try:
        return MemIR.model_validate(data)
    except pydantic.ValidationError as exc:
        raise from_pydantic(exc) from None


def from_pydantic(exc: pydantic.ValidationError, prefix: str = "") -> ValidationError:
    first = exc.errors()[0]
    field = prefix + ".".join(str(p) for p in first["loc"])
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return ValidationError(
        f"invalid {field or 'record'}: {first['msg']}{more}",
        field=field or None,
        value=first.get("input") if not isinstance(first.get("input"), dict) else None,
    )
