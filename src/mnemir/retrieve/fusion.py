"""Typing adds to plain search, it never subtracts: episodes folded into what was read from them, the hard lifecycle
exclusions, and the fusion of recall's role-aware order with plain hybrid search.

- *Episodes* (an utterance kept verbatim) carry what was said; the typed memories read from one (``derived_from``)
  carry its role. An episode with live typed memories (other than a feeling or a dialogue act) is folded into them:
  the closest takes the episode's signals, and each shows the episode as its quote. An episode whose every typed
  memory was superseded is outdated with them (unless the past is asked about). An episode nothing typed was read
  from answers as what was said (``RankingConfig.episode_fit``). At the end, one slot per utterance
  (:func:`one_slot`).
- *Hard exclusions* are lifecycle facts only, each named: deleted and superseded records are outside the scope
  already; a memory replaced by a newer one (unless the past is asked about); a closed task when open work is asked
  for; a validity that has ended. Everything else (role, fading, floors) moves a score.
- *Fusion*: reciprocal-rank fusion of the role-aware order (weight 1) and plain hybrid search over the utterances
  (``plain_weight``): the vector and keyword orders of every candidate, each read as an order of *utterance groups*
  (an episode with what was read from it, :func:`utterance_of`; a memory added without one is its own group), so an
  utterance counts once however many memories were read from it, as in hybrid search over the raw utterances. The
  fused order shows each group once (its first member in the role order: a typed memory carries the role, its
  episode is its quote); a second reading of the same utterance follows the whole order. What plain search ranks
  first keeps a place in the top k unless a hard exclusion applies or a confident intent rules its role out (a task
  or a feeling for a question that asks for neither, where the role order answers with a memory of an intended
  type; then the utterance itself stands in when the reading covers little of it: ``RecallConfig.ruled_out_cover``):
  both are said in the notes. So do the next of plain search's best, up to ``RecallConfig.plain_share`` of
  the top k, plus ``unsure_plain_share`` times the intent's doubt: role fit moves a memory inside the top k, it does
  not take the best plain matches out of it.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.ir import MemIR, MemoryStatus
from mnemir.ontology.enums import CLOSED_STATUSES
from mnemir.retrieve.ranking import TASK_TYPES, Candidate, IntentLike, Scored, task_status
from mnemir.retrieve.search import said_by_assistant, score_bonus, settle_ties, tie_key
from mnemir.store.base import Selection, Store, tenant_reads

EPISODE = "Episode"
FEELING = "EmotionalState"
DERIVED_FROM = "derived_from"
#: what plain hybrid search fuses: the same reciprocal-rank constant as :class:`~mnemir.retrieve.search.FusionConfig`
PLAIN_RRF_K = 60
#: readings an episode is not folded into: a dialogue act (how it was said, not what), a feeling (an utterance
#: that carries a feeling also tells what happened: the event stays findable as said, the feeling is its own memory)
#: and a contextual frame (the setting: shown apart while in force and ended by the next one, while what the
#: utterance told stays what was said)
NO_READING = ("DialogueAct", "EmotionalState", "ContextualFrame")


@dataclass(frozen=True)
class Folded:
    """What folding the episodes did: the episodes held out (id -> why) and each typed memory's quote."""

    excluded: Mapping[str, str]
    quotes: Mapping[str, MemIR]


