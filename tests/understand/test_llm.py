"""The optional LLM extractor against a local stub server that speaks the OpenAI chat-completions protocol."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import mnemir
from mnemir.errors import EndpointError, ValidationError
from mnemir.understand import Extractor
from mnemir.understand.llm import LLMExtractor


class Stub:
    """Answers queued replies in order; records every request body."""

    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []

    def reply(self) -> Any:
        return self.replies.pop(0) if self.replies else {"memories": [], "act": "other"}


def _content(answer: Any) -> bytes:
    content = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    return json.dumps({"id": "x", "object": "chat.completion",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).encode()


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "body": body})
            answer = state.reply()
            if isinstance(answer, int):
                self.send_response(answer)
                self.end_headers()
                return
            if isinstance(answer, float):
                time.sleep(answer)
                answer = {"memories": [], "act": "other"}
            data = _content(answer)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_valid_answer_becomes_validated_drafts(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append({"act": "request", "memories": [
        {"type": "Task", "text": "把报销单交了", "properties": {"goal": "交报销单", "status": "待办", "deadline": "2026-03-13"}},
        {"type": "Preference", "text": "喜欢川菜", "properties": {"subject": "川菜", "preference_type": "喜欢",
                                                                    "mood": "happy"}},
    ]})
    result = LLMExtractor(url, "stub-model").extract("帮我下周五之前把报销单交了，我喜欢川菜", now=wed)
    task, pref = result.drafts
    assert (task.type, task.properties["status"], task.properties["deadline"]) == ("Task", "pending", "2026-03-13")
    assert pref.properties["preference_type"] == "like"  # synonym normalised by the ontology
    assert "mood" not in pref.properties and any("dropped unknown" in r for r in pref.reasons)
    assert result.creator == "mnemir.understand.llm:stub-model"
    request = state.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["response_format"]["type"] == "json_schema"
    assert "2026-03-04" in request["body"]["messages"][1]["content"]  # NOW is given for relative dates


def test_an_invalid_answer_is_repaired_once(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies += ["sure! here are your memories: {oops", {"act": "inform", "memories": [
        {"type": "Fact", "text": "I live in Berlin", "properties": {"entity": "user", "attribute": "residence",
                                                                     "value": "Berlin"}}]}]
    result = LLMExtractor(url, "m").extract("I live in Berlin", now=wed)
    assert [d.type for d in result.drafts] == ["Fact"]
    assert len(state.requests) == 2
    assert "invalid" in state.requests[1]["body"]["messages"][-1]["content"]


def test_an_answer_still_invalid_after_repair_is_rejected_not_stored(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies += ["not json", {"memories": [{"type": "Gossip", "text": "x", "properties": {}}]}]
    result = LLMExtractor(url, "m").extract("I live in Berlin", now=wed)
    assert [d.type for d in result.drafts] == ["DialogueAct"]
    assert any("rejected" in n for n in result.notes)


def test_memories_that_fail_the_ontology_are_dropped_with_a_note(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append({"act": "inform", "memories": [
        {"type": "EmotionalState", "text": "so mad", "properties": {"emotion_type": "grumpy-ish"}},
        {"type": "TaskUpdate", "text": "done", "properties": {"status": "kinda"}},
        {"type": "Preference", "text": "likes tea", "properties": {"subject": "tea", "preference_type": "like"}},
    ]})
    result = LLMExtractor(url, "m").extract("so mad, done, I like tea", now=wed)
    assert [d.type for d in result.drafts] == ["Preference"]
    assert sum("rejected" in n for n in result.notes) == 2


def test_the_speaker_policy_applies_to_llm_output(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append({"act": "inform", "memories": [
        {"type": "Fact", "text": "user lives in Oslo", "properties": {"entity": "user", "attribute": "residence",
                                                                       "value": "Oslo", "source": "user"}},
        {"type": "Preference", "text": "loves jazz", "properties": {"subject": "jazz", "preference_type": "like"}},
    ]})
    result = LLMExtractor(url, "m").extract("You live in Oslo. I love jazz.", speaker="assistant", now=wed)
    # issue 15's provenance policy holds for an LLM's reading too: an assistant turn is no memory about the user
    assert [d.type for d in result.drafts] == ["DialogueAct"]
    assert any("speaker policy" in note for note in result.notes)


@pytest.mark.parametrize(("text", "replaces"), [
    ("Actually, I live in Oslo now", None),
    ("I live in Oslo, not Bergen", "Bergen"),
    ("其实我住在杭州，不是上海", "上海"),
])
def test_llm_and_offline_facts_are_corrections_by_the_same_rule(stub: tuple[Stub, str], extractor: Extractor,
                                                                 wed: datetime, text: str,
                                                                 replaces: str | None) -> None:
    state, url = stub
    state.replies.append({"act": "inform", "memories": [
        {"type": "Fact", "text": text, "properties": {"entity": "user", "attribute": "residence", "value": "x"}}]})
    [by_llm] = LLMExtractor(url, "m").extract(text, now=wed).drafts
    [offline] = extractor.extract(text, now=wed).drafts
    assert (by_llm.kind, by_llm.replaces) == (offline.kind, offline.replaces) == ("correction", replaces)


def test_a_fact_without_correction_wording_is_a_plain_memory(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append({"act": "inform", "memories": [
        {"type": "Fact", "text": "I cannot swim", "properties": {"entity": "user", "attribute": "general",
                                                                 "value": "cannot swim"}}]})
    [fact] = LLMExtractor(url, "m").extract("I cannot swim", now=wed).drafts
    assert (fact.kind, fact.replaces) == ("memory", None)


def test_http_errors_are_endpoint_errors(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append(500)
    with pytest.raises(EndpointError) as info:
        LLMExtractor(url, "m").extract("hello there, I live in Rome", now=wed)
    assert "HTTP 500" in str(info.value)
    assert info.value.context["url"].endswith("/chat/completions")


def test_a_slow_endpoint_hits_the_time_budget(stub: tuple[Stub, str], wed: datetime) -> None:
    state, url = stub
    state.replies.append(1.5)
    with pytest.raises(EndpointError, match="budget"):
        LLMExtractor(url, "m", timeout_s=0.3).extract("I live in Rome", now=wed)


def test_a_down_endpoint_is_a_clear_error() -> None:
    with pytest.raises(EndpointError, match="unreachable"):
        LLMExtractor("http://127.0.0.1:9/v1", "m", timeout_s=1).extract("I live in Rome")


def test_a_fallback_takes_over_when_the_endpoint_is_down(extractor: Extractor, wed: datetime) -> None:
    llm = LLMExtractor("http://127.0.0.1:9/v1", "m", timeout_s=1, fallback=extractor)
    result = llm.extract("帮我下周五之前把报销单交了", now=wed)
    assert [d.type for d in result.drafts] == ["Task"]
    assert any("offline extractor" in n for n in result.notes)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"base_url": "ftp://x"}, "base_url"), ({"timeout_s": 0}, "timeout_s"), ({"max_tokens": -1}, "max_tokens"),
    ({"timeout_s": "20"}, "timeout_s"), ({"timeout_s": float("nan")}, "timeout_s"), ({"timeout_s": True}, "timeout_s"),
    ({"max_tokens": 800.0}, "max_tokens"), ({"max_tokens": "800"}, "max_tokens"),
    ({"max_input_chars": 0}, "max_input_chars"), ({"max_input_chars": None}, "max_input_chars"),
    ({"max_repairs": -1}, "max_repairs"), ({"max_repairs": 1.5}, "max_repairs"),
])
def test_bad_configuration_is_rejected(kwargs: dict[str, Any], field: str) -> None:
    args = {"base_url": "http://localhost:1/v1", "model": "m", **kwargs}
    with pytest.raises(ValidationError) as info:
        LLMExtractor(**args)
    assert info.value.field == field
    assert info.value.value is kwargs[field]
    assert info.value.allowed
    assert field in str(info.value)


def test_budgets_at_their_limits_are_accepted() -> None:
    llm = LLMExtractor("http://localhost:1/v1", "m", timeout_s=1, max_tokens=1, max_input_chars=1, max_repairs=0)
    assert (llm.timeout_s, llm.max_tokens, llm.max_input_chars, llm.max_repairs) == (1.0, 1, 1, 0)


def test_input_over_budget_is_an_error(stub: tuple[Stub, str]) -> None:
    _, url = stub
    with pytest.raises(ValidationError, match="budget"):
        LLMExtractor(url, "m", max_input_chars=10).extract("this is a much longer utterance than ten characters")


def test_the_facade_can_use_the_llm_extractor(stub: tuple[Stub, str], mem: mnemir.Memory, wed: datetime) -> None:
    state, url = stub
    state.replies.append({"act": "inform", "memories": [
        {"type": "Fact", "text": "I'm allergic to penicillin", "properties": {"entity": "user", "attribute": "allergy",
                                                                             "value": "penicillin"}}]})
    mem.use_extractor(LLMExtractor(url, "stub-model"))
    [fact] = mem.remember("I'm allergic to penicillin", user="zoe", now=wed)
    assert fact.metadata.source.creator == "mnemir.understand.llm:stub-model"
    assert fact.properties["value"] == "penicillin"
