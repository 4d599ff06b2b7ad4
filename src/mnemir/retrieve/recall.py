"""Role-aware recall: the answer to source-role collapse.

``recall`` takes an intent (which types answer the query, with which filters) and returns the memories that
answer it first, then the user's present state, tasks when they matter, preferences as background and fresh
feelings as damped cautions, each with its role, score and reasons, plus a :class:`Context` for the agent.

Steps: gather candidates (one vector search and one keyword search over every type, episodes included, the active
frame, the user's recent state, the open tasks for "what's left") -> fold episodes into what was read from them and
set aside what a lifecycle fact bars (:mod:`mnemir.retrieve.fusion`) -> check an unsure intent against the
memories -> score by role (closed tasks for "what's left" and the setting in force are held out; role fit and
fading move scores) -> judge memories against each other (outdated, unconfirmed, a later feeling, the frame in
force) -> follow relationships from the best ones (in scope, depth-limited) -> let replacements stand in, put a
task's finished steps below its open ones, lift the present state -> drop what was replaced -> top up a thin answer
with weak fillers -> a learned nudge re-sorts what passed the floors (:mod:`mnemir.retrieve.learned`) -> fuse with
plain hybrid search (read twice as deep as the role order's candidates, so that its order over the utterances is
hybrid search's; its best, half of the top k and more the less sure the intent is, keep places there unless a named
exclusion or a confident intent rules one out) -> one slot per memory and its own episode -> top k. A question about the past
("以前", "used to", an ended time range) keeps the earlier memories instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.embed.base import Embedder, Vectors
from mnemir.errors import ValidationError
from mnemir.ir import MemIR, MemoryStatus, ensure_aware
from mnemir.ontology import Ontology, earlier, format_datetime
from mnemir.ontology.enums import OPEN_STATUSES
from mnemir.retrieve.context import Context
from mnemir.retrieve.decision_questions import asks_decision
from mnemir.retrieve.evidence import Settled, confidence_learned, role_evidence, settle, settle_learned
from mnemir.retrieve.fusion import (
    DERIVED_FROM,
    EPISODE,
    FEELING,
    NO_READING,
    PLAIN_RRF_K,
    calm_neighbours,
    depth_kept_places,
    fold_episodes,
    fuse,
    hard_exclusion,
    one_slot,
    plain_group_ranks,
    plain_ranks,
    utterance_of,
)
from mnemir.retrieve.graph import FOLLOW_RELATIONS, STEP_RELATIONS, expand
from mnemir.retrieve.judgements import (
    SETTLES,
    TAKEN_BACK_MARGIN,
    above_floor,
    assistant_questions,
    completed_elsewhere,
    confirm_open_work,
    decision_first,
    decision_keeps_place,
    decisions_in_reach,
    demote_outdated,
    demote_replaced,
    drop_replaced,
    ended_frames_give_way,
    feelings_move_on,
    focus_status,
    lift_present,
    next_step_first,
    open_steps_first,
    options_near_decision,
    order_hits,
    other_frame_gives_way,
    replacements_stand_in,
    reported_tasks,
    reports_of_closed_work,
    settled_by,
    stances_changed,
    states_decision,
    taken_back,
)
from mnemir.retrieve.learned import (
    DEFAULT_RANKER_MODEL,
    REMEMBERED_RANKER_MODEL,
    ROLE_MODEL,
    Item,
    LearnedRanker,
    RoleModel,
    family_features,
    features,
    shipped_ranker,
    shipped_role_model,
    soft_gate,
)
from mnemir.retrieve.lexical import entity_terms
from mnemir.retrieve.persons import IN_TRANSCRIPT, asked_person_order
from mnemir.retrieve.query_kinds import DECISION, PAST_EVENT, QueryKinds, QueryReading, read_query
from mnemir.retrieve.ranking import (
    ANSWER_ROLES,
    LINK_DECAY,
    TASK_KINDS,
    TASK_TYPES,
    Candidate,
    FrameState,
    IntentLike,
    RankingConfig,
    Scored,
    confidence_of,
    frame_active,
    gate,
    linked_relevance,
    role_of,
    score_candidate,
    task_status,
)
from mnemir.retrieve.search import check_k
from mnemir.retrieve.wording import asks_about_now, asks_about_past
from mnemir.store.base import Selection, Store, tenant_reads
from mnemir.store.filters import And, Cmp, FilterNode, parse_filter
from mnemir.understand.intent import KIND_TYPES
from mnemir.understand.people import speaker_label
from mnemir.understand.talk import TALK

#: the learned nudge re-sorts at least this many of the rules' best (or 4 x k)
NUDGED_HEAD = 20
#: the question kinds (of the query-kind model) that ask what happened: how an event went, where a task stands, what
#: was decided
EVENT_KINDS = ("past_event", "task_status", "decision")
#: the question kind (of the query-kind model) that asks for a value as it stands now, after any correction
CURRENT_VALUE = "corrected_fact"


@dataclass(frozen=True)
class RecallConfig:
    ranking: RankingConfig = field(default_factory=RankingConfig)
    #: how many candidates the keyword search (and the read of open tasks) returns (at least; grows with k); the one
    #: vector search over every type returns half as many again
    candidates: int = 30
    #: how many steps relationships are followed from the best hits (0 = off)
    graph_depth: int = 2
    graph_relations: tuple[str, ...] = FOLLOW_RELATIONS
    #: how many of the best hits the graph walk starts from
    graph_seeds: int = 5
    #: how many recent memories are read as the user's present state
    present_limit: int = 20
    #: an answer with fewer hits than this (or than k) is topped up with the closest admitted memories under the
    #: floors, labelled weak (never nothing when something passed the role gates)
    weak_fallback: int = 3
    #: let the learned ranker (:mod:`mnemir.retrieve.learned`) nudge the order of what the rules show
    learned: bool = True
    #: the learned model; None = the one shipped with the package named by ``ranker_model``
    ranker: LearnedRanker | None = None
    #: which shipped learned ranker (a file of ``retrieve/data/``) recall uses when ``ranker`` is None:
    #: ``learned_ranker.json`` learned from the collapse train stores typed by hand; ``learned_ranker_e2e.json`` also
    #: from the same scenarios' stores built through ``remember`` (episodes, extra readings, what extraction left;
    #: decision 0114), the default: it has seen what a remembered store holds (decision 0123: collapse dev end to end
    #: 17 won / 4 lost, typed level, continuity dev 7 / 2)
    ranker_model: str = REMEMBERED_RANKER_MODEL
    #: ... over a conversation between people (``among_people``: a transcript's marks or the talk reading), this
    #: shipped ranker instead; None: ``ranker_model`` everywhere. The remembered-store ranker learned from
    #: user-assistant stores only and lost at @10 over talk between people (dialogue QA dev 1 won / 6 lost,
    #: decision 0119), so the typed-store ranker stays there
    chat_ranker_model: str | None = DEFAULT_RANKER_MODEL
    #: plain hybrid search's weight in the fusion with the role-aware order (reciprocal ranks; the role order weighs
    #: 1). 0 turns the fusion off (and with it the guarantee that plain search's best keeps a place in the top k)
    plain_weight: float = 0.5
    #: ... plus this much times (1 - the intent's confidence)
    unsure_plain_weight: float = 1.0
    #: the reciprocal-rank constant of that fusion: smaller favours the first places of each order
    fusion_k: int = 5
    #: from this intent confidence on, a role the intent rules out is not brought back by plain search (said in the
    #: notes when it was plain search's best)
    confident_intent: float = 0.7
    #: this share of the top k (at least one place) is kept for plain search's best, in its order, unless a named
    #: lifecycle exclusion or a confident intent rules one out: role fit moves them, it does not remove them
    plain_share: float = 0.5
    #: ... plus this much times (1 - the intent's confidence, as the memories settled it): the less sure the reading
    #: of the query, the more of plain search's best keep their places (decision 0049)
    unsure_plain_share: float = 1.0
    #: past the answer's first ``plain_tail_from`` places, this share of the places (at least ``plain_share`` and
    #: its doubt) is kept for plain search's best too: the role order's reading decides the head of the answer (which
    #: memory serves the question first), and a longer answer asks for breadth, where hybrid search over what was
    #: said finds most evidence; the role order's own picks below the head are its weakest. So the top k holds
    #: plain search's first ``plain_share`` x head + ``plain_tail_share`` x (k - head) utterances (what a named
    #: lifecycle exclusion bars or a confident intent rules out skipped, as for the kept places at the head), the
    #: rest by the fused order. 0: off (the share of the whole top k is ``plain_share``); an answer of
    #: ``plain_tail_from`` places or fewer is unchanged. Off by default: 1.0 is level within a replay's churn (dialogue
    #: QA dev @10 +1 / +5 questions unlabelled / labelled, continuity dev @10 +5 checkpoints and +5 violations,
    #: collapse dev end to end @10 -1 query of 659); 3 as ``plain_tail_from`` changes answers of 4 and 5 places
    #: (docs/decisions/0098)
    plain_tail_share: float = 0.0
    plain_tail_from: int = 5
    #: ... and there (past the head, within those places) a reading the intent rules out (a task or a feeling asked
    #: about as neither, however sure the intent), or an utterance from which only a feeling was read, gives its place
    #: to the utterance it was read from, as what was said (the role is not shown): a ruling keeps a wrong role out of
    #: the head of the answer, it does not take the evidence out of a long one. Never what a named lifecycle exclusion
    #: bars, a memory replaced by a newer one (unless the past is asked about) nor one the asked-person step moved
    #: (docs/decisions/0098). Off: dialogue QA dev unlabelled @10 0.720 -> 0.739 (labelled 0.804 -> 0.813), but where
    #: the reading is right (a request read as a task) what was said of it is that task: collapse dev end to end
    #: isolation @10 0.563 -> 0.370, continuity dev violations @10 0.213 -> 0.223
    plain_tail_said: bool = False
    #: what a bar set aside only because open work was asked for (a closed task, an utterance whose work is all
    #: closed, the assistant's questions) comes back when the memories settle the intent on a kind that asks for
    #: no work
    open_work_follows_settled: bool = True
    #: an utterance a later correction took back goes when what took it back is at most this much less close to the
    #: query (cosine; ``judgements.taken_back``): a correction opens with words of its own and tells why, so it is
    #: less close to a question than the statement it replaced (docs/decisions/0107)
    taken_back_margin: float = TAKEN_BACK_MARGIN
    #: ... and what took an utterance back counts though it is not among the candidates (a correction worded apart
    #: from the question): its own cosine with the query weighs it (docs/decisions/0107)
    takers_beyond_pool: bool = True
    #: ... but asked what was decided, a user's decision read from such an utterance stays: the correction took
    #: back the value it names, not the choice told beside it (docs/decisions/0124)
    taken_back_keeps_choices: bool = False
    #: asked where a task stands (``task_status``), a task a later report moved goes, with what else was read from
    #: the utterance that first stated it, when that report is among the candidates at most this much less close
    #: to the query (cosine; ``judgements.reported_tasks``): the report says where the work stands, the task's
    #: statement the state it replaced. None: off. 0.0: the report at least as close as the task (continuity dev
    #: task_status 0.730 -> 0.744, 9 won / 3 lost on the same stores; docs/decisions/0116)
    report_stands_for_task: float | None = 0.0
    #: asked for the open work, what was read from an utterance that reported work closed (``reports_on``) and
    #: states no open work of its own goes (``judgements.reports_of_closed_work``; docs/decisions/0116)
    reports_not_open: bool = False
    #: a question the query-kind model reads as asking for a value that may have been corrected (``corrected_fact``
    #: at least ``current_value_p``) takes back with this margin instead (None: the one margin for every question):
    #: asked for what holds now, the old statement is no answer however much closer its words are. With
    #: ``takers_beyond_pool``: continuity dev 18 checkpoints won, 0 lost (corrected_fact 0.627 -> 0.670), train 7 / 0;
    #: the wider margin for every question lost past events (docs/decisions/0107)
    current_value_margin: float | None = 0.5
    current_value_p: float = 0.3
    #: with the fusion on, an answer with fewer than k memories is filled from plain search's order (what it ranks
    #: next, each utterance once, labelled weak), skipping what a named lifecycle exclusion or a confident intent
    #: rules out: an empty place can only take away what plain search would show there
    fill_from_plain: bool = True
    #: the keyword order's weight in recall's plain search over the utterances (the vector order weighs 1, as in
    #: ``search``; 1.5 was measured and not kept: docs/decisions/0031)
    plain_text_weight: float = 1.0
    #: what the assistant said weighs this much in recall's plain search over the utterances, as
    #: ``FusionConfig.assistant_weight`` in ``search`` (1.0: alike; decision 0043)
    plain_assistant_weight: float = 0.8
    #: how ties of recall's plain search over the utterances are broken, as ``FusionConfig.ties`` in ``search``:
    #: "signals" (the strength of the signals that placed each utterance, then the newer, then the id) or "id" (the
    #: id alone, which moves with the random ids a store was given: before decision 0095)
    plain_ties: str = "signals"
    #: score-aware fusion in recall's plain search over the utterances, as ``FusionConfig.score_weight`` in
    #: ``search`` (0: ranks alone; 0.25, as ``search``: dialogue QA dev labelled 0.730 / 0.819 -> 0.736 / 0.820,
    #: continuity and collapse dev level; decision 0095)
    plain_score_weight: float = 0.25
    #: a confident intent rules out a reading's role, not what else the utterance said: where plain search ranks an
    #: utterance among its best and the ruled-out reading it was folded into is shorter than this share of it, the
    #: utterance itself (what was said) stands in plain search's place (0: off; decision 0038; 1.0, whenever the
    #: utterance says more than the reading, gained 2 dev checkpoints but brings back a task utterance that a reading
    #: restates almost whole: decision 0049)
    ruled_out_cover: float = 0.5
    #: the plain-search floor (issue 14): the first ``plain_floor`` utterances of plain search's order (at most half
    #: the top k, at least one) keep a place
    #: in the top k after every step of recall (the fusion, one slot per utterance, the asked-person step, the
    #: decision steps), each at most ``plain_floor_slack`` places below its plain rank, unless a named lifecycle
    #: exclusion bars it (replaced, validity ended, a closed task when open work is asked for, the setting in force),
    #: the asked-person step moved it as naming only other people, or the intent rules its role out with at least
    #: ``floor_confident`` confidence; where a confident intent (under that) rules out the reading it was folded
    #: into, the utterance itself (what was said) stands in. 0: off. The gain on dialogue QA is the stand-in alone
    #: (``floor_confident`` 0, no stand-in: identical to the floor off); slack 0 reorders inside the top k against
    #: role fit. Off by default: the floor's first form (3 places at k = 3, no cap) took collapse dev typed
    #: isolation@3 0.841 -> 0.828 and end to end 0.672 / 0.239 -> 0.647 / 0.257; the capped form is not measured
    #: there yet (docs/decisions/0082)
    plain_floor: int = 0
    plain_floor_slack: int = 10
    floor_confident: float = 0.9
    #: ... and an utterance from which only a feeling was read, ruled out with its feeling's role (decision 0070),
    #: keeps its floor place too, as what was said (False: the outburst guard stands)
    plain_floor_felt: bool = False
    #: the floor over a conversation between people (one of plain search's first three utterances is a turn of a
    #: transcript that names its speakers, read as one on the write side): there what was read from a turn is a typing of one
    #: person's news, made by an extractor taught on a user talking with the assistant, and what was said is the
    #: evidence; ``plain_floor_chat`` places as ``plain_floor`` (0: off), and with ``plain_floor_chat_felt`` a turn
    #: read only as a feeling keeps its floor place too (a turn told to a friend with a feeling is no outburst at
    #: the assistant: decision 0070's guard is about the latter). On by default: dialogue QA train (the tuning split)
    #: labelled 0.633 / 0.751 -> 0.644 / 0.763; user-assistant stores (continuity, collapse) have no such turns, and
    #: there the floor's stand-in shows the utterance of a task read right (collapse end to end -0.8 points with
    #: ``plain_floor``); ``plain_floor_chat_felt`` moved nothing on train: off (docs/decisions/0087)
    plain_floor_chat: int = 3
    plain_floor_chat_felt: bool = False
    #: over a conversation between people (as for ``plain_floor_chat``: one of plain search's first three utterances
    #: is a turn of a transcript ``remember`` recognised), a question is read as one that may ask about the past: a transcript is a
    #: record of what each person said at the time, and a later turn that replaces or takes back what was read from
    #: an earlier one does not unsay it (the earlier turn stays findable, ranked, not barred; the newer one is shown
    #: too). User-assistant stores hold no transcript turns: there nothing changes. On by default: dialogue QA train
    #: (labelled) 0.664 / 0.769 -> 0.675 / 0.783 at turn recall @5 / @10 (hybrid search over the raw turns 0.636 /
    #: 0.776); dev 0.718 / 0.791 -> 0.742 / 0.818 (hybrid 0.711 / 0.812): docs/decisions/0090
    chat_past: bool = True
    #: ... and there a role is ruled out only from this intent confidence on (None: ``confident_intent``; 1.0: never):
    #: what was read from a turn between people is a typing by an extractor taught on a user talking with the
    #: assistant, and the turn is the evidence (None, the default: 0.9 and 1.0 lost 1.1-1.4 points @10 on dialogue QA
    #: train: docs/decisions/0090)
    chat_confident_intent: float | None = None
    #: ... and plain search's best keep this share of the top k there (None, the default: ``plain_share``; 0.6 with
    #: ``chat_past`` gained 3 train questions @10 and none on dev (-3 @5, +1 @10): not kept; docs/decisions/0090)
    chat_plain_share: float | None = None
    #: ... and there the tail (``plain_tail_share``, ``plain_tail_said``) takes these values (None: as set for every
    #: store). Over a conversation between people what was read from a turn is one person's news typed by an
    #: extractor taught on a user talking with the assistant, and the turn is the evidence; in a user's own talk with
    #: the assistant the reading is mostly right, and the stand-in past the head brings back the very role a ruling
    #: kept out (collapse train end to end @10: all 133 wrong-role memories the stand-in brought in were readings
    #: of the role the scenario gives them, none lifecycle-barred). On by default (1.0 and True): dialogue QA dev
    #: labelled @10 0.796 -> 0.804 (19 won / 9 lost); stores with no transcript turns (unlabelled talk, collapse,
    #: continuity) unchanged by construction, measured identical (docs/decisions/0101)
    chat_tail_share: float | None = 1.0
    chat_tail_said: bool | None = True
    #: ... and there recall's plain search over the utterances weighs its keyword order this much
    #: (``plain_text_weight``) and the strength of its signals this much (``plain_score_weight``); None: as set for
    #: every store. A long conversation between people holds many turns on the same few subjects, which a sentence
    #: vector ranks alike, while the words a question shares with one turn (a name, a place, a thing) single it out
    #: (docs/decisions/0112)
    chat_text_weight: float | None = None
    chat_score_weight: float | None = None
    #: ... and over a long one (at least ``chat_long_turns`` utterances kept in the user's scope) the keyword order
    #: weighs this much instead (None: ``chat_text_weight``): the more turns, the more of them a sentence vector
    #: ranks alike, and the more a shared rare word says. On at 3.0 (train, five conversations kept in one store,
    #: ~650 turns: the best of 1.5 / 2 / 3): dialogue QA dev so merged, unlabelled 0.576 / 0.679 -> 0.601 / 0.689
    #: at @5 / @10 (33 won / 12 lost, 15 / 7), labelled 0.695 / 0.760 -> 0.696 / 0.774 (16 / 15, 23 / 11); every
    #: store under 400 utterances (the suite's own, collapse, continuity) unchanged by construction
    #: (docs/decisions/0112)
    chat_text_weight_long: float | None = 3.0
    chat_long_turns: int = 400
    #: ... and over such a long one the utterances said in a past period the question names ("last month") do not
    #: all come first in plain search's order (``plain_group_ranks``' ``period_first``): the period's order is fused
    #: with the vector and keyword orders as a third. The period runs from its start to the question's time (what
    #: happened then is often told afterwards), and over hundreds of turns that span holds many of them, most
    #: sharing nothing with the question but their dates. True: first, as over every other store. Off (False) by
    #: default: dialogue QA dev, five conversations to a store (~650 turns), unlabelled 0.599 / 0.688 -> 0.606 /
    #: 0.698 at @5 / @10 (6 won / 0 lost, 9 / 0), labelled 0.696 / 0.770 -> 0.706 / 0.781 (8 / 0, 9 / 0); every
    #: store under 400 utterances unchanged by construction (docs/decisions/0117)
    chat_period_first_long: bool = False
    #: over a conversation between people, each utterance in plain search's order also gains this share of the
    #: better fused score of the utterances said just before and after it in the same session
    #: (``plain_group_ranks``' ``neighbour_weight``): a reply leans on the turn that drew it, and a question about
    #: an exchange may share its words with one turn and its answer with the next. 0: off. On at 0.5 (fitted on
    #: train): dialogue QA dev (every third conversation, 798 questions) unlabelled 0.649 / 0.772 -> 0.683 / 0.806 at
    #: @5 / @10 (51 won / 24 lost, 45 / 18), labelled 0.699 / 0.808 -> 0.718 / 0.831 (44 / 29, 42 / 24); collapse end
    #: to end and continuity dev slices identical (docs/decisions/0129)
    chat_neighbour_weight: float = 0.5
    #: ... and there plain search's reciprocal ranks read 1 / (this + rank) (None: ``PLAIN_RRF_K``, 60, as ``search``
    #: fuses), its signals' strength weighs this much (None: as set for every store), and plain search's best keep
    #: this share of the top k (None: as set for talk between people). A smaller constant lets a turn only the
    #: keyword order places near the top outrank one both orders place in the middle (docs/decisions/0117)
    chat_fusion_k_long: int | None = None
    chat_score_weight_long: float | None = None
    chat_plain_share_long: float | None = None
    #: the tail's stand-in (``plain_tail_said``) replaces only a reading its extractor was less sure of than this (the
    #: classifier's probability of the type read; of the feeling, for an utterance from which only a feeling was
    #: read): a ruling rests on the intent *and* on the role read, and a sure reading of a ruled-out role is ruled
    #: out as surely, while an unsure one (one person's news told to another, typed as the user's task) leaves what
    #: was said the evidence. A memory written typed counts as sure. None: every reading (decision 0098's form)
    plain_tail_said_below: float | None = None
    #: a store is read as a conversation between people, as a transcript's marks make it one (``chat_*`` above, the
    #: asked-person step's "I"), also where no speaker is named: when the user's utterances among plain search's
    #: first ``talk_depth`` have a mean log-odds of talk between people (the learned write-side reading each Episode
    #: keeps, :mod:`mnemir.understand.talk`) of at least this, over ``talk_least`` of them or more. One turn says
    #: little (a user tells the assistant their news too); a store's many turns say whether its "you" is a person.
    #: None: off, marks only. On at 0.0 (the boundary the train stores' cross-validated means put between the two):
    #: dialogue QA dev unlabelled 0.602 / 0.704 -> 0.633 / 0.748 at @5 / @10 (raw-turn hybrid 0.616 / 0.743);
    #: collapse and continuity dev identical (docs/decisions/0103)
    talk_among_people: float | None = 0.0
    #: ... and there the asked-person step moves no user turn for naming only other people: with no speaker named,
    #: any turn may be the asked person's own words ("I" is whoever speaks), as a transcript's labelled turns stay
    #: (``transcript_turns_stay``). On: dialogue QA dev unlabelled 0.636 / 0.750 -> 0.644 / 0.763 (14 won / 2 lost,
    #: 18 / 1); collapse, continuity and labelled dev identical (docs/decisions/0103)
    talk_turns_stay: bool = True
    #: ... and only where no assistant turn is among the memories the question finds: a store where the assistant
    #: speaks is a user's talk with it (a user tells the assistant of friends in the second person too)
    talk_no_assistant: bool = True
    talk_depth: int = 20
    talk_least: int = 5
    #: an utterance from which only a feeling was read (an outburst: what was read from it is how the user felt) has
    #: that feeling's role: a confident intent that rules a feeling out (a calm question, not about the past) rules
    #: the utterance out of plain search's kept places and fillers too, as it rules out the feeling read from it
    #: (decision 0070). The event stays findable: a question about the past, about feelings, or an unsure intent
    #: is answered as before
    felt_episode_ruled_out: bool = True
    #: a memory ``remember`` wrote (an utterance kept verbatim, or a reading of one) that no relationship ties to a
    #: contextual frame belongs to the frame in force when it was said, when it was said within this many hours of
    #: the frame's start (a situation frames what is said around it, in the same sitting); 0 = off. Memories written
    #: with ``add`` keep exactly the ties their writer gave. 24 (a day): collapse dev end to end 5 won / 0 lost,
    #: typed and dialogue QA unchanged, continuity 7 / 4 (decision 0114)
    frame_ties_said_within_h: float = 24.0
    #: an utterance from which only a feeling was read joins the role order only where its feeling would: not for a
    #: confident calm question (no feeling among the intended types, not about the past or what happened), as the
    #: typed store never gathers the feeling for it; plain search may still bring it back (decision 0114)
    felt_episodes_follow_types: bool = False
    #: an utterance from which only a feeling was read (an outburst) fills a thin answer's empty places (the closest
    #: memories under the relevance floor, labelled weak) no more than the feeling read from it does: a feeling is
    #: never such a filler (which feeling still holds is judged against the others, and a filler is not judged),
    #: and the utterance is that feeling, said. Other fillers, and plain search's own places, are unchanged. On:
    #: collapse dev end to end 6 won / 3 lost (train 13 / 1), typed, continuity and dialogue QA identical
    #: (decision 0119)
    felt_fill_as_feeling: bool = True
    #: ... with ``felt_episodes_follow_types``, only an outburst beside which a calm memory of the same thing is a
    #: candidate (:meth:`_Query.calm_beside`, ``felt_episode_calm``), as plain search's ruling asks: beside a calm
    #: statement of the same thing the calm one is the better evidence; with none, the utterance is the evidence
    #: there is and stays in the role order (decision 0119)
    felt_aside_beside_calm: bool = False
    #: the role model (which family answers: the memories heard beside the intent) hears an utterance said with a
    #: feeling as that feeling (the emotion family), not as an utterance kept verbatim: a store typed by hand holds
    #: the feeling and no utterance, and through ``remember`` an outburst's utterance otherwise takes its feeling's
    #: place at the head of the vector order as something said, which the model learned from conversations to read
    #: as a feeling answered. On: collapse dev end to end 18 won / 11 lost (train 7 / 2; with
    #: ``felt_fill_as_feeling`` 24 / 14, train 20 / 3), typed identical by construction, continuity 2 / 3, dialogue
    #: QA labelled @5 7 / 4, @10 3 / 5 (decision 0119)
    felt_said_as_feeling: bool = True
    #: ... only where a calm memory of the same thing (one not said with a feeling, of a type that states something,
    #: from another utterance) is a candidate at least this similar (cosine) to the utterance: beside a calm statement
    #: of the same thing the calm one is the better evidence; with none, the utterance is the evidence there is and
    #: stays (an event told with joy, asked about calmly). 0: wherever a feeling was read
    felt_episode_calm: float = 0.3
    #: ... and never where the query-kind model reads a question about what happened (how an event went, where a task
    #: stands, what was decided: ``EVENT_KINDS``) with at least this probability together: the news of an outcome is
    #: often told with feeling, and then it is the answer (1.0: off)
    felt_episode_event_kinds: float = 0.5
    #: ... and only where that calm memory is about as close to the question as the utterance (its similarity to the
    #: query at least the utterance's less this margin): a calm memory of the same thing that answers the question
    #: worse than the utterance is no better evidence for it (1.0: any calm memory of the same thing, as before;
    #: docs/decisions/0093)
    felt_calm_answers: float = 1.0
    #: a feeling is ruled out as no answer only when the intent, as the memories settled it, does not rank feelings
    #: as intended (a type of the feeling's family among its types), as a task is ruled out only when no task type is
    #: (False: whenever the intent's kind is not about feelings; docs/decisions/0093)
    ruling_follows_types: bool = False
    #: an utterance from which only a feeling was read (an outburst) is that feeling, said: asked how the user feels
    #: (not about the past), it is judged with the feelings (:func:`~mnemir.retrieve.judgements.feelings_move_on`: an
    #: earlier one gives way to a later feeling about the same thing), and it gives way with the feeling read from it
    #: when that feeling gave way. An episode takes the lifecycle of what was read from it; the event stays findable
    #: by a question about the past or about what happened (``felt_episode_event_kinds``). On: collapse dev end to
    #: end 0.6654 / 0.2524 -> 0.6667 / 0.2513 (7 won, 0 lost), continuity and dialogue QA dev unchanged; without
    #: ``felt_episode_moves_now`` 14 won / 1 lost there but continuity dev lost 2 past-event checkpoints
    #: (docs/decisions/0100)
    felt_episode_moves_on: bool = True
    #: ... only where the question asks how things stand now (the present adverbs of ``wording.NOW``): asked how
    #: something went, without them, an earlier outburst may be the event asked about (docs/decisions/0100)
    felt_episode_moves_now: bool = True
    #: plain search over the utterances reads this many times as deep as the role order's candidates (the one
    #: vector search and the one keyword search return that many): with every utterance kept beside what was read
    #: from it (and a dialogue act beside each turn of the assistant), the role order's depth holds about half as
    #: many utterances as hybrid search over the raw utterances reads, and its order differs from theirs below the
    #: first few. What lies past the role order's depth only places plain search's order and may come back through
    #: it (its best places, an empty place), never enters the role order (1.0: the role order's depth; 2.0 gained
    #: 0.2 points of continuity dev, added violations and cost about 7 ms at 100k: decision 0049)
    plain_depth: float = 1.0
    #: ... and its keyword search at least this many times as deep (the vector search at ``plain_depth``): a
    #: question's rarer words (names, places, numbers) find the utterance that says them, and with the typed readings
    #: that restate it (and their keyword match) taking the first places, the keyword order holds too few utterances
    #: for plain search's order to be hybrid search's over the raw utterances. What it reads past the role order's
    #: depth only places plain search's order (1.0, the default: as deep as the vector search; 2.0 gained 1 point of continuity dev
    #: accuracy, collapse dev level, and cost 27.1 -> 30.8 ms p50 at 100k, over the 30 ms target: decision 0054)
    plain_text_depth: float = 1.0
    #: plain search over the utterances reads its own vector and keyword search over what was said (the episodes, as
    #: deep as ``search`` reads), so that it orders the utterances as hybrid search over the raw utterances does;
    #: False: it reads the searches the role order shares with the typed readings and dialogue acts (their places
    #: crowd the utterances out of them: docs/decisions/0073)
    plain_said_search: bool = True
    #: called with every candidate the learned stage weighs and its feature rows (training and diagnostics), before
    #: the nudge (which then changes the shown ones' scores in place)
    observer: Callable[[Sequence[Item], Any], None] | None = None
    #: settle the intent with the learned role model (:class:`~mnemir.retrieve.learned.RoleModel`: the intent's
    #: distribution over kinds and how well each family of memories matches, heard together), which also gives the
    #: intent's confidence; False: the hand rules of :func:`~mnemir.retrieve.evidence.settle`
    learned_roles: bool = True
    #: the role model; None = the one shipped with the package named by ``role_model_file``
    role_model: RoleModel | None = None
    #: which shipped role model (a file of ``retrieve/data/``) recall uses when ``role_model`` is None:
    #: ``role_model.json`` learned from the collapse train stores typed by hand and the continuity train
    #: conversations; ``role_model_e2e.json`` also from the collapse train scenarios built through ``remember``
    #: (decision 0128: collapse dev end to end 13 won / 8 lost but typed 1 / 4, so not the default)
    role_model_file: str = ROLE_MODEL
    #: ... over a conversation between people (``among_people``), this shipped role model instead; None:
    #: ``role_model_file`` everywhere
    chat_role_model_file: str | None = None
    #: the answer's most likely family takes over from the intent's kind from this probability on
    role_switch: float = 0.5
    #: ... and the types of every family at least this likely are ranked as intended
    role_widen: float = 0.25
    #: let the role model settle the kind and types too (False: the hand rules settle them and the role model gives
    #: the confidence only)
    role_kinds: bool = True
    #: rank with the role model's confidence (how likely the answer's type is among the intended ones: what the
    #: fusion with plain search and the ruling out of a role read); False: the intent's own confidence stands
    role_confidence: bool = True
    #: ... in the fusion with plain search too (False, the default: plain search's weight follows the intent model's
    #: own confidence, as without the role model, so the role model never makes plain search count less; its
    #: confidence settles the intent and rules roles out. True measured the same on collapse and continuity dev:
    #: docs/decisions/0039)
    role_confidence_in_fusion: bool = False
    #: asked about someone ("my sister", "Ilse"), the memories of the top ``asked_person_depth`` x k that name only
    #: other people follow the rest, when one there names that person (:mod:`mnemir.retrieve.persons`,
    #: docs/decisions/0069)
    asked_person: bool = True
    asked_person_depth: float = 2.0
    #: ... but a transcript's turn ("Ruth: Arne clears my path": the user's words opening with a speaker's label, or
    #: a memory read from one) stays where it is: its speaker, whom no name in it need say, is one of the people it
    #: is about (dialogue QA train: decision 0078)
    transcript_turns_stay: bool = True
    #: ... and when a memory so moved is still in the top k because the answer was short, plain search's next
    #: utterances (as a short answer is filled) take the places before it (decision 0081)
    asked_person_fill: bool = True
    #: ... a memory that names the asked person only as who reports ("my dad says he was a carpenter", "我奶奶说她…")
    #: is about them: it counts as naming them (so the step runs) and is never moved (docs/decisions/0094)
    asked_person_reporters: bool = False
    #: ... a statement whose subject is the speaker and that tells of nobody else ("I'm at the shop by five") is about
    #: the user, another person than the one asked about: moved like a memory naming someone else; only in a
    #: conversation with the assistant, where "I" is the user (0094)
    asked_person_speaker: bool = False
    #: ... and the memories so moved leave the answer when fewer than k others remain, instead of filling it (0094)
    asked_person_out: bool = False
    #: ... a name the question uses that the memories use too counts as a person's, though no memory introduced it at
    #: the head of a clause ("What does Ottilie teach?", "老葛…") (0094)
    asked_person_names: bool = False
    #: ... a reading that names nobody ("she doesn't run long distances", "他习惯早上九点前…") is about the people the
    #: utterance it was read from names: a pronoun points back to the person the utterance introduced, so a reading
    #: cut from "My running mate Lin works late. She doesn't run long distances" is about Lin (docs/decisions/0111;
    #: off: continuity train 1 won / 0 lost, dialogue QA dev level, not isolated on continuity dev)
    asked_person_utterance: bool = False
    #: a question the query-kind model reads as asking about a past event (its likeliest kind, at least this
    #: probability) asks for no open work and no plan: where the intent, as the memories settled it, is one of
    #: ``event_not_work_kinds``, it gives way to a question of no family (every content type, no status filter), so
    #: what happened (a closed task, a report, a fact told at the time) is not barred or ranked below the work still
    #: ahead (1.0: off; decision 0076)
    event_reading: float = 0.5
    event_not_work_kinds: tuple[str, ...] = ("open_tasks", "plan")
    #: a question the query-kind model reads as asking about no present state (the kinds of ``PRESENT_KINDS``: a
    #: value now, a preference, open work, where a task stands, what comes next, what holds after a choice, together
    #: under this probability) is read as one that may ask about the past: what a lifecycle rule hides only "unless
    #: the past is asked about" (a memory replaced by a newer one, an utterance a later memory took back, the options
    #: a decision settled) stays findable, ranked and flagged. 0: off (docs/decisions/0093)
    past_unless_present: float = 0.0
    #: ... and then the intent's confidence is at most 1 - that probability: where the two readings disagree, plain
    #: search's order keeps more of the top k and no role is ruled out
    event_unsure: bool = True
    #: ... and the question is read as one about the past (as when its wording or a named period says so:
    #: replaced memories stay, flagged outdated). Measured, off: decision 0076
    event_past: bool = False
    #: asked what was decided, with one of the user's decisions in the top k: what was said before it, in another
    #: utterance, at least this close in meaning to it (cosine) stands for an option weighed before the choice and
    #: is left out with its utterance (``judgements.options_near_decision``; 1.0: off; decision 0081). 0.25: the
    #: deliberation is often worded far from the choice (0.45 -> 0.25 with ``decision_questions``: continuity dev
    #: 0.711 / 0.167 -> 0.718 / 0.160, 19 won / 3 lost; collapse dev level; 0.05 gained 8 more on continuity dev and
    #: cost 3 end-to-end collapse queries: docs/decisions/0091)
    decision_options: float = 0.25
    #: ... and an earlier decision of the user's that close to the latest one shown goes too (a later choice about
    #: the same thing replaces it)
    decision_earlier_choices: bool = True
    #: ... an earlier decision only at least this close (cosine) when that is above ``decision_options``: a later
    #: choice replaces an earlier one about the same thing, the options weighed are often worded far from the choice
    #: (0.0: as close as an option; docs/decisions/0091)
    decision_choices_close: float = 0.0
    #: ... the decision whose options go is the latest of the decisions shown at least this share as relevant to the
    #: question as the most relevant of them (0.0: the latest shown, whatever it is about; docs/decisions/0124)
    decision_governs_share: float = 0.0
    #: asked for a preference (the query-kind model's ``preference`` at least ``changed_stance_p``), with a statement
    #: of the user's in the top k that says their stance changed or how it stands now: the user's earlier preferences
    #: at least this close to it (cosine), from another utterance, are left out with their utterance
    #: (``judgements.stances_changed``; 1.0: off; docs/decisions/0111). Off: 0.0 won continuity dev 7 / lost 2
    #: (preference 0.703 -> 0.715), dialogue QA level, collapse dev typed isolation@3 0.8477 -> 0.8442
    changed_stance: float = 1.0
    changed_stance_p: float = 0.5
    #: a question the learned decision-question reader (:mod:`mnemir.retrieve.decision_questions`: the question's
    #: vector and words, fitted on the continuity train checkpoints) reads as asking what was decided counts as
    #: asking about a choice even when the query-kind softmax does not (docs/decisions/0091)
    decision_questions: bool = True
    #: called with the role model's feature row of each query (training and diagnostics)
    role_observer: Callable[[Any], None] | None = None
    #: the query-kind model (:mod:`mnemir.retrieve.query_kinds`); None = the one shipped with the package (another
    #: one measures a refit side by side on the same stores)
    query_kinds: QueryKinds | None = None

    def __post_init__(self) -> None:
        flags = ("learned", "fill_from_plain", "learned_roles", "role_confidence", "role_kinds",
                 "role_confidence_in_fusion", "open_work_follows_settled", "asked_person", "transcript_turns_stay",
                 "felt_episode_ruled_out", "plain_said_search", "event_unsure", "event_past", "asked_person_fill",
                 "asked_person_reporters", "asked_person_speaker", "asked_person_out", "asked_person_names",
                 "asked_person_utterance",
                 "decision_earlier_choices", "decision_questions", "plain_floor_felt", "plain_floor_chat_felt",
                 "chat_past", "ruling_follows_types", "plain_tail_said",
                 "felt_episode_moves_on", "felt_episode_moves_now", "talk_turns_stay",
                 "talk_no_assistant", "takers_beyond_pool", "chat_period_first_long", "felt_episodes_follow_types",
                 "felt_fill_as_feeling", "felt_aside_beside_calm", "felt_said_as_feeling")
        if any(not isinstance(getattr(self, f), bool) for f in flags):
            name = next(f for f in flags if not isinstance(getattr(self, f), bool))
            raise ValidationError(f"{name} must be true or false", field=name, value=getattr(self, name),
                                  allowed="a bool")
        if not isinstance(self.learned, bool):
            raise ValidationError("learned must be true or false", field="learned", value=self.learned,
                                  allowed="a bool")
        if self.ranker is not None and not isinstance(self.ranker, LearnedRanker):
            raise ValidationError("ranker must be a LearnedRanker or None", field="ranker",
                                  value=type(self.ranker).__name__, allowed="LearnedRanker (LearnedRanker.from_dict)")
        if self.chat_ranker_model is not None and (not isinstance(self.chat_ranker_model, str) or not re.fullmatch(
                r"[A-Za-z0-9_.\-]+\.json", self.chat_ranker_model)):
            raise ValidationError("chat_ranker_model must name a model file of retrieve/data or be None",
                                  field="chat_ranker_model", value=self.chat_ranker_model,
                                  allowed="a file name such as learned_ranker.json, or None")
        if not isinstance(self.ranker_model, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+\.json", self.ranker_model):
            raise ValidationError("ranker_model must name a model file of retrieve/data", field="ranker_model",
                                  value=self.ranker_model, allowed="a file name such as learned_ranker.json")
        for name in ("role_model_file", "chat_role_model_file"):
            value = getattr(self, name)
            if (value is not None or name == "role_model_file") and (
                    not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+\.json", value)):
                raise ValidationError(f"{name} must name a model file of retrieve/data", field=name, value=value,
                                      allowed="a file name such as role_model.json")
        if self.role_model is not None and not isinstance(self.role_model, RoleModel):
            raise ValidationError("role_model must be a RoleModel or None", field="role_model",
                                  value=type(self.role_model).__name__, allowed="RoleModel (RoleModel.from_dict)")
        if self.query_kinds is not None and not isinstance(self.query_kinds, QueryKinds):
            raise ValidationError("query_kinds must be a QueryKinds or None", field="query_kinds",
                                  value=type(self.query_kinds).__name__, allowed="QueryKinds (QueryKinds.from_json)")
        if self.role_observer is not None and not callable(self.role_observer):
            raise ValidationError("role_observer must be callable or None", field="role_observer",
                                  value=type(self.role_observer).__name__, allowed="a callable(row)")
        if self.observer is not None and not callable(self.observer):
            raise ValidationError("observer must be callable or None", field="observer",
                                  value=type(self.observer).__name__, allowed="a callable(items, rows)")
        if self.chat_tail_said is not None and not isinstance(self.chat_tail_said, bool):
            raise ValidationError("chat_tail_said must be true, false or None", field="chat_tail_said",
                                  value=self.chat_tail_said, allowed="a bool or None")
        if self.plain_ties not in ("signals", "id"):
            raise ValidationError("plain_ties must be 'signals' or 'id'", field="plain_ties", value=self.plain_ties,
                                  allowed=["signals", "id"])
        for name, low, high in (("plain_weight", 0.0, 10.0), ("unsure_plain_weight", 0.0, 10.0),
                                ("confident_intent", 0.0, 1.0), ("plain_share", 0.0, 1.0),
                                ("unsure_plain_share", 0.0, 1.0), ("plain_tail_share", 0.0, 1.0),
                                ("role_switch", 0.0, 1.0), ("role_widen", 0.0, 1.0),
                                ("plain_text_weight", 0.0, 10.0), ("ruled_out_cover", 0.0, 1.0),
                                ("plain_score_weight", 0.0, 10.0),
                                ("plain_assistant_weight", 0.0, 1.0), ("plain_depth", 1.0, 10.0),
                                ("felt_episode_calm", 0.0, 1.0), ("felt_episode_event_kinds", 0.0, 1.0),
                                ("felt_calm_answers", 0.0, 1.0),
                                ("past_unless_present", 0.0, 1.0),
                                ("plain_text_depth", 1.0, 10.0), ("asked_person_depth", 1.0, 10.0),
                                ("event_reading", 0.0, 1.0), ("decision_options", 0.0, 1.0),
                                ("decision_choices_close", 0.0, 1.0), ("decision_governs_share", 0.0, 1.0),
                                ("changed_stance", 0.0, 1.0), ("changed_stance_p", 0.0, 1.0),
                                ("floor_confident", 0.0, 1.0),
                                ("chat_confident_intent", 0.0, 1.0), ("chat_plain_share", 0.0, 1.0),
                                ("chat_tail_share", 0.0, 1.0), ("plain_tail_said_below", 0.0, 1.0),
                                ("chat_text_weight", 0.0, 10.0), ("chat_score_weight", 0.0, 10.0),
                                ("chat_text_weight_long", 0.0, 10.0),
                                ("chat_score_weight_long", 0.0, 10.0), ("chat_plain_share_long", 0.0, 1.0),
                                ("chat_neighbour_weight", 0.0, 1.0),
                                ("talk_among_people", -6.0, 6.0), ("frame_ties_said_within_h", 0.0, 720.0)):
            value = getattr(self, name)
            if value is None and (name.startswith("chat_") or name in ("plain_tail_said_below", "talk_among_people")):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValidationError(f"{name} must be a number in [{low:g}, {high:g}]", field=name, value=value,
                                      allowed=f"[{low:g}, {high:g}]")
        for name in ("candidates", "graph_seeds", "present_limit", "weak_fallback", "fusion_k", "talk_depth",
                     "talk_least", "chat_long_turns", "chat_fusion_k_long"):
            value = getattr(self, name)
            if value is None and name == "chat_fusion_k_long":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"{name} must be a positive integer", field=name, value=value,
                                      allowed="an integer >= 1")
        for name in ("plain_floor", "plain_floor_slack", "plain_floor_chat", "plain_tail_from"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                raise ValidationError(f"{name} must be an integer in [0, 100]", field=name, value=value,
                                      allowed="an integer in [0, 100]")

    def with_(self, **changes: Any) -> RecallConfig:
        return replace(self, **changes)


@dataclass
class RecallHit:
    """One recalled memory: what it is for (role), how strongly (score) and why (reasons)."""

    memory: MemIR
    score: float
    role: str
    reasons: list[str] = field(default_factory=list)
    #: unconfirmed, uncertain (disputed), outdated, faded, other_frame, weak
    flags: list[str] = field(default_factory=list)
    #: how it was reached when by a relationship: "step_of from mem_..."
    via: str | None = None
    #: the utterance (Episode) this memory was read from, when it says more than the memory
    quote: MemIR | None = None

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def unconfirmed(self) -> bool:
        return "unconfirmed" in self.flags

    @property
    def uncertain(self) -> bool:
        return "uncertain" in self.flags

    def to_dict(self) -> dict[str, Any]:
        return {"memory": self.memory.to_dict(), "score": self.score, "role": self.role, "reasons": self.reasons,
                "flags": self.flags, "via": self.via,
                "quote": self.quote.to_dict() if self.quote is not None else None}


@dataclass
class Recall:
    """The result of :func:`recall`: the intent used, the ranked hits and the role-labelled context."""

    query: str
    intent: Any
    hits: list[RecallHit]
    context: Context
    #: true when nothing of the intended types was good enough and other types were used (roles kept), or when
    #: memories under the floors are shown, flagged weak (nothing passed them, or too few did)
    widened: bool = False
    notes: list[str] = field(default_factory=list)

    def by_role(self, role: str) -> list[RecallHit]:
        return [h for h in self.hits if h.role == role]

    def to_dict(self) -> dict[str, Any]:
        intent = self.intent.to_dict() if hasattr(self.intent, "to_dict") else self.intent
        return {"query": self.query, "intent": intent, "hits": [h.to_dict() for h in self.hits],
                "context": self.context.to_dict(), "widened": self.widened, "notes": list(self.notes)}

    def __len__(self) -> int:
        return len(self.hits)


def recall(store: Store, embedder: Embedder, ontology: Ontology, intent: IntentLike, scope: Selection, *,
           k: int = 5, now: datetime, config: RecallConfig | None = None) -> Recall:
    """The k memories that serve ``intent`` inside ``scope``, ranked by role. ``scope`` carries the user,
    agent, session and statuses (its types and where are ignored: the intent decides those). Every read sees one
    committed state (one read transaction: the store's ``snapshot``), whatever is written meanwhile."""
    k = check_k(k)
    now = ensure_aware(now, "now")
    config = config or RecallConfig()
    scope = scope.with_(types=None, where=None)
    store = tenant_reads(store, scope.user_id)  # every read by id stays inside the user's memories
    with store.snapshot():
        return _recall(store, embedder, ontology, intent, scope, k, now, config)


@dataclass
class _Query:
    """What one recall call knows about its query, built once and handed to every stage instead of a dozen
    parameters: the reads (``store``, ``scope``, the query vector), the intent and its filter (``where``), the clock
    (``now``; ``past``: the question asks about the past), the settings, the candidates (``pool``, which the graph
    walk grows), plain search's order over them (``plain``: id -> rank; ``groups``: id -> its utterance), the frames,
    and what a named exclusion bars (id -> reason). The intent and ``where`` change once, when the memories settle an
    unsure intent (:meth:`settle_intent`), before anything is ranked."""

    store: Store
    scope: Selection
    ontology: Ontology
    config: RecallConfig
    intent: IntentLike
    where: FilterNode | None
    now: datetime
    k: int
    qvec: Vectors
    past: bool
    #: what the question asks for, read by a learned model from ``qvec`` (:mod:`mnemir.retrieve.query_kinds`)
    reading: QueryReading = field(default_factory=QueryReading)
    pool: dict[str, Candidate] = field(default_factory=dict)
    plain: dict[str, int] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    #: the user's decisions read with what they settled, for a question about a choice (``decisions_in_reach``)
    decisions: list[str] = field(default_factory=list)
    frames: FrameState = field(default_factory=FrameState)
    barred: dict[str, str] = field(default_factory=dict)
    #: the intent model's own confidence, before the memories settled it
    asked_confidence: float = 1.0
    #: one of plain search's first three utterances is a turn of a transcript of people talking (:func:`_among_people`)
    among_people: bool = False
    #: ... read so from the learned talk reading of its turns, no transcript mark found (``talk_among_people``)
    talk: bool = False
    #: typed memory id -> the utterance (episode) it was read from, for the folded episodes
    said: dict[str, MemIR] = field(default_factory=dict)
    #: what plain search reads past the role order's depth (``RecallConfig.plain_depth``), folded and barred as the
    #: pool is: it places plain search's order and may come back through it, it never enters the role order
    deep: dict[str, Candidate] = field(default_factory=dict)
    #: what a bar set aside only because the intent asked for open work (id -> (candidate, reason, from plain search's
    #: deeper reading)): given back when the memories settle the intent on a kind that asks for no work
    #: (``RecallConfig.open_work_follows_settled``)
    work_barred: dict[str, tuple[Candidate, str, bool]] = field(default_factory=dict)

    @property
    def ranking(self) -> RankingConfig:
        return self.config.ranking

    def type_role(self, record: MemIR) -> str:
        return self.ontology.resolve(record.type).role if record.type in self.ontology else "answer"

    def role(self, c: Candidate) -> str:
        """The role this candidate plays for the query (its type's role, moved by its status and age)."""
        return role_of(c.record, self.intent, self.now, self.ranking, self.type_role(c.record))

    def gate(self, c: Candidate, role: str, filler: bool = False) -> str | None:
        return gate(c, role, self.intent, self.where, self.now, self.ranking, filler=filler)

    def is_setting(self, mid: str) -> bool:
        """The frame in force: shown apart, as the setting (not a hit unless the question asks about it)."""
        return self.frames.active is not None and mid == self.frames.active.id

    def scored(self, c: Candidate, role: str, floor_off: bool = True) -> Scored | None:
        return score_candidate(c, role, self.intent, self.where, self.now, self.ranking, self.frames, past=self.past,
                               floor_off=floor_off)

    def score(self, c: Candidate, floor_off: bool = False, filler: bool = False) -> Scored | None:
        """``floor_off``: scored even under the relevance floor; ``filler``: judged as a weak filler of a thin
        answer. None when a role gate holds it out or it is the setting in force."""
        role = self.role(c)
        if self.gate(c, role, filler=filler) is not None:
            return None
        if self.is_setting(c.id) and self.intent.kind != "frame":
            return None  # shown apart, as the setting
        return self.scored(c, role, floor_off=floor_off)

    def bar(self, reasons: Mapping[str, str]) -> None:
        """Set these candidates aside, each with its named reason."""
        for mid, reason in reasons.items():
            self.barred[mid] = reason
            self.pool.pop(mid, None)
            self.deep.pop(mid, None)

    def candidate(self, mid: str) -> Candidate | None:
        """A candidate of the role order or of plain search's deeper reading (which joins the pool when it is
        shown through plain search)."""
        c = self.pool.get(mid)
        if c is None and mid in self.deep:
            c = self.pool[mid] = self.deep.pop(mid)
        return c

    def settle_intent(self, settled: Settled) -> None:
        self.asked_confidence = float(self.intent.confidence)
        if settled.switched:
            self.intent, self.where = _switched(self.intent, settled), None
            if self.intent.kind not in TASK_KINDS:  # open work is no longer asked for: what only that barred is back
                self._give_back_work()
        if settled.confidence is not None and settled.confidence != self.intent.confidence:
            self.intent = _with_confidence(self.intent, settled.confidence)

    def asks_no_work(self) -> None:
        """The intent as a question of no family (:func:`_not_work`), and what a bar set aside only because open
        work was asked for is back."""
        self.intent, self.where = _not_work(self.intent), None
        self._give_back_work()

    def unsure_at_most(self, cap: float) -> None:
        """The intent's confidence (and the intent model's own, which weighs plain search in the fusion) at most
        ``cap``."""
        self.asked_confidence = min(self.asked_confidence, cap)
        if float(self.intent.confidence) > cap:
            self.intent = _with_confidence(self.intent, cap)

    def _give_back_work(self) -> None:
        for mid, (c, reason, deeper) in self.work_barred.items():
            if self.barred.get(mid) == reason:
                del self.barred[mid]
                (self.deep if deeper else self.pool)[mid] = c

    def kept_places(self) -> int:
        """How many of plain search's best keep places in the top k: ``plain_share`` of it, and more the less sure
        the intent is (``unsure_plain_share``); past the first ``plain_tail_from`` places, ``plain_tail_share`` of
        them (when that is more)."""
        config = self.config
        share = min(config.plain_share + config.unsure_plain_share * (1.0 - float(self.intent.confidence)), 1.0)
        return depth_kept_places(self.k, share, config.plain_tail_share, config.plain_tail_from)

    def answered(self, kept: Sequence[Scored]) -> bool:
        """The top k holds a memory of an intended type in an answer role, not a weak filler: only then may a
        confident intent rule a role out (with no such answer, what plain search found is the best there is)."""
        return any(s.record.type in self.intent.types and s.role in ANSWER_ROLES and "weak" not in s.flags
                   for s in kept[: self.k])

    def asks_what_happened(self) -> bool:
        """The query-kind model reads a question about what happened (``EVENT_KINDS``) with at least
        ``RecallConfig.felt_episode_event_kinds`` probability together."""
        p = sum(self.reading.probabilities.get(kind, 0.0) for kind in EVENT_KINDS)
        return p >= self.config.felt_episode_event_kinds and bool(self.reading.probabilities)

    def calm_beside(self, c: Candidate) -> bool:
        """A calm memory of the same thing as ``c`` (not said with a feeling, of a type that states something, from
        another utterance) is a candidate, at least ``RecallConfig.felt_episode_calm`` similar to it."""
        floor = self.config.felt_episode_calm
        if floor <= 0.0:
            return True
        group = self.groups.get(c.id, utterance_of(c.record))
        margin = self.config.felt_calm_answers  # the calm memory answers the question about as well (1.0: any)
        answers = c.similarity - margin if margin < 1.0 else -float("inf")
        calm = [o.id for o in self.pool.values() if not o.felt and o.record.type not in (EPISODE, *NO_READING)
                and self.groups.get(o.id, utterance_of(o.record)) != group and o.similarity >= answers]
        return c.id in calm_neighbours(self.store, [c.id], calm, floor)

    def ruled_out(self, c: Candidate, role: str, answered: bool) -> str | None:
        """Why a confident intent rules this candidate out of plain search's places, or None (never an utterance,
        unless only a feeling was read from it: :func:`_felt_episode_ruled_out`)."""
        if not answered:
            return None
        if c.record.type == EPISODE:
            why = _felt_episode_ruled_out(c, self.intent, self.config, self.past or self.asks_what_happened())
            return why if why is None or self.calm_beside(c) else None
        return _ruled_out(role, self.intent, self.config)


def _recall(store: Store, embedder: Embedder, ontology: Ontology, intent: IntentLike, scope: Selection, k: int,
            now: datetime, config: RecallConfig) -> Recall:
    qvec = embedder.embed_query(intent.query)
    reading = (read_query(qvec, embedder.model_id) if config.query_kinds is None
               else config.query_kinds.read(qvec, embedder.model_id))
    if config.decision_questions and not reading.asks_decision and reading.probabilities \
            and asks_decision(qvec, intent.query, embedder.model_id):
        reading = reading.with_asked(DECISION)
    asked, intent = intent, confirm_open_work(intent, reading)
    event = _asks_past_event(reading, config) if getattr(intent, "kinds", ()) else None
    types = tuple(ontology.resolve(t).name for t in intent.types)
    where = parse_filter(intent.where, ontology, types) if intent.where else None
    past = (asks_about_past(intent.query, intent.time_range, now) or (event is not None and config.event_past)
            or _asks_no_present(reading, config))
    q = _Query(store, scope, ontology, config, intent, where, now, k, qvec, past, reading)
    quotes = _candidates(q, types)
    settled = _settle(q)
    notes = [settled.note] if settled.note else []
    if intent.kind != asked.kind:
        notes.insert(0, f"read as {intent.kind}, not {asked.kind}: the query-kind model reads a question about "
                        f"where a task stands ({reading.describe()})")
    q.settle_intent(settled)
    if event is not None and q.intent.kind in config.event_not_work_kinds:
        notes.append(f"read as a question of no family, not {q.intent.kind}: the query-kind model reads a question "
                     f"about a past event ({reading.describe()})")
        q.asks_no_work()
        if config.event_unsure:
            q.unsure_at_most(1.0 - event)
    kept, judged, walk_notes, replaced_notes, weak_notes = _role_order(q)
    notes += replaced_notes
    kept = _nudged(q, kept, judged)
    notes += weak_notes
    reached = _reached_decisions(q, judged)
    kept = decision_first(next_step_first(kept, q.reading), q.reading, reached)
    if not q.past:  # asked for a preference: a stance the user has since changed is no answer
        changed = stances_changed(store, kept, {**q.deep, **q.pool}, q.groups, q.reading, k, config.changed_stance,
                                  config.changed_stance_p)
        kept = _left_out(q, kept, changed, notes, "of a stance changed since left out")
    if not q.past:  # asked about a choice: the options weighed before the decision shown first are no answer
        options = options_near_decision(store, kept, {**q.deep, **q.pool}, q.groups, q.reading, k,
                                        config.decision_options, config.decision_earlier_choices,
                                        config.decision_choices_close, config.decision_governs_share)
        kept = _left_out(q, kept, options, notes, "of options weighed before the decision left out")
    kept, ruled_out, fusion_notes = _fused(q, kept, judged)
    notes += fusion_notes
    kept = decision_keeps_place(one_slot(kept, ruled_out, quotes), reached, k, q.barred)
    if _fusion_on(config) and config.fill_from_plain and len(kept) < k:
        kept += _plain_fillers(q, kept, judged, ruled_out)
    moved: set[str] = set()
    if config.asked_person:
        kept, person_note, moved = _asked_person_first(q, kept)
        notes += [person_note] if person_note else []
        if moved and config.asked_person_fill and _fusion_on(config) and config.fill_from_plain \
                and any(s.record.id in moved for s in kept[:k]):
            # the memories about other people still in the top k only because the answer was short: plain search's
            # next utterances take their places first
            head = [s for s in kept if s.record.id not in moved]
            more = _plain_fillers(q, head[:k], judged, ruled_out, shown=[s for s in kept if s.record.id in moved])
            if more:
                kept = [*head[:k], *more, *(s for s in kept if s.record.id in moved), *head[k:]]
        if moved and config.asked_person_out:
            kept, out_note = _moved_out(kept, moved, k)
            notes += [out_note] if out_note else []
    floor, felt = config.plain_floor, config.plain_floor_felt
    if config.plain_floor_chat > 0 and q.among_people:
        floor, felt = max(floor, config.plain_floor_chat), felt or config.plain_floor_chat_felt
    if floor > 0 and _fusion_on(config):
        kept, floor_notes, stood_in = _plain_floor(q, kept, judged, ruled_out, moved, floor=floor, felt=felt)
        notes = [n for n in notes if not any(mid in n for mid in stood_in)] + floor_notes
    tail = q.config  # over a conversation between people, its own tail (chat_tail_*)
    if tail.plain_tail_said and tail.plain_tail_share > 0 and k > tail.plain_tail_from and _fusion_on(tail):
        # past the head: plain search's kept places there hold what was said where a reading of it is ruled out
        kept, tail_notes, stood_in = _plain_floor(q, kept, judged, ruled_out, moved, floor=q.kept_places(),
                                                  felt=True, tail=True)
        notes = [n for n in notes if not any(mid in n for mid in stood_in)] + tail_notes
    widened, widen_notes = _widening(kept, q.intent, k)
    widened = widened or any("weak" in s.flags for s in kept[:k])
    hits = [_hit(s) for s in kept[:k]]
    _quote(store, hits, quotes)
    notes += widen_notes + walk_notes
    if not hits:
        notes.append("no stored memory in this scope is close enough to the query")
    context = Context.build(q.intent.query, now, hits, q.frames.active, notes)
    return Recall(q.intent.query, q.intent, hits, context, widened, notes)


#: the question kinds (:mod:`mnemir.retrieve.query_kinds`) that ask what is so of someone: a fact about a person, its
#: corrected value, what they like
ASKED_PERSON_KINDS = ("other_person", "corrected_fact", "preference")


def _left_out(q: _Query, kept: list[Scored], reasons: Mapping[str, str], notes: list[str], why: str) -> list[Scored]:
    """Bar the memories in ``reasons`` from this query, say so once in ``notes``, and return ``kept`` without them."""
    if not reasons:
        return kept
    q.bar(reasons)
    notes.append(f"{len(reasons)} memor{'y' if len(reasons) == 1 else 'ies'} {why}")
    return [s for s in kept if s.record.id not in reasons]


def _moved_out(kept: list[Scored], moved: set[str], k: int) -> tuple[list[Scored], str | None]:
    """The memories the asked-person step moved leave the answer where they would still be among the first k (fewer
    than k others remain): what names only someone else is no answer about the person asked about, however short the
    answer (docs/decisions/0094). Past the first k they keep their places."""
    rest = [s for s in kept if s.record.id not in moved]
    if len(rest) >= k:
        return [*rest[:k], *(s for s in kept if s.record.id in moved), *rest[k:]], None
    gone = sum(1 for s in kept[:k] if s.record.id in moved)
    if not gone:
        return kept, None
    return rest, f"{gone} memor{'y' if gone == 1 else 'ies'} about other people left out of a short answer"


def _asked_person_first(q: _Query, kept: list[Scored]) -> tuple[list[Scored], str | None, set[str]]:
    """Asked about someone, the memories near the top that name only other people follow the rest
    (:func:`~mnemir.retrieve.persons.asked_person_order`), when the question asks for what is so of someone
    (the query-kind model's likeliest kind: :data:`ASKED_PERSON_KINDS`), not for work, a plan or an event, which
    involve other people as a matter of course ("what's left to do for Dad's operation?")."""
    top = max(q.reading.probabilities.items(), key=lambda kv: kv[1], default=None)
    if top is not None and top[0] not in ASKED_PERSON_KINDS:
        return kept, None, set()
    depth = max(q.k, round(q.k * q.config.asked_person_depth))
    ids = [s.record.id for s in kept]
    texts = {s.record.id: s.record.text for s in kept[:depth]}
    entities = {s.record.id: str(s.record.properties["entity"]).lower() for s in kept[:depth]
                if isinstance(s.record.properties.get("entity"), str)}
    known = [c.record.text for c in q.pool.values()]
    # a transcript's turn (the user's words opening with a speaker's label) is about its speaker too: never moved;
    # a transcript, as on the write side, is where two labels or more each open two of the user's memories or more
    labels = {mid: found[0] for mid, c in q.pool.items() if c.record.metadata.source.speaker == "user"
              and (found := speaker_label(c.record.text)) is not None} if q.config.transcript_turns_stay else {}
    counts = Counter(labels.values())
    transcript = sum(1 for n in counts.values() if n >= 2) >= 2
    spoken = {s.record.id for s in kept[:depth] if transcript and s.record.metadata.source.speaker == "user"
              and speaker_label(s.record.text) is not None}
    if q.talk and q.config.talk_turns_stay:  # talk between people with no speaker named: any turn may be the asked
        # person's own ("I" is whoever speaks, and no label says who), so none is moved for naming only others
        spoken |= {s.record.id for s in kept[:depth] if s.record.metadata.source.speaker == "user"}
    # "I" is the user only in a conversation with the assistant: in a record of people talking (a transcript, or
    # every turn said by the user with no assistant turn) "I" is whoever speaks
    with_assistant = any(c.record.metadata.source.speaker == "assistant" for c in q.pool.values())
    positions, note, others = asked_person_order(ids, texts, q.intent.query, q.k, depth, known, entities, spoken,
                                                 reporters=q.config.asked_person_reporters,
                                                 speaker_is_other=q.config.asked_person_speaker and with_assistant
                                                 and not transcript and not q.among_people,
                                                 question_names=q.config.asked_person_names,
                                                 utterances=_utterance_texts(q, kept[:depth])
                                                 if q.config.asked_person_utterance else None)
    if q.config.asked_person_out:  # every memory naming only other people, those already last in the head too
        return [kept[i] for i in positions], note, {ids[i] for i in others}
    # the memories moved after the rest: the last run of the head's positions (each run keeps its order)
    head = min(depth, len(ids))
    start = next((j for j in range(1, head) if positions[j] < positions[j - 1]), head)
    return [kept[i] for i in positions], note, {ids[i] for i in positions[start:head]}


def _utterance_texts(q: _Query, head: list[Scored]) -> dict[str, str]:
    """Each reading of ``head`` (a memory read from an utterance) -> the text of that utterance."""
    of = {s.record.id: u for s in head if (u := utterance_of(s.record)) != s.record.id}
    known = {mid: c.record.text for mid, c in {**q.deep, **q.pool}.items()}
    missing = [u for u in dict.fromkeys(of.values()) if u not in known]
    if missing:
        known.update((r.id, r.text) for r in q.store.fetch(missing))
    return {mid: known[u] for mid, u in of.items() if u in known}


def _candidates(q: _Query, types: tuple[str, ...]) -> dict[str, MemIR]:
    """Fill ``q.pool`` (with plain search's order over it, read before episodes are folded) and set aside what a
    named lifecycle fact bars; read the frames. Returns the quotes: typed memory id -> the utterance it was read from."""
    intent, now, past = q.intent, q.now, q.past
    full: dict[str, Candidate] = {}
    q.pool = pool = _gather(q.store, q.scope, intent, types, q.where, q.qvec, now,
                            max(q.config.candidates, 4 * q.k), q.config, q.deep, full)
    deep = q.deep  # what plain search reads past the role order's depth; ``full``: the role order's candidates
    # with their ranks in that deeper reading (the role order itself reads the ranks of its own depth)
    q.decisions = decisions_in_reach(q.store, q.scope, pool, q.qvec, intent.query, q.reading)  # read with what it settled
    # plain search over the utterances, read before episodes are folded (a past period the question names first):
    # its own searches over what was said, as hybrid search over the raw utterances reads them
    known = {**deep, **pool, **full}
    said = (said_orders(q.store, q.scope, intent.query, q.qvec, q.k, q.config, known, q.deep)
            if q.config.plain_said_search else None)
    utterances = plain_group_ranks(known, _past_period(intent, now), q.config.plain_text_weight,
                                   q.config.plain_assistant_weight, orders=said, ties=q.config.plain_ties,
                                   score_weight=q.config.plain_score_weight)
    q.among_people = _among_people(utterances, known)
    if not q.among_people and _talk_among_people(utterances, known, q.config):
        q.among_people = q.talk = True
    if q.among_people:  # a conversation between people: its own settings from here on (RecallConfig.chat_*)
        before = q.config
        q.config = _between_people(q.config)
        period_first, rrf_k = True, PLAIN_RRF_K
        if _long_set(q.config) and q.store.count(q.scope.with_(types=(EPISODE,), where=None)) \
                >= q.config.chat_long_turns:
            q.config, period_first, rrf_k = _over_long_talk(q.config)
        if q.config.chat_past:
            q.past = past = True
        if (q.config.plain_text_weight, q.config.plain_score_weight, period_first, rrf_k) \
                != (before.plain_text_weight, before.plain_score_weight, True, PLAIN_RRF_K) \
                or q.config.chat_neighbour_weight > 0:
            # its plain search weighs the keyword order (and the turns beside each) as set there: placed again over
            # the same searches
            utterances = plain_group_ranks(known, _past_period(intent, now), q.config.plain_text_weight,
                                           q.config.plain_assistant_weight, orders=said, ties=q.config.plain_ties,
                                           score_weight=q.config.plain_score_weight, period_first=period_first,
                                           rrf_k=rrf_k, neighbour_weight=q.config.chat_neighbour_weight)
    folded = fold_episodes(q.store, q.scope, pool, past, q.qvec, q.ranking.felt_beside_calm)
    q.plain = plain_ranks(pool, utterances)
    q.groups = {mid: utterance_of(c.record) for mid, c in pool.items()}
    quotes = dict(folded.quotes)
    if deep:  # what only plain search's deeper reading found: folded alike, one memory per group not in the pool
        deep_folded = fold_episodes(q.store, q.scope, deep, past, q.qvec, q.ranking.felt_beside_calm)
        for mid in [m for m in deep if m in pool]:
            del deep[mid]
        q.bar(deep_folded.excluded)
        held = set(q.groups.values())
        more = {mid: rank for mid, rank in plain_ranks(deep, utterances).items()
                if utterance_of(deep[mid].record) not in held}
        q.plain.update(more)
        q.groups.update((mid, utterance_of(c.record)) for mid, c in deep.items())
        quotes.update((mid, e) for mid, e in deep_folded.quotes.items() if mid not in quotes)
        for mid in [m for m in deep if m not in more]:
            del deep[mid]  # a group the pool stands for already
    q.bar(folded.excluded)  # an utterance whose readings were all replaced is no answer either
    both = {**deep, **pool}
    lifecycle = {mid: reason for mid, c in both.items()
                 if (reason := hard_exclusion(c.record, intent, now, past)) is not None}
    asked = assistant_questions(both) if intent.kind in TASK_KINDS else {}  # work asked about: a question is no answer
    done = completed_elsewhere(q.store, both) if intent.kind == "open_tasks" else {}
    if q.config.reports_not_open and intent.kind == "open_tasks":
        done = {**reports_of_closed_work(q.store, both), **done}
    if q.config.open_work_follows_settled:  # what bars only because open work was asked for: held until settled
        q.work_barred = {mid: (both[mid], reason, mid in deep) for mid, reason in {**lifecycle, **asked, **done}.items()
                         if mid not in lifecycle or hard_exclusion(both[mid].record, _not_open_work(intent), now,
                                                                   past) is None}
    q.bar(lifecycle)
    margin = q.config.taken_back_margin
    if q.config.current_value_margin is not None \
            and q.reading.probabilities.get(CURRENT_VALUE, 0.0) >= q.config.current_value_p:
        margin = q.config.current_value_margin
    taken = taken_back(q.store, both, past, margin, q.qvec if q.config.takers_beyond_pool else None)
    if q.config.taken_back_keeps_choices and q.reading.asks_decision:
        # asked what was decided, a choice read from a turn that a later correction took back in part ("settled on
        # the Ashby quote, they start on the 4th" ... "they start on the 6th") is still the choice: the correction
        # replaced the value it names, not the choice told beside it
        taken = {mid: why for mid, why in taken.items()
                 if not (both[mid].record.type != EPISODE and both[mid].record.metadata.source.speaker == "user"
                         and states_decision(both[mid].record))}
    for mid in taken:
        q.work_barred.pop(mid, None)  # a correction took it back: barred whatever is asked
    q.bar({**taken, **asked})
    if not past:  # asked about a choice: the options a decision in reach settled are no answer
        q.bar(settled_by(q.store, both, q.decisions))
    q.bar(done)
    if q.config.report_stands_for_task is not None and intent.kind == "task_status":
        q.bar(reported_tasks(q.store, both, past, q.config.report_stands_for_task))
    q.frames = frames = _frames(q.store, q.scope, now, pool, q.config.frame_ties_said_within_h)
    if "ContextualFrame" in intent.types and frames.active is not None and frames.active.id not in pool:
        pool[frames.active.id] = Candidate(frames.active)  # the frame in force may answer "what is this about?"
        _fill_similarity(q.store, pool, [frames.active.id], q.qvec)
    q.said = dict(quotes)
    if q.config.felt_episodes_follow_types:
        _felt_episodes_aside(q)
    return quotes


def _felt_episodes_aside(q: _Query) -> None:
    """An utterance from which only a feeling was read is that feeling, said: it joins the role order only where
    its feeling would (``RecallConfig.felt_episodes_follow_types``). A confident intent whose types hold no feeling
    (a calm question, not about the past or about what happened) reads it as the typed store reads the feeling: not
    a candidate of the role order; it stays in plain search's deeper reading, where :meth:`_Query.ruled_out` judges
    it as before."""
    intent = q.intent
    if FEELING in intent.types or intent.kind == "emotion" or q.past or q.asks_what_happened() \
            or float(intent.confidence) < q.config.confident_intent:
        return
    felt = [mid for mid, c in q.pool.items() if c.record.type == EPISODE and c.felt]
    if q.config.felt_aside_beside_calm:  # with no calm memory of the same thing, the utterance is the evidence
        felt = [mid for mid in felt if q.calm_beside(q.pool[mid])]
    for mid in felt:
        q.deep[mid] = q.pool.pop(mid)


def _role_order(q: _Query) -> tuple[list[Scored], dict[str, Scored], list[str], list[str], list[str]]:
    """The rules' order: score by role, judge the memories against each other, follow relationships, let
    replacements stand in, drop what was replaced, top up a thin answer. Returns (kept, every judged memory by id,
    the walk's notes, the notes on what was replaced, the notes on weak fillers)."""
    ranked = _rank(q)
    scored_ids = {s.record.id for s in ranked}  # judged already: the top-up never brings one back
    judged = {s.record.id: s for s in ranked}
    ranked = focus_status(ranked, q.intent.kind, q.ranking, q.intent.confidence)
    ranked, walk_notes = _follow(q, ranked)
    if not q.past:
        replacements_stand_in(ranked)
    open_steps_first(ranked, q.intent.kind)
    lift_present(ranked, q.intent.kind, q.ranking)
    kept, replaced_notes = drop_replaced(order_hits(above_floor(ranked, q.ranking)), q.past)
    seen = scored_ids | {s.record.id for s in ranked}  # and what the graph walk added
    kept, weak_notes = _top_up(q, kept, ranked, seen)
    judged.update((s.record.id, s) for s in ranked)
    return kept, judged, walk_notes, replaced_notes, weak_notes


def _nudged(q: _Query, kept: list[Scored], judged: Mapping[str, Scored]) -> list[Scored]:
    """The learned nudge re-sorts what passed the floors (the weak fillers after it keep their place) up to the head
    of a long list: the memories the top k can be drawn from. The observer sees every candidate it weighs."""
    config = q.config
    name = config.chat_ranker_model if q.among_people and config.chat_ranker_model else config.ranker_model
    ranker = (config.ranker or shipped_ranker(name)) if config.learned else None
    if ranker is None and config.observer is None:
        return kept
    full = config.observer is not None  # else only what the rules show needs its features (and a score)
    items = _learning_items(q, kept, judged, full)
    admitted = next((i for i, s in enumerate(kept) if "weak" in s.flags), len(kept))
    head = min(admitted, max(NUDGED_HEAD, 4 * q.k))
    rows = features(items, q.intent, q.now, only=None if full else head)
    if config.observer is not None:
        config.observer(items, rows)
    if ranker is not None and items:
        kept = _learned_order(items[:head], rows[:head], ranker, q.intent.kind, q.ranking) + list(kept[head:])
    return kept


def _fusion_on(config: RecallConfig) -> bool:
    """The fusion with plain search (off: the role order alone)."""
    return config.plain_weight > 0 or config.unsure_plain_weight > 0


def _fused(q: _Query, kept: list[Scored], judged: Mapping[str, Scored]
           ) -> tuple[list[Scored], dict[str, str], list[str]]:
    """The role order fused with plain hybrid search (reciprocal ranks; plain search's best keep their share of the
    top k). Returns (the fused order, what a confident intent ruled out, notes)."""
    config = q.config
    if not _fusion_on(config):
        return kept, {}, []
    extra, more_barred, ruled_out = _plain_extras(q, kept, judged)
    q.barred.update(more_barred)
    # the intent is a probability over roles: the less sure it is, the more plain search counts
    sure = q.intent.confidence if config.role_confidence_in_fusion else q.asked_confidence
    weight = config.plain_weight + config.unsure_plain_weight * (1.0 - float(sure))
    fused, notes = fuse(kept, q.plain, extra, k=q.k, role_weight=1.0, plain_weight=weight, fusion_k=config.fusion_k,
                        barred=q.barred, ruled_out=ruled_out, kept=q.kept_places(),
                        groups=q.groups)
    return fused, ruled_out, notes


# -- gathering --------------------------------------------------------------------------------------
def plain_utterance_order(store: Store, scope: Selection, intent: IntentLike, qvec: Vectors, now: datetime, k: int,
                          config: RecallConfig | None = None) -> list[str]:
    """Plain hybrid search's order over the utterance groups, as recall fuses it with its role order (each group by
    its id: an episode, or a memory added without one): for diagnostics and tests."""
    config = config or RecallConfig()
    scope = scope.with_(types=None, where=None)
    store = tenant_reads(store, scope.user_id)
    deep: dict[str, Candidate] = {}
    full: dict[str, Candidate] = {}
    pool = _gather(store, scope, intent, (), None, qvec, now, max(config.candidates, 4 * k), config, deep, full)
    known = {**deep, **pool, **full}
    said = (said_orders(store, scope, intent.query, qvec, k, config, known, deep) if config.plain_said_search
            else None)
    groups = plain_group_ranks(known, _past_period(intent, now), config.plain_text_weight,
                               config.plain_assistant_weight, orders=said, ties=config.plain_ties,
                               score_weight=config.plain_score_weight)
    return sorted(groups, key=lambda g: groups[g])


#: plain search over the utterances reads at least this many of each order, as ``search`` reads its candidates
#: (``FusionConfig.candidate_factor`` x k, at least 50)
SAID_DEPTH = 50


def said_orders(store: Store, scope: Selection, query: str, qvec: Vectors, k: int, config: RecallConfig,
                known: dict[str, Candidate], deep: dict[str, Candidate]
                ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The vector and keyword orders of what was said (the utterances, kept verbatim as episodes, and the memories
    added without one), as hybrid search over the raw utterances reads them: one vector search and one keyword
    search over the episodes, as deep as ``search`` reads (``SAID_DEPTH``, at least 4 x k; times ``plain_depth`` /
    ``plain_text_depth``), merged by score with the memories of ``known`` that stand for themselves. The typed
    readings and dialogue acts ``remember`` keeps beside each utterance take none of these searches' places (in the
    searches over every type they hold about half of them, and an utterance found by one order only lost the
    other's evidence). An episode found here and not in ``known`` joins plain search's deeper reading (``deep``)
    and ``known``: it places plain search's order and may come back through it, never into the role order.
    Each order is of (id, its similarity or BM25 score)."""
    n = max(SAID_DEPTH, 4 * k)
    said = scope.with_(types=(EPISODE,))
    vector = store.vector_search(said, qvec, int(n * config.plain_depth))
    text = store.text_search(said, query, int(n * max(config.plain_depth, config.plain_text_depth)))
    alone = [c for c in known.values() if c.record.type != EPISODE and utterance_of(c.record) == c.id]
    by_vector = sorted([(float(sim), mid) for mid, sim in vector]
                       + [(c.similarity, c.id) for c in alone if c.vector_rank is not None], key=lambda t: (-t[0], t[1]))
    by_text = sorted([(float(score), mid) for mid, score in text]
                     + [(c.text_score, c.id) for c in alone if c.text_score is not None], key=lambda t: (-t[0], t[1]))
    new = [mid for mid in dict.fromkeys(mid for mid, _ in (*vector, *text)) if mid not in known]
    if new:
        similarity = dict(vector)
        for record in store.fetch(new):
            c = Candidate(record, similarity=float(similarity.get(record.id, 0.0)))
            known[record.id] = deep[record.id] = c
        _fill_similarity(store, known, [mid for mid in new if mid in known and mid not in similarity], qvec)
    return ([(mid, sim) for sim, mid in by_vector if mid in known],
            [(mid, score) for score, mid in by_text if mid in known])


def _gather(store: Store, scope: Selection, intent: IntentLike, types: tuple[str, ...], where: FilterNode | None,
            qvec: Vectors, now: datetime, n: int, config: RecallConfig,
            deep: dict[str, Candidate] | None = None,
            full: dict[str, Candidate] | None = None) -> dict[str, Candidate]:
    """Candidates from: one vector search over every type (the intent's types and the rest, which serve context
    roles and widening), one keyword search, and, when the query may need them, the user's recent facts and
    feelings (the present state) and the open tasks (what is left), whatever words they share with the query."""
    signals: dict[str, dict[str, Any]] = {}
    n_vector = n + max(n // 2, 10)
    depth = config.plain_depth if deep is not None else 1.0  # plain search's deeper reading (into ``deep``)
    text_depth = max(depth, config.plain_text_depth) if deep is not None else 1.0
    for rank, (mid, sim) in enumerate(store.vector_search(scope, qvec, int(n_vector * depth)), start=1):
        signals[mid] = {"similarity": float(sim), "vector_rank": rank}
    for rank, (mid, bm25) in enumerate(store.text_search(scope, intent.query, int(n * text_depth)), start=1):
        signals.setdefault(mid, {}).update(text_rank=rank, text_score=float(bm25))
    beyond = {mid for mid, s in signals.items()
              if s.get("vector_rank", n_vector + 1) > n_vector and s.get("text_rank", n + 1) > n}
    span = _past_period(intent, now)
    if span is not None:
        # a past period the question names ("last May", "两周前", "over Christmas"): what was said then is a
        # candidate whatever its wording (ranking then favours it); plain search's own orders are left as they are
        when = tuple(Cmp("@created_at", op, format_datetime(t), "datetime")
                     for op, t in (("$gte", span[0]), ("$lt", span[1])) if t is not None)
        for mid, sim in store.vector_search(scope.with_(where=And(when)), qvec, max(n // 2, 10)):
            signals.setdefault(mid, {"similarity": float(sim)})
            beyond.discard(mid)
    records: dict[str, MemIR] = {}
    if _needs_open_tasks(intent):
        # listed whatever their wording, so read by listing: closer memories of other types would crowd them out of
        # the vector search
        task_types = tuple(t for t in types if t in TASK_TYPES)
        listing = where if where is not None else Cmp("status", "$in", tuple(sorted(OPEN_STATUSES)), "enum")
        records.update((r.id, r) for r in store.select(scope.with_(types=task_types, where=listing),
                                                       order_by=[("@created_at", False)], limit=n))
    if _needs_present_state(intent):
        since = Cmp("@created_at", "$gte", format_datetime(earlier(now, config.ranking.present_window)), "datetime")
        # one read per type: each is served in order by the (user, type, created_at) index, then merged; when the
        # first read fills the limit, the second reads only what is not older than its last (nothing older can
        # enter the merged newest ``present_limit``): fewer records loaded, the same merge
        recent: list[MemIR] = []
        for type_name in ("Fact", "EmotionalState"):
            newer: FilterNode = since
            if len(recent) >= config.present_limit:
                cutoff = min(r.metadata.created_at for r in recent)
                newer = And((since, Cmp("@created_at", "$gte", format_datetime(cutoff), "datetime")))
            recent += store.select(scope.with_(types=(type_name,), where=newer), order_by=[("@created_at", False)],
                                   limit=config.present_limit)
        recent.sort(key=lambda r: (r.metadata.created_at, r.id), reverse=True)
        records.update((r.id, r) for r in recent[: config.present_limit])
    beyond -= set(records)  # read by listing: candidates of the role order whatever plain search's depth
    records.update((r.id, r) for r in store.fetch([m for m in signals if m not in records]))
    pool = {mid: Candidate(record, similarity=signals.get(mid, {}).get("similarity", 0.0),
                           vector_rank=signals.get(mid, {}).get("vector_rank"),
                           text_rank=signals.get(mid, {}).get("text_rank"),
                           text_score=signals.get(mid, {}).get("text_score"))
            for mid, record in records.items()}
    _fill_similarity(store, pool, [mid for mid, c in pool.items() if c.vector_rank is None], qvec)
    if deep is not None:
        deep.update((mid, pool.pop(mid)) for mid in beyond if mid in pool)
        for c in pool.values():  # the role order reads the ranks of its own depth, as without the deeper reading
            if (c.vector_rank or 0) > n_vector or (c.text_rank or 0) > n:
                if full is not None:
                    full[c.id] = replace(c)
                c.vector_rank = c.vector_rank if (c.vector_rank or 0) <= n_vector else None
                c.text_rank = c.text_rank if (c.text_rank or 0) <= n else None
    return pool


def _past_period(intent: IntentLike, now: datetime) -> tuple[datetime | None, datetime | None] | None:
    """When the question names a period that has ended by ``now`` ("last May", "两周前"): from its start to now
    (what happened then is often told afterwards), else None."""
    span = intent.time_range
    return (span[0], now) if span is not None and span[1] is not None and span[1] <= now else None


def _needs_open_tasks(intent: IntentLike) -> bool:
    """Open tasks are read for "what is left" (the question that lists them whatever their wording)."""
    return intent.kind == "open_tasks" and any(t in TASK_TYPES for t in intent.types)


def _needs_present_state(intent: IntentLike) -> bool:
    """The user's present state is read for questions it can change: when preferences or feelings may answer
    (the intent's types, which an unsure intent widens to its second guess) or the query is general. A fact or
    task question skips the read (its present-state memories still come through the searches)."""
    return intent.kind == "general" or any(t in ("Preference", "EmotionalState") for t in intent.types)


def _fill_similarity(store: Store, pool: Mapping[str, Candidate], ids: Sequence[str], qvec: Vectors) -> None:
    if not ids:
        return
    for mid, vec in store.vectors(list(ids)).items():
        pool[mid].similarity = float(np.dot(vec, qvec))


def _frames(store: Store, scope: Selection, now: datetime, pool: Mapping[str, Candidate],
            said_within_h: float = 0.0) -> FrameState:
    """The active frame (the most recent one in force) and the frame ties of the candidates. ``said_within_h`` > 0:
    a candidate ``remember`` wrote with no tie is tied to the frame in force when it was said (:func:`_said_in`)."""
    frames = store.select(scope.with_(types=("ContextualFrame",)), order_by=[("@created_at", False)], limit=20)
    if not frames:
        return FrameState()
    active = next((f for f in frames if frame_active(f, now) and f.metadata.created_at <= now), None)
    frame_ids = {f.id for f in frames}
    ties: dict[str, set[str]] = {}
    for c in pool.values():
        for rel in c.record.relationships:
            if rel.target in frame_ids:
                ties.setdefault(c.id, set()).add(rel.target)
    for edge in store.edges(list(frame_ids), direction="out"):
        if edge.target in pool:
            ties.setdefault(edge.target, set()).add(edge.source)
    if said_within_h > 0:
        for c in pool.values():
            frame = None if c.id in ties or c.id in frame_ids else _said_in(c.record, frames, said_within_h)
            if frame is not None:
                ties[c.id] = {frame.id}
    topics = {f.id: str(f.properties.get("topic") or f.text) for f in frames}
    return FrameState(active, {m: frozenset(t) for m, t in ties.items()}, topics)


def _said_in(record: MemIR, frames: Sequence[MemIR], within_h: float) -> MemIR | None:
    """The frame in force when ``record`` was said (the newest one begun at or before it, not ended by then), when
    ``remember`` wrote the record (an utterance, or a reading of one: nobody said which frame it belongs to) and it
    was said within ``within_h`` hours of the frame's start; else None."""
    if record.type != EPISODE and not record.relations(DERIVED_FROM):
        return None
    at = record.metadata.created_at
    begun = [f for f in frames if f.metadata.created_at <= at and (f.valid_to is None or f.valid_to > at)]
    if not begun:
        return None
    frame = max(begun, key=lambda f: f.metadata.created_at)
    return frame if (at - frame.metadata.created_at).total_seconds() <= within_h * 3600 else None


# -- ranking ---------------------------------------------------------------------------------------
def _rank(q: _Query) -> list[Scored]:
    """Score every candidate, then judge them against each other: what replaced what (a newer preference, a later
    feeling, the frame in force and its facts), unless the query asks about the past, which those earlier ones
    answer."""
    intent, ranking = q.intent, q.ranking
    scored = [s for s in (q.score(c) for c in q.pool.values()) if s]
    scored += _vouched_for(q, scored)
    compared = ("Preference", "EmotionalState") if intent.kind == "emotion" else ("Preference",)
    said_felt = [s for s in scored if s.record.type == EPISODE and s.candidate.felt] \
        if _felt_said_moves_on(q) else []
    vectors = q.store.vectors([s.record.id for s in scored if s.record.type in compared]
                              + [s.record.id for s in said_felt])
    demote_replaced(scored, vectors, ranking)
    if q.past:
        return scored
    if intent.kind == "emotion":
        feelings_move_on(scored, vectors, ranking, now=q.now, asks_now=asks_about_now(intent.query),
                         said=said_felt)
        _felt_utterances_give_way(q, scored, said_felt, ranking)
    if intent.kind == "frame":
        ended_frames_give_way(scored, q.frames, ranking)
    other_frame_gives_way(scored, q.frames, ranking)
    return scored


def _felt_said_moves_on(q: _Query) -> bool:
    """``RecallConfig.felt_episode_moves_on`` applies: asked how the user feels, not about the past, and the
    query-kind model does not read a question about what happened (``felt_episode_event_kinds``): how an event went
    is asked about, the feeling told with it is part of the answer. With ``felt_episode_moves_now``, only where
    the question asks how things stand now (``wording.asks_about_now``: "still", "these days", "现在", ...)."""
    config = q.config
    if not config.felt_episode_moves_on or q.intent.kind != "emotion" or q.past or q.asks_what_happened():
        return False
    return not config.felt_episode_moves_now or asks_about_now(q.intent.query)


def _felt_utterances_give_way(q: _Query, scored: Sequence[Scored], said_felt: Sequence[Scored],
                              ranking: RankingConfig) -> None:
    """An utterance from which only a feeling was read gives way when every feeling read from it gave way to a
    later one (``RecallConfig.felt_episode_moves_on``): the episode takes the lifecycle of what was read from it."""
    if not said_felt:
        return
    replaced = {s.record.id: s.replaced_by for s in scored if s.record.type == FEELING and s.replaced_by}
    readings: dict[str, list[str]] = {}
    store = tenant_reads(q.store, q.scope.user_id)
    for edge in store.edges([s.record.id for s in said_felt], relations=[DERIVED_FROM], direction="in"):
        readings.setdefault(edge.target, []).append(edge.source)
    feelings = {r.id: r for r in store.fetch([i for ids in readings.values() for i in ids])
                if r.type == FEELING and r.status in q.scope.statuses}
    for s in said_felt:
        own = [i for i in readings.get(s.record.id, ()) if i in feelings]
        if s.replaced_by or not own or not all(i in replaced for i in own):
            continue
        by = replaced[own[0]]
        demote_outdated(s, ranking, f"the feeling read from this utterance ({own[0]}) gave way to a later one "
                        f"({by})", by)


def _vouched_for(q: _Query, scored: Sequence[Scored]) -> list[Scored]:
    """A half-remembered fact, a disputed one or a guess that matches the query brings along the closest confident fact
    about the same thing (an entity holding every word of the guess's, remarks in brackets aside), however few words they
    share with the query: beside a guess, the assistant must see what is known. Each is ranked just above the guess."""
    unsure = [s for s in scored if {"unconfirmed", "uncertain"} & set(s.flags) and entity_terms(s.record)]
    if not unsure:
        return []
    have = {s.record.id for s in scored}
    guesses = [(u, entity_terms(u.record)) for u in unsure]
    best: dict[str, Scored] = {}  # per guess, the closest confident fact: a one-word entity must not bring a crowd
    for c in q.pool.values():
        if c.id in have or c.record.type != "Fact" or c.record.status is not MemoryStatus.active:
            continue
        confidence = confidence_of(c.record)
        if confidence is None or confidence < q.ranking.confident_fact:
            continue
        terms = entity_terms(c.record)
        guess = next((u for u, words in guesses if words <= terms), None)
        if guess is None:
            continue
        s = q.score(c, floor_off=True)
        if s is None or "other_frame" in s.flags:
            continue
        held = best.get(guess.record.id)
        if held is None or (s.relevance, s.record.id) > (held.relevance, held.record.id):
            s.score, s.listed = max(s.score, round(guess.score + 0.01, 4)), True
            s.reasons.append(f"a confident fact about the same thing as an unsure one ({guess.record.id})")
            best[guess.record.id] = s
    return list(best.values())


def _top_up(q: _Query, kept: list[Scored], ranked: Sequence[Scored], judged: set[str]
            ) -> tuple[list[Scored], list[str]]:
    """Never nothing, and never a thin answer, when more passed the role gates: when nothing passed the floors, the
    closest of what was scored; then, while fewer than ``weak_fallback`` are shown, the closest plain memories
    under the relevance floor (never one scored and set aside: replaced, or a task a status question left out).
    Both labelled weak."""
    want = min(q.k, q.config.weak_fallback)
    if len(kept) >= want:
        return kept, []
    weak: list[Scored] = []
    if not kept:
        weak = sorted((s for s in ranked if s.replaced_by is None), key=lambda s: (-s.relevance, s.record.id))[:want]
        for s in weak:
            s.reasons.append("under the score floor: shown because nothing passed it")
    if len(kept) + len(weak) < want:
        closest = max((s.candidate.similarity for s in [*kept, *weak]), default=0.0)
        felt = q.config.felt_fill_as_feeling
        rest = [s for s in (q.score(c, floor_off=True, filler=True) for mid, c in q.pool.items() if mid not in judged)
                if s is not None and _plain(s, felt) and s.relevance >= q.ranking.weak_min_relevance
                and _may_fill(s, q.intent, closest)]
        more = sorted(rest, key=lambda s: (-s.relevance, s.record.id))[: want - len(kept) - len(weak)]
        for s in more:
            s.reasons.append("under the relevance floor: shown because too few memories passed it")
        weak += more
    for s in weak:
        s.flags.append("weak")
    if not weak:
        return kept, []
    if not kept:
        return weak, ["nothing passed the relevance floor; showing the closest memories, labelled weak"]
    return kept + weak, [f"only {len(kept)} memor{'y' if len(kept) == 1 else 'ies'} passed the relevance floor; "
                         "the closest others follow, labelled weak"]


def _learning_items(q: _Query, kept: Sequence[Scored], judged: Mapping[str, Scored], full: bool = True
                    ) -> list[Item]:
    """Every candidate the learned stage may weigh: what the rules show (with its place, first), what they judged and
    set aside, and what a soft gate held back (scored as if admitted; unscored unless ``full``: only its similarity,
    type and age are compared with the shown ones). What a hard gate bars is left out."""
    items = [Item(s, rule_rank=i) for i, s in enumerate(kept, start=1)]
    shown = {s.record.id for s in kept}
    for mid, c in q.pool.items():
        if mid in shown:
            continue
        if mid in judged:
            if judged[mid].replaced_by is None or q.past:  # what replaced it speaks for it (unless the past is asked)
                items.append(Item(judged[mid]))
            continue
        role = q.role(c)
        reason = q.gate(c, role)
        held = soft_gate(reason)
        if reason is not None and (held is None or (held == "closed_task" and q.intent.kind == "open_tasks")):
            continue  # barred outright: a closed task for "what is left", a frame or a dialogue act as an answer
        if q.is_setting(mid) and q.intent.kind != "frame":
            continue
        s = q.scored(c, role) if full else Scored(c, role, 0.0)
        if s is not None:
            items.append(Item(s, gate=held))
    return items


def _learned_order(items: Sequence[Item], rows: Any, ranker: LearnedRanker, kind: str,
                   ranking: RankingConfig) -> list[Scored]:
    """The rules' list re-sorted after the model's nudge to each score (see :mod:`mnemir.retrieve.learned`); the
    order of a task's steps and of the present state is set again afterwards."""
    nudges = ranker.nudges(rows)
    out: list[Scored] = []
    for it, nudge in zip(items, nudges, strict=True):
        if not it.rule_rank:
            continue
        s = it.scored
        s.score = round(s.score + float(nudge), 4)
        s.reasons.append(f"learned ranker: score {'+' if nudge >= 0 else '-'}{abs(nudge):.2f}")
        out.append(s)
    open_steps_first(out, kind)
    lift_present(out, kind, ranking)
    return order_hits(out)


def _plain_extras(q: _Query, kept: Sequence[Scored], judged: Mapping[str, Scored]
                  ) -> tuple[dict[str, Scored], dict[str, str], dict[str, str]]:
    """What plain search ranks high that the role-aware order left out, scored for showing (a soft role gate or a
    floor moved it down, it did not remove it); what may not be shown at all (id -> the named reason: a memory
    replaced by a newer one unless the past is asked about, the setting in force, shown apart); and what a confident
    intent rules out (id -> why: a task or a feeling asked about as neither), which plain search does not bring back."""
    shown = {q.groups.get(s.record.id, s.record.id) for s in kept}  # by utterance: one slot each
    extra: dict[str, Scored] = {}
    barred: dict[str, str] = {}
    ruled_out: dict[str, str] = {}
    answered = q.answered(kept)
    depth = max(2 * q.k, 10)
    protected = q.kept_places()
    sure = q.intent.confidence >= q.config.confident_intent
    seen = 0
    for mid, _ in sorted(q.plain.items(), key=lambda kv: kv[1])[:depth]:
        c = q.candidate(mid)
        if c is None or q.is_setting(mid):  # the setting in force is shown apart
            continue
        role = q.role(c)
        why = q.ruled_out(c, role, answered)
        if why is not None:
            ruled_out[mid] = why
            if c.record.type == EPISODE:  # an outburst: the feeling read from it does not take its plain place
                ruled_out.update(_ruled_out_readings(q, kept, q.groups.get(mid, mid), answered))
            said = _said_more(q, c)
            if said is None:
                continue
            ruled_out[mid] = f"{why}; the utterance it was read from ({said.id}) says more: it stands in its place"
            mid, c, role = said.id, said, q.role(said)  # the rest of what was said stays findable, as said
        seen += 1
        if q.groups.get(mid, mid) in shown:
            continue
        if sure and seen > protected:
            continue  # a sure intent: what the role order left out comes back only among plain search's best
        if mid in judged:
            held = judged[mid]
            if held.replaced_by is not None and not q.past:
                barred[mid] = f"replaced by {held.replaced_by}"
                continue
            held.reasons.append("under recall's floors")
            extra[mid] = held
            continue
        reason = q.gate(c, role)
        scored = q.scored(c, role)
        if scored is None:
            continue
        if reason is not None:
            scored.reasons.append(f"ranked down, not removed: {reason}")
        extra[mid] = scored
    return extra, barred, ruled_out


def _ruled_out_readings(q: _Query, kept: Sequence[Scored], group: str, answered: bool) -> dict[str, str]:
    """The readings of an utterance (``group``) in the role order that a confident intent rules out themselves (the
    feeling read from an outburst whose utterance was ruled out): the utterance's place in plain search does not lift
    them either (id -> why)."""
    out: dict[str, str] = {}
    for s in kept:
        if s.record.type != EPISODE and q.groups.get(s.record.id, s.record.id) == group:
            why = q.ruled_out(s.candidate, s.role, answered)
            if why is not None:
                out[s.record.id] = why
    return out


def _said_more(q: _Query, c: Candidate) -> Candidate | None:
    """The utterance a ruled-out reading was read from, as a candidate in the reading's place in plain search, when
    the reading covers less than ``RecallConfig.ruled_out_cover`` of it: a confident intent rules out the reading's
    role, not the rest of what was said (a report of work done that also tells who came along, a correction said
    after "haven't started yet"). None otherwise."""
    episode = q.said.get(c.id)
    if episode is None:
        return None
    share = q.config.ruled_out_cover
    if share <= 0.0 or len(c.record.content.text) >= share * len(episode.content.text):
        return None
    said = Candidate(episode, similarity=c.similarity, vector_rank=c.vector_rank, text_rank=c.text_rank, felt=c.felt)
    q.pool[episode.id] = said
    q.groups[episode.id] = q.groups.get(c.id, episode.id)
    q.plain[episode.id] = q.plain[c.id]
    return said


def _plain_fillers(q: _Query, kept: Sequence[Scored], judged: Mapping[str, Scored],
                   ruled_out: Mapping[str, str], shown: Sequence[Scored] = ()) -> list[Scored]:
    """The places a short answer leaves empty, filled in plain search's order (one memory per utterance not shown
    yet), each labelled weak with its plain rank. Never a memory a named lifecycle exclusion bars, one replaced by a
    newer one (unless the past is asked about), the setting in force (shown apart), nor a role a confident intent
    rules out (where the answer holds a memory of an intended type). ``shown``: memories shown below ``kept``
    (their utterances are not filled again)."""
    groups = {q.groups.get(s.record.id) or utterance_of(s.record) for s in (*kept, *shown)}
    answered = q.answered(kept)
    out: list[Scored] = []
    for mid, rank in sorted(q.plain.items(), key=lambda kv: (kv[1], kv[0])):
        if len(kept) + len(out) >= q.k:
            break
        c = q.candidate(mid)
        group = q.groups.get(mid, mid)
        if c is None or group in groups or mid in q.barred or mid in ruled_out or q.is_setting(mid):
            continue
        role = q.role(c)
        if q.ruled_out(c, role, answered) is not None:
            continue
        held = judged.get(mid)
        if held is not None and held.replaced_by is not None and not q.past:
            continue
        scored = held or q.scored(c, role)
        if scored is None:
            continue
        scored.reasons.append(f"plain search rank {rank}: fills a place the role order left empty")
        if "weak" not in scored.flags:
            scored.flags.append("weak")
        groups.add(group)
        out.append(scored)
    return out


#: how many of plain search's first utterances are looked at for a transcript's mark
AMONG_PEOPLE_DEPTH = 3


def _among_people(utterances: Mapping[str, int], known: Mapping[str, Candidate]) -> bool:
    """Whether one of plain search's first utterances (``utterances``: group -> rank) is a turn of a transcript of
    people talking (``remember`` marks what it read from such a turn): the question is asked over a conversation
    between people. More than the first is looked at because a transcript is recognised only once a second speaker
    has spoken, so a conversation's opening turn carries no mark."""
    first = sorted(utterances.items(), key=lambda kv: (kv[1], kv[0]))[:AMONG_PEOPLE_DEPTH]
    return any((c := known.get(group)) is not None and bool(c.record.metadata.extra.get(IN_TRANSCRIPT))
               for group, _ in first)


def _talk_among_people(utterances: Mapping[str, int], known: Mapping[str, Candidate], config: RecallConfig) -> bool:
    """Whether the user's utterances among plain search's first ``talk_depth`` read, on the mean, as talk between
    people (``RecallConfig.talk_among_people``; the log-odds ``remember`` keeps on each Episode,
    :mod:`mnemir.understand.talk`). Read over what the question finds, not the whole store: a user's store may hold
    a recorded conversation beside their own talk with the assistant."""
    if config.talk_among_people is None:
        return False
    if config.talk_no_assistant and any(c.record.metadata.source.speaker == "assistant" for c in known.values()):
        return False  # the assistant speaks in what the question finds: a user's talk with it, whatever "you" says
    first = sorted(utterances.items(), key=lambda kv: (kv[1], kv[0]))[:config.talk_depth]
    read = [float(value) for group, _ in first if (c := known.get(group)) is not None
            and c.record.metadata.source.speaker == "user"
            and isinstance(value := c.record.metadata.extra.get(TALK), (int, float)) and not isinstance(value, bool)]
    return len(read) >= config.talk_least and sum(read) / len(read) >= config.talk_among_people


def _set_from(config: RecallConfig, fields: Mapping[str, str]) -> RecallConfig:
    """``config`` with each field named on the right set to the value of the one on the left, where that is set."""
    changes = {target: getattr(config, source) for source, target in fields.items()
               if getattr(config, source) is not None}
    return config.with_(**changes) if changes else config


def _between_people(config: RecallConfig) -> RecallConfig:
    """The settings over a conversation between people: ``chat_confident_intent``, ``chat_plain_share`` and the
    tail's (``chat_tail_share``, ``chat_tail_said``) where set."""
    return _set_from(config, {"chat_confident_intent": "confident_intent", "chat_plain_share": "plain_share",
                              "chat_tail_share": "plain_tail_share", "chat_tail_said": "plain_tail_said",
                              "chat_text_weight": "plain_text_weight", "chat_score_weight": "plain_score_weight"})


def _long_set(config: RecallConfig) -> bool:
    """Whether any setting over a long conversation between people differs from the store's own (else the store's
    length is not read)."""
    return (config.chat_text_weight_long is not None or not config.chat_period_first_long
            or config.chat_fusion_k_long is not None or config.chat_score_weight_long is not None
            or config.chat_plain_share_long is not None)


def _over_long_talk(config: RecallConfig) -> tuple[RecallConfig, bool, int]:
    """The settings over a long conversation between people (``chat_*_long``): the config, whether a named period's
    utterances come first in plain search's order, and plain search's reciprocal-rank constant."""
    long = _set_from(config, {"chat_text_weight_long": "plain_text_weight",
                              "chat_score_weight_long": "plain_score_weight", "chat_plain_share_long": "plain_share"})
    rrf_k = config.chat_fusion_k_long if config.chat_fusion_k_long is not None else PLAIN_RRF_K
    return long, config.chat_period_first_long, rrf_k


def _plain_floor(q: _Query, kept: list[Scored], judged: Mapping[str, Scored], ruled_out: Mapping[str, str],
                 moved: frozenset[str] | set[str] = frozenset(), *, floor: int | None = None,
                 felt: bool | None = None, tail: bool = False) -> tuple[list[Scored], list[str], set[str]]:
    """The plain-search floor (``RecallConfig.plain_floor``): the first utterances of plain search's order each
    keep a place in the top k, at most ``plain_floor_slack`` places below their plain rank, after every other step.
    Left out only by a named lifecycle exclusion (``q.barred``, a memory replaced by a newer one unless the past is
    asked about, the setting in force), a role the intent rules out with at least ``floor_confident`` confidence, or,
    asked about someone, a memory that names only other people (``moved``: the asked-person step); each said in the
    notes. A reading a less confident intent rules out gives its place to the utterance it was read from (what was
    said, not the role), unless a newer memory replaced the reading. One slot per utterance: a
    group already shown moves up, it is not shown twice. Returns the order, notes, and the ruled-out readings whose
    utterance stood in (the fusion's notes on them no longer hold)."""
    config = q.config
    out = list(kept)
    notes: list[str] = []
    stood_in: set[str] = set()

    def group_of(s: Scored) -> str:
        return q.groups.get(s.record.id) or utterance_of(s.record)

    answered = q.answered(out)
    # the tail (``plain_tail_said``): plain search's kept places past the head, each at the last place of the top k,
    # and a reading a confident intent rules out gives its place to what was said, however sure the intent
    firm = not tail and float(q.intent.confidence) >= config.floor_confident
    # plain search's best the fusion kept in the top k (``kept_places``) and what the floor places: neither is pushed
    # out by another floor place
    best = sorted(q.plain.items(), key=lambda kv: (kv[1], kv[0]))
    # at most half the top k (at least one place), the rest ranked by role fit; the tail keeps all its places
    places = (floor or 0) if tail else min(config.plain_floor if floor is None else floor, max(1, q.k // 2))
    kept_groups = {q.groups.get(mid, mid) for mid, _ in best[: q.kept_places()]} \
        & {group_of(s) for s in out[: q.k]}
    seen: set[str] = set()
    for mid, rank in best:
        group = q.groups.get(mid, mid)
        if group in seen:
            continue
        seen.add(group)
        if len(seen) > places:
            break
        limit = q.k if tail else min(q.k, rank + config.plain_floor_slack)  # the lowest place (from 1) it may take
        at = next((i for i, s in enumerate(out) if group_of(s) == group), None)
        if at is not None and at < limit:
            continue
        if mid in q.barred or q.is_setting(mid):
            continue  # a named lifecycle exclusion (the fusion's notes name it)
        if moved and any(q.groups.get(m, m) == group for m in moved):
            notes.append(f"plain search's match {mid} (rank {rank}) is not kept: the question asks about someone "
                         "it does not name")
            continue
        held = out.pop(at) if at is not None else None
        c = held.candidate if held is not None else q.candidate(mid)
        if c is None:
            continue
        role = held.role if held is not None else q.role(c)
        why = ruled_out.get(c.id) or q.ruled_out(c, role, answered)
        scored: Scored | None = held
        if why is not None:
            episode = q.said.get(c.id)
            if episode is None and c.record.type == EPISODE and (config.plain_floor_felt if felt is None else felt):
                episode = c.record  # an outburst: what was said, not the feeling's role
            replaced = judged[c.id].replaced_by if c.id in judged and not q.past else None
            sure = _sure_reading(q, c) if tail and episode is not None else None
            if firm or episode is None or episode.id in q.barred or replaced is not None or sure is not None:
                if held is not None:
                    out.insert(at if at is not None else len(out), held)
                if c.id not in ruled_out or sure is not None:
                    notes.append(f"plain search's match {c.id} (rank {rank}) is not kept: {why}"
                                 + (f"; {sure}" if sure is not None else ""))
                continue
            stood_in.add(c.id)
            notes.append(f"plain search's match {c.id} (rank {rank}) is ruled out as read ({why}); "
                         + ("what was said keeps its place" if episode.id == c.id else
                            f"the utterance it was read from ({episode.id}) keeps its place"))
            c = Candidate(episode, similarity=c.similarity, vector_rank=c.vector_rank, text_rank=c.text_rank,
                          felt=c.felt)
            scored = q.scored(c, q.role(c))
        elif scored is None:
            scored = judged[c.id] if c.id in judged else q.scored(c, role)
        if scored is None or (scored.replaced_by is not None and not q.past):
            if held is not None:
                out.insert(at if at is not None else len(out), held)
            continue
        if why is not None:
            scored.reasons.append(f"plain search ranks what was said {rank}: the utterance stands in ({why})")
        else:
            scored.reasons.append(f"plain search ranks it {rank}: kept at place {limit} or above")
        out.insert(limit - 1, scored)
        kept_groups.add(group)
        if len(out) > q.k and group_of(out[q.k]) in kept_groups:
            # the memory pushed out of the top k is one plain search's best keep there: the last other one goes
            free = [i for i in range(q.k) if group_of(out[i]) not in kept_groups]
            if free:
                out.insert(q.k, out.pop(free[-1]))
    return out, notes, stood_in


#: where ``remember`` keeps how sure its extractor was of a reading (the classifier's probability of the type read)
EXTRACTION = "extraction"


def _sure_reading(q: _Query, c: Candidate) -> str | None:
    """Why the tail's stand-in does not replace this ruled-out reading (``plain_tail_said_below``): the extractor was
    at least that sure of it (for an utterance from which only a feeling was read, of the feeling), so the ruling
    on its role is as sure as the intent; None where it may stand in. A memory with no extraction (written typed)
    is as sure as it is given."""
    below = q.config.plain_tail_said_below
    if below is None:
        return None
    readings = [c.record]
    if c.record.type == EPISODE:
        store = tenant_reads(q.store, q.scope.user_id)
        ids = [e.source for e in store.edges([c.record.id], relations=[DERIVED_FROM], direction="in")]
        readings = [r for r in store.fetch(ids) if r.type == FEELING] if ids else []
    sure = max((_extraction_confidence(r) for r in readings), default=1.0)
    return None if sure < below else f"the reading is sure (p={sure:.2f}), what was said does not stand in"


def _extraction_confidence(record: MemIR) -> float:
    extraction = record.metadata.extra.get(EXTRACTION)
    if not isinstance(extraction, Mapping) or not isinstance(extraction.get("confidence"), (int, float)):
        return 1.0
    return float(extraction["confidence"])


def _ruled_out(role: str, intent: IntentLike, config: RecallConfig) -> str | None:
    """Why a confident intent rules this role out (a task for a question that asks for no task, a feeling for one
    that asks about no feeling), or None."""
    if intent.confidence < config.confident_intent:
        return None
    if role == "task" and intent.kind not in TASK_KINDS and not any(t in TASK_TYPES for t in intent.types):
        return f"the query asks for {intent.kind} (confidence {intent.confidence:.2f}): a task is not its answer"
    if role == "caution" and intent.kind != "emotion" \
            and not (config.ruling_follows_types and FEELING in intent.types):
        return f"the query asks for {intent.kind} (confidence {intent.confidence:.2f}): a feeling is not its answer"
    return None


def _felt_episode_ruled_out(c: Candidate, intent: IntentLike, config: RecallConfig, past: bool) -> str | None:
    """Why a confident intent rules out an utterance from which only a feeling was read (an episode still a
    candidate after folding, said with a feeling: ``Candidate.felt``), or None: it plays its feeling's role
    (:func:`~mnemir.retrieve.ranking.role_of`: a caution unless feelings are asked about). Never for a question about
    the past: what happened then is asked about, the feeling with it."""
    if not config.felt_episode_ruled_out or not c.felt or past:
        return None
    why = _ruled_out("answer" if intent.kind == "emotion" else "caution", intent, config)
    return None if why is None else f"{why}; only a feeling was read from this utterance"


def _quote(store: Store, hits: Sequence[RecallHit], quotes: Mapping[str, MemIR]) -> None:
    """Each shown typed memory carries the utterance it was read from (its episode) as its quote, when the
    utterance says more than the memory."""
    missing = {h.memory.id: rel.target for h in hits if h.memory.id not in quotes
               for rel in h.memory.relations(DERIVED_FROM)[:1]}
    fetched = {r.id: r for r in store.fetch(list(dict.fromkeys(missing.values())))} if missing else {}
    for h in hits:
        episode = quotes.get(h.memory.id) or fetched.get(missing.get(h.memory.id, ""))
        if episode is not None and episode.content.text.strip() != h.memory.content.text.strip():
            h.quote = episode


def _may_fill(s: Scored, intent: IntentLike, closest: float) -> bool:
    """An open task fills a fact question's thin answer only when it is closer to the question than every answer
    shown (the question then most likely asks about the arrangement under way, not a settled fact)."""
    return not (intent.kind == "fact_lookup" and s.record.type in TASK_TYPES and s.candidate.similarity <= closest)


def _plain(s: Scored, felt_as_feeling: bool = False) -> bool:
    """Nothing known against it but its distance: an answer, present state or open task, not from another frame.
    Preferences and feelings are left out: which of them still holds is judged against the others, and memories
    under the floor are not judged against the others (a filler fact is not checked for conflicts either). With
    ``felt_as_feeling`` (``RecallConfig.felt_fill_as_feeling``), an utterance from which only a feeling was read
    counts as that feeling."""
    if s.role not in ("answer", "current", "task") or s.record.type in ("Preference", "EmotionalState"):
        return False
    if felt_as_feeling and s.record.type == EPISODE and s.candidate.felt:
        return False
    if "other_frame" in s.flags:
        return False
    return s.record.type not in TASK_TYPES or task_status(s.record) in OPEN_STATUSES


def _follow(q: _Query, ranked: list[Scored]) -> tuple[list[Scored], list[str]]:
    """Follow relationships from the best hits; apply what they say (supersedes, contradicts)."""
    notes: list[str] = []
    config, pool = q.config, q.pool
    if config.graph_depth == 0 or not ranked:
        return ranked, notes
    seeds = order_hits(ranked)[: config.graph_seeds]
    walk = expand(q.store, q.scope, [s.record for s in seeds], depth=config.graph_depth,
                  relations=config.graph_relations, limit=4 * config.graph_seeds)
    best = {s.record.id: s for s in ranked}
    parent_rel = {s.record.id: max(s.score, 0.0) for s in seeds}
    new: list[Candidate] = []
    relinked: list[Candidate] = []
    for link in walk.links:
        if link.relation == SETTLES and not any(r.relation == SETTLES and r.target == link.source
                                                 for r in link.record.relationships):
            continue  # a decision leads from what it settled to itself, never back to the options it settled
        inherited = parent_rel.get(link.source, 0.0) if _useful_link(link.relation) else 0.0
        known = pool.get(link.record.id)
        if known is not None:  # already found by search: the link may still lift it
            current = max(best[known.id].relevance if known.id in best else 0.0, linked_relevance(known))
            if inherited * LINK_DECAY ** link.depth > current:
                known.via, known.parent_relevance = (link.relation, link.source, link.depth), inherited
                relinked.append(known)
            continue
        c = Candidate(link.record, via=(link.relation, link.source, link.depth), parent_relevance=inherited)
        pool[c.id] = c
        new.append(c)
    _fill_similarity(q.store, pool, [c.id for c in new], q.qvec)
    for c in [*new, *{id(c): c for c in relinked}.values()]:
        s = q.score(c)
        if s is not None:
            best[c.id] = s
    for target, by in walk.superseded.items():
        if target in best and by in best:
            demote_outdated(best[target], config.ranking, f"superseded by {by}", by)
    for source, targets in walk.contradicted.items():
        for target in targets:
            for mid, other in ((source, target), (target, source)):
                if mid in best and "uncertain" not in best[mid].flags:
                    best[mid].flags.append("uncertain")
                    best[mid].reasons.append(f"contradicted by {other}")
    if walk.out_of_scope:
        notes.append(f"{walk.out_of_scope} relationship(s) lead outside this scope and were not followed")
    return list(best.values()), notes


def _reached_decisions(q: _Query, judged: Mapping[str, Scored]) -> list[Scored]:
    """The decisions read with what they settled (``decisions_in_reach``), as judged; one its type's gate held out
    (a choice read as a task, asked about as a fact) is judged as an answer: a choice made answers a question about
    it, whatever it was read as."""
    out = []
    for mid in q.decisions:
        s = judged.get(mid)
        if s is None and mid in q.pool:
            s = q.scored(q.pool[mid], "answer", floor_off=True)
        if s is not None:
            out.append(s)
    return out


def _useful_link(relation: str) -> bool:
    """Relations whose other end inherits some of the relevance of the memory it hangs on."""
    return relation in (*STEP_RELATIONS, "supports", "related_to_entity", "settles")


def _settle(q: _Query) -> Settled:
    """The kind, types and confidence to rank for: the learned role model's reading of the intent and the memories,
    or the hand rules (``learned_roles`` off, or no model shipped)."""
    config = q.config
    if config.role_observer is not None:
        evidence = role_evidence(q.intent, q.pool.values(), config.ranking, q.now, config.felt_said_as_feeling)
        config.role_observer(family_features(q.intent, evidence, config.ranking.min_relevance))
    name = config.chat_role_model_file if q.among_people and config.chat_role_model_file else config.role_model_file
    model = (config.role_model or shipped_role_model(name)) if config.learned_roles else None
    if model is None or not getattr(q.intent, "kinds", ()):  # an intent set by hand is used as it is given
        return settle(q.intent, q.pool.values(), config.ranking, q.now)
    if config.role_kinds:
        settled = settle_learned(q.intent, q.pool.values(), config.ranking, q.now, model, config.role_switch,
                                 config.role_widen, config.felt_said_as_feeling)
    else:
        settled = confidence_learned(q.intent, settle(q.intent, q.pool.values(), config.ranking, q.now),
                                     q.pool.values(), config.ranking, q.now, model, config.felt_said_as_feeling)
    return settled if config.role_confidence else replace(settled, confidence=None)


def _not_open_work(intent: Any) -> Any:
    """The intent as a question that asks for no open work (to tell the bars that only open work sets)."""
    if hasattr(intent, "override"):
        return intent.override(kind="general", kinds=getattr(intent, "kinds", ()))
    return replace(intent, kind="general")


def _asks_past_event(reading: QueryReading, config: RecallConfig) -> float | None:
    """The query-kind model's probability of a question about a past event, when that is its likeliest kind and at
    least ``RecallConfig.event_reading``; else None."""
    p = reading.probabilities.get(PAST_EVENT)
    if p is None or p < config.event_reading or config.event_reading >= 1.0:
        return None
    return p if p >= max(reading.probabilities.values()) else None


#: the question kinds (of the query-kind model) that ask about a present state: a value now, a preference, open work,
#: where a task stands, what comes next, what holds after a choice
PRESENT_KINDS = ("corrected_fact", "preference", "open_tasks", "task_status", "next_step", "decision")


def _asks_no_present(reading: QueryReading, config: RecallConfig) -> bool:
    """The query-kind model reads a question about no present state (``PRESENT_KINDS`` together under
    ``RecallConfig.past_unless_present``); False when it read nothing."""
    if config.past_unless_present <= 0.0 or not reading.probabilities:
        return False
    return sum(reading.probabilities.get(kind, 0.0) for kind in PRESENT_KINDS) < config.past_unless_present


def _not_work(intent: Any) -> Any:
    """The intent as a question of no family: every content type, no status filter (a question about what happened
    asks for no open work and no plan)."""
    types = KIND_TYPES["general"]
    if hasattr(intent, "override"):
        return intent.override(kind="general", types=types, where=None, kinds=getattr(intent, "kinds", ()))
    return replace(intent, kind="general", types=types, where=None)


def _with_confidence(intent: Any, confidence: float) -> Any:
    if hasattr(intent, "override"):
        return intent.override(confidence=confidence, kinds=getattr(intent, "kinds", ()))
    return replace(intent, confidence=confidence)


def _switched(intent: Any, settled: Settled) -> Any:
    """The intent with the kind and types the evidence settled on (visible in its reasons)."""
    if hasattr(intent, "override"):
        return intent.override(kind=settled.kind, types=settled.types, where=None, kinds=getattr(intent, "kinds", ()))
    return replace(intent, kind=settled.kind, types=settled.types, where=None)


def _widening(ranked: Sequence[Scored], intent: IntentLike, k: int) -> tuple[bool, list[str]]:
    top = ranked[:k]
    if not top:
        return False, []
    intended = [s for s in top if s.record.type in intent.types]
    if intended:
        return False, []
    kinds = ", ".join(sorted({s.record.type for s in top}))
    return True, [f"nothing of the intended types ({', '.join(intent.types)}) matched well; "
                  f"widened to {kinds}, roles kept"]


def _hit(s: Scored) -> RecallHit:
    via = None
    if s.candidate.via is not None:
        relation, source, depth = s.candidate.via
        via = f"{relation} from {source}" + (f" (depth {depth})" if depth > 1 else "")
    return RecallHit(s.record, s.score, s.role, list(dict.fromkeys(s.reasons)), list(dict.fromkeys(s.flags)), via)
