"""What ``remember`` reads from the utterances the end-to-end collapse measure says (docs/decisions/0061): an outburst
is a feeling, not a fact as well; a preference in an everyday shape is a preference; a calm statement of what the user
owns stays a fact. Sentences of our own, none from a training or evaluation file."""

from __future__ import annotations

from datetime import datetime

import pytest

import mnemir


@pytest.mark.parametrize("text", [
    "The letting agent charged us £120 to renew a contract they wrote themselves, I could scream",
    "物业把我们楼的电梯停了一个礼拜，说是检修，气得我爸爬了八楼",
])
def test_an_outburst_is_kept_as_the_feeling_only(mem: mnemir.Memory, wed: datetime, text: str) -> None:
    done = mem.remember(text, user="ines", now=wed)
    assert [r.type for r in done.created] == ["EmotionalState"], done.notes


def test_a_preference_told_as_the_only_one_the_user_trusts_is_a_preference(mem: mnemir.Memory, wed: datetime) -> None:
    done = mem.remember("The only barber I let cut my hair is Sal on the high street, nobody else gets it right",
                        user="ines", now=wed)
    assert [r.type for r in done.created] == ["Preference"], done.notes


def test_a_calm_statement_of_what_the_user_owns_stays_a_fact(mem: mnemir.Memory, wed: datetime) -> None:
    done = mem.remember("我家的洗衣机是前年买的，八公斤的滚筒", user="ines", now=wed)
    assert [r.type for r in done.created] == ["Fact"], done.notes
