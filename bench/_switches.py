"""What the write-side switch benchmarks share (docs/decisions/0097): variants named on the command line as
``NAME={"FLAG": value}``, applied to the module constants of ``memory.understanding`` one variant at a time
(``"fill.FLAG"``: a constant of ``understand.fill``, the extractor's readings of status and aspect; 0102;
``"extract.FLAG"``: a constant of ``understand.extract``, e.g. ``EXTRACTOR_MODEL``, the shipped weights it reads; 0105;
``"decision_turns.MODEL_FILE"``: the learned reading of a choice made, a trial model's file in ``understand/data``;
``"segment.FLAG"``: a constant of ``understand.segment``;
0110)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from mnemir.memory import understanding as U
from mnemir.understand import decision_turns, extract, fill, segment

_MODULES = {"fill": fill, "extract": extract, "decision_turns": decision_turns, "segment": segment}


def _owner(key: str) -> tuple[Any, str]:
    """The module a switch lives in and its name there."""
    module, _, name = key.rpartition(".")
    return (_MODULES[module] if module else U), name


def parse_variants(args: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``base`` (the shipped switches) and each ``NAME={...}`` argument."""
    variants: dict[str, dict[str, Any]] = {"base": {}}
    for arg in args:
        name, _, spec = arg.partition("=")
        variants[name] = json.loads(spec)
    return variants


def each_variant(variants: dict[str, dict[str, Any]]) -> Iterator[str]:
    """Set the switches of each variant in turn (every switch any variant names starts from its shipped value)."""
    shipped = {k: getattr(*_owner(k)) for spec in variants.values() for k in spec}
    for name, spec in variants.items():
        for k, v in {**shipped, **spec}.items():
            setattr(*_owner(k), v)
        decision_turns.shipped_decision_turns.cache_clear()  # it reads MODEL_FILE once
        yield name
    for k, v in shipped.items():
        setattr(*_owner(k), v)
    decision_turns.shipped_decision_turns.cache_clear()
