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

import functools
import logging
import re
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


#: one hanzi (the ranges of :func:`_is_hanzi`): finds a word's hanzi in one pass instead of a call per character
_HANZI = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002ebef\uf900-\ufaff]")


def tokens(text: str) -> Iterator[str]:
    """Lowercased search tokens of ``text``; punctuation, spaces and symbols dropped.

    jieba cuts a text block by block (its ``re_han_default`` splits the text into runs of hanzi, Latin letters,
    digits and ``+#&._%-``, and the runs between them), and each block's words do not depend on its neighbours;
    so the tokens of each block are remembered (:func:`_block_tokens`): words repeat across records, and a
    bulk write segments each distinct block once. The result is exactly jieba's on the whole text."""
    jieba = _segmenter()
    for block in jieba.re_han_default.split(text.lower()):
        if block:
            yield from _block_tokens(block)


@functools.lru_cache(maxsize=100_000)
def _block_tokens(block: str) -> tuple[str, ...]:
    found = []
    for token in _segmenter().cut_for_search(block):
        token = token.strip()
        if token and any(ch.isalnum() for ch in token):
            found.append(token)
    return tuple(found)


def index_columns(main: list[str], extra: list[str]) -> tuple[str, str, str]:
    """The three FTS columns: words of ``main`` (text, summary), words of ``extra`` (property values), and the
    single Chinese characters of both."""
    # one segmenter call per column (jieba never joins words across a line break)
    main_words = list(tokens("\n".join(main)))
    extra_words = list(tokens("\n".join(extra)))
    hanzi = [ch for word in (*main_words, *extra_words) if len(word) > 1 for ch in _HANZI.findall(word)]
    return " ".join(main_words), " ".join(extra_words), " ".join(hanzi)


#: endings English words take without changing what they name (plural, third person, past, participle)
_INFLECTED = re.compile(r"[a-z]{4,}")
_VOWELS = frozenset("aeiou")


@functools.lru_cache(maxsize=20_000)
def word_forms(token: str) -> tuple[str, ...]:
    """``token`` and the regular inflections of the English word it is a form of ("moved" -> "move", "moves",
    "moving", ...), for a query to find a text that says the word in another form: a conversation says "I drive
    the van" and asks "what van is she driving?". Only regular endings are undone (no irregular verbs); a guessed
    form that is no word matches nothing. Other tokens (Chinese, numbers, short words) are their own only form."""
    if not _INFLECTED.fullmatch(token):
        return (token,)
    bases = {token}
    for ending, put in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if token.endswith(ending) and len(token) - len(ending) >= (2 if put else 3):
            if ending == "s" and token[-2] in "siu":  # "glass", "this", "focus": not a plural ending
                break
            bases = set()  # an inflected form: its forms are its base's
            stem = token[: len(token) - len(ending)] + put
            bases.add(stem)
            if put == "" and ending in ("ing", "ed", "es"):
                bases.add(stem + "e")  # "moving" -> "move", "boxes" -> "box" and "boxe" (no word: harmless)
                if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS | {"l", "s"}:
                    bases.add(stem[:-1])  # "stopped" -> "stop"
            break
    forms = dict.fromkeys([token])
    for base in sorted(bases):
        forms.update(dict.fromkeys(_inflections(base)))
    return tuple(forms)


def _inflections(base: str) -> list[str]:
    out = [base, base + "s"]
    if base.endswith("e"):
        out += [base + "d", base[:-1] + "ing"]
    elif base.endswith("y") and base[-2] not in _VOWELS:
        out += [base[:-1] + "ies", base[:-1] + "ied", base + "ing"]
    else:
        out += [base + "es", base + "ed", base + "ing"]
        if len(base) <= 5 and base[-1] not in _VOWELS | {"w", "x", "y"} and base[-2] in _VOWELS \
                and base[-3] not in _VOWELS:
            out += [base + base[-1] + "ed", base + base[-1] + "ing"]  # "stop" -> "stopped", "stopping"
    return out
