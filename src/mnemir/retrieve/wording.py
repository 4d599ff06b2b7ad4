"""What a query's or a memory's wording says, read with small bilingual (zh + en) patterns: a question about the
past or about now, about feelings, about where a task stands or what is left, asking for advice or for an
attribute's value; a preference that says it replaced an earlier habit. Recall's rules read these; the numbers
they weigh are in :class:`~mnemir.retrieve.ranking.RankingConfig`.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from mnemir.understand.lexicon import EMOTION_WORDS

#: wording that asks about the past itself ("what did I use to...", "以前"): replaced memories are the answer
PAST_WORDS = re.compile(
    r"以前|之前的|原来|原先|过去|曾经|当初|当时|那时|那会儿|那阵子?|那段时间|早先|旧的|"
    r"\b(?:used to|did\b.{0,40}\buse to|before (?:that|then|this|now)|before(?=\W*$)|(?:was|were|did|had)\b.{0,40}\bbefore|previous(?:ly)?|originally|formerly|"
    r"(?:my|the|our) old|earlier on|at first|back then|in the past|history of)\b", re.I)
#: a past moment named as the one asked about ("那天", "上回", "when they first told me", "after that meeting"), unless
#: the query looks ahead ("that meeting tomorrow", "the day we move")
PAST_MOMENT = re.compile(
    r"那天(?!气)|那次|那晚|那一刻|上回|上次|上一(?:家|个|次|回|位)|\b(?:last time|the very first (?:week|day|time|lesson|"
    r"session|class)|that (?:day|night|morning|evening|moment|meeting|call)|when (?:they|he|she|you|we|i) first|"
    r"(?:when|after) (?:they|he|she|you|we) (?:told|broke|gave|said)|the day (?:they|he|she|you|we|i) (?:\w+ed|told|"
    r"broke|gave|said|came|got|left|found))\b", re.I)
FUTURE_WORDS = re.compile(r"明天|后天|下周|下次|下个|待会|等会|将来|\b(?:tomorrow|next|upcoming|will|going to|"
                          r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b", re.I)


@lru_cache(maxsize=256)  # asked per candidate by the frame and feeling rules, with the same query
def _past_words(query: str) -> bool:
    return bool(PAST_WORDS.search(query)) or (PAST_MOMENT.search(query) is not None
                                              and FUTURE_WORDS.search(query) is None)


#: wording that asks about the user's state now or lately ("still", "最近", "these days", "前两天")
NOW_WORDS = re.compile(r"还|最近|现在|目前|如今|近来|这阵子|这几天|这两天|前两天|这周|\b(?:still|now|lately|these days|currently|"
                       r"recently|at the moment|any ?more|the other day|this week|right now)\b", re.I)

#: "still", "these days" in a question about the user ("am I still...", not "is the pharmacy still open?"), "还..." (not
#: "还能", "还贷", "还要", "还给": can still, repay, still have to, give back): how something stands for the user now
STILL_FORM = re.compile(r"还(?![能可贷款钱要得有是给])|最近|这阵子|这几天|这两天|"
                        r"\b(?:i|me|my|we|us|our)\b.*\b(?:still|lately|these days|by now|any ?more)\b|"
                        r"\b(?:still|lately|these days|by now|any ?more)\b.*\b(?:i|me|my|we|us|our)\b", re.I)


@lru_cache(maxsize=256)  # asked once per candidate feeling, with the same query
def asks_about_now(query: str) -> bool:
    """Whether the query asks about the user's state now ("还", "lately"), not about an earlier time ("当时")."""
    return bool(NOW_WORDS.search(query)) and not _past_words(query)


def asks_about_past(query: str, time_range: tuple[datetime | None, datetime | None] | None, now: datetime) -> bool:
    """Whether the query asks about an earlier state ("以前", "used to", "那天", a time range that has ended)."""
    return _past_words(query) or (time_range is not None and time_range[1] is not None and time_range[1] <= now)


