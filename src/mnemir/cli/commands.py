"""Feature commands: remember, intent, recall, history, tasks, maintain, eval, demo, mcp."""

from __future__ import annotations

import importlib

import click

from mnemir.cli.app import State, cli, handle_errors, now_opt, parse_now, user_opt
from mnemir.cli.render import console, emit_json, hits_table, kv_table, memory_table
from mnemir.errors import ValidationError


@cli.command()
@click.argument("text")
@click.option("--speaker", default="user", show_default=True)
@user_opt
@click.option("--session", default=None)
@click.option("--turn", type=int, default=None)
@now_opt
@click.pass_obj
@handle_errors
def remember(state: State, text: str, speaker: str, user: str | None, session: str | None, turn: int | None,
             now: str | None) -> None:
    """Extract typed memories from an utterance and store them (no LLM needed)."""
    result = state.mem.remember(text, speaker=speaker, user=user, session=session, turn=turn, now=parse_now(now))
    if state.as_json:
        emit_json(result.to_dict())
        return
    if result.created:
        console.print(memory_table(result.created, title="new memories"))
    if result.updated:
        console.print(memory_table(result.updated, title="updated memories"))
    for confirmation in result.confirmations:
        console.print(f"[bold yellow]needs confirmation[/]: {confirmation.question}")
        for c in confirmation.candidates:
            console.print(f"  - {c.id}: {c.text} ({'; '.join(c.reasons)})")
    for note in result.notes:
        console.print(f"[dim]note: {note}[/]")
    if not (result.created or result.updated or result.confirmations):
        console.print("nothing worth keeping in this utterance")


@cli.command()
@click.argument("query")
@now_opt
@click.pass_obj
@handle_errors
def intent(state: State, query: str, now: str | None) -> None:
    """Show the retrieval intent inferred for a query."""
    result = state.mem.intent(query, now=parse_now(now))
    emit_json(result.to_dict()) if state.as_json else console.print(kv_table(result.to_dict(), title="intent"))


@cli.command()
@click.argument("query")
@user_opt
@click.option("-k", default=5, show_default=True)
@now_opt
@click.option("--prompt", "show_prompt", is_flag=True, help="Print the role-labelled prompt block.")
@click.option("--max-chars", type=int, default=None,
              help="With --prompt: fit the block in this many characters (lowest-ranked memories left out).")
@click.pass_obj
@handle_errors
def recall(state: State, query: str, user: str | None, k: int, now: str | None, show_prompt: bool,
           max_chars: int | None) -> None:
    """Role-aware recall: intent, hits with roles and reasons, and the prompt context."""
    result = state.mem.recall(query, user=user, k=k, now=parse_now(now))
    prompt = result.context.render(max_chars) if show_prompt else None  # a bad budget fails before any output
    if state.as_json:
        emit_json(result.to_dict())
        return
    console.print(kv_table({"kind": result.intent.kind, "types": list(result.intent.types),
                            "where": result.intent.where}, title="intent"))
    console.print(hits_table(result.hits, title=f"recall: {query!r}", with_role=True))
    if prompt is not None:
        click.echo(prompt)  # plain text: a prompt block is never re-wrapped


@cli.command()
@click.argument("memory_id")
@user_opt
@click.pass_obj
@handle_errors
def history(state: State, memory_id: str, user: str | None) -> None:
    """Every recorded change to a memory."""
    entries = state.mem.history(memory_id, user=user)
    if state.as_json:
        emit_json([e.model_dump(mode="json") for e in entries])
        return
    from rich.table import Table

    table = Table(title=f"history of {memory_id}")
    for col in ("at", "action", "actor", "reason", "after"):
        table.add_column(col, overflow="fold")
    for e in entries:
        table.add_row(e.at.strftime("%Y-%m-%d %H:%M"), e.action.value, e.actor, e.reason, str(e.after or ""))
    console.print(table)


@cli.command(name="update-task")
@click.argument("task_id")
@click.option("--status", required=True)
@user_opt
@now_opt
@click.pass_obj
@handle_errors
def update_task(state: State, task_id: str, status: str, user: str | None, now: str | None) -> None:
    """Move a task through its state machine (its plan steps follow)."""
    rec = state.mem.update_task(task_id, status=status, user=user, now=parse_now(now), actor="cli")
    emit_json(rec.to_dict()) if state.as_json else console.print(memory_table([rec], title="task"))


