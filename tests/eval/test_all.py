"""`mnemir eval all --quick`: every suite runs a small slice and the results folder holds numbers.

The LoCoMo slice reads the tiny conversation invented in test_locomo (the real dataset is never read by tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_locomo import CONVERSATION, QA

from mnemir.cli import cli
from mnemir.errors import ValidationError
from mnemir.eval import all as eval_all


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("eval-all")
    data = folder / "tiny-locomo.json"
    data.write_text(json.dumps([{"sample_id": "tiny-1", "conversation": CONVERSATION, "qa": QA}]), encoding="utf-8")
    out = folder / "results"
    result = CliRunner().invoke(cli, ["--json", "eval", "all", "--quick", "--out", str(out), "--data", str(data)])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_the_folder_holds_the_report_the_plots_and_the_json(quick_run: tuple[Path, dict]) -> None:
    out, printed = quick_run
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert printed["folder"] == str(out) and printed["headline"] == results["headline"]
    assert results["split"] == "dev" and results["quick"] is True
    assert len(results["commit"]) == 40 and results["machine"]["cores"] >= 1
    assert set(results["suites"]) == set(eval_all.SUITES)
    assert not [name for name, data in results["suites"].items() if "not_run" in data]
    collapse = results["suites"]["collapse"]["systems"]
    assert {"vector", "recall", "remember_recall"} <= set(collapse)
    assert collapse["recall"]["k=3"]["n"] > 0 and 0.0 <= collapse["remember_recall"]["k=3"]["isolation"] <= 1.0
    locomo = results["suites"]["locomo"]["systems"]
    assert {"turns_bm25", "turns_vector", "turns_hybrid", "remember_recall"} <= set(locomo)
    assert locomo["turns_hybrid"]["overall"]["n"] == 4
    continuity = results["suites"]["continuity"]["systems"]["remember_recall"]["overall"]
    assert continuity["n"] >= 1
    suites_in_headline = {row["suite"] for row in results["headline"]}
    assert suites_in_headline == set(eval_all.SUITES)
    assert all(isinstance(row["mnemir"], float) for row in results["headline"])
    for plot in ("locomo_recall_at_k.png", "locomo_by_category.png", "collapse_by_symptom.png",
                 "continuity_by_kind.png"):
        assert (out / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", plot
    report = (out / "report.md").read_text(encoding="utf-8")
    assert results["commit"] in report and "## Headline" in report and "![locomo_recall_at_k.png]" in report
    for row in results["headline"]:
        assert f"| {row['suite']} | {row['measure']} | {row['mnemir']:.3f} |" in report


def test_a_test_run_keeps_aggregates_only() -> None:
    data = {"systems": {"recall": {"k=3": {"isolation": 0.5}}}, "misses": [{"query": "q"}],
            "languages": {"zh": {"macro_f1": 0.9, "errors": [{"text": "t"}], "confusions": []}}}
    assert eval_all._aggregate_only(data) == {"systems": {"recall": {"k=3": {"isolation": 0.5}}},
                                              "languages": {"zh": {"macro_f1": 0.9}}}


@pytest.mark.parametrize(("kwargs", "field"), [({"split": "train"}, "split"), ({"suites": ("nope",)}, "suites"),
                                               ({"suites": ()}, "suites")])
def test_bad_arguments_are_refused_before_anything_runs(tmp_path: Path, kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        eval_all.run(tmp_path / "out", **kwargs)
    assert err.value.context["field"] == field
    assert not (tmp_path / "out").exists()


def test_a_suite_without_data_is_reported_as_not_run() -> None:
    results = {"split": "test", "quick": False, "date": "2026-12-05T00:00:00+00:00", "commit": "c" * 40,
               "dirty": False, "machine": eval_all.machine(), "seconds": {"total": 1.0}, "cpu_seconds": {},
               "suites": {name: {"not_run": f"no {name} test files"} for name in eval_all.SUITES}}
    assert eval_all.headline(results) == []
    report = eval_all.render_markdown(results)
    assert report.count("Not run: no ") == len(eval_all.SUITES) and "## Headline" not in report
