"""Judgements across the ranked memories of one recall: replaced preferences, conflicting or unconfirmed facts,
and the final order, focus and floor. Split from :mod:`mnemir.retrieve.ranking`, whose per-memory scores they
adjust; every number is in :class:`~mnemir.retrieve.ranking.RankingConfig`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.ir import MemIR
from mnemir.ontology.attributes import MULTI_VALUED_ATTRIBUTES
from mnemir.ontology.enums import CLOSED_STATUSES, OPEN_STATUSES
from mnemir.retrieve.fusion import DERIVED_FROM, EPISODE, utterance_of
from mnemir.retrieve.graph import STEP_RELATIONS
from mnemir.retrieve.lexical import content_terms, shared_terms, topic_text
from mnemir.retrieve.query_kinds import QueryReading
from mnemir.retrieve.ranking import (
    DAY,
    TASK_KINDS,
    TASK_TYPES,
    Candidate,
    FrameState,
    RankingConfig,
    Scored,
    across_languages,
    age_of,
    confidence_of,
    norm_text,
    task_status,
)
from mnemir.retrieve.wording import says_change, says_stance_changed
from mnemir.store.base import LIVE_STATUSES, Store
from mnemir.understand.extract import proposal_of
from mnemir.understand.fill import RELATIONS, person_mention


# -- cross-memory judgements ---------------------------------------------------------------------
def demote_replaced(scored: Sequence[Scored], vectors: Mapping[str, np.ndarray], config: RankingConfig) -> None:
    """An older memory replaced by a newer one on the same thing is outdated; a low-confidence fact that
    disagrees with a better-sourced one is unconfirmed. Changes ``scored`` in place."""
    _facts_in_conflict([s for s in scored if s.record.type == "Fact"], config)
    _confident_first([s for s in scored if s.record.type in ("Fact", "Hypothesis")], config)
    prefs = sorted((s for s in scored if s.record.type == "Preference"),
                   key=lambda s: s.record.metadata.created_at)
    closest = _closest_earlier(prefs, vectors, config)
    for i, older in enumerate(prefs):
        for newer in prefs[i + 1:]:
            if newer.record.metadata.created_at - older.record.metadata.created_at < DAY:
                continue
            same_subject = norm_text(older.record.properties.get("subject")) == norm_text(
                newer.record.properties.get("subject"))
            sim = _pref_similarity(older, newer, vectors, config)
            # "I've switched to ..." replaces the one earlier habit it is closest to, not every one it resembles
            changed = sim >= config.changed_preference_similarity and says_change(newer.record.text) \
                and closest.get(newer.record.id) == older.record.id
            if same_subject or sim >= config.stale_preference_similarity or changed:
                why = "same subject" if same_subject else f"similarity {sim:.2f}" + (
                    ", and the newer one says it changed" if changed else "")
                _mark_outdated(older, newer, config, why)
                break


def _closest_earlier(prefs: Sequence[Scored], vectors: Mapping[str, np.ndarray],
                     config: RankingConfig) -> dict[str, str]:
    """For each preference, the id of the earlier one (a day or more before it) most similar to it."""
    out: dict[str, str] = {}
    for i, newer in enumerate(prefs):
        earlier = [s for s in prefs[:i] if newer.record.metadata.created_at - s.record.metadata.created_at >= DAY]
        if earlier:
            best = max(earlier, key=lambda s: (_pref_similarity(s, newer, vectors, config), s.record.id))
            out[newer.record.id] = best.record.id
    return out


def _pref_similarity(a: Scored, b: Scored, vectors: Mapping[str, np.ndarray], config: RankingConfig) -> float:
    """Cosine of two preferences, scaled like a query's across languages (the multilingual embedder puts loosely
    related texts in two languages as close as related ones in one); both the stale and the changed-preference
    thresholds judge this scaled value."""
    sim = _cos(vectors.get(a.record.id), vectors.get(b.record.id))
    return sim * config.cross_language_factor if across_languages(a.record.text, b.record.text) else sim


def feelings_move_on(scored: Sequence[Scored], vectors: Mapping[str, np.ndarray], config: RankingConfig, *,
                     now: datetime | None = None, asks_now: bool = False, said: Sequence[Scored] = ()) -> None:
    """Feelings are moments: asked how the user feels now, an earlier feeling about the same thing (similar text
    or the same trigger) has given way to the later one; and when the query asks about now ("现在", "these days"),
    a recent feeling that matches the query answers it in place of feelings older than the present window.
    ``said``: utterances from which only a feeling was read, judged as the feelings they say. Changes ``scored`` in
    place."""
    told = {id(s) for s in said}
    feelings = sorted((s for s in scored if s.record.type == "EmotionalState" or id(s) in told),
                      key=lambda s: s.record.metadata.created_at)
    if asks_now and now is not None:
        recent = [s for s in feelings if age_of(s.record, now) <= config.present_window
                  and s.relevance >= config.min_relevance]
        if recent:
            best = max(recent, key=lambda s: (s.relevance, s.record.metadata.created_at))
            for older in feelings:
                if age_of(older.record, now) > config.present_window:
                    demote_outdated(older, config, f"the question asks about now; a recent feeling answers it "
                                    f"({best.record.id})", best.record.id)
    for i, older in enumerate(feelings):
        for newer in reversed(feelings[i + 1:]):
            if newer.record.metadata.created_at <= older.record.metadata.created_at:
                continue
            trigger = norm_text(older.record.properties.get("trigger"))
            same_trigger = bool(trigger) and trigger == norm_text(newer.record.properties.get("trigger"))
            sim = _cos(vectors.get(older.record.id), vectors.get(newer.record.id))
            if same_trigger or sim >= config.passed_feeling_similarity:
                why = "same trigger" if same_trigger else f"similarity {sim:.2f}"
                demote_outdated(older, config, f"a later feeling about the same thing ({newer.record.id}, {why})",
                                newer.record.id)
                break


def _facts_in_conflict(facts: Sequence[Scored], config: RankingConfig) -> None:
    groups: dict[tuple[str, str], list[Scored]] = {}
    for s in facts:
        key = (norm_text(s.record.properties.get("entity")), norm_text(s.record.properties.get("attribute")))
        # an attribute that holds several values at once (or a catch-all one) cannot be replaced by another value:
        # the rule the write side's contradictions follow
        if all(key) and key[1] not in MULTI_VALUED_ATTRIBUTES:
            groups.setdefault(key, []).append(s)
    for group in groups.values():
        values = {norm_text(s.record.properties.get("value")) for s in group}
        if len(group) < 2 or len(values) < 2:
            continue
        best = max(group, key=lambda s: (_confidence(s, config), s.record.metadata.created_at))
        for s in group:
            if s is best:
                continue
            gap = _confidence(best, config) - _confidence(s, config)
            if gap >= config.conflict_confidence_gap:
                s.score = round(s.score - config.unconfirmed_penalty, 4)
                if "unconfirmed" not in s.flags:
                    s.flags.append("unconfirmed")
                s.reasons.append(f"disagrees with a more confident fact ({best.record.id})")
            else:
                _mark_outdated(s, best, config, "same entity and attribute")


def _confident_first(facts: Sequence[Scored], config: RankingConfig) -> None:
    """About the same entity, a half-remembered fact or a guess never outranks a confident fact."""
    by_entity: dict[str, list[Scored]] = {}
    for s in facts:
        entity = norm_text(s.record.properties.get("entity"))
        if entity:
            by_entity.setdefault(entity, []).append(s)
    for group in by_entity.values():
        sure = [s for s in group if s.record.type == "Fact" and _confidence(s, config) >= config.confident_fact]
        if not sure:
            continue
        best = max(sure, key=lambda s: s.score)
        for s in group:
            conf = confidence_of(s.record)
            weak = s.record.type == "Hypothesis" or (conf is not None and conf < config.unconfirmed_below)
            if weak and s.score >= best.score:
                s.score = round(best.score - 0.01, 4)
                s.reasons.append(f"ranked below a more confident fact about the same thing ({best.record.id})")


def _confidence(s: Scored, config: RankingConfig) -> float:
    """The memory's stated confidence (a stated 0.0 stays 0.0), else the one assumed for facts that state none."""
    stated = confidence_of(s.record)
    return config.assumed_confidence if stated is None else stated


