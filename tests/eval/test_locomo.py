"""The LoCoMo evidence-retrieval suite on a tiny conversation invented here, in LoCoMo's file format.

The real dataset (CC BY-NC) is never read by the tests: `mnemir eval locomo` runs it, see BENCHMARKS.md.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemir.cli import cli
from mnemir.errors import NotFoundError, ValidationError
from mnemir.eval import locomo
from mnemir.ir import MemIR, Metadata, Source

# two invented friends, two sessions; every fact is made up for this test
CONVERSATION = {
    "speaker_a": "Ingrid",
    "speaker_b": "Tomasz",
    "session_1_date_time": "9:15 am on 3 March, 2021",
    "session_1": [
        {"speaker": "Ingrid", "dia_id": "D1:1", "text": "Morning Tomasz! How was your weekend?"},
        {"speaker": "Tomasz", "dia_id": "D1:2", "text": "Great, I repaired an old accordion I bought at a flea market."},
        {"speaker": "Ingrid", "dia_id": "D1:3", "text": "Nice! I started volunteering at the lighthouse museum."},
        {"speaker": "Tomasz", "dia_id": "D1:4", "text": "Look at the accordion now.",
         "img_url": ["https://example.invalid/a.jpg"], "blip_caption": "a red accordion on a wooden table"},
        {"speaker": "Ingrid", "dia_id": "D1:5", "text": "Thanks, bye!"},
    ],
    "session_2_date_time": "6:40 pm on 17 April, 2021",
    "session_2": [
        {"speaker": "Tomasz", "dia_id": "D2:1", "text": "I entered a chess tournament in Gdansk next month."},
        {"speaker": "Ingrid", "dia_id": "D2:2", "text": "My cousin Liesel adopted two ferrets called Pip and Moss."},
        {"speaker": "Tomasz", "dia_id": "D2:3", "text": "Ferrets are hilarious, I had one as a boy."},
    ],
}
QA = [
    {"question": "Where does Ingrid volunteer?", "answer": "lighthouse museum", "evidence": ["D1:3"], "category": 4},
    {"question": "What instrument did Tomasz repair, and where did he buy it?", "answer": "accordion",
     "evidence": ["D1:2; D1:4"], "category": 1},  # one malformed string holding two ids, as in the real file
    {"question": "When is the chess tournament?", "answer": "May 2021", "evidence": ["D:2:1"], "category": 2},
    {"question": "What pets did Liesel adopt?", "answer": "ferrets", "evidence": ["D2:2", "D9:9"], "category": 3},
    {"question": "What did Ingrid say about her boat?", "adversarial_answer": "x", "evidence": ["D1:3"], "category": 5},
    {"question": "Who won the tournament?", "answer": None, "evidence": ["D7:1"], "category": 4},
]


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-locomo.json"
    path.write_text(json.dumps([{"sample_id": "tiny-1", "conversation": CONVERSATION, "qa": QA}]), encoding="utf-8")
    return path


def test_load_reads_turns_times_and_evidence(data_file: Path) -> None:
    [sample] = locomo.load(data_file)
    assert [t.dia_id for t in sample.turns] == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D2:1", "D2:2", "D2:3"]
    assert sample.turns[0].at == datetime(2021, 3, 3, 9, 15, tzinfo=UTC)
    assert sample.turns[5].at == datetime(2021, 4, 17, 18, 40, tzinfo=UTC)
    assert sample.turns[3].text == "Tomasz: Look at the accordion now. [shares a photo: a red accordion on a wooden table]"
    assert [(q.category, q.evidence) for q in sample.questions] == [
        (4, ("D1:3",)), (1, ("D1:2", "D1:4")), (2, ("D2:1",)), (3, ("D2:2",))]  # D9:9 names no turn: dropped
    assert sample.skipped == {"adversarial": 1, "no usable evidence": 1}
    assert sample.end > sample.turns[-1].at


@pytest.mark.parametrize(("ranked", "k", "expected"), [
    ([{"D1:1"}, {"D1:2"}, {"D1:4", "D2:1"}], 1, (False, 0.0)),
    ([{"D1:1"}, {"D1:2"}, {"D1:4", "D2:1"}], 2, (True, 0.5)),
    ([{"D1:1"}, {"D1:2"}, {"D1:4", "D2:1"}], 3, (True, 1.0)),  # a merged memory stands for all its turns
    ([], 5, (False, 0.0)),
])
def test_judge_hit_and_coverage(ranked: list[set[str]], k: int, expected: tuple[bool, float]) -> None:
    assert locomo.judge([frozenset(r) for r in ranked], ["D1:2", "D1:4"], k) == expected


def test_ndcg_counts_each_evidence_turn_once_at_its_first_rank() -> None:
    ranked = [frozenset({"D1:1"}), frozenset({"D1:2"}), frozenset({"D1:2", "D1:4"}), frozenset({"D1:4"})]
    ideal = 1 + 1 / math.log2(3)
    assert locomo.ndcg(ranked, ["D1:2", "D1:4"], 10) == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / ideal)
    assert locomo.ndcg(ranked, ["D1:2", "D1:4"], 1) == 0.0
    assert locomo.ndcg([frozenset({"D1:2"})], ["D1:2"], 10) == 1.0


def test_session_recall_any_and_all() -> None:
    ranked = [frozenset({"D1:1"}), frozenset({"D3:2", "D3:5"})]
    assert locomo.judge_sessions(ranked, ["D1:9", "D2:1"], 2) == (True, False)
    assert locomo.judge_sessions(ranked, ["D1:9", "D3:1"], 2) == (True, True)
    assert locomo.judge_sessions(ranked, ["D3:1"], 1) == (False, False)


def test_a_quick_slice_keeps_the_questions_its_turns_answer(data_file: Path) -> None:
    [sample] = locomo.load(data_file, max_turns=5)
    assert [t.dia_id for t in sample.turns] == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5"]
    assert [q.evidence for q in sample.questions] == [("D1:3",), ("D1:2", "D1:4")]
    assert sample.skipped["past the quick slice"] == 2


def test_a_memory_maps_to_its_source_and_merged_sources() -> None:
    by_source = {("session_1", 2): "D1:3", ("session_2", 0): "D2:1", ("session_2", 1): "D2:2"}
    record = MemIR(content={"text": "x"}, type="Fact", metadata=Metadata(
        source=Source(session_id="session_1", turn=2),
        merged_sources=[Source(session_id="session_2", turn=1), Source(session_id="session_9", turn=1)]))
    assert locomo.dia_ids_of(record, by_source) == {"D1:3", "D2:2"}


def test_missing_data_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nowhere.json"
    with pytest.raises(NotFoundError, match="LoCoMo data not found") as info:
        locomo.run(data_path=missing)
    assert info.value.to_dict()["field"] == "data_path" and str(missing) in str(info.value)
    monkeypatch.setenv(locomo.ENV_VAR, str(missing))
    with pytest.raises(NotFoundError, match="MNEMIR_LOCOMO"):
        locomo.load()


@pytest.mark.parametrize(("content", "field"), [
    ("not json", "data_path"),
    ("[]", "data_path"),
    ('[{"conversation": {}, "qa": []}]', "samples[0].conversation"),
    (json.dumps([{"conversation": {**CONVERSATION, "session_2_date_time": "sometime"}, "qa": []}]),
     "samples[0].session_2_date_time"),
])
def test_malformed_data_names_the_field(tmp_path: Path, content: str, field: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        locomo.load(path)
    assert info.value.to_dict()["field"] == field


@pytest.mark.parametrize("kwargs", [{"split": "test"}, {"k_values": (0,)}, {"systems": ("bm25",)},
                                    {"limit_samples": 0}, {"max_turns": 0}])
def test_bad_arguments_are_rejected(data_file: Path, kwargs: dict) -> None:
    with pytest.raises(ValidationError):
        locomo.run(data_path=data_file, **kwargs)


def test_run_end_to_end_on_real_stores(data_file: Path, embedder: object) -> None:
    report = locomo.run(data_path=data_file, k_values=(1, 3), embedder=embedder)  # type: ignore[arg-type]
    assert report.samples == 1 and report.questions() == 4
    assert {locomo.CATEGORIES[c]: report.questions(c) for c in locomo.CATEGORIES} == {
        "multi-hop": 1, "temporal": 1, "open-domain": 1, "single-hop": 1}
    for system in locomo.SYSTEMS:
        at1, at3 = report.metric(system, 1), report.metric(system, 3)
        assert 0.0 <= at1["recall"] <= at3["recall"] <= 1.0 and at1["coverage"] <= at3["coverage"]
        assert len(report.latencies[system]) == 4
    # the volunteering question shares its rare words with one turn only: the hybrid search must find it
    volunteer = [r for r in report.rows if r.system == "turns_hybrid" and r.k == 3 and r.category == 4]
    assert [r.hit for r in volunteer] == [True]
    turns, remembered = report.stores["turns"], report.stores["remembered"]
    assert turns.turns == remembered.turns == 8 and turns.turns_with_memory == 8
    assert sum(turns.memories.values()) == 8  # one memory per turn, nothing merged
    assert 0 < remembered.turns_with_knowledge <= remembered.turns_with_memory <= 8
    text = report.render()
    assert "turns + vector" in text and "turns + BM25" in text and "mnemir remember + recall" in text
    assert "1 adversarial" in text
    data = report.to_dict()
    assert set(data["systems"]) == set(locomo.SYSTEMS) and data["skipped"] == {"adversarial": 1,
                                                                              "no usable evidence": 1}
    overall = data["systems"]["turns_hybrid"]["overall"]
    assert set(overall) >= {"turn_recall@1", "turn_recall@3", "turn_coverage@3", "n"} and overall["n"] == 4
    assert 0.0 <= overall["turn_coverage@3"] <= overall["turn_recall@3"] <= 1.0


def test_cli_runs_locomo_and_keeps_it_out_of_other_suites(data_file: Path, tmp_path: Path, embedder: object) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["--json", "eval", "locomo", "--data", str(data_file), "--samples", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["locomo"]["questions"] == 4
    result = runner.invoke(cli, ["eval", "locomo", "--data", str(tmp_path / "missing.json")])
    assert result.exit_code == 3 and "LoCoMo data not found" in result.stderr
    result = runner.invoke(cli, ["eval", "collapse", "--data", str(data_file)])
    assert result.exit_code == 2 and "locomo" in result.stderr