#: wording that asks how the user reacted or is coping (a question about feelings without the word "feel")
REACTION_FORM = re.compile(
    r"感受|心态|情绪|心里|(?:我|大家|(?<!其)他|她|孩子|人)(?:是)?(?:个)?(?:什么|啥)状态|受得了|扛得住|难受吗|还好吗|什么反应|想开了|释怀|还有意见|有怨气|闹僵|处得|"
    r"关系(?:怎么样|咋样|如何|好点)|开心|高兴|乐不乐|乐呵|劲头|干劲|兴致|起劲|带劲|沮丧|郁闷|"
    r"\b(?:enjoy(?:s|ed|ing)?|having fun|excited|motivated|happy (?:with|about)|proud)\b|\bhow (?:am|was|were|have) i (?:doing|holding up|coping|"
    r"taking|handling|getting on|been)\b|\bhow did i (?:take|handle|cope|react|deal|feel|find)\b|"
    r"\b(?:leave|left) me\b|\b(?:eating at|getting to|gets to|weighing on|bothering|bugging) (?:me|you)\b|\bon my mind\b|"
    r"\b(?:(?:am i|are we|i'm|i am) over it|made peace with|let it go)\b|\bhow(?:'s| is| are) \w+ (?:getting on|coping|"
    r"holding up|finding it|settling in)\b|\b(?:land|landed) with me\b|\bbad blood\b|\bthings between (?:me|us) and\b|"
    r"\bbetween (?:me|us) and \w+ (?:now|lately|these days)\b|\b(?:on good terms|had a falling[- ]out|fallen out with)\b|\b(?:react|reacted|reaction|coping|holding up|in what mood|state of mind)\b", re.I)
#: the understanding layer's emotion words, read in a question as asking about a feeling ("Was I upset ...?",
#: "Still cross about ...?"). Left out: single Chinese characters ("累", "烦": parts of other words) and the words
#: that questions use in other senses ("Is the battery low?", "What's the content of the contract?", "压力" of a tyre)
_OTHER_SENSES = frozenset({
    "ache", "beat", "blue", "calm", "content", "cry", "down", "empty", "low", "lost it", "miss", "moved", "numb",
    "panic", "shock", "snapped", "stings", "tense", "torn", "touched", "useless", "压力", "头疼", "期待", "舒服", "无聊"})
FEELING_WORDS = re.compile("|".join(
    rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w)
    for w in sorted({w for w in EMOTION_WORDS if w.isascii() or len(w) > 1} - _OTHER_SENSES
                    | {"cross about", "cross with", "bitter about", "sore about"}, key=len, reverse=True)), re.I)
#: wording that asks where a piece of work stands (a task question without "done", "yet" or "进展")
PROGRESS_FORM = re.compile(
    r"那件事|那事|的事儿?呢|那边呢|办得|弄得|搞得|咋样|有消息|落实|着落|搞定|弄好|有动静|回音|哪一步|到哪儿?了|"
    r"\b(?:sorted|squared away|taken care of|dealt with|heard back|get back to)\b|\bwhere (?:do|does|did) .{0,30}\bstand\b|"
    r"\bwhere (?:are|is|am|was|were) (?:we|things|it|that|i) (?:with|on|at)\b|"
    r"\b(?:worked out|go(?:ne)? through|come through|on track|any (?:news|luck|word|update)|owe)\b|"
    r"\bhow(?:'s| is| are) .{1,30} (?:going|coming along)\b", re.I)
#: wording that asks what still stands in the way (a question about what is left, without "left" or "还有")
REMAINING_FORM = re.compile(
    r"卡在|卡住|卡哪|还差|还缺|还剩(?:哪|几步|什么事|啥事)|哪几步|还(?:得|要)[^，。？?]{0,6}(?:哪些|哪几)|"
    r"还(?:得|要)(?:做|办|练|准备|弄|交|补|学)[^，。？?]{0,4}什么|准备好|就绪|\b(?:blocking|blocked|holding (?:us|me|things|it) up|hanging over|good to go|"
    r"ready (?:for|to)|all set|what else (?:do|does|did|have|has)? ?(?:i|we) (?:need|have to|got to))\b", re.I)
#: wording that asks for advice or a suggestion (answered by what the user likes and what is true now)
ADVICE_FORM = re.compile(
    r"要不要|该不该|该怎么|应该怎么|怎么回(?:复|应)?(?:他|她|他们|对方|顾客|客户)?(?:？|\?|$)|适合|合适|推荐|好不好|哪.{0,3}好|"
    r"\b(?:how should (?:i|we)|should (?:i|we)|shall (?:i|we)|good idea|"
    r"any (?:ideas?|tips|suggestions?)|recommend|worth it|ok to|okay to|fancy)\b", re.I)
