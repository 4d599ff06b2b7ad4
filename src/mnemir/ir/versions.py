"""MemIR format versions and their upgrades.

Reading an older version upgrades it step by step to the current one;
an unknown version is an error, never a silent guess.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mnemir.errors import VersionError
from mnemir.ir.record import MEMIR_VERSION


def _upgrade_0_1(data: dict[str, Any]) -> dict[str, Any]:
    """The seed article's draft shape (called "0.1" here).

    Differences: ``embedding_vector`` instead of ``embedding``; ``content`` may be
    a bare string; ``metadata.source_dialogue_turn`` and ``metadata.creator``
    instead of ``metadata.source``; relationships use ``target_mem_id`` and
    ``relation_type``.
    """
    out = copy.deepcopy(data)
    if "embedding_vector" in out:
        out["embedding"] = out.pop("embedding_vector")
    if isinstance(out.get("content"), str):
        out["content"] = {"text": out["content"]}
    if "content_text" in out:
        out["content"] = {"text": out.pop("content_text")}
    meta = out.setdefault("metadata", {})
    source = dict(meta.get("source") or {})
    if "source_dialogue_turn" in meta:
        source["turn"] = meta.pop("source_dialogue_turn")
    if "creator" in meta:
        source["creator"] = meta.pop("creator")
    if source:
        meta["source"] = source
    rels = []
    for rel in out.get("relationships", []):
        rel = dict(rel)
        if "target_mem_id" in rel:
            rel["target"] = rel.pop("target_mem_id")
        if "relation_type" in rel:
            rel["relation"] = rel.pop("relation_type")
        rels.append(rel)
    out["relationships"] = rels
    out["memir_version"] = "1.0"
    return out


#: version -> (next version, upgrade function)
UPGRADES: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "0.1": ("1.0", _upgrade_0_1),
}

SUPPORTED = sorted({MEMIR_VERSION, *UPGRADES})


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` in the current MemIR version, or raise :class:`VersionError`."""
    raw = data.get("memir_version")
    if raw is None:
        raise VersionError(
            "record has no memir_version", field="memir_version", value=None, allowed=SUPPORTED
        )
    version = str(raw)
    if version == "1":
        version = "1.0"
    seen = 0
    while version != MEMIR_VERSION:
        if version not in UPGRADES:
            raise VersionError(
                f"unsupported memir_version {version!r}", field="memir_version", value=raw, allowed=SUPPORTED
            )
        version, step = UPGRADES[version]
        data = step(data)
        seen += 1
        if seen > len(UPGRADES):  # pragma: no cover - a cycle in the table
            raise VersionError("upgrade table has a cycle", field="memir_version", value=raw)
    if data.get("memir_version") != MEMIR_VERSION:
        data = {**data, "memir_version": MEMIR_VERSION}
    return data
