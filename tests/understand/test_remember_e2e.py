"""What ``remember`` writes from raw utterances, where the end-to-end collapse benchmark lost most (issue 14,
docs/decisions/0029): a tool's output is information, a "report" that says nothing of how work stands is no report,
done work with no open task is kept as closed work, and a value said to have changed replaces what it updates."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor


@pytest.fixture
def mem(tmp_path: Path, embedder: USEEmbedder) -> mnemir.Memory:
    memory = mnemir.open(tmp_path / "mem", embedder=embedder)
    yield memory  # type: ignore[misc]
    memory.close()


@pytest.mark.parametrize("text", ["Payment of 120 euros received, invoice closed",
                                  "Order 4471 has shipped and should arrive on Thursday",
                                  "快递已签收，放在小区门卫室",
                                  "Rain expected after 3pm, bring an umbrella"])
def test_a_tools_output_is_kept_as_an_external_fact(extractor: Extractor, wed: datetime, text: str) -> None:
    # the classifier reads these as a report, a task or a plan (it learnt from people's utterances); a tool has no
    # work or feelings of its own: what it says is information
    result = extractor.extract(text, speaker="tool", now=wed)
    assert [(d.type, d.kind) for d in result.drafts] == [("Fact", "memory")], result.to_dict()
    assert result.drafts[0].properties["source"] == "external"


def test_a_system_frame_stays_a_frame_and_nothing_else_is_dropped(extractor: Extractor, wed: datetime) -> None:
    result = extractor.extract("Drop the rental car back at the airport", speaker="system", now=wed)
    assert [d.type for d in result.drafts] == ["Fact"]
    assert not any("speaker policy" in note for note in result.notes)


@pytest.mark.parametrize("text", ["约装修师傅量尺寸", "把水费交一下", "Water the tomatoes on the balcony"])
def test_a_piece_that_says_nothing_of_how_work_stands_is_not_lost_as_a_report(mem: mnemir.Memory, wed: datetime,
                                                                              text: str) -> None:
    # read as a report or not, a piece with no word of how any work stands, and no open task to report on, is kept
    kept = mem.remember(text, user="ann", now=wed)
    assert [(m.type, m.properties.get("status")) for m in kept.created] == [("Task", "pending")], kept.notes


def test_the_extractor_rereads_a_report_on_request(extractor: Extractor, wed: datetime) -> None:
    again = extractor.reread("Send the signed contract to the agency", "Send the signed contract to the agency", wed)
    assert again is not None and again.kind == "memory" and again.type != "TaskUpdate"
    assert any("not a report" in reason for reason in again.reasons)


@pytest.mark.parametrize("text", ["Submitted the visa application yesterday", "护照已经办好了"])
def test_a_report_that_says_the_work_is_done_stays_a_report(extractor: Extractor, wed: datetime, text: str) -> None:
    [draft] = extractor.extract(text, now=wed).drafts
    assert (draft.kind, draft.properties["status"]) == ("update", "completed")


def test_done_work_with_no_open_task_is_kept_as_a_completed_task(mem: mnemir.Memory, wed: datetime) -> None:
    kept = mem.remember("Submitted the visa application yesterday", user="ann", now=wed)
    [task] = kept.created
    assert (task.type, task.properties["status"]) == ("Task", "completed")
    assert [r.target for r in task.relations("derived_from")] == [kept.episode.id]  # type: ignore[union-attr]
    mem.remember("Book a table for Friday's team dinner", user="ann", now=wed + timedelta(minutes=5))
    left = mem.recall("What do I still have to do?", user="ann", k=5, now=wed + timedelta(hours=1))
    shown = [h.memory.text for h in left.hits]
    assert any("table" in t for t in shown), shown
    # neither the closed task nor the utterance it was read from comes back as open work
    assert not any("visa" in t for t in shown), shown


def test_a_report_that_moves_an_open_task_is_not_kept_twice(mem: mnemir.Memory, wed: datetime) -> None:
    task = mem.remember("I need to submit the visa application", user="ann", now=wed).created[0]
    kept = mem.remember("Submitted the visa application", user="ann", now=wed + timedelta(days=1))
    assert not kept.created
    assert mem.get(task.id, user="ann").properties["status"] == "completed"


@pytest.mark.parametrize("old,new", [
    ("A single swim at the leisure centre costs 5 pounds", "A single swim at the leisure centre has gone up to 6 pounds"),
    ("羽毛球馆的会员卡一年一千二", "羽毛球馆的会员卡涨到一年一千五了"),
    ("Our team standup is at 9:30 every morning", "Our team standup is now at 10:15 every morning"),
])
def test_a_value_said_to_have_changed_replaces_the_statement_it_updates(mem: mnemir.Memory, wed: datetime,
                                                                         old: str, new: str) -> None:
    first = mem.remember(old, user="ann", now=wed - timedelta(days=10)).created
    assert first
    later = mem.remember(new, user="ann", now=wed)
    for record in first:
        assert mem.get(record.id, user="ann").status == mnemir.MemoryStatus.superseded, later.notes
    assert any("superseded" in note for note in later.notes)


def test_an_unrelated_statement_with_an_update_word_replaces_nothing(mem: mnemir.Memory, wed: datetime) -> None:
    first = mem.remember("My sister lives in Leeds with her two cats", user="ann", now=wed - timedelta(days=10))
    mem.remember("The gym is now open until midnight on weekdays", user="ann", now=wed)
    for record in first.created:
        assert mem.get(record.id, user="ann").status == mnemir.MemoryStatus.active
