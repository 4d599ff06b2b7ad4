"""Async access: the same Memory logic, with blocking I/O moved off the event loop.

There is one implementation of every operation (the sync :class:`Memory`);
``AsyncMemory`` only changes how it is awaited, so the two can never drift.
Calls are serialised because a store connection serves one thread at a time.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any

#: the public operations exposed as coroutines (those the memory actually has)
ASYNC_METHODS = (
    "add", "get", "update", "delete", "search", "list", "count", "import_jsonl", "export_jsonl",
    "remember", "ingest", "intent", "recall", "update_task", "supersede", "history", "maintain",
    "overdue_tasks", "as_of", "add_evidence", "confirm_hypothesis", "conflicts",
)


class AsyncMemory:
    """``await mem.search(...)`` etc.; create with :func:`mnemir.open_async`."""

    def __init__(self, memory: Any) -> None:
        self._memory = memory
        self._lock = asyncio.Lock()

    @property
    def sync(self) -> Any:
        """The underlying synchronous Memory."""
        return self._memory

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name not in ASYNC_METHODS or not hasattr(self._memory, name):
            raise AttributeError(f"AsyncMemory has no attribute {name!r}")
        method = getattr(self._memory, name)

        @functools.wraps(method)
        async def call(*args: Any, **kwargs: Any) -> Any:
            async with self._lock:
                return await asyncio.to_thread(method, *args, **kwargs)

        return call

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(m for m in ASYNC_METHODS if hasattr(self._memory, m))})

    async def aclose(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._memory.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
