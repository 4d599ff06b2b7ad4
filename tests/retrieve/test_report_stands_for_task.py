"""A report that moves a task links its utterance to the task (``reports_on``); asked where that work stands, the
report answers and the task's first statement, the state it replaced, goes (docs/decisions/0116). Real store, real
embedder, the shipped models; every sentence is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import mnemir
from mnemir.memory import understanding
from mnemir.retrieve import RecallConfig
from mnemir.retrieve.judgements import REPORTS_ON

ON = RecallConfig(report_stands_for_task=0.15)
CASES = {
    "en": ("I need to renew my passport before the trip to Lisbon in June.",
           "Also the bike needs a new chain, it keeps slipping.",
           "Passport is sorted: renewed it at the post office on Monday, the new one comes by post.",
           "Did I get my passport renewed?"),
    "zh": ("我得在六月去里斯本之前把护照续了。",
           "还有自行车链条老打滑，得换一根。",
           "护照搞定了，周一在邮局续好的，新的会寄过来。",
           "护照续好了没有？"),
}


def _told(mem: mnemir.Memory, now: datetime, lang: str) -> dict[str, str]:
    task, other, report, _ = CASES[lang]
    start = now - timedelta(days=10)
    first = mem.remember(task, user="alice", session="s1", turn=1, now=start)
    mem.remember(other, user="alice", session="s1", turn=3, now=start)
    later = mem.remember(report, user="alice", session="s2", turn=5, now=now - timedelta(days=1))
    [stated] = [r for r in first.created if r.type == "Task"]
    assert [r.id for r in later.updated if r.type == "Task"] == [stated.id], later.notes
    assert later.episode is not None
    return {"task": stated.id, "said": first.episode.id, "report": later.episode.id}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_report_links_its_utterance_to_the_task_it_moved(mem: mnemir.Memory, now: datetime, lang: str) -> None:
    ids = _told(mem, now, lang)
    report = mem.get(ids["report"], user="alice")
    links = list(report.relations(REPORTS_ON))
    assert [r.target for r in links] == [ids["task"]]
    assert links[0].properties["status"] == "completed"


def test_no_link_when_switched_off(mem: mnemir.Memory, now: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(understanding, "REPORT_LINKS", False)
    ids = _told(mem, now, "en")
    assert not list(mem.get(ids["report"], user="alice").relations(REPORTS_ON))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_asked_where_it_stands_the_report_answers(mem: mnemir.Memory, now: datetime, lang: str) -> None:
    ids = _told(mem, now, lang)
    mem.recall_config = ON
    result = mem.recall(CASES[lang][3], user="alice", k=3, now=now)
    shown = [h.id for h in result.hits]
    assert result.intent.kind == "task_status"
    assert ids["report"] in shown and ids["task"] not in shown and ids["said"] not in shown, \
        [h.memory.text for h in result.hits]


def test_the_margin_keeps_a_task_closer_than_its_report(mem: mnemir.Memory, now: datetime) -> None:
    ids = _told(mem, now, "en")  # the report opens with words of its own: a little less close than the task
    mem.recall_config = RecallConfig(report_stands_for_task=-1.0)
    result = mem.recall(CASES["en"][3], user="alice", k=3, now=now)
    assert ids["task"] in [h.id for h in result.hits]


def test_off_the_task_is_shown_beside_its_report(mem: mnemir.Memory, now: datetime) -> None:
    ids = _told(mem, now, "en")
    mem.recall_config = RecallConfig(report_stands_for_task=None)
    result = mem.recall(CASES["en"][3], user="alice", k=3, now=now)
    assert ids["task"] in [h.id for h in result.hits]


def test_open_work_is_untouched(mem: mnemir.Memory, now: datetime) -> None:
    ids = _told(mem, now, "en")
    mem.recall_config = ON
    still = mem.recall("What do I still have to do?", user="alice", k=5, now=now)
    assert still.intent.kind != "task_status"
    assert ids["task"] not in [h.id for h in still.hits]  # closed work is no open work, as before


def test_the_settings_default() -> None:
    assert RecallConfig().report_stands_for_task == 0.0
    assert RecallConfig().reports_not_open is False


OPEN = "What do I still have to do?"


def test_asked_what_is_open_a_report_of_closed_work_goes(mem: mnemir.Memory, now: datetime) -> None:
    ids = _told(mem, now, "en")
    mem.recall_config = RecallConfig()
    before = mem.recall(OPEN, user="alice", k=5, now=now)
    assert ids["report"] in [h.id for h in before.hits], [h.memory.text for h in before.hits]
    mem.recall_config = RecallConfig(reports_not_open=True)
    after = mem.recall(OPEN, user="alice", k=5, now=now)
    assert ids["report"] not in [h.id for h in after.hits], [h.memory.text for h in after.hits]


def test_a_report_that_states_new_work_stays_open_work(mem: mnemir.Memory, now: datetime) -> None:
    start = now - timedelta(days=10)
    mem.remember("I need to renew my passport before the trip to Lisbon in June.", user="alice", session="s1",
                 turn=1, now=start)
    later = mem.remember("Renewed the passport on Monday. Now I need to book the flights to Lisbon.", user="alice",
                         session="s2", turn=3, now=now - timedelta(days=1))
    assert later.episode is not None
    assert list(mem.get(later.episode.id, user="alice").relations(REPORTS_ON)), later.notes
    assert any(r.type in ("Task", "Plan") and r.properties.get("status") == "pending" for r in later.created)
    mem.recall_config = RecallConfig(reports_not_open=True)
    result = mem.recall(OPEN, user="alice", k=5, now=now)
    assert any("flights" in h.memory.text for h in result.hits), [h.memory.text for h in result.hits]
