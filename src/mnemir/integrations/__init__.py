"""Where agents already live: an MCP server (:mod:`mnemir.integrations.mcp`, extra ``mcp``) and a LangGraph store
(:mod:`mnemir.integrations.langgraph`, extra ``langgraph``).

This package imports no optional dependency itself; each integration module raises
:class:`mnemir.MissingDependencyError` naming its extra when the package it needs is missing. The logic the MCP tools
share (scoping, results, pending confirmations) is SDK-free in :mod:`mnemir.integrations.tools`.
"""
