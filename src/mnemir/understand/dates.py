"""Relative dates in Chinese and English, resolved against an explicit ``now``.

Everything is computed in ``now``'s own timezone (the user's wall clock), so
"明天" said at 23:30 in Shanghai is the next Shanghai day, not the next UTC day.

Conventions (documented because natural language is ambiguous):

- a bare weekday ("周五", "Friday", "by Friday") is the next such day on or after today;
- "下周五" / "next Friday" is the Friday of the next calendar week (weeks start on Monday);
- "这周" / "this week" as a deadline is this week's Sunday, "下周" / "next week" next week's Sunday;
- "月底" / "end of the month" is the month's last day; "下个月" / "next month" (no day) its last day;
- "周末" / "the weekend" is Saturday; "年底" / "end of the year" is 31 December;
- a bare day of month ("5号", "the 5th") is this month's if not past, else next month's;
- a month-day ("3月15日", "March 15") is this year's if not past, else next year's.

A time of day ("下午3点", "3pm") turns the date into a datetime in ``now``'s zone.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Protocol

from mnemir.ir import ensure_aware

__all__ = ["DateMatch", "cn_number", "find_dates", "local_now", "resolve_deadline", "time_range"]

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
               "ten": 10, "a": 1, "an": 1, "a couple of": 2, "a few": 3, "couple of": 2, "few": 3}
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5,
               "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}
_EN_WEEKDAY = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_EN_MONTH = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_EN_MONTH.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_EN_MONTH["sept"] = 9

NUM = r"(?:\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
EN_NUM = r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|an?)"
EN_WD = r"(?:monday|tuesday|tues|wednesday|thursday|thurs|friday|saturday|sunday)"
EN_MON = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
ORD = r"(\d{1,2})(?:st|nd|rd|th)?"


def local_now(now: datetime | None) -> datetime:
    """``now`` checked for a timezone but kept in it (relative dates are the user's wall-clock dates); the clock's
    local time when None."""
    if now is None:
        return datetime.now().astimezone()
    ensure_aware(now)
    return now


def cn_number(text: str) -> int | None:
    """'5' -> 5, '十五' -> 15, '二十' -> 20, '两' -> 2; None if not a number."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(c not in _CN_DIGITS and c != "十" for c in text):
        return None
    if "十" not in text:
        value = 0
        for c in text:
            value = value * 10 + _CN_DIGITS[c]
        return value
    tens, _, ones = text.partition("十")
    return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)


def _en_number(text: str) -> int | None:
    text = text.strip().lower()
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text)


@dataclass(frozen=True)
class DateMatch:
    """A date expression found in text: what it said, where, and the resolved value."""

    phrase: str
    start: int
    end: int
    value: date | datetime

    @property
    def day(self) -> date:
        return self.value.date() if isinstance(self.value, datetime) else self.value


# -- calendar helpers ---------------------------------------------------------------
def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _weekday_in_week(today: date, weekday: int, weeks_ahead: int) -> date:
    return _week_start(today) + timedelta(days=7 * weeks_ahead + weekday)


def _coming_weekday(today: date, weekday: int) -> date:
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def _day_of_month(today: date, day: int, months_ahead: int | None) -> date | None:
    if months_ahead is None:
        months_ahead = 0 if day >= today.day else 1
    first = _add_months(today.replace(day=1), months_ahead)
    if not 1 <= day <= calendar.monthrange(first.year, first.month)[1]:
        return None
    return first.replace(day=day)


def _month_day(today: date, month: int, day: int, year: int | None = None) -> date | None:
    try:
        candidate = date(year or today.year, month, day)
    except ValueError:
        return None
    if year is None and candidate < today:
        candidate = candidate.replace(year=today.year + 1)
    return candidate


# -- the rules: (pattern, resolver(match, today) -> date | None) ---------------------------
#: how many weeks / months ahead a prefix points ("下下周", "上个月", "next Friday")
_AHEAD = {"下下": 2, "下": 1, "next": 1, "这": 0, "本": 0, "this": 0, "上": -1, "last": -1}


def _ahead(prefix: str | None) -> int:
    """The offset a prefix names; 0 (this week / month) when there is none."""
    return _AHEAD[prefix.strip().lower()] if prefix else 0


def _r_mid_month(m: re.Match[str], today: date) -> date | None:
    """The 15th of the month group 1 names ("下个月中", "mid next month"); with no prefix, the next 15th."""
    return _day_of_month(today, 15, _ahead(m.group(1)) if m.group(1) else None)


