"""Evaluation text never appears in what the models learn from (across suites, not only within one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemir._paths import training_dir
from mnemir.eval import collapse, collapse_rows, continuity, paraphrase
from mnemir.eval import extraction as corpus
from mnemir.understand.model import read_jsonl


def _texts(split: str, kind: str) -> set[str]:
    key = "text" if kind == "extraction" else "query"
    return {row[key] for row in corpus.load_split(split, kind)}



def _collapse_queries(split: str) -> set[str]:
    # the scenarios' memories are stored with their types given by hand (no model reads them); the queries go
    # through the intent model, so none of them may be in its training data, whatever the collapse split
    return {q.text for scenario in collapse.load(split) for q in scenario.queries}


def _stock_reply(text: str) -> bool:
    bare = text.strip(" .!?。！？～~")
    return len(bare.split()) <= 1 and len(bare) <= 4


# the extractor_roles weights also learn from the collapse train memories written as rows (docs/decisions/0092)
_COLLAPSE_ROWS = training_dir() / "understand" / collapse_rows.FILE
TRAINED_ON = _texts("train", "extraction") | _texts("train", "intent") | (
    {row["text"] for row in read_jsonl(_COLLAPSE_ROWS)} if _COLLAPSE_ROWS.is_file() else set())


@pytest.mark.parametrize("split", ["dev", "test"])
def test_no_evaluation_text_is_in_the_training_data(split: str) -> None:
    evaluated = _texts(split, "extraction") | _texts(split, "intent") if corpus.split_written(split) else set()
    if split == "dev":
        evaluated |= _collapse_queries("all") | {q for qs in paraphrase.load("dev").values() for q in qs}
    elif collapse.split_files("test"):
        evaluated |= _collapse_queries("test") | {q for qs in paraphrase.load("test").values() for q in qs}
    if any(continuity.data_dir(split).glob("*.yaml")):
        # a conversation's one-word acknowledgements ("OK.", a two-character "好的") are the language's stock
        # replies, bound to recur anywhere; every longer turn must be new to the models
        evaluated |= {text for text in continuity.iter_texts(split) if not _stock_reply(text)}
    # only a count: a test split's sentences must not reach a log
    shared = len(evaluated & TRAINED_ON)
    assert shared == 0, f"{shared} evaluated texts are in the training data"


def test_the_issue15_sanity_split_is_not_trained_on() -> None:
    evaluated = _texts("dev15", "extraction")
    assert not evaluated & TRAINED_ON, f"{len(evaluated & TRAINED_ON)} sanity rows are in the training data"


def test_the_newest_continuity_training_files_share_no_run_with_an_evaluation_text() -> None:
    # T11 / T12 (docs/decisions/0068), T13 (0079), T14 (0083) and T15 (0127) were checked before they joined the
    # train split: their turns and questions share no run of eight Chinese characters or five words with a dev or test
    # text (the older files were not checked so)
    from tests.test_no_split_text import findings

    newest = [c for c in continuity.load("train") if Path(c.source).stem in {"continuity_train_T11",
                                                                            "continuity_train_T12",
                                                                            "continuity_train_T13",
                                                                            "continuity_train_T14",
                                                                            "continuity_train_T15"}]
    assert len(newest) == 46
    texts = [t.text for c in newest for t in c.turns] + [p.q for c in newest for p in c.checkpoints]
    shared = sum(1 for text in texts if findings(text))
    assert shared == 0, f"{shared} training turns or questions share a run with an evaluation text"


def test_the_newest_collapse_training_file_shares_no_run_with_an_evaluation_text() -> None:
    # train_t22a (docs/decisions/0083) was checked before it joined the train split: its memories and queries share no
    # run of eight Chinese characters or five words with a dev or test text and equal none
    from tests.test_no_split_text import evaluated, findings, tokens

    newest = [s for s in collapse.load("train") if s.source == "train_t22a.yaml"]
    assert len(newest) == 20
    texts = [str(m["text"]) for s in newest for m in s.memories] + [q.text for s in newest for q in s.queries]
    assert len(texts) > 100
    shared = sum(1 for text in texts if findings(text))
    assert shared == 0, f"{shared} training memories or queries share a run with an evaluation text"
    whole = {tuple(tokens(text)) for split in ("dev", "test") for text, _ in evaluated(split)}
    equal = sum(1 for text in texts if tuple(tokens(text)) in whole)
    assert equal == 0, f"{equal} training memories or queries equal an evaluation text"


def test_the_newest_dialogue_qa_training_files_share_no_run_with_an_evaluation_text() -> None:
    # authors F (docs/decisions/0089) were checked before they joined the dialogue QA train split: their turns and
    # questions share no run of eight Chinese characters or five words with a dev or test text and equal none (seven
    # turns that did were reworded by position, keeping their facts)
    from tests.test_no_split_text import evaluated, findings, tokens

    from mnemir.eval import dialogue_qa

    newest = [c for c in dialogue_qa.load("train") if c.file in {"qa_F_en.yaml", "qa_F_zh.yaml"}]
    assert len(newest) == 4
    texts = [text for c in newest for _, _, turns in c.sessions for _, _, text in turns] + \
        [q for c in newest for q, _, _ in c.questions]
    assert len(texts) == 528 + 109
    shared = sum(1 for text in texts if findings(text))
    assert shared == 0, f"{shared} training turns or questions share a run with an evaluation text"
    whole = {tuple(tokens(text)) for split in ("dev", "test") for text, _ in evaluated(split)}
    equal = sum(1 for text in texts if len(tokens(text)) > 2 and tuple(tokens(text)) in whole)
    assert equal == 0, f"{equal} training turns or questions equal an evaluation text"
