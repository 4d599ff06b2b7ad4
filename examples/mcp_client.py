"""Talk to `mnemir mcp` the way an MCP client does (needs ``pip install 'mnemir[mcp]'``).

Starts the server over stdio with the official SDK's client, lists its tools, remembers two turns and recalls.
Run: ``python examples/mcp_client.py [store-dir]``
"""

from __future__ import annotations

import os
import sys
import tempfile

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(path: str) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from mnemir.cli import main; main()", "--path", path, "mcp", "--user", "alice"],
        env=dict(os.environ))  # the SDK passes only a few variables on by default
    async with Client(server) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools))
        for text in ("I'm allergic to peanuts", "please book a table for Friday evening"):
            kept = await client.call_tool("remember", {"text": text})
            print(f"remember {text!r} ->", [m["type"] for m in kept.structured_content["created"]])
        recalled = await client.call_tool("recall", {"query": "what can't I eat?", "max_chars": 600})
        print(recalled.structured_content["context"])
        tasks = await client.call_tool("list_open_tasks", {})
        print("open tasks:", [t["text"] for t in tasks.structured_content["tasks"]])


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
