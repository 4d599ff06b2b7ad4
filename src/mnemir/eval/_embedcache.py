"""An embedder wrapper for benchmark runs: every passage text is embedded once per run.

The suites build hundreds of small stores from overlapping texts (the collapse benchmark adds the same noise memories
to every scenario and writes each text twice, typed and through ``remember``). The model is deterministic, so a text
embedded again gets the vector it got the first time; only the time differs. A suite also hands over, before it
starts, the texts and queries it knows it will embed (:meth:`PassageCache.prefetch`): the default model embeds a
batch of 16 in about the time of two single texts (batched and single vectors differ by about 1e-7).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemir.embed import Embedder
from mnemir.embed.base import QueryCachingEmbedder, Vectors

BATCH = 64


class PassageCache:
    """Wraps an :class:`~mnemir.embed.Embedder`; ``embed`` looks each text up before asking the model."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._vectors: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        #: the wrapped model embeds a query as it embeds a passage (USE does; e5 prefixes queries)
        self.same_as_passages = (isinstance(inner, QueryCachingEmbedder)
                                 and type(inner)._embed_one_query is QueryCachingEmbedder._embed_one_query)
        self.hits = 0
        self.misses = 0

    def prefetch(self, texts: Sequence[str] = (), queries: Sequence[str] = ()) -> None:
        """Embed the ``texts`` not seen yet in batches; likewise ``queries`` where the wrapped model embeds a query
        as it embeds a passage (otherwise queries stay one at a time, through its own cache)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        for i in range(0, len(missing), BATCH):
            chunk = missing[i:i + BATCH]
            self._vectors.update(zip(chunk, self.inner.embed(chunk), strict=True))
        if self.same_as_passages:
            wanted = list(dict.fromkeys(q for q in queries if q not in self._queries))
            for i in range(0, len(wanted), BATCH):
                chunk = wanted[i:i + BATCH]
                self._queries.update(zip(chunk, self.inner.embed(chunk), strict=True))

    def embed(self, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self._vectors[text] = vector
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(np.vstack([self._vectors[t] for t in texts]), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        vector = self._queries.get(text)
        if vector is None and self.same_as_passages:  # remember searches with the utterance it was handed
            vector = self._vectors.get(text)
        return vector if vector is not None else self.inner.embed_query(text)


def cached(embedder: Embedder) -> PassageCache:
    """``embedder`` wrapped in a :class:`PassageCache` (once: a cache is not wrapped again)."""
    return embedder if isinstance(embedder, PassageCache) else PassageCache(embedder)
