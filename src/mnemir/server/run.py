"""Running the server: uvicorn on one process, JSON logs, graceful shutdown.

On SIGINT / SIGTERM uvicorn stops accepting connections and lets the requests in flight finish (up to
``graceful_s``); a write is acknowledged only after its transaction committed, so nothing acknowledged is lost.
Then the stores are closed.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from mnemir.errors import ConfigError, MissingDependencyError
from mnemir.server.app import create_app
from mnemir.server.guard import JsonFormatter
from mnemir.server.keys import KeyStore
from mnemir.server.tenants import ServerConfig, layout

LOCALHOSTS = ("127.0.0.1", "localhost", "::1")


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("mnemir.server", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False


def plan(config: ServerConfig, host: str) -> tuple[KeyStore | None, bool, str]:
    """The keys file, whether tenants are on, and the line to print at start. Refuses to listen beyond
    localhost when no key is configured (there would be no authentication at all)."""
    where = layout(config)
    keys = KeyStore(where.keys) if where.keys is not None and where.keys.exists() else None
    multi = keys is not None and keys.has_active()
    if multi:
        return keys, True, (f"mnemir serve: {len(keys.list()) if keys else 0} API key(s) in {where.keys}; each "
                            f"tenant's store is under {where.tenants}/<tenant>")
    if host not in LOCALHOSTS:
        raise ConfigError(f"no API key is configured, so the server would have no authentication; it listens on "
                          f"localhost only (got --host {host}). Create a key first: mnemir keys create TENANT",
                          field="host", value=host, allowed=list(LOCALHOSTS))
    return keys, False, (f"mnemir serve: no API keys configured: serving {where.store} WITHOUT authentication, "
                         "on localhost only")


def serve(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, graceful_s: float = 10.0,
          announce: Any = print) -> None:
    try:
        import uvicorn
    except ImportError:
        raise MissingDependencyError("mnemir serve", "uvicorn", extra="server") from None
    keys, multi, line = plan(config, host)
    configure_logging()
    app = create_app(config, keys=keys, multi=multi)
    shown = f"[{host}]" if ":" in host else host
    announce(line)
    announce(f"mnemir serve: browser http://{shown}:{port}/ui/browse  API http://{shown}:{port}/v1  "
             f"OpenAPI http://{shown}:{port}/openapi.json")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=int(graceful_s), lifespan="on")