#: wording that asks what the user is to do (a question about doing, not about a thing's attribute)
DOING_FORM = re.compile(
    r"安排|要做什么|要干什么|要办什么|需要我|要我|该做|\b(?:what am i doing|what are we doing|(?:need|have|got|supposed) "
    r"to do|needs? doing|to be done|my plans?|on my plate)\b", re.I)
#: wording that asks for the next step of something under way (a plan's step, not a fact about it)
NEXT_FORM = re.compile(
    r"接下来(?:该|要|得)?(?:干|做|弄|办|搞)|下一步|然后(?:该|要)(?:干|做|弄)|\bwhat(?:'s| is| comes) next\b(?!\s+(?:week|month|year|time|door|weekend|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday))|"
    r"\bnext step\b|\bwhat do i do (?:after|once|next)\b", re.I)
#: wording that asks for an attribute's value (which, where, when, how much): a question a fact answers
FACT_FORM = re.compile(
    r"哪家|哪里|哪儿|在哪|哪些|多少|几(?:点|号|天|个|次|岁|公里|块|件|月)|什么时候|哪天|是什么|叫什么|多大|多重|多高|多长|多远|多久|"
    r"(?:给|找|是|问)谁|谁(?:来|去|负责|管)|"
    r"\b(?:what(?:'s| is| are| was| were)|what(?: \w+){1,3} (?:am|is|are|was|were) (?:i|we|it|they)\b|"
    r"what did .{1,40} (?:show|say|find|come back with)|where(?:'s| is| are| was)|when(?:'s| is| does| do| are| was)|which|"
    r"who(?:'s| is| was)|how (?:much|many|long|old|far|big|often|slow|fast|heavy))\b", re.I)

#: a wh-question in the past ("What did the installer quote us?", "Where did we put the spare key?"): its "did" asks
#: for what happened or was said, not whether a task is done ("Did you book it?")
WH_DID = re.compile(r"\b(?:what|where|who|whom|which|when|how much|how many)\b[^?？]{0,30}?\bdid (?:you|i|we|the)\b", re.I)

#: wording that asks how something is going to be arranged ("where is it going to live?", "打算放哪"):
#: an open task that shares the topic is the arrangement under way, shown as a task
ARRANGEMENT_FORM = re.compile(
    r"打算|准备在|要在哪|放哪|放在哪|\b(?:going to|gonna)\b", re.I)

#: a wh-question in the present progressive ("Where are we meeting in March?", "Who's judging Best Rescue?"): it may
#: ask about an arrangement still under way, or about a settled fact ("When am I seeing the doctor?"), so an open task
#: on the topic may only fill a thin answer, never push a fact out
PROGRESSIVE_FORM = re.compile(
    r"\b(?:where|who|when|how|which)(?:['’](?:s|re)|\s+(?:am|are|is))\s+(?:(?:i|we|you|they|he|she|it|people)\s+\w+ing|"
    r"(?:\w+\s+){0,3}?being\s+\w+)\b|\bwho(?:['’]s|\s+is)\s+\w+ing\b", re.I)


#: wording by which a preference says it replaces an earlier habit ("I've switched to decaf", "现在改成早上去")
CHANGE_WORDS = re.compile(
    r"改(?:成|为|喝|吃|玩|用|走|去|坐|到|在|穿|买|学|练|住|开|骑|报)|换成|不再|戒了|不.{0,2}了|现在|最近|以后|如今|开始|这回|"
    r"这次|\b(?:switched|switch(?:ing)? to|changed|gone off|gone|went|turned|become|no longer|not any ?more|anymore|"
    r"stopped|quit|gave up|given up|instead|these days|nowadays|lately|now|from now on|rather|this time|for this one)\b",
    re.I)


def says_change(text: str) -> bool:
    return bool(CHANGE_WORDS.search(text))


#: wording that points at the situation in force ("this one", "here", "today", "这台", "这节课"): what was said in
#: the active contextual frame answers it even in few shared words
POINTING_WORDS = re.compile(
    r"这个(?!月|星期|礼拜|周|季度|学期|年)|这台|这辆|这把|这款|这件|这套|这里|这儿|这边|今天|今晚|这节|这堂|这次|"
    r"\b(?:this one|here|today|tonight|"
    r"this (?:session|lesson|class|meeting|call|visit|viewing|round|game))\b", re.I)


def points_here(query: str) -> bool:
    return bool(POINTING_WORDS.search(query))
