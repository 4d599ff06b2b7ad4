"""Full-text segmentation, Chinese and English alike, shared by the backends' full-text indexes.

SQLite's tokenizers cannot split Chinese into words (``unicode61`` keeps a run of
hanzi as one token; ``trigram`` misses queries shorter than three characters).
So text is segmented with ``jieba`` (search mode, which also emits the shorter
words inside long ones) into space-separated, lowercased tokens, stored in a
``unicode61`` FTS5 table. Queries are segmented the same way and become an OR
of quoted tokens, so no user input (quotes, ``AND``, ``*``, emoji) can ever be
read as FTS5 syntax.

Single hanzi are also indexed, in their own low-weight column, so a
one-character query ("糖") still finds "不加糖".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

_lock = threading.Lock()
_jieba: Any = None


def _segmenter() -> Any:
    """jieba, initialised once per process and quietly (it logs to stderr by default)."""
    global _jieba
    if _jieba is None:
        with _lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


def _is_hanzi(ch: str) -> bool:
    code = ord(ch)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2EBEF or \
        0xF900 <= code <= 0xFAFF


def tokens(text: str) -> Iterator[str]:
    """Lowercased search tokens of ``text``; punctuation, spaces and symbols dropped."""
    for token in _segmenter().cut_for_search(text.lower()):
        token = token.strip()
        if token and any(ch.isalnum() for ch in token):
            yield token


def index_columns(main: list[str], extra: list[str]) -> tuple[str, str, str]:
    """The three FTS columns: words of ``main`` (text, summary), words of ``extra`` (property values), and the
    single Chinese characters of both."""
    # one segmenter call per column (jieba never joins words across a line break)
    main_words = list(tokens("\n".join(main)))
    extra_words = list(tokens("\n".join(extra)))
    hanzi = [ch for word in (*main_words, *extra_words) if len(word) > 1 for ch in word if _is_hanzi(ch)]
    return " ".join(main_words), " ".join(extra_words), " ".join(hanzi)
