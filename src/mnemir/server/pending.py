"""Pending confirmations: the questions ``remember`` asked instead of guessing, kept until a person answers.

They are kept in a small SQLite file beside the tenant's store (``pending.db``), so a restart does not forget
them; a store without a folder (PostgreSQL) keeps them in memory for the life of the process.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from mnemir.ir import MemIR
from mnemir.memory.understanding import Candidate, Confirmation

_SCHEMA = "CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, body TEXT NOT NULL, at TEXT NOT NULL)"


def _dump(c: Confirmation) -> str:
    return json.dumps({"kind": c.kind, "utterance": c.utterance, "question": c.question, "status": c.status,
                       "candidates": [{"id": x.id, "text": x.text, "score": x.score, "reasons": list(x.reasons)}
                                      for x in c.candidates],
                       "record": c.record.to_dict() if c.record is not None else None, "user": c.user,
                       "now": c.now.isoformat() if c.now is not None else None}, ensure_ascii=False)


def _load(text: str) -> Confirmation:
    data = json.loads(text)
    return Confirmation(kind=data["kind"], utterance=data["utterance"], question=data["question"],
                        candidates=[Candidate(x["id"], x["text"], x["score"], tuple(x["reasons"]))
                                    for x in data["candidates"]],
                        status=data["status"],
                        record=MemIR.from_dict(data["record"]) if data["record"] is not None else None,
                        user=data["user"],
                        now=datetime.fromisoformat(data["now"]) if data["now"] is not None else None)


class Pending:
    """id -> Confirmation, persisted (``path``) or in memory (``None``). Safe to share between threads."""

    def __init__(self, path: Path | None) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:" if path is None else path, check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.execute(_SCHEMA)

    def __setitem__(self, cid: str, confirmation: Confirmation) -> None:
        stamp = (confirmation.now or datetime.now().astimezone()).isoformat()
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO pending (id, body, at) VALUES (?, ?, ?)",
                             (cid, _dump(confirmation), stamp))

    def get(self, cid: str) -> Confirmation | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM pending WHERE id = ?", (cid,)).fetchone()
        return _load(row[0]) if row else None

    def pop(self, cid: str, default: None = None) -> Confirmation | None:
        found = self.get(cid)
        with self._lock:
            self._db.execute("DELETE FROM pending WHERE id = ?", (cid,))
        return found if found is not None else default

    def items(self) -> Iterator[tuple[str, Confirmation]]:
        with self._lock:
            rows = self._db.execute("SELECT id, body FROM pending ORDER BY at, id").fetchall()
        return iter([(cid, _load(body)) for cid, body in rows])

    def close(self) -> None:
        with self._lock:
            self._db.close()
