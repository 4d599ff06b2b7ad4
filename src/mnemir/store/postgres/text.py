"""Full text for PostgreSQL: the shared jieba segmentation, written as ``tsvector``/``tsquery`` literals.

PostgreSQL has no Chinese parser, and its parsers would re-split our tokens.
So documents and queries are segmented client-side exactly as for SQLite
(:mod:`mnemir.store.segment`: jieba search mode, lowercased, single hanzi
in their own low-weight part) and sent as ``tsvector`` / ``tsquery`` *input
literals*: quoted lexemes that PostgreSQL stores verbatim, with positions and
weights (A: text and summary, B: property values, D: single hanzi) so that
``ts_rank_cd`` can weigh them. No user text is ever parsed as query syntax.
"""

from __future__ import annotations

from mnemir.store.segment import tokens, word_forms

#: ts_rank_cd weights in PostgreSQL's order {D, C, B, A}; mirrors the SQLite backend's FTS column weights
RANK_WEIGHTS = "{0.2, 0.2, 0.5, 1.0}"
#: ts_rank_cd normalisation 1: divide by 1 + log(document length), so long texts do not win by size alone
RANK_NORMALIZATION = 1

_MAX_LEXEME_BYTES = 2046  # PostgreSQL refuses longer lexemes
_MAX_POSITION = 16383  # and clamps positions to this


def _quote(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _usable(token: str) -> bool:
    return "\x00" not in token and len(token.encode("utf-8")) <= _MAX_LEXEME_BYTES


def tsvector_literal(words: str, extra: str, hanzi: str) -> str:
    """The ``tsvector`` input text for the three space-separated token strings of
    :func:`mnemir.store.records.fts_columns`."""
    positions: dict[str, list[str]] = {}
    position = 0
    for part, weight in ((words, "A"), (extra, "B"), (hanzi, "D")):
        for token in part.split():
            if not _usable(token):
                continue
            position = min(position + 1, _MAX_POSITION)
            positions.setdefault(token, []).append(f"{position}{weight}")
    return " ".join(f"{_quote(token)}:{','.join(places[:256])}" for token, places in positions.items())


def tsquery_literal(query: str) -> str | None:
    """An OR of the query's tokens (and the other forms of their words: :func:`~mnemir.store.segment.word_forms`)
    as ``tsquery`` input text, or None when it has no searchable token."""
    unique = [t for t in dict.fromkeys(f for token in tokens(query) for f in word_forms(token)) if _usable(t)]
    if not unique:
        return None
    return " | ".join(_quote(token) for token in unique)
