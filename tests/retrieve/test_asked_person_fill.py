"""Asked about someone, a memory about another person that the step of decision 0069 moved after the rest does not
stay in the top k only because the answer was short: plain search's next utterances take the places before it
(``RecallConfig.asked_person_fill``, decision 0081). Real store, real embedder, the shipped models; every sentence
is made up here."""

from __future__ import annotations

from datetime import datetime, timedelta

import mnemir
from mnemir.retrieve import RecallConfig

TURNS = [
    ("user", "My brother Anselm works night shifts as a nurse at the county hospital."),
    ("assistant", "Night shifts are tough. How long has he been there?"),
    ("user", "Eight years now, he moved there after his training in Leeds."),
    ("assistant", "That's a long stretch on nights."),
    ("user", "My flatmate Corinna works as a nurse too, at a care home near the station."),
    ("assistant", "Sounds like a caring household!"),
    ("user", "My dentist appointment is next Tuesday morning."),
    ("assistant", "I'll keep that in mind."),
]


def _shown(mem: mnemir.Memory, query: str, now: datetime, k: int) -> list[set[int]]:
    hits = mem.recall(query, user="noor", k=k, now=now).hits
    return [{s.turn for s in (h.memory.metadata.source, *h.memory.metadata.merged_sources) if s.turn} for h in hits]


def test_a_memory_about_another_person_leaves_a_short_answer(mem: mnemir.Memory, now: datetime) -> None:
    start = now - timedelta(hours=2)
    for n, (speaker, text) in enumerate(TURNS, start=1):
        mem.remember(text, speaker=speaker, user="noor", session="s1", turn=n, now=start + timedelta(minutes=n))
    query = "Which hospital does my brother work at?"
    mem.recall_config = RecallConfig(asked_person_fill=False)
    before = _shown(mem, query, now, k=5)
    # the step moved the flatmate after the rest, but five memories were all there was: she stayed
    assert any(1 in t for t in before) and any(5 in t for t in before), before
    mem.recall_config = RecallConfig(asked_person_fill=True)
    after = _shown(mem, query, now, k=5)
    assert any(1 in t for t in after) and not any(5 in t for t in after), after
    assert len(after) == len(before)
