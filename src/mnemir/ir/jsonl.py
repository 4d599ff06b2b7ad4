"""JSONL import/export of MemIR records (lossless).

A line is one JSON object. Memory lines are MemIR records; a line with a
``"kind"`` key other than ``"memory"`` carries something else that travels with
the records (e.g. ``{"kind": "history", ...}``) and is handed back untouched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pydantic

from mnemir.errors import ValidationError
from mnemir.ir.history import HistoryEntry
from mnemir.ir.record import MemIR, from_pydantic


def dump_line(record: MemIR, *, with_embedding: bool = True) -> str:
    return json.dumps(record.to_dict(with_embedding=with_embedding), ensure_ascii=False, separators=(",", ":"))


def write_jsonl(
    records: Iterable[MemIR], out: IO[str], *, with_embedding: bool = True, extra: Iterable[dict[str, Any]] = ()
) -> int:
    count = 0
    for rec in records:
        out.write(dump_line(rec, with_embedding=with_embedding))
        out.write("\n")
        count += 1
    for item in extra:
        out.write(json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=str))
        out.write("\n")
    return count


def iter_jsonl(source: IO[str] | Path | str) -> Iterator[MemIR | dict[str, Any]]:
    """Yield records (and side lines as dicts); errors name the line number."""
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as fh:
            yield from iter_jsonl(fh)
        return
    lines = enumerate(source, start=1)
    lineno = 0
    while True:
        try:
            lineno, line = next(lines)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            raise ValidationError(f"line {lineno + 1}: not UTF-8 text ({exc.reason} at byte {exc.start})",
                                  field=f"line {lineno + 1}", allowed="UTF-8 JSON lines") from None
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValidationError(f"line {lineno}: not UTF-8 text ({exc.reason} at byte {exc.start})",
                                      field=f"line {lineno}", allowed="UTF-8 JSON lines") from None
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"line {lineno}: not valid JSON ({exc.msg})", field=f"line {lineno}") from exc
        if not isinstance(data, dict):
            raise ValidationError(f"line {lineno}: expected a JSON object", field=f"line {lineno}")
        kind = data.get("kind", "memory")
        if kind == "history":  # checked here, where the line number is known
            try:
                HistoryEntry.model_validate({k: v for k, v in data.items() if k != "kind"})
            except pydantic.ValidationError as exc:
                bad = from_pydantic(exc)
                raise ValidationError(f"line {lineno}: history entry: {bad.message}", field=f"line {lineno}",
                                      line=lineno) from None
        if kind != "memory":
            yield data
            continue
        data.pop("kind", None)
        try:
            yield MemIR.from_dict(data)
        except ValidationError as exc:
            raise ValidationError(
                f"line {lineno}: {exc.message}", field=exc.field, value=exc.value, allowed=exc.allowed, line=lineno
            ) from exc
