"""Hybrid search: type/property filters + exact vector similarity + BM25, fused.

Filters are applied inside each retriever (SQL first), so fusion only ever
sees records that satisfy them. Reciprocal rank fusion is the default;
a weighted fusion of normalised scores is available. What the assistant said
weighs ``FusionConfig.assistant_weight`` of what anyone else said (decision
0043). Every hit says why it was chosen.

Ties are settled by the signals themselves (decision 0095): records with equal
scores in one list are ordered by the other list's score (:func:`settle_ties`), and a tie of the fused
score (two records at vector rank 1 / text rank 2 and at 2 / 1 tie exactly under
reciprocal ranks) goes to the stronger signals by their own measures
(:func:`signal_strengths`), then the newer record, and only then the id, so that
the same store answers in the same order every time, whatever ids its records
were given and in whatever order they were written.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mnemir.embed.base import Embedder
from mnemir.errors import ValidationError
from mnemir.ir import MemIR
from mnemir.store.base import Selection, Store, tenant_reads

FusionMethod = Literal["rrf", "weighted"]
#: how ties of the fused score are broken: "signals" (the signals' strengths, then the newer record, then the id) or
#: "id" (the record id alone: the order before decision 0095, which moves with the random ids a store was given)
TieBreak = Literal["signals", "id"]
MAX_K = 1000
#: the speaker an assistant's own utterance is recorded with (``metadata.source.speaker``)
ASSISTANT = "assistant"


def said_by_assistant(record: MemIR) -> bool:
    """Was ``record`` said by the assistant (its source's speaker)?"""
    speaker = record.metadata.source.speaker
    return isinstance(speaker, str) and speaker.strip().lower() == ASSISTANT


@dataclass(frozen=True)
class FusionConfig:
    method: FusionMethod = "rrf"
    #: the RRF constant: larger flattens the advantage of top ranks
    rrf_k: int = 60
    weights: Mapping[str, float] = field(default_factory=lambda: {"vector": 1.0, "text": 1.0})
    #: how many candidates each retriever returns, as a multiple of k
    candidate_factor: int = 4
    #: the fused score of a memory the assistant said (``metadata.source.speaker`` "assistant") is multiplied by
    #: this: a memory answers questions about the user, and the assistant's turns mostly reflect the user's words
    #: back (restating, asking, suggesting), so where the user's statement and the assistant's echo of it compete
    #: for a place, the user's is the evidence. 1.0 weighs both alike (decision 0043)
    assistant_weight: float = 0.8
    #: how ties of the fused score are broken (:data:`TieBreak`; decision 0095)
    ties: TieBreak = "signals"
    #: score-aware reciprocal-rank fusion: each record's signal strengths (its similarity and its BM25 score, each as
    #: a share of the best in its list, weighed as the lists: :func:`signal_strengths`) times this, over
    #: ``rrf_k + 1``, are added to its reciprocal ranks. Ranks say only which is ahead; the scores say by how much:
    #: a list whose best stands out (a rare word matched, a close paraphrase) separates its candidates more than a
    #: flat one, so the fusion leans, query by query, on the signal that discriminates. 0: ranks alone. 0.25 measured
    #: on dialogue QA dev labelled raw turns 0.706 / 0.809 -> 0.721 / 0.817 (@5 / @10), other suites level (decision 0095)
    score_weight: float = 0.25

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "weighted"):
            raise ValidationError("unknown fusion method", field="fusion.method", value=self.method,
                                  allowed=["rrf", "weighted"])
        if self.ties not in ("signals", "id"):
            raise ValidationError("unknown tie break", field="fusion.ties", value=self.ties,
                                  allowed=["signals", "id"])
        unknown = set(self.weights) - {"vector", "text"}
        if unknown:
            raise ValidationError("unknown fusion weight", field="fusion.weights", value=sorted(unknown),
                                  allowed=["vector", "text"])
        if any(w < 0 for w in self.weights.values()) or not any(w > 0 for w in self.weights.values()):
            raise ValidationError("fusion weights must be >= 0 and not all 0", field="fusion.weights",
                                  value=dict(self.weights))
        sw = self.score_weight
        if isinstance(sw, bool) or not isinstance(sw, (int, float)) or not 0.0 <= sw <= 10.0:
            raise ValidationError("score_weight must be a number in [0, 10]", field="fusion.score_weight", value=sw,
                                  allowed="number in [0, 10]")
        w = self.assistant_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise ValidationError("assistant_weight must be a number in [0, 1]", field="fusion.assistant_weight",
                                  value=w, allowed="number in [0, 1]")