def _r_weekday(weekday: int, prefix: str | None, today: date) -> date:
    """A weekday in the week a prefix names; a bare (or "coming") weekday is the next such day on or after today."""
    key = (prefix or "").strip().lower()
    return _weekday_in_week(today, weekday, _AHEAD[key]) if key in _AHEAD else _coming_weekday(today, weekday)


def _r_zh_weekday(m: re.Match[str], today: date) -> date | None:
    return _r_weekday(_ZH_WEEKDAY[m.group(3)], m.group(1), today)


def _r_en_weekday(m: re.Match[str], today: date) -> date | None:
    return _r_weekday(_EN_WEEKDAY[m.group(2)[:3].lower()], m.group(1), today)


def _r_offset_days(days: int) -> object:
    return lambda m, today: today + timedelta(days=days)


def _r_zh_in_n(m: re.Match[str], today: date) -> date | None:
    n = cn_number(m.group(1))
    if n is None:
        return None
    unit = m.group(2)
    if unit == "天":
        return today + timedelta(days=n)
    if unit in ("周", "星期", "礼拜"):
        return today + timedelta(days=7 * n)
    return _add_months(today, n)


def _r_en_in_n(m: re.Match[str], today: date) -> date | None:
    n = _en_number(m.group(1))
    if n is None:
        return None
    unit = m.group(2).lower()
    if unit.startswith("day"):
        return today + timedelta(days=n)
    if unit.startswith("week"):
        return today + timedelta(days=7 * n)
    return _add_months(today, n)


def _r_zh_month_day(m: re.Match[str], today: date) -> date | None:
    month, day = cn_number(m.group(1)), cn_number(m.group(2))
    return _month_day(today, month, day) if month and day else None


def _r_zh_next_month_day(m: re.Match[str], today: date) -> date | None:
    day = cn_number(m.group(2))
    return _day_of_month(today, day, _ahead(m.group(1))) if day else None


def _r_zh_day(m: re.Match[str], today: date) -> date | None:
    day = cn_number(m.group(1))
    return _day_of_month(today, day, None) if day else None


def _r_en_month_day(m: re.Match[str], today: date) -> date | None:
    return _month_day(today, _EN_MONTH[m.group(1).lower()[:3]], int(m.group(2)))


def _r_en_day_of_month(m: re.Match[str], today: date) -> date | None:
    return _month_day(today, _EN_MONTH[m.group(2).lower()[:3]], int(m.group(1)))


def _r_en_nth_next_month(m: re.Match[str], today: date) -> date | None:
    return _day_of_month(today, int(m.group(1)), 1)


def _r_en_nth(m: re.Match[str], today: date) -> date | None:
    return _day_of_month(today, int(m.group(1)), None)


def _r_iso(m: re.Match[str], today: date) -> date | None:
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _r_slash(m: re.Match[str], today: date) -> date | None:
    return _month_day(today, int(m.group(1)), int(m.group(2)))


