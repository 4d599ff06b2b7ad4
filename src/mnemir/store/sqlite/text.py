"""FTS5 query expressions from text segmented like the index (:mod:`mnemir.store.segment`)."""

from __future__ import annotations

from mnemir.store.segment import tokens, word_forms


def query_tokens(query: str) -> list[str]:
    """The distinct search tokens of ``query``, in order, each followed by the other forms of its word
    (:func:`~mnemir.store.segment.word_forms`: a query asking "driving" finds a text that says "drives")."""
    return list(dict.fromkeys(form for token in tokens(query) for form in word_forms(token)))


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression (OR of quoted tokens) for ``query``, or None when it has no searchable token."""
    unique = query_tokens(query)
    if not unique:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in unique)