def fold_episodes(store: Store, scope: Selection, pool: MutableMapping[str, Candidate], past: bool,
                  qvec: Any, calm_beside: float = 0.0) -> Folded:
    """Fold every episode in ``pool`` that has live typed memories into them (they join the pool and take it as
    their quote; the one closest to the query also takes the episode's signals when these are better); an episode
    whose readings were all replaced is excluded unless ``past``. Marks what was said with a feeling
    (``Candidate.felt``) where a calm memory of the same thing is a candidate too (:func:`_mark_felt`,
    ``calm_beside``). Returns the exclusions (id -> reason) and the quotes (memory id -> episode)."""
    store = tenant_reads(store, scope.user_id)
    episodes = {mid: c for mid, c in pool.items() if c.record.type == EPISODE}
    if not episodes:
        _mark_felt(store, pool, set(), calm_beside)
        return Folded({}, {})
    children: dict[str, list[str]] = {}
    for edge in store.edges(list(episodes), relations=[DERIVED_FROM], direction="in"):
        children.setdefault(edge.target, []).append(edge.source)
    if not children:
        _mark_felt(store, pool, set(), calm_beside)
        return Folded({}, {})
    wanted = [cid for ids in children.values() for cid in ids if cid not in pool]
    records = {r.id: r for r in store.fetch(list(dict.fromkeys(wanted)))}
    records.update((mid, c.record) for mid, c in pool.items())
    excluded: dict[str, str] = {}
    quotes: dict[str, MemIR] = {}
    felt = {eid for eid, ids in children.items()
            if any(i in records and records[i].type == FEELING and records[i].status in scope.statuses for i in ids)}
    for eid, ids in children.items():
        readings = [records[i] for i in ids if i in records and records[i].type not in NO_READING
                    and _same_scope(records[i], scope)]
        if not readings:
            continue
        live = [r for r in readings if r.status in scope.statuses]
        episode = episodes[eid]
        if not live:
            if not past and all(r.status is MemoryStatus.superseded for r in readings):
                excluded[eid] = "what was read from this utterance was superseded by a later memory"
            continue
        added = [r.id for r in live if r.id not in pool]
        for record in live:
            pool.setdefault(record.id, Candidate(record))
            quotes.setdefault(record.id, episode.record)
        for mid, vec in store.vectors(added).items():
            pool[mid].similarity = float(np.dot(vec, qvec))
        _take_signals(max((pool[r.id] for r in live), key=lambda c: (c.similarity, c.id)), episode)
        del pool[eid]
    _mark_felt(store, pool, felt, calm_beside)
    return Folded(excluded, quotes)


def _mark_felt(store: Store, pool: Mapping[str, Candidate], felt: set[str], calm_beside: float) -> None:
    """Mark what was said with a feeling: the utterances a live feeling was read from (``felt``, and those of the
    feelings among the candidates) and every candidate read from them; with ``calm_beside`` > 0, only where a
    calm memory of the same thing is a candidate too (one said without a feeling, of a type that states something,
    from another utterance, at least this similar to it). Heat overstates: beside a calm statement of the same
    thing, the calm one is the better evidence. With nothing calm about the same thing, what was said with a
    feeling is the evidence there is, and it is weighed as any other (in natural conversation most things are said
    with some feeling)."""
    felt = felt | {utterance_of(c.record) for c in pool.values() if c.record.type == FEELING}
    marked = [c for c in pool.values() if c.record.type != FEELING and utterance_of(c.record) in felt]
    if not marked or calm_beside <= 0.0:
        for c in marked:
            c.felt = True
        return
    calm = [c.id for c in pool.values() if c.record.type not in NO_READING and utterance_of(c.record) not in felt]
    beside = calm_neighbours(store, [c.id for c in marked], calm, calm_beside)
    for c in marked:
        if c.id in beside:
            c.felt = True


def calm_neighbours(store: Store, ids: Sequence[str], calm: Sequence[str], floor: float) -> set[str]:
    """Those of ``ids`` that some memory of ``calm`` (said without a feeling) is at least ``floor`` similar to
    (cosine of the stored vectors): a calm statement of the same thing is among the candidates."""
    if not ids or not calm:
        return set()
    vectors = store.vectors([*ids, *calm])
    calm_ids = [mid for mid in calm if mid in vectors]
    if not calm_ids:
        return set()
    calm_matrix = np.stack([vectors[mid] for mid in calm_ids])
    return {mid for mid in ids if mid in vectors and float(np.max(calm_matrix @ vectors[mid])) >= floor}


def _same_scope(record: MemIR, scope: Selection) -> bool:
    user = scope.user_id
    return not isinstance(user, str) or record.scope.user_id == user


