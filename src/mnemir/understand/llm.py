"""Optional extractor that asks an OpenAI-compatible chat endpoint (Ollama, vLLM, llama.cpp, a hosted API).

Used only when configured (``mem.use_extractor(LLMExtractor(base_url=..., model=...))``); nothing in mnemir
calls a model by default. The request asks for JSON constrained by a JSON schema (``response_format``), and
the answer is *validated against the ontology* before it becomes a draft:

- an answer that is not JSON or not the expected shape is sent back once with the error ("repair");
- a memory whose type or properties do not validate is repaired when that is safe (unknown properties are
  dropped, enum synonyms normalised by the ontology) and otherwise rejected with a note;
- nothing the model said is ever stored raw: the offline speaker policy applies to its output as well.

Budget per call: ``timeout_s`` (per HTTP request), ``max_tokens`` for the answer, ``max_input_chars`` for the
utterance, at most ``1 + max_repairs`` requests. A down or failing endpoint raises ``EndpointError`` naming
the URL, unless a ``fallback`` extractor is given (then its result is used and the failure is noted).
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from datetime import datetime
from typing import Any

from mnemir.errors import EndpointError, ValidationError
from mnemir.ontology import Ontology
from mnemir.ontology.enums import DIALOGUE_ACT, TASK_STATUS
from mnemir.understand import fill
from mnemir.understand.dates import local_now
from mnemir.understand.entities import find_entities
from mnemir.understand.extract import (
    MEMORY_LABELS,
    Draft,
    Extraction,
    check_speaker,
    check_text,
    finalize,
    has_words,
)
from mnemir.understand.lexicon import language_of

__all__ = ["LLM_TYPES", "LLMExtractor", "response_schema"]

#: the types the model may answer with: the offline extractor's labels
LLM_TYPES = MEMORY_LABELS

SYSTEM_PROMPT = """You turn one utterance from a conversation into typed long-term memories.
Return JSON only, matching the schema. Types:
- Fact: a durable fact (properties: entity, attribute, value). entity "user" when it is about the speaker.
- Preference: a like/dislike (properties: subject, preference_type like|dislike|neutral, strength 0..1).
- Task: something to be done (properties: goal, status pending|in_progress, deadline ISO date, priority low|medium|high).
- Plan: one step of a plan, in order (properties: order).
- EmotionalState: an emotion expressed (properties: emotion_type, intensity 0..1, trigger).
- ContextualFrame: the setting of the conversation (properties: frame_type, topic).
- TaskUpdate: a report on an existing task (properties: status in_progress|completed|failed).
Greetings, thanks, acknowledgements, questions and chit-chat yield no memories (an empty list).
Resolve relative dates against NOW. "act" is the dialogue act of the whole utterance."""


def response_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["memories", "act"],
        "properties": {
            "act": {"type": "string", "enum": list(DIALOGUE_ACT.values)},
            "memories": {
                "type": "array",
                "maxItems": 12,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["type", "text", "properties"],
                    "properties": {
                        "type": {"type": "string", "enum": list(LLM_TYPES)},
                        "text": {"type": "string", "minLength": 1, "maxLength": 2000},
                        "properties": {"type": "object"},
                    },
                },
            },
        },
    }


class LLMExtractor:
    """Extraction by an OpenAI-compatible ``/chat/completions`` endpoint, validated against the ontology."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout_s: float = 20.0,
                 max_tokens: int = 800, max_input_chars: int = 4000, max_repairs: int = 1,
                 ontology: Ontology | None = None, fallback: Any = None) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValidationError("base_url must be an http(s) URL", field="base_url", value=base_url,
                                  allowed="e.g. http://localhost:11434/v1")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout_s = _seconds("timeout_s", timeout_s)
        self.max_tokens = _count("max_tokens", max_tokens, least=1)
        self.max_input_chars = _count("max_input_chars", max_input_chars, least=1)
        self.max_repairs = _count("max_repairs", max_repairs, least=0)
        self.ontology = ontology or Ontology()
        self.fallback = fallback
        self.creator = f"mnemir.understand.llm:{model}"

    # -- public ----------------------------------------------------------------------------
    def extract(self, text: str, *, speaker: str = "user", now: datetime | None = None) -> Extraction:
        text = check_text(text)
        speaker = check_speaker(speaker)
        now = local_now(now)
        if len(text) > self.max_input_chars:
            raise ValidationError("text exceeds the LLM extractor's input budget", field="text",
                                  value=f"{len(text)} chars", allowed=f"at most {self.max_input_chars} characters")
        result = Extraction(text, speaker, language_of(text), fill.act_type(text), creator=self.creator)
        if not has_words(text):
            result.notes.append("no letters or digits: nothing to remember")
            return result
        try:
            answer = self._ask(text, speaker, now)
        except EndpointError as exc:
            if self.fallback is None:
                raise
            fallen = self.fallback.extract(text, speaker=speaker, now=now)
            fallen.notes.append(f"LLM extractor failed ({exc.message}); used the offline extractor")
            return fallen
        if answer is None:
            result.notes.append("the LLM's answer was invalid after repair; rejected, nothing taken from it")
            return finalize(result, [])
        act = answer.get("act")
        if isinstance(act, str) and act in DIALOGUE_ACT.values:
            result.act = act
        drafts = [d for item in answer["memories"] if (d := self._draft(item, result, now)) is not None]
        return finalize(result, drafts)

    # -- the conversation with the endpoint ------------------------------------------------------
    def _ask(self, text: str, speaker: str, now: datetime) -> dict[str, Any] | None:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": json.dumps({"NOW": now.isoformat(), "speaker": speaker, "utterance": text},
                                                   ensure_ascii=False)},
        ]
        for attempt in range(self.max_repairs + 1):
            content = self._post(messages)
            answer, problem = _parse_answer(content)
            if answer is not None:
                return answer
            if attempt < self.max_repairs:
                messages += [{"role": "assistant", "content": content[:4000]},
                             {"role": "user", "content": f"That answer was invalid: {problem}. "
                                                         "Reply again with JSON that matches the schema exactly."}]
        return None

    def _post(self, messages: list[dict[str, str]]) -> str:
        body = {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens,
                "response_format": {"type": "json_schema",
                                    "json_schema": {"name": "memories", "strict": True, "schema": response_schema()}}}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}/chat/completions"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise EndpointError(f"LLM endpoint answered HTTP {exc.code}", url=url, status=exc.code) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EndpointError(f"LLM endpoint unreachable or too slow ({reason}; budget {self.timeout_s}s)",
                                url=url) from exc
        except json.JSONDecodeError as exc:
            raise EndpointError("LLM endpoint answered with invalid JSON", url=url) from exc
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError("LLM endpoint answered in an unexpected shape (no choices[0].message.content)",
                                url=url) from exc
        if not isinstance(content, str):
            raise EndpointError("LLM endpoint answered with non-text content", url=url)
        return content

    # -- validation ------------------------------------------------------------------------------
    def _draft(self, item: dict[str, Any], result: Extraction, now: datetime) -> Draft | None:
        kind, text, props = item["type"], item["text"].strip(), dict(item["properties"])
        if not text:
            result.notes.append(f"rejected a {kind} with empty text")
            return None
        entities = find_entities(text)
        reasons = [f"LLM {self.model}"]
        if kind == "TaskUpdate":
            try:
                status = TASK_STATUS.normalize(props.get("status"), "properties.status")
            except ValidationError as exc:
                result.notes.append(f"rejected a TaskUpdate: {exc.message}")
                return None
            return Draft("Task", text, {"status": status, "goal": text}, kind="update", entities=entities,
                         reasons=reasons)
        typedef = self.ontology.resolve(kind)
        dropped = sorted(set(props) - set(typedef.properties))
        for name in dropped:
            props.pop(name)
        try:
            _, clean = self.ontology.validate(kind, props)
        except ValidationError as exc:
            result.notes.append(f"rejected a {kind}: {exc.message}")
            return None
        if dropped:
            reasons.append("dropped unknown properties " + ", ".join(dropped))
        is_correction, replaces = fill.correction_of(text) if kind == "Fact" else (False, None)
        return Draft(kind, text, clean, kind="correction" if is_correction else "memory", entities=entities,
                     reasons=reasons, replaces=replaces)


