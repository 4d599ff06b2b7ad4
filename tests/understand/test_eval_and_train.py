"""The quality reports (run on the dev split here), the independence of the splits, and training reproducibility.

That no evaluated text is in the training data (across suites) is held by tests/test_data_separation.py."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mnemir.embed import USEEmbedder
from mnemir.errors import ConfigError, ValidationError
from mnemir.eval import extraction as eval_extraction
from mnemir.eval import intent as eval_intent
from mnemir.understand import Extractor, IntentRecognizer
from mnemir.understand.extract import EXTRACTION_LABELS
from mnemir.understand.lexicon import CUE_NAMES, cue_vector
from mnemir.understand.model import DATA_DIR, FeatureSpec, load_model, ngram_vectors, read_jsonl
from mnemir.understand.train import (
    cross_validate,
    emotion_rerank,
    extraction_examples,
    features_of,
    fit,
    output_dir,
)


@pytest.mark.parametrize("kind,key", [("extraction", "text"), ("intent", "query")])
def test_dev_split_is_disjoint_from_the_train_split(kind: str, key: str) -> None:
    dev = {r[key] for r in eval_extraction.load_split("dev", kind)}
    assert len(dev) >= 400
    assert not dev & {r[key] for r in eval_extraction.load_split("train", kind)}


def test_dev_split_is_big_enough_per_language_and_names_its_files() -> None:
    for kind, files in (("extraction", eval_extraction.SPLITS), ("intent", eval_extraction.INTENT_SPLITS)):
        rows = eval_extraction.load_split("dev", kind)
        assert {r["source"] for r in rows} == set(files["dev"])
        assert len({r["id"] for r in rows}) == len(rows)
        for lang in ("zh", "en"):
            assert sum(r["lang"] == lang for r in rows) >= 200


@pytest.mark.parametrize("old", ["heldout", "fresh"])
def test_the_old_split_names_are_refused(old: str) -> None:
    with pytest.raises(ValidationError) as err:
        eval_extraction.load_split(old)
    assert err.value.context["field"] == "split" and err.value.context["allowed"] == ["train", "dev", "test", "dev15"]


@pytest.mark.parametrize("per_language", [pytest.param(None, marks=pytest.mark.slow), 12])
def test_extraction_report_per_language(extractor: Extractor, per_language: int | None) -> None:
    report = eval_extraction.run("dev", extractor, per_language=per_language)
    data = report.to_dict()
    assert set(data["languages"]) == {"zh", "en"}
    for scores in data["languages"].values():
        assert 0.7 <= scores["macro_f1"] <= 1.0  # a loose floor: a model that predicts nothing fails
        assert set(scores["per_type"]) == set(eval_extraction.TYPES)
    text = report.render()
    assert "[zh]" in text and "[en]" in text and "macro-F1" in text
    json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("per_language", [pytest.param(None, marks=pytest.mark.slow), 12])
def test_intent_report_per_language(recognizer: IntentRecognizer, per_language: int | None) -> None:
    report = eval_intent.run("dev", recognizer, per_language=per_language)
    data = report.to_dict()
    assert set(data["languages"]) == {"zh", "en"}
    assert all(0.7 <= s["type_accuracy"] <= 1.0 for s in data["languages"].values())  # loose floor
    assert "type accuracy" in report.render()


@pytest.mark.parametrize("spec", [FeatureSpec(0.15), FeatureSpec(0.3, 256, 1.5)])
def test_training_is_deterministic_and_round_trips(embedder: USEEmbedder, tmp_path: Path, spec: FeatureSpec) -> None:
    rows = read_jsonl(Path(eval_extraction.corpus_path("extraction_train.jsonl")))[::8]
    texts, labels = extraction_examples(rows)
    classes = tuple(sorted(set(labels)))
    features = features_of(texts, embedder, spec=spec)
    first = fit(features, labels, classes, embedder.model_id, spec=spec, l2=1e-4)
    second = fit(features, labels, classes, embedder.model_id, spec=spec, l2=1e-4)
    assert np.allclose(first.weights, second.weights)
    first.save(tmp_path / "tiny")
    loaded = load_model("tiny", tmp_path)
    vectors = embedder.embed(texts[:5])
    assert loaded.predict(vectors, texts[:5]) == first.predict(vectors, texts[:5])
    assert loaded.spec == spec
    assert loaded.weights.shape[0] == spec.size(embedder.dim)


@pytest.mark.parametrize("text", ["", "好", "我对花生过敏，但特别喜欢吃川菜", "Remind me to book the flights by Friday, it's urgent"])
def test_the_cue_names_name_every_cue_feature(text: str) -> None:
    assert len(cue_vector(text)) == len(CUE_NAMES)


@pytest.mark.parametrize("name", ["extractor", "intent", "memory_count"])
def test_the_shipped_models_have_one_weight_row_per_named_feature(embedder: USEEmbedder, name: str) -> None:
    model = load_model(name)
    model.check(embedder)
    assert model.weights.shape[0] == embedder.dim + len(CUE_NAMES) + model.spec.ngram_dims


def test_a_model_whose_weights_do_not_fit_the_layout_is_refused(embedder: USEEmbedder) -> None:
    model = load_model("intent")
    short = dataclasses.replace(model, weights=model.weights[:-1])
    with pytest.raises(ConfigError, match="features"):
        short.check(embedder)


@pytest.mark.parametrize(("out", "cv", "written_to"), [
    (None, 0, DATA_DIR), (None, 5, None),
    (Path("elsewhere"), 5, Path("elsewhere")), (Path("elsewhere"), 0, Path("elsewhere")),
])
def test_cross_validation_does_not_overwrite_the_shipped_models(out: Path | None, cv: int,
                                                                written_to: Path | None) -> None:
    assert output_dir(out, cv) == written_to


def test_cross_validation_scores_the_label_a_rerank_puts_first(embedder: USEEmbedder) -> None:
    rows = read_jsonl(Path(eval_extraction.corpus_path("extraction_train.jsonl")))[::8]
    texts, labels = extraction_examples(rows)
    spec = FeatureSpec(0.15)
    features = features_of(texts, embedder, spec=spec)
    args = (features, labels, EXTRACTION_LABELS, embedder.model_id, 2)
    plain = cross_validate(*args, spec=spec, l2=1e-4)
    assert 0.5 < plain <= 1.0
    assert cross_validate(*args, spec=spec, l2=1e-4, rerank=emotion_rerank(texts, 0.0)) == plain
    always_none = cross_validate(*args, spec=spec, l2=1e-4, rerank=lambda i, ranked: [("NONE", 1.0)])
    assert always_none == labels.count("NONE") / len(labels)


@pytest.mark.parametrize(("text", "other", "same"), [
    ("How did I take it?", "How did I take it?", True), ("要不要去？", "要不要去？", True),
    ("How did I take it?", "Where is my passport?", False),
])
def test_ngram_vectors_are_stable_and_unit_length(text: str, other: str, same: bool) -> None:
    a, b = ngram_vectors([text, other], 512)
    assert np.isclose(np.linalg.norm(a), 1.0) and np.isclose(np.linalg.norm(b), 1.0)
    assert np.allclose(a, b) is same
    assert np.allclose(ngram_vectors([text], 512)[0], a)  # a fixed hash: the same buckets every run


def test_a_model_reads_with_the_features_it_was_trained_with(embedder: USEEmbedder) -> None:
    spec = FeatureSpec(0.3, 128, 1.5)
    texts = ["What's my sister's birthday?", "Did you book the dentist?", "我周末要做什么？", "我那天心情怎么样？"]
    features = features_of(texts, embedder, spec=spec, queries=True)
    model = fit(features, ["fact_lookup", "task_status", "open_tasks", "emotion"],
                ("fact_lookup", "task_status", "open_tasks", "emotion"), embedder.model_id, spec=spec, l2=1e-4)
    model.check(embedder)
    assert features.shape[1] == spec.size(embedder.dim)
    stale = dataclasses.replace(model, spec=FeatureSpec(0.3))
    with pytest.raises(ConfigError, match="layout"):
        stale.check(embedder)


def test_a_hidden_layer_model_round_trips_and_checks_its_input_size(embedder: USEEmbedder, tmp_path: Path) -> None:
    from mnemir.understand.model import train_softmax

    rows = read_jsonl(Path(eval_extraction.corpus_path("extraction_train.jsonl")))[::16]
    texts, labels = extraction_examples(rows)
    spec = FeatureSpec(0.15)
    features = features_of(texts, embedder, spec=spec)
    model = train_softmax(features, labels, classes=EXTRACTION_LABELS, embedder_id=embedder.model_id, spec=spec,
                          hidden=16, epochs=50)
    model.save(tmp_path / "mlp")
    loaded = load_model("mlp", tmp_path)
    loaded.check(embedder)
    assert loaded.hidden_weights is not None and loaded.input_size == spec.size(embedder.dim)
    assert np.allclose(loaded.proba(features[:4]), model.proba(features[:4]), atol=1e-5)


def test_sparse_aware_training_equals_the_dense_products() -> None:
    from mnemir.understand.model import _SplitColumns

    rng = np.random.default_rng(3)
    x = np.hstack([rng.normal(size=(40, 6)), (rng.random((40, 300)) < 0.02) * rng.random((40, 300))])
    split, w, g = _SplitColumns(x), rng.normal(size=(306, 3)), rng.normal(size=(40, 3))
    assert np.allclose(split.times(w), x @ w) and np.allclose(split.transposed_times(g), x.T @ g)


def test_sample_weights_and_batches_are_named() -> None:
    from mnemir.understand.train import row_weight, training_rows

    rows = training_rows("extractor")
    assert {r["batch"] for r in rows} == {"extraction_train.jsonl", "extraction_hw8.jsonl", "extraction_hw9.jsonl",
                                          "extraction_hw11.jsonl", "extraction_hw12.jsonl",
                                          "extraction_s12e2e.jsonl", "extraction_s18.jsonl", "extraction_s14.jsonl",
                                          "extraction_ctrain.jsonl", "extraction_s34.jsonl"}
    # the collapse train memories, one label source of their own, at a quarter (docs/decisions/0106); the rest at 1
    assert {row_weight(r) for r in rows if r["batch"] != "extraction_ctrain.jsonl"} == {1.0}
    assert {row_weight(r) for r in rows if r["batch"] == "extraction_ctrain.jsonl"} == {0.25}
    # ... without the steps of plans, whose type the scenario's plan gave them
    assert not any(r["expect"][0]["type"] == "Plan" for r in rows if r["batch"] == "extraction_ctrain.jsonl")
    assert row_weight({"batch": "multiwoz21"}) < 1.0


@pytest.mark.slow
def test_shared_dialogue_rows_are_negatives_and_world_questions() -> None:
    from mnemir.understand import _dialogues

    try:
        _dialogues.shared_datasets_dir()
    except ConfigError:
        pytest.skip("the shared dialogue datasets are not next to this checkout")
    extraction, intent = _dialogues.dialogue_rows(20)
    assert extraction == _dialogues.dialogue_rows(20)[0]  # seeded
    assert all(r["expect"] == [] for r in extraction)
    assert {r["speaker"] for r in extraction} == {"user", "assistant"}
    assert intent and all(r["kind"] == "general" and not _dialogues._OWN.search(r["query"]) for r in intent)


def test_a_row_with_two_memory_types_trains_one_example_per_sentence_or_clause() -> None:
    rows = [{"text": "My sister is a vet. Remind me to call her on Friday.", "expect": [{"type": "Fact"}, {"type": "Task"}]},
            {"text": "我哥下个月结婚，我得买身西装", "expect": [{"type": "Fact"}, {"type": "Task"}]},
            {"text": "我妹是护士，先去看她再去苏州", "expect": [{"type": "Fact"}, {"type": "Plan"}]},
            {"text": "I am fine", "expect": [{"type": "Fact"}, {"type": "Task"}, {"type": "Plan"}]}]
    texts, labels = extraction_examples(rows)
    assert list(zip(texts, labels, strict=True)) == [
        ("My sister is a vet.", "Fact"), ("Remind me to call her on Friday.", "Task"),
        ("我哥下个月结婚", "Fact"), ("我得买身西装", "Task"),
        ("我妹是护士", "Fact"), ("先去看她再去苏州", "Plan"),
        ("I am fine", "Plan")]  # no piece per type: a row naming a plan is read as the plan, any other is skipped


@pytest.mark.parametrize("text,must,intend", [
    ("I've got to renew the car tax by Friday", True, False),
    ("My boss asked me to redo the slides", True, False),
    ("这份报告周五之前必须交", True, False),
    ("I'm going to cycle to work from next month", False, True),
    ("暑假我打算带孩子回老家住一阵", False, True),
    ("The museum is closed on Mondays", False, False),
])
def test_the_task_plan_cues_tell_a_duty_from_an_intention(text: str, must: bool, intend: bool) -> None:
    values = dict(zip(CUE_NAMES, cue_vector(text), strict=True))
    assert (values["must"], values["intend"]) == (float(must), float(intend))


@pytest.mark.parametrize("text,step,deferred", [
    ("Stage two of the loft project: order the insulation before the 9th", True, False),
    ("Part one of the savings push is clearing the credit card by June", True, False),
    ("阳台改造第二阶段：月底前把地砖铺好", True, False),
    ("Let's push the vet appointment back a week", False, True),
    ("Clearing out the garage can be put off until after the holidays", False, True),
    ("牙医的预约往后推两周", False, True),
    ("We moved to Bristol when I was nine", False, False),
])
def test_a_numbered_step_reads_as_a_plan_step_and_a_deferral_as_a_change_of_status(
        text: str, step: bool, deferred: bool) -> None:
    """A numbered step of a larger plan is a step whatever deadline it carries; a move to a later time changes how
    planned work stands, as a cancellation does (the two cue groups the extractor reads them by; 0099)."""
    values = dict(zip(CUE_NAMES, cue_vector(text), strict=True))
    assert (values["plan_marker"], values["abandon"]) == (float(step), float(deferred))


def _runs(text: str) -> set[str]:
    """A text's runs of five English words and of eight Chinese characters."""
    words = re.findall(r"[a-z0-9']+", text.lower())
    han = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return {" ".join(words[i:i + 5]) for i in range(len(words) - 4)} | {han[i:i + 8] for i in range(len(han) - 7)}


