"""Which words of a query a memory shares, beyond question and function words.

The embedder misses some matches a reader sees at once: "Where is the offsite being held?" and "The offsite is at
Lakeview Lodge" share the one word that matters, yet their cosine is near zero. A memory that is the best keyword
match for the query and shares such a word with it is anchored just above the relevance floor (ranking decides
the rest). Tokens come from the same segmenter as the full-text index, so Chinese is split into words too.
"""

from __future__ import annotations

import re
from functools import lru_cache

from mnemir.ir import MemIR
from mnemir.store.segment import tokens

#: question, function, discourse and filler words that say nothing about what a memory is about
_FUNCTION_WORD_LIST = """
a about after again all am an and any anything are as at be been being but by can could did didn do does doesn doing
don done else for from get gets getting go going gone got had has have having he her here him his how i if in into
is isn it its just know last lately let like me more most my no not now of off on one or our out over own really
remember say said so some something still such tell than that the their them then there these they thing things
think this those time to told too up us very was wasn we were what whats when where which while who whom why will
with won would you your yours s t ll ve re d m want need needs should shall may might must much many ever
我 你 他 她 它 我们 你们 他们 的 了 吗 呢 啊 吧 呀 是 在 有 没 没有 不 都 也 还 就 要 得 会 能 可以 什么 怎么 怎样 怎么样
哪 哪个 哪些 哪里 哪儿 多少 几 这 那 这个 那个 个 些 一下 一个 和 跟 与 给 把 被 让 去 来 到 上 下 里 吧 嘛 啥 咋 呗
现在 最近 时候 已经 应该 知道 记得 上次 我要 是不是 还是 这次 那次 今天 之前 以后 一般 觉得 一直 说 问 想 事 东西
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())
#: properties that hold a closed vocabulary (status words, a source), never a topic
ENUM_LIKE = frozenset({"status", "priority", "preference_type", "emotion_type", "act_type", "frame_type", "source"})


@lru_cache(maxsize=512)
def content_terms(text: str) -> frozenset[str]:
    """The words of ``text`` that carry its topic: no function words, no single letters or single hanzi, no bare
    numbers."""
    return frozenset(t for t in tokens(text) if t not in _FUNCTION_WORDS and len(t) > 1 and not t.isdigit())


def topic_text(record: MemIR) -> str:
    """A memory's text with its descriptive property values (not the closed-vocabulary ones: every fact has a
    ``source``, which says nothing about its topic)."""
    values = [v for k, v in record.properties.items() if isinstance(v, str) and k not in ENUM_LIKE]
    return "\n".join([record.content.text, *values])


def shared_terms(query: str, record: MemIR) -> frozenset[str]:
    """The topic words of ``query`` that the memory's text or descriptive property values also contain."""
    return content_terms(query) & content_terms(topic_text(record))


#: a remark in brackets on an entity ("retreat phone policy (joining instructions)"): who said it, not what it is
_REMARK = re.compile(r"\([^)]*\)|（[^）]*）")
#: entities every user memory shares
_EVERYONE = frozenset({"user", "用户"})


def entity_terms(record: MemIR) -> frozenset[str]:
    """The topic words of a memory's ``entity`` property, remarks in brackets aside (none for the user)."""
    entity = record.properties.get("entity")
    if not isinstance(entity, str):
        return frozenset()
    return content_terms(_REMARK.sub(" ", entity).lower()) - _EVERYONE
