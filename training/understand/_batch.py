"""What the single-label extraction batches (``s14.py``, ``s16.py``) share: numbering their texts into rows and
writing them as JSON lines next to the scripts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent


def labelled_rows(tag: str, groups: Iterable[tuple[str, Iterable[str], Mapping[str, object]]]) -> list[dict[str, object]]:
    """One user row per text, expecting its group's single memory; ids ``<lang>-<tag>-NNN`` count per language in
    the groups' order."""
    out: list[dict[str, object]] = []
    counters: dict[str, int] = {}
    for lang, texts, expect in groups:
        for text in texts:
            counters[lang] = counters.get(lang, 0) + 1
            out.append({"id": f"{lang}-{tag}-{counters[lang]:03d}", "lang": lang, "speaker": "user", "text": text,
                        "expect": [dict(expect)]})
    return out


def write_rows(name: str, rows: list[dict[str, object]]) -> None:
    """Write ``rows`` to ``name`` next to the scripts, one JSON object per line."""
    path = HERE / name
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows -> {path}")
