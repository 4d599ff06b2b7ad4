"""The Embedder protocol and shared helpers."""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

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
    """Shared behaviour of the concrete embedders: ``embed_query`` is ``embed`` of one text, cached; and
    :meth:`prefilled`, which embeds many texts in one batch ahead of the calls that will ask for them one by one.

    Subclasses implement :meth:`_encode` (the model call); :meth:`embed` answers from the prefilled vectors first."""

    model_id: str
    dim: int

    def __init__(self) -> None:
        self._cache = QueryCache()
        self._prefill = threading.local()

    def _encode(self, texts: Sequence[str]) -> Vectors:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def _table(self) -> dict[str, Vectors] | None:
        return getattr(getattr(self, "_prefill", None), "table", None)

    def embed(self, texts: Sequence[str]) -> Vectors:
        table = self._table()
        if not table:
            return self._encode(texts) if texts else self._empty()
        missing = list(dict.fromkeys(t for t in texts if t not in table))
        made = dict(zip(missing, self._encode(missing), strict=True)) if missing else {}
        if not texts:
            return self._empty()
        return np.ascontiguousarray(np.vstack([table[t] if t in table else made[t] for t in texts]), dtype=np.float32)

    @contextlib.contextmanager
    def prefilled(self, texts: Sequence[str]) -> Iterator[None]:
        """Embed ``texts`` (those not prefilled already) in ONE batch; inside the block, on this thread, ``embed``
        and (where a query is embedded as a passage) ``embed_query`` return these vectors instead of encoding the
        texts again. A batch costs a fraction of its texts embedded one at a time (the default model: about a
        third); batched and single vectors of one text differ by about 1e-7. Nested blocks add to the outer one. A text
        the query cache holds (embedders whose queries are passages) is taken from it, not encoded again."""
        table = self._table()
        outer = table is None
        if table is None:
            table = {}
            self._prefill.table = table
        try:
            missing = list(dict.fromkeys(t for t in texts if t not in table))
            if missing and type(self)._embed_one_query is QueryCachingEmbedder._embed_one_query:
                # a text already searched for holds the vector a call of its own gives (what embed_query kept):
                # taken from the query cache, it is not encoded again (a fixed search text, a repeated name)
                known = {t: v for t in missing if (v := self._cache.get(t)) is not None}
                table.update(known)
                missing = [t for t in missing if t not in known]
            if missing:
                table.update(zip(missing, self._encode(missing), strict=True))
            yield
        finally:
            if outer:
                self._prefill.table = None

    def _embed_one_query(self, text: str) -> Vectors:
        """Override when queries are encoded differently from passages (e5's "query:" prefix)."""
        return self.embed([text])[0]

    def embed_query(self, text: str) -> Vectors:
        table = self._table()
        if table and text in table and type(self)._embed_one_query is QueryCachingEmbedder._embed_one_query:
            self._cache.put(text, table[text])  # searched again later (outside the block): not encoded again
            return table[text]
        cached = self._cache.get(text)
        if cached is None:
            cached = self._embed_one_query(text)
            self._cache.put(text, cached)
        return cached

    def _empty(self) -> Vectors:
        return np.zeros((0, self.dim), dtype=np.float32)


def prefilled(embedder: Any, texts: Sequence[str]) -> contextlib.AbstractContextManager[Any]:
    """``embedder.prefilled(texts)`` where the embedder has it (the bundled ones), else a block that does nothing
    (an embedder of the user's own embeds as it always does)."""
    method = getattr(embedder, "prefilled", None)
    return method(texts) if callable(method) and texts else contextlib.nullcontext()
