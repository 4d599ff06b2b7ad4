"""The mnemir command over a real store: tables, --json, exit codes, import/export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemir.cli import cli


@pytest.fixture
def run(tmp_path: Path, embedder: object):  # the embedder fixture warms the shared default model
    runner = CliRunner()
    store = str(tmp_path / "cli-store")

    def invoke(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(cli, ["--path", store, *args], catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return invoke


def test_add_search_list_get_json(run) -> None:
    code, out, _ = run("--json", "add", "上海今天晴，25摄氏度", "--type", "Fact", "--props",
                       '{"entity": "上海", "attribute": "weather"}', "--user", "alice")
    assert code == 0
    added = json.loads(out)
    assert added["type"] == "Fact" and added["properties"]["attribute"] == "weather"
    run("add", "帮我订下周五去上海的机票", "--type", "Task", "--props", '{"status": "待办"}', "--user", "alice")
    code, out, _ = run("--json", "search", "上海天气", "--type", "Fact", "--user", "alice")
    hits = json.loads(out)
    assert code == 0 and [h["memory"]["id"] for h in hits] == [added["id"]]
    code, out, _ = run("--json", "list", "--type", "Task", "--where", '{"status": "pending"}', "--user", "alice")
    assert [r["properties"]["status"] for r in json.loads(out)] == ["pending"]
    code, out, _ = run("get", added["id"], "--user", "alice")
    assert code == 0 and "weather" in out


def test_errors_have_exit_codes_and_json(run) -> None:
    code, _, err = run("--json", "add", "x", "--type", "Task", "--props", '{"status": "someday"}')
    assert code == 2
    payload = json.loads(err)
    assert payload["error"] == "validation_error" and payload["field"] == "properties.status"
    assert "pending" in payload["allowed"]
    code, _, err = run("get", "mem_missing")
    assert code == 3 and "mem_missing" in err
    code, _, err = run("search", "x", "--where", "{bad json")
    assert code == 2 and "--where" in err


def test_types_lists_the_ontology(run) -> None:
    code, out, _ = run("--json", "--pack", "health", "types")
    names = {t["name"] for t in json.loads(out)["types"]}
    assert code == 0 and {"Fact", "Task", "Symptom", "Medication"} <= names


def test_export_then_import(run, tmp_path: Path) -> None:
    run("add", "I like black coffee", "--type", "Preference", "--props", '{"preference_type": "like"}', "-u", "a")
    target = tmp_path / "out.jsonl"
    code, out, _ = run("--json", "export", str(target))
    assert code == 0 and json.loads(out)["exported"] == 1
    lines = [json.loads(x) for x in target.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["kind"] == "header" and lines[1]["type"] == "Preference"
    code, out, _ = run("--json", "import", str(target), "--on-conflict", "skip")
    assert code == 0 and json.loads(out)["imported"] == 0


def test_eval_checks_the_split_before_running_anything(run) -> None:
    # eval all runs dev or test: nothing may run for minutes and then fail
    code, out, err = run("eval", "all", "--split", "train")
    assert code == 2 and "'train'" in err and "dev" in err
    assert out == ""
    code, out, err = run("eval", "intent", "--quick")
    assert code == 2 and "--quick" in err


def test_recall_prompt_fits_a_character_budget(run) -> None:
    for args in (("I have a stomach bug, the doctor said bland food only", "--type", "Fact", "--props",
                  '{"entity": "user", "attribute": "health"}'),
                 ("I love spicy food", "--type", "Preference", "--props",
                  '{"subject": "spicy food", "preference_type": "like"}')):
        assert run("add", *args, "--user", "alice")[0] == 0
    code, full, _ = run("recall", "What should I eat tonight?", "--user", "alice", "--prompt")
    prompt = full[full.index("Memory for:"):].rstrip("\n")
    assert code == 0 and "stomach bug" in prompt and "I love spicy food" in prompt
    budget = str(len(prompt) - 1)
    code, fitted, _ = run("recall", "What should I eat tonight?", "--user", "alice", "--prompt", "--max-chars", budget)
    assert code == 0 and f"left out to fit {budget} characters" in fitted
    assert len(fitted[fitted.index("Memory for:"):].rstrip("\n")) <= len(prompt) - 1
    code, _, err = run("recall", "What should I eat tonight?", "--user", "alice", "--prompt", "--max-chars", "0")
    assert code == 2 and "max_chars" in err
