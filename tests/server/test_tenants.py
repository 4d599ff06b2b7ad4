"""Adversarial tenant isolation: tenant B tries to reach tenant A's memories through every endpoint, with A's real
ids, guessed filters, graph links, exports and imports; none succeeds and A's store is unchanged. Plus
authentication, revocation and the per-key rate limit, through a real client against a running server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.conftest import NOW
from tests.server.conftest import Running, running, tenant_app

T = NOW.isoformat()
#: the secret holds letters no hex request id or uuid can, so finding it in a response is a real leak
SECRET = "Acme's launch code is zulu7391"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[dict[str, Any]]:
    from mnemir.server import KeyStore

    root = tmp_path_factory.mktemp("tenants")
    keys = KeyStore(root / "keys.db")
    key_a, _ = keys.create("acme", name="acme agent")
    key_b, _ = keys.create("globex", name="attacker")
    key_slow, _ = keys.create("slowco", rate_per_s=1)
    key_gone, gone = keys.create("acme", name="old")
    keys.revoke(gone.key_id)
    with running(tenant_app(root, embedder, keys)) as srv, srv.client(key_a) as a, srv.client(key_b) as b:
        ids = seed(a)
        yield {"server": srv, "a": a, "b": b, "ids": ids, "keys": {"a": key_a, "b": key_b, "slow": key_slow,
                                                                     "gone": key_gone}, "root": root}


def seed(a: Any) -> dict[str, Any]:
    def add(text: str, type_: str, props: dict[str, Any], **extra: Any) -> dict[str, Any]:
        r = a.post("/v1/memories", json={"text": text, "type": type_, "properties": props, "user": "alice",
                                         "now": T, **extra})
        assert r.status_code == 201, r.text
        return dict(r.json()["memory"])

    fact = add(SECRET, "Fact", {"entity": "launch", "attribute": "code", "value": "zulu7391", "source": "user",
                                "confidence": 0.9})
    guess = add("The launch code is probably 0000", "Fact", {"entity": "launch", "attribute": "code",
                                                             "value": "0000", "source": "assistant",
                                                             "confidence": 0.5})
    task = add("Ship the Acme rocket", "Task", {"status": "pending"})
    step = add("Fuel the Acme rocket", "Plan", {"order": 1}, relationships=[{"target": task["id"],
                                                                              "relation": "subtask_of"}])
    hyp = add("Acme may move to Mars", "Hypothesis", {"entity": "Acme", "attribute": "hq", "value": "Mars",
                                                      "confidence": 0.3})
    for text in ("Send the Acme report to Anna", "Send the Acme report to Ben"):
        add(text, "Task", {"status": "pending"})
    asked = a.post("/v1/remember", json={"text": "I sent the Acme report", "user": "alice", "now": T}).json()
    assert asked["confirmations"], asked
    return {"fact": fact["id"], "guess": guess["id"], "task": task["id"], "step": step["id"], "hyp": hyp["id"],
            "confirmation": asked["confirmations"][0]["id"]}


def snapshot(a: Any) -> str:
    r = a.get("/v1/export", params={"embeddings": "false"})
    assert r.status_code == 200
    return str(r.text)


def leaks(r: Any, ids: dict[str, Any]) -> bool:
    text = r.text
    return "zulu7391" in text or "Acme" in text or any(v in text for v in ids.values())


def attempts(ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every endpoint, aimed at A's memories with A's real ids and scope names."""
    f, g, t, h = ids["fact"], ids["guess"], ids["task"], ids["hyp"]
    out: list[tuple[str, str, dict[str, Any]]] = []
    for user in ("alice", None):
        p = {"params": {"user": user}} if user else {}
        out += [
            ("GET", f"/v1/memories/{f}", p),
            ("GET", f"/v1/memories/{f}", {"params": {**p.get("params", {}), "include_deleted": "true"}}),
            ("GET", f"/v1/memories/{f}/history", p),
            ("PATCH", f"/v1/memories/{f}", {"json": {"user": user, "text": "overwritten by globex"}}),
            ("DELETE", f"/v1/memories/{f}", p),
            ("DELETE", f"/v1/memories/{f}", {"params": {**p.get("params", {}), "hard": "true"}}),
            ("POST", f"/v1/tasks/{t}/status", {"json": {"status": "completed", "user": user}}),
            ("POST", "/v1/conflicts/resolve", {"json": {"keep_id": g, "drop_id": f, "user": user}}),
            ("POST", f"/v1/review/{h}", {"json": {"decision": "confirm", "user": user}}),
            ("POST", f"/v1/review/{g}", {"json": {"decision": "reject", "user": user}}),
        ]
    out += [
        ("POST", f"/v1/confirmations/{ids['confirmation']}", {"json": {"choice": None}}),
        ("GET", f"/ui/memory/{f}", {}),
        ("POST", f"/ui/review/{h}", {"data": {"decision": "confirm"}}),
        ("POST", f"/ui/confirmations/{ids['confirmation']}", {"data": {"choice": ""}}),
    ]
    return out