def _seconds(name: str, value: object) -> float:
    """A budget in seconds: a finite number above zero."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValidationError(f"{name} must be a positive number of seconds", field=name, value=value,
                              allowed="a finite number > 0")
    return float(value)


def _count(name: str, value: object, *, least: int) -> int:
    """A budget that counts something (tokens, characters, repairs): a whole number, at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValidationError(f"{name} must be a whole number >= {least}", field=name, value=value,
                              allowed=f"an integer >= {least}")
    return value


def _parse_answer(content: str) -> tuple[dict[str, Any] | None, str]:
    """The answer as a dict of the expected shape, or (None, what is wrong)."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("{"):] if "{" in text else text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at position {exc.pos})"
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list):
        return None, "expected an object with a 'memories' list"
    for i, item in enumerate(data["memories"]):
        if not isinstance(item, dict):
            return None, f"memories[{i}] is not an object"
        if item.get("type") not in LLM_TYPES:
            return None, f"memories[{i}].type must be one of {', '.join(LLM_TYPES)}"
        if not isinstance(item.get("text"), str):
            return None, f"memories[{i}].text must be a string"
        if not isinstance(item.get("properties", {}), dict):
            return None, f"memories[{i}].properties must be an object"
        item.setdefault("properties", {})
    return data, ""
