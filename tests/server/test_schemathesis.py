"""schemathesis against the HTTP API's OpenAPI document (docs/openapi.json, the one the app serves).

Every operation is called with inputs generated from its schema (valid ones and, for the negative mode, invalid
ones) against a real served app: uvicorn on a real SQLite store in a temp dir with the real embedder. Each answer
must be no 5xx, conform to the documented status codes, content types and response schemas, accept valid input,
refuse invalid input, and every error must be RFC 9457 problem+json whose 422s name the refused field.

``make test`` runs the quick pair (schemathesis' examples and coverage phases, then ``EXAMPLES`` generated cases
per operation, valid inputs up to 40 characters and 5 items); ``-m slow`` runs ``SLOW_EXAMPLES`` per operation and
mode, valid inputs up to 2,000 characters and 40 items.
``MNEMIR_FUZZ_REPORT=1 ... -s`` prints the requests sent per operation and mode (the README quotes the total).

Some inputs are checked at run time, not by the schema (``RUNTIME_FIELDS``): a valid-looking value there may get
a 422, which must name that field; any other 422 to a schema-valid request is a failure. Every 422 must name a
parameter or body property of the operation (or the body, an import line).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis (the dev extra) is not installed")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402
from tests.server.conftest import Running, local_app, running  # noqa: E402

SPEC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
EXAMPLES = int(os.environ.get("MNEMIR_FUZZ_EXAMPLES", "4"))
SLOW_EXAMPLES = 40
PROBLEM = "application/problem+json"
#: requests sent per (operation, mode) by this session, for the report
CASES: dict[str, int] = {}
SECONDS: dict[str, float] = {}


def _lowered(node: Any, length: int, items: int) -> Any:
    if isinstance(node, dict):
        return {k: (min(v, length if k == "maxLength" else items)
                    if k in ("maxLength", "maxItems") and isinstance(v, int) else _lowered(v, length, items))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_lowered(v, length, items) for v in node]
    return node


def capped(document: dict[str, Any], length: int, items: int) -> dict[str, Any]:
    """The document with every maxLength of a request (parameters, bodies) lowered to ``length`` and every
    maxItems to ``items``: the positive runs try the same operations and constraints with smaller inputs (one
    ingest of 500 turns of 16,000 characters takes minutes on a 2-core machine). Responses and the negative runs
    use the document as served."""
    out = json.loads(json.dumps(document))
    for operations in out["paths"].values():
        for operation in operations.values():
            for name in ("parameters", "requestBody"):
                if name in operation:
                    operation[name] = _lowered(operation[name], length, items)
    schemas = out["components"]["schemas"]
    for name in REQUEST_SCHEMAS:
        schemas[name] = _lowered(schemas[name], length, items)
    return out


@schemathesis.serializer("application/x-ndjson")
def _jsonl(ctx: Any, value: Any) -> dict[str, Any]:
    """The import body (a string in the schema) as sent; anything else (negative cases) as its JSON text."""
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": (value if isinstance(value, str) else json.dumps(value)).encode("utf-8", "surrogatepass")}


DOCUMENT = json.loads(SPEC.read_text(encoding="utf-8"))
REQUEST_SCHEMAS = [n for n in DOCUMENT["components"]["schemas"] if n.endswith("Body") or n in ("Turn", "IntentOverride")]
positive = schemathesis.openapi.from_dict(capped(DOCUMENT, 40, 5))
positive.config.generation.update(modes=[GenerationMode.POSITIVE])
negative = schemathesis.openapi.from_dict(DOCUMENT)
negative.config.generation.update(modes=[GenerationMode.NEGATIVE])
#: the long run: lengths up to 2,000 characters, 40 items (ingest: 40 turns)
positive_long = schemathesis.openapi.from_dict(capped(DOCUMENT, 2000, 40))
positive_long.config.generation.update(modes=[GenerationMode.POSITIVE])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[Running]:
    with running(local_app(tmp_path_factory.mktemp("fuzz"), embedder)) as srv:
        yield srv
    if os.environ.get("MNEMIR_FUZZ_REPORT"):
        for key in sorted(CASES, key=lambda k: -SECONDS[k]):
            print(f"{CASES[key]:5d} cases {SECONDS[key]:7.2f}s  {key}")
        print(f"{sum(CASES.values())} cases")


def problem_details(response: Any, case: Any) -> None:
    """Every error is problem+json with a status matching the response's; a 422 names the refused field."""
    if response.status_code < 400:
        return
    kind = response.headers.get("content-type", [""])
    kind = kind[0] if isinstance(kind, list) else kind
    assert kind.startswith(PROBLEM), f"{case.method} {case.path}: error {response.status_code} as {kind!r}"
    body = response.json()
    assert body["status"] == response.status_code and body["type"].startswith("urn:mnemir:problem:"), body
    assert body["detail"], body
    if response.status_code == 422:
        assert isinstance(body.get("field"), str) and body["field"], body
        root = _root(body["field"])
        sent = set(case.body) if isinstance(case.body, dict) else set()  # an unknown field is named as sent
        sent |= set(case.query or {})
        # an unknown key is named whole, as sent, even one holding the separators a path is split on (".")
        assert root in _inputs(case.method, case.path) | sent | PSEUDO_FIELDS or body["field"] in sent, \
            (root, case.method, case.path, body)


