"""The dialogue QA suite on a tiny two-person conversation written for this test (none of the data's sentences):
loading, the checks that name the file, field and value, the metric on a case checked by hand, both ways of saying
the turns, and `mnemir eval dialogue_qa`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mnemir.cli import cli
from mnemir.errors import NotFoundError, ValidationError
from mnemir.eval import dialogue_qa

# two invented neighbours, two sessions; every fact is made up for this test
CONVERSATION = {
    "id": "tiny-en-01", "lang": "en", "speakers": ["Oskar", "Wren"],
    "sessions": [
        {"at": "2026-03-01T09:00:00+00:00", "turns": [
            {"n": 1, "speaker": "Oskar", "text": "Morning Wren! I finally bought a secondhand kayak."},
            {"n": 2, "speaker": "Wren", "text": "Brilliant. I have started learning the bassoon at the community hall."},
            {"n": 3, "speaker": "Oskar", "text": "A bassoon! Is it heavy to carry around?"},
            {"n": 4, "speaker": "Wren", "text": "Very. My nephew Teodor helps me lug it to rehearsals."},
        ]},
        {"at": "2026-03-20T18:30:00+00:00", "turns": [
            {"n": 5, "speaker": "Oskar", "text": "I paddled the kayak across the reservoir on Saturday."},
            {"n": 6, "speaker": "Wren", "text": "Was the water cold?"},
            {"n": 7, "speaker": "Oskar", "text": "Freezing, but the herons were worth it."},
        ]},
    ],
    "questions": [
        {"q": "Which instrument is Wren learning?", "kind": "single_hop", "evidence": [2], "answer": "bassoon"},
        {"q": "Who helps Wren carry the bassoon?", "kind": "multi_hop", "evidence": [2, 4], "answer": "Teodor"},
        {"q": "When did Oskar paddle across the reservoir?", "kind": "temporal", "evidence": [5],
         "answer": "Saturday 14 March 2026"},
        {"q": "Would Oskar enjoy a birdwatching trip?", "kind": "open_domain", "evidence": [7], "answer": "likely"},
    ],
}


def _write(folder: Path, conversations: list[dict], name: str = "tiny.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump({"conversations": conversations}, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture
def benchmarks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "benchmarks"
    _write(root / "dialogue_qa" / "dev", [CONVERSATION])
    monkeypatch.setenv("MNEMIR_BENCHMARKS", str(root))
    return root


def test_load_reads_sessions_turns_and_questions(benchmarks: Path) -> None:
    [conv] = dialogue_qa.load("dev")
    assert (conv.id, conv.lang, conv.speakers, conv.turns) == ("tiny-en-01", "en", ("Oskar", "Wren"), 7)
    labelled, unlabelled = conv.sample("labelled"), conv.sample("unlabelled")
    assert [t.dia_id for t in labelled.turns] == ["D1:1", "D1:2", "D1:3", "D1:4", "D2:5", "D2:6", "D2:7"]
    assert labelled.turns[1].text == "Wren: " + CONVERSATION["sessions"][0]["turns"][1]["text"]
    assert unlabelled.turns[1].text == CONVERSATION["sessions"][0]["turns"][1]["text"]
    # turns of a session a second apart, from the session's time
    assert (labelled.turns[5].at - labelled.turns[4].at).total_seconds() == 1
    assert [(q.category, q.evidence) for q in labelled.questions] == [
        (1, ("D1:2",)), (2, ("D1:2", "D1:4")), (3, ("D2:5",)), (4, ("D2:7",))]
    cut = conv.sample("labelled", max_turns=4)
    assert len(cut.questions) == 2 and cut.skipped == {"past the quick slice": 2}


def test_a_missing_or_empty_split_names_the_split_and_the_folder(benchmarks: Path) -> None:
    with pytest.raises(NotFoundError) as err:
        dialogue_qa.load("train")
    assert "train" in str(err.value) and str(benchmarks / "dialogue_qa" / "train") in str(err.value)
    (benchmarks / "dialogue_qa" / "train").mkdir()
    with pytest.raises(NotFoundError):
        dialogue_qa.load("train")
    with pytest.raises(ValidationError):
        dialogue_qa.load("holdout")


def _broken(change: dict) -> dict:
    conv = json.loads(json.dumps(CONVERSATION))
    for path, value in change.items():
        target = conv
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        target[keys[-1]] = value
    return conv


@pytest.mark.parametrize(("change", "field", "value"), [
    ({"questions.0.evidence": [2, 99]}, "conversations[0].questions[0].evidence", 99),
    ({"questions.1.kind": "adversarial"}, "conversations[0].questions[1].kind", "adversarial"),
    ({"sessions.1.turns.0.n": 3}, "conversations[0].sessions[1].turns[0].n", 3),
    ({"sessions.0.turns.2.speaker": "Ines"}, "conversations[0].sessions[0].turns[2].speaker", "Ines"),
    ({"sessions.0.at": "yesterday"}, "conversations[0].sessions[0].at", "yesterday"),
    ({"lang": "fr"}, "conversations[0].lang", "fr"),
])
def test_a_bad_file_is_refused_naming_the_file_the_field_and_the_value(tmp_path: Path, change: dict, field: str,
                                                                      value: object) -> None:
    _write(tmp_path, [_broken(change)], name="broken.yaml")
    with pytest.raises(ValidationError) as err:
        dialogue_qa.load("dev", folder=tmp_path)
    assert err.value.context["field"] == f"broken.yaml:{field}"
    assert str(value) in str(err.value.context["value"])
    assert "broken.yaml" in str(err.value)


def test_an_id_used_twice_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, [CONVERSATION], name="a.yaml")
    _write(tmp_path, [CONVERSATION], name="b.yaml")
    with pytest.raises(ValidationError) as err:
        dialogue_qa.load("dev", folder=tmp_path)
    assert "b.yaml" in str(err.value) and "a.yaml" in str(err.value)


def test_turn_recall_on_a_case_checked_by_hand(benchmarks: Path, embedder: object) -> None:
    # BM25 over the raw turns: "reservoir" is in turn 5 alone, "instrument" in no turn ("bassoon" is not asked)
    report = dialogue_qa.run("dev", modes=("unlabelled",), systems=("turns_bm25",), k_values=(1, 2),
                             embedder=embedder)  # type: ignore[arg-type]
    rows = {(r.question, r.k): r for r in report.modes["unlabelled"].rows}
    assert rows[("When did Oskar paddle across the reservoir?", 1)].hit
    assert not rows[("Which instrument is Wren learning?", 1)].hit
    # the multi-hop question: "bassoon" (turns 2 and 3) and "carry" (turn 3): covered by one of its two turns at most
    assert rows[("Who helps Wren carry the bassoon?", 2)].coverage <= 0.5
    figures = report.figures("unlabelled", "turns_bm25")
    hits1 = sum(rows[(q["q"], 1)].hit for q in CONVERSATION["questions"])
    assert figures["overall"]["turn_recall@1"] == hits1 / 4
    assert figures["by_kind"]["temporal"]["turn_recall@1"] == 1.0
    assert figures["by_kind"]["single_hop"]["turn_recall@1"] == 0.0
    assert figures["by_language"]["en"]["n"] == 4 and "zh" not in figures["by_language"]


def test_both_modes_and_every_system_run_on_real_stores(benchmarks: Path, embedder: object) -> None:
    report = dialogue_qa.run("dev", k_values=(5, 10), embedder=embedder)  # type: ignore[arg-type]
    data = report.to_dict()
    assert set(data["modes"]) == set(dialogue_qa.MODES) and data["questions"] == 4 and data["turns"] == 7
    for mode in dialogue_qa.MODES:
        systems = data["modes"][mode]["systems"]
        assert set(systems) == set(dialogue_qa.SYSTEMS)
        for figures in systems.values():
            assert 0.0 <= figures["overall"]["turn_recall@5"] <= figures["overall"]["turn_recall@10"] <= 1.0
            assert set(figures["by_kind"]) == set(dialogue_qa.KINDS)
    text = report.render()
    assert "mode labelled" in text and "mode unlabelled" in text and "mnemir remember + recall" in text


def test_the_cli_runs_the_suite_and_writes_its_folder(benchmarks: Path, tmp_path: Path, embedder: object) -> None:
    runner = CliRunner()
    out = tmp_path / "out"
    result = runner.invoke(cli, ["--json", "eval", "dialogue_qa", "--split", "dev", "--out", str(out)])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)["dialogue_qa"]
    written = json.loads((out / "results.json").read_text(encoding="utf-8"))["dialogue_qa"]
    assert printed["questions"] == written["questions"] == 4
    assert "Dialogue QA" in (out / "report.md").read_text(encoding="utf-8")
    result = runner.invoke(cli, ["eval", "dialogue_qa", "--split", "train"])
    assert result.exit_code == 3 and "train" in result.stderr
    result = runner.invoke(cli, ["eval", "continuity", "--out", str(out)])
    assert result.exit_code == 2
