"""FTS5 query expressions from text segmented like the index (:mod:`mnemir.store.segment`)."""

from __future__ import annotations

from mnemir.store.segment import tokens


def query_tokens(query: str) -> list[str]:
    """The distinct search tokens of ``query``, in order."""
    return list(dict.fromkeys(tokens(query)))


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression (OR of quoted tokens) for ``query``, or None when it has no searchable token."""
    unique = query_tokens(query)
    if not unique:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in unique)
