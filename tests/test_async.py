"""AsyncMemory runs the same logic as Memory, off the event loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import mnemir


def test_async_memory_adds_and_searches(tmp_path: Path, embedder: mnemir.Embedder) -> None:
    async def main() -> list[str]:
        async with await mnemir.open_async(tmp_path / "a", embedder=embedder) as mem:
            rec = await mem.add("上海今天晴", "Fact", {"entity": "上海", "attribute": "weather"}, user="u")
            hits = await mem.search("上海天气", types=["Fact"], user="u")
            with pytest.raises(mnemir.ValidationError):
                await mem.add("x", "Memo")
            return [rec.id, *(h.id for h in hits)]

    first, *found = asyncio.run(main())
    assert found == [first]


PUBLIC_METHODS = sorted(name for name in dir(mnemir.Memory)
                        if not name.startswith("_") and callable(getattr(mnemir.Memory, name)) and name != "close")


def test_every_public_memory_method_is_awaitable(tmp_path: Path, embedder: mnemir.Embedder) -> None:
    # a sanity floor: the lifecycle and understanding faces are in the list the test walks
    assert {"confirm", "resolve_conflict", "migrate_ontology", "migrations", "decay_weight"} <= set(PUBLIC_METHODS)

    async def main() -> None:
        async with await mnemir.open_async(tmp_path / "a", embedder=embedder) as mem:
            for name in PUBLIC_METHODS:
                assert asyncio.iscoroutinefunction(getattr(mem, name)), name
                assert name in dir(mem), name
            assert await mem.migrations() == []
            assert await mem.conflicts(user="u") == []
            with pytest.raises(AttributeError):
                mem.close  # noqa: B018 - close is aclose here
            with pytest.raises(AttributeError):
                mem.lifecycle_config  # noqa: B018 - properties stay on mem.sync

    asyncio.run(main())