def _take_signals(child: Candidate, episode: Candidate) -> None:
    """A typed memory is as close to the query as the utterance it was read from (the episode holds its context)."""
    child.similarity = max(child.similarity, episode.similarity)
    child.vector_rank = _best(child.vector_rank, episode.vector_rank)
    child.text_rank = _best(child.text_rank, episode.text_rank)


def _best(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def hard_exclusion(record: MemIR, intent: IntentLike, now: datetime, past: bool) -> str | None:
    """The lifecycle fact that bars ``record`` from this answer, named, or None. Deleted and superseded records are
    outside recall's scope already (superseded ones answer only through history)."""
    if record.valid_to is not None and record.valid_to <= now and not past:
        return f"its validity ended on {record.valid_to.date().isoformat()}"
    if record.type in TASK_TYPES and intent.kind == "open_tasks" and task_status(record) in CLOSED_STATUSES:
        return f"a {task_status(record)} task: open work was asked for"
    return None


def utterance_of(record: MemIR) -> str:
    """The utterance group a memory belongs to: the episode it was read from (``derived_from``), or itself (an
    episode, or a memory added without one). Plain search and the fusion give each group one slot."""
    return next((r.target for r in record.relations(DERIVED_FROM)), record.id)


def _with_neighbours(scores: Mapping[str, float], first: Mapping[str, MemIR], weight: float) -> dict[str, float]:
    """Each group's fused score plus ``weight`` times the better of its found neighbours' (the utterances said
    just before and after it in the same session, by their sources' turns), read from the scores before any gain."""
    at: dict[tuple[str, int], str] = {}
    for group, record in first.items():
        source = record.metadata.source
        if group in scores and source.session_id is not None and source.turn is not None:
            at[(source.session_id, source.turn)] = group
    out = dict(scores)
    for (session, turn), group in at.items():
        near = [scores[n] for t in (turn - 1, turn + 1) if (n := at.get((session, t))) is not None]
        if near:
            out[group] += weight * max(near)
    return out


def plain_group_ranks(pool: Mapping[str, Candidate],
                      period: tuple[datetime | None, datetime | None] | None = None,
                      text_weight: float = 1.0, assistant_weight: float = 1.0,
                      orders: tuple[Sequence[tuple[str, float]], Sequence[tuple[str, float]]] | None = None,
                      ties: str = "signals", score_weight: float = 0.0, period_first: bool = True,
                      rrf_k: int = PLAIN_RRF_K, neighbour_weight: float = 0.0) -> dict[str, int]:
    """Each utterance group's place in plain hybrid search over the utterances: the vector and keyword orders of
    the candidates, each read as an order of groups (a group is placed where its first member is), fused by
    reciprocal ranks as :func:`~mnemir.retrieve.search.hybrid_search` fuses them. Read before episodes are folded:
    with a typed memory and its own episode both found, the utterance counts once, as hybrid search over the raw
    utterances would count it. Groups neither search found are left out.

    ``period``: a past period the question names ([start, end)): the candidates said in it are a third order (by
    closeness), and the groups said in it come first, in the fused order, then the rest (what the user asks about
    happened then; the rest keep their order after it). ``period_first`` False: the period's order is only fused
    with the other two (a period that holds many utterances no longer puts them all first).

    ``assistant_weight``: a group said by the assistant (its first member's speaker) weighs this much of its fused
    score, as :class:`~mnemir.retrieve.search.FusionConfig` weighs it in ``search`` (decision 0043).

    ``orders``: the vector and keyword orders of what was said, read by searches of their own ((id of ``pool``,
    similarity or BM25 score); recall's ``said_orders``), used instead of the candidates' ranks in the searches
    shared with every type.

    ``ties``: "signals": members with equal scores in an order are placed by the other order's score
    (:func:`~mnemir.retrieve.search.settle_ties`), and a tie of the fused score goes to the stronger signals that placed each group (each order's score as a share of its best, weighed
    as the order: :func:`~mnemir.retrieve.search.signal_strengths`), then the newer utterance, then the id; "id":
    each the place its search gave it, and the group id alone breaks a tie (before decision 0095).

    ``score_weight``: score-aware fusion, as ``FusionConfig.score_weight`` in ``search``: the strengths of the
    vector and keyword signals that placed each group, times this, over ``PLAIN_RRF_K + 1``, add to its reciprocal
    ranks (:func:`~mnemir.retrieve.search.score_bonus`).

    ``rrf_k``: the reciprocal ranks' constant (1 / (rrf_k + rank)): the smaller, the more a first place counts
    against a place found by both orders.

    ``neighbour_weight``: each group also gains this share of the best fused score of the utterances said just
    before and after it in the same session (its source's turn - 1 and + 1), among the groups found. In talk a
    turn leans on the one before it: an answer ("it was lovely, we saw the falls") names what the question that
    drew it named only there, and a question asked about the exchange shares its words with one turn and its
    answer with the next. 0: off."""
    # what was said: an utterance is placed by its episode, as hybrid search over the raw utterances places it (a
    # typed reading's own wording does not move it: the role order weighs that); a memory with no episode by itself
    said = {mid: c for mid, c in pool.items() if c.record.type == EPISODE or utterance_of(c.record) == mid
            or utterance_of(c.record) not in pool}
    ranked_by: list[list[tuple[str, float]]] = (
        [list(o) for o in orders] if orders is not None
        else [_order_by(said, "vector_rank", "similarity"), _order_by(said, "text_rank", "text_score")])
    if ties != "id":  # equal scores in one order: the other order's score first (search.settle_ties)
        vector, text = ranked_by
        ranked_by = [settle_ties(vector, dict(text)), settle_ties(text, dict(vector))]
    inside: set[str] = set()
    if period is not None:
        within = [c for c in pool.values() if in_period(c.record, period)]
        inside = {utterance_of(c.record) for c in within} if period_first else set()
        ranked_by.append([(c.id, c.similarity) for c in sorted(within, key=lambda c: (-c.similarity, c.id))])
    scores: dict[str, float] = {}
    strength: dict[str, float] = {}
    first: dict[str, MemIR] = {}  # the member that first placed each group
    assistant: set[str] = set()
    for n, ranked in enumerate(ranked_by):
        seen: set[str] = set()
        weight = text_weight if n == 1 else 1.0
        top = max((float(score or 0.0) for _, score in ranked), default=0.0)
        for mid, score in ranked:
            record = pool[mid].record
            group = utterance_of(record)
            if group in seen:
                continue
            seen.add(group)
            if group not in scores and said_by_assistant(record):
                assistant.add(group)
            first.setdefault(group, record)
            scores[group] = scores.get(group, 0.0) + weight / (rrf_k + len(seen))
            if top > 0 and n < 2:  # the vector and keyword signals (a period's order only places what it holds)
                strength[group] = strength.get(group, 0.0) + weight * max(float(score or 0.0), 0.0) / top
    if score_weight > 0:
        for group, value in strength.items():
            scores[group] += score_bonus(value, score_weight, rrf_k)
    if assistant_weight < 1.0:
        for group in assistant:
            scores[group] *= assistant_weight
    if neighbour_weight > 0:
        scores = _with_neighbours(scores, first, neighbour_weight)
    if ties == "id":
        order = sorted(scores, key=lambda g: (g not in inside, -scores[g], g))
    else:
        order = sorted(scores, key=lambda g: (g not in inside, *tie_key(g, scores[g], strength, first[g])))
    return {g: rank for rank, g in enumerate(order, start=1)}


def _order_by(pool: Mapping[str, Candidate], attr: str, score: str) -> list[tuple[str, float]]:
    ranked = sorted((getattr(c, attr), mid) for mid, c in pool.items() if getattr(c, attr) is not None)
    return [(mid, float(getattr(pool[mid], score) or 0.0)) for _, mid in ranked]


def in_period(record: MemIR, period: tuple[datetime | None, datetime | None]) -> bool:
    """Was ``record`` made inside ``period`` ([start, end), either end open)?"""
    start, end = period
    when = record.metadata.created_at
    return (start is None or when >= start) and (end is None or when < end)


def plain_ranks(pool: Mapping[str, Candidate], groups: Mapping[str, int]) -> dict[str, int]:
    """Plain search's order as one memory per utterance group (memory id -> the group's place): the group's
    episode when it is still a candidate (what was said), else its closest reading (not a dialogue act).
    ``groups``: :func:`plain_group_ranks`, read before folding."""
    best: dict[str, tuple[tuple[int, int, float], str]] = {}
    for mid, c in pool.items():
        group = utterance_of(c.record)
        if group not in groups:
            continue
        key = (c.record.type == EPISODE, c.record.type != "DialogueAct", c.similarity)
        if group not in best or (key, mid) > (best[group][0], best[group][1]):
            best[group] = (key, mid)
    return {mid: groups[group] for group, (_, mid) in best.items()}


def kept_places(k: int, share: float) -> int:
    """How many of plain search's best keep a place in a top ``k``: ``share`` of it (at least the first)."""
    return max(1, int(k * share))


def depth_kept_places(k: int, share: float, tail_share: float, head: int) -> int:
    """How many of plain search's best keep a place in a top ``k`` whose places past the first ``head`` keep
    ``tail_share`` of them for it (``share`` where that is more): as many as a top ``head`` keeps, plus that share of
    the rest; never fewer than ``share`` of the whole top k (:func:`kept_places`). ``tail_share`` 0, or ``k`` at most
    ``head``: :func:`kept_places` itself."""
    places = kept_places(k, share)
    if tail_share <= 0.0 or k <= head:
        return places
    return min(k, max(places, kept_places(head, share) + int((k - head) * max(share, tail_share))))


def fuse(role_order: Sequence[Scored], plain: Mapping[str, int], extra: Mapping[str, Scored], *, k: int,
         role_weight: float, plain_weight: float, fusion_k: int, barred: Mapping[str, str],
         ruled_out: Mapping[str, str], groups: Mapping[str, str], kept: int = 1) -> tuple[list[Scored], list[str]]:
    """The shown order: reciprocal-rank fusion of the role-aware order and plain search's, over utterance groups
    (``groups``: memory id -> its group, :func:`utterance_of`, read for a memory not in it): a group is
    shown once, as the first of its members in the role order (or, when the role order left the whole group out,
    as what plain search found of it: ``extra``, scored, with the reason it was left out in its reasons); the
    others read from the same utterance follow the whole order. ``plain``: one memory per group -> the group's
    place in plain search. ``barred``: memories that may not be shown (id -> the named lifecycle reason);
    ``ruled_out``: memories whose role a confident intent rules out (id -> why): plain search does not bring them
    back or lift them. The first ``kept`` groups plain search ranks among the rest keep places in the top ``k``
    (each displaces the last of the others there): role fit moves the order, it does not take plain search's best
    away."""
    def group_of(s: Scored) -> str:  # a memory the role order reached by a link is not among the candidates
        return groups.get(s.record.id) or utterance_of(s.record)

    notes: list[str] = []
    fused: dict[str, float] = {}
    shown_as: dict[str, Scored] = {}
    siblings: list[Scored] = []
    for s in role_order:
        group = group_of(s)
        if group in shown_as:
            siblings.append(s)  # read from an utterance already shown: one slot per utterance
            continue
        shown_as[group] = s
        fused[group] = role_weight / (fusion_k + len(shown_as))
    role_place = {group: n for n, group in enumerate(shown_as)}
    plain_groups: dict[str, int] = {}
    for mid, rank in plain.items():
        group = groups.get(mid, mid)
        held = shown_as.get(group)
        if held is None:
            if mid not in extra or mid in barred or mid in ruled_out:
                continue
            held = shown_as[group] = extra[mid]
            fused[group] = 0.0
        if held.record.id in barred or held.record.id in ruled_out:
            continue
        plain_groups[group] = rank
        fused[group] += plain_weight / (fusion_k + rank)
    # a tie of the fused score: the earlier in the role order, then the earlier in plain search's, and only then
    # the id (decision 0095)
    order = sorted(shown_as.items(), key=lambda gs: (-fused[gs[0]], role_place.get(gs[0], len(role_place)),
                                                     plain_groups.get(gs[0], len(plain) + 1), gs[1].record.id))
    best = [shown_as[g].record.id for g, _ in sorted(plain_groups.items(), key=lambda kv: kv[1])][:min(kept, k)]
    ordered = _keep_places([s for _, s in order], best, k)
    shown = {s.record.id for s in ordered[:k]}
    for rank, mid in sorted((plain[mid], mid) for mid in barred if mid in plain and plain[mid] <= k):
        notes.append(f"plain search's match {mid} (rank {rank}) is left out: {barred[mid]}")
    for rank, mid in sorted((plain[mid], mid) for mid in ruled_out if mid in plain and plain[mid] <= k):
        if mid not in shown:
            notes.append(f"plain search's match {mid} (rank {rank}) is not brought back: {ruled_out[mid]}")
    for group, s in shown_as.items():
        plain_rank = plain_groups.get(group)
        if plain_rank is not None and plain_rank <= 3:
            s.reasons.append(f"plain search rank {plain_rank}")
    return ordered + siblings, notes


def _keep_places(order: list[Scored], protected: Sequence[str], k: int) -> list[Scored]:
    """``order`` with every id of ``protected`` inside the top ``k``: each one below it takes the place of the last
    unprotected memory there (which moves just below the top k); the fused order is kept otherwise."""
    wanted = set(protected)
    top, rest = list(order[:k]), list(order[k:])
    missing = [s for s in rest if s.record.id in wanted]
    if not missing:
        return order
    rest = [s for s in rest if s.record.id not in wanted]
    pushed: list[Scored] = []
    for s in sorted(missing, key=lambda s: protected.index(s.record.id)):
        place = max(i for i, t in enumerate(top) if t.record.id not in wanted)
        pushed.insert(0, top.pop(place))
        top.append(s)
        rank = protected.index(s.record.id) + 1
        s.reasons.append("plain search ranks it first: kept in the top k" if rank == 1 else
                         f"plain search ranks it {rank}: among its best {len(protected)}, kept in the top k")
    return top + pushed + rest


def one_slot(order: Sequence[Scored], ruled_out: Mapping[str, str], quotes: MutableMapping[str, MemIR]) -> list[Scored]:
    """One slot per utterance: a typed memory and its own episode never take two slots (the better-placed one holds
    the slot, shown as the typed memory with the episode as its quote, unless a confident intent rules the typed
    memory out: then the episode, what was said, stays), and a second memory read from the same utterance follows
    the whole order (the first one's quote shows the utterance)."""
    out: list[Scored] = []
    later: list[Scored] = []
    episode_at: dict[str, int] = {}  # episode id -> the place of the episode itself in ``out``
    reading_of: dict[str, bool] = {}  # episode id -> a typed memory read from it is shown
    for s in order:
        record = s.record
        if record.type == EPISODE:
            if reading_of.get(record.id):
                continue
            episode_at[record.id] = len(out)
            out.append(s)
            continue
        source = next((r.target for r in record.relations(DERIVED_FROM)), None)
        if source is not None and source in episode_at:
            if record.id in ruled_out:
                continue  # the episode above already shows what was said
            place = episode_at.pop(source)
            held = out[place]
            out[place] = s
            quotes.setdefault(record.id, held.record)
            reading_of[source] = True
            continue
        if source is not None:
            if reading_of.get(source):
                later.append(s)
                continue
            reading_of[source] = True
        out.append(s)
    return out + later