def _batch(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows ``training/understand/<name>.py`` builds, and those of the ``extraction_<name>.jsonl`` it wrote."""
    import importlib.util

    from mnemir._paths import training_dir

    spec = importlib.util.spec_from_file_location(f"{name}_batch", training_dir() / "understand" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = [json.loads(line) for line in (training_dir() / "understand" / f"extraction_{name}.jsonl")
               .read_text(encoding="utf-8").splitlines() if line.strip()]
    return module.rows(), shipped


def test_the_session_16_batch_is_rebuilt_by_its_script_and_shares_no_phrase_with_the_dev_split() -> None:
    """``training/understand/s16.py`` writes ``extraction_s16.jsonl`` exactly, and no row of it shares a run of five
    words or eight Chinese characters with any extraction or intent text of the dev split (written in our own words,
    not paraphrased from an evaluation file)."""
    rebuilt, shipped = _batch("s16")
    assert rebuilt == shipped
    assert {row["expect"][0]["type"] for row in shipped} == {"TaskUpdate", "Fact", "Plan"}
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert not [row["text"] for row in shipped if _runs(row["text"]) & dev]


def test_the_session_18_batch_is_rebuilt_by_its_script_is_trained_on_and_shares_no_phrase_with_the_dev_split() -> None:
    """``training/understand/s18.py`` writes ``extraction_s18.jsonl`` exactly, the extractor trains on it, and no row
    of it shares a run of five words or eight Chinese characters with any extraction or intent text of the dev split
    (written in our own words for the end-to-end collapse work, docs/decisions/0061)."""
    from mnemir.understand.train import TRAIN_FILES

    rebuilt, shipped = _batch("s18")
    assert rebuilt == shipped
    assert "extraction_s18.jsonl" in TRAIN_FILES["extractor"]
    assert {row["expect"][0]["type"] for row in shipped} == {"EmotionalState", "Preference", "Task", "Fact"}
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert not [row["text"] for row in shipped if _runs(row["text"]) & dev]


def test_the_session_19_batch_is_rebuilt_by_its_script_is_not_trained_on_and_shares_no_phrase_with_the_dev_split() -> None:
    """``training/understand/s19.py`` writes ``extraction_s19.jsonl`` exactly, the extractor does not train on it (end
    to end it moved nothing on dev, docs/decisions/0065), and no row of it shares a run of five words or eight Chinese
    characters with any extraction or intent text of the dev split (written in our own words)."""
    from mnemir.understand.train import TRAIN_FILES

    rebuilt, shipped = _batch("s19")
    assert rebuilt == shipped
    assert "extraction_s19.jsonl" not in TRAIN_FILES["extractor"]
    assert {row["expect"][0]["type"] for row in shipped} == {"Fact", "Preference", "Task"}
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert not [row["text"] for row in shipped if _runs(row["text"]) & dev]


def test_the_blind_session_20_batch_is_not_trained_on_and_shares_no_run_with_any_evaluation_text() -> None:
    """``extraction_s19b.jsonl`` (written blind from the writer kit) stays outside the extractor's training list (with
    it continuity dev fell and a dropped errand was read as a preference, docs/decisions/0068), and none of its rows
    shares a run of eight Chinese characters or five words with a dev or test text (such rows were dropped, unread,
    when it was kept and as later rounds' files came in: 6 with the twenty-ninth's). Only counts are reported."""
    from tests.test_no_split_text import findings

    from mnemir._paths import training_dir
    from mnemir.understand.train import TRAIN_FILES

    assert "extraction_s19b.jsonl" not in TRAIN_FILES["extractor"]
    rows = read_jsonl(training_dir() / "understand" / "extraction_s19b.jsonl")
    assert len(rows) == 345 and len({r["id"] for r in rows}) == len(rows)
    assert {r["speaker"] for r in rows} == {"user", "assistant"}
    shared = sum(1 for r in rows if findings(r["text"]))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"


@pytest.mark.parametrize(("kept", "staged", "count"), [
    ("extraction_s20.jsonl", "extraction_train_s20.jsonl", 232),
    ("extraction_s21b.jsonl", "extraction_train_s21.jsonl", 247),
])
def test_a_blind_batch_is_kept_row_for_row_not_trained_on_and_shares_no_run_with_any_evaluation_text(
        kept: str, staged: str, count: int) -> None:
    """The blind batches staged as ``training/staged/<staged>``, less the rows that shared a run of eight Chinese
    characters or five words with a dev or test text or equalled one (s20: 58, one more with the dev files
    installed at 5c491e3, one more with those installed in the seventeenth round, two in the eighteenth, two in the
    nineteenth, three in the twentieth, four in the twenty-first, one in the twenty-second, seven in the twenty-third and more in later rounds: the count below is current; s21: 56, four more in the seventeenth round, one in the eighteenth, one in the twentieth, one in the twenty-first, four in the twenty-second and two in the twenty-third), are kept row for row as staged, share no such
    run, and stay outside the extractor's training list: with them extraction dev rose a little but continuity dev fell, in the main model, in
    a second reader and in a frame / request head beside it (docs/decisions/0075, 0079). Only counts are reported."""
    from tests.test_no_split_text import findings

    from mnemir._paths import training_dir
    from mnemir.understand.train import TRAIN_FILES

    assert kept not in TRAIN_FILES["extractor"]
    rows = read_jsonl(training_dir() / "understand" / kept)
    written = read_jsonl(training_dir() / "staged" / staged)
    assert len(rows) == count and len(written) == 320 and len({r["id"] for r in rows}) == len(rows)
    assert all(row in written for row in rows)
    shared = sum(1 for r in rows if findings(r["text"]))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"


def test_the_blind_uf_batch_is_kept_row_for_row_not_trained_on_and_shares_no_run_with_any_evaluation_text() -> None:
    """The blind batch staged as ``training/staged/extraction_train_uf.jsonl`` (249 rows, weighted to facts), less the
    rows that shared a run of eight Chinese characters or five words with a dev or test text (1, 5 more with the
    nineteenth round's files, 1 with the twentieth's, 6 with the twenty-first's, 3 with the twenty-second's, 6 with the twenty-third's and 1 with the twenty-ninth's) or equalled one as tokens (3), found by position in sessions 24 to 29, is kept row for row as staged, shares no such run and equals no
    evaluated text, and stays outside the extractor's training list: with it extraction dev rose 0.3 points in each
    language but continuity dev fell (open tasks, other people; docs/decisions/0089). Only counts are reported."""
    from tests.test_no_split_text import evaluated, findings, tokens

    from mnemir._paths import training_dir
    from mnemir.understand.train import TRAIN_FILES

    assert "extraction_uf.jsonl" not in TRAIN_FILES["extractor"]
    rows = read_jsonl(training_dir() / "understand" / "extraction_uf.jsonl")
    written = read_jsonl(training_dir() / "staged" / "extraction_train_uf.jsonl")
    assert len(rows) == 218 and len(written) == 249 and len({r["id"] for r in rows}) == len(rows)
    assert all(row in written for row in rows)
    shared = sum(1 for r in rows if findings(str(r["text"])))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"
    whole = {tuple(tokens(text)) for split in ("dev", "test") for text, _ in evaluated(split)}
    equal = sum(1 for r in rows if tuple(tokens(str(r["text"]))) in whole)
    assert equal == 0, f"{equal} rows equal an evaluation text"


def _kept_blind_batch(kept: str, staged: str, field: str, count: int, written_count: int = 400) -> None:
    """A blind batch staged as ``training/staged/<staged>`` (``written_count`` rows) is kept as ``training/understand/<kept>``: the
    ``count`` rows left after dropping, unread, those sharing a run of eight Chinese characters or five words with a
    dev or test text or equal to one, row for row in the staged order; none shares such a run or equals an evaluated
    text (``field``: the row's text). Only counts are reported."""
    from tests.test_no_split_text import evaluated, findings, tokens

    from mnemir._paths import training_dir
    from mnemir.eval import collapse

    rows = read_jsonl(training_dir() / "understand" / kept)
    written = read_jsonl(training_dir() / "staged" / staged)
    assert len(rows) == count and len(written) == written_count and len({r["id"] for r in rows}) == len(rows)
    assert all(row in written for row in rows)
    assert [r["id"] for r in rows] == [r["id"] for r in written if r in rows]  # in the staged order
    shared = sum(1 for r in rows if findings(str(r[field])))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"
    whole = {tuple(tokens(text)) for split in ("dev", "test") for text, _ in evaluated(split)}
    whole |= {tuple(tokens(q.text)) for scenario in collapse.load("all") for q in scenario.queries}
    equal = sum(1 for r in rows if tuple(tokens(str(r[field]))) in whole)
    assert equal == 0, f"{equal} rows equal an evaluation text"


def test_the_blind_extraction_batch_s27_is_kept_row_for_row_and_shares_no_run_with_any_evaluation_text() -> None:
    """The blind batch s27 (weighted to English Task / Plan / TaskUpdate / Hypothesis), less the 67 rows that shared a
    run with a dev or test text (59) or equalled one as tokens (13; 5 in both), found by position in session 27, and 7 more that shared a run with or
    equalled a text of the twenty-second round's dev and test files (session 28), 5 more with the twenty-third's (session 29) and 4 more with the twenty-ninth's (session 35), stays
    outside the extractor's training list: it raised extraction dev but cost continuity dev (docs/decisions/0099)."""
    from mnemir.understand.train import TRAIN_FILES

    assert "extraction_s27.jsonl" not in TRAIN_FILES["extractor"]
    _kept_blind_batch("extraction_s27.jsonl", "extraction_train_s27.jsonl", "text", 316)


def test_the_blind_extraction_batch_s34_is_kept_row_for_row_and_shares_no_run_with_any_evaluation_text() -> None:
    """The blind batch s34 (300 rows weighted to long user turns: several memories with supporting sentences between
    them, and one memory told at length), less the 88 rows that shared a run of eight Chinese characters or five words
    with a dev or test text (84) or equalled one as tokens (5; 1 in both), found by position in session 35, is kept
    row for row as staged and is in the extractor's training list (it raised continuity dev and held the guards;
    docs/decisions/0126), not in the count model's (it did not move the count model on extraction dev). Only counts
    are reported."""
    from mnemir.understand.train import TRAIN_FILES

    assert "extraction_s34.jsonl" in TRAIN_FILES["extractor"]
    assert "extraction_s34.jsonl" not in TRAIN_FILES["memory_count"]
    _kept_blind_batch("extraction_s34.jsonl", "extraction_train_s34.jsonl", "text", 212, written_count=300)


def test_the_blind_intent_batch_s26_is_kept_row_for_row_and_shares_no_run_with_any_evaluation_text() -> None:
    """The blind intent batch staged as ``training/staged/intent_train_s26.jsonl`` (400 queries, weighted to indirect
    and confusable phrasings), less the 85 rows that shared a run of eight Chinese characters or five words with a dev
    or test text (80) or equalled one as tokens (19; 14 in both), found by
    position in session 26, and 3 more that shared a run with the twenty-ninth round's files (session 35), is kept row for row as staged, shares no such run and equals no evaluated text
    (docs/decisions/0096). Only counts are reported."""
    _kept_blind_batch("intent_s26.jsonl", "intent_train_s26.jsonl", "query", 312)


def test_the_session_21_batch_is_rebuilt_by_its_script_is_not_trained_on_and_shares_no_run_with_an_evaluation_text() -> None:
    """``training/understand/s21.py`` writes ``extraction_s21.jsonl`` exactly, the extractor does not train on it (with
    it extraction dev rose but continuity dev fell, docs/decisions/0075), and no row
    of it shares a run of five words or eight Chinese characters with a dev or test text of any suite (written in our
    own words for the frame and task errors) nor any run of five words / eight Chinese characters, however short, with
    an extraction or intent dev text. Only counts are reported."""
    from tests.test_no_split_text import findings

    from mnemir.understand.train import TRAIN_FILES

    rebuilt, shipped = _batch("s21")
    assert rebuilt == shipped
    assert "extraction_s21.jsonl" not in TRAIN_FILES["extractor"]
    assert {row["expect"][0]["type"] for row in shipped} == {"ContextualFrame", "Preference", "Task"}
    shared = sum(1 for r in shipped if findings(str(r["text"])))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert sum(1 for row in shipped if _runs(str(row["text"])) & dev) == 0


def test_the_session_29_batch_is_rebuilt_by_its_script_is_not_trained_on_and_shares_no_run_with_an_evaluation_text() -> None:
    """``training/understand/s29.py`` writes ``extraction_s29.jsonl`` exactly, the extractor does not train on it (it
    moved extraction dev by churn and lowered the held-out training batches, docs/decisions/0105), and no row of it
    shares a run of five words or eight Chinese characters with a dev or test text of any suite, nor any such run,
    however short, with an extraction or intent dev text. Only counts are reported."""
    from tests.test_no_split_text import findings

    from mnemir.understand.train import TRAIN_FILES

    rebuilt, shipped = _batch("s29")
    assert rebuilt == shipped
    assert "extraction_s29.jsonl" not in TRAIN_FILES["extractor"]
    assert {row["expect"][0]["type"] for row in shipped} == {"Task", "Fact", "Plan", "Preference"}
    shared = sum(1 for r in shipped if findings(str(r["text"])))
    assert shared == 0, f"{shared} rows share a run with an evaluation text"
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert sum(1 for row in shipped if _runs(str(row["text"])) & dev) == 0


def test_the_session_32_batch_is_rebuilt_by_its_script_is_not_trained_on_and_shares_no_phrase_with_the_dev_split(
) -> None:
    """``training/understand/s32.py`` writes ``extraction_s32.jsonl`` exactly, one memory per row, the extractor does
    not train on it (collapse dev end to end fell with it, docs/decisions/0115), and no row of it
    shares a run of five words or eight Chinese characters with any extraction or intent text of the dev split
    (written in our own words for the boundaries the dev confusion counted, docs/decisions/0115)."""
    from mnemir.understand.train import TRAIN_FILES

    rebuilt, shipped = _batch("s32")
    assert rebuilt == shipped
    assert "extraction_s32.jsonl" not in TRAIN_FILES["extractor"]
    assert all(len(row["expect"]) == 1 for row in shipped)
    assert {row["expect"][0]["type"] for row in shipped} == {"EmotionalState", "Hypothesis", "Fact", "Task",
                                                              "Preference", "TaskUpdate"}
    dev = set().union(*(_runs(r["text"]) for r in eval_extraction.load_split("dev")),
                      *(_runs(r["query"]) for r in eval_extraction.load_split("dev", "intent")))
    assert not [row["text"] for row in shipped if _runs(row["text"]) & dev]


def test_a_one_memory_utterance_of_several_sentences_is_also_learned_piece_by_piece(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemir.understand import train

    rows = [{"text": "I'm so cross. The plumber never turned up.", "expect": [{"type": "EmotionalState"}]},
            {"text": "Maybe the fox took the eggs. The coop door was open.", "expect": [{"type": "Hypothesis"}]},
            {"text": "Quiet day at home.", "expect": [{"type": "Fact"}]}]
    monkeypatch.setattr(train, "PIECE_WEIGHT", 0.0)
    assert train.weighted_extraction_examples(rows)[0] == [r["text"] for r in rows]
    monkeypatch.setattr(train, "PIECE_WEIGHT", 0.5)
    texts, labels, weights = train.weighted_extraction_examples(rows)
    # each sentence with the row's type at half the row's weight, and the whole at its weight; a guess's evidence is
    # an observation, so a guess is learned whole only
    assert list(zip(texts, labels, weights, strict=True)) == [
        ("I'm so cross.", "EmotionalState", 0.5), ("The plumber never turned up.", "EmotionalState", 0.5),
        ("I'm so cross. The plumber never turned up.", "EmotionalState", 1.0),
        ("Maybe the fox took the eggs. The coop door was open.", "Hypothesis", 1.0),
        ("Quiet day at home.", "Fact", 1.0)]