@dataclass
class SearchHit:
    memory: MemIR
    score: float
    reasons: list[str] = field(default_factory=list)
    #: raw signals: vector_rank, vector_similarity, text_rank, text_score
    signals: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.memory.id

    def to_dict(self) -> dict[str, Any]:
        return {"memory": self.memory.to_dict(), "score": self.score, "reasons": self.reasons,
                "signals": self.signals}


def check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValidationError("k out of range", field="k", value=k, allowed=f"integer in [1, {MAX_K}]")
    return k


def hybrid_search(store: Store, embedder: Embedder, selection: Selection, query: str, k: int = 10,
                  fusion: FusionConfig | None = None, *, filter_reasons: list[str] | None = None) -> list[SearchHit]:
    """The k best records inside ``selection`` for ``query``."""
    k = check_k(k)
    store = tenant_reads(store, selection.user_id)
    fusion = fusion or FusionConfig()
    base_reasons = list(filter_reasons or [])
    if not query or not query.strip():
        listed = store.select(selection, order_by=[("@updated_at", False)], limit=k)
        return [SearchHit(r, 1.0, [*base_reasons, "matched the filters (no query text)"]) for r in listed]
    n_candidates = max(k * fusion.candidate_factor, 50)
    signals: dict[str, dict[str, Any]] = {}
    vector: list[tuple[str, float]] = []
    text: list[tuple[str, float]] = []
    if fusion.weights.get("vector", 0) > 0:
        qvec = embedder.embed_query(query)
        vector = store.vector_search(selection, qvec, n_candidates)
    if fusion.weights.get("text", 0) > 0:
        text = store.text_search(selection, query, n_candidates)
    if fusion.ties == "signals":
        vector, text = settle_ties(vector, dict(text)), settle_ties(text, dict(vector))
    for rank, (mid, sim) in enumerate(vector, start=1):
        signals.setdefault(mid, {}).update(vector_rank=rank, vector_similarity=round(float(sim), 4))
    for rank, (mid, bm25) in enumerate(text, start=1):
        signals.setdefault(mid, {}).update(text_rank=rank, text_score=round(float(bm25), 4))
    strength = signal_strengths([dict(vector), dict(text)],
                                [fusion.weights.get("vector", 0.0), fusion.weights.get("text", 0.0)])
    top, records = _weigh_speakers(store, _fuse(signals, fusion, strength), k, fusion.assistant_weight,
                                   strength if fusion.ties == "signals" else None)
    hits = []
    for mid, score in top:
        if mid in records:
            reasons = [*base_reasons, *_explain(signals[mid])]
            if fusion.assistant_weight < 1.0 and said_by_assistant(records[mid]):
                reasons.append(f"said by the assistant: weighed x{fusion.assistant_weight:g}")
            hits.append(SearchHit(records[mid], score, reasons, signals[mid]))
    return hits


def settle_ties(ranked: Sequence[tuple[str, float]], other: Mapping[str, float]) -> list[tuple[str, float]]:
    """``ranked`` ((id, score), best first) with equal scores ordered by the other signal's score (higher first; an
    id the other list lacks after those it holds). A store orders equal scores by id, which says nothing of the
    query; what is still equal keeps that order (the same text said twice)."""
    return sorted(ranked, key=lambda e: (-e[1], -other.get(e[0], -math.inf)))


