"""Embeddings: the Embedder protocol, the bundled default and optional alternatives."""

from __future__ import annotations

from mnemir.embed.base import Embedder, QueryCache, Vectors, normalize_rows
from mnemir.embed.use import USEEmbedder
from mnemir.errors import ValidationError

__all__ = ["Embedder", "QueryCache", "USEEmbedder", "Vectors", "default_embedder", "make_embedder",
           "normalize_rows"]

_DEFAULT: USEEmbedder | None = None


def default_embedder() -> USEEmbedder:
    """The process-wide default embedder (loaded once, on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = USEEmbedder(threads=1)
    return _DEFAULT


def make_embedder(name: str = "use", **options: object) -> Embedder:
    """Build an embedder by name: ``use`` (default), ``e5``, or ``openai`` (needs base_url, model, dim)."""
    if name in ("use", "default"):
        return default_embedder() if not options else USEEmbedder(**options)  # type: ignore[arg-type]
    if name == "e5":
        from mnemir.embed.e5 import E5Embedder

        return E5Embedder(**options)  # type: ignore[arg-type]
    if name == "openai":
        from mnemir.embed.openai import OpenAIEmbedder

        return OpenAIEmbedder(**options)  # type: ignore[arg-type]
    raise ValidationError(f"unknown embedder {name!r}", field="embedder", value=name, allowed=["use", "e5", "openai"])