#: fields a 422 may name that are no parameter or body property: the body itself, a line of an import file
PSEUDO_FIELDS = frozenset({"body", "line"})


def _root(field: str) -> str:
    return field.replace("[", ".").replace(" ", ".").split(".")[0]  # "turns[0].text", "line 3"


def _inputs(method: str, path: str) -> set[str]:
    """The parameters and top-level body properties the operation documents."""
    operation = DOCUMENT["paths"][path][method.lower()]
    names = {p["name"] for p in operation.get("parameters", [])}
    for content in operation.get("requestBody", {}).get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        if ref:
            names |= set(DOCUMENT["components"]["schemas"][ref.rsplit("/", 1)[-1]].get("properties", {}))
    return names


#: inputs the schema cannot fully describe, checked at run time against the store's ontology and languages: a
#: type name, a property, a relationship, a filter (the filter language), a task status or speaker (with their
#: aliases, e.g. "待办" for pending), an import file. Schema-valid input there may get a 422, which must name it.
RUNTIME_FIELDS = ("type", "types", "properties", "relationships", "where", "status", "speaker", "intent",
                  "max_chars", "body", "line")


def valid_input_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis' positive_data_acceptance, except a 422 that names a field checked at run time."""
    field = str(response.json().get("field") or "") if response.status_code == 422 else ""
    parts = field.replace("[", ".").replace(" ", ".").split(".")
    if field and case.meta is not None and case.meta.generation.mode.is_positive and \
            (parts[0] in RUNTIME_FIELDS or parts[-1] in RUNTIME_FIELDS):  # "types", "turns[2].speaker"
        return None
    return positive_data_acceptance(ctx, response, case)


def _run(case: Any, served: Running) -> None:
    mode = case.meta.generation.mode.value if case.meta is not None else "explicit"
    key = f"{case.method} {case.path} {mode}"
    CASES[key] = CASES.get(key, 0) + 1
    started = time.perf_counter()
    try:
        response = case.call_and_validate(base_url=served.url, timeout=120,
                                          excluded_checks=[positive_data_acceptance],
                                          additional_checks=[valid_input_accepted])
    finally:
        SECONDS[key] = SECONDS.get(key, 0.0) + time.perf_counter() - started
    problem_details(response, case)


QUICK = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


@positive.parametrize()
@QUICK
def test_api_accepts_what_its_openapi_allows(case: Any, served: Running) -> None:
    _run(case, served)


@negative.parametrize()
@QUICK
def test_api_refuses_what_its_openapi_forbids(case: Any, served: Running) -> None:
    _run(case, served)


LONG = settings(max_examples=SLOW_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@positive_long.parametrize()
@LONG
def test_api_accepts_what_its_openapi_allows_long(case: Any, served: Running) -> None:
    _run(case, served)


@pytest.mark.slow
@negative.parametrize()
@LONG
def test_api_refuses_what_its_openapi_forbids_long(case: Any, served: Running) -> None:
    _run(case, served)