def _mark_outdated(older: Scored, newer: Scored, config: RankingConfig, why: str) -> None:
    demote_outdated(older, config, f"likely replaced by a newer memory {newer.record.id} ({why})", newer.record.id)


def demote_outdated(s: Scored, config: RankingConfig, reason: str, by: str) -> None:
    """Count ``s`` as replaced by memory ``by``: its strength shrinks to ``outdated_factor`` (its role offset
    stays) and it is flagged outdated. A memory already counted as replaced is left as it is."""
    if "outdated" in s.flags:
        return
    s.score_before_replaced = s.score
    s.score = round(s.score - s.strength * (1 - config.outdated_factor), 4)
    s.strength = round(s.strength * config.outdated_factor, 4)
    s.flags.append("outdated")
    s.reasons.append(reason)
    s.replaced_by = by


def replacements_stand_in(scored: Sequence[Scored]) -> None:
    """A memory that matched the query but was replaced points at the answer: its replacement takes its place
    (listed whatever its own wording, ranked where the replaced one would have been). Changes ``scored`` in place."""
    by_id = {s.record.id: s for s in scored}
    for s in scored:
        newer = by_id.get(s.replaced_by) if s.replaced_by else None
        if newer is None or s.score_before_replaced is None or newer.score >= s.score_before_replaced:
            continue
        newer.score = round(s.score_before_replaced, 4)
        newer.listed = True
        newer.reasons.append(f"stands in for the memory it replaced ({s.record.id})")


def drop_replaced(scored: Sequence[Scored], asks_past: bool) -> tuple[list[Scored], list[str]]:
    """Memories replaced by another that is recalled too are history, not an answer: they go (with a note),
    unless the query asks about the past."""
    if asks_past:
        return list(scored), []
    shown = {s.record.id for s in scored}
    dropped = [s for s in scored if s.replaced_by in shown]
    if not dropped:
        return list(scored), []
    note = (f"{len(dropped)} replaced memor{'y' if len(dropped) == 1 else 'ies'} left out, the newer one is shown: "
            + ", ".join(f"{s.record.id} (by {s.replaced_by})" for s in dropped))
    return [s for s in scored if s.replaced_by not in shown], [note]


def ended_frames_give_way(scored: Sequence[Scored], frames: FrameState, config: RankingConfig) -> None:
    """For a question about the present setting, a frame that has ended is replaced by the one in force (and so
    left out unless the query asks about the past)."""
    active = frames.active
    if active is None or not any(s.record.id == active.id for s in scored):
        return
    for s in scored:
        if s.record.type == "ContextualFrame" and s.record.id != active.id:
            demote_outdated(s, config, f"an earlier setting; the frame in force now is {active.id}", active.id)


def other_frame_gives_way(scored: Sequence[Scored], frames: FrameState, config: RankingConfig) -> None:
    """While a frame is in force, a fact from another frame about the same attribute (the print size the lab
    wanted, now that the gallery says its own), or on the same topic as a better-scored fact of the frame in force
    (a shared topic word), is replaced by the active frame's: left out unless the query asks about the past."""
    if frames.active is None:
        return
    active_facts = sorted((s for s in scored if s.record.type == "Fact"
                           and frames.active.id in frames.ties.get(s.record.id, ())), key=lambda s: -s.score)
    in_force: dict[str, Scored] = {}  # attribute -> the best-scored fact of the frame in force on it
    for s in active_facts:
        attribute = norm_text(s.record.properties.get("attribute"))
        if attribute:
            in_force.setdefault(attribute, s)
    for s in scored:
        if "other_frame" not in s.flags:
            continue
        newer = in_force.get(norm_text(s.record.properties.get("attribute")))
        if newer is None and s.record.type == "Fact":
            # or the best fact of the frame in force on the same topic ("这次维修每家出多少" / the garage's repair fee)
            newer = next((a for a in active_facts if a.score > s.score and _same_topic(s.record, a.record)), None)
        if newer is not None:
            demote_outdated(s, config, f"said in another frame; the frame in force says {newer.record.id}",
                            newer.record.id)


