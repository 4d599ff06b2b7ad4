"""An outburst told in several sentences is one feeling with what set it off (docs/decisions/0092): kept whole as an
EmotionalState when its pieces read only as a feeling and facts and the whole reads as a feeling; a feeling told
beside a request is still two memories. Sentences of our own, the shipped models on the real embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

import mnemir
from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor
from mnemir.understand import extract as extract_module

OUTBURSTS = [
    "Really upset today. Our cat Miso knocked my grandmother's vase off the shelf.",
    "气死我了。物业又把停车费涨到每月八百，还不提前通知。",
]


@pytest.fixture(scope="module")
def whole(embedder: USEEmbedder) -> Extractor:
    extractor = Extractor(embedder)
    extractor.outburst_whole_min_p = 0.5
    return extractor


@pytest.mark.parametrize("text", OUTBURSTS)
def test_an_outburst_in_several_sentences_is_one_feeling_of_the_whole_text(whole: Extractor, text: str) -> None:
    drafts = [d for d in whole.extract(text).drafts if d.type != "DialogueAct"]
    assert [d.type for d in drafts] == ["EmotionalState"]
    assert drafts[0].text == text and any("outburst" in r for r in drafts[0].reasons)


def test_a_feeling_beside_a_request_is_still_two_memories(whole: Extractor) -> None:
    drafts = whole.extract("I am so stressed. Remind me to call the bank tomorrow morning.").drafts
    assert {d.type for d in drafts} >= {"EmotionalState", "Task"}


def test_off_the_pieces_are_read_one_by_one(embedder: USEEmbedder) -> None:
    extractor = Extractor(embedder)
    extractor.outburst_whole_min_p = None
    drafts = [d for d in extractor.extract(OUTBURSTS[0]).drafts if d.type != "DialogueAct"]
    assert len(drafts) >= 2 and all(d.text != OUTBURSTS[0] for d in drafts)


def test_the_default_is_the_module_setting(embedder: USEEmbedder) -> None:
    assert Extractor(embedder).outburst_whole_min_p == extract_module.OUTBURST_WHOLE_MIN_P


def test_remember_keeps_the_outburst_whole_and_a_calm_fact_beside_it(tmp_path: Path, embedder: USEEmbedder,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract_module, "OUTBURST_WHOLE_MIN_P", 0.5)
    mem = mnemir.open(tmp_path / "m", embedder=embedder)
    try:
        done = mem.remember(OUTBURSTS[0], user="u")
        assert [r.type for r in done.created] == ["EmotionalState"]
        assert done.created[0].content.text == OUTBURSTS[0]
        calm = mem.remember("The vase was a wedding present to my grandmother in 1961.", user="u")
        assert [r.type for r in calm.created] == ["Fact"]
    finally:
        mem.close()


def test_the_roles_weights_load_and_read_an_outburst_and_a_to_do_item(embedder: USEEmbedder) -> None:
    from mnemir.understand.model import load_model

    roles = Extractor(embedder, load_model("extractor_roles"))  # extract.EXTRACTOR_MODEL's other choice
    assert [d.type for d in roles.extract("Order two new tyres for the van before Friday.").drafts] == ["Task"]
    roles.outburst_whole_min_p = 0.5
    drafts = [d for d in roles.extract(OUTBURSTS[1]).drafts if d.type != "DialogueAct"]
    assert [d.type for d in drafts] == ["EmotionalState"]
