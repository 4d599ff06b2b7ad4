"""Splitting an utterance into pieces that can each carry one memory, and spotting plans."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Piece", "is_plan", "split_pieces", "split_plan"]

# hard boundaries: sentence ends; soft ones: a comma before a contrast or a new topic
_HARD = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+(?=[A-Z\u4e00-\u9fff])")
_SOFT_ZH = re.compile(r"[，,]\s*(?=但是|但|不过|可是|然而|而且|另外|还有|顺便|对了|另一方面|我(?!们|的天))")
_SOFT_EN = re.compile(r",?\s+(?=\bbut\b|\bhowever\b|\balthough\b|\bby the way\b|\balso\b,?\s)|,\s+(?=\band (?:i|my)\b)|"
                      r"\s+(?=\band also\b)", re.I)
_LEADING_JOINER = re.compile(r"^(?:但是|但|不过|可是|然而|而且|另外|还有|顺便说一下|顺便|对了|and also|and|but|however|although|"
                             r"by the way|also)[,，\s]*", re.I)


@dataclass(frozen=True)
class Piece:
    text: str


def split_pieces(text: str) -> list[Piece]:
    """Pieces of an utterance, each with leading conjunctions removed; tiny fragments stay with their neighbour."""
    out: list[str] = []
    for hard in _HARD.split(text):
        for soft in _zh_clauses(hard):
            for piece in _SOFT_EN.split(soft):
                cleaned = _LEADING_JOINER.sub("", piece.strip(" ，,")).strip()
                if not cleaned:
                    continue
                if out and _too_small(cleaned):
                    out[-1] = out[-1] + " " + cleaned
                    continue
                out.append(cleaned)
    if len(out) > 1 and _too_small(out[0]):
        out[:2] = [out[0] + " " + out[1]]
    if not out and text.strip():
        out = [text.strip()]
    return [Piece(p) for p in out]


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


_PLAN_ZH = re.compile(r"(?:先|首先|第一步|第一)[，,：:]?.{1,60}?(?:然后|再|接着|之后|最后|其次|第二步|第二)")
_PLAN_EN = re.compile(r"\b(?:first(?:ly)?|step (?:1|one)|to start)\b.{1,120}?\b(?:then|after that|next|finally|second(?:ly)?|"
                      r"step (?:2|two)|afterwards|and lastly)\b", re.I)
_STEP_SPLIT = re.compile(r"[，,;；。.]?\s*(?:首先|第[一二三四五六七八九十\d]步|然后再|然后|接着|之后再|之后|最后再|最后|其次|再)\s*[，,:：]?|"
                         r"[,;.]?\s*\b(?:first(?:ly)?|then|after that|next|finally|lastly|second(?:ly)?|third(?:ly)?|"
                         r"afterwards|step \d+:?|and then)\b[,:]?\s*", re.I)
_PLAN_GOAL = re.compile(r"^(?:为了|我打算|我计划|计划|打算|我想|我要|关于)?(?P<g>.{2,40}?)(?:的话|的计划是?|的步骤是?|计划是|[，,：:])\s*"
                        r"(?:我们?|咱们)?(?:先|首先|第一步)|"
                        r"^(?:to|in order to|for|my plan for|the plan for|plan for|here'?s (?:my|the) plan for)\s+"
                        r"(?P<g2>.{2,80}?)(?:[,:]|\s+(?:i'?ll|we'?ll|i will|we will|is to))\s*(?:i'?ll\s+|we'?ll\s+)?"
                        r"(?:first|step 1)", re.I)


def is_plan(text: str) -> bool:
    return bool(_PLAN_ZH.search(text) or _PLAN_EN.search(text))


def split_plan(text: str) -> tuple[str | None, list[str]]:
    """(goal, steps) of a plan utterance; steps in order, goal None when the text states none."""
    goal_match = _PLAN_GOAL.search(text)
    goal = None
    body = text
    if goal_match:
        goal = (goal_match.group("g") or goal_match.group("g2") or "").strip(" ，,：:") or None
        first_marker = re.search(r"先|首先|第一步|\bfirst\b|\bstep 1\b", text[goal_match.start():], re.I)
        body = text[goal_match.start() + (first_marker.start() if first_marker else 0):]
    steps = [s.strip(" ，,。.;；:：") for s in _STEP_SPLIT.split(body)]
    steps = [re.sub(r"^(?:先|we'?ll|i'?ll|我们?|咱们)\s*", "", s, flags=re.I).strip() for s in steps]
    steps = [s for s in steps if len(re.sub(r"\W", "", s)) >= 2]
    return goal, steps
