"""Comparing the values of key properties: "mentions the same thing" (keys are normalised by
:func:`mnemir.ontology.norm_key`)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from mnemir.ontology import norm_key
from mnemir.retrieve.persons import IN_TRANSCRIPT, SAID_BY

_WORD = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: words too common to make two terms "the same thing"
_STOP = frozenset({"a", "an", "the", "of", "and", "or", "to", "with", "in", "on", "for", "my", "i", "me"})


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> set[str]:
    lowered = unicodedata.normalize("NFKC", text).casefold()
    return {_singular(w) for w in _WORD.findall(lowered) if w not in _STOP and len(w) > 1}


def terms_overlap(a: Any, b: Any) -> bool:
    """Whether two short terms name the same thing or one contains the other.

    "花生" / "花生酱", "peanuts" / "peanut butter", "Shellfish" / "shellfish" overlap; "tea" / "steak" do not
    (English is compared word by word, Chinese by substring).
    """
    if a is None or b is None:
        return False
    ka, kb = norm_key(a), norm_key(b)
    if not ka or not kb:
        return False
    if ka == kb:
        return True
    if has_cjk(ka) or has_cjk(kb):
        cjk_a, cjk_b = "".join(_CJK.findall(ka)), "".join(_CJK.findall(kb))
        if (len(cjk_a) >= 2 and cjk_a in kb) or (len(cjk_b) >= 2 and cjk_b in ka):
            return True
    wa, wb = _words(str(a)), _words(str(b))
    return bool(wa and wb and (wa <= wb or wb <= wa))


def variants(value: Any) -> list[str]:
    """Spellings to look a key value up by in the store (exact-match filters), most likely first."""
    text = str(value).strip()
    out = [text, text.lower(), text.casefold(), text.title(), text.capitalize(), text.upper()]
    return list(dict.fromkeys(v for v in out if v))


#: nouns that name a person by their relation to the speaker: a fact said of "my sister" is about the sister, so
#: it cannot contradict one said of "my brother" or of the speaker (a general fact of both languages, not a list of
#: benchmark wordings)
_PERSON_NOUNS_EN = (
    "mother", "mom", "mum", "father", "dad", "parents?", "sisters?", "brothers?", "siblings?", "sons?", "daughters?",
    "child", "children", "kids?", "wife", "husband", "partner", "boyfriend", "girlfriend", "fianc[eé]{1,2}",
    "spouse", "grandmother", "grandma", "grandfather", "grandpa", "granny", "grandparents?", "aunt", "auntie",
    "uncle", "cousins?", "niece", "nephew", "[a-z]+-in-law", "friends?", "neighbou?rs?", "colleagues?",
    "co-?workers?", "boss", "manager", "landlord", "landlady", "room-?mate", "flatmate", "teacher", "tutor",
    "coach", "assistant", "doctor", "dentist", "therapist", "lawyer", "accountant", "stepmother", "stepfather",
    "stepson", "stepdaughter", "baby", "team", "company", "dog", "cat", "pet",
)
_PERSON_NOUNS_ZH = (
    "妈妈", "妈", "母亲", "爸爸", "爸", "父亲", "父母", "姐姐", "哥哥", "弟弟", "妹妹", "姐", "哥", "弟", "妹", "儿子", "女儿",
    "孩子", "小孩", "老婆", "老公", "妻子", "丈夫", "爱人", "对象", "男朋友", "女朋友", "未婚夫", "未婚妻", "爷爷", "奶奶",
    "外公", "外婆", "姥姥", "姥爷", "叔叔", "阿姨", "舅舅", "舅妈", "姑姑", "姨", "表哥", "表姐", "表弟", "表妹", "堂哥",
    "堂姐", "堂弟", "堂妹", "侄子", "侄女", "外甥", "岳父", "岳母", "公公", "婆婆", "朋友", "同事", "领导", "老板", "上司",
    "邻居", "房东", "室友", "同学", "老师", "医生", "律师", "宝宝", "公司", "团队", "狗", "猫",
)
_PERSON_EN = re.compile(r"\b(?:my|our|the user's)\s+(?:[a-z]+\s+)?(" + "|".join(_PERSON_NOUNS_EN) + r")\b", re.I)
_PERSON_ZH = re.compile(r"(?:我|我们|咱|咱们)(?:的|家)?(" + "|".join(sorted(_PERSON_NOUNS_ZH, key=len, reverse=True)) + ")")


def people_named(text: str) -> frozenset[str]:
    """The people (and the household's animals, teams, companies) a text names by their relation to the speaker:
    "my older sister" -> {"sister"}, "我哥哥" -> {"哥哥"}; empty when it names none (a fact about the speaker)."""
    found = {m.group(1).casefold().rstrip("s") for m in _PERSON_EN.finditer(text)}
    found |= {m.group(1) for m in _PERSON_ZH.finditer(text)}
    return frozenset(found)


def same_subject(a_text: str, b_text: str) -> bool:
    """Whether two statements can be about the same person: they name the same people by relation, or none."""
    return people_named(a_text) == people_named(b_text)


#: words that say nothing about what a statement is about (function words, auxiliaries, the commonest verbs of
#: wanting, needing and doing, fillers): left out when two statements are compared by the terms they share
_FUNCTION_EN = frozenset(["a", "an", "the", "of", "and", "or", "but", "to", "with", "in", "on", "at", "for", "from", "by", "into", "onto", "over", "under", "about", "after", "before", "than", "then", "so", "as", "if", "i", "me", "my", "mine", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they", "them", "their", "this", "that", "these", "those", "there", "here", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "all", "any", "some", "each", "every", "both", "either", "no", "not", "nor", "only", "own", "same", "too", "very", "just", "also", "still", "even", "really", "actually", "again", "already", "now", "soon", "later", "today", "tomorrow", "yesterday", "week", "weekend", "month", "year", "morning", "evening", "night", "time", "day", "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "doing", "done", "have", "has", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might", "must", "need", "needs", "needed", "want", "wants", "wanted", "going", "gonna", "get", "gets", "got", "getting", "make", "made", "let", "lets", "go", "goes", "went", "say", "said", "tell", "told", "think", "thought", "know", "knew", "see", "saw", "look", "looked", "give", "gave", "take", "took", "put", "keep", "kept", "come", "came", "ok", "okay", "yes", "yeah", "yep", "sure", "well", "oh", "hi", "hey", "thanks", "thank", "please", "sorry", "right", "good", "great", "fine", "bit", "lot", "lots", "thing", "things", "one", "two", "three", "first", "next", "last", "other", "another", "more", "most", "much", "many", "little", "few", "way", "back", "out", "up", "down", "off", "i'm", "i've", "i'll", "i'd", "it's", "that's", "we're", "we've", "we'll", "you're", "don't", "didn't", "doesn't", "can't", "won't", "isn't", "wasn't"])
_FUNCTION_ZH = frozenset("我你他她它们的了是在和就也都还要得把被给这那个一吧呢吗啊呀么着过说去来到又再先没不很太好会能想有对让跟")
_EN_TERM = re.compile(r"[a-z][a-z0-9'-]+|\d+[a-z]*")
_ZH_RUN = re.compile(r"[\u3400-\u9fff]+")


def _stem(word: str) -> str:
    word = word.strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> frozenset[str]:
    """The terms a statement is about, for comparing two statements: English content words (function words out,
    crude stems: "booked" / "booking" -> "book"), numbers, and Chinese character pairs with no function character
    ("报名截止" -> 报名, 名截, 截止)."""
    lowered = unicodedata.normalize("NFKC", text).casefold()
    stems = (_stem(w) for w in _EN_TERM.findall(lowered) if w not in _FUNCTION_EN)
    out = {w for w in stems if len(w) > 2 and w not in _FUNCTION_EN}
    for run in _ZH_RUN.findall(lowered):
        out |= {run[i:i + 2] for i in range(len(run) - 1)
                if run[i] not in _FUNCTION_ZH and run[i + 1] not in _FUNCTION_ZH}
    return frozenset(t for t in out if t)


# -- who said it: a transcript's speakers are different people (docs/decisions/0087) -------------------------------
#: whether memories said by different speakers of a transcript may replace each other (a change, a correction, a
#: new value of one attribute) only when one names the other's speaker
OTHER_SPEAKERS_KEPT = True


def _names(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (a transcript label: an English given name, or two to four Han characters)."""
    if has_cjk(name):
        return name in text
    return re.search(rf"\b{re.escape(name)}\b", text, re.I) is not None


def said_by_another(label: str | None, text: str, in_transcript: bool, old: Any) -> bool:
    """Whether ``old`` (a MemIR) was said by another speaker of the transcript that a new statement (``text``, said
    by ``label``) is part of, and neither names the other's speaker. In a conversation between people, what one of
    them says is about themselves, or about whom it names: another speaker's statement (their own news, their
    family, their plans) does not change it, however alike the words ("I signed up for a class" / "I signed up for
    a race"). A statement that names the other speaker ("Kofi moved it to Friday") or an old one that names the new
    speaker ("Dez is off to Leeds" / Dez: "Bristol, not Leeds") may be about the same person, and is compared as
    before. A general fact of conversations, in both languages."""
    if not OTHER_SPEAKERS_KEPT or not in_transcript or not label:
        return False
    extra = getattr(getattr(old, "metadata", None), "extra", None) or {}
    other = extra.get(SAID_BY)
    if not isinstance(other, str) or not other or other == label:
        return False
    return not _names(text, other) and not _names(old.content.text, label)


def said_by_other_people(new: Any, old: Any) -> bool:
    """``said_by_another`` for two stored memories (governance's contradictions: a new value of one attribute)."""
    extra = getattr(getattr(new, "metadata", None), "extra", None) or {}
    label = extra.get(SAID_BY)
    return said_by_another(label if isinstance(label, str) else None, new.content.text, bool(extra.get(IN_TRANSCRIPT)),
                           old)
