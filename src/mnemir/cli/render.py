"""Readable tables for the CLI (rich), and JSON output for machines."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from mnemir.ir import MemIR

console = Console()
err_console = Console(stderr=True)


def emit_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _props(props: dict[str, Any], limit: int = 80) -> str:
    text = ", ".join(f"{k}={v}" for k, v in props.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def memory_table(records: Sequence[MemIR], title: str | None = None) -> Table:
    table = Table(title=title, show_lines=False)
    for col in ("id", "type", "status", "text", "properties", "user", "created"):
        table.add_column(col, overflow="fold")
    for rec in records:
        table.add_row(rec.id, rec.type, rec.status.value, rec.content.text, _props(rec.properties),
                      rec.scope.user_id or "", rec.metadata.created_at.strftime("%Y-%m-%d %H:%M"))
    return table


def hits_table(hits: Iterable[Any], title: str | None = None, *, with_role: bool = False) -> Table:
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    if with_role:
        table.add_column("role")
    for col in ("type", "text", "properties", "why"):
        table.add_column(col, overflow="fold")
    for i, hit in enumerate(hits, start=1):
        rec = hit.memory
        row = [str(i), f"{hit.score:.4f}"]
        if with_role:
            row.append(str(getattr(hit, "role", "")))
        row += [rec.type, rec.content.text, _props(rec.properties), "; ".join(hit.reasons)]
        table.add_row(*row)
    return table


def kv_table(data: dict[str, Any], title: str | None = None) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        table.add_row(str(key), json.dumps(value, ensure_ascii=False, default=str)
                      if not isinstance(value, str) else value)
    return table
