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


_ZH_RANGES: list[tuple[re.Pattern[str], object]] = [
    (re.compile(r"昨天|昨晚"), lambda t: (t - timedelta(days=1), t)),
    (re.compile(r"前天"), lambda t: (t - timedelta(days=2), t - timedelta(days=1))),
    (re.compile(r"今天|今晚|today|tonight", re.I), lambda t: (t, t + timedelta(days=1))),
    (re.compile(r"上(?:个)?(?:周|星期|礼拜)|last\s+week", re.I),
     lambda t: (_week_start(t) - timedelta(days=7), _week_start(t))),
    (re.compile(r"这(?:个)?(?:周|星期|礼拜)|本周|this\s+week", re.I), lambda t: (_week_start(t), t + timedelta(days=1))),
    (re.compile(r"上(?:个)?月|last\s+month", re.I),
     lambda t: (_add_months(t.replace(day=1), -1), t.replace(day=1))),
    (re.compile(r"这(?:个)?月|本月|this\s+month", re.I), lambda t: (t.replace(day=1), t + timedelta(days=1))),
    (re.compile(r"去年|last\s+year", re.I), lambda t: (date(t.year - 1, 1, 1), date(t.year, 1, 1))),
    (re.compile(r"yesterday", re.I), lambda t: (t - timedelta(days=1), t)),
    (re.compile(r"最近|近来|这几天|这阵子|lately|recently|these days|past few days", re.I),
     lambda t: (t - timedelta(days=14), t + timedelta(days=1))),
]


def time_range(text: str, now: datetime | None = None) -> tuple[datetime, datetime] | None:
    """A past period a query refers to ("上周", "yesterday", "recently") as [start, end) in now's zone."""
    now = local_now(now)
    for pattern, span in _ZH_RANGES:
        if pattern.search(text):
            start, end = span(now.date())  # type: ignore[operator]
            return (datetime.combine(start, time(), tzinfo=now.tzinfo),
                    datetime.combine(end, time(), tzinfo=now.tzinfo))
    return None
