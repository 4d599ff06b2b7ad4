"""CPU time spent inside named functions, for the profiling benches: each stage's function is wrapped in place
so that a call records its own process time once (a recursive or nested call of the same stage counts once)."""

from __future__ import annotations

import collections
import functools
import importlib
import statistics
import time
from collections.abc import Iterable
from typing import Any


def instrument(stages: Iterable[tuple[str, str, str]]) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """Wrap each ``(key, module, attribute path)`` stage; returns the seconds and the calls counted per key, filled
    as the wrapped functions run. A stage missing from the code (an older checkout) is left out."""
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    active: set[str] = set()
    for key, module_name, path in stages:
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, name = path.split(".")
            for part in parents:
                owner = getattr(owner, part)
            original = getattr(owner, name)
        except (ImportError, AttributeError):
            continue

        def timed(*args: Any, _original: Any = original, _key: str = key, **kwargs: Any) -> Any:
            if _key in active:
                return _original(*args, **kwargs)
            active.add(_key)
            start = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_key] += time.process_time() - start
                calls[_key] += 1
                active.discard(_key)

        setattr(owner, name, functools.wraps(original)(timed))
    return spent, calls


def median_of(runs: list[dict[str, Any]], *keys: str) -> float | None:
    """The median over the rounds of the figure at ``keys`` (None where no round has it)."""
    values = []
    for run in runs:
        node: Any = run
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            values.append(float(node))
    return statistics.median(values) if values else None
