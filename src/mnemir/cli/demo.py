"""``mnemir demo``: a small bilingual memory, typed search next to plain vector search."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from rich.table import Table

from mnemir.cli.render import console
from mnemir.store.base import Selection

DEMO_NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def load_sample() -> dict[str, Any]:
    text = resources.files("mnemir").joinpath("demo", "sample.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _table(title: str, rows: list[tuple[str, str, str]]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("type")
    table.add_column("memory", overflow="fold")
    table.add_column("why", overflow="fold")
    for i, (type_, text, why) in enumerate(rows, start=1):
        table.add_row(str(i), type_, text, why)
    return table


def run_demo(path: str | None = None, k: int = 3) -> None:
    import mnemir

    root = Path(path) if path else Path(tempfile.mkdtemp(prefix="mnemir-demo-"))
    sample = load_sample()
    user = sample["user"]
    with mnemir.open(root) as mem:
        if mem.count(user=user) == 0:
            for item in sample["memories"]:
                mem.add(item["text"], item["type"], item["props"], user=user,
                        now=DEMO_NOW - timedelta(days=item["days_ago"]), creator="demo")
        console.print(f"[bold]mnemir demo[/]: {mem.count(user=user)} memories of user {user!r} in {root}")
        selection = Selection(user_id=user)  # every live memory of the user, whatever its type: a plain vector store
        for q in sample["queries"]:
            console.rule(f"[bold]{q['text']}")
            qvec = mem.embedder.embed_query(q["text"])
            plain = mem.store.fetch([mid for mid, _ in mem.store.vector_search(selection, qvec, k)])
            console.print(_table("plain vector search (what an unfiltered vector store returns)",
                                 [(r.type, r.content.text, "nearest vector") for r in plain]))
            typed = mem.search(q["text"], types=q["types"], where=q["where"], user=user, k=k, now=DEMO_NOW)
            console.print(_table(f"typed search: types={q['types']} where={q['where']}",
                                 [(h.memory.type, h.memory.content.text, "; ".join(h.reasons)) for h in typed]))
            result = mem.recall(q["text"], user=user, k=k, now=DEMO_NOW)
            console.print(_table(f"recall() with its own intent: {result.intent.kind} {list(result.intent.types)}",
                                 [(f"{h.memory.type} ({h.role})", h.memory.content.text, "; ".join(h.reasons))
                                  for h in result.hits]))
        _dialogue_demo(mem, sample["dialogue"])


def _dialogue_demo(mem: Any, dialogue: dict[str, Any]) -> None:
    """Raw turns in, typed memories out; a completion report updates the task instead of adding one."""
    console.rule("[bold]remember(): dialogue in, typed memories out")
    user = dialogue["user"]
    table = Table(title=f"what mnemir kept from {user}'s conversation", title_justify="left")
    for col in ("turn", "said", "kept"):
        table.add_column(col, overflow="fold")
    for turn, item in enumerate(dialogue["turns"], start=1):
        result = mem.remember(item["text"], speaker=item["speaker"], user=user, session="demo", turn=turn,
                              now=DEMO_NOW)
        kept = [f"new {r.type} {_brief(r.properties)}" for r in result.created]
        kept += [f"updated {r.type} -> {r.properties.get('status', '')}" for r in result.updated]
        kept += [f"asks: {c.question}" for c in result.confirmations]
        if not kept:
            kept = [f"nothing stored: {note.split(';')[0]}" for note in result.notes[:1]]
        table.add_row(str(turn), f"{item['speaker']}: {item['text']}", "\n".join(kept) or "(nothing worth keeping)")
    console.print(table)


def _brief(props: dict[str, Any]) -> str:
    keys = ("status", "deadline", "entity", "attribute", "value", "subject", "preference_type", "emotion_type",
            "act_type")
    return ", ".join(f"{k}={props[k]}" for k in keys if k in props)
