"""One error root for mnemir, with a small tree.

Every error carries structured context (``field``, ``value``, ``allowed`` ...)
so that interfaces (CLI exit codes, HTTP problem+json, MCP errors) can
translate it without parsing the message.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MnemirError",
    "ValidationError",
    "VersionError",
    "NotFoundError",
    "ConflictError",
    "InvalidTransitionError",
    "ModelMismatchError",
    "StoreError",
    "ConfigError",
    "MissingDependencyError",
    "EndpointError",
]


def printable(text: str) -> str:
    """``text`` with anything that is not valid UTF-8 (lone surrogates) escaped: error messages quote bad input,
    and must still print and serialise."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _short(value: Any, limit: int = 80) -> str:
    text = printable(repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


class MnemirError(Exception):
    """Root of every error mnemir raises on purpose."""

    #: a stable machine-readable code, used by the interfaces
    code = "mnemir_error"
    #: process exit code used by the CLI
    exit_code = 1

    def __init__(self, message: str, **context: Any) -> None:
        message = printable(message)
        super().__init__(message)
        self.message = message
        self.context = {k: v for k, v in context.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **{k: _jsonable(v) for k, v in self.context.items()}}


def _jsonable(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {printable(str(k)): _jsonable(v) for k, v in value.items()}
    return _short(value, 200)


class ValidationError(MnemirError, ValueError):
    """Bad input: names the field, the bad value and what is allowed."""

    code = "validation_error"
    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        value: Any = None,
        allowed: Any = None,
        **context: Any,
    ) -> None:
        parts = [message]
        if field is not None and field not in message:
            parts.append(f"field={field}")
        if value is not None and "got" not in message:
            parts.append(f"got {_short(value)}")
        if allowed is not None and "allowed" not in message:
            shown = ", ".join(map(str, allowed)) if isinstance(allowed, (list, tuple, set, frozenset)) else str(allowed)
            parts.append(f"allowed: {shown}")
        super().__init__(
            "; ".join(parts),
            field=field,
            value=_short(value) if value is not None else None,
            allowed=sorted(map(str, allowed)) if isinstance(allowed, (set, frozenset)) else allowed,
            **context,
        )
        self.field = field
        self.value = value
        self.allowed = allowed


class VersionError(ValidationError):
    """A MemIR or ontology version we cannot read or upgrade."""

    code = "version_error"


class NotFoundError(MnemirError, KeyError):
    code = "not_found"
    exit_code = 3

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class ConflictError(MnemirError):
    code = "conflict"
    exit_code = 4


class InvalidTransitionError(ConflictError, ValidationError):
    """A lifecycle transition that the state machine does not allow."""

    code = "invalid_transition"

    def __init__(self, message: str, **context: Any) -> None:
        MnemirError.__init__(self, message, **context)
        self.field = context.get("field")
        self.value = context.get("value")
        self.allowed = context.get("allowed")


class ModelMismatchError(ConflictError):
    """A store refuses vectors made by another embedding model."""

    code = "model_mismatch"


class StoreError(MnemirError):
    """The backend failed in a way the caller cannot fix by changing input."""

    code = "store_error"
    exit_code = 5


class ConfigError(MnemirError):
    code = "config_error"
    exit_code = 2


class MissingDependencyError(ConfigError, ImportError):
    """An optional feature needs an extra that is not installed."""

    code = "missing_dependency"

    def __init__(self, feature: str, package: str, extra: str | None = None) -> None:
        hint = f"pip install 'mnemir[{extra}]'" if extra else f"pip install {package}"
        MnemirError.__init__(
            self, f"{feature} needs the package {package!r}; install it with: {hint}", package=package, extra=extra
        )


class EndpointError(MnemirError):
    """A remote endpoint (LLM or embeddings) is down, slow or answered badly."""

    code = "endpoint_error"
    exit_code = 6
