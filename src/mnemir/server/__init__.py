"""``mnemir serve``: the HTTP API and the web memory browser over the ``Memory`` facade (extra ``server``).

Layer: imports everything below ``cli`` (``memory`` and what it builds on); ``cli`` imports it. FastAPI, uvicorn
and Jinja2 are needed only here: importing this package without them raises MissingDependencyError.
"""

from __future__ import annotations

from mnemir.errors import MissingDependencyError

try:
    import fastapi  # noqa: F401
    import jinja2  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingDependencyError("mnemir serve", exc.name or "fastapi", extra="server") from None

from mnemir.server.app import create_app, openapi_spec
from mnemir.server.keys import ApiKey, KeyStore
from mnemir.server.run import serve
from mnemir.server.tenants import ServerConfig, layout

__all__ = ["ApiKey", "KeyStore", "ServerConfig", "create_app", "layout", "openapi_spec", "serve"]
