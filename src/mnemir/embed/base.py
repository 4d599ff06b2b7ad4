"""The Embedder protocol and shared helpers."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    #: identifies the model; stored with every vector (a store refuses to mix models)
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for stored passages, shape (len(texts), dim)."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """The vector for one search query, shape (dim,)."""
        ...


def normalize_rows(vectors: npt.ArrayLike) -> Vectors:
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


class QueryCache:
    """A small LRU cache of query vectors (agents repeat queries a lot)."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._data: OrderedDict[str, Vectors] = OrderedDict()

    def get(self, text: str) -> Vectors | None:
        vec = self._data.get(text)
        if vec is not None:
            self._data.move_to_end(text)
        return vec

    def put(self, text: str, vec: Vectors) -> None:
        self._data[text] = vec
        self._data.move_to_end(text)
        while len(self._data) > self.size:
            self._data.popitem(last=False)


class QueryCachingEmbedder:
    """Shared behaviour of the concrete embedders: ``embed_query`` is ``embed`` of one text, cached."""

    model_id: str
    dim: int

    def __init__(self) -> None:
        self._cache = QueryCache()

    def embed(self, texts: Sequence[str]) -> Vectors:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def _embed_one_query(self, text: str) -> Vectors:
        """Override when queries are encoded differently from passages (e5's "query:" prefix)."""
        return self.embed([text])[0]

    def embed_query(self, text: str) -> Vectors:
        cached = self._cache.get(text)
        if cached is None:
            cached = self._embed_one_query(text)
            self._cache.put(text, cached)
        return cached

    def _empty(self) -> Vectors:
        return np.zeros((0, self.dim), dtype=np.float32)
