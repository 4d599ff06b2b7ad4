"""``mnemir serve`` and ``mnemir keys``: the HTTP API / web browser and its API keys (extra ``server``)."""

from __future__ import annotations

from typing import Any

import click

from mnemir.cli.app import State, cli, handle_errors
from mnemir.cli.render import console, emit_json


def _server() -> Any:
    import mnemir.server  # raises MissingDependencyError (a friendly hint) without the extra

    return mnemir.server


def _config(state: State, keys_file: str | None = None) -> Any:
    from mnemir.memory import MemoryConfig

    return _server().ServerConfig(path=state.path, memory=MemoryConfig(packs=state.packs), keys_path=keys_file)


def run_server(state: State, host: str, port: int, keys_file: str | None) -> None:
    _server().serve(_config(state, keys_file), host=host, port=port, announce=lambda line: console.print(
        line, highlight=False, soft_wrap=True))


host_opt = click.option("--host", default="127.0.0.1", show_default=True,
                        help="Address to listen on (anything but localhost needs an API key).")
port_opt = click.option("--port", default=8765, show_default=True, type=int)
keys_opt = click.option("--keys-file", default=None, help="The API keys file (default: keys.db beside the store).")


@cli.command()
@host_opt
@port_opt
@keys_opt
@click.option("--write-openapi", "openapi_file", default=None, type=click.Path(dir_okay=False),
              help="Write the OpenAPI document to this file and exit (the repository keeps docs/openapi.json).")
@click.pass_obj
@handle_errors
def serve(state: State, host: str, port: int, keys_file: str | None, openapi_file: str | None) -> None:
    """Serve the HTTP API (/v1, OpenAPI at /openapi.json) and the web memory browser (/ui)."""
    if openapi_file is not None:
        import json

        with open(openapi_file, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(_server().openapi_spec(), indent=2, ensure_ascii=False, sort_keys=True) + "\n")
        console.print(f"wrote {openapi_file}", highlight=False)
        return
    run_server(state, host, port, keys_file)


@cli.group()
def keys() -> None:
    """API keys: each bound to a tenant (a store of its own), stored hashed beside the store."""


def _keystore(state: State, keys_file: str | None) -> Any:
    server = _server()
    where = server.layout(_config(state, keys_file))
    if where.keys is None:
        from mnemir.errors import ConfigError

        raise ConfigError("a PostgreSQL store has no keys file beside it; pass --keys-file", field="--keys-file")
    return server.KeyStore(where.keys)


@keys.command(name="create")
@click.argument("tenant")
@click.option("--name", default="", help="A label for the key (who or what uses it).")
@click.option("--rate", default=50.0, show_default=True, type=float, help="Requests per second (bursts x2).")
@keys_opt
@click.pass_obj
@handle_errors
def keys_create(state: State, tenant: str, name: str, rate: float, keys_file: str | None) -> None:
    """Create a key for TENANT; the key is printed once and only its hash is kept."""
    store = _keystore(state, keys_file)
    key, record = store.create(tenant, name=name, rate_per_s=rate)
    store.close()
    if state.as_json:
        emit_json({"key": key, **record.to_dict()})
        return
    console.print(f"key for tenant {tenant!r} (shown once, keep it secret):", highlight=False)
    click.echo(key)
    console.print(f"key id {record.key_id}; revoke with: mnemir keys revoke {record.key_id}", highlight=False)
    console.print("a server started without keys keeps serving without them until it is restarted",
                  highlight=False)


@keys.command(name="revoke")
@click.argument("key_id")
@keys_opt
@click.pass_obj
@handle_errors
def keys_revoke(state: State, key_id: str, keys_file: str | None) -> None:
    """Revoke a key by its id (it stops working at once, also on a running server)."""
    store = _keystore(state, keys_file)
    record = store.revoke(key_id)
    store.close()
    emit_json(record.to_dict()) if state.as_json else console.print(f"revoked {key_id} (tenant {record.tenant})")


@keys.command(name="list")
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked keys.")
@keys_opt
@click.pass_obj
@handle_errors
def keys_list(state: State, include_revoked: bool, keys_file: str | None) -> None:
    """List keys (ids, tenants, rates; never the keys themselves)."""
    store = _keystore(state, keys_file)
    records = store.list(include_revoked=include_revoked)
    store.close()
    if state.as_json:
        emit_json([r.to_dict() for r in records])
        return
    from rich.table import Table

    table = Table(title="API keys")
    for col in ("key id", "tenant", "name", "rate/s", "created", "revoked"):
        table.add_column(col)
    for r in records:
        table.add_row(r.key_id, r.tenant, r.name, f"{r.rate_per_s:g}", r.created_at, r.revoked_at or "")
    console.print(table)
