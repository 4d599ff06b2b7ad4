"""The never-subtract diagnosis over continuity conversations (the full run is `python -m mnemir.eval.never_subtract`)."""

from __future__ import annotations

from mnemir.eval import continuity, never_subtract
from mnemir.retrieve import RecallConfig


def test_every_checkpoint_is_asked_and_every_loss_gets_a_cause(embedder) -> None:  # type: ignore[no-untyped-def]
    conversation = continuity.load("train")[0]
    report = never_subtract.run("train", {"recall": RecallConfig(), "plain only": RecallConfig(plain_share=1.0)},
                                embedder=embedder, limit_conversations=1)
    assert len(report.points) == len(conversation.checkpoints)
    assert [p.question for p in report.points] == [c.q for c in sorted(conversation.checkpoints,
                                                                         key=lambda c: c.after)]
    for p in report.subtracted("recall"):  # hybrid showed a relevant turn, recall did not: diagnosed
        assert p.hybrid_relevant and not p.systems["recall"][1] and p.cause
    assert not any(p in report.subtracted("recall") for p in report.added("recall"))
    assert set(report.to_dict()["systems"]) == {"recall", "plain only"}
    assert "never subtract" in report.render()