def test_every_endpoint_refuses_another_tenants_ids(world: dict[str, Any]) -> None:
    a, b, ids = world["a"], world["b"], world["ids"]
    before = snapshot(a)
    for method, path, kwargs in attempts(ids):
        r = b.request(method, path, **kwargs)
        assert r.status_code == 404, (method, path, r.status_code, r.text[:300])
        sent = path + json.dumps(kwargs)  # a 404 may name the id it was asked for, nothing else of A's
        assert "zulu7391" not in r.text and "Acme" not in r.text, (method, path)
        assert not [v for v in ids.values() if v not in sent and v in r.text], (method, path)
    assert snapshot(a) == before  # nothing of A's changed
    assert a.get(f"/v1/memories/{ids['fact']}", params={"user": "alice"}).json()["content"]["text"] == SECRET


def test_listing_search_recall_and_filters_see_only_their_own_tenant(world: dict[str, Any]) -> None:
    b, ids = world["b"], world["ids"]
    probes = [
        b.get("/v1/memories", params={"all_users": "true", "limit": 200}),
        b.get("/v1/memories", params={"user": "alice", "status": ["active", "disputed", "archived", "superseded",
                                                                 "deleted"]}),
        b.get("/v1/memories", params={"all_users": "true", "where": json.dumps({"entity": "launch"})}),
        b.get("/v1/memories", params={"all_users": "true",
                                      "where": json.dumps({"@created_at": {"$gte": "2000-01-01"}})}),
        b.post("/v1/search", json={"query": SECRET, "user": "alice", "k": 50}),
        b.post("/v1/search", json={"query": "launch code", "types": ["Fact"], "where": {"attribute": "code"},
                                   "user": "alice", "include_archived": True}),
        b.post("/v1/as-of", json={"when": T, "query": "launch code", "user": "alice"}),
        b.post("/v1/recall", json={"query": "What is the launch code?", "user": "alice", "k": 20, "now": T}),
        b.post("/v1/recall", json={"query": "What do I still have to do for the rocket?", "user": "alice", "now": T}),
        b.get("/v1/conflicts", params={"user": "alice"}),
        b.get("/v1/review", params={"user": "alice"}),
        b.get("/v1/confirmations"),
        b.get("/v1/export"),
        b.get("/v1/export", params={"user": "alice"}),
        b.get("/ui/browse"),
        b.get("/ui/browse", params={"user": "alice"}),
        b.get("/ui/recall", params={"q": "What is the launch code?", "user": "alice"}),
        b.get("/ui/review", params={"user": "alice"}),
    ]
    for r in probes:
        assert r.status_code == 200, (str(r.request.url), r.text[:300])
        assert not leaks(r, ids), (str(r.request.url), r.text[:500])


