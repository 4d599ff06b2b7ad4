"""The web memory browser in a real headless Chromium (Debian's ``chromium``, driven by Playwright): browse, a
memory page, recall and the review queue are clicked through; screenshots of each view go to
``tests/artifacts/browser/`` (or ``$MNEMIR_ARTIFACTS``) and each test checks what is on the page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NOW
from tests.server.conftest import Running, local_app, running

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is absent (apt-get install -y chromium fonts-wqy-microhei)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

SHOTS = Path(os.environ.get("MNEMIR_ARTIFACTS", Path(__file__).resolve().parents[1] / "artifacts")) / "browser"
DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[Running]:
    with running(local_app(tmp_path_factory.mktemp("web"), embedder)) as srv, srv.client() as c:
        seed(c)
        yield srv


def seed(c: Any) -> None:
    from mnemir.cli.demo import load_sample

    def add(text: str, type_: str, props: dict[str, Any], user: str, when: Any = NOW, **extra: Any) -> str:
        r = c.post("/v1/memories", json={"text": text, "type": type_, "properties": props, "user": user,
                                         "now": when.isoformat(), **extra})
        assert r.status_code == 201, r.text
        return str(r.json()["memory"]["id"])

    sample = load_sample()
    for item in sample["memories"]:
        add(item["text"], item["type"], item["props"], sample["user"], NOW - item["days_ago"] * DAY)
    trip = add("准备去东京出差", "Task", {"status": "pending", "goal": "东京出差"}, "alice", NOW - DAY)
    add("订东京的酒店", "Plan", {"order": 1}, "alice", NOW - DAY, relationships=[{"target": trip,
                                                                              "relation": "subtask_of"}])
    add("My birthday is May 1", "Fact", {"entity": "user", "attribute": "birthday", "value": "May 1",
                                         "source": "user", "confidence": 0.9}, "judy")
    add("The user's birthday is probably June 2", "Fact", {"entity": "user", "attribute": "birthday",
                                                           "value": "June 2", "source": "assistant",
                                                           "confidence": 0.5}, "judy", NOW + DAY)
    add("Judy 可能是素食者", "Hypothesis", {"entity": "Judy", "attribute": "diet", "value": "素食",
                                       "confidence": 0.3}, "judy")
    add("Judy might live in Lyon", "Fact", {"entity": "Judy", "attribute": "city", "value": "Lyon",
                                            "confidence": 0.4}, "judy")
    for text in ("Send the report to Anna", "Send the report to Ben"):
        add(text, "Task", {"status": "pending"}, "judy")
    asked = c.post("/v1/remember", json={"text": "I sent the report", "user": "judy", "now": NOW.isoformat()})
    assert asked.json()["confirmations"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: Running) -> Iterator[Any]:
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900}, locale="zh-CN")
    pg = context.new_page()
    outside: list[str] = []
    pg.on("request", lambda req: outside.append(req.url) if not req.url.startswith(server.url) else None)
    yield pg
    context.close()
    assert outside == []  # nothing is fetched from anywhere but the server (no CDN, no network)


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_browse_filters_and_timeline(page: Any) -> None:
    page.goto("/ui/browse")
    rows = page.locator("tr.memory-row")
    assert rows.count() >= 15
    assert "上海今天晴，25摄氏度" in page.locator("#memories").inner_text()
    shot(page, "browse")
    page.select_option("#f-user", "alice")
    page.select_option("#f-type", "Task")
    page.click("#apply")
    page.wait_for_url("**/ui/browse?*type=Task*")
    types = page.locator("tr.memory-row td:nth-child(3)").all_inner_texts()
    users = page.locator("tr.memory-row td:nth-child(2)").all_inner_texts()
    assert types and set(types) == {"Task"} and set(users) == {"alice"}
    # the timeline: one bar per day; clicking the busiest day shows that day's memories only
    bars = page.locator("#timeline rect[data-n]")
    counts = [int(b.get_attribute("data-n")) for b in bars.all()]
    assert sum(counts) == len(types)
    busiest = max(range(len(counts)), key=lambda i: counts[i])
    day = bars.nth(busiest).get_attribute("data-day")
    bars.nth(busiest).click()
    page.wait_for_url(f"**day={day}*")
    dated = page.locator("tr.memory-row td:nth-child(1)").all_inner_texts()
    assert len(dated) == counts[busiest] and all(d.startswith(day) for d in dated)
    shot(page, "browse-filtered")


def test_memory_page_shows_properties_provenance_history_and_graph(page: Any) -> None:
    page.goto("/ui/browse?user=alice&type=Plan")
    page.click("text=订东京的酒店")
    page.wait_for_url("**/ui/memory/*")
    assert page.locator("#memory-text").inner_text() == "订东京的酒店"
    props = page.locator("#properties").inner_text()
    assert "order" in props and "alice" in props
    assert "http" in page.locator("#provenance").inner_text()  # made by the HTTP API
    assert "created" in page.locator("#history").inner_text()
    graph = page.locator("#graph")
    assert graph.count() == 1 and "subtask_of" in graph.text_content() and "Task" in graph.text_content()
    shot(page, "memory")
    page.click("#links a")  # walk the relationship to the task
    page.wait_for_url("**/ui/memory/*")
    assert page.locator("#memory-text").inner_text() == "准备去东京出差"
    assert "subtask_of" in page.locator("#links").inner_text()


def test_recall_shows_intent_hits_and_the_rendered_context(page: Any) -> None:
    page.goto("/ui/recall")
    page.fill("#q", "上海天气怎么样")
    page.fill("#user", "alice")
    page.click("#ask")
    page.wait_for_selector("#intent")
    assert "Fact" in page.locator("#intent-types").inner_text()
    first = page.locator(".hit").first
    assert "上海今天晴" in first.inner_text() and first.locator(".role").inner_text()
    assert float(first.locator(".score").inner_text()) > 0 and first.locator(".reasons").inner_text()
    context = page.locator("#context").inner_text()
    assert "上海今天晴" in context and "帮我订下周五去上海的机票" not in page.locator(".hit").first.inner_text()
    # Chinese is drawn with a real glyph, not the missing-glyph box
    drawn = page.evaluate("""() => {
        const c = document.createElement('canvas'); c.width = 40; c.height = 40;
        const g = c.getContext('2d'); const font = getComputedStyle(document.body).fontFamily;
        const draw = (ch) => { g.clearRect(0, 0, 40, 40); g.font = '32px ' + font; g.fillText(ch, 2, 32);
                               return Array.from(g.getImageData(0, 0, 40, 40).data).join(','); };
        return [draw('上'), draw('海'), draw('\\u{10FFFD}')]; }""")
    assert drawn[0] != drawn[2] and drawn[1] != drawn[2] and drawn[0] != drawn[1]
    shot(page, "recall")


def test_review_queue_confirm_reject_and_answer(page: Any) -> None:
    page.goto("/ui/review?user=judy")
    assert page.locator(".conflict").count() == 1
    assert "Judy 可能是素食者" in page.locator(".hypothesis").inner_text()
    assert "Lyon" in page.locator(".low").inner_text()
    assert "Which task" in page.locator(".pending").inner_text()
    shot(page, "review")
    page.click(".hypothesis button.confirm")
    page.wait_for_selector("#done")
    assert "confirm_hypothesis" in page.locator("#done").inner_text() and page.locator(".hypothesis").count() == 0
    guess = page.locator(".conflict div[data-id]", has_text="June 2")
    guess.locator("button.reject").click()
    page.wait_for_selector("#done")
    assert "resolve_conflict" in page.locator("#done").inner_text() and page.locator(".conflict").count() == 0
    page.click(".low button.reject")
    page.wait_for_selector("#done")
    assert "delete" in page.locator("#done").inner_text() and page.locator(".low").count() == 0
    page.click(".pending button.choose >> nth=0")
    page.wait_for_selector("#done")
    assert page.locator(".pending").count() == 0
    shot(page, "review-done")
    # the choices went through the lifecycle: the hypothesis became a Fact, the guess is superseded
    page.goto("/ui/browse?user=judy&status=superseded")
    assert "June 2" in page.locator("#memories").inner_text()


def test_with_keys_a_person_signs_in_and_sees_only_their_tenant(browser: Any, tmp_path: Path,
                                                                 embedder: Any) -> None:
    from tests.server.conftest import tenant_app

    from mnemir.server import KeyStore

    keys = KeyStore(tmp_path / "keys.db")
    key_a, _ = keys.create("acme")
    key_b, _ = keys.create("globex")
    with running(tenant_app(tmp_path, embedder, keys)) as srv:
        for key, text in ((key_a, "Acme 的发布日期是三月"), (key_b, "Globex ships in June")):
            with srv.client(key) as c:
                c.post("/v1/memories", json={"text": text, "type": "Fact", "user": "pat", "now": NOW.isoformat(),
                                             "properties": {"entity": "launch", "attribute": "date", "value": "x"}
                                             }).raise_for_status()
        context = browser.new_context(base_url=srv.url)
        page = context.new_page()
        page.goto("/ui/browse")
        page.wait_for_url("**/ui/login*")  # no key yet: the sign-in page
        page.fill("input[name=key]", "mnr_wrong_key")
        page.click("button[type=submit]")
        assert "unknown or revoked key" in page.locator("#error").inner_text()
        page.fill("input[name=key]", key_a)
        page.click("button[type=submit]")
        page.wait_for_url("**/ui/browse")
        table = page.locator("#memories").inner_text()
        assert "Acme 的发布日期是三月" in table and "Globex" not in table
        assert page.locator("#tenant").inner_text() == "acme"
        shot(page, "signed-in")
        page.click("text=sign out")
        page.wait_for_url("**/ui/login*")
        page.goto("/ui/browse")
        page.wait_for_url("**/ui/login*")  # the cookie is gone
        context.close()
