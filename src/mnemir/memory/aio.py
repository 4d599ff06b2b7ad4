"""Async access: the same Memory logic, with blocking I/O moved off the event loop.

There is one implementation of every operation (the sync :class:`Memory`);
``AsyncMemory`` only changes how it is awaited, so the two can never drift.
Calls are serialised because a store connection serves one thread at a time; ``add`` with group commit on
(``MemoryConfig.group_commit``, SQLite) is the exception: concurrent adds join the Memory's group commit queue, so
that tasks adding at once share transactions as threads do.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

#: public methods that are not offered as coroutines (``aclose`` replaces ``close``)
NOT_ASYNC = frozenset({"close"})


def async_methods(cls: type) -> frozenset[str]:
    """The public operations of a Memory class exposed as coroutines: every public method (not properties or
    plain attributes), so a method added to ``Memory`` is awaitable without touching this module."""
    return frozenset(name for name, value in inspect.getmembers(cls, inspect.isfunction)
                     if not name.startswith("_") and name not in NOT_ASYNC)


class AsyncMemory:
    """``await mem.search(...)`` etc.; create with :func:`mnemir.open_async`."""

    def __init__(self, memory: Any) -> None:
        self._memory = memory
        self._methods = async_methods(type(memory))
        self._lock = asyncio.Lock()

    @property
    def sync(self) -> Any:
        """The underlying synchronous Memory."""
        return self._memory

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name not in self.__dict__.get("_methods", ()):  # not self._methods: no recursion before __init__
            raise AttributeError(f"AsyncMemory has no attribute {name!r}")
        method = getattr(self._memory, name)

        @functools.wraps(method)
        async def call(*args: Any, **kwargs: Any) -> Any:
            if name == "add" and self._memory._add_group() is not None:
                # group commit (decision 0113): concurrent adds join one queue and share transactions; the store
                # connection's own lock orders them against the other calls
                return await self._memory._add_async(*args, **kwargs)
            async with self._lock:
                result, report = await asyncio.to_thread(self._reported, method, *args, **kwargs)
            self._memory._keep_report(report)  # the write report belongs to the awaiting task (a worker's is lost)
            return result

        return call

    def _reported(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """Run ``method`` (in a worker thread) and return its result with the write report it left there."""
        result = method(*args, **kwargs)
        return result, getattr(self._memory, "last_write_report", None)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._methods})

    async def aclose(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._memory.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
