"""A LangGraph agent with mnemir as its long-term memory (needs ``pip install 'mnemir[langgraph]'``).

Each turn runs three nodes: ``recall`` (role-aware recall of what the user said before, in any earlier thread),
``answer`` (the model; here a deterministic stand-in so the recipe runs without an LLM) and ``remember`` (the
user's turn is read into typed memories: facts, preferences, tasks...). The store is also a plain LangGraph
``BaseStore``, so ``runtime.store.put/get/search`` work in any node as well.

Run: ``python examples/langgraph_agent.py [store-dir]``
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

import mnemir
from mnemir.integrations.langgraph import MnemirStore


@dataclass
class Context:
    user_id: str


class Turn(TypedDict, total=False):
    message: str  # what the user said this turn
    memory: str  # the recalled context block
    answer: str


def fake_model(message: str, memory: str) -> str:
    """Stands in for an LLM: answers from the first remembered line, if there is one."""
    remembered = [line[2:].split(": ", 1)[-1].strip('"') for line in memory.splitlines() if line.startswith("- ")]
    if remembered:
        return f"You told me before: {remembered[0]}"
    return "Noted."


def store_of(runtime: Runtime[Context]) -> MnemirStore:
    assert isinstance(runtime.store, MnemirStore), "compile the graph with store=MnemirStore(...)"
    return runtime.store


def recall(turn: Turn, runtime: Runtime[Context]) -> Turn:
    found = store_of(runtime).recall(turn["message"], user=runtime.context.user_id, k=3)
    return {"memory": found.context.render(max_chars=800) if found.hits else ""}


def answer(turn: Turn) -> Turn:
    return {"answer": fake_model(turn["message"], turn.get("memory", ""))}


def remember(turn: Turn, runtime: Runtime[Context]) -> Turn:
    store_of(runtime).remember(turn["message"], user=runtime.context.user_id, speaker="user")
    return {}


def build_agent(store: MnemirStore):  # type: ignore[no-untyped-def]
    graph = StateGraph(Turn, context_schema=Context)
    graph.add_node("recall", recall)
    graph.add_node("answer", answer)
    graph.add_node("remember", remember)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "answer")
    graph.add_edge("answer", "remember")
    graph.add_edge("remember", END)
    return graph.compile(store=store, checkpointer=InMemorySaver())


def chat(agent, message: str, *, user: str, thread: str) -> str:  # type: ignore[no-untyped-def]
    out = agent.invoke({"message": message}, {"configurable": {"thread_id": thread}}, context=Context(user))
    return str(out["answer"])


def main(path: str) -> None:
    with mnemir.open(path) as memory:
        agent = build_agent(MnemirStore(memory, user_label=1))
        for thread, message in (("monday", "I'm allergic to peanuts"),
                                ("friday", "Any snack ideas? Remember what I can't eat.")):
            print(f"[{thread}] user: {message}")
            print(f"[{thread}] agent: {chat(agent, message, user='alice', thread=thread)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
