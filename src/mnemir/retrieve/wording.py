"""The few general facts of language recall reads in wording itself (zh + en); everything else about a query's
wording is learned (:mod:`mnemir.retrieve.learned`, features of the query's words) or read by the intent model.

Each set below names the phenomenon it encodes; none is written for a particular sentence. English entries match
as whole words, Chinese ones as substrings. 40 literals in all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache

#: anteriority: adverbs that place the state asked about before now (earlier, replaced memories answer it)
PAST = ("以前", "之前", "原来", "过去", "曾经", "当时", "那时", "上次", "上回",
        "used to", "use to", "previously", "originally", "back then", "last time", "in the past", "at first")
#: the present: adverbs that ask how things stand now (an old feeling is then not the answer)
NOW = ("现在", "目前", "最近", "这几天", "now", "currently", "lately", "these days", "still")
#: deixis: words that point at the situation in force (what was said in the active setting answers them)
HERE = ("这个", "这里", "今天", "this one", "here", "today")
#: change of state: words by which a statement says it replaces an earlier habit or preference
CHANGE = ("改", "换成", "不再", "switched", "changed", "no longer", "instead", "anymore")
#: a changed stance: besides the change words, words by which a speaker says they came to another view ("after all",
#: "come round", "想通了") or how they stand now ("现在", "now"): a statement of a stance that says either replaces an
#: earlier stance on the same thing
CHANGED_STANCE = (*CHANGE, *NOW[:2], "now", "after all", "come round", "come around", "changed my mind",
                  "想通了", "改主意", "变卦")


def _pattern(words: Iterable[str]) -> re.Pattern[str]:
    parts = [rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in sorted(words, key=len, reverse=True)]
    return re.compile("|".join(parts), re.IGNORECASE)


_PAST, _NOW, _HERE, _CHANGE, _CHANGED_STANCE = (_pattern(w) for w in (PAST, NOW, HERE, CHANGE, CHANGED_STANCE))


@lru_cache(maxsize=256)  # asked per candidate by the frame and feeling rules, with the same query
def _past_words(query: str) -> bool:
    return _PAST.search(query) is not None


def asks_about_past(query: str, time_range: tuple[datetime | None, datetime | None] | None, now: datetime) -> bool:
    """Whether the query asks about an earlier state: an adverb of anteriority, or a time range that has ended."""
    return _past_words(query) or (time_range is not None and time_range[1] is not None and time_range[1] <= now)


@lru_cache(maxsize=256)
def asks_about_now(query: str) -> bool:
    """Whether the query asks how things stand now (and not about an earlier time)."""
    return _NOW.search(query) is not None and not _past_words(query)


def points_here(query: str) -> bool:
    """Whether the query points at the situation in force ("this one", "here", "今天")."""
    return _HERE.search(query) is not None


def says_stance_changed(text: str) -> bool:
    """Whether a statement says the speaker's stance changed or how it stands now (``CHANGED_STANCE``)."""
    return _CHANGED_STANCE.search(text) is not None


def says_change(text: str) -> bool:
    """Whether a statement says it replaces an earlier habit ("switched to", "改成")."""
    return _CHANGE.search(text) is not None
