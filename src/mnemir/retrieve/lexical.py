"""Which words of a query a memory shares, beyond question and function words.

The embedder misses some matches a reader sees at once: "Where is the offsite being held?" and "The offsite is at
Lakeview Lodge" share the one word that matters, yet their cosine is near zero. A memory that is the best keyword
match for the query and shares such a word with it is anchored just above the relevance floor (ranking decides
the rest). Tokens come from the same segmenter as the full-text index, so Chinese is split into words too.
"""

from __future__ import annotations

from functools import lru_cache

from mnemir.ir import MemIR
from mnemir.store.segment import tokens

#: question, function and filler words that say nothing about what a memory is about
_FUNCTION_WORD_LIST = """
a about after again all am an and any are as at be been being but by can could did do does doing done for from get
gets getting go going gone got had has have having he her here him his how i if in into is it its just let like me
more most my no not now of off on one or our out over own really so some still such than that the their them then
there these they this those to too up us very was we were what when where which while who whom why will with would
you your yours s t ll ve re d m want need needs should shall may might must much many
我 你 他 她 它 我们 你们 他们 的 了 吗 呢 啊 吧 呀 是 在 有 没 没有 不 都 也 还 就 要 得 会 能 可以 什么 怎么 怎样 怎么样
哪 哪个 哪些 哪里 哪儿 多少 几 这 那 这个 那个 个 些 一下 一个 和 跟 与 给 把 被 让 去 来 到 上 下 里 吧 嘛 啥 咋 呗
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())


@lru_cache(maxsize=512)
def content_terms(text: str) -> frozenset[str]:
    """The words of ``text`` that carry its topic: no function words, no single letters or single hanzi."""
    return frozenset(t for t in tokens(text) if t not in _FUNCTION_WORDS and len(t) > 1)


def shared_terms(query: str, record: MemIR) -> frozenset[str]:
    """The topic words of ``query`` that the memory's text or descriptive property values also contain."""
    values = [v for v in record.properties.values() if isinstance(v, str)]
    return content_terms(query) & content_terms("\n".join([record.content.text, *values]))
