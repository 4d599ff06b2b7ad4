"""Comparing the values of key properties: "mentions the same thing" (keys are normalised by
:func:`mnemir.ontology.norm_key`)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from mnemir.ontology import norm_key

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
