"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (a local server or a hosted one)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence

import numpy as np

from mnemir.embed.base import QueryCachingEmbedder, Vectors, normalize_rows
from mnemir.errors import EndpointError


class OpenAIEmbedder(QueryCachingEmbedder):
    def __init__(self, base_url: str, model: str, dim: int, *, api_key: str | None = None,
                 timeout: float = 30.0, batch_size: int = 64) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.dim = dim
        self.model_id = f"openai:{model}:{dim}"
        self.api_key = api_key
        self.timeout = timeout
        self.batch_size = batch_size

    def _post(self, texts: list[str]) -> Vectors:
        body = json.dumps({"model": self.model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(f"{self.base_url}/embeddings", data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise EndpointError(f"embeddings endpoint answered HTTP {exc.code}", url=self.base_url) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EndpointError(f"embeddings endpoint unreachable: {exc}", url=self.base_url) from exc
        except json.JSONDecodeError as exc:
            raise EndpointError("embeddings endpoint answered with invalid JSON", url=self.base_url) from exc
        try:
            rows = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vectors = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EndpointError("embeddings endpoint answered in an unexpected shape", url=self.base_url) from exc
        if vectors.shape != (len(texts), self.dim):
            raise EndpointError(
                f"embeddings endpoint returned shape {vectors.shape}, expected {(len(texts), self.dim)}",
                url=self.base_url,
            )
        return normalize_rows(vectors)

    def _encode(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._empty()
        items = list(texts)
        return np.vstack([self._post(items[i : i + self.batch_size]) for i in range(0, len(items), self.batch_size)])
