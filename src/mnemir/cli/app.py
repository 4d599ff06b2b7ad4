"""The ``mnemir`` command: memory operations with readable tables or ``--json``."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import click

from mnemir.cli.render import console, emit_json, err_console, hits_table, kv_table, memory_table
from mnemir.errors import MnemirError, ValidationError

F = TypeVar("F", bound=Callable[..., Any])


class State:
    def __init__(self, path: str | None, as_json: bool, packs: tuple[str, ...]) -> None:
        self.path = path
        self.as_json = as_json
        self.packs = packs
        self._mem: Any = None

    @property
    def mem(self) -> Any:
        if self._mem is None:
            import mnemir

            self._mem = mnemir.open(self.path, packs=self.packs)
        return self._mem

    def close(self) -> None:
        if self._mem is not None:
            self._mem.close()


def handle_errors(fn: F) -> F:
    """Translate our errors to a message (or JSON) on stderr and the error's exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        state: State = click.get_current_context().obj
        try:
            return fn(*args, **kwargs)
        except MnemirError as exc:
            if state.as_json:
                print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
            else:
                err_console.print(f"[bold red]error[/]: {exc.message}")
            sys.exit(exc.exit_code)
        finally:
            state.close()

    return wrapper  # type: ignore[return-value]


def parse_json_option(value: str | None, name: str) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{name} is not valid JSON: {exc.msg}", field=name, value=value) from exc


def parse_now(value: str | None) -> datetime | None:
    if value is None:
        return None
    from mnemir.ontology import parse_when

    return datetime.fromisoformat(parse_when(value, "--now", allow_date=False).replace("Z", "+00:00"))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--path", envvar="MNEMIR_PATH", help="Store location (directory, .db file or postgresql:// URL).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
@click.option("--pack", "packs", multiple=True, help="Load a domain pack (coding, health).")
@click.version_option(package_name="mnemir")
@click.pass_context
def cli(ctx: click.Context, path: str | None, as_json: bool, packs: tuple[str, ...]) -> None:
    """mnemir: typed long-term memory for AI agents."""
    ctx.obj = State(path, as_json, packs)


user_opt = click.option("--user", "-u", default=None, help="User scope.")
now_opt = click.option("--now", default=None, help="The clock (ISO datetime), for reproducible runs.")


@cli.command()
@click.argument("text")
@click.option("--type", "-t", "type_", required=True, help="Memory type (Fact, Task, ...).")
@click.option("--props", "-p", default=None, help="Properties as JSON.")
@user_opt
@click.option("--session", default=None)
@now_opt
@click.pass_obj
@handle_errors
def add(state: State, text: str, type_: str, props: str | None, user: str | None, session: str | None,
        now: str | None) -> None:
    """Add one typed memory."""
    rec = state.mem.add(text, type_, parse_json_option(props, "--props"), user=user, session=session,
                        now=parse_now(now), creator="cli")
    emit_json(rec.to_dict()) if state.as_json else console.print(memory_table([rec], title="added"))


@cli.command()
@click.argument("memory_id")
@user_opt
@click.pass_obj
@handle_errors
def get(state: State, memory_id: str, user: str | None) -> None:
    """Show one memory."""
    rec = state.mem.get(memory_id, user=user)
    emit_json(rec.to_dict()) if state.as_json else console.print(kv_table(rec.to_dict(), title=rec.id))


@cli.command()
@click.argument("query", default="")
@click.option("--type", "-t", "types", multiple=True, help="Restrict to these types (repeatable).")
@click.option("--where", "-w", default=None, help="Property filter as JSON, e.g. '{\"status\": \"pending\"}'.")
@click.option("-k", default=10, show_default=True)
@user_opt
@click.option("--include-archived", is_flag=True)
@now_opt
@click.pass_obj
@handle_errors
def search(state: State, query: str, types: tuple[str, ...], where: str | None, k: int, user: str | None,
           include_archived: bool, now: str | None) -> None:
    """Hybrid search: filters + vectors + BM25."""
    hits = state.mem.search(query, types=list(types) or None, where=parse_json_option(where, "--where"), k=k,
                            user=user, include_archived=include_archived, now=parse_now(now))
    if state.as_json:
        emit_json([h.to_dict() for h in hits])
    else:
        console.print(hits_table(hits, title=f"search: {query!r}"))


@cli.command(name="list")
@click.option("--type", "-t", "types", multiple=True)
@click.option("--where", "-w", default=None)
@user_opt
@click.option("--limit", default=50, show_default=True)
@click.option("--include-archived", is_flag=True)
@click.pass_obj
@handle_errors
def list_(state: State, types: tuple[str, ...], where: str | None, user: str | None, limit: int,
          include_archived: bool) -> None:
    """List memories, newest first."""
    recs = state.mem.list(types=list(types) or None, where=parse_json_option(where, "--where"), user=user,
                          limit=limit, include_archived=include_archived)
    emit_json([r.to_dict() for r in recs]) if state.as_json else console.print(memory_table(recs))


@cli.command()
@click.pass_obj
@handle_errors
def types(state: State) -> None:
    """Show the ontology: types, properties, enums, version."""
    from mnemir.ontology import Ontology

    onto = Ontology(packs=state.packs)
    if state.as_json:
        emit_json(onto.describe())
        return
    from rich.table import Table

    table = Table(title=f"ontology {onto.version}")
    for col in ("type", "role", "pack", "properties"):
        table.add_column(col, overflow="fold")
    for t in onto.types.values():
        props = ", ".join(
            f"{n}:{'|'.join(p.enum.values) if p.enum else p.kind}{'*' if p.core else ''}"
            for n, p in t.properties.items()
        )
        table.add_row(t.name, t.role, t.pack, props)
    console.print(table)
    console.print("* = core (indexed) property")


def _progress(label: str) -> tuple[Any, Callable[[int, int | None], None]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=err_console, transient=False)
    task = bar.add_task(label, total=None)

    def update(done: int, total: int | None) -> None:
        bar.update(task, completed=done, total=total)

    return bar, update


@cli.command(name="import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--on-conflict", type=click.Choice(["replace", "skip", "error"]), default="replace", show_default=True)
@click.option("--user", "-u", default=None,
              help="Import into this user's scope only (records or ids of another scope are refused).")
@click.pass_obj
@handle_errors
def import_(state: State, file: str, on_conflict: str, user: str | None) -> None:
    """Import MemIR JSONL (validated before anything is written)."""
    from mnemir.store.base import ANY

    bar, update = _progress("importing")
    with bar:
        count = state.mem.import_jsonl(file, on_conflict=on_conflict, progress=update,
                                       user=ANY if user is None else user)
    emit_json({"imported": count}) if state.as_json else console.print(f"imported {count} memories")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--user", "-u", default=None, help="Only this user's memories (default: all).")
@click.option("--no-embeddings", is_flag=True, help="Leave vectors out (smaller file; re-embedded on import).")
@click.pass_obj
@handle_errors
def export(state: State, file: str, user: str | None, no_embeddings: bool) -> None:
    """Export memories with their history to MemIR JSONL."""
    from mnemir.store.base import ANY

    bar, update = _progress("exporting")
    with bar:
        count = state.mem.export_jsonl(file, user=user if user is not None else ANY,
                                       with_embeddings=not no_embeddings, progress=update)
    emit_json({"exported": count, "file": file}) if state.as_json else console.print(f"exported {count} to {file}")


def main() -> None:
    cli(prog_name="mnemir")
