"""The trainers' shared command line (:func:`mnemir.eval.model_main`): fit, then write the model's JSON to --out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemir.eval import model_main


class _Model:
    threshold = 0.5

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "note": "中文也写原文"}


def test_the_model_is_written_where_out_says_and_summarised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "model.json"
    assert model_main("doc", tmp_path / "default.json", _Model, lambda m: f"threshold {m.threshold}",
                      ["--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == {"threshold": 0.5, "note": "中文也写原文"}
    assert "中文也写原文" in out.read_text(encoding="utf-8")  # kept readable, not \\u-escaped
    assert not (tmp_path / "default.json").exists()
    assert capsys.readouterr().out == f"wrote {out}: threshold 0.5\n"


def test_without_out_the_default_path_is_written(tmp_path: Path) -> None:
    default = tmp_path / "default.json"
    model_main(None, default, _Model, lambda m: "", [])
    assert json.loads(default.read_text(encoding="utf-8"))["threshold"] == 0.5
