"""Splitting an utterance into pieces that can each carry one memory, and spotting plans."""

from __future__ import annotations

import re

__all__ = ["is_plan", "split_clauses", "split_pieces", "split_plan"]

#: the full stop of an English title or short form before a name ("Dr. Moreno", "Mrs. Patel", "St. Mary's") ends no
#: sentence (docs/decisions/0110: "book a follow-up with Dr. X" was read as a task and a fact "X in six months").
#: Off: on dev it moved collapse end to end by 2 queries of 1,009 (2 won / 0 lost in the 26 scenarios it acts in)
#: and extraction by 1 won / 2 lost of the 13 rows it acts in (a sentence kept whole gives one reading where the
#: split gave two), within churn; False: every full stop before a capital ends a sentence
TITLES_END_NO_SENTENCE = False
_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "Mt", "Jr", "Sr", "Rev", "Capt", "Sgt", "Lt", "Gen", "Col")
_NOT_A_TITLE = "".join(rf"(?<!\b{t}\.)" for t in _TITLES)
# hard boundaries: sentence ends; soft ones: a comma before a contrast or a new topic
_HARD_ANY = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+(?=[A-Z\u4e00-\u9fff])")
_HARD_NO_TITLE = re.compile(rf"(?<=[。！？!?；;\n])|(?<=[.]){_NOT_A_TITLE}\s+(?=[A-Z\u4e00-\u9fff])")
_SOFT_ZH = re.compile(r"[，,]\s*(?=但是|但|不过|可是|然而|而且|另外|还有|顺便|对了|另一方面|我(?!们|的天))")
_SOFT_EN = re.compile(r",?\s+(?=\bbut\b|\bhowever\b|\balthough\b|\bby the way\b|\balso\b,?\s)|,\s+(?=\band (?:i|my)\b)|"
                      r"\s+(?=\band also\b)", re.I)
_LEADING_JOINER = re.compile(r"^(?:但是|但|不过|可是|然而|而且|另外|还有|顺便说一下|顺便|对了|and also|and|but|however|although|"
                             r"by the way|also)[,，\s]*", re.I)


def split_pieces(text: str) -> list[str]:
    """Pieces of an utterance, each with leading conjunctions removed; tiny fragments stay with their neighbour."""
    out: list[str] = []
    for hard in (_HARD_NO_TITLE if TITLES_END_NO_SENTENCE else _HARD_ANY).split(text):
        for soft in _zh_clauses(hard):
            for piece in _SOFT_EN.split(soft):
                cleaned = _LEADING_JOINER.sub("", piece.strip(" ，,")).strip()
                if not cleaned or (_COURTESY.match(cleaned) and _too_small(cleaned)):
                    continue  # a sentence that is only "thanks" / "好的" says nothing to merge into its neighbour
                if out and _too_small(cleaned):
                    out[-1] = out[-1] + " " + cleaned
                    continue
                out.append(cleaned)
    if len(out) > 1 and _too_small(out[0]):
        out[:2] = [out[0] + " " + out[1]]
    if not out and text.strip():
        out = [text.strip()]
    return out


_CLAUSE = re.compile(r"[，,；;：:]\s*|\s+[-–—]\s+")


def split_clauses(piece: str) -> list[str]:
    """A piece's clauses (at commas, semicolons, colons and dashes), each big enough to say something on its own; a
    piece of one clause gives one. A clause too small to stand alone stays with the one before it."""
    out: list[str] = []
    for part in _CLAUSE.split(piece):
        cleaned = _LEADING_JOINER.sub("", part.strip(" ，,。.")).strip()
        cleaned = re.sub(r"^(?:so|because|since|and|所以|因为|但|可)\s*", "", cleaned, flags=re.I).strip()
        if not cleaned:
            continue
        if out and (_too_small(cleaned) or len(re.sub(r"[\W_]", "", cleaned)) < 4):
            out[-1] = out[-1] + "，" + cleaned if re.search(r"[\u4e00-\u9fff]", cleaned) else out[-1] + ", " + cleaned
            continue
        out.append(cleaned)
    return out