def signal_strengths(lists: Sequence[Mapping[str, float]], weights: Sequence[float]) -> dict[str, float]:
    """How strong each id's signals are by their own measures: its score in each list (a similarity, a BM25 score)
    as a share of that list's best (a score <= 0 counts 0), weighed and summed. What breaks a tie of rank fusion:
    ranks say only which is ahead, the scores say by how much."""
    out: dict[str, float] = {}
    for scores, weight in zip(lists, weights, strict=True):
        top = max(scores.values(), default=0.0)
        if weight <= 0 or top <= 0:
            continue
        for mid, score in scores.items():
            out[mid] = out.get(mid, 0.0) + weight * max(float(score), 0.0) / top
    return out


def score_bonus(strength: float, weight: float, rrf_k: int) -> float:
    """What score-aware reciprocal-rank fusion adds to a record's reciprocal ranks: its signal strengths
    (:func:`signal_strengths`) times ``weight``, on the scale of the first place's reciprocal rank."""
    return weight * strength / (rrf_k + 1) if weight > 0 else 0.0


def tie_key(mid: str, score: float, strength: Mapping[str, float] | None,
            record: MemIR | None = None) -> tuple[float, float, float, str]:
    """The sort key of a fused score: the score, then (``strength`` given: :func:`signal_strengths`) the stronger
    signals, then the newer record (when read), then the id."""
    if strength is None:
        return (-score, 0.0, 0.0, mid)
    when = -record.metadata.created_at.timestamp() if record is not None else 0.0
    return (-score, -strength.get(mid, 0.0), when, mid)


def _weigh_speakers(store: Store, scored: Mapping[str, float], k: int, assistant_weight: float,
                    strength: Mapping[str, float] | None = None) -> tuple[list[tuple[str, float]], dict[str, MemIR]]:
    """The ``k`` best of ``scored`` once what the assistant said is weighed ``assistant_weight``, and the records
    read. The speaker is in the record, so records are read in order of the fused score, a batch at a time, until no
    unread one can reach the top k (weighing only lowers a score). Ties: :func:`tie_key`."""
    order = sorted(scored.items(), key=lambda kv: tie_key(kv[0], kv[1], strength))
    records: dict[str, MemIR] = {}
    weighed: list[tuple[str, float]] = []
    start, batch = 0, k if assistant_weight >= 1.0 else 2 * k + 10
    while start < len(order):
        chunk = order[start:start + batch]
        records.update((r.id, r) for r in store.fetch([mid for mid, _ in chunk]))
        for mid, score in chunk:
            if mid in records:
                weighed.append((mid, score * assistant_weight if said_by_assistant(records[mid]) else score))
        start += len(chunk)
        weighed.sort(key=lambda kv: tie_key(kv[0], kv[1], strength, records.get(kv[0])))
        if assistant_weight >= 1.0 or start >= len(order) or (len(weighed) >= k and weighed[k - 1][1] > order[start][1]):
            break
        batch = len(order) - start  # the rest at once: rare (the assistant's turns crowd the top)
    return weighed[:k], records


def _fuse(signals: Mapping[str, Mapping[str, Any]], fusion: FusionConfig,
          strength: Mapping[str, float]) -> dict[str, float]:
    w_vec = fusion.weights.get("vector", 0.0)
    w_txt = fusion.weights.get("text", 0.0)
    if fusion.method == "rrf":
        return {
            mid: w_vec * (1.0 / (fusion.rrf_k + s["vector_rank"]) if "vector_rank" in s else 0.0)
            + w_txt * (1.0 / (fusion.rrf_k + s["text_rank"]) if "text_rank" in s else 0.0)
            + score_bonus(strength.get(mid, 0.0), fusion.score_weight, fusion.rrf_k)
            for mid, s in signals.items()
        }
    top_bm25 = max((s.get("text_score", 0.0) for s in signals.values()), default=0.0) or 1.0
    return {
        mid: w_vec * max(s.get("vector_similarity", 0.0), 0.0) + w_txt * s.get("text_score", 0.0) / top_bm25
        for mid, s in signals.items()
    }


def _explain(sig: Mapping[str, Any]) -> list[str]:
    out = []
    if "vector_rank" in sig:
        out.append(f"semantic similarity {sig['vector_similarity']:.2f} (vector rank {sig['vector_rank']})")
    if "text_rank" in sig:
        out.append(f"keyword match BM25 {sig['text_score']:.2f} (text rank {sig['text_rank']})")
    return out
