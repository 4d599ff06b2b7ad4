"""The continuity suite on a conversation invented here (the benchmark's own files are run by `mnemir eval`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mnemir.errors import ValidationError
from mnemir.eval import continuity

# one user, two sessions; every fact is made up for this test
CONVERSATION = {
    "id": "t-en-01", "lang": "en", "domain": "a bicycle",
    "sessions": [
        {"at": "2026-05-04T09:00:00+00:00", "turns": [
            {"n": 1, "speaker": "user", "text": "I need to get the brakes on my blue bicycle adjusted this week."},
            {"n": 2, "speaker": "assistant", "text": "Shall I look up bike shops near you?"},
            {"n": 3, "speaker": "user", "text": "My bike shop is Spokes on Harbour Lane, it closes at 5pm."},
        ]},
        {"at": "2026-05-09T18:00:00+00:00", "turns": [
            {"n": 4, "speaker": "user", "text": "Sorry, Spokes actually closes at 7pm, not 5pm."},
            {"n": 5, "speaker": "assistant", "text": "Got it, 7pm."},
        ]},
    ],
    "checkpoints": [
        {"after": 3, "kind": "open_tasks", "q": "What's on my to-do list?", "relevant": [1], "forbidden": []},
        {"after": 5, "kind": "corrected_fact", "q": "Until when is the bike shop open?", "relevant": [4],
         "forbidden": [3]},
    ],
}


def _folder(tmp_path: Path, conversation: dict) -> Path:
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"conversations": [conversation]}), encoding="utf-8")
    return tmp_path


def test_load_reads_turns_times_and_checkpoints(tmp_path: Path) -> None:
    [c] = continuity.load("dev", directory=_folder(tmp_path, CONVERSATION))
    assert [t.n for t in c.turns] == [1, 2, 3, 4, 5] and [t.session for t in c.turns] == [1, 1, 1, 2, 2]
    assert c.turns[1].at - c.turns[0].at == continuity.TURN_GAP
    assert c.checkpoints[1].forbidden == {3} and c.time_after(3) > c.turns[2].at
    cut = continuity.cut(c, 3)
    assert len(cut.turns) == 3 and [p.kind for p in cut.checkpoints] == ["open_tasks"]


@pytest.mark.parametrize(("change", "field"), [
    (lambda c: c["checkpoints"][0].update(kind="mood"), "kind"),
    (lambda c: c["checkpoints"][0].update(relevant=[4]), "checkpoints[0]"),
    (lambda c: c["sessions"][0]["turns"][1].update(speaker="narrator"), "speaker"),
    (lambda c: c["sessions"][1]["turns"][0].update(n=9), "sessions"),
    (lambda c: c["sessions"][0].update(at="2026-05-04T09:00:00"), "at"),
])
def test_malformed_files_name_the_field(tmp_path: Path, change, field: str) -> None:  # type: ignore[no-untyped-def]
    conversation = yaml.safe_load(yaml.safe_dump(CONVERSATION))
    change(conversation)
    with pytest.raises(ValidationError) as err:
        continuity.load("dev", directory=_folder(tmp_path, conversation))
    assert field in err.value.context["field"]


def test_unknown_split_and_empty_folder_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        continuity.load("heldout")
    with pytest.raises(ValidationError, match="no continuity files"):
        continuity.load("dev", directory=tmp_path)


def test_a_run_judges_every_checkpoint_beside_the_baselines(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    report = continuity.run("dev", directory=_folder(tmp_path, CONVERSATION), embedder=embedder)
    assert report.conversations == 1 and report.turns == 5
    for system in continuity.SYSTEMS:
        assert report.metric(system)["n"] == 2
    # the raw-turn baselines stand for their own turn only; five turns fit in the top 5, the old closing time too
    hybrid = [r for r in report.rows if r.system == "turns_hybrid" and r.kind == "corrected_fact"]
    assert [r.violation for r in hybrid] == [True]
    assert all(len(cover) == 1 for r in report.rows if r.system not in continuity.REMEMBERED for cover in r.covered)
    # BM25 alone shows the turns that share the question's words: the old closing time, not the correction
    bm25 = next(r for r in report.rows if r.system == "turns_bm25" and r.kind == "corrected_fact")
    assert [3] in bm25.covered and [4] not in bm25.covered and bm25.violation
    task = [r for r in report.rows if r.system == "remember_recall" and r.kind == "open_tasks"]
    assert task[0].accurate, task[0].covered  # the user's task is found; the assistant's offer is no task of theirs
    data = report.to_dict()
    assert set(data["systems"]["remember_recall"]["by_kind"]) == {"open_tasks", "corrected_fact"}
    assert "turns + hybrid" in report.render() and "turns + BM25" in report.render()


# a task finished in the second session beside one still open; every fact is made up for this test
STATE_CONVERSATION = {
    "id": "t-en-02", "lang": "en", "domain": "a bicycle",
    "sessions": [
        {"at": "2026-05-04T09:00:00+00:00", "turns": [
            {"n": 1, "speaker": "user", "text": "I need to get the brakes on my blue bicycle adjusted this week."},
            {"n": 2, "speaker": "user", "text": "I also need to buy a new helmet before the charity ride."},
            {"n": 3, "speaker": "user", "text": "My bike shop is Spokes on Harbour Lane, it closes at 5pm."},
        ]},
        {"at": "2026-05-09T18:00:00+00:00", "turns": [
            {"n": 4, "speaker": "user", "text": "I've had the brakes on my blue bicycle adjusted, all done."},
            {"n": 5, "speaker": "user", "text": "Sorry, Spokes actually closes at 7pm, not 5pm."},
        ]},
    ],
    "checkpoints": [
        {"after": 4, "kind": "open_tasks", "q": "Which bike jobs have I not done yet?", "relevant": [2],
         "forbidden": [1]},
        {"after": 5, "kind": "corrected_fact", "q": "Until when is the bike shop open?", "relevant": [5],
         "forbidden": [3]},
    ],
}


def test_the_dialogue_state_is_read_from_the_store_at_each_checkpoint(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    report = continuity.run("dev", directory=_folder(tmp_path, STATE_CONVERSATION), embedder=embedder,
                            systems=("remember_recall",))
    rows = {(r.measure, r.turn): (r.should, r.state) for r in report.states}
    # the finished task is closed, the other one open; the old closing time superseded, the new one live
    assert rows == {("closed", 1): (True, "yes"), ("closed", 2): (False, "no"),
                    ("superseded", 3): (True, "yes"), ("superseded", 5): (False, "no")}, rows
    assert report.state_metric("closed") == {"precision": 1.0, "recall": 1.0, "forbidden": 1, "relevant": 1,
                                             "unread_forbidden": 0, "unread_relevant": 0}
    assert report.to_dict()["state"]["superseded"]["misses"] == []
    assert "Dialogue state" in report.render()
    # the raw-turn systems alone read no remembered store: no state
    assert continuity.run("dev", directory=_folder(tmp_path, STATE_CONVERSATION), embedder=embedder,
                          systems=("turns_hybrid",)).states == []


def test_a_task_never_read_is_counted_apart() -> None:
    report = continuity.Report("dev", ("remember_recall",))
    report.states = [continuity.StateRow("c", "en", "closed", 1, True, "none"),
                     continuity.StateRow("c", "en", "closed", 2, True, "no"),
                     continuity.StateRow("c", "en", "closed", 3, False, "yes")]
    m = report.state_metric("closed")
    assert (m["precision"], m["recall"], m["unread_forbidden"]) == (0.0, 0.0, 1)
