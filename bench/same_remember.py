"""Check: ``remember`` stores and recalls as another checkout does (a speed change must not change what the write
path decides or what recall then shows).

    python bench/same_remember.py --compare /tmp/start/src                   # 3 continuity train conversations
    python bench/same_remember.py --compare /tmp/start/src --conversations 8 --files T1,T2

Each checkout runs in a process of its own (its ``src`` first on the path), ids made deterministic (``uuid4``
replaced by a counter), on a fresh store: the first ``--conversations`` conversations of each continuity TRAIN file
named, every turn through ``remember`` (the bench conversation of ``remember_latency.py`` first, as a warm-up that
is compared too). Compared: what every call returned (created and updated records, notes, confirmations), every
record stored (all statuses) with its whole history, and ``recall`` (k=8) and ``search`` (k=10) of each
conversation's checkpoint questions, ids and scores. Exit status 1 on any difference. Never part of ``make test``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _worker import add_options, run_both, verdict  # noqa: E402

TRAIN = HERE.parent / "benchmarks" / "continuity" / "train"


def _questions(conversation: dict[str, Any]) -> list[str]:
    """The conversation's checkpoint questions (asked here after all of it, not at their turn)."""
    return [str(c["q"]) for c in conversation.get("checkpoints", []) or [] if isinstance(c, dict) and c.get("q")]


def worker(files: list[str], conversations: int, path: Path) -> dict[str, Any]:
    counter = iter(range(1, 1 << 62))
    uuid.uuid4 = lambda: uuid.UUID(int=next(counter))  # type: ignore[assignment]
    import yaml
    from remember_latency import CONVERSATION, NOW

    import mnemir
    from mnemir.ir import MemoryStatus
    from mnemir.store.base import ANY, Selection

    mem = mnemir.open(path)
    calls: list[Any] = []

    def said(text: str, speaker: str, user: str, session: str, turn: int, now: datetime) -> None:
        out = mem.remember(text, speaker=speaker, user=user, session=session, turn=turn, now=now)
        calls.append([[r.to_dict() for r in out.created], [r.to_dict() for r in out.updated], list(out.notes),
                      [repr(c) for c in out.confirmations]])

    for turn, (speaker, text) in enumerate(CONVERSATION):
        said(text, speaker, "warm", "warm", turn, NOW + timedelta(minutes=turn))
    asked: list[Any] = []
    for name in files:
        data = yaml.safe_load((TRAIN / f"continuity_train_{name}.yaml").read_text(encoding="utf-8"))
        for conversation in data["conversations"][:conversations]:
            user, last = str(conversation["id"]), NOW
            for session in conversation["sessions"]:
                at = datetime.fromisoformat(str(session["at"]))
                for t in session["turns"]:
                    last = at + timedelta(minutes=int(t["n"]))
                    said(str(t["text"]), str(t["speaker"]), user, str(session["at"]), int(t["n"]), last)
            for question in _questions(conversation):
                recalled = mem.recall(question, user=user, k=8, now=last + timedelta(days=1))
                asked.append([question, [(h.memory.id, h.role, round(h.score, 9)) for h in recalled.hits],
                              [(h.memory.id, round(h.score, 9)) for h in mem.search(question, user=user, k=10)]])
    every = mem.store.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)), order_by=[("@created_at", True)])
    stored = [json.loads(r.to_json()) for r in every]
    history = [[h.model_dump(mode="json") for h in mem.store.history(r.id)] for r in every]
    mem.close()
    blob = json.dumps([calls, stored, history, asked], sort_keys=True, default=str)
    return {"digest": hashlib.sha256(blob.encode()).hexdigest(), "utterances": len(calls), "records": len(stored),
            "questions": len(asked), "calls": calls, "stored": stored, "history": history, "asked": asked}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", default="T1", help="continuity train files (T1,T2,...)")
    parser.add_argument("--conversations", type=int, default=3, help="conversations per file")
    add_options(parser, same=True)
    args = parser.parse_args(argv)
    files = [f for f in args.files.split(",") if f]
    if args.worker:
        args.out.write_text(json.dumps(worker(files, args.conversations, args.out.with_suffix(".db")), default=str))
        return 0
    if not args.compare:
        parser.error("--compare SRC is required")
    results = run_both(__file__, args.compare, ["--files", args.files, "--conversations", str(args.conversations)])
    if isinstance(results, int):
        return results
    a, b = results
    print(f"{a['utterances']} utterances, {a['records']} records stored (this checkout) vs {b['records']}, "
          f"{a['questions']} questions; digest {a['digest'][:16]} vs {b['digest'][:16]}")
    return verdict(a, b, ("calls", "stored", "history", "asked"))


if __name__ == "__main__":
    raise SystemExit(main())
