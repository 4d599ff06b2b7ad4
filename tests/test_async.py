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