def test_writes_with_the_other_tenants_ids_stay_in_their_own_store(world: dict[str, Any]) -> None:
    a, b, ids = world["a"], world["b"], world["ids"]
    before = snapshot(a)
    # an add that reuses A's id creates B's own memory; A's is untouched
    r = b.post("/v1/memories", json={"id": ids["fact"], "text": "globex owns this id now", "type": "Fact",
                                     "properties": {"entity": "launch", "attribute": "code", "value": "1"},
                                     "user": "alice", "now": T})
    assert r.status_code == 201
    # an import of records with A's ids (replace) and links into A's graph lands in B's store only
    forged = [{"kind": "header", "memir_version": "1.0", "records": 2},
              {"memir_version": "1.0", "id": ids["task"], "type": "Task", "content": {"text": "globex task"},
               "properties": {"status": "pending"}, "scope": {"user_id": "alice"}},
              {"memir_version": "1.0", "id": "mem_globex_link", "type": "Plan", "content": {"text": "globex step"},
               "properties": {"order": 1}, "scope": {"user_id": "alice"},
               "relationships": [{"target": ids["step"], "relation": "related_to_entity"},
                                 {"target": ids["fact"], "relation": "related_to_entity"}]}]
    body = "\n".join(json.dumps(x) for x in forged).encode()
    assert b.post("/v1/import", params={"on_conflict": "replace"}, content=body,
                  headers={"content-type": "application/x-ndjson"}).json() == {"imported": 2}
    # B's graph walk from its own record finds no A memory
    walked = b.post("/v1/recall", json={"query": "globex step", "user": "alice", "k": 20, "now": T})
    assert walked.status_code == 200 and "zulu7391" not in walked.text and "Fuel the Acme" not in walked.text
    page = b.get("/ui/memory/mem_globex_link")
    assert page.status_code == 200 and "Fuel the Acme" not in page.text and "zulu7391" not in page.text
    # maintenance in B touches nothing of A's
    assert b.post("/v1/maintain", json={"now": "2030-01-01T00:00:00+00:00"}).status_code == 200
    assert snapshot(a) == before
    mine = a.get(f"/v1/memories/{ids['task']}", params={"user": "alice"}).json()
    assert mine["content"]["text"] == "Ship the Acme rocket"
    theirs = b.get(f"/v1/memories/{ids['task']}", params={"user": "alice"}).json()
    assert theirs["content"]["text"] == "globex task"


def test_tenant_stores_are_separate_files(world: dict[str, Any]) -> None:
    tenants = world["root"] / "tenants"
    assert (tenants / "acme" / "memory.db").exists() and (tenants / "globex" / "memory.db").exists()


def test_keys_are_required_checked_and_revocable(world: dict[str, Any]) -> None:
    srv: Running = world["server"]
    keys = world["keys"]
    key_a = keys["a"]
    forged = key_a[: key_a.rindex("_") + 1] + "x" * 43  # A's key id with a guessed secret
    for key in (None, "", "not-a-key", forged, keys["gone"]):
        with srv.client(key) as c:
            for method, path in (("GET", "/v1/memories"), ("POST", "/v1/search"), ("GET", "/v1/export"),
                                 ("POST", "/v1/import"), ("GET", "/v1/types")):
                r = c.request(method, path, json={} if method == "POST" else None)
                assert r.status_code == 401, (key, path, r.text)
                assert r.headers["content-type"].startswith("application/problem+json")
                assert r.headers["www-authenticate"] == "Bearer" and "zulu7391" not in r.text
            page = c.get("/ui/browse", follow_redirects=False)
            assert page.status_code == 303 and page.headers["location"].startswith("/ui/login")
    # a header naming another tenant is no way in: the key decides
    r = world["b"].get("/v1/memories", params={"all_users": "true"}, headers={"X-Tenant": "acme"})
    assert r.status_code == 200 and "zulu7391" not in r.text
    assert srv.client().get("/healthz").json()["mode"] == "tenants"


def test_rate_limit_per_key(world: dict[str, Any]) -> None:
    srv: Running = world["server"]
    with srv.client(world["keys"]["slow"]) as slow:
        codes = [slow.get("/v1/types") for _ in range(6)]
    limited = [r for r in codes if r.status_code == 429]
    assert codes[0].status_code == 200 and limited, [r.status_code for r in codes]
    body = limited[0].json()
    assert body["type"] == "urn:mnemir:problem:rate_limited" and body["field"] == "rate"
    assert int(limited[0].headers["retry-after"]) >= 1
    assert world["a"].get("/v1/types").status_code == 200  # other keys are not slowed


def test_browser_sign_in_with_a_key(world: dict[str, Any]) -> None:
    srv: Running = world["server"]
    with srv.client() as c:
        bad = c.post("/ui/login", data={"key": "mnr_nope", "next": "/ui/browse"})
        assert bad.status_code == 401 and "unknown or revoked key" in bad.text
        ok = c.post("/ui/login", data={"key": world["keys"]["a"], "next": "/ui/browse"}, follow_redirects=False)
        assert ok.status_code == 303 and "httponly" in ok.headers["set-cookie"].lower()
        page = c.get("/ui/browse")
        assert page.status_code == 200 and "launch code is zulu7391" in page.text and ">acme<" in page.text
