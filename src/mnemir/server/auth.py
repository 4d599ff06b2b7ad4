"""Who is calling: the API key (``Authorization: Bearer``, ``X-API-Key`` or the browser's cookie), its tenant,
and its rate limit (a token bucket per key)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from mnemir.server.keys import ApiKey, KeyStore
from mnemir.server.tenants import LOCAL, Tenant, Tenants

COOKIE = "mnemir_key"


class Problem(Exception):
    """An HTTP problem raised by the server itself (not a MnemirError): status, code, detail, extension members."""

    def __init__(self, status: int, code: str, detail: str, *, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


@dataclass(frozen=True)
class Access:
    tenant: Tenant
    key: ApiKey | None


class RateLimiter:
    """A token bucket per key: ``rate`` requests per second on average, bursts of ``2 * rate``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key_id: str, rate: float) -> float:
        """0 when the request may go; otherwise the seconds to wait."""
        capacity = max(1.0, 2 * rate)
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key_id, (capacity, now))
            tokens = min(capacity, tokens + (now - last) * rate)
            if tokens >= 1:
                self._buckets[key_id] = (tokens - 1, now)
                return 0.0
            self._buckets[key_id] = (tokens, now)
            return (1 - tokens) / rate


class Auth:
    def __init__(self, keys: KeyStore | None, tenants: Tenants) -> None:
        self.keys = keys
        self.tenants = tenants
        self.limiter = RateLimiter()

    @property
    def multi(self) -> bool:
        return self.tenants.multi

    def key_from(self, headers: Any, cookies: Any) -> str | None:
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return str(auth[7:].strip())
        return headers.get("x-api-key") or cookies.get(COOKIE)

    def access(self, headers: Any, cookies: Any, state: Any) -> Access:
        if not self.multi:
            state.tenant = LOCAL
            return Access(self.tenants.get(LOCAL), None)
        given = self.key_from(headers, cookies)
        if not given:
            raise Problem(401, "unauthorized", "this server needs an API key (Authorization: Bearer <key>)",
                          headers={"WWW-Authenticate": "Bearer"}, field="Authorization",
                          allowed="Bearer mnr_<id>_<secret> (create one with `mnemir keys create TENANT`)")
        assert self.keys is not None
        key = self.keys.check(given)
        if key is None:
            raise Problem(401, "unauthorized", "unknown or revoked API key", headers={"WWW-Authenticate": "Bearer"},
                          field="Authorization", allowed="an active key from `mnemir keys list`")
        state.tenant = key.tenant
        state.key_id = key.key_id
        wait = self.limiter.take(key.key_id, key.rate_per_s)
        if wait > 0:
            raise Problem(429, "rate_limited", f"key {key.key_id} is over its rate limit of {key.rate_per_s:g} "
                          "requests per second", headers={"Retry-After": str(max(1, round(wait + 0.5)))},
                          field="rate", value=key.rate_per_s, allowed=f"{key.rate_per_s:g} requests per second")
        return Access(self.tenants.get(key.tenant), key)
