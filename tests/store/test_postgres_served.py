"""`mnemir serve` over a PostgreSQL store: the same API through a real client (the embedded server of
postgres_cases.py). Tenants need a SQLite store (each tenant is a store of its own); with keys, a PostgreSQL URL
is refused with a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from postgres_cases import database_url
from tests.conftest import NOW
from tests.server.conftest import local_app, running

from mnemir.errors import ConfigError


def test_the_api_serves_a_postgresql_store(tmp_path: Path, embedder: Any) -> None:
    url = database_url(tmp_path, "served")
    with running(local_app(url, embedder)) as srv, srv.client() as c:
        r = c.post("/v1/memories", json={"text": "上海今天晴，25摄氏度", "type": "Fact", "user": "alice",
                                         "properties": {"entity": "上海", "attribute": "weather", "value": "晴"},
                                         "now": NOW.isoformat()})
        assert r.status_code == 201, r.text
        mid = r.json()["memory"]["id"]
        assert c.get(f"/v1/memories/{mid}", params={"user": "alice"}).json()["id"] == mid
        hits = c.post("/v1/recall", json={"query": "上海天气怎么样", "user": "alice", "now": NOW.isoformat()}).json()
        assert hits["hits"][0]["memory"]["id"] == mid and "上海今天晴" in hits["prompt"]
        exported = c.get("/v1/export").text.splitlines()
        assert '"records": 1' in exported[0] and mid in exported[1] and '"kind": "history"' in exported[2]


def test_tenants_need_a_sqlite_store(tmp_path: Path) -> None:
    from mnemir.server import ServerConfig, create_app

    with pytest.raises(ConfigError) as err:
        create_app(ServerConfig(path="postgresql://localhost/x"), multi=True)
    assert err.value.context["field"] == "path"