_RULES: list[tuple[re.Pattern[str], object]] = [
    (re.compile(r"(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})[日号]?"), _r_iso),
    (re.compile(r"(下下|下|这|本|上)?(个)?(?:周|星期|礼拜)([一二三四五六日天1-7])"), _r_zh_weekday),
    (re.compile(r"大后天"), _r_offset_days(3)),
    (re.compile(r"后天"), _r_offset_days(2)),
    (re.compile(r"明(?:天|早|晚|儿)"), _r_offset_days(1)),
    (re.compile(r"今(?:天|晚|早|日|儿)"), _r_offset_days(0)),
    (re.compile(r"昨(?:天|晚)"), _r_offset_days(-1)),
    (re.compile(r"(下下|下|这|本)个?月(?:的)?" + f"({NUM})" + r"[号日]"), _r_zh_next_month_day),
    (re.compile(f"({NUM})" + r"月" + f"({NUM})" + r"[号日]?"), _r_zh_month_day),
    (re.compile(r"(下下|下|这|本)?个?月(底|末)"), lambda m, t: _month_end(*_ym(_add_months(t, _ahead(m.group(1)))))),
    (re.compile(r"(下下|下|这|本)?个?月中"), _r_mid_month),
    (re.compile(r"(下下|下)个?月初"), lambda m, t: _add_months(t.replace(day=1), _ahead(m.group(1)))),
    (re.compile(r"(明年|今年)?年(底|末)"), lambda m, t: date(t.year + (1 if m.group(1) == "明年" else 0), 12, 31)),
    (re.compile(f"({NUM})" + r"(天|周|星期|礼拜|个月)(?:之?内|之?后|以后|以内)"), _r_zh_in_n),
    (re.compile(r"(下下|下|这|本)?(?:个)?周末"), lambda m, t: _weekday_in_week(t, 5, _ahead(m.group(1)))),
    (re.compile(r"(下下|下|这|本)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天1-7末])"),
     lambda m, t: _weekday_in_week(t, 6, _ahead(m.group(1)))),
    (re.compile(r"(下下|下)个月(?![\d一二三四五六七八九十底末中初])"), lambda m, t: _month_end(*_ym(_add_months(t, _ahead(
        m.group(1)))))),
    (re.compile(f"({NUM})" + r"[号日](?!子|本|元|记)"), _r_zh_day),
    # English
    (re.compile(r"\b(\d{1,2})/(\d{1,2})\b"), _r_slash),
    (re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I), _r_offset_days(2)),
    (re.compile(r"\btomorrow\b|\btmr\b", re.I), _r_offset_days(1)),
    (re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", re.I), _r_offset_days(0)),
    (re.compile(r"\byesterday\b", re.I), _r_offset_days(-1)),
    (re.compile(r"\b(?:the\s+)?" + ORD + r"\s+of\s+next\s+month\b", re.I), _r_en_nth_next_month),
    (re.compile(r"\bnext\s+month\s+on\s+the\s+" + ORD + r"\b", re.I), _r_en_nth_next_month),
    (re.compile(r"\b(" + EN_MON + r")\.?\s+" + ORD + r"\b", re.I), _r_en_month_day),
    (re.compile(r"\b(?:the\s+)?" + ORD + r"\s+(?:of\s+)?(" + EN_MON + r")\b", re.I), _r_en_day_of_month),
    (re.compile(r"\b(next|this|coming|last)?\s*(" + EN_WD + r")\b", re.I), _r_en_weekday),
    (re.compile(r"\b(?:by\s+|at\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(next\s+)?month\b|\bmonth[- ]end\b", re.I),
     lambda m, t: _month_end(*_ym(_add_months(t, _ahead(m.group(1)))))),
    (re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?(next\s+)?week\b", re.I),
     lambda m, t: _weekday_in_week(t, 4, _ahead(m.group(1)))),
    (re.compile(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?year\b|\byear[- ]end\b", re.I), lambda m, t: date(t.year, 12, 31)),
    (re.compile(r"\bmid[- ](?:month|(next\s+)month)\b", re.I), _r_mid_month),
    (re.compile(r"\b(?:in|within)\s+(" + EN_NUM + r")\s+(days?|weeks?|months?)\b", re.I), _r_en_in_n),
    (re.compile(r"\b(next|this)?\s*weekend\b", re.I),
     lambda m, t: _weekday_in_week(t, 5, _ahead(m.group(1)))),
    (re.compile(r"\bnext\s+week\b", re.I), lambda m, t: _weekday_in_week(t, 6, 1)),
    (re.compile(r"\bthis\s+week\b", re.I), lambda m, t: _weekday_in_week(t, 6, 0)),
    (re.compile(r"\bnext\s+month\b", re.I), lambda m, t: _month_end(*_ym(_add_months(t, 1)))),
    (re.compile(r"\b(?:on|by|before|until|till)\s+the\s+" + ORD + r"\b", re.I), _r_en_nth),
]


def _ym(day: date) -> tuple[int, int]:
    return day.year, day.month


# -- times of day -----------------------------------------------------------------
_ZH_TIME = re.compile(r"(早上|上午|中午|下午|晚上|傍晚|凌晨|晚)?\s*(" + NUM + r")\s*[点:：时](半|(\d{1,2})分?)?")
_EN_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\bat\s+(\d{1,2}):(\d{2})\b|\b(noon|midnight)\b",
                      re.I)


def _time_of_day(text: str) -> time | None:
    m = _ZH_TIME.search(text)
    if m:
        hour = cn_number(m.group(2))
        if hour is None or hour > 24:
            return None
        minute = 30 if m.group(3) == "半" else int(m.group(4) or 0)
        if m.group(1) in ("下午", "晚上", "傍晚", "晚") and hour < 12:
            hour += 12
        if m.group(1) == "中午" and hour < 6:
            hour += 12
        return time(hour % 24, min(minute, 59))
    m = _EN_TIME.search(text)
    if m:
        if m.group(6):
            return time(12 if m.group(6).lower() == "noon" else 0, 0)
        if m.group(4):
            return time(int(m.group(4)) % 24, min(int(m.group(5)), 59))
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if hour > 12:
            return None
        if m.group(3).lower().startswith("p") and hour < 12:
            hour += 12
        if m.group(3).lower().startswith("a") and hour == 12:
            hour = 0
        return time(hour, min(minute, 59))
    return None


# -- public -----------------------------------------------------------------------
def find_dates(text: str, now: datetime | None = None) -> list[DateMatch]:
    """Every date expression in ``text``, leftmost first, overlapping matches dropped."""
    today = local_now(now).date()
    found: list[DateMatch] = []
    taken: list[tuple[int, int]] = []
    for pattern, resolver in _RULES:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            if not m.group(0).strip():
                continue
            try:
                value = resolver(m, today)  # type: ignore[operator]
            except (KeyError, ValueError, OverflowError):
                value = None
            if value is None:
                continue
            taken.append((m.start(), m.end()))
            found.append(DateMatch(m.group(0).strip(), m.start(), m.end(), value))
    found.sort(key=lambda d: d.start)
    return found


def resolve_deadline(text: str, now: datetime | None = None) -> DateMatch | None:
    """The deadline a task utterance states: the first date expression (+ a time of day if given)."""
    now = local_now(now)
    dates = [d for d in find_dates(text, now) if d.day >= now.date()]
    when = _time_of_day(text)
    if not dates:
        if when is None:
            return None
        return DateMatch("", 0, 0, datetime.combine(now.date(), when, tzinfo=now.tzinfo))
    first = dates[0]
    if when is not None:
        return DateMatch(first.phrase, first.start, first.end, datetime.combine(first.day, when, tzinfo=now.tzinfo))
    return first


# -- past periods a question refers to (both languages, one mechanism) -------------------------
#: a span of calendar days [start, end)
_Span = tuple[date, date]
#: meteorological seasons (northern hemisphere): the month each starts in; each lasts three months
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
                 "春": 3, "夏": 6, "秋": 9, "冬": 12}
