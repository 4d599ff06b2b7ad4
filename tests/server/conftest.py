"""A real server per test module: uvicorn on 127.0.0.1 (a free port) in a thread, driven by a real httpx client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Running:
    def __init__(self, app: Any, port: int) -> None:
        self.app = app
        self.port = port
        self.url = f"http://127.0.0.1:{port}"

    def client(self, key: str | None = None, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120, **kwargs)


@contextmanager
def running(app: Any) -> Iterator[Running]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield Running(app, port)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def local_app(path: Any, embedder: Any, **config: Any) -> Any:
    """An app serving one store without keys; the tenant's store is opened with the session's embedder."""
    from mnemir.server import ServerConfig, create_app

    return create_app(ServerConfig(path=str(path), **config), multi=False, embedder=embedder)


def tenant_app(path: Any, embedder: Any, keys: Any, **config: Any) -> Any:
    from mnemir.server import ServerConfig, create_app

    return create_app(ServerConfig(path=str(path), **config), keys=keys, embedder=embedder)
