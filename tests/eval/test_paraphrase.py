"""Rewordings of the collapse queries, asked side by side with the originals on real stores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemir.errors import ValidationError
from mnemir.eval import paraphrase

SCENARIO: dict[str, Any] = {
    "id": "p-en-kiln", "split": "test", "symptom": "task_pollutes_fact", "lang": "en", "domain": "pottery",
    "now": "2026-06-01T10:00:00+00:00",
    "memories": [
        {"key": "book", "type": "Task", "age": "1d", "text": "Book a slot at the community kiln for my bowls",
         "props": {"goal": "book kiln slot", "status": "pending"}},
        {"key": "temp", "type": "Fact", "age": "20d", "text": "The community kiln fires stoneware at cone six",
         "props": {"entity": "community kiln", "attribute": "firing temperature", "value": "cone 6"}},
    ],
    "queries": [
        {"q": "What temperature does the community kiln fire at?", "relevant": ["temp"], "forbidden": ["book"]},
        {"q": "What do I still have to arrange for the bowls?", "relevant": ["book"], "forbidden": []},
    ],
}


def _folder(tmp_path: Path, rewordings: dict[str, list[str]]) -> Path:
    (tmp_path / "splits.yaml").write_text("test:\n  - mine.yaml\n", encoding="utf-8")
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"scenarios": [SCENARIO]}), encoding="utf-8")
    (tmp_path / paraphrase.FOLDER).mkdir()
    (tmp_path / paraphrase.FOLDER / "mine.yaml").write_text(yaml.safe_dump({"scenarios": rewordings}),
                                                            encoding="utf-8")
    return tmp_path


def test_the_reworded_queries_replace_the_originals(tmp_path: Path) -> None:
    other = ["How hot does the shared kiln get for stoneware?", "Is there anything still to do before my bowls are fired?"]
    report = paraphrase.run("test", directory=_folder(tmp_path, {"p-en-kiln": other}))
    assert {row.query for row in report.reworded.rows} == set(other)
    assert {row.query for row in report.original.rows} == {q["q"] for q in SCENARIO["queries"]}
    for system in paraphrase.SYSTEMS:  # each wording asked once per system, on the one store built
        m = report.metric(system)
        assert m["n"] == 2 and m["isolation_change"] == m["isolation_reworded"] - m["isolation"]
    assert "recall" in report.render() and report.to_dict()["queries"] == 2


@pytest.mark.parametrize(("rewordings", "field"), [
    ({"p-en-kiln": ["only one"]}, "p-en-kiln"),
    ({"nobody": ["a", "b"]}, "scenarios"),
    ({"p-en-kiln": ["How hot does the shared kiln get?", SCENARIO["queries"][0]["q"]]}, "p-en-kiln"),  # unchanged
])
def test_a_rewording_file_that_does_not_fit_the_split_is_refused(tmp_path: Path, rewordings: dict[str, list[str]],
                                                                  field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        paraphrase.run("test", directory=_folder(tmp_path, rewordings))
    assert caught.value.field == field


def test_recall_is_asked_at_each_k_and_plain_search_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemir.eval import collapse

    asked: list[tuple[str, int]] = []
    for system in ("vector", "recall"):
        ranker = collapse.RANKERS[system]

        def recording(*args: object, _system: str = system, _ranker: object = ranker) -> list[str]:
            asked.append((_system, int(args[-1])))  # type: ignore[call-overload]
            return _ranker(*args)  # type: ignore[operator,no-any-return]

        monkeypatch.setitem(collapse.RANKERS, system, recording)
    folder = _folder(tmp_path, {"p-en-kiln": [q["q"] for q in SCENARIO["queries"]]})
    report = collapse.run("test", (3, 5), systems=("vector", "recall"), scenarios=collapse.load("test", directory=folder))
    assert sorted(set(asked)) == [("recall", 3), ("recall", 5), ("vector", 5)]
    assert all(len(r.ranked) <= r.k for r in report.rows if r.system == "recall")
