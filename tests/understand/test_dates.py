from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from mnemir.errors import ValidationError
from mnemir.understand.dates import cn_number, find_dates, local_now, resolve_deadline, time_range

WED = datetime(2026, 3, 4, 10, 0, tzinfo=timezone(timedelta(hours=8)))  # a Wednesday


@pytest.mark.parametrize(("text", "expected"), [
    ("帮我下周五之前把报销单交了", date(2026, 3, 13)),
    ("周五前交", date(2026, 3, 6)),
    ("这周五", date(2026, 3, 6)),
    ("下下周一出差", date(2026, 3, 16)),
    ("月底交报告", date(2026, 3, 31)),
    ("下个月5号还款", date(2026, 4, 5)),
    ("下个月底", date(2026, 4, 30)),
    ("明天", date(2026, 3, 5)),
    ("后天", date(2026, 3, 6)),
    ("大后天", date(2026, 3, 7)),
    ("三天内", date(2026, 3, 7)),
    ("两周后", date(2026, 3, 18)),
    ("3月15日", date(2026, 3, 15)),
    ("二月三号", date(2027, 2, 3)),
    ("20号之前", date(2026, 3, 20)),
    ("3号", date(2026, 4, 3)),
    ("年底", date(2026, 12, 31)),
    ("周末", date(2026, 3, 7)),
    ("next Wednesday", date(2026, 3, 11)),
    ("by Friday", date(2026, 3, 6)),
    ("tomorrow", date(2026, 3, 5)),
    ("the day after tomorrow", date(2026, 3, 6)),
    ("by the end of the month", date(2026, 3, 31)),
    ("in two weeks", date(2026, 3, 18)),
    ("within 3 days", date(2026, 3, 7)),
    ("on March 20th", date(2026, 3, 20)),
    ("the 5th of next month", date(2026, 4, 5)),
    ("before the 15th", date(2026, 3, 15)),
    ("this weekend", date(2026, 3, 7)),
    ("next week", date(2026, 3, 15)),
    ("2026-05-01", date(2026, 5, 1)),
])
def test_relative_dates_resolve_against_now(text: str, expected: date) -> None:
    found = resolve_deadline(text, WED)
    assert found is not None, text
    assert found.day == expected


@pytest.mark.parametrize(("text", "hour", "minute"), [
    ("明天下午三点开会", 15, 0), ("tomorrow at 3pm", 15, 0), ("明晚八点半", 20, 30), ("Friday 9:30am", 9, 30),
])
def test_a_time_of_day_makes_a_datetime_in_the_users_zone(text: str, hour: int, minute: int) -> None:
    found = resolve_deadline(text, WED)
    assert isinstance(found.value, datetime)
    assert (found.value.hour, found.value.minute) == (hour, minute)
    assert found.value.utcoffset() == timedelta(hours=8)


def test_the_users_day_not_the_utc_day() -> None:
    late = datetime(2026, 3, 4, 23, 30, tzinfo=timezone(timedelta(hours=8)))  # 15:30 UTC, same day
    assert resolve_deadline("明天", late).day == date(2026, 3, 5)
    early = datetime(2026, 3, 5, 0, 30, tzinfo=timezone(timedelta(hours=8)))  # still 4 March in UTC
    assert resolve_deadline("明天", early).day == date(2026, 3, 6)


@pytest.mark.parametrize("text", ["I sat down", "我们一起去", "the sun is out", "May I ask", "no dates here"])
def test_words_that_only_look_like_dates_are_not_dates(text: str) -> None:
    assert find_dates(text, WED) == []


def test_past_dates_are_not_deadlines() -> None:
    assert resolve_deadline("昨天", WED) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("上周五", date(2026, 2, 27)), ("last Friday", date(2026, 2, 27)), ("本周一", date(2026, 3, 2)),
    ("this Friday", date(2026, 3, 6)), ("coming Monday", date(2026, 3, 9)), ("下下个月底", date(2026, 5, 31)),
    ("本月底", date(2026, 3, 31)), ("下个月初", date(2026, 4, 1)), ("这个月20号", date(2026, 3, 20)),
    ("下下个月15号", date(2026, 5, 15)), ("下个月中", date(2026, 4, 15)), ("下个周末", date(2026, 3, 14)),
    ("next weekend", date(2026, 3, 14)), ("end of next week", date(2026, 3, 13)),
    ("end of next month", date(2026, 4, 30)), ("mid next month", date(2026, 4, 15)),
])
def test_every_prefix_points_the_same_way(text: str, expected: date) -> None:
    [found] = find_dates(text, WED)
    assert found.day == expected


@pytest.mark.parametrize("resolve", [find_dates, resolve_deadline, time_range])
def test_naive_now_is_rejected(resolve: object) -> None:
    with pytest.raises(ValidationError, match="timezone"):
        resolve("明天", datetime(2026, 3, 4))  # type: ignore[operator]


def test_now_stays_in_the_users_zone_and_defaults_to_the_clock() -> None:
    assert local_now(WED) is WED
    clock = local_now(None)
    assert clock.utcoffset() is not None
    assert abs(clock - datetime.now(UTC)) < timedelta(minutes=1)
    found, after = resolve_deadline("明天"), local_now(None)
    assert found is not None and found.day in {clock.date() + timedelta(days=1), after.date() + timedelta(days=1)}