@cli.command()
@now_opt
@click.option("--dry-run", is_flag=True)
@click.pass_obj
@handle_errors
def maintain(state: State, now: str | None, dry_run: bool) -> None:
    """Apply decay, archive and expiry policies (idempotent)."""
    report = state.mem.maintain(now=parse_now(now), dry_run=dry_run)
    emit_json(report.to_dict()) if state.as_json else click.echo(report.render())


@cli.command()
@click.pass_obj
@handle_errors
def check(state: State) -> None:
    """Verify that records, vectors, the text index, properties, relationships and history agree (exit 1 if not)."""
    report = state.mem.check()
    emit_json(report.to_dict()) if state.as_json else click.echo(report.render())
    if not report.ok:
        raise SystemExit(1)


@cli.command()
@click.option("--user", "-u", "user", required=True, help="The user whose memories are all purged.")
@click.option("--reason", default="", help="Kept in each tombstone (keep personal data out of it).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@now_opt
@click.pass_obj
@handle_errors
def forget(state: State, user: str, reason: str, yes: bool, now: str | None) -> None:
    """Hard-delete every memory of one user (content, vectors, text index, relationships, history)."""
    if not yes and not click.confirm(f"purge every memory of user {user!r} for good?", err=True):
        raise SystemExit(1)
    counts = state.mem.forget_user(user, now=parse_now(now), reason=reason, actor="cli")
    if state.as_json:
        emit_json({"user": user, **counts})
    else:
        click.echo(f"forgot user {user}: {counts['memories']} memories purged, {counts['tombstones']} tombstones "
                   "left (id, time, actor, reason; no content)")


EVAL_SUITES = {
    "extraction": "mnemir.eval.extraction",
    "intent": "mnemir.eval.intent",
    "collapse": "mnemir.eval.collapse",
    "continuity": "mnemir.eval.continuity",
    "locomo": "mnemir.eval.locomo",
    "dialogue_qa": "mnemir.eval.dialogue_qa",
}
#: suites on external data that may be absent
EXTERNAL_SUITES = ("locomo",)
#: suites that also write a results folder of their own (--out)
OUT_SUITES = ("dialogue_qa",)


@cli.command(name="eval")
@click.argument("suite", type=click.Choice([*EVAL_SUITES, "all"]))
@click.option("--split", default="dev", show_default=True,
              help="train (fitted and tuned on), dev (results read while developing) or test (frozen, written blind: "
                   "run once, at the end of a piece of work; docs/EVALUATION.md); collapse also all (train + dev); "
                   "locomo is one dev split; dialogue_qa train, dev or test; all runs dev or test.")
@click.option("--data", "data_path", default=None, help="locomo / all: the LoCoMo JSON file (default $MNEMIR_LOCOMO).")
@click.option("--samples", type=click.IntRange(min=1), default=None, help="locomo: only the first N conversations.")
@click.option("--quick", is_flag=True, help="all: a small slice of each suite.")
@click.option("--out", "out_dir", default=None,
              help="all: the results folder (default results/<date-time>); dialogue_qa: a folder for results.json "
                   "and report.md.")
@click.pass_obj
@handle_errors
def eval_(state: State, suite: str, split: str, data_path: str | None, samples: int | None, quick: bool,
          out_dir: str | None) -> None:
    """Run a quality benchmark on one split (dev by default) and print the report; ``all`` runs every suite and
    writes a results folder (report.md, plots, results.json)."""
    if suite == "all":
        _eval_all(state, split, data_path, samples, quick, out_dir)
        return
    if quick or (out_dir is not None and suite not in OUT_SUITES):
        raise ValidationError("--quick and --out are options of eval all (--out also of dialogue_qa)", field="suite",
                              value=suite, allowed=["all", *OUT_SUITES])
    if (data_path is not None or samples is not None) and suite not in EXTERNAL_SUITES:
        raise ValidationError("--data and --samples are options of the locomo suite", field="suite", value=suite,
                              allowed=list(EXTERNAL_SUITES))
    module = importlib.import_module(EVAL_SUITES[suite])
    if split not in module.SPLITS:
        raise ValidationError(f"the {suite} suite has no split {split!r}", field="split", value=split,
                              allowed=list(module.SPLITS))
    if suite in EXTERNAL_SUITES:
        report = module.run(split=split, data_path=data_path, limit_samples=samples,
                            progress=lambda i, n: click.echo(f"conversation {i}/{n} done", err=True))
    elif suite in OUT_SUITES:
        report = module.run(split=split, progress=lambda i, n: click.echo(f"conversation {i}/{n} done", err=True))
        if out_dir is not None:
            written = module.write(report, out_dir)
            click.echo(f"results written to {written}", err=True)
    else:
        report = module.run(split=split)
    if state.as_json:
        emit_json({suite: report.to_dict()})
    else:
        click.echo(report.render())  # reports are fixed-width tables: never re-wrapped


def _eval_all(state: State, split: str, data_path: str | None, samples: int | None, quick: bool,
              out_dir: str | None) -> None:
    from mnemir.eval import all as eval_all

    if samples is not None:
        raise ValidationError("--samples is an option of the locomo suite (eval all takes --quick)", field="samples",
                          value=samples, allowed="eval locomo --samples N")
    if split not in eval_all.SPLITS:
        raise ValidationError(f"eval all has no split {split!r}", field="split", value=split,
                              allowed=list(eval_all.SPLITS))
    display, tick = eval_all.rich_progress()
    with display:
        results = eval_all.run(out_dir, split=split, quick=quick, locomo_data=data_path, progress=tick)
    if state.as_json:
        emit_json({"folder": results["folder"], "headline": results["headline"], "seconds": results["seconds"]})
    else:
        click.echo(eval_all.render_markdown(results))
        click.echo(f"\nresults written to {results['folder']}")


@cli.command()
@click.option("--path", "demo_path", default=None,
              help="Where to build the demo store (default: a temp dir; with --serve: the default store).")
@click.option("--serve", "then_serve", is_flag=True, help="Then serve the API and the web browser on that store.")
@click.option("--port", default=8765, show_default=True, type=int, help="With --serve: the port (localhost).")
@click.pass_obj
@handle_errors
def demo(state: State, demo_path: str | None, then_serve: bool, port: int) -> None:
    """Load a small bilingual sample and show typed search next to plain vector search."""
    from mnemir.cli.demo import run_demo

    if not then_serve:
        run_demo(demo_path)
        return
    from mnemir.cli.server import run_server
    from mnemir.memory import default_location

    state.path = demo_path or state.path or str(default_location())
    run_demo(state.path)
    run_server(state, "127.0.0.1", port, None)


@cli.command(name="mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio (what MCP clients start) or streamable HTTP.")
@click.option("--user", "-u", envvar="MNEMIR_USER", default="default", show_default=True,
              help="The user scope the tools work in (over HTTP, the X-Mnemir-User header names another).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on (localhost only).")
@click.option("--port", type=int, default=8765, show_default=True, help="HTTP: the port.")
@click.pass_obj
@handle_errors
def mcp(state: State, transport: str, user: str, host: str, port: int) -> None:
    """Serve this memory to MCP clients (Claude Desktop, Claude Code, Cursor...); needs mnemir[mcp]."""
    from mnemir.integrations import mcp as server

    if transport == "stdio":
        server.serve_stdio(state.mem, user=user)
    else:
        server.check_bind(host, server.LocalIdentity(user))
        click.echo(f"mnemir MCP server on http://{host}:{port}/mcp (user {user})", err=True)
        server.serve_http(state.mem, user=user, host=host, port=port)


def _store_location(value: str) -> str:
    """``sqlite:PATH`` or a path -> the SQLite path; ``postgresql://...`` stays a URL."""
    return value[len("sqlite:"):] if value.startswith("sqlite:") else value


@cli.command()
@click.option("--from", "source", required=True, help="Source store: sqlite:PATH, a .db file or directory, or a "
              "postgresql:// URL.")
@click.option("--to", "target", required=True, help="Target store (empty, or a migration from the same source to "
              "resume), same forms.")
@click.option("--batch", default=500, show_default=True, help="Records per transaction.")
@click.pass_obj
@handle_errors
def migrate(state: State, source: str, target: str, batch: int) -> None:
    """Copy a store to another backend: records, vectors, relationships, history (resumable)."""
    from mnemir.memory import MemoryConfig
    from mnemir.memory import _open_store as open_store
    from mnemir.ontology import Ontology
    from mnemir.store.migrate import migrate as copy

    config = MemoryConfig()
    ontology = Ontology(packs=(*config.packs, *state.packs))
    src = open_store(_store_location(source), ontology, config)
    try:
        dst = open_store(_store_location(target), ontology, config)
        try:
            with console.status("migrating") as status:
                def report(phase: str, done: int, total: int) -> None:
                    status.update(f"migrating {phase}: {done} / {total}")

                done = copy(src, dst, source_name=source, batch=batch, progress=report)
        finally:
            dst.close()
    finally:
        src.close()
    result = {"records": done.records, "histories_of_deleted": done.histories, "resumed": done.resumed}
    emit_json(result) if state.as_json else console.print(
        f"migrated {done.records} memories and {done.histories} deleted memories' histories"
        f"{' (resumed)' if done.resumed else ''}")
