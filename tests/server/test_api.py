"""Every endpoint of the HTTP API, through a real httpx client against a running server (one per module)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from tests.conftest import NOW
from tests.server.conftest import Running, local_app, running

DAY = timedelta(days=1)
T = NOW.isoformat()
PROBLEM = "application/problem+json"
JSONL = {"content-type": "application/x-ndjson"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[Running]:
    with running(local_app(tmp_path_factory.mktemp("api"), embedder)) as srv:
        yield srv


@pytest.fixture(scope="module")
def http(server: Running) -> Iterator[Any]:
    with server.client() as client:
        yield client


def add(http: Any, text: str, type_: str, props: dict[str, Any], user: str = "alice", **extra: Any) -> dict[str, Any]:
    r = http.post("/v1/memories", json={"text": text, "type": type_, "properties": props, "user": user, "now": T,
                                        **extra})
    assert r.status_code == 201, r.text
    return dict(r.json()["memory"])


def problem_of(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = dict(r.json())
    assert body["status"] == status and body["type"].startswith("urn:mnemir:problem:") and body["detail"]
    assert body["request_id"] == r.headers["x-request-id"]
    return body


def test_healthz_and_request_ids(http: Any) -> None:
    r = http.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok" and r.json()["mode"] == "local"
    generated = r.headers["x-request-id"]
    assert len(generated) == 16 and http.get("/healthz").headers["x-request-id"] != generated
    assert http.get("/healthz", headers={"X-Request-ID": "trace-42"}).headers["x-request-id"] == "trace-42"
    # a malformed id is not echoed back (it would reach the logs)
    assert http.get("/healthz", headers={"X-Request-ID": "bad id\twith tab"}).headers["x-request-id"] != "bad id"


def test_every_request_is_logged_with_its_id(http: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="mnemir.server"):
        r = http.get("/v1/types", headers={"X-Request-ID": "log-check-1"})
        mine: list[dict[str, Any]] = []
        for _ in range(200):  # the line is written once the response has gone out
            lines = [getattr(rec, "fields", {}) for rec in caplog.records if rec.name == "mnemir.server"]
            mine = [f for f in lines if f.get("request_id") == "log-check-1"]
            if mine:
                break
            time.sleep(0.01)
    assert r.status_code == 200 and mine and mine[0]["path"] == "/v1/types" and mine[0]["status"] == 200
    assert mine[0]["ms"] >= 0 and mine[0]["tenant"] == "local"


def test_types(http: Any) -> None:
    body = http.get("/v1/types").json()
    names = {t["name"] for t in body["types"]}
    assert {"Fact", "Task", "Preference", "Hypothesis"} <= names and body["version"]


def test_add_get_and_scope(http: Any) -> None:
    task = add(http, "帮我订下周五去上海的机票", "Task", {"status": "待办", "deadline": "2026-12-04"})
    assert task["properties"]["status"] == "pending" and task["scope"]["user_id"] == "alice"
    got = http.get(f"/v1/memories/{task['id']}", params={"user": "alice"})
    assert got.status_code == 200 and got.json()["content"]["text"] == "帮我订下周五去上海的机票"
    missing = problem_of(http.get(f"/v1/memories/{task['id']}", params={"user": "bob"}), 404)
    assert missing["type"] == "urn:mnemir:problem:not_found" and missing["id"] == task["id"]


def test_bad_input_names_field_value_and_what_is_allowed(http: Any) -> None:
    body = problem_of(http.post("/v1/memories", json={"text": "x", "type": "Nope", "user": "alice"}), 422)
    assert body["field"] == "type" and "Nope" in body["value"] and "Fact" in body["allowed"]
    body = problem_of(http.post("/v1/memories", json={"text": "x", "type": "Task", "user": "alice",
                                                     "properties": {"status": "sleeping"}}), 422)
    assert "status" in body["field"] and "sleeping" in body["value"] and "pending" in json.dumps(body["allowed"])
    body = problem_of(http.post("/v1/memories", json={"text": "x", "type": "Fact", "colour": "red"}), 422)
    assert body["field"] == "colour" and body["value"] == "red" and "no such field" in body["allowed"]
    body = problem_of(http.post("/v1/search", json={"query": "x", "k": 0}), 422)
    assert body["field"] == "k" and body["value"] == 0 and body["allowed"] == ">= 1"
    body = problem_of(http.post("/v1/memories", json={"type": "Fact"}), 422)
    assert body["field"] == "text" and body["allowed"] == "required"
    body = problem_of(http.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"}),
                      422)
    assert body["type"] == "urn:mnemir:problem:validation_error"
    body = problem_of(http.post("/v1/memories", json={"text": "x", "type": "Fact", "user": "alice",
                                                     "now": "2026-11-29T10:00:00"}), 422)
    assert body["field"] == "now"  # a naive clock is refused by the facade, named
    body = problem_of(http.get("/v1/memories", params={"where": "{oops", "user": "alice"}), 422)
    assert body["field"] == "where"


def test_size_and_depth_limits(http: Any) -> None:
    big = json.dumps({"text": "x" * (1 << 20), "type": "Fact"}).encode()
    body = problem_of(http.post("/v1/memories", content=big, headers={"content-type": "application/json"}), 413)
    assert body["field"] == "body" and "bytes" in body["allowed"]
    deep: Any = {"leaf": 1}
    for _ in range(40):
        deep = {"x": deep}
    body = problem_of(http.post("/v1/memories", json={"text": "x", "type": "Fact", "properties": deep}), 422)
    assert body["type"] == "urn:mnemir:problem:too_deep" and body["value"] == "depth 42"
    nested = "[" * 100_000 + "]" * 100_000  # deeper than the JSON parser's recursion: still a clean 422
    body = problem_of(http.post("/v1/search", content=nested.encode(), headers={"content-type": "application/json"}),
                      422)
    assert body["type"] == "urn:mnemir:problem:too_deep"
    long_text = problem_of(http.post("/v1/memories", json={"text": "x" * 16_001, "type": "Fact"}), 422)
    assert long_text["field"] == "text"
    # NUL is refused by the stores, and the schema says so, so a client generated from it never sends one
    nul = problem_of(http.post("/v1/memories", json={"text": "a\u0000b", "type": "Fact"}), 422)
    assert nul["field"] == "text" and "NUL" in nul["detail"]
    text_schema = http.get("/openapi.json").json()["components"]["schemas"]["AddBody"]["properties"]["text"]
    assert {"pattern": r"^[^\x00]*$"} in text_schema["allOf"]
    assert http.get("/healthz").status_code == 200  # the server is still up


def test_unknown_routes_and_methods_are_problems(http: Any) -> None:
    assert problem_of(http.get("/v1/nothing-here"), 404)["type"] == "urn:mnemir:problem:not_found"
    assert problem_of(http.put("/v1/search", json={}), 405)["type"] == "urn:mnemir:problem:method_not_allowed"


def test_list_paginates_without_gaps_or_repeats(http: Any) -> None:
    made = [add(http, f"note number {i}", "Fact", {"entity": f"thing{i}", "attribute": "colour", "value": "red"},
                user="pager", now=(NOW + i * timedelta(minutes=1)).isoformat())["id"] for i in range(7)]
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = http.get("/v1/memories", params={"user": "pager", "limit": 3, "offset": offset}).json()
        assert len(page["items"]) <= 3
        seen += [m["id"] for m in page["items"]]
        offset = page["next_offset"]
    assert seen == list(reversed(made))  # newest first, each once
    typed = http.get("/v1/memories", params={"user": "alice", "type": "Task"}).json()["items"]
    assert typed and {m["type"] for m in typed} == {"Task"}
    filtered = http.get("/v1/memories", params={"user": "pager", "where": json.dumps({"entity": "thing3"})}).json()
    assert [m["id"] for m in filtered["items"]] == [made[3]]
    everyone = http.get("/v1/memories", params={"all_users": "true", "limit": 200}).json()["items"]
    assert {"alice", "pager"} <= {m["scope"]["user_id"] for m in everyone}
    assert problem_of(http.get("/v1/memories", params={"limit": 201}), 422)["field"] == "limit"


def test_update_history_and_delete(http: Any) -> None:
    pref = add(http, "I like green tea", "Preference", {"subject": "green tea", "preference_type": "like"})
    r = http.patch(f"/v1/memories/{pref['id']}", json={"user": "alice", "properties": {"strength": 0.9},
                                                      "reason": "said twice", "now": (NOW + DAY).isoformat()})
    assert r.status_code == 200 and r.json()["properties"]["strength"] == 0.9
    history = http.get(f"/v1/memories/{pref['id']}/history", params={"user": "alice"}).json()
    assert [h["action"] for h in history] == ["created", "updated"] and history[1]["reason"] == "said twice"
    assert history[1]["actor"] == "http"
    bad = problem_of(http.patch(f"/v1/memories/{pref['id']}", json={"user": "alice", "status": "gone"}), 422)
    assert bad["field"] == "status" and "archived" in bad["allowed"]
    assert http.delete(f"/v1/memories/{pref['id']}", params={"user": "alice"}).status_code == 204
    problem_of(http.get(f"/v1/memories/{pref['id']}", params={"user": "alice"}), 404)
    kept = http.get(f"/v1/memories/{pref['id']}", params={"user": "alice", "include_deleted": "true"}).json()
    assert kept["status"] == "deleted"
    assert http.delete(f"/v1/memories/{pref['id']}", params={"user": "alice", "hard": "true"}).status_code == 204
    problem_of(http.get(f"/v1/memories/{pref['id']}", params={"user": "alice", "include_deleted": "true"}), 404)


def test_remember_and_ingest(http: Any) -> None:
    r = http.post("/v1/remember", json={"text": "我对花生过敏，但特别喜欢吃川菜", "user": "carol", "now": T})
    assert r.status_code == 200
    created = r.json()["created"]
    assert {m["type"] for m in created} >= {"Fact", "Preference"}
    assert all(m["scope"]["user_id"] == "carol" for m in created) and r.json()["extractions"]
    r = http.post("/v1/ingest", json={"user": "carol", "session": "s1", "now": T, "turns": [
        {"speaker": "user", "text": "Please renew my passport before January"},
        {"speaker": "assistant", "text": "Sure, I'll remind you."},
        {"text": "I'm really tense about the pitch on Friday"}]})
    assert r.status_code == 200
    types = [m["type"] for m in r.json()["created"]]
    assert "Task" in types and "EmotionalState" in types
    assert problem_of(http.post("/v1/remember", json={"text": "hi", "speaker": "robot"}), 422)["field"] == "speaker"
    assert problem_of(http.post("/v1/ingest", json={"turns": [{"text": "x"}] * 501}), 422)["field"] == "turns"


def test_search_with_filters_and_reasons(http: Any) -> None:
    add(http, "上海今天晴，25摄氏度", "Fact", {"entity": "上海", "attribute": "weather", "value": "晴 25°C",
                                         "source": "external"}, user="dave")
    add(http, "帮我订去上海的机票", "Task", {"status": "pending"}, user="dave")
    r = http.post("/v1/search", json={"query": "上海天气怎么样", "types": ["Fact"], "where": {"attribute": "weather"},
                                      "user": "dave", "k": 3})
    hits = r.json()["hits"]
    assert r.status_code == 200 and hits[0]["memory"]["properties"]["attribute"] == "weather"
    assert all(h["memory"]["type"] == "Fact" for h in hits) and any("type in" in x for x in hits[0]["reasons"])
    bad = problem_of(http.post("/v1/search", json={"query": "x", "where": {"colour": "red"}, "types": ["Task"]}), 422)
    assert "colour" in json.dumps(bad)


def test_intent_and_recall_with_rendered_context(http: Any) -> None:
    add(http, "上海今天晴，25摄氏度", "Fact", {"entity": "上海", "attribute": "weather", "value": "晴 25°C",
                                         "source": "external"}, user="erin")
    task = add(http, "帮我订下周五去上海的机票", "Task", {"status": "pending"}, user="erin")
    intent = http.post("/v1/intent", json={"query": "上海天气怎么样", "now": T}).json()
    assert "Fact" in intent["types"] and intent["kind"]
    r = http.post("/v1/recall", json={"query": "上海天气怎么样", "user": "erin", "k": 3, "now": T})
    body = r.json()
    assert r.status_code == 200 and body["hits"][0]["memory"]["type"] == "Fact"
    assert task["id"] not in [h["memory"]["id"] for h in body["hits"]]
    assert body["hits"][0]["role"] and body["hits"][0]["reasons"] and body["intent"]["types"]
    assert "上海今天晴" in body["prompt"] and body["context"]["sections"]
    forced = http.post("/v1/recall", json={"query": "上海天气怎么样", "user": "erin", "now": T,
                                           "intent": {"types": ["Task"], "where": None}}).json()
    assert forced["intent"]["types"] == ["Task"] and "overridden" in " ".join(forced["intent"]["reasons"])
    full = body["prompt"]
    short = http.post("/v1/recall", json={"query": "上海天气怎么样", "user": "erin", "now": T,
                                          "max_chars": len(full) - 1}).json()
    assert len(short["prompt"]) < len(full)
    tiny = problem_of(http.post("/v1/recall", json={"query": "上海天气怎么样", "user": "erin", "max_chars": 20}), 422)
    assert tiny["field"] == "max_chars"
    assert problem_of(http.post("/v1/recall", json={"query": "  ", "user": "erin"}), 422)["field"] == "query"


def test_as_of_sees_what_was_true_then(http: Any) -> None:
    then = NOW - 300 * DAY
    old = add(http, "我住在北京", "Fact", {"entity": "user", "attribute": "home_city", "value": "北京",
                                        "source": "user"}, user="frank", now=then.isoformat())
    new = add(http, "我搬到上海了", "Fact", {"entity": "user", "attribute": "home_city", "value": "上海",
                                          "source": "user"}, user="frank")
    past = http.post("/v1/as-of", json={"when": (then + 30 * DAY).isoformat(), "query": "我住在哪里",
                                        "types": ["Fact"], "user": "frank"}).json()["hits"]
    assert [h["memory"]["id"] for h in past] == [old["id"]]
    present = http.post("/v1/search", json={"query": "我住在哪里", "types": ["Fact"], "user": "frank"}).json()["hits"]
    assert [h["memory"]["id"] for h in present] == [new["id"]]


def test_update_task_moves_through_its_states(http: Any) -> None:
    task = add(http, "Submit the expense report", "Task", {"status": "pending"}, user="gina")
    r = http.post(f"/v1/tasks/{task['id']}/status", json={"status": "completed", "user": "gina", "now": T})
    assert r.status_code == 200 and r.json()["memory"]["properties"]["status"] == "completed"
    assert r.json()["report"]["events"]
    bad = problem_of(http.post(f"/v1/tasks/{task['id']}/status", json={"status": "dreaming", "user": "gina"}), 422)
    assert bad["field"] == "status" and "pending" in json.dumps(bad["allowed"])
    fact = add(http, "Gina likes jazz", "Fact", {"entity": "Gina", "attribute": "likes", "value": "jazz"},
               user="gina")
    not_task = http.post(f"/v1/tasks/{fact['id']}/status", json={"status": "completed", "user": "gina"})
    assert not_task.status_code in (409, 422) and not_task.headers["content-type"].startswith(PROBLEM)


def _dispute(http: Any, user: str) -> tuple[dict[str, Any], dict[str, Any]]:
    said = add(http, "My birthday is May 1", "Fact", {"entity": "user", "attribute": "birthday", "value": "May 1",
                                                      "source": "user", "confidence": 0.9}, user=user)
    guess = add(http, "The user's birthday is probably June 2", "Fact",
                {"entity": "user", "attribute": "birthday", "value": "June 2", "source": "assistant",
                 "confidence": 0.5}, user=user, now=(NOW + DAY).isoformat())
    assert guess["status"] == "disputed"
    return said, guess


def test_conflicts_and_their_resolution(http: Any) -> None:
    said, guess = _dispute(http, "hank")
    [conflict] = http.get("/v1/conflicts", params={"user": "hank"}).json()["conflicts"]
    assert {conflict["a"]["id"], conflict["b"]["id"]} == {said["id"], guess["id"]} and conflict["rule"]
    bad = problem_of(http.post("/v1/conflicts/resolve", json={"keep_id": said["id"], "drop_id": said["id"],
                                                              "user": "hank"}), 422)
    assert bad["field"] == "drop_id"
    r = http.post("/v1/conflicts/resolve", json={"keep_id": said["id"], "drop_id": guess["id"], "user": "hank",
                                                 "reason": "the user confirmed", "now": (NOW + 2 * DAY).isoformat()})
    assert r.status_code == 200 and r.json()["status"] == "active"
    assert http.get("/v1/conflicts", params={"user": "hank"}).json()["conflicts"] == []
    dropped = http.get(f"/v1/memories/{guess['id']}", params={"user": "hank", "include_deleted": "true"}).json()
    assert dropped["status"] == "superseded"


def test_maintain(http: Any) -> None:
    add(http, "Old chatter", "DialogueAct", {"act_type": "greeting"}, user="ivan", now=(NOW - 400 * DAY).isoformat())
    dry = http.post("/v1/maintain", json={"now": T, "dry_run": True, "user": "ivan"}).json()
    assert dry["dry_run"] is True and dry["scanned"] >= 1
    done = http.post("/v1/maintain", json={"now": T}).json()
    assert done["dry_run"] is False and "counts" in done
    again = http.post("/v1/maintain", json={"now": T}).json()
    assert again["changed"] == 0  # idempotent


def test_a_clock_at_the_start_of_the_calendar_is_served(http: Any) -> None:
    # a look-back window from it reaches before year 1: it holds everything since then instead of failing
    first = "0001-01-01T00:08:06Z"
    assert http.post("/v1/recall", json={"query": "what do I have on", "user": "zoe", "now": first}).status_code == 200
    assert http.post("/v1/maintain", json={"now": first, "user": "zoe"}).status_code == 200


def test_blank_means_the_same_white_space_to_the_schema_and_the_server(http: Any) -> None:
    for blank in ("\u0085", "\u3000 ", "\x1c"):
        assert problem_of(http.get("/v1/export", params={"user": blank}), 422)["field"] == "user"
    assert http.get("/v1/export", params={"user": "\ufeff"}).status_code == 200  # no white space to Python
    # the schema spells the class out: "\\s" means other characters to JSON Schema's regexes (ECMA-262)
    pattern = http.get("/openapi.json").json()["components"]["schemas"]["AddBody"]["properties"]["text"]["pattern"]
    assert "\\s" not in pattern
    blank = [chr(c) for c in range(0x3001) if chr(c).isspace()]
    assert not any(re.fullmatch(pattern, c) for c in blank) and re.fullmatch(pattern, "\ufeff")


def test_review_queue_decisions_go_through_the_lifecycle(http: Any) -> None:
    said, guess = _dispute(http, "judy")
    hyp = add(http, "Judy may be vegetarian", "Hypothesis", {"entity": "Judy", "attribute": "diet",
                                                             "value": "vegetarian", "confidence": 0.3}, user="judy")
    low = add(http, "Judy might live in Lyon", "Fact", {"entity": "Judy", "attribute": "city", "value": "Lyon",
                                                        "confidence": 0.4}, user="judy")
    sure = add(http, "Judy works at a bakery", "Fact", {"entity": "Judy", "attribute": "job", "value": "baker",
                                                        "confidence": 0.95}, user="judy")
    queue = http.get("/v1/review", params={"user": "judy"}).json()
    assert [c["rule"] for c in queue["conflicts"]]
    assert [h["id"] for h in queue["hypotheses"]] == [hyp["id"]]
    low_ids = [m["id"] for m in queue["low_confidence"]]
    assert low["id"] in low_ids and sure["id"] not in low_ids and guess["id"] not in low_ids
    promoted = http.post(f"/v1/review/{hyp['id']}", json={"decision": "confirm", "user": "judy"}).json()
    assert promoted["action"] == "confirm_hypothesis" and promoted["memory"]["type"] == "Fact"
    confirmed = http.post(f"/v1/review/{low['id']}", json={"decision": "confirm", "user": "judy"}).json()
    assert confirmed["memory"]["properties"]["confidence"] >= 0.9
    kept = http.post(f"/v1/review/{guess['id']}", json={"decision": "reject", "user": "judy"}).json()
    assert kept["action"] == "resolve_conflict" and kept["kept"]["id"] == said["id"]
    after = http.get("/v1/review", params={"user": "judy"}).json()
    assert after["conflicts"] == [] and after["hypotheses"] == [] and after["low_confidence"] == []
    bad = problem_of(http.post(f"/v1/review/{sure['id']}", json={"decision": "maybe", "user": "judy"}), 422)
    assert bad["field"] == "decision"
    history = http.get(f"/v1/memories/{low['id']}/history", params={"user": "judy"}).json()
    assert history[-1]["actor"] == "review"


def test_confirmations(http: Any) -> None:
    for text in ("Send the report to Anna", "Send the report to Ben"):
        add(http, text, "Task", {"status": "pending", "goal": text.lower()}, user="kim")
    r = http.post("/v1/remember", json={"text": "I sent the report", "user": "kim", "now": T}).json()
    listed = http.get("/v1/confirmations").json()["confirmations"]
    # two open tasks match about as well: nothing is guessed, the server keeps the question until it is answered
    assert r["updated"] == [] and len(r["confirmations"]) == 1
    cid = r["confirmations"][0]["id"]
    assert cid in [c["id"] for c in listed]
    choice = r["confirmations"][0]["candidates"][0]["id"]
    answered = http.post(f"/v1/confirmations/{cid}", json={"choice": choice}).json()
    assert answered["memory"]["id"] == choice and answered["memory"]["properties"]["status"] == "completed"
    assert cid not in [c["id"] for c in http.get("/v1/confirmations").json()["confirmations"]]
    problem_of(http.post("/v1/confirmations/cfm_nothere", json={"choice": None}), 404)


def test_export_and_import_round_trip(http: Any) -> None:
    a = add(http, "Leo's sister is called Mia", "Fact", {"entity": "Leo", "attribute": "sister", "value": "Mia"},
            user="leo")
    b = add(http, "Leo prefers window seats", "Preference", {"subject": "window seat", "preference_type": "like"},
            user="leo")
    r = http.get("/v1/export", params={"user": "leo"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["records"] == 2
    assert {x["id"] for x in lines if "content" in x} == {a["id"], b["id"]}
    assert http.delete(f"/v1/memories/{a['id']}", params={"user": "leo", "hard": "true"}).status_code == 204
    clash = problem_of(http.post("/v1/import", params={"on_conflict": "error"}, content=r.content,
                                 headers={"content-type": "application/x-ndjson"}), 409)
    assert b["id"] in clash["ids"]
    skipped = http.post("/v1/import", params={"on_conflict": "skip"}, content=r.content, headers=JSONL)
    assert skipped.json() == {"imported": 1}
    assert http.get(f"/v1/memories/{a['id']}", params={"user": "leo"}).json()["content"]["text"] == a["content"][
        "text"]
    bad = problem_of(http.post("/v1/import", content=b'{"memir_version": "1.0", "id": "x", "type": "Nope", '
                                                     b'"content": {"text": "t"}}\n', headers=JSONL), 422)
    assert bad["field"] == "type"
    assert problem_of(http.post("/v1/import", content=b"\xff\xfe", headers=JSONL), 422)["field"] == "body"
    assert problem_of(http.post("/v1/import", params={"on_conflict": "merge"}, content=b"", headers=JSONL), 422)[
        "field"] == "on_conflict"
    plain = problem_of(http.post("/v1/import", content=r.content, headers={"content-type": "text/plain"}), 415)
    assert plain["field"] == "Content-Type" and "application/x-ndjson" in plain["allowed"]


def test_only_localhost_and_same_origin_writes_without_keys(server: Running, http: Any) -> None:
    rebound = problem_of(http.get("/v1/types", headers={"Host": "evil.example:8765"}), 403)
    assert rebound["field"] == "Host" and "localhost" in rebound["allowed"]
    assert http.get("/v1/types", headers={"Host": f"localhost:{server.port}"}).status_code == 200
    foreign = problem_of(http.post("/v1/search", json={"query": "x"}, headers={"Origin": "http://evil.example"}), 403)
    assert foreign["field"] == "Origin"
    same = http.post("/v1/search", json={"query": "x"}, headers={"Origin": server.url})
    assert same.status_code == 200


def test_concurrent_writes_and_reads_on_one_store(server: Running) -> None:
    import threading

    results: list[tuple[str, int, str | None]] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        with server.client() as c:
            for i in range(4):
                w = c.post("/v1/remember", json={"text": f"I like {['tea', 'jazz', 'chess', 'rain'][i]} {n}",
                                                 "user": f"con{n % 2}", "now": T})
                r = c.post("/v1/search", json={"query": "like", "user": f"con{n % 2}"})
                created = [m["id"] for m in w.json()["created"]] if w.status_code == 200 else []
                with lock:
                    results.append(("remember", w.status_code, created[0] if created else None))
                    results.append(("search", r.status_code, None))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {code for _, code, _ in results} == {200}
    written = [mid for kind, _, mid in results if kind == "remember" and mid]
    with server.client() as c:
        for mid in written:
            got = c.get(f"/v1/memories/{mid}", params={"user": "con0", "include_deleted": "true"})
            other = c.get(f"/v1/memories/{mid}", params={"user": "con1", "include_deleted": "true"})
            assert 200 in (got.status_code, other.status_code), mid


def test_unsure_extractions_wait_in_review_until_confirmed(http: Any) -> None:
    said = http.post("/v1/remember", json={"text": "周末那件事到时候看情况", "user": "uma", "now": T}).json()
    [unsure] = said["created"]
    assert unsure["metadata"]["extra"]["extraction"]["confidence"] < 0.6
    sure = http.post("/v1/remember", json={"text": "帮我下周五之前把报销单交了", "user": "uma", "now": T}).json()
    queue = http.get("/v1/review", params={"user": "uma"}).json()["low_confidence"]
    assert [m["id"] for m in queue] == [unsure["id"]] and sure["created"][0]["id"] not in json.dumps(queue)
    done = http.post(f"/v1/review/{unsure['id']}", json={"decision": "confirm", "user": "uma"}).json()
    assert done["action"] == "update"
    assert http.get("/v1/review", params={"user": "uma"}).json()["low_confidence"] == []
    history = http.get(f"/v1/memories/{unsure['id']}/history", params={"user": "uma"}).json()
    assert history[-1]["reason"].startswith("confirmed in review") and history[-1]["actor"] == "review"


def test_responses_match_the_documented_models(http: Any) -> None:
    from mnemir.ir import MemIR
    from mnemir.server.api import Hits, MemoryPage, ProblemDetails, Recalled, Remembered, Written

    made = http.post("/v1/memories", json={"text": "Vera collects stamps", "type": "Fact", "user": "vera",
                                           "properties": {"entity": "Vera", "attribute": "hobby", "value": "stamps"},
                                           "now": T})
    written = Written.model_validate(made.json())
    MemIR.model_validate(http.get(f"/v1/memories/{written.memory.id}", params={"user": "vera"}).json())
    page = MemoryPage.model_validate(http.get("/v1/memories", params={"user": "vera"}).json())
    assert [m.id for m in page.items] == [written.memory.id]
    Hits.model_validate(http.post("/v1/search", json={"query": "stamps", "user": "vera"}).json())
    recalled = Recalled.model_validate(http.post("/v1/recall", json={"query": "What does Vera collect?",
                                                                     "user": "vera", "now": T}).json())
    assert recalled.hits and recalled.prompt
    Remembered.model_validate(http.post("/v1/remember", json={"text": "Vera hates rain", "user": "vera",
                                                              "now": T}).json())
    ProblemDetails.model_validate(http.get("/v1/memories/nothing", params={"user": "vera"}).json())


def test_no_page_loads_anything_from_the_network(http: Any) -> None:
    assert http.get("/docs").status_code == 404 and http.get("/redoc").status_code == 404  # CDN-backed pages
    for path in ("/ui/browse", "/ui/recall?q=hello", "/ui/review", "/static/style.css"):
        text = http.get(path).text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, path


def test_concurrent_adds_each_get_their_own_report(server: Running) -> None:
    """Sixteen clients at once, each moving its own user's home city: every response reports the superseding of
    that user's own earlier fact (and of nobody else's); the adds go through the store's group commit, where calls
    arriving together share a transaction (no tenant lock serialises them first)."""
    import threading

    users = [f"mover{n}" for n in range(16)]
    with server.client() as client:
        first = {u: add(client, f"{u} lives in Porto", "Fact",
                        {"entity": u, "attribute": "home city", "value": "Porto"}, user=u)["id"] for u in users}
    [tenant] = server.app.state.tenants.opened()
    group = tenant.memory._add_group()
    assert group is not None  # HTTP adds go through the store's group commit
    before = group.calls
    reports: dict[str, Any] = {}
    start = threading.Barrier(len(users))

    def move(user: str) -> None:
        with server.client() as client:
            start.wait()
            r = client.post("/v1/memories", json={"text": f"{user} lives in Braga", "type": "Fact", "user": user,
                                                  "properties": {"entity": user, "attribute": "home city",
                                                                 "value": "Braga"},
                                                  "now": (NOW + DAY).isoformat()})
            assert r.status_code == 201, r.text
            reports[user] = r.json()["report"]

    threads = [threading.Thread(target=move, args=(u,)) for u in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for user in users:
        superseded = [e["other_id"] for e in reports[user]["events"] if e["kind"] == "superseded"]
        assert superseded == [first[user]], (user, reports[user])
    assert group.calls - before == len(users)