@pytest.mark.parametrize(("text", "start", "end"), [
    ("我上周说了什么", date(2026, 2, 23), date(2026, 3, 2)),
    ("what did I say yesterday", date(2026, 3, 3), date(2026, 3, 4)),
    ("上个月", date(2026, 2, 1), date(2026, 3, 1)),
])
def test_time_ranges_for_queries(text: str, start: date, end: date) -> None:
    span = time_range(text, WED)
    assert span is not None
    assert (span[0].date(), span[1].date()) == (start, end)


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("十五", 15), ("二十", 20), ("两", 2), ("三十一", 31), ("x", None)])
def test_chinese_numbers(text: str, value: int | None) -> None:
    assert cn_number(text) == value


MID_JULY = datetime(2026, 7, 15, 10, 0, tzinfo=timezone(timedelta(hours=-5)))  # a Wednesday


@pytest.mark.parametrize(("text", "start", "end"), [
    # a named month: the latest that has begun ("in"), or ended ("last"); a year prefix names its year
    ("what did I cook last May?", date(2026, 5, 1), date(2026, 6, 1)),
    ("who did I run into in March", date(2026, 3, 1), date(2026, 4, 1)),
    ("back in January I said something about the roof", date(2026, 1, 1), date(2026, 2, 1)),
    ("去年五月我在忙什么", date(2025, 5, 1), date(2025, 6, 1)),
    ("三月份那次体检", date(2026, 3, 1), date(2026, 4, 1)),
    ("at the start of May", date(2026, 5, 1), date(2026, 5, 11)),
    ("去年三月底", date(2025, 3, 21), date(2025, 4, 1)),
    # counted back, give or take a quarter of the distance (a vague count: half)
    ("what did I tell you two weeks ago", date(2026, 6, 28), date(2026, 7, 5)),
    ("两周前我提过的那家店", date(2026, 6, 28), date(2026, 7, 5)),
    ("a few days ago I mentioned a book", date(2026, 7, 11), date(2026, 7, 14)),
    ("三天前说的那件事", date(2026, 7, 11), date(2026, 7, 14)),
    ("半年前的那次面试", date(2025, 11, 30), date(2026, 3, 1)),
    # seasons: "last" is the latest that has ended; a Chinese season needs a year or a "那时" word
    ("where did we go last summer", date(2025, 6, 1), date(2025, 9, 1)),
    ("what did I plant in the spring", date(2026, 3, 1), date(2026, 6, 1)),
    ("去年夏天去了哪里", date(2025, 6, 1), date(2025, 9, 1)),
    ("冬天的时候我感冒了几次", date(2025, 12, 1), date(2026, 3, 1)),
    # yearly occasions
    ("what happened over Christmas", date(2025, 12, 20), date(2026, 1, 1)),
    ("what did I get for christmas", date(2025, 12, 20), date(2026, 1, 1)),
    ("圣诞节那天我们吃了什么", date(2025, 12, 20), date(2026, 1, 1)),
    ("春节回老家的时候", date(2026, 2, 10), date(2026, 2, 25)),
    ("last Thanksgiving at my aunt's", date(2025, 11, 26), date(2025, 12, 1)),
    # weeks, weekends and days back
    ("the weekend before last we went hiking", date(2026, 7, 4), date(2026, 7, 6)),
    ("上上周末去爬山了", date(2026, 7, 4), date(2026, 7, 6)),
    ("what did I do last weekend", date(2026, 7, 11), date(2026, 7, 13)),
    ("上周末", date(2026, 7, 11), date(2026, 7, 13)),
    ("the week before last", date(2026, 6, 29), date(2026, 7, 6)),
    ("上上个月", date(2026, 5, 1), date(2026, 6, 1)),
    ("what did I say last Friday", date(2026, 7, 10), date(2026, 7, 11)),
    ("上周五说的", date(2026, 7, 10), date(2026, 7, 11)),
    ("the day before yesterday", date(2026, 7, 13), date(2026, 7, 14)),
    ("last night", date(2026, 7, 14), date(2026, 7, 15)),
    ("on May 3rd", date(2026, 5, 3), date(2026, 5, 4)),
    ("5月3日那天", date(2026, 5, 3), date(2026, 5, 4)),
    ("in 2025", date(2025, 1, 1), date(2026, 1, 1)),
])
def test_past_periods_named_in_either_language(text: str, start: date, end: date) -> None:
    span = time_range(text, MID_JULY)
    assert span is not None, text
    assert (span[0].date(), span[1].date()) == (start, end), text
    assert span[0].tzinfo == MID_JULY.tzinfo


@pytest.mark.parametrize("text", ["do I like winter?", "我喜欢夏天吗", "do I like Christmas music", "I may come along",
                                  "what did I decide about the venue", "march on", "三个月的合同"])
def test_words_that_name_no_period(text: str) -> None:
    assert time_range(text, MID_JULY) is None


@pytest.mark.parametrize(("text", "start", "end"), [
    ("what is due on July 20th", date(2026, 7, 20), date(2026, 7, 21)),
    ("7月20日要交什么", date(2026, 7, 20), date(2026, 7, 21)),
    ("what did I say on July 10th", date(2026, 7, 10), date(2026, 7, 11)),
])
def test_a_named_day_or_period_still_to_come_is_the_coming_one(text: str, start: date, end: date) -> None:
    """A memory holds what was said before, so a named period means the last one unless the coming one is much
    nearer: then it is a coming period, not a past one."""
    span = time_range(text, MID_JULY)
    assert span is not None and (span[0].date(), span[1].date()) == (start, end)
