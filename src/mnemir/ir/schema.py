"""The MemIR JSON Schema, generated from the models.

The checked-in copy lives at ``schema/memir-1.0.schema.json``; a test fails
when it drifts from the models. Regenerate with ``python -m mnemir.ir.schema``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mnemir.ir.record import MEMIR_VERSION, MemIR

SCHEMA_ID = f"https://mnemir.dev/schema/memir-{MEMIR_VERSION}.schema.json"


def json_schema() -> dict[str, Any]:
    schema = MemIR.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def render() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def schema_path(root: Path | None = None) -> Path:
    root = root or Path(__file__).resolve().parents[3]
    return root / "schema" / f"memir-{MEMIR_VERSION}.schema.json"


if __name__ == "__main__":  # pragma: no cover
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else schema_path()
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")
