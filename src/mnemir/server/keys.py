"""API keys bound to tenants, kept hashed in a small SQLite file beside the store.

A key reads ``mnr_<key id>_<secret>``. Only the SHA-256 of the whole key is stored (the secret is 32 random bytes,
so a plain hash is enough: nothing to brute-force); the key id finds the row, the hash is compared in constant
time. A revoked key stays in the file (who had access, and when) but no longer authenticates.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemir.errors import NotFoundError, ValidationError

TENANT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_KEY = re.compile(r"^mnr_([a-z0-9]{12})_([A-Za-z0-9_-]{20,100})$")
#: requests per second a key may make on average (bursts up to twice as many)
DEFAULT_RATE = 50.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    rate_per_s REAL NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""


@dataclass(frozen=True)
class ApiKey:
    """A key's record (never the secret)."""

    key_id: str
    tenant: str
    name: str
    rate_per_s: float
    created_at: str
    revoked_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_dict(self) -> dict[str, Any]:
        return {"key_id": self.key_id, "tenant": self.tenant, "name": self.name, "rate_per_s": self.rate_per_s,
                "created_at": self.created_at, "revoked_at": self.revoked_at}


def check_tenant(name: object) -> str:
    if not isinstance(name, str) or not TENANT_NAME.match(name):
        raise ValidationError("bad tenant name", field="tenant", value=name,
                              allowed="1-63 characters of a-z, 0-9, '_' and '-', starting with a letter or digit")
    return name


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class KeyStore:
    """The keys file: create, revoke, list and check keys. Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.execute(_SCHEMA)

    def create(self, tenant: str, *, name: str = "", rate_per_s: float = DEFAULT_RATE) -> tuple[str, ApiKey]:
        """A new key for ``tenant``: returns the key (shown once, never stored) and its record."""
        check_tenant(tenant)
        if isinstance(rate_per_s, bool) or not isinstance(rate_per_s, (int, float)) or not 0 < rate_per_s <= 1e6:
            raise ValidationError("bad rate limit", field="rate_per_s", value=rate_per_s,
                                  allowed="a number of requests per second in (0, 1000000]")
        key_id = "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12))
        key = f"mnr_{key_id}_{secrets.token_urlsafe(32)}"
        created = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            self._db.execute("INSERT INTO api_keys (key_id, tenant, key_hash, name, rate_per_s, created_at) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (key_id, tenant, _hash(key), name, float(rate_per_s),
                                                             created))
        return key, ApiKey(key_id, tenant, name, float(rate_per_s), created, None)

    def revoke(self, key_id: str) -> ApiKey:
        with self._lock:
            cur = self._db.execute("UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                                   (datetime.now(UTC).isoformat(timespec="seconds"), key_id))
        if cur.rowcount == 0 and self._get(key_id) is None:
            raise NotFoundError(f"no key {key_id!r}", key_id=key_id)
        found = self._get(key_id)
        assert found is not None
        return found

    def list(self, *, include_revoked: bool = False) -> list[ApiKey]:
        with self._lock:
            rows = self._db.execute("SELECT key_id, tenant, name, rate_per_s, created_at, revoked_at FROM api_keys "
                                    "ORDER BY created_at, key_id").fetchall()
        keys = [ApiKey(*row) for row in rows]
        return keys if include_revoked else [k for k in keys if k.active]

    def has_active(self) -> bool:
        return bool(self.list())

    def check(self, key: str) -> ApiKey | None:
        """The record of a valid, unrevoked key, or None."""
        match = _KEY.match(key or "")
        if not match:
            return None
        with self._lock:
            row = self._db.execute("SELECT key_hash FROM api_keys WHERE key_id = ? AND revoked_at IS NULL",
                                   (match.group(1),)).fetchone()
        if row is None or not hmac.compare_digest(row[0], _hash(key)):
            return None
        return self._get(match.group(1))

    def _get(self, key_id: str) -> ApiKey | None:
        with self._lock:
            row = self._db.execute("SELECT key_id, tenant, name, rate_per_s, created_at, revoked_at FROM api_keys "
                                   "WHERE key_id = ?", (key_id,)).fetchone()
        return ApiKey(*row) if row else None

    def close(self) -> None:
        self._db.close()