#: a whole sentence of courtesy or acknowledgement ("Cheers.", "Thanks!", "好的。", "嗯嗯"): it carries no memory
_COURTESY = re.compile(r"^(?:好的?|好吧|嗯+|哦+|噢|行|对|是的|谢谢|多谢|感谢|收到|明白了?|知道了|哈+|ok(?:ay)?|thanks?|thank you|cheers|"
                       r"got it|sure|cool|great|nice|perfect|awesome|brilliant|lovely|yes|yeah|yep|yup|no|nope|alright|"
                       r"right|oh|wow|lol|haha|hmm+|sounds good|will do|noted|understood)[\s!！。.,，~～…]*$", re.I)


_ABOUT_USER = re.compile(r"我|帮|请|麻烦|记得|提醒")


def _zh_clauses(text: str) -> list[str]:
    """Split at a comma before a contrast or a new "我" clause; a clause that is not itself about the user
    ("项目延期了，我很焦虑") stays with the "我" clause after it, as its cause."""
    parts = _SOFT_ZH.split(text)
    out: list[str] = []
    for part in parts:
        if out and part.startswith("我") and not _ABOUT_USER.search(out[-1]):
            out[-1] = out[-1] + "，" + part
        else:
            out.append(part)
    return out


def _too_small(text: str) -> bool:
    letters = re.sub(r"[\W_]", "", text)
    if re.search(r"[\u4e00-\u9fff]", text):
        return len(letters) < 3
    return len(text.split()) < 2


# -- plans --------------------------------------------------------------------------------------------------------
# A plan is an utterance that lays out ordered steps. The shapes people use: sequence words ("先…再…然后…最后",
# "first…, then…, finally…", "start with…, after that…"), ordinal steps ("第一步…第二步", "step one…step two",
# "一是…二是"), numbered lists ("1. … 2. …", "1) … 2) …", "①…②") and a goal before a colon ("Marathon prep: …").
_DIGITS = "1-9１-９"
_NUMBERED = re.compile(rf"(?:(?:^|(?<=[\s，,；;。.:：!！?？]))(?:[(（]?([{_DIGITS}])[.)、）．](?!\d)|[(（]([{_DIGITS}])[)）])|"
                       r"([①②③④⑤⑥⑦⑧⑨]))\s*")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨"
#: ordinal time units or stages ("第一天…第二天", "第一周…第二周", "第一站…"): steps in order, whatever the unit
_ZH_UNIT = r"(?:天|周|个月|月|年|站|轮|阶段|部分|晚)"
_ZH_START = rf"先|首先|第一步|第一[，,、：:]|一是|起初|第一{_ZH_UNIT}"
_ZH_THEN = rf"然后|再(?!见|会|说吧)|接着|之后|最后|其次|第二步|第二[，,、：:]|二是|随后|完了再|第二{_ZH_UNIT}"
_PLAN_ZH = re.compile(rf"(?:{_ZH_START}).{{1,80}}?(?:{_ZH_THEN})")
_PLAN_ZH_CHAIN = re.compile(r"(?:然后|接着|之后|随后).{1,60}?(?:然后|接着|之后|最后|再)")
_EN_NUMBER_WORDS = r"(?:one|two|three|four|five|six|1|2|3|4|5|6)"
_EN_START = (r"first(?:ly)?|first of all|to (?:start|begin)(?: with)?|start(?:ing)? (?:with|by|off)|begin (?:with|by)|"
             r"step (?:1|one)|stage (?:1|one)|phase (?:1|one)|the first step is")
_EN_THEN = (r"then|after that|afterwards|after which|next(?=[,:]|\s+(?:i|we|you)\b)|finally|lastly|last(?=[,:])|"
            r"followed by|once (?:that'?s|that is|it'?s|this is) (?:done|sorted|finished)|second(?:ly)?|third(?:ly)?|"
            r"step (?:2|two|3|three)|stage (?:2|two)|phase (?:2|two)|and to finish|to finish(?: up)?")