#: the Spring Festival (农历正月初一) and the Mid-Autumn Festival (八月十五) by year: lunar dates, a calendar fact
_SPRING_FESTIVAL = {2020: (1, 25), 2021: (2, 12), 2022: (2, 1), 2023: (1, 22), 2024: (2, 10), 2025: (1, 29),
                    2026: (2, 17), 2027: (2, 6), 2028: (1, 26), 2029: (2, 13), 2030: (2, 3)}
_MID_AUTUMN = {2020: (10, 1), 2021: (9, 21), 2022: (9, 10), 2023: (9, 29), 2024: (9, 17), 2025: (10, 6),
               2026: (9, 25), 2027: (9, 15), 2028: (10, 3), 2029: (9, 22), 2030: (9, 12)}
_UNIT_DAYS = {"day": 1, "天": 1, "week": 7, "周": 7, "星期": 7, "礼拜": 7, "month": 30, "月": 30, "year": 365, "年": 365}
#: a prefix that moves a named period back a year ("去年夏天", "前年") or keeps it in this year ("今年三月")
_YEARS_BACK = {"去年": 1, "前年": 2, "今年": 0, "this": 0}
#: a prefix that means the latest such period that has ended ("last summer" said in July is last year's)
_ENDED = ("last", "this past")


class _Groups(Protocol):
    """A match's named groups (a ``re.Match``, or one read across two spellings)."""

    def group(self, name: str, /) -> Any: ...