def _same_topic(older: MemIR, newer: MemIR) -> bool:
    """Whether two memories share a topic word in their text or descriptive property values."""
    return bool(shared_terms(topic_text(older), newer))


def _cos(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 0.0
    value = float(np.dot(a, b))
    return value if math.isfinite(value) else 0.0


def order_hits(scored: Iterable[Scored]) -> list[Scored]:
    """Best first; ties by recency then id (deterministic)."""
    return sorted(scored, key=lambda s: (-s.score, -s.record.metadata.created_at.timestamp(), s.record.id))


# -- final shaping ---------------------------------------------------------------------------------
def focus_status(scored: list[Scored], kind: str, config: RankingConfig, confidence: float = 1.0) -> list[Scored]:
    """A status question is about one task (or a few alike): tasks far below the best-matching one go. So do they
    for an unsure guess of "what is left" (a question with a topic, "what do I still have to chip in?", is often no
    to-do question at all): the open tasks listed whatever their wording are then only those on its topic."""
    if kind == "open_tasks" and confidence < config.trust_intent:
        margin = config.open_focus_margin
    elif kind == "task_status":
        margin = config.status_focus_margin
    else:
        return scored
    tasks = [s for s in scored if s.record.type in TASK_TYPES and s.candidate.via is None]
    if not tasks:
        return scored
    best = max(s.relevance for s in tasks)
    return [s for s in scored
            if s.record.type not in TASK_TYPES or s.candidate.via is not None
            or s.relevance >= best - margin]


def open_steps_first(scored: Sequence[Scored], kind: str) -> None:
    """Asked where a task stands or what is left of it, its finished steps are history: they rank below its open
    steps, unless a finished step matches the query better than its task does (the question is about that step:
    "did legal sign off?"). Changes ``scored`` in place."""
    if kind not in TASK_KINDS:
        return
    by_id = {s.record.id: s for s in scored}
    steps: dict[str, list[Scored]] = {}
    for s in scored:
        parent = parent_task(s.record) if s.record.type in TASK_TYPES else None
        if parent in by_id:
            steps.setdefault(parent, []).append(s)
    for task_id, group in steps.items():
        open_scores = [s.score for s in group if task_status(s.record) in OPEN_STATUSES]
        if not open_scores:
            continue
        for s in group:
            if task_status(s.record) in CLOSED_STATUSES and s.relevance <= by_id[task_id].relevance \
                    and s.score >= min(open_scores):
                s.score = round(min(open_scores) - 0.01, 4)
                s.reasons.append(f"a {task_status(s.record)} step of {task_id}: below its open steps")


def parent_task(record: MemIR) -> str | None:
    """The task a plan step or subtask belongs to (its ``associated_task_id`` or a step relationship)."""
    parent = record.properties.get("associated_task_id")
    if isinstance(parent, str) and parent:
        return parent
    return next((r.target for r in record.relationships if r.relation in STEP_RELATIONS), None)


def lift_present(scored: list[Scored], kind: str, config: RankingConfig) -> None:
    """The user's present state comes before background preferences (seed 2.1, symptom two); asked about
    feelings, a recent feeling comes before facts, whatever words it shares with the query."""
    if kind == "emotion":
        _lift_present_feelings(scored, config)
        return
    if kind not in ("preference", "general"):
        return
    # only preferences that will be shown: lifting above one that is cut would show the present state alone
    prefs = [s.score for s in scored if s.role == "background" and (s.strength >= config.min_score or s.listed)]
    if not prefs:
        return
    current = sorted((s for s in scored if s.role == "current"), key=lambda s: -s.relevance)
    for s in current[: config.max_current_lifted]:
        s.listed = True  # placed at or above the preferences shown, so shown with them: its floor is the present state's
        if s.score <= max(prefs):
            s.score = round(max(prefs) + 0.001, 4)
            s.reasons.append("the present state ranks above background preferences")


def _lift_present_feelings(scored: list[Scored], config: RankingConfig) -> None:
    others = [s.score for s in scored if s.record.type != "EmotionalState"]
    if not others:
        return
    present = sorted((s for s in scored if s.record.type == "EmotionalState" and s.listed), key=lambda s: -s.relevance)
    for s in present[: config.max_current_lifted]:
        if s.score <= max(others):
            s.score = round(max(others) + 0.001, 4)
            s.reasons.append("a recent feeling ranks above facts when feelings are asked about")


def above_floor(scored: Iterable[Scored], config: RankingConfig) -> list[Scored]:
    # the user's own state passed a lower relevance floor (few shared words): its score floor is lowered alike
    scale = min(1.0, config.current_min_relevance / config.min_relevance) if config.min_relevance else 1.0
    low = config.min_score * scale
    return [s for s in scored if s.listed or s.strength >= (low if s.present_floor else config.min_score)]


# -- what a later correction took back ------------------------------------------------------------------
#: the relation a correction keeps to an utterance that stated the value it takes back, when nothing typed was read
#: from that utterance (or what was read does not state it): written by ``remember``
CORRECTS = "corrects"
#: the relation from a report of work done to the earlier utterance that stated the work, when no task was read
#: from it: written by ``remember``; "what is still open" leaves that utterance out
COMPLETES = "completes"
#: the relation from the utterance of a report to the task it moved (written by ``remember``, with the status told)
REPORTS_ON = "reports_on"
#: relations that say a memory took back what was said in another utterance: a correction's link to the utterance
#: that stated the value it names, and ``supersedes`` (a correction, a change of mind, a decision, a newer
#: preference: the utterance the superseded memory was read from)
TAKES_BACK = (CORRECTS, "supersedes")
#: the relation from a decision to the earlier memories or utterances that weighed the choice it makes: written by
#: ``remember``, followed by recall (``graph.FOLLOW_RELATIONS``)
SETTLES = "settles"
#: an utterance taken back goes when what took it back is at most this much less close to the query (cosine): a
#: correction often opens with words of its own ("one thing I got wrong earlier: …") that make it a little
#: less close than the old statement; a question about something else the old utterance said is much closer to it
TAKEN_BACK_MARGIN = 0.15


def taken_back(store: Store, pool: Mapping[str, Candidate], past: bool,
               margin: float = TAKEN_BACK_MARGIN, qvec: Any = None) -> dict[str, str]:
    """The candidates that stand for an utterance a later memory in ``pool`` took back: one a correction names
    (``corrects``: it stated the value the correction names), the utterance itself and every memory read from it;
    the utterance a superseded memory was read from, what else was read from it but open work (a plan or task told
    in the same turn as a choice later replaced is still to do). Each goes (id -> the reason) when the later memory
    is about as close to the query as it is (TAKEN_BACK_MARGIN): the question is then about what was taken back,
    and the old utterance would show the old value beside the new one. Kept when the question asks about the past,
    or when the old utterance is much closer (it is asked about something else it said)."""
    if past:
        return {}
    by: dict[str, list[tuple[Candidate, str]]] = {}  # target id -> the candidates that took it back, and how
    for c in pool.values():
        for rel in c.record.relationships:
            if rel.relation in TAKES_BACK:
                by.setdefault(rel.target, []).append((c, rel.relation))
    if qvec is not None:
        _takers_beyond(store, pool, by, qvec)
    if not by:
        return {}
    # the target is an utterance (an Episode), or a memory read from one (superseded: outside recall's scope, so
    # not in the pool): its group is that utterance
    missing = [t for t in by if t not in pool]
    targets = {r.id: r for r in store.fetch(missing)} if missing else {}
    targets.update((mid, c.record) for mid, c in pool.items() if mid in by)
    stale: dict[str, list[tuple[Candidate, str]]] = {}  # utterance group -> what took it back, and how
    for target, takers in by.items():
        record = targets.get(target)
        group = target if record is None or record.type == EPISODE else utterance_of(record)
        if record is not None and record.type != EPISODE and group == record.id:
            continue  # read from no utterance: the superseded memory itself is out of scope already
        stale.setdefault(group, []).extend(takers)
    out: dict[str, str] = {}
    for mid, c in pool.items():
        group = utterance_of(c.record)
        open_work = c.record.type in TASK_TYPES and task_status(c.record) in OPEN_STATUSES
        later = [t for t, how in stale.get(group, ()) if utterance_of(t.record) != group
                 and (how == CORRECTS or not open_work)]
        best = max(later, key=lambda t: (t.similarity, t.id), default=None)
        if best is not None and best.similarity >= c.similarity - margin:
            out[mid] = f"said in an utterance a later memory took back ({best.id})"
    return out


def _takers_beyond(store: Store, pool: Mapping[str, Candidate], by: dict[str, list[tuple[Candidate, str]]],
                   qvec: Any) -> None:
    """Add to ``by`` the live memories that took back one of the pool's utterances (or a memory read from one) but
    are not in the pool themselves: a correction is worded apart from the question ("I got that wrong, it's …"),
    so the search that found the old statement often leaves out what replaced it, and the old utterance's other
    readings stood as if nothing had been said since. Each is weighed by its own cosine with the query, as a
    taker in the pool is (docs/decisions/0107)."""
    groups = {utterance_of(c.record) for c in pool.values()}
    # an utterance read into more than SIBLINGS_AT_MOST memories is no conversational turn (an imported document):
    # its readings are not read (at 100k, episodes read into hundreds made this ~175 ms a recall: decision 0112)
    counts = store.edge_counts(list(groups), relations=[DERIVED_FROM], direction="in", at_most=SIBLINGS_AT_MOST)
    turns = [g for g in groups if counts.get(g, 0) <= SIBLINGS_AT_MOST]
    readings = {e.source for e in store.edges(turns, relations=[DERIVED_FROM], direction="in")} if turns else set()
    edges = [e for e in store.edges(list(groups | readings), relations=list(TAKES_BACK), direction="in")
             if e.source not in pool]
    if not edges:
        return
    users = {c.record.scope.user_id for c in pool.values()}  # never another user's memory
    takers = {r.id: r for r in store.fetch(list({e.source for e in edges}))
              if r.status in LIVE_STATUSES and r.scope.user_id in users}
    vectors = store.vectors(list(takers))
    for e in edges:
        record, vector = takers.get(e.source), vectors.get(e.source)
        if record is None or vector is None:
            continue
        by.setdefault(e.target, []).append((Candidate(record, similarity=float(np.dot(vector, qvec))), e.relation))


#: for "what is still open", an utterance whose work is all closed stands for nothing still open: what else was read
#: from it (a remark made beside the plan, "he'll moan about it", or the utterance itself) is left out too
CLOSED_WORK_SIBLINGS = True
#: an utterance read into more memories than this is no conversational turn (an imported document, a long note):
#: its siblings are not judged, and its readings are not fetched (their cost grows with them, not with the answer)
SIBLINGS_AT_MOST = 16


def completed_elsewhere(store: Store, pool: Mapping[str, Candidate]) -> dict[str, str]:
    """For "what is still open": the candidates read from (or standing for) an utterance that a later report said
    was done (``completes``, written when no task had been read from it), and those that are no open work read from
    (or standing for) an utterance every live task or plan step of which is closed (CLOSED_WORK_SIBLINGS), id ->
    the reason."""
    groups: dict[str, list[str]] = {}
    for mid, c in pool.items():
        groups.setdefault(utterance_of(c.record), []).append(mid)
    done = {e.target: e.source for e in store.edges(list(groups), relations=[COMPLETES], direction="in")}
    out = {mid: f"a later report said this work was done ({done[group]})"
           for group, ids in groups.items() if group in done for mid in ids}
    if not CLOSED_WORK_SIBLINGS:
        return out
    # counted first: the readings of an utterance read into more than SIBLINGS_AT_MOST memories are not read at all
    # (an utterance read into hundreds cost ~0.1-0.3 s a recall to read and drop)
    undone = [g for g in groups if g not in done]
    counts = (store.edge_counts(undone, relations=[DERIVED_FROM], direction="in", at_most=SIBLINGS_AT_MOST)
              if undone else {})
    small = [g for g in undone if 0 < counts.get(g, 0) <= SIBLINGS_AT_MOST]
    edges = store.edges(small, relations=[DERIVED_FROM], direction="in") if small else []
    readings = {r.id: r for r in store.fetch(list({e.source for e in edges}))}
    work: dict[str, list[str]] = {}  # utterance -> the statuses of the live work read from it
    for e in edges:
        record = readings.get(e.source)
        if record is not None and record.type in TASK_TYPES and str(record.status) in ("active", "disputed"):
            work.setdefault(e.target, []).append(task_status(record) or "pending")
    for group, statuses in work.items():
        if all(s in CLOSED_STATUSES for s in statuses):
            out.update((mid, "read from an utterance whose work is all closed") for mid in groups[group]
                       if pool[mid].record.type not in TASK_TYPES)
    return out


def reported_tasks(store: Store, pool: Mapping[str, Candidate], past: bool, margin: float) -> dict[str, str]:
    """For "where does X stand": the tasks (and plan steps) among the candidates that a later report moved
    (``reports_on`` from the report's utterance), when that report (its utterance or a memory read from it) is among
    the candidates too and at most ``margin`` less close to the question than the task; with them, what else was
    read from the task's own utterance but open work. The report says where the work stands; the task's text and
    the utterance it was read from tell the work as it was first put, the state the report replaced (id -> the
    reason). A question about the past keeps everything (docs/decisions/0116)."""
    if past:
        return {}
    tasks = {mid: c for mid, c in pool.items() if c.record.type in TASK_TYPES}
    if not tasks:
        return {}
    edges = store.edges(list(tasks), relations=[REPORTS_ON], direction="in")
    if not edges:
        return {}
    closest: dict[str, float] = {}  # utterance group -> the closest candidate of it
    for c in pool.values():
        group = utterance_of(c.record)
        closest[group] = max(closest.get(group, -1.0), c.similarity)
    out: dict[str, str] = {}
    for e in edges:
        task = tasks[e.target]
        near = closest.get(e.source)
        if near is None or near < task.similarity - margin or utterance_of(task.record) == e.source:
            continue  # the report is not in reach: the task stands for it
        out[task.record.id] = f"a later report said where this work stands ({e.source})"
        stated = utterance_of(task.record)
        for mid, c in pool.items():
            if utterance_of(c.record) == stated and mid not in out and not (
                    c.record.type in TASK_TYPES and task_status(c.record) in OPEN_STATUSES):
                out[mid] = f"read from the utterance of work a later report settled ({e.source})"
    return out


def reports_of_closed_work(store: Store, pool: Mapping[str, Candidate]) -> dict[str, str]:
    """For "what is still open": the candidates read from (or standing for) an utterance that reported work closed
    (``reports_on`` with a closed status) and from which no open work was read: a report of work done tells nothing
    still to do ("the permit's in, she dropped the forms off"), unless it also states new work (a task or plan step
    read from it, still open, keeps the whole utterance). id -> the reason (docs/decisions/0116)."""
    groups: dict[str, list[str]] = {}
    for mid, c in pool.items():
        groups.setdefault(utterance_of(c.record), []).append(mid)
    reported = {e.source for e in store.edges(list(groups), relations=[REPORTS_ON], direction="out")
                if str(e.properties.get("status")) in CLOSED_STATUSES}
    if not reported:
        return {}
    counts = store.edge_counts(list(reported), relations=[DERIVED_FROM], direction="in", at_most=SIBLINGS_AT_MOST)
    small = [g for g in reported if counts.get(g, 0) <= SIBLINGS_AT_MOST]
    edges = store.edges(small, relations=[DERIVED_FROM], direction="in") if small else []
    readings = {r.id: r for r in store.fetch(list({e.source for e in edges}))}
    still_open = {e.target for e in edges if (r := readings.get(e.source)) is not None and r.type in TASK_TYPES
                  and str(r.status) in ("active", "disputed") and (task_status(r) or "pending") in OPEN_STATUSES}
    return {mid: "read from a report of work closed" for g in small if g not in still_open for mid in groups[g]}


# -- what comes next -----------------------------------------------------------------------------------------
#: whether a question asks what comes next, or what was decided, is read by a learned model from its vector
#: (:mod:`mnemir.retrieve.query_kinds`), not from its wording
#: the candidates a statement of what comes next is chosen from: the head of the order, at least this relevant
#: compared with the best of it
NEXT_HEAD = 20
NEXT_RELEVANCE = 0.8


def confirm_open_work(intent: Any, reading: QueryReading) -> Any:
    """The intent, read as a question about where a task stands (``task_status``) when it asks for the open work
    (``open_tasks``) but the query-kind reading says it asks where a task stands
    (:attr:`QueryReading.asks_task_standing`). Asking for the open work is what bars closed tasks outright and
    lists every open task whatever its wording; a question about one task ("is X still to do?", "did X work out?")
    needs that task whatever its status. The query-kind model is fitted on the continuity conversations, where the
    two kinds are told apart; the intent model's kind stands unless that model reads the other kind positively. The
    status filter of the intent goes with it. An intent set by hand (no model distribution over kinds) is used as it
    is given."""
    kinds = getattr(intent, "kinds", ())
    if intent.kind != "open_tasks" or not kinds or not reading.asks_task_standing:
        return intent
    if hasattr(intent, "override"):
        return intent.override(kind="task_status", where=None, kinds=kinds)
    return replace(intent, kind="task_status", where=None)


def next_step_first(order: list[Scored], reading: QueryReading) -> list[Scored]:
    """Asked what comes next (``reading.asks_next``), the latest of the user's open tasks and plan steps (what the
    write side read as work still ahead), among the memories about as relevant as the best (NEXT_RELEVANCE), goes
    first: the plan in force is the one said last (an earlier one has been done or overtaken). ``order`` as it is
    otherwise."""
    if not reading.asks_next:
        return order
    ahead = _users_statements(order[:NEXT_HEAD], NEXT_RELEVANCE, states_step_ahead)
    if not ahead:
        return order
    latest = max(ahead, key=lambda s: (s.record.metadata.created_at, s.record.id))
    if latest is order[0]:
        return order
    latest.reasons.append("the latest step still ahead the user stated: first for a question about what comes next "
                          f"(read as {reading.describe()})")
    return [latest, *(s for s in order if s is not latest)]


def states_step_ahead(record: MemIR) -> bool:
    """A step still ahead: a task or plan step the write side read, still open."""
    return record.type in TASK_TYPES and task_status(record) in OPEN_STATUSES


def _users_statements(head: list[Scored], share: float, says: Callable[[MemIR], bool]) -> list[Scored]:
    """The memories of ``head`` the user said, at least ``share`` as relevant as the best of it, that ``says``."""
    if not head:
        return []
    best = max(s.relevance for s in head)
    return [s for s in head if s.record.metadata.source.speaker == "user" and s.relevance >= share * best
            and says(s.record)]


# -- what was decided ------------------------------------------------------------------------------------------
#: the candidates a statement of a decision is chosen from: the head of the order, at least this relevant compared
#: with the best of it
DECISION_HEAD = 20
DECISION_RELEVANCE = 0.4
#: at most this many statements of a decision are moved ahead
DECISIONS_FIRST = 2


def decision_first(order: list[Scored], reading: QueryReading, reached: Sequence[Scored] = ()) -> list[Scored]:
    """Asked what was decided or which option holds (``reading.asks_decision``), the user's decisions among the
    memories about as relevant as the best (DECISION_RELEVANCE; ``states_decision``) go first, the latest first: a
    choice settles the deliberation and the options weighed before it, which otherwise often share more words with
    the question. ``order`` as it is otherwise."""
    if not reading.asks_decision:
        return order
    head = order[:DECISION_HEAD]
    if not head:
        return order
    best = max(s.relevance for s in head)
    # the decisions read with what they settled (``decisions_in_reach``) are candidates whatever their own relevance
    mine = [s for s in reached if s.record.metadata.source.speaker == "user"]
    decided = [*mine, *(s for s in head if s not in mine and s.record.metadata.source.speaker == "user"
                        and _decision_relevance(s) >= DECISION_RELEVANCE * best and states_decision(s.record))]
    if not decided:
        return order
    first = sorted(decided, key=lambda s: (s in mine, _decision_relevance(s), s.record.metadata.created_at, s.record.id),
                   reverse=True)[:DECISIONS_FIRST]
    if order[:len(first)] == first:
        return order
    for s in first:
        s.reasons.append("a statement of a decision: first for a question about what was decided "
                         f"(read as {reading.describe()})")
    return [*first, *(s for s in order if s not in first)]


#: asked about a choice, the decision read closest to it keeps a place in the top k after the fusion with plain
#: search (which favours the deliberation's wording)
DECISION_KEEPS_PLACE = True


def decision_keeps_place(order: list[Scored], reached: Sequence[Scored], k: int, barred: Mapping[str, str]
                         ) -> list[Scored]:
    """The user's decision in reach (``decisions_in_reach``) most relevant to the question, when the fused order
    left it out of the top ``k``, takes the last place there: a question about a choice is answered by the choice
    made. ``order`` as it is otherwise."""
    mine = [s for s in reached if s.record.metadata.source.speaker == "user" and s.record.id not in barred]
    if not DECISION_KEEPS_PLACE or not mine or k < 1:
        return order
    best = max(mine, key=lambda s: (_decision_relevance(s), s.record.metadata.created_at, s.record.id))
    if any(s.record.id == best.record.id for s in order[:k]):
        return order
    best.reasons.append("the decision closest to a question about a choice: kept in the top k")
    rest = [s for s in order if s.record.id != best.record.id]
    return [*rest[:k - 1], best, *rest[k - 1:]]


#: how many of the user's latest decisions a question about a choice looks through, and how close (cosine, relative
#: to the closest candidate found by search) what a decision settled must be to the question for it to be a candidate
DECISIONS_SCANNED = 60
#: what a decision may have been read as: a fact, or a plan, task, preference or setting worded as a choice made
DECISION_TYPES = ("Fact", "Plan", "Task", "Preference", "ContextualFrame", "Hypothesis")
DECISION_REACH = 0.8
#: what a decision is read with: the utterance it came from, and what it settled or superseded (the deliberation)
DECISION_CONTEXT = (DERIVED_FROM, "supersedes", SETTLES)
#: ... or, when that context shares a content word with the question, at least this close
DECISION_TERM_FLOOR = 0.2
#: ... or, being the closest of the user's decisions to the question (a question about a choice presumes one was
#: made), at least this close
DECISIONS_CLOSEST = 2
DECISION_CLOSEST_FLOOR = 0.15


def decisions_in_reach(store: Store, scope: Any, pool: dict[str, Candidate], qvec: np.ndarray, query: str,
                       reading: QueryReading) -> list[str]:
    """Asked which option holds or what was decided, the user's decisions are read with what they settled: the
    utterance they came from and the deliberation they settled or superseded. A decision says little of its topic
    ("定了陈师傅", "went with memoQ"), so its own text is often far from the question while the options weighed
    before it are close. Each decision whose context is about as close to the question as the closest candidate
    (DECISION_REACH), or is one of the user's decisions closest to it (DECISIONS_CLOSEST, at least
    DECISION_CLOSEST_FLOOR), joins ``pool`` (or gets closer in it) with that closeness. Returns the ids it added or
    raised."""
    if not reading.asks_decision or not pool:
        return []
    decisions = [r for r in store.select(scope.with_(types=DECISION_TYPES), order_by=[("@created_at", False)],
                                         limit=DECISIONS_SCANNED)
                 if r.metadata.source.speaker == "user" and states_decision(r)]
    context = {d.id: [d.id, *(rel.target for rel in d.relationships if rel.relation in DECISION_CONTEXT)]
               for d in decisions}
    _inherit_settled(store, decisions, context)
    if not decisions:
        return []
    ids = sorted({t for ids in context.values() for t in ids})
    vectors = store.vectors(ids)
    texts = {r.id: r.text for r in store.fetch(ids)}
    asked = content_terms(query)
    best = max(c.similarity for c in pool.values())
    reaches = {d.id: max((float(np.dot(vectors[t], qvec)) for t in context[d.id] if t in vectors), default=0.0)
               for d in decisions}
    # the decisions read closest to the question: a question about a choice presumes one was made
    closest = sorted(reaches, key=lambda mid: (reaches[mid], mid), reverse=True)[:DECISIONS_CLOSEST]
    out = []
    for d in decisions:
        reach = reaches[d.id]
        shares = any(asked & content_terms(texts.get(t, "")) for t in context[d.id])
        if reach < DECISION_REACH * best and not (shares and reach >= DECISION_TERM_FLOOR) \
                and not (d.id in closest and reach >= DECISION_CLOSEST_FLOOR):
            continue
        known = pool.get(d.id)
        if known is None:
            pool[d.id] = Candidate(d, similarity=reach)
        elif known.similarity < reach:
            known.similarity = reach
        else:
            continue
        out.append(d.id)
    return out


def _inherit_settled(store: Store, decisions: Sequence[MemIR], context: dict[str, list[str]]) -> None:
    """A decision that replaced an earlier reading of the same choice (a second reading of one utterance, a choice
    restated) is read with what that one settled too: the link was written on the first."""
    replaced = {rel.target: d.id for d in decisions for rel in d.relationships if rel.relation == "supersedes"}
    if not replaced:
        return
    for record in store.fetch(sorted(replaced)):
        heir = context[replaced[record.id]]
        heir += [rel.target for rel in record.relationships if rel.relation == SETTLES and rel.target not in heir]


#: asked about a choice, what a decision in reach settled (the options weighed before it) is no answer
SETTLED_GO = True


def settled_by(store: Store, pool: Mapping[str, Candidate], decisions: Sequence[str]) -> dict[str, str]:
    """Asked about a choice: the candidates that stand for an utterance a decision in reach (``decisions_in_reach``)
    settled or superseded (the deliberation, the option it turned down), id -> the reason. The decision answers;
    the options weighed before it would show beside it as if still open. What states a decision itself stays."""
    if not SETTLED_GO or not decisions:
        return {}
    chosen = [pool[d].record for d in decisions if d in pool]
    targets = {rel.target: d.id for d in chosen for rel in d.relationships if rel.relation in (SETTLES, "supersedes")}
    if not targets:
        return {}
    records = {r.id: r for r in store.fetch(sorted(targets))}
    groups: dict[str, str] = {}  # utterance group -> the decision that settled it
    for target, by in targets.items():
        record = records.get(target)
        groups[utterance_of(record) if record is not None else target] = by
    own = {utterance_of(d) for d in chosen}
    out = {mid: f"weighed before a decision that settled it ({groups[g]})" for mid, c in pool.items()
           if (g := utterance_of(c.record)) in groups and g not in own and mid not in decisions
           and not (c.record.metadata.source.speaker == "user" and states_decision(c.record))}
    # the utterance itself too (folded into what was read from it, plain search may still rank it)
    out.update((g, f"weighed before a decision that settled it ({by})") for g, by in groups.items()
               if g not in own and g not in decisions and (g not in pool or g in out))
    return out


def options_near_decision(store: Store, order: Sequence[Scored], candidates: Mapping[str, Candidate],
                          groups: Mapping[str, str], reading: QueryReading, k: int, floor: float,
                          earlier_choices: bool = True, choices_floor: float = 0.0, governs_share: float = 0.0
                          ) -> dict[str, str]:
    """Asked what was decided (``reading.asks_decision``), with one of the user's decisions in the top ``k``: the
    candidates said before it, in another utterance, at least ``floor`` close in meaning to it (cosine), stand for
    the options weighed before the choice was made (the leaning it replaced, the option it turned down), whether or
    not the write side linked them (``settles`` links at most a few, above a higher bar). The decision is the latest
    of the user's decisions shown: a later choice about the same thing replaces an earlier one, so with
    ``earlier_choices`` an earlier decision close to it goes too (else it stays), with its utterance judged at least
    ``choices_floor`` close when that is higher than ``floor``: a later choice replaces an earlier one only about the
    same thing, while the deliberation is often worded far from the choice. Each goes, with every memory of its
    utterance (id -> the reason): shown beside the choice, an option weighed reads as if it still held. ``floor`` >=
    1: off.

    With ``governs_share`` > 0 the decision is the latest of those shown at least that share as relevant to the
    question as the most relevant one: a conversation makes many choices (the tiles, the worktop, the fitter), the
    question asks about one of them, and a later choice about another thing, shown only because it is a choice, is
    no reason to drop the one asked about (it is close in meaning to it whenever both are about one project)."""
    if floor >= 1.0 or not reading.asks_decision:
        return {}
    scored = [s for s in order[:k] if s.record.metadata.source.speaker == "user" and states_decision(s.record)]
    if not scored:
        return {}
    if governs_share > 0.0:
        best = max(_decision_relevance(s) for s in scored)
        scored = [s for s in scored if _decision_relevance(s) >= governs_share * best]
    shown = [s.record for s in scored]
    decision = max(shown, key=lambda r: (r.metadata.created_at, r.id))  # the latest choice shown holds

    def group_of(mid: str, record: MemIR) -> str:
        return groups.get(mid) or utterance_of(record)

    own = group_of(decision.id, decision)
    before = {mid: c for mid, c in candidates.items() if group_of(mid, c.record) != own
              and c.record.metadata.created_at <= decision.metadata.created_at
              and (earlier_choices or not (c.record.metadata.source.speaker == "user" and states_decision(c.record)))}
    if not before:
        return {}
    vectors = store.vectors([decision.id, *before])
    chosen = vectors.get(decision.id)
    if chosen is None:
        return {}
    # an utterance that stated a choice of the user's is an earlier choice, whichever of its memories is close
    chose = {group_of(mid, c.record) for mid, c in before.items()
             if c.record.metadata.source.speaker == "user" and states_decision(c.record)}
    near = {g for mid, c in before.items() if mid in vectors and _cos(vectors[mid], chosen) >= (
        max(floor, choices_floor) if (g := group_of(mid, c.record)) in chose else floor)}
    return {mid: f"an option weighed before the decision {decision.id} (close in meaning to it)"
            for mid, c in candidates.items() if group_of(mid, c.record) in near}


def stances_changed(store: Store, order: Sequence[Scored], candidates: Mapping[str, Candidate],
                    groups: Mapping[str, str], reading: QueryReading, k: int, floor: float,
                    asks: float) -> dict[str, str]:
    """Asked for a preference (the query-kind model's ``preference`` at least ``asks``), with a statement of the
    user's in the top ``k`` that says their stance changed or how it stands now (``wording.says_stance_changed``:
    "I've come round", "我现在更想要…", whatever it was read as: a preference, a feeling, a fact): the user's earlier
    preferences among the candidates, said in another utterance, at least ``floor`` close in meaning to it (cosine),
    are the stance it replaced, and go with every memory of their utterance (id -> the reason). A newer stance on the
    same thing holds; the write side links the two only when a model reads them as one thing changed, and the
    words of a change of mind are often far from the words of the stance it gives up. ``floor`` >= 1: off."""
    if floor >= 1.0 or reading.probabilities.get("preference", 0.0) < asks:
        return {}
    # someone else's change of mind is theirs ("my brother has changed his mind about the car"): a statement with another
    # person at its head replaces none of the user's stances
    shown = [s.record for s in order[:k] if s.record.metadata.source.speaker == "user"
             and s.record.type != "Episode" and says_stance_changed(s.record.text)
             and not _about_a_relation(s.record.text)]
    if not shown:
        return {}
    newer = max(shown, key=lambda r: (r.metadata.created_at, r.id))

    def group_of(mid: str, record: MemIR) -> str:
        return groups.get(mid) or utterance_of(record)

    own = group_of(newer.id, newer)
    # an earlier preference that was itself told as a change ("改主意了…", "switched to…") stays: a later statement
    # that tells how things stand now, or mentions the change, mostly restates it (train: both losses of the rule)
    before = {mid: c for mid, c in candidates.items() if c.record.type == "Preference"
              and c.record.metadata.source.speaker == "user" and group_of(mid, c.record) != own
              and c.record.metadata.created_at < newer.metadata.created_at and not says_change(c.record.text)}
    if not before:
        return {}
    vectors = store.vectors([newer.id, *before])
    now = vectors.get(newer.id)
    if now is None:
        return {}
    near = {group_of(mid, c.record) for mid, c in before.items()
            if mid in vectors and _cos(vectors[mid], now) >= floor}
    return {mid: f"a stance the user changed since ({newer.id} says so)"
            for mid, c in candidates.items() if group_of(mid, c.record) in near}


def _about_a_relation(text: str) -> bool:
    """A relation of the user's (or a person named with one) at the head of the statement ("Mum's changed her
    mind", "我姐现在…"); a capitalised word at the head alone ("Saw a friend's flat…") is no person."""
    mention = person_mention(text)
    return mention is not None and (mention.relation is not None or mention.key in RELATIONS)


def states_decision(record: MemIR) -> bool:
    """A decision, as the write side read it: a fact of the decision attribute, or a memory linked to the
    deliberation it settles (``settles``, written by ``remember``)."""
    return record.properties.get("attribute") == "decision" or any(
        rel.relation == SETTLES for rel in record.relationships)


def _decision_relevance(s: Scored) -> float:
    """How relevant a statement of a decision is: its own relevance, or that of the deliberation it settles when it
    was reached from it (``settles``, written by ``remember``: a decision says little of its topic)."""
    via = s.candidate.via
    return max(s.relevance, s.candidate.parent_relevance) if via is not None and via[0] == SETTLES else s.relevance


# -- what the assistant only asked -------------------------------------------------------------------------------
#: an assistant's utterance that ends in a question and says at most this much before it ("Lovely.", "好的。") only
#: asks: it tells nothing the user said or did
ASKED_REST_WORDS = 8
ASKED_REST_HAN = 12
#: sentence-final punctuation (zh full-width and ascii marks; a period only before a space): a general fact of writing
_SENTENCE_ENDS = re.compile(r"(?<=[。！？!?；;])\s*|(?<=[.])\s+")


def only_asks(text: str) -> bool:
    """The utterance is a question asking for news ("How did the fitting go?", "押金退了吗？"), with at most a
    short acknowledgement before it, and offers nothing ("Want me to…", "要不要我…": an offer may become the
    user's task)."""
    sentences = [x.strip() for x in _SENTENCE_ENDS.split(text.strip()) if x.strip()]
    if not sentences or not sentences[-1].endswith(("?", "？")) or proposal_of(text) is not None:
        return False
    told = " ".join(x for x in sentences if not x.endswith(("?", "？")))
    return len(re.findall(r"[\u4e00-\u9fff]", told)) <= ASKED_REST_HAN \
        and len(re.findall(r"[A-Za-z]+", told)) <= ASKED_REST_WORDS


def assistant_questions(pool: Mapping[str, Candidate]) -> dict[str, str]:
    """The candidates that stand for an assistant's turn that only asked (``only_asks``), id -> the reason: a
    question is no answer, and it is often the closest text to a question about the same thing (the assistant asked
    how the task stands; the user's reply says it)."""
    return {mid: "the assistant only asked a question here" for mid, c in pool.items()
            if c.record.metadata.source.speaker == "assistant" and c.record.type in (EPISODE, "DialogueAct")
            and only_asks(c.record.text)}