_PLAN_EN = re.compile(rf"\b(?:{_EN_START})\b.{{1,160}}?\b(?:{_EN_THEN})\b", re.I)
_EN_THEN_RX = re.compile(rf"\b(?:{_EN_THEN})\b", re.I)
_PLAN_WORD = re.compile(r"\b(?:plan|steps?|to-?do|checklist|process|roadmap)\b\s*(?:is|are|for [^,:]{1,60})?\s*(?:to\b|[:：])|"
                        r"计划|步骤|流程|安排如下|打算", re.I)
_STEP_SPLIT = re.compile(
    rf"[，,;；。.]\s*(?=第[一二三四五六七八九十]{_ZH_UNIT})|"
    rf"[，,;；。.]?\s*(?:首先|第[一二三四五六七八九十\d]步|一是|二是|三是|四是|然后再|然后|接着|之后再|之后|随后|最后再|最后|其次|"
    rf"第[一二三四五][，,、：:]|完了再|再)\s*[，,:：]?|"
    rf"[,;.]?\s*\b(?:{_EN_START}|{_EN_THEN}|and then|step \d+:?|stage \d+|phase \d+|step {_EN_NUMBER_WORDS})\b[,:]?\s*|"
    rf"(?:(?:^|(?<=[\s，,；;。.:：!！?？]))(?:[(（]?[{_DIGITS}][.)、）．](?!\d)|[(（][{_DIGITS}][)）])|[{_CIRCLED}])\s*",
    re.I)
_GOAL_PREFIX = re.compile(r"^(?:为了|我打算|我计划|我准备|我想|我要|关于|计划|打算|准备|(?:in order to|to|for|about|re)\b|"
                          r"(?:here'?s |this is )?(?:my|the|our) (?:plan|steps|game plan|to-?do list|checklist) "
                          r"(?:for|to)|plan for|steps for)\s*", re.I)
_GOAL_SUFFIX = re.compile(r"(?:的话|的计划是?|的步骤是?|的流程是?|计划(?:是|如下)?|步骤(?:是|如下)?|流程(?:是|如下)?|这事儿?|这件事|"
                          r"这块|呢|\s+(?:i'?ll|we'?ll|i will|we will|i need to|we need to|i have to|we have to|i'?m going to|"
                          r"we'?re going to|i plan to|i want to)|'?s? (?:plan|steps|process|game plan)(?: is| are)?(?: to)?|"
                          r"\s+plan|\s+steps|\s+process|\s+is to)$", re.I)
_FILLER = re.compile(r"^(?:ok(?:ay)?|so|well|right|alright|i think|i guess|basically|honestly|好的?|嗯+|那|那么|我觉得|"
                     r"我想想|这样吧|行|我们?|咱们|大家|we|i|us|(?:the |my |our )?(?:plan|idea|steps?)(?: is| are)?|"
                     r"计划(?:是|如下)?|步骤(?:是|如下)?|安排(?:是|如下)?)$", re.I)
#: a head that only says when ("Tomorrow morning: …", "周末：…") is the plan's time, not its goal
_ONLY_TIME = re.compile(r"^(?:(?:this|next|tomorrow|today|tonight|on|the|every|coming|weekend|week|month|year|morning|"
                        r"afternoon|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|"
                        r"thu|fri|sat|sun|am|pm|\d+(?:st|nd|rd|th)?|[:.]|\s)+|(?:今天|明天|后天|今晚|明晚|上午|下午|晚上|早上|中午|"
                        r"周末|本周|这周|下周|下个?月|这个?月|明年|今年|(?:[下这本上]个?)?(?:周|星期|礼拜)[一二三四五六日天]|"
                        r"[0-9一二三四五六七八九十]+[号日月点]|的|[,，\s])+)$", re.I)


def _numbered_steps(text: str) -> list[int]:
    """The numbers of list markers ("1." "2)" "③") in order."""
    out = []
    for m in _NUMBERED.finditer(text):
        raw = next(g for g in m.groups() if g)
        out.append(_CIRCLED.index(raw) + 1 if raw in _CIRCLED else int(raw.translate(_FULLWIDTH)))
    return out