def _easter(year: int) -> date:
    """Easter Sunday (the Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 19 * l_) // 433
    month = (h + l_ - 7 * m + 90) // 25
    return date(year, month, (h + l_ - 7 * m + 33 * month + 19) % 32)


def _thanksgiving(year: int) -> date:
    """The fourth Thursday of November (the United States')."""
    first = date(year, 11, 1)
    return first + timedelta(days=(3 - first.weekday()) % 7 + 21)


#: yearly occasions: name -> (a span of that occasion in a given year, or None when unknown)
def _occasion(name: str, year: int) -> _Span | None:
    if name == "christmas":
        return date(year, 12, 20), date(year + 1, 1, 1)
    if name == "new_year":
        return date(year - 1, 12, 30), date(year, 1, 3)
    if name == "halloween":
        return date(year, 10, 29), date(year, 11, 2)
    if name == "valentine":
        return date(year, 2, 13), date(year, 2, 16)
    if name == "easter":
        sunday = _easter(year)
        return sunday - timedelta(days=3), sunday + timedelta(days=2)
    if name == "thanksgiving":
        thursday = _thanksgiving(year)
        return thursday - timedelta(days=1), thursday + timedelta(days=4)
    if name == "national_day":
        return date(year, 10, 1), date(year, 10, 8)
    if name == "labour_day":
        return date(year, 5, 1), date(year, 5, 6)
    if name in ("spring_festival", "mid_autumn"):
        table = _SPRING_FESTIVAL if name == "spring_festival" else _MID_AUTUMN
        if year not in table:
            return None
        day = date(year, *table[year])
        return (day - timedelta(days=7), day + timedelta(days=8)) if name == "spring_festival" else \
            (day - timedelta(days=1), day + timedelta(days=3))
    return None


#: each occasion's names, English (ASCII) and Chinese apart
_OCCASIONS = [
    (r"christmas|xmas", "christmas"), (r"圣诞", "christmas"), (r"new\s+year'?s?(?:\s+eve|\s+day)?", "new_year"),
    (r"元旦|跨年", "new_year"), (r"halloween", "halloween"), (r"万圣", "halloween"),
    (r"valentine'?s?(?:\s+day)?", "valentine"), (r"情人节", "valentine"), (r"easter", "easter"), (r"复活节", "easter"),
    (r"thanksgiving", "thanksgiving"), (r"感恩节", "thanksgiving"), (r"国庆", "national_day"),
    (r"五一|劳动节", "labour_day"), (r"春节|过年|除夕|大年", "spring_festival"), (r"中秋", "mid_autumn"),
]


def _latest(make: object, today: date, back: int | None, strictly_before: bool = False,
            nearest: bool = False) -> _Span | None:
    """The occurrence of a yearly period (``make(year) -> span``) a question means: ``back`` years before this
    one when said ("去年夏天": 1, "今年三月": 0); the latest that has ended when ``strictly_before`` ("last summer"
    said in July is last year's); else the latest that has begun (a memory holds what was said before: "in the
    winter" asked in September is the last one), or with ``nearest`` (a named day: "what is due on the 20th of
    July?") the one under way or the nearest (:func:`_distance`)."""
    if back is not None:
        return make(today.year - back)  # type: ignore[operator, no-any-return]
    spans = [span for year in range(today.year + 1, today.year - 3, -1)
             if (span := make(year)) is not None]  # type: ignore[operator]
    if strictly_before:
        return next((span for span in spans if span[1] <= today), None)
    if not nearest:
        return next((span for span in spans if span[0] <= today), None)
    for span in spans:
        if span[0] <= today < span[1]:
            return span  # type: ignore[no-any-return]
    return min(spans, key=lambda sp: _distance(sp, today), default=None)


def _distance(span: _Span, today: date) -> float:
    """How far a period's middle is from today, in days; a coming one counts twice as far (what a memory holds
    was said before: a coming period is meant when it is much nearer than the last one)."""
    days = ((span[0] + (span[1] - span[0]) / 2) - today).days
    return 2.0 * days if days > 0 else float(-days)


def _back(prefix: str | None) -> int | None:
    return _YEARS_BACK.get(" ".join((prefix or "").lower().split()))


def _ended(prefix: str) -> bool:
    return " ".join(prefix.split()) in _ENDED


def _r_month(m: re.Match[str], today: date) -> _Span | None:
    """A named month: "last May", "in March", "去年五月", "3月份"."""
    raw = m.group("month")
    month = _EN_MONTH.get(raw.lower()[:3]) if raw[0].isascii() and not raw.isdigit() else cn_number(raw)
    if not month or not 1 <= month <= 12:
        return None
    prefix = (m.group("pre") or "").lower().strip()

    def make(year: int) -> _Span:
        return date(year, month, 1), _add_months(date(year, month, 1), 1)
    return _latest(make, today, _back(prefix), strictly_before=_ended(prefix))


#: a third of a month: (first day, last day + 1, or None for the month's end)
_MONTH_PARTS = {"start": (1, 11), "beginning": (1, 11), "初": (1, 11), "middle": (11, 21), "中": (11, 21),
                "中旬": (11, 21), "end": (21, None), "底": (21, None), "末": (21, None), "下旬": (21, None)}


def _r_part_of_month(m: re.Match[str], today: date) -> _Span | None:
    """The start, middle or end of a named month ("the start of May", "五月底"): a third of it."""
    span = _r_month(m, today)
    if span is None:
        return None
    first, last = _MONTH_PARTS[m.group("part").lower()]
    return span[0].replace(day=first), span[0].replace(day=last) if last else span[1]


def _r_season(m: _Groups, today: date) -> _Span | None:
    """A season: "last summer", "in the winter", "去年夏天", "暑假"."""
    name = m.group("season").lower()
    prefix = (m.group("pre") or "").lower().strip()
    if name in ("暑假", "寒假"):
        def make(year: int) -> _Span:
            return (date(year, 7, 1), date(year, 9, 1)) if name == "暑假" else (date(year, 1, 15), date(year, 3, 1))
    else:
        first = _SEASON_START[name[0] if not name.isascii() else name]

        def make(year: int) -> _Span:
            start = date(year - (1 if first == 12 else 0), first, 1)  # a winter is named by the year it ends in
            return start, _add_months(start, 3)
    return _latest(make, today, _back(prefix), strictly_before=_ended(prefix))


def _r_occasion(m: re.Match[str], today: date) -> _Span | None:
    """A yearly occasion: "over Christmas", "last Thanksgiving", "去年春节"."""
    text = m.group("occasion").lower()
    name = next(n for pattern, n in _OCCASIONS if re.fullmatch(pattern, text))
    prefix = (m.group("pre") or "").lower().strip()
    return _latest(lambda year: _occasion(name, year), today, _back(prefix), strictly_before=_ended(prefix))


def _r_ago(m: re.Match[str], today: date) -> _Span | None:
    """"two weeks ago", "三天前", "半年前": around that point, give or take a quarter of the distance."""
    raw, unit = m.group("n"), m.group("unit").lower().rstrip("s")
    n: float | None = 0.5 if raw in ("半", "半个") else (cn_number(raw.rstrip("个")) if not raw[0].isascii()
                                                      else _en_number(raw))
    vague = raw.lower() in ("几", "a few", "few", "a couple of", "couple of")
    if vague:
        n = 3
    if not n:
        return None
    days = n * _UNIT_DAYS[unit.rstrip("个")]
    target = today - timedelta(days=round(days))
    # give or take a quarter of the distance; a vague count ("a few", "几") a half
    slack = timedelta(days=max(int(days / (2 if vague else 4)), 1 if days > 1 else 0))
    return target - slack, target + slack + timedelta(days=1)


def _r_weekday_past(m: _Groups, today: date) -> _Span | None:
    """"last Friday" (the latest Friday before today), "上周五" (last calendar week's)."""
    raw = m.group("wd")
    if raw[0].isascii() and not raw.isdigit():
        weekday = _EN_WEEKDAY[raw[:3].lower()]
        day = today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    else:
        day = _weekday_in_week(today, _ZH_WEEKDAY[raw], -2 if m.group("pre") == "上上" else -1)
    return day, day + timedelta(days=1)


def _weekend(today: date, weeks_back: int) -> _Span:
    """The Saturday and Sunday of the calendar week ``weeks_back`` weeks before this one."""
    saturday = _weekday_in_week(today, 5, -weeks_back)
    return saturday, saturday + timedelta(days=2)


def _latest_weekend(today: date) -> _Span:
    """The latest weekend that has begun: this one on a Saturday or Sunday, else last week's."""
    return _weekend(today, 0 if today.weekday() >= 5 else 1)


def _month_span(today: date, months_back: int) -> _Span:
    first = _add_months(today.replace(day=1), -months_back)
    return first, _add_months(first, 1)


def _week_span(today: date, weeks_back: int) -> _Span:
    start = _week_start(today) - timedelta(days=7 * weeks_back)
    return start, start + timedelta(days=7)


def _r_day_past(m: re.Match[str], today: date) -> _Span | None:
    """A month and day ("on May 3rd", "3月15日"): the nearest such day (one still to come is a coming day, not a past
    one)."""
    month_raw, day_raw = m.group("month"), m.group("day")
    month = _EN_MONTH.get(month_raw.lower()[:3]) if not month_raw.isdigit() and month_raw[0].isascii() \
        else cn_number(month_raw)
    day = cn_number(day_raw) if not day_raw.isascii() else int(day_raw)
    if not month or not day:
        return None
    def make(year: int) -> _Span | None:
        try:
            when = date(year, month, day)
        except ValueError:
            return None
        return when, when + timedelta(days=1)
    return _latest(make, today, None, nearest=True)


_PRE_YEAR = r"(?P<pre>去年|前年|今年)?"
_EN_PRE = r"(?P<pre>last|this(?:\s+past)?|in(?:\s+the)?|during(?:\s+the)?|over(?:\s+the)?|at|around|on|for)\s+"
_EN_MONTH_NAME = (r"(?P<month>january|february|march|april|may|june|july|august|september|october|november|december"
                  r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_RANGES: list[tuple[re.Pattern[str], object]] = [
    # a day of a month (before the month alone)
    (re.compile(r"\b(?:on\s+)?" + _EN_MONTH_NAME + r"\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b", re.I), _r_day_past),
    (re.compile(r"(?P<month>" + NUM + r")月(?P<day>" + NUM + r")[日号]"), _r_day_past),
    # two back: "the weekend before last", "上上周末", "the week before last", "上上个月", "前年"
    (re.compile(r"\bthe\s+weekend\s+before\s+last\b|上上(?:个)?周末", re.I), lambda m, t: _weekend(t, 2)),
    (re.compile(r"\blast\s+weekend\b|上(?:个)?周末", re.I), lambda m, t: _weekend(t, 1)),
    (re.compile(r"\b(?:over|on|at|during)\s+the\s+weekend\b|\bthis\s+past\s+weekend\b", re.I),
     lambda m, t: _latest_weekend(t)),
    (re.compile(r"(?P<pre>上上|上)(?:个)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])|\blast\s+(?P<wd_en>" + EN_WD + r")\b",
                re.I), lambda m, t: _r_weekday_past(_WdMatch(m), t)),
    (re.compile(r"\bthe\s+week\s+before\s+last\b|上上(?:个)?(?:周|星期|礼拜)", re.I), lambda m, t: _week_span(t, 2)),
    (re.compile(r"上(?:个)?(?:周|星期|礼拜)|\blast\s+week\b", re.I), lambda m, t: _week_span(t, 1)),
    (re.compile(r"\bthe\s+month\s+before\s+last\b|上上(?:个)?月", re.I), lambda m, t: _month_span(t, 2)),
    (re.compile(r"\bthe\s+year\s+before\s+last\b", re.I), lambda m, t: (date(t.year - 2, 1, 1), date(t.year - 1, 1, 1))),
    # occasions, seasons and months, with a year prefix or an English preposition ("do I like winter?" names none)
    (re.compile(_PRE_YEAR + r"(?:的)?(?P<occasion>" + "|".join(p for p, _ in _OCCASIONS if not p.isascii()) + r")"),
     _r_occasion),
    (re.compile(r"\b" + _EN_PRE + r"(?:the\s+)?(?P<occasion>" + "|".join(p for p, _ in _OCCASIONS if p.isascii())
                + r")\b", re.I), _r_occasion),
    (re.compile(r"(?P<pre>去年|前年|今年)(?:的)?(?P<season>暑假|寒假|[春夏秋冬](?:天|季))|"
                r"(?P<season2>暑假|寒假|[春夏秋冬](?:天|季))(?:的时候|那会儿?|期间|里)"),
     lambda m, t: _r_season(_SeasonMatch(m), t)),
    (re.compile(r"\b" + _EN_PRE + r"(?:the\s+)?(?P<season>spring|summer|autumn|fall|winter)\b", re.I), _r_season),
    (re.compile(r"\b(?:at\s+|in\s+|by\s+)?the\s+(?P<part>start|beginning|middle|end)\s+of\s+(?P<pre>last\s+)?"
                + _EN_MONTH_NAME + r"\b", re.I), _r_part_of_month),
    (re.compile(_PRE_YEAR + r"(?:的)?(?P<month>" + NUM + r")月(?:份)?(?P<part>初|中旬|中|下旬|底|末)"), _r_part_of_month),
    (re.compile(_PRE_YEAR + r"(?:的)?(?P<month>" + NUM + r")月(?:份)?(?![\d一二三四五六七八九十号日底末中初])"), _r_month),
    (re.compile(r"\b(?P<pre>last|in|during|this(?:\s+past)?|back\s+in)\s+" + _EN_MONTH_NAME + r"\b(?!\s*\d)", re.I),
     _r_month),
    # counted back: "two weeks ago", "三天前"
    (re.compile(r"\b(?P<n>" + EN_NUM + r"|few)\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b", re.I), _r_ago),
    (re.compile(r"(?P<n>" + NUM + r"|半|几)个?(?P<unit>天|周|星期|礼拜|月|年)(?:以前|之前|前)"), _r_ago),
    (re.compile(r"前几天|\ba\s+few\s+days\s+back\b", re.I), lambda m, t: (t - timedelta(days=7), t)),
    # the last few days, yesterday, today, this week / month / year
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b|前天", re.I), lambda m, t: (t - timedelta(days=2), t - timedelta(days=1))),
    (re.compile(r"昨天|昨晚|\byesterday\b|\blast\s+night\b", re.I), lambda m, t: (t - timedelta(days=1), t)),
    (re.compile(r"今天|今晚|今早|\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b", re.I),
     lambda m, t: (t, t + timedelta(days=1))),
    (re.compile(r"这(?:个)?(?:周|星期|礼拜)|本周|\bthis\s+week\b", re.I), lambda m, t: (_week_start(t), t + timedelta(days=1))),
    (re.compile(r"上(?:个)?月|\blast\s+month\b", re.I), lambda m, t: _month_span(t, 1)),
    (re.compile(r"这(?:个)?月|本月|\bthis\s+month\b", re.I), lambda m, t: (t.replace(day=1), t + timedelta(days=1))),
    (re.compile(r"去年|\blast\s+year\b", re.I), lambda m, t: (date(t.year - 1, 1, 1), date(t.year, 1, 1))),
    (re.compile(r"前年"), lambda m, t: (date(t.year - 2, 1, 1), date(t.year - 1, 1, 1))),
    (re.compile(r"今年|\b(?:earlier\s+)?this\s+year\b", re.I), lambda m, t: (date(t.year, 1, 1), t + timedelta(days=1))),
    (re.compile(r"\bin\s+(?P<year>(?:19|20)\d{2})\b|(?P<year_zh>(?:19|20)\d{2})年(?![\d一二三四五六七八九十]*月)", re.I),
     lambda m, t: _year_span(m, t)),
    (re.compile(r"最近|近来|这几天|这阵子|\blately\b|\brecently\b|\bthese\s+days\b|\bpast\s+few\s+days\b", re.I),
     lambda m, t: (t - timedelta(days=14), t + timedelta(days=1))),
]


class _WdMatch:
    """A weekday match read the same way in both languages."""

    def __init__(self, m: re.Match[str]) -> None:
        self._m = m

    def group(self, name: str) -> str | None:
        if name == "wd":
            return self._m.group("wd") or self._m.group("wd_en")
        return self._m.group(name)


class _SeasonMatch:
    """A Chinese season match, with or without its year prefix, read as one."""

    def __init__(self, m: re.Match[str]) -> None:
        self._m = m

    def group(self, name: str) -> str | None:
        if name == "season":
            return self._m.group("season") or self._m.group("season2")
        return self._m.group(name)


def _year_span(m: re.Match[str], today: date) -> _Span | None:
    year = int(m.group("year") or m.group("year_zh"))
    if year > today.year:
        return None
    return date(year, 1, 1), date(year + 1, 1, 1)


def time_range(text: str, now: datetime | None = None) -> tuple[datetime, datetime] | None:
    """A period a query refers to ("上周", "yesterday", "last May", "two weeks ago", "over Christmas", "去年夏天") as
    [start, end) in now's zone: the first the rules find, most specific first. A named period that has not begun
    yet this year is last year's ("in March" asked in January)."""
    now = local_now(now)
    today = now.date()
    for pattern, span in _RANGES:
        m = pattern.search(text)
        if m is None:
            continue
        try:
            found = span(m, today)  # type: ignore[operator]
        except (KeyError, ValueError, OverflowError):
            found = None
        if found is None:
            continue
        start, end = found
        return (datetime.combine(start, time(), tzinfo=now.tzinfo), datetime.combine(end, time(), tzinfo=now.tzinfo))
    return None