_FULLWIDTH = str.maketrans("１２３４５６７８９", "123456789")


def _is_numbered_list(text: str) -> bool:
    numbers = _numbered_steps(text)
    return len(numbers) >= 2 and numbers[0] == 1 and numbers[1] == 2


def is_plan(text: str) -> bool:
    """True when the text lays out at least two ordered steps (see the shapes above)."""
    if _is_numbered_list(text) or _PLAN_ZH.search(text) or _PLAN_EN.search(text) or _PLAN_ZH_CHAIN.search(text):
        return True
    # "sand it, then prime it, then paint": two sequence words after a first clause; or one after a plan word
    # ("the plan is to ... , ... , then ...", "<goal>: do this, then ...")
    thens = len(_EN_THEN_RX.findall(text))
    if thens >= 2 and re.search(r"[,;]", text):
        return True
    return thens >= 1 and bool(_PLAN_WORD.search(text) or re.search(r"^[^,:：]{2,60}[:：]\s*\S.*[,，;；]", text))


def _first_step_at(text: str) -> int:
    """Where the steps begin: at a start word, a list marker, after a plan word or colon, else 0."""
    candidates = []
    for pattern in (rf"{_ZH_START}", rf"\b(?:{_EN_START})\b"):
        m = re.search(pattern, text, re.I)
        if m:
            candidates.append(m.start())
    m = _NUMBERED.search(text)
    if m and _is_numbered_list(text):
        candidates.append(m.start())
    start = min(candidates) if candidates else None
    colon = re.search(r"[:：]", text)
    if colon and colon.start() <= 60 and (start is None or colon.start() < start):
        return colon.end() if start is None else start
    plan_word = re.search(r"\b(?:plan|steps?) (?:is|are) to\b|计划是|步骤是", text, re.I)
    if plan_word and (start is None or plan_word.end() <= start):
        return plan_word.end() if start is None else start
    return start or 0


def _goal_of(head: str) -> str | None:
    """The goal stated before the steps; only when the head is marked as one (a colon or comma after it, "为了…",
    "to …", "… I'll", "the plan is to"), so "do X first, then …" keeps its first step."""
    marked = bool(re.search(r"[:：,，]\s*$", head))
    head = head.strip(" ，,：:。.;；-—")
    if not head:
        return None
    marked = marked or bool(_GOAL_PREFIX.match(head) or _GOAL_SUFFIX.search(head))
    if not marked:
        return None
    goal = head
    for _ in range(2):
        goal = _GOAL_PREFIX.sub("", goal).strip(" ，,：:")
        goal = _GOAL_SUFFIX.sub("", goal).strip(" ，,：:")
    goal = re.sub(r"^(?:我们?|咱们|the|my|our)\s*(?=\S)", "", goal, flags=re.I) if len(goal) > 6 else goal
    if len(re.sub(r"\W", "", goal)) < 2 or _FILLER.match(goal) or _ONLY_TIME.match(goal) or len(goal) > 80:
        return None
    return goal


def split_plan(text: str) -> tuple[str | None, list[str]]:
    """(goal, steps) of a plan utterance; steps in order, goal None when the text states none."""
    start = _first_step_at(text)
    goal = _goal_of(text[:start]) if start else None
    # a head before a colon that names no goal ("Tomorrow morning: …", "Plan is: …") is no step either
    body = text[start:] if goal or (start and re.search(r"[:：]\s*$", text[:start])) else text
    steps = [re.sub(r"[\s,，]+(?:and|&)$", "", s.strip(" ，,。.;；:："), flags=re.I).strip(" ，,")
             for s in _STEP_SPLIT.split(body) if s]
    steps = [re.sub(r"^(?:先|and |we'?ll|i'?ll|we|i|我们?|咱们)\s*", "", s, flags=re.I).strip() for s in steps]
    steps = [s for s in steps if len(re.sub(r"\W", "", s)) >= 2]
    return goal, steps
