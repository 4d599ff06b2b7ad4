"""The understanding face of ``Memory``: ``remember`` / ``ingest`` (dialogue in, typed memories out) and ``intent``.

Extraction itself is offline and store-free (:mod:`mnemir.understand`); this mixin does what needs memory:

- *updates*: a report on a task ("报销单已经交上去了", "the flight is booked") is matched against the same user's
  open tasks and moves that task (and its steps) through the lifecycle instead of adding a memory;
- *corrections*: "actually I moved to Hangzhou, not Shanghai" supersedes the old fact;
- *links*: plan steps point at their task (``subtask_of``), memories that mention the same entity are linked
  (``related_to_entity``, entity keys normalised across zh/en aliases);
- when a target is uncertain, nothing is guessed: the result carries a :class:`Confirmation` with the candidates
  and why each matched; :meth:`UnderstandingMixin.confirm` applies it once the user has chosen;
- *proposals*: an assistant turn stores nothing about the user, but what it proposes is held for the next user
  turn of the same conversation; a plain confirmation ("好，就这么办", "yes, do that") makes it the user's Task,
  both turns kept as its ``provenance`` (in ``metadata.extra``);
- *postponements* move the matched task's deadline; *corrections* with no attribute read supersede the closest
  fact in meaning (a correction cue plus closeness); a relation ("my brother") is resolved to the person the user
  named for it ("Tom is my brother");
- matching by meaning counts the sentence vectors, shared entities and shared content words; a user's "task"
  worded as done work is a report on the open task it is clearly about, not a new task; so is a user's statement
  told as having happened (the perfective aspect: "rang both garages", "签证办下来了") that is clearly about one open task
  and shares a content word with it (a statement that is no task or plan is also kept); a report that shares a
  content word with a task may move it from a lower similarity (``TERM_SURE``);
- a *change of mind* ("…after all", "我改主意了") supersedes the user's earlier stance closest in meaning; a
  *decision* is always kept as a decision Fact and supersedes the deliberation it settles. Statements about two
  different relatives never replace each other. A value said to have changed ("has been moved to", "降到") replaces
  the earlier statement closest in meaning; a report of done work that matches no open task is kept as a closed task.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from mnemir.embed import default_embedder
from mnemir.embed.base import prefilled
from mnemir.errors import ConflictError, InvalidTransitionError, NotFoundError, ValidationError
from mnemir.ir import MAX_TEXT_CHARS, Content, MemIR, MemoryStatus, Metadata, Relationship, Scope, Source, ensure_aware
from mnemir.lifecycle.terms import content_terms, people_named, said_by_another
from mnemir.memory.core import serialized
from mnemir.ontology.enums import OPEN_STATUSES
from mnemir.retrieve.judgements import COMPLETES, CORRECTS, DECISION_TYPES, REPORTS_ON, states_decision
from mnemir.retrieve.persons import IN_TRANSCRIPT, SAID_BY
from mnemir.store.base import ANY, Selection
from mnemir.understand import Extraction, Extractor, IntentRecognizer, RetrievalIntent, fill
from mnemir.understand.dates import local_now
from mnemir.understand.decision_turns import decision_probability
from mnemir.understand.entities import aliases, find_entities
from mnemir.understand.extract import Draft, check_speaker, check_text, says_how_work_stands
from mnemir.understand.fill import RELATIONS
from mnemir.understand.lexicon import CUES
from mnemir.understand.people import speaker_label
from mnemir.understand.report_outcomes import outcome_of, shipped_report_outcomes
from mnemir.understand.report_tasks import TIE, shipped_report_tasks
from mnemir.understand.same_change import shipped_same_change
from mnemir.understand.segment import split_pieces
from mnemir.understand.talk import TALK, shipped_talk_turns, talk_log_odds
from mnemir.understand.unmarked_reports import UnmarkedReports, shipped_unmarked_reports

if TYPE_CHECKING:
    from mnemir.memory.core import MemoryCore
    from mnemir.memory.lifecycle import LifecycleMixin

    _Base = MemoryCore
else:
    _Base = object

#: a fact whose subject is "he" / "she" / "他" / "她" is about the person the user named last, looked for in the
#: utterance and the user's last PRONOUN_LOOKBACK utterances
RESOLVE_PRONOUNS = True
PRONOUN_LOOKBACK = 3
#: cosine similarity (default embedder) above which an update may target a task at all
MATCH_FLOOR = 0.30
#: ... and above which, with a clear lead over the runner-up, it is applied without asking
MATCH_SURE = 0.45
MATCH_MARGIN = 0.08
ENTITY_BONUS = 0.15
#: added per content term a report shares with a candidate ("poll", "finance", "报名"), up to TERMS_COUNTED terms: the
#: words a report and its task share say what it is about when the sentence vectors are far apart (a short report,
#: a long task)
TERM_BONUS = 0.05
TERMS_COUNTED = 2
#: a report that shares a content term with an open task ("renewed the permit" / "renew the parking permit") may move
#: it from this score on (the sentence vectors of a short report and a long task are far apart), with a clear lead
TERM_SURE = 0.2
#: ... when the two texts alone are at least this close (cosine). 0: on the continuity train split every task closed
#: through a shared word below 0.21 was the wrong one, but on dev a floor of 0.21 left right ones open (a poll
#: closed at 0.20): not kept (decision 0030)
TERM_SIMILARITY_FLOOR = 0.0
#: open tasks read from the same utterance as the best match (two readings of one statement of work) are no rival
#: to it when a report's lead is measured (docs/decisions/0059)
SAME_UTTERANCE_NO_RIVAL = True
#: how many open tasks a report is compared with
TASK_POOL = 8
#: an open task is also read in the utterance it came from: a plan cut from a longer turn ("I'll call them
#: tomorrow", told after naming the bakery) says too little on its own to be matched with the later report of it.
#: A report is as close to the task as it is to that utterance less CONTEXT_DISCOUNT (the utterance may say other
#: things too), its shared words counted over both; the better of the two readings counts
TASK_CONTEXT = True
CONTEXT_DISCOUNT = 0.05
#: an assistant's task this close to an open task of the user is that task said back, not a new one
RESTATED_TASK = 0.7
#: at most this many stored memories are linked per (new memory, entity)
MAX_MENTIONS = 10
#: a user's "task" worded as done work becomes an update of the open task at least this close (with a clear lead)
REPORT_SURE = 0.6
#: a user's statement of these types told in the perfective aspect ("rang both garages", "签证办下来了") is a report on
#: the open task it is clearly about (this close, with a clear lead, sharing a content word)
ASPECT_REPORTS = True
REPORTING_TYPES = ("Task", "Plan", "Fact", "EmotionalState", "Hypothesis", "ContextualFrame")
ASPECT_REPORT_SURE = 0.6
#: general markers of work still ahead (an obligation, an intention, a request): a sentence with one is no report
_AHEAD = re.compile(r"要|得|需要|准备|打算|计划|想|该|记得|别忘|帮我|提醒|\b(?:need|needs|have to|has to|got to|gotta|should|"
                    r"must|will|'ll|going to|gonna|want|plan|planning|'d like|would like|remind|don'?t forget|let me|"
                    r"can you|could you|please|to do)\b", re.I)
#: which open task a status report moves is read by the learned report-to-task matcher
#: (:mod:`mnemir.understand.report_tasks`, fitted on the continuity train split; docs/decisions/0063) where it is
#: shipped: it replaces the hand-set MATCH_SURE / REPORT_SURE / ASPECT_REPORT_SURE / UTTERANCE_REPORT_SURE / TERM_SURE
#: and MATCH_MARGIN tests of a report (the candidates are still the open tasks over MATCH_FLOOR or sharing a word)
LEARNED_REPORT_MATCH = True
#: a user's statement with no report reading (no done word, not told as having happened, no work ahead, no question)
#: closes the open task the learned unmarked-report reading (:mod:`mnemir.understand.unmarked_reports`, fitted on the
#: continuity train split) finds it clearly closes: the result told instead of the deed, someone else's answer, the
#: thing now in use (docs/decisions/0102)
UNMARKED_REPORT_MATCH = True
#: the learned report-to-task matcher is the one refitted with the written pairs (a task, a later report, whether
#: the report closes it: ``training/understand/report_pairs_*.jsonl``) beside the train conversations' pairs, and
#: with the report's learned outcome (done / dropped / deferred, :mod:`mnemir.understand.report_outcomes`) among its
#: features (docs/decisions/0120; the unmarked reading refitted alike is not shipped: see there)
WRITTEN_PAIRS = False
#: what a statement read to close an open task says became of the work is read by the learned report-outcome model
#: (:mod:`mnemir.understand.report_outcomes`: done / started / deferred / dropped, fitted on the training split's
#: extraction rows): a deferral ("pushed to next month", "not till after the holidays") keeps the task open and moves
#: its deadline when it names a later date. UNMARKED_OUTCOMES reads the statements of the unmarked route
#: (UNMARKED_REPORT_MATCH; a drop there closes the task as failed, not done), REPORT_OUTCOMES the reports with no
#: done word that would close a task (told as having happened, "moved the boiler check on to the 3rd", or read as a
#: status update by the extractor, "the gutters can wait till spring" read as given up) (docs/decisions/0104)
UNMARKED_OUTCOMES = False
REPORT_OUTCOMES = False
#: ... a deferral is read when it is the model's best outcome and at least this likely, and (DEFERRAL_UNTOLD) when
#: the statement tells nothing as having happened and has no done word: a deed told in the past with a date ahead in
#: it ("the parts came on Friday, he's fitting them on the 24th") reads as deferred to the model, which learned
#: deferrals from statements that name their new date (a postponement marker is read as a deferral either way)
DEFERRAL_SURE = 0.0
DEFERRAL_UNTOLD = False
#: the trainer's log of every report-task decision (None: nothing is logged); see mnemir.eval.learn_report_tasks
REPORT_PAIR_LOG: list[dict[str, Any]] | None = None
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
#: general markers (zh + en) of work no longer needed: a statement with one is a report that the open task it is
#: clearly about was dropped (as a perfective statement is, same thresholds), though it names a need (docs/decisions/0050)
CANCELLED_REPORTS = True
#: ... also when the extractor read the statement as a preference: "no need to order the curtains" names work, not a
#: liking, and a refit moves such a statement between Task and Preference by a hair. The statement is still kept as
#: the preference it was read as. Measured with the extractor refitted on the collapse rows (docs/decisions/0106)
CANCELS_FROM_PREFERENCE = True
_CANCELS = re.compile(r"不用(?:再)?[^，,。！!？?]{0,12}了|不需要(?:再)?[^，,。！!？?]{0,12}了|用不着|不必(?:再)?[^，,。！!？?]{0,8}了|"
                      r"\b(?:no longer need|no need (?:to|for)|(?:do|does|did)n'?t need (?:to )?[^,.;!?]{0,50}"
                      r"\b(?:any ?more|after all)|won'?t need (?:to )?[^,.;!?]{0,50}\b(?:any ?more|after all)|"
                      r"(?:is|are)n'?t needed any ?more)\b", re.I)
#: turns embedded together and stored in one transaction by ``ingest``
INGEST_BATCH = 64
#: a user's report of work done or dropped that matches no open task is kept as a Task in that status
#: (docs/decisions/0029); before, only the utterance's episode kept it. The statuses of such reports (the ontology
#: normalises "cancelled" and "dropped" to failed)
UNAPPLIED_REPORTS_KEPT = True
CLOSED_REPORTS = ("completed", "failed")
#: a report that moves a task links its utterance to the task (``reports_on``, with the status it told): where the
#: task stands is what that utterance said, and recall can tell the report from the task's first statement
#: (``RecallConfig.report_stands_for_task``; docs/decisions/0116). Nothing else reads the link.
REPORT_LINKS = True
#: ... and one that says nothing of how any work stands is kept as the extractor's best other reading
UNMARKED_REPORTS_REREAD = True
#: a report of done work kept as a closed task is also kept as the Fact it tells, when the extractor's best other
#: reading of it is a Fact (docs/decisions/0045)
CLOSED_WORK_AS_FACT = True
#: the type that keeps an utterance verbatim, and the relation from what was read from it to it
EPISODE = "Episode"
DERIVED_FROM = "derived_from"
#: the reason a task made from the assistant's offer to do the work itself carries
OFFERED = "the assistant offered to do it itself"
#: a report of work done that matches no open task links from its utterance to the earlier user utterance stating
#: that work (never read as a task) when at least this close (with a shared content word and a clear lead)
USE_UNTASKED = True
UNTASKED_SURE = 0.3
#: ... an utterance that puts work at a time ahead ("明早给中介打个电话", "ringing the garage tonight") states work ahead too
#: (docs/decisions/0057): general markers of the near future (zh + en)
UNTASKED_SOON = True
_SOON = re.compile(r"明天|明早|明晚|后天|今晚|今天下午|下周|这周|本周|周末|回头|待会|等会|晚点|过两天|这两天|\b(?:tomorrow|tonight|"
                   r"this (?:week|weekend|afternoon|evening)|next (?:week|month)|later today)\b", re.I)
#: a report of work done (or dropped) that matches no open task by itself is compared through its whole utterance
#: (a terse "Sorted it!!" names its work in the rest of the turn), then applied only when the open task is at least
#: this close with a clear lead (docs/decisions/0057)
UTTERANCE_REPORTS = True
UTTERANCE_REPORT_SURE = 0.6

#: a correction with no attribute read supersedes a fact at least this close in meaning (default embedder) ...
CORRECTION_SURE = 0.55
#: ... or this close when it names the value it takes back ("不是周日", "not the 3rd"): on the continuity train split,
#: with every threshold lowered to 0.35, the corrections applied scored 0.40-1.08 and none replaced a memory a
#: checkpoint still needed
CORRECTION_NAMED_SURE = 0.4
#: ... or this close when it also names the same entity; two candidates within MATCH_MARGIN -> a confirmation
CORRECTION_WITH_ENTITY = 0.4
#: a change of mind ("I'd rather have the manual one after all", "我改主意了，…") replaces the user's earlier stance closest in
#: meaning (a preference, a fact, a hypothesis or an open task) at least this close, with a clear lead
CHANGE_SURE = 0.5
#: general markers that a value has changed since it was last said (zh + en): the state before is over ("is now",
#: "has been moved to", "no longer", "改到", "降到", "现在…了"); such a statement replaces the user's earlier statement
#: closest in meaning (CHANGE_SURE, with a clear lead), as a change of mind does (docs/decisions/0029)
VALUE_UPDATES = True
_UPDATED = re.compile(r"改成|改为|改到|改去|改在|换成|换到|换了|降到|降了|涨到|涨了|升到|推迟到|推到|提前到|延期到|延到|挪到|调到|调成|变成|"
                      r"现在(?:是|已经|改|变|能|可以|要|得)|如今|不再|不用再|\b(?:(?:is|are|'s|'re|was|were) now|now (?:is|are|at|on|in)|"
                      r"(?:has|have) been (?:moved|changed|pushed|brought|put|cut|raised|lowered|rescheduled|switched|"
                      r"dropped|increased|reduced|extended|postponed|delayed|shifted)|(?:moved|changed|switched|pushed back|"
                      r"put back|brought forward|rescheduled|postponed|delayed|shifted|dropped|cut|raised|lowered|increased|"
                      r"reduced|gone up|gone down|went up|went down) to|no longer|any ?more|these days|nowadays|from now on)\b|"
                      # a verb of change, its object between, then the new value ("have moved the match to Sunday",
                      # "raised the fee to $75", "switched it over to", "goes up to"); "now" told of a state
                      # ("my wave now goes off at…", "…on Tuesdays now"), not "right now" / "for now" / "just now"
                      r"\b(?:mov(?:e|es|ed)|chang(?:e|es|ed)|switch(?:es|ed)?|push(?:es|ed)|"
                      r"rais(?:e|es|ed)|lower(?:s|ed)?|cut(?:s)?|increas(?:e|es|ed)|reduc(?:e|es|ed)|revis(?:e|es|ed)|"
                      r"bump(?:s|ed)?|drop(?:s|ped)?|shift(?:s|ed)?|reschedul(?:e|es|ed)|postpon(?:e|es|ed)|"
                      r"delay(?:s|ed)?|go(?:es)? up|go(?:es)? down)\b(?:\s+[\w'/.-]+){0,5}?\s+(?:over |up |down |back |"
                      r"forward |on )?to\b|\b(?:put|puts|brought|brings?)\b(?:\s+[\w'/.-]+){0,5}?\s+(?:up|down|back|"
                      r"forward) to\b|(?<!right )(?<!for )(?<!just )(?<!by )(?<!until )(?<!till )\bnow\b|"
                      r"推迟|提前|延期|调整|修订|改了|重新(?:定|排|安排)|(?<!到)现在(?!还|也)",
                      re.I)
#: what such an update may replace: a statement (an earlier fact, preference or guess), not a piece of work
UPDATED_TYPES = ("Preference", "Fact", "Hypothesis")
#: a decision replaces the earlier leaning or choice closest in meaning at least this close, with a clear lead: on
#: the train split the decisions above 0.85 settled a deliberation ("torn between …"), those near 0.6 would have
#: replaced a plain fact that stays true ("bought 12 sessions" by "not renewing them")
DECISION_SURE = 0.85
#: a decision that supersedes nothing points (``settles``) at the earlier memories or utterances that weighed the
#: choice it makes (at most SETTLED_AT_MOST, each at least SETTLES_SURE close, counting a named option as a
#: correction's named value counts): a decision says little of its topic ("定了陈师傅", "went with memoQ"), and
#: recall reaches it from the deliberation the question is close to
SETTLES = "settles"
SETTLED_AT_MOST = 2
SETTLES_SURE = 0.55
SETTLES_POOL = 8
SETTLED_TYPES = ("Fact", "Preference", "Hypothesis", "Task", "Plan", EPISODE)
#: ... also a memory of another type worded as a choice made ("Splitwise it is", "就用石英石"): off, dev did not gain
#: (docs/decisions/0041)
LINK_WORDED_CHOICES = False
#: a user's turn the learned model (:mod:`mnemir.understand.decision_turns`, fitted on the continuity train
#: conversations) reads as stating a choice made is kept as a decision Fact when no marker found one
#: (docs/decisions/0059)
LEARNED_DECISIONS = True
#: a user's statement that states a choice made is also kept as a decision Fact, whatever type the extractor gave it
#: (a feeling, a preference, a task, a fact of another attribute, a bare dialogue act): "what did I decide" looks for
#: decisions (docs/decisions/0050)
DECISIONS_FROM_ANY = True
#: the types such a statement may have been read as
DECISION_CARRIERS = ("Fact", "EmotionalState", "Preference", "Task", "Plan", "Hypothesis", "ContextualFrame", "DialogueAct")
#: general markers of a terse choice the decision cues miss (zh + en): "X it is", "gone with X", "stick with X",
#: "就它了", "那就X吧", "定X了", "就报X". Each names the option chosen (the named group)
_CHOSEN = re.compile(
    r"(?:^|[.!,;:]\s*|\band\s+)(?!(?:that|this|it|which|what|there|here|so|as)\b)(?P<e>[A-Z][\w'&-]*(?:\s+[\w'&-]+){0,3}) "
    r"it is(?=\s*(?:[.!,;]|$|then\b))|"
    r"\b(?:gone with|went for|going for|go for|gone for|sticking with|stick with|stuck with|sticking to|stick to|"
    r"we'?re doing it (?:at|with|in)|i'?ve made up my mind:?)\s+(?P<e2>[^,.;!?]{1,60}?)"
    r"(?:[,.;!?]|$| because| since| instead| over| rather| for now)|"
    r"(?P<z0>就(?:它|这个|那个|这家|这款|这套|这么定)了)|(?:那就|就定|定了?)(?P<z>[^，,。！!？?]{1,12}?)(?:吧|了)(?:[，,。！!]|$)|"
    r"(?<![约确规一固决稳预指特肯否制设鉴认限注搞])定(?P<z2>[^，,。！!？?了的下来期时位金]{1,10}?)(?:了|！|!)|"
    r"(?:就|还是)(?:报|买|用|选|要|上|订|去|考|找|接)(?P<z3>[^，,。！!？?]{1,12})|"
    r"(?:决定了|定了|想好了|想清楚了|拍板了)[，,：:！!]\s*(?P<z4>[^，,。！!？?]{1,15})", re.I)
#: ... not when the statement asks, hedges or only considers
_NOT_CHOSEN = re.compile(r"[?？]|要不要|吗|考虑|犹豫|纠结|还没|不知道|\b(?:maybe|might|not sure|thinking (?:of|about)|if|whether|"
                         r"considering|torn|undecided)\b", re.I)


#: general markers (zh + en) of options still being weighed: a turn with one states no choice made (the learned reading
#: of a choice, docs/decisions/0059, read such turns as decisions)
_DELIBERATES = re.compile(r"\b(?:weigh(?:ing)?(?: up)?|compar(?:e|ing)|choosing between|deciding between|torn between|"
                          r"leaning (?:towards?|to)|either\b[^.!?]{1,60}\bor)\b|在考虑|比较一下|对比|二选一|还在选|选哪|倾向", re.I)
#: general markers (zh + en) of putting a choice off ("X再说", "看情况", "到时候再看", "we'll see", "decide later",
#: "hold off"): a clause with one states no choice made. A turn read as a decision (the learned reading) is kept as one
#: only when what it says besides its deferring clauses is still read as a choice (DEFERRALS_LEFT_OUT)
DEFERRALS_LEFT_OUT = True
_DEFERS = re.compile(r"再说|看情况|视情况|到时候(?:再)?(?:看|说|定|决定)|回头再(?:看|说|定|决定)|以后再(?:看|说|定|决定)|"
                     r"再(?:看看|考虑|决定|定)|(?:先|暂时|暂且)(?:放(?:着|一放|一下)|搁(?:着|一搁|置)|不(?:定|决定|急|管))|"
                     r"\b(?:(?:decide|figure (?:it|that|this) out|sort (?:it|that|this) out|think about (?:it|that|this)|"
                     r"see|worry about (?:it|that|this)) later|decide (?:it )?(?:after(?:wards)?|once|when)|"
                     r"(?:we'?ll|let'?s|i'?ll|we will|i will) (?:just )?see(?=\s*(?:[.,;!?]|$|how|what|if|whether))|"
                     r"wait and see|see how (?:it|things|that) go(?:es)?|play it by ear|hold(?:ing)? off|"
                     r"put(?:ting)? (?:it|that|this|the \w+) off|leave it (?:for now|till|until|open)|"
                     r"park(?:ing)? (?:it|that|this)|sleep on it|cross that bridge|revisit|come back to (?:it|that|this)|"
                     r"no rush|not (?:deciding|decided) yet)\b", re.I)
#: a clause of a turn: split at sentence and clause punctuation
_CLAUSES = re.compile(r"[^，,。.；;！!？?\n]+[，,。.；;！!？?\n]*")


def _without_deferrals(text: str) -> str | None:
    """``text`` without its clauses that put a choice off (_DEFERS); None when it has none."""
    if not DEFERRALS_LEFT_OUT or not _DEFERS.search(text):
        return None
    return "".join(c for c in _CLAUSES.findall(text) if not _DEFERS.search(c)).strip(" ，,。.；;！!")


#: words with 定 that make no choice ("约定", "确定", "一定", "搞定"): left out before the markers are read
_NOT_A_CHOICE = re.compile(r"[约确规一固稳预指特肯否制设鉴认限注搞]定")


def _choice_of(text: str) -> dict[str, object] | None:
    """A decision's fact properties when ``text`` states a choice made (the decision cues, else the terse-choice
    markers above); None when it asks, hedges or only weighs the options."""
    if _NOT_CHOSEN.search(text):
        return None
    text = _NOT_A_CHOICE.sub("", text)
    found = fill.decision_of(text)
    if found is not None:
        return found
    m = _CHOSEN.search(text)
    if m is None:
        return None
    value = re.sub(r"\s+(?:in the end|after all|then)$", "", next((v for v in m.groupdict().values() if v), "").strip(
        " ，,。.!！"), flags=re.I)
    if not value or _ONLY_POINTS.fullmatch(value):
        return None  # "那就这样吧", "that's it then": an agreement that names no option (a proposal's confirmation)
    if DEFERRALS_LEFT_OUT and _DEFERS.search(value):
        return None  # "那就等明年再说吧": what is "chosen" is to choose later
    entity = re.sub(r"^(?:the|a|an|our|my|to)\s+", "", value.lower()).strip() or "user"
    return {"entity": entity[:80], "attribute": "decision", "value": value[:120]}


#: a chosen "option" that only points (这样 / 那个 / that): no option named
_ONLY_POINTS = re.compile(r"(?:这|那)(?:样|个|么办|么定|么着)?|就这样|(?:that|this|it|so)", re.I)


#: general markers of a change of mind (zh + en): what the user says now replaces what they said before
_CHANGED = re.compile(r"改主意|改变主意|变卦|改成|改为|换成|改用|不要.{0,10}了|不想.{0,10}了|现在(?:想|要|更|倾向|改|打算)|还是.{0,12}吧|"
                      r"想通了|想了想|不再|\b(?:changed? (?:my|our) minds?|change of (?:heart|plan)|after all|instead|"
                      r"i know i said|no longer|not any ?more|anymore|gone off|on second thought|now i(?:'d| would)? "
                      r"(?:want|prefer|rather|think)|switch(?:ed|ing)? to|i'?d rather)\b", re.I)
#: the stronger of those markers, said of a stance (not "instead" / "after all" alone, which also tell of a plan): an
#: utterance with one that replaced nothing read from it takes back the earlier utterance closest in meaning
#: (docs/decisions/0057)
CHANGED_EPISODES = True
CHANGED_UTTERANCE_SURE = 0.5
_CHANGED_MIND = re.compile(r"改主意|改变主意|变卦|想通了|不再|不想再|现在(?:想|更|倾向|改|打算)|以后都|从现在起|"
                           r"\b(?:changed? (?:my|our) minds?|change of (?:heart|plan)|i know i said|on second thought|"
                           r"gone off|gone back to|gone right off|no longer|not any ?more|from now on)\b", re.I)
#: a clause that only announces a correction or a change ("Oops, I got that wrong:", "我记错了，") says nothing
#: about what is corrected: left out when the correction is compared with what it may correct
_LEAD = re.compile(r"^[^,:;，：；—]{0,40}?(?:[,:;，：；—]|\s-\s)\s*")
LEAD_WORDS = 6
LEAD_HAN = 8
#: a candidate that states the very value a correction takes back ("不是20桌" / "not the 20th") gains this much
NAMED_VALUE_BONUS = 0.35
#: ... also from the utterance itself (its Episode) when nothing read from it did (it was read as a move of a date or a
#: report, not as a correction): docs/decisions/0050
NAMED_VALUE_EPISODES = True
#: a correction that names the value it takes back links (``corrects``) to at most this many earlier utterances
#: that state it, of the closest CORRECTED_UTTERANCES_POOL, each at least this close in meaning (besides the value)
CORRECTED_UTTERANCES = 2
CORRECTED_UTTERANCES_POOL = 8
CORRECTED_UTTERANCE_SURE = 0.2
#: a confirmation says little besides its affirmation: at most this many Chinese characters / English words more
CONFIRM_REST_HAN = 12
CONFIRM_REST_WORDS = 8
#: general affirmation markers (zh + en): a short user turn made of these confirms what the assistant proposed
_CONFIRMS = re.compile(r"^(?:好(?:的|啊|呀|吧)?|行(?:啊|吧)?|可以(?:啊|的)?|嗯+|对|没问题|就这么办|就这样|就按你说的|麻烦(?:你)?了|"
                       r"那就(?:这样|这么办|麻烦你了)|来吧|弄吧|办吧|安排|你(?:看着)?(?:弄|办|安排)吧|"
                       r"(?:yes|yeah|yep|yup|sure|ok(?:ay)?|please(?: do)?|go ahead|do (?:it|that|so)|sounds good|"
                       r"let'?s do (?:it|that)|that works|that'?s (?:fine|great|perfect)|perfect|great|that'?d be great|"
                       r"absolutely|why not|that sounds (?:good|great|fine))\b)", re.I)
#: ... unless the same turn takes it back or puts a condition ("yes, but…", "好是好，不过…")
_BUT = re.compile(r"不过|但是|可是|不用|不要|算了|\b(?:but|not|no|don'?t|instead)\b", re.I)
#: an offer the assistant makes to do the work itself ("Shall I sketch a seating plan for the dinner?", "要不要我帮你把行李清单分成两列？"): once the
#: user accepts it, the work is the assistant's and its next turn in the conversation delivers it (the draft, the
#: list): the task is then done, not the user's open work (docs/decisions/0050). General markers of the first person
#: offering (zh + en)
OFFERS_DELIVERED = True
_OFFERS_ITSELF = re.compile(r"要不要我|需不需要我|需要我|要我|我(?:来|先|可以|能)?(?:帮|给|替)(?:你|您)|我来|"
                            r"\b(?:shall i|should i|can i|could i|may i|want me to|like me to|i can|i could|let me)\b",
                            re.I)
#: ... unless what is offered keeps track of the user's own work (a reminder, a note, a flag): that work stays open
_KEEPS_TRACK = re.compile(r"提醒|记下|记上|记一下|记着|加到|备注|标(?:一下|上)|\b(?:remind|reminder|note|flag|add|track|hold|"
                          r"keep)\b", re.I)
#: ... and an assistant turn that puts the work off ("happy to, once you send the dates over", "回头整理好发你") delivers nothing yet
_PUTS_OFF = re.compile(r"回头|下次|稍后|晚点|之后再|等你|\b(?:once you|when you|later|next time|will do)\b", re.I)
#: an assistant turn delivers only when it says more than an acknowledgement: at least this many Chinese characters
#: or English words
DELIVERY_HAN = 15
DELIVERY_WORDS = 10
#: the user's yes to the assistant's question whether some work was done ("Did the permit form go in?" -> "Yes, last
#: week"; "车票买了吗？" -> "买了，周五的") reports that work done: an answer leaves out what the question names, so the
#: question's sentence is the report's text, matched to the open tasks as any report is (a clear one moves, two that
#: fit alike are asked about). A no ("not yet", "还没") moves nothing, and such a question is no proposal the yes
#: accepts (docs/decisions/0097)
ANSWERED_STATUS_QUESTIONS = False
#: general markers of a yes/no question about work done: English opens it with a past or perfect auxiliary ("did
#: you / did the …", "have you / has it …") or ends it with "yet"; Chinese asks with the perfective and a question
#: particle ("…了吗", "…了没(有)", "…过了吗")
_STATUS_QUESTION = re.compile(r"(?:^|[.!?,;:]\s+|\b(?:and|so|also|oh)\s+)(?:did|have|has|had)\s+(?:you|they|he|she|it|that|"
                              r"this|the|your|we)\b[^?]*\?|\byet\s*\?|[了过](?:吗|嘛|没有?)[？?]", re.I)
#: a yes to it: an English turn opening with an affirmation; a Chinese one opening with an affirmation or echoing a
#: verb in the perfective ("下了", "看过了", "交上去了", "办好了"): Chinese answers a yes/no question by its verb
_YES = re.compile(r"^(?:yes|yeah|yep|yup|ya|sure did|i did|we did|it did|they did|did it|done|all done|absolutely|"
                  r"definitely)\b|^(?:对|是的|嗯+|有|当然)(?:[，,。！!]|$)|^[\u4e00-\u9fff]{1,5}(?:了|过了|好了|完了)(?:[，,。！!\s]|$)",
                  re.I)
#: ... and not a no: a negation in its first clause
_NO_FIRST = re.compile(r"^[^，,。.；;！!？?]*(?:没|不|未|别|\b(?:no|not|nope|never|nah|haven'?t|hasn'?t|didn'?t|wasn'?t|"
                       r"isn'?t|aren'?t|won'?t)\b)", re.I)


def _status_question(text: str) -> str | None:
    """The sentence of an assistant turn that asks whether some work was done, or None."""
    for sentence in re.findall(r"[^.!?。！？]*[?？]", text):
        sentence = re.split(r"[，,：:；;]", sentence)[-1] if re.search(r"[\u4e00-\u9fff]", sentence) else sentence
        if _STATUS_QUESTION.search(sentence.strip()):
            return sentence.strip()  # a Chinese question is its last clause ("对了，报名表交了吗？")
    return None


def _says_yes(text: str) -> bool:
    """A user turn that answers a yes/no question with yes."""
    stripped = text.strip()
    return bool(_YES.match(stripped)) and not _NO_FIRST.search(stripped)


def _confirms(text: str) -> bool:
    """A user turn that accepts what was proposed: it begins with an affirmation, does not hedge or refuse, and says
    little else (a long turn that opens with "对，…" / "yes, …" goes on to say something of its own)."""
    m = _CONFIRMS.match(text.strip())
    if m is None or _BUT.search(text):
        return False
    rest = text.strip()[m.end():]
    return len(re.findall(r"[\u4e00-\u9fff]", rest)) <= CONFIRM_REST_HAN and len(re.findall(r"[A-Za-z]+", rest)) <= CONFIRM_REST_WORDS


@dataclass(frozen=True)
class Candidate:
    """A memory an update or correction might be about, and why it matched."""

    id: str
    text: str
    score: float
    reasons: tuple[str, ...]
    #: the cosine of the two texts alone (``score`` adds the bonuses for shared entities and words)
    similarity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "score": round(self.score, 3), "reasons": list(self.reasons)}


@dataclass
class Confirmation:
    """A change the understanding step would make but is not sure where: ask the user, then ``mem.confirm``."""

    kind: str  # "update" (task status), "postpone" (task deadline), "correction" (supersede a fact) or "change" (the
    #            new statement, stored already, replaces the chosen one)
    utterance: str
    question: str
    candidates: list[Candidate]
    status: str | None = None  # for updates: the new task status
    record: MemIR | None = None  # for corrections: the new fact (for changes: the new statement, stored)
    user: str | None = None
    now: datetime | None = None
    deadline: str | None = None  # for postponements ("postpone"): the new deadline

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "utterance": self.utterance, "question": self.question, "status": self.status,
                "record": self.record.to_dict() if self.record is not None else None,
                "candidates": [c.to_dict() for c in self.candidates]}


class Remembered(list[MemIR]):
    """The memories a ``remember``/``ingest`` call created or changed (a list), plus what it did and asks.

    ``created``: new records; ``updated``: existing records it changed (task status, superseded facts);
    ``confirmations``: changes it did not dare to make; ``extractions``: what was read from each utterance;
    ``notes``: anything dropped or skipped, and why.
    """

    def __init__(self) -> None:
        super().__init__()
        self.created: list[MemIR] = []
        self.updated: list[MemIR] = []
        self.confirmations: list[Confirmation] = []
        self.extractions: list[Extraction] = []
        self.notes: list[str] = []
        #: the Episode each utterance was kept as (verbatim), in order
        self.episodes: list[MemIR] = []

    @property
    def episode(self) -> MemIR | None:
        """The last utterance's Episode (``remember`` keeps one per utterance)."""
        return self.episodes[-1] if self.episodes else None

    @episode.setter
    def episode(self, record: MemIR) -> None:
        self.episodes.append(record)

    def absorb(self, other: Remembered) -> None:
        self.extend(other)
        self.episodes += other.episodes
        self.created += other.created
        self.updated += other.updated
        self.confirmations += other.confirmations
        self.extractions += other.extractions
        self.notes += other.notes

    def to_dict(self) -> dict[str, Any]:
        return {"episodes": [r.to_dict() for r in self.episodes],
                "created": [r.to_dict() for r in self.created], "updated": [r.to_dict() for r in self.updated],
                "confirmations": [c.to_dict() for c in self.confirmations],
                "extractions": [e.to_dict() for e in self.extractions], "notes": self.notes}


@dataclass
class _Context:
    user: str | None
    agent: str | None
    session: str | None
    speaker: str
    turn: int | None
    now: datetime
    creator: str
    act: str
    language: str
    out: Remembered = field(default_factory=Remembered)
    #: the id of this utterance's Episode (what the typed memories read from it link to)
    episode: str | None = None
    #: the utterance itself
    text: str = ""
    #: memories this utterance already superseded (two corrections in one turn must not replace the same one twice)
    replaced: set[str] = field(default_factory=set)
    #: task drafts read as reports on an open task (applied as updates once the new memories are written)
    reports: list[Draft] = field(default_factory=list)
    #: open tasks statements with no report reading were read to close (UNMARKED_REPORT_MATCH), with the status
    #: ("deferred": kept open, UNMARKED_OUTCOMES / REPORT_OUTCOMES) and the later deadline a deferral names (or None)
    outcomes: list[tuple[Candidate, str, str | None]] = field(default_factory=list)
    #: the assistant's question whether some work was done, which this user turn answers with yes
    answered: str | None = None
    #: id of a report draft -> (worded as done, told as having happened), as it was read among the statements
    report_reading: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    #: reports of work done that match no open task, with their status (tried on untasked utterances once written)
    unmatched: list[tuple[Draft, str]] = field(default_factory=list)
    #: statements of a choice made, read as another type: also kept as decision Facts once the memories are written
    decisions: list[Draft] = field(default_factory=list)
    #: the speaker's label a transcript's turn opens with ("Dev: …" -> "Dev"), kept on what is read from it
    said_by: str | None = None
    #: the turn is part of a transcript recognised as one (its label was read off): compared by who said it
    in_transcript: bool = False
    #: the learned log-odds that the user's turn is talk between people (:mod:`mnemir.understand.talk`), kept on the
    #: Episode for recall to read over a store's turns (None: not read, or not a user's turn)
    talk: float | None = None


@dataclass(frozen=True)
class _Proposal:
    """What the assistant proposed on one turn, waiting for the user's answer."""

    goal: str
    text: str
    turn: int | None
    at: datetime
    #: the assistant offered to do it itself (see OFFERS_DELIVERED)
    offered: bool = False


class UnderstandingMixin(_Base):
    """``remember``, ``ingest``, ``intent`` and ``confirm`` on top of the core facade."""

    _understand_extractor: Any = None
    _understand_intent: IntentRecognizer | None = None
    #: (user, agent, session) -> the assistant's last proposal (held in this object for the next user turn)
    _understand_proposals: dict[tuple[str | None, str | None, str | None], _Proposal] | None = None
    #: (user, agent) -> how often each speaker's label opened the user's utterances (read back from the store the
    #: first time, then counted as they come)
    _transcript_labels: dict[tuple[str | None, str | None], Counter[str]] | None = None
    #: per conversation, the task the user accepted from the assistant's offer to do it itself, waiting for the
    #: assistant's next turn to deliver it
    _understand_deliveries: dict[tuple[str | None, str | None, str | None], str] | None = None
    #: per conversation, the assistant's last question whether some work was done (ANSWERED_STATUS_QUESTIONS)
    _understand_questions: dict[tuple[str | None, str | None, str | None], str] | None = None

    @property
    def _lifecycle(self) -> LifecycleMixin:
        """This memory's lifecycle face (``update_task``, ``supersede``): Memory composes it with this mixin."""
        return cast("LifecycleMixin", self)

    # -- components ---------------------------------------------------------------
    def _understanding_embedder(self) -> Any:
        """The offline models are trained on the default embedder's vectors; use it even if the store uses another."""
        embedder = self.embedder
        return embedder if embedder.model_id == default_embedder().model_id else default_embedder()

    @property
    def extractor(self) -> Any:
        """The extractor ``remember`` uses: the offline one unless :meth:`use_extractor` set another (e.g. an LLM)."""
        if self._understand_extractor is None:
            self._understand_extractor = Extractor(self._understanding_embedder())
        return self._understand_extractor

    def use_extractor(self, extractor: Any) -> None:
        """Use another extractor (anything with ``extract(text, *, speaker, now) -> Extraction``)."""
        if not callable(getattr(extractor, "extract", None)):
            raise ValidationError("an extractor needs an extract(text, *, speaker, now) method", field="extractor",
                                  value=type(extractor).__name__)
        self._understand_extractor = extractor

    def intent(self, query: str, now: datetime | None = None) -> RetrievalIntent:
        """What ``query`` asks of memory: types, filters, order, entities, time range (visible and overridable)."""
        if self._understand_intent is None:
            self._understand_intent = IntentRecognizer(self._understanding_embedder())
        return self._understand_intent.recognize(query, now=now)

    # -- writing ------------------------------------------------------------------------
    @serialized
    def remember(self, text: str, *, speaker: str = "user", user: str | None = None, agent: str | None = None,
                 session: str | None = None, turn: int | None = None, now: datetime | None = None) -> Remembered:
        """Read one utterance and store what is worth keeping (see :mod:`mnemir.understand.extract` for the policy).

        The texts it embeds are embedded in two model calls (its pieces; then what extraction made of them, searched
        with and stored), not one call per search: ``ingest``'s path for one turn."""
        text = check_text(text)
        speaker = check_speaker(speaker)
        _check_turn(turn)
        # the texts it will embed, embedded together (its pieces, then what extraction made of them) as ingest does
        return self._ingest_batch([(speaker, text, turn, now)], user=user, agent=agent, session=session, now=None)[0]

    def _keep(self, text: str, speaker: str, extraction: Extraction, *, user: str | None, agent: str | None,
              session: str | None, turn: int | None, now: datetime, verbatim: str | None = None) -> Remembered:
        """What ``remember`` does with an utterance once it is read (``now``: its local time): what the dialogue so far
        makes of it (proposals, updates, corrections), then one store transaction."""
        ctx = _Context(user, agent, session, speaker, turn, now, extraction.creator, extraction.act,
                       extraction.language, text=text)
        _note_who_said_it(ctx, text, verbatim)
        self._read_talk(text, ctx)
        ctx.out.extractions.append(extraction)
        ctx.out.notes += extraction.notes
        self._track_proposal(extraction, text, ctx)
        # one utterance, one store transaction: the episode, corrections, new memories and task updates are queued
        # and written together (nothing of it is stored if any part fails)
        with self._lifecycle._gathering_reports() as report, self._one_transaction():
            episode = episode_of(text if verbatim is None else verbatim, ctx)
            ctx.episode = episode.id
            records = self._records_for(extraction.drafts, text, ctx)
            label = speaker_label(verbatim) if verbatim is not None and verbatim != text else None
            if label is not None and SAY_WHO_SAID_IT:
                records = [_said_by(r, label[0]) for r in records]
            stored = self._commit([episode, *records], now=now, actor=ctx.creator,
                                  vectors=self._reusable_vectors(extraction.drafts, [episode, *records]))
            ctx.out.episode = stored[0]
            ctx.out.created += stored[1:]
            self._wait_for_delivery(stored[1:], ctx)
            ctx.out.extend(stored[1:])
            for draft in [*extraction.updates, *ctx.reports]:
                self._apply_update(draft, text, ctx)
            for draft, status in ctx.unmatched:
                self._close_untasked(draft, status, ctx)
            self._apply_answered_question(text, ctx)
            self._apply_outcomes(text, ctx)
            for draft in ctx.decisions[:1]:
                self._record_decision(draft, text, ctx)
            self._learned_decision(text, ctx)
            self._take_back_named_value(text, ctx)
            self._outdate_stated_values(ctx)
            self._take_back_changed_stance(text, ctx)
        self._report_changes(report, ctx)
        return ctx.out

    def _report_changes(self, report: Any, ctx: _Context) -> None:
        """Every stored memory the call superseded, disputed or merged into goes to ``updated``, with a note
        naming the rule: nothing is replaced silently."""
        changed, notes = self._lifecycle._changed_by(report)
        known = {r.id for r in ctx.out.updated} | {r.id for r in ctx.out.created}
        for record, note in zip(changed, notes, strict=True):
            if record.id not in known:
                ctx.out.updated.append(record)
                ctx.out.notes.append(note)

    def _read_talk(self, text: str, ctx: _Context) -> None:
        """The learned reading of whether a user's turn is talk between people (``ctx.talk``; the turn's own words,
        without a transcript's speaker label). Kept on the Episode, acted on by recall only over many turns
        (``RecallConfig.talk_among_people``)."""
        if not READ_TALK or ctx.speaker != "user" or shipped_talk_turns() is None:
            return
        understanding = self._understanding_embedder()
        read = talk_log_odds(understanding.embed([text])[0], text, understanding.model_id)
        ctx.talk = None if read is None else round(read, 3)

    def _reusable_vectors(self, drafts: Sequence[Draft], records: Sequence[MemIR]) -> dict[str, Any]:
        """Record id -> the vector the extractor already made for its text, when that vector comes from the
        store's own embedder (so ``remember`` embeds each new memory once, not twice)."""
        if self._understanding_embedder().model_id != self.embedder.model_id:
            return {}
        by_text = {d.text[:MAX_TEXT_CHARS]: d.vector for d in drafts if d.vector is not None}
        return {r.id: by_text[r.content.text] for r in records if r.content.text in by_text}

    def ingest(self, turns: Iterable[Any], *, user: str | None = None, agent: str | None = None,
               session: str | None = None, now: datetime | None = None) -> Remembered:
        """Remember a whole conversation, in order (later turns may update what earlier turns created).

        Each turn is a dict ``{"text", "speaker"?, "turn"?, "now"?}``, a ``(speaker, text)`` pair or a plain
        string (said by the user). Every turn is checked before anything is written.

        The result is the one of ``remember`` called on each turn in order (the same memories, supersessions, task
        moves and confirmations), made faster: every INGEST_BATCH turns are embedded together (utterances and their
        pieces in one model call, then what extraction made of them in another) and stored in ONE store
        transaction (all of those turns or none of them).
        """
        if isinstance(turns, (str, bytes, Mapping)):
            raise ValidationError("turns must be a list of turns, not a single turn", field="turns",
                                  value=type(turns).__name__, allowed="a list of strings, (speaker, text) pairs or dicts")
        if now is not None:
            ensure_aware(now)
        parsed = [_parse_turn(item, i) for i, item in enumerate(turns)]
        out = Remembered()
        for start in range(0, len(parsed), INGEST_BATCH):
            for one in self._ingest_batch(parsed[start:start + INGEST_BATCH], user=user, agent=agent, session=session,
                                          now=now):
                out.absorb(one)
        return out

    @serialized
    def _ingest_batch(self, turns: Sequence[tuple[str, str, int | None, datetime | None]], *, user: str | None,
                      agent: str | None, session: str | None, now: datetime | None) -> list[Remembered]:
        """``remember`` of each turn in order, inside one store transaction (``serialized``: every write joins it),
        with the texts each turn will embed prefilled in two batches."""
        understanding = self._understanding_embedder()
        texts = [text for _, text, _, _ in turns]
        # a proposal the assistant made before this batch, which a user turn of it accepts, becomes a task: its text
        # is embedded with the first batch (not alone when the answer is read)
        waiting = (self._understand_proposals or {}).get((user, agent, session))
        accepted = [waiting.goal] if waiting is not None and any(
            speaker == "user" and _confirms(text) for speaker, text, _, _ in turns) else []
        # a transcript's turn "Name: words" is read as the words (the label says who speaks, not what is said); the
        # episode keeps the turn verbatim, label included
        heard = [self._words_of(speaker, text, user, agent) for speaker, text, _, _ in turns]
        unlabelled = [w for w, text in zip(heard, texts, strict=True) if w != text]
        with prefilled(understanding, [*texts, *unlabelled, *(p for t in heard for p in self._pieces_of(t)),
                                       *accepted]):
            read = [(words, speaker, self.extractor.extract(words, speaker=speaker, now=local_now(when or now)), turn,
                     local_now(when or now)) for (speaker, _, turn, when), words in zip(turns, heard, strict=True)]
            # an assistant's proposal is wanted only where a later user turn of this batch may accept it: a later
            # batch (a later remember) embeds it with the turn that accepts it (``accepted`` above), so embedding it
            # here too was a model call of its own for a vector nothing used
            accepting, later = [], False
            for who, said, _, _ in reversed(turns):
                accepting.append(later)
                later = later or (who == "user" and _confirms(said))
            wanted = [t for (_, _, extraction, _, _), accepts in zip(read, reversed(accepting), strict=True)
                      for t in _texts_to_embed(extraction, proposals=accepts)]
            # a store of another model embeds what it stores (utterances, drafts) and searches with itself
            with prefilled(understanding, wanted), \
                    prefilled(self.embedder, [*texts, *wanted] if self.embedder is not understanding else []):
                return [self._keep(words, speaker, extraction, user=user, agent=agent, session=session, turn=turn,
                                   now=local, verbatim=text)
                        for (words, speaker, extraction, turn, local), text in zip(read, texts, strict=True)]

    def _words_of(self, speaker: str, text: str, user: str | None, agent: str | None) -> str:
        """What a user's utterance says without a transcript's speaker label at its head ("Jonas: I fixed my bike."
        -> "I fixed my bike."): a label is read as one when it and another label have each opened at least
        ``TRANSCRIPT_LABELS`` earlier utterances of this user (a transcript of people talking labels every turn; a
        heading, "Noted: …", "清单：…", is said now and then)."""
        found = speaker_label(text) if READ_WITHOUT_LABEL and speaker == "user" else None
        if found is None:
            return text
        if self._transcript_labels is None or len(self._transcript_labels) >= MAX_LABELLED_SCOPES:
            self._transcript_labels = {}  # a bound on what is held: counting starts again
        seen = self._transcript_labels.get((user, agent))
        if seen is None:
            seen = self._transcript_labels[(user, agent)] = self._labels_kept(user, agent)
        name = found[0]
        transcript = seen[name] >= TRANSCRIPT_LABELS and any(n >= TRANSCRIPT_LABELS for other, n in seen.items()
                                                             if other != name)
        if name in seen or len(seen) < MAX_LABELS:
            seen[name] += 1
        return found[1] if transcript else text

    def _labels_kept(self, user: str | None, agent: str | None) -> Counter[str]:
        """How often each label opened the user's latest utterances kept in the store: counted again from what was
        said (not only what this process heard), so a reopened store goes on reading a transcript as one."""
        said = self.list(types=["Episode"], user=user, agent=agent, limit=LABELS_READ_BACK)
        counts = Counter(found[0] for episode in said if episode.metadata.source.speaker == "user"
                         and (found := speaker_label(episode.content.text)) is not None)
        return Counter(dict(counts.most_common(MAX_LABELS)))

    def _pieces_of(self, text: str) -> list[str]:
        """The pieces the offline extractor embeds to classify ``text`` (none for another extractor)."""
        return split_pieces(text) if isinstance(self.extractor, Extractor) else []

    @serialized
    def confirm(self, confirmation: Confirmation, choice: str | None) -> MemIR | None:
        """Apply a pending confirmation to the chosen memory id (``None``: the user said it is none of them)."""
        if choice is None:
            if confirmation.kind == "correction" and confirmation.record is not None:
                return self._commit([confirmation.record], now=confirmation.now, actor="confirm")[0]
            return None
        if choice not in {c.id for c in confirmation.candidates}:
            raise ValidationError("choice is not one of the candidates", field="choice", value=choice,
                                  allowed=[c.id for c in confirmation.candidates])
        if confirmation.kind == "postpone" and confirmation.deadline is not None:
            return self.update(choice, properties={"deadline": confirmation.deadline}, user=confirmation.user,
                               now=confirmation.now, reason=f"confirmed: {confirmation.utterance}", actor="confirm")
        if confirmation.kind == "change" and confirmation.record is not None:
            # the new statement is stored already: the chosen one is what it replaced
            reason = f"confirmed change: {confirmation.utterance}"
            self.update(choice, status="superseded", user=confirmation.user, now=confirmation.now, reason=reason,
                        actor="confirm")
            return self.update(confirmation.record.id, relationships=[Relationship(
                target=choice, relation="supersedes", properties={"reason": reason})], user=confirmation.user,
                now=confirmation.now, reason=reason, actor="confirm")
        if confirmation.kind == "update" and confirmation.status is not None:
            return self._set_task_status(choice, confirmation.status, user=confirmation.user, now=confirmation.now,
                                         reason=f"confirmed: {confirmation.utterance}", actor="confirm")
        if confirmation.record is None:
            raise ValidationError("this confirmation carries no record", field="confirmation")
        return self._lifecycle.supersede(choice, confirmation.record, user=confirmation.user, now=confirmation.now,
                                         reason=f"confirmed correction: {confirmation.utterance}")

    # -- records ------------------------------------------------------------------------------
    def _records_for(self, drafts: Sequence[Draft], text: str, ctx: _Context) -> list[MemIR]:
        made: dict[int, MemIR] = {}
        for index, draft in enumerate(drafts):
            if draft.kind == "update" or self._restates_open_task(draft, ctx) or self._reports_on_open_task(draft, ctx):
                continue
            made[index] = self._to_record(draft, ctx)
        for index, draft in enumerate(drafts):
            if draft.type == "Plan" and index in made:
                made[index] = self._link_step(made[index], draft, made.get(draft.parent) if draft.parent is not None
                                              else None, ctx)
        order = sorted(made)
        linked = dict(zip(order, self._link_entities([made[i] for i in order], ctx), strict=True))
        records = []
        changing = ctx.speaker == "user" and bool(_CHANGED.search(text))
        # a value said to have changed ("has been moved to the 19th", "现在降到392万") replaces the statement it updates
        updating = VALUE_UPDATES and ctx.speaker in ("user", "tool", "system") and bool(_UPDATED.search(text))
        for index in order:
            draft, record = drafts[index], linked[index]
            if ctx.speaker == "user":
                draft, record = _as_correction(draft, record, text)
            if draft.kind == "correction" and ctx.speaker == "user":
                record = self._link_corrected_utterances(record, draft, ctx)
            if draft.kind == "correction" and self._apply_correction(record, draft, text, ctx):
                continue
            changed_here = changing and _marked_in_statement(_CHANGED, draft.text, text)
            if changed_here and draft.kind != "correction" and draft.type in CHANGING_TYPES \
                    and self._replace_by_meaning(record, draft, text, ctx, types=CHANGED_TYPES, what="change"):
                continue
            if updating and not changed_here and draft.kind != "correction" and draft.type in CHANGING_TYPES \
                    and _marked_in_statement(_UPDATED, draft.text, text) \
                    and self._replace_by_meaning(record, draft, text, ctx, types=UPDATED_TYPES, what="change"):
                continue
            if LEARNED_CHANGES and ctx.speaker in ("user", "tool", "system") and draft.kind != "correction" \
                    and draft.type in LEARNED_CHANGE_NEW_TYPES and draft.properties.get("attribute") != "decision" \
                    and self._replace_by_learned_change(record, draft, text, ctx):
                continue
            if DECISIONS_FROM_ANY and ctx.speaker == "user" and draft.kind == "memory" and draft.type in DECISION_CARRIERS \
                    and draft.properties.get("attribute") != "decision" and _choice_of(draft.text) is not None \
                    and not CUES["request"].search(draft.text):
                ctx.decisions.append(draft)
            if ctx.speaker == "user" and draft.type == "Fact" and draft.kind != "correction" \
                    and draft.properties.get("attribute") == "decision":
                if self._replace_by_meaning(record, draft, text, ctx, types=DECIDED_TYPES, what="decision"):
                    continue
                record = self._link_settled(record, draft, ctx)
            elif LINK_WORDED_CHOICES and ctx.speaker == "user" and record.type in DECISION_TYPES \
                    and states_decision(record):
                record = self._link_settled(record, draft, ctx)  # a choice read as a plan, a task, a preference
            records.append(record)
        return records

    def _restates_open_task(self, draft: Draft, ctx: _Context) -> bool:
        """The assistant repeating a request back ("收到，这就记上：…") is not a second task."""
        if ctx.speaker != "assistant" or draft.type != "Task":
            return False
        candidates = self._best_open_tasks(draft, ctx, k=3)
        if not candidates or candidates[0].score < RESTATED_TASK:
            return False
        best = candidates[0]
        ctx.out.notes.append(f"the assistant restated open task {best.id} ({best.text!r}); not stored again: "
                             + "; ".join(best.reasons))
        return True

    def _reports_on_open_task(self, draft: Draft, ctx: _Context) -> bool:
        """A user's "task" that says the work is done or dropped ("Booked the vet for Thursday", "护照材料交了") and
        is clearly about one open task is a report on it, not a new task: it is applied as an update. So is a
        user's statement of another type told as having happened (the perfective aspect: "rang both garages",
        "签证办下来了") that is clearly about one open task and shares a content word with it: it is applied as an
        update, and a statement that is not itself a task or plan is also kept (False: it is stored too)."""
        if ctx.speaker != "user" or draft.kind not in ("memory", "correction"):
            return False
        worded = draft.type == "Task" and draft.kind == "memory" and _reads_as_report(draft.text)
        # work said to be needed no more ("don't need his quote anymore", "不用再约了") is dropped work, not work ahead
        cancelled = CANCELLED_REPORTS and not draft.replaces \
            and (draft.type in REPORTING_TYPES or (CANCELS_FROM_PREFERENCE and draft.type == "Preference")) \
            and bool(_CANCELS.search(draft.text)) and not CUES["question"].search(draft.text)
        told = (ASPECT_REPORTS and draft.type in REPORTING_TYPES and not draft.replaces and fill.perfective(draft.text)
                and not _AHEAD.search(draft.text) and not CUES["question"].search(draft.text)) or cancelled
        told_part = None if worded or told or draft.type not in REPORTING_TYPES or draft.replaces \
            else _told_before_ahead(draft.text)
        told = told or told_part is not None
        whole = draft.text
        if told_part is not None:  # the report is matched by what it tells as done, not by what follows it
            draft = Draft(draft.type, told_part, draft.properties, kind=draft.kind, confidence=draft.confidence,
                          entities=find_entities(told_part), reasons=draft.reasons)
        if not worded and not told:
            model = shipped_unmarked_reports() if UNMARKED_REPORT_MATCH else None
            if (REPORT_PAIR_LOG is not None or model is not None) and draft.type in REPORTING_TYPES \
                    and not draft.replaces and not _AHEAD.search(draft.text) and not CUES["question"].search(draft.text):
                # a statement with no report reading may still tell how an open task came out (the result told
                # instead of the deed, someone else's answer): the trainers see it; the learned reading may act on it
                unmarked = [c for c in self._best_open_tasks(draft, ctx, types=("Task", "Plan"))
                            if c.score >= MATCH_FLOOR or _term_sure(c)]
                if REPORT_PAIR_LOG is not None:
                    self._report_decision(draft, ctx.text, unmarked, ctx, route="unmarked",
                                          status=fill.update_status(draft.text), rule=False)
                if model is not None and unmarked:
                    self._read_unmarked_report(draft, unmarked, model, ctx)
            return False
        candidates = self._best_open_tasks(draft, ctx, types=("Task", "Plan"))
        sure = REPORT_SURE if worded else ASPECT_REPORT_SURE
        status = "failed" if cancelled else fill.update_status(told_part or draft.text)
        if not candidates:
            if status in CLOSED_REPORTS:
                # no open task at all: it may report work stated earlier and never read as a task
                ctx.unmatched.append((draft, status))
                if worded:  # a task worded as done ("Finally booked the plumber") is stored done, not pending
                    draft.properties["status"] = status
            return False
        rule = (candidates[0].score >= sure or _term_sure(candidates[0])) \
            and (len(candidates) < 2 or candidates[0].score - self._runner_up(candidates) >= MATCH_MARGIN) \
            and (worded or _shares(candidates[0]))
        pool = [c for c in candidates if c.score >= MATCH_FLOOR or _term_sure(c)]
        if (LEARNED_REPORT_MATCH and status in CLOSED_REPORTS and shipped_report_tasks(WRITTEN_PAIRS) is not None) \
                or REPORT_PAIR_LOG is not None:
            moves, ranked = self._report_decision(draft, ctx.text, pool, ctx, route="report", status=status, rule=rule,
                                                  worded=worded, told=told)
        else:
            moves, ranked = rule, candidates
        if not moves or not ranked:
            return False
        candidates = ranked
        report = Draft("Task", draft.text, {"status": status, "goal": fill.strip_request(draft.text)}, kind="update",
                       confidence=draft.confidence, entities=draft.entities,
                       reasons=[*draft.reasons, f"a report of work {status} on an open task"])
        report.vector = draft.vector
        ctx.reports.append(report)
        ctx.report_reading[id(report)] = (worded, told)
        # work of one's own told after the report ("…, now I need to sort the hotel") is kept as the task it states
        keeps = told_part is not None and _own_work_after(whole, told_part)
        ctx.out.notes.append(f"read {draft.text!r} as a report ({status}) on open task {candidates[0].id}"
                             + (", not a new task" if draft.type in ("Task", "Plan") and not keeps else ""))
        return draft.type in ("Task", "Plan") and not keeps

    def _to_record(self, draft: Draft, ctx: _Context) -> MemIR:
        self._resolve_pronoun(draft, ctx)
        self._resolve_relation(draft, ctx)
        props = {k: _plain(v) for k, v in draft.properties.items() if v is not None}
        extra: dict[str, Any] = {"dialogue_act": ctx.act, "language": ctx.language,
                                 "extraction": {"confidence": round(draft.confidence, 3), "reasons": draft.reasons}}
        if draft.provenance:
            extra["provenance"] = draft.provenance
        extra.update(_who_said_it(ctx))
        keys = sorted({e.key for e in draft.entities})
        if keys:
            extra["entities"] = keys
        derived = [Relationship(target=ctx.episode, relation=DERIVED_FROM)] if ctx.episode else []
        return MemIR(
            content=Content(text=draft.text[:MAX_TEXT_CHARS]), type=draft.type, properties=props,
            scope=Scope(user_id=ctx.user, agent_id=ctx.agent, session_id=ctx.session),
            metadata=Metadata(created_at=ctx.now, updated_at=ctx.now,
                              source=Source(speaker=ctx.speaker, session_id=ctx.session, turn=ctx.turn,
                                            creator=ctx.creator, at=ctx.now), extra=extra),
            valid_from=ctx.now, relationships=derived,
        )

    def _link_step(self, step: MemIR, draft: Draft, parent: MemIR | None, ctx: _Context) -> MemIR:
        reason = "task stated in the same utterance"
        if parent is None:
            best = self._best_open_tasks(draft, ctx, k=3)
            if not best or best[0].score < MATCH_SURE:
                ctx.out.notes.append(f"plan step {draft.text!r}: no open task matches well enough; left unlinked")
                return step
            parent_id, reason = best[0].id, "; ".join(best[0].reasons)
        else:
            parent_id = parent.id
        props = {**step.properties, "associated_task_id": parent_id}
        rel = Relationship(target=parent_id, relation="subtask_of", properties={"why": reason})
        return step.model_copy(update={"properties": props, "relationships": [*step.relationships, rel]})

    def _link_entities(self, records: list[MemIR], ctx: _Context) -> list[MemIR]:
        """``related_to_entity`` links to this user's memories (and siblings) that mention the same entity."""
        keys = sorted({key for record in records for key in record.metadata.extra.get("entities") or []})
        mentions = {key: self._mentions(key, ctx) for key in keys}  # one search per entity, shared by the records
        out = []
        for record in records:
            links: list[Relationship] = []
            for key in record.metadata.extra.get("entities") or []:
                for target in [t for t in mentions[key] if t != record.id][:MAX_MENTIONS]:
                    links.append(Relationship(target=target, relation="related_to_entity",
                                              properties={"entity": key}))
                for sibling in records:
                    if sibling.id != record.id and key in (sibling.metadata.extra.get("entities") or []):
                        links.append(Relationship(target=sibling.id, relation="related_to_entity",
                                                  properties={"entity": key}))
            unique = list({(r.target, r.properties.get("entity")): r for r in links}.values())[:20]
            out.append(record.model_copy(update={"relationships": [*record.relationships, *unique]}) if unique
                       else record)
        return out

    def _mentions(self, key: str, ctx: _Context) -> list[str]:
        """Ids of this user's stored memories that mention entity ``key`` (best match first)."""
        hits = self.search(" ".join(aliases(key)), user=ctx.user, k=20, now=ctx.now)
        return [h.memory.id for h in hits if key in (h.memory.metadata.extra.get("entities") or [])]

    # -- updates -------------------------------------------------------------------------------
    def _best_open_tasks(self, draft: Draft, ctx: _Context, k: int = TASK_POOL,
                         types: Sequence[str] = ("Task",)) -> list[Candidate]:
        hits = self.search(draft.text, types=list(types), where={"status": {"$in": list(OPEN_STATUSES)}}, user=ctx.user, k=k,
                           now=ctx.now)
        return self._scored(draft, hits, entity=None, open_work=True)

    def _scored(self, draft: Draft, hits: Sequence[Any], *, entity: Any, open_work: bool) -> list[Candidate]:
        """The hits as candidates for what the draft is about, best first: cosine on the understanding embedder,
        plus ENTITY_BONUS for a shared entity (or the same ``entity`` property), plus TERM_BONUS per shared content
        term (up to TERMS_COUNTED)."""
        if not hits:
            return []
        query, vectors = self._draft_and_hit_vectors(draft, hits)
        contexts = self._utterance_contexts(hits) if open_work and TASK_CONTEXT else {}
        wanted = {e.key for e in draft.entities}
        terms = content_terms(draft.text)
        out = []
        for hit in hits:
            similarity = float(np.dot(query, vectors[hit.memory.id]))
            shared = wanted & set(hit.memory.metadata.extra.get("entities") or [])
            same = entity not in (None, "user", "general") and hit.memory.properties.get("entity") == entity
            if open_work:
                kind = "open task" if hit.memory.type == "Task" else f"open {hit.memory.type} step"
            else:
                kind = hit.memory.type
            reasons = [f"{kind}, text similarity {similarity:.2f}"]
            if shared:
                reasons.append("mentions " + ", ".join(sorted(shared)))
            if same:
                reasons.append(f"about the same {entity}")
            words = _shared_terms(terms, hit.memory.content.text)
            if words:
                reasons.append("shares " + ", ".join(words))
            score = similarity + TERM_BONUS * min(len(words), TERMS_COUNTED)
            context = contexts.get(hit.memory.id)
            if context is not None:
                around = _shared_terms(terms, context[0])
                in_context = float(np.dot(query, context[1])) - CONTEXT_DISCOUNT \
                    + TERM_BONUS * min(len(set(words) | set(around)), TERMS_COUNTED)
                if in_context > score:
                    score = in_context
                    reasons.append(f"said in an utterance of similarity {in_context + CONTEXT_DISCOUNT:.2f}")
                    extra = sorted(set(around) - set(words))
                    if extra:
                        reasons.append("shares in its utterance " + ", ".join(extra))
            score += ENTITY_BONUS if shared or same else 0.0
            out.append(Candidate(hit.memory.id, hit.memory.content.text, score, tuple(reasons), similarity))
        return sorted(out, key=lambda c: -c.score)

    def _utterance_contexts(self, hits: Sequence[Any]) -> dict[str, tuple[str, Any]]:
        """Task id -> the text and vector (understanding embedder) of the utterance it was read from, when that
        utterance says more than the task itself."""
        source: dict[str, str] = {}
        for h in hits:
            target = next((r.target for r in h.memory.relationships if r.relation == DERIVED_FROM), None)
            if target:
                source[h.memory.id] = target
        if not source:
            return {}
        episodes = {r.id: r for r in self.store.fetch(sorted(set(source.values()))) if r.type == EPISODE}
        texts = {h.memory.id: episodes[e].content.text for h in hits
                 if (e := source.get(h.memory.id, "")) in episodes
                 and len(episodes[e].content.text) > len(h.memory.content.text) + 1}
        if not texts:
            return {}
        understanding = self._understanding_embedder()
        ids = sorted({source[t] for t in texts})
        vectors: dict[str, Any] = {}
        if understanding.model_id == self.embedder.model_id:
            users = {episodes[e].scope.user_id for e in ids}
            vectors = dict(self.store.vectors(ids, user=users.pop() if len(users) == 1 else ANY))
        missing = [e for e in ids if e not in vectors]
        if missing:
            vectors.update(zip(missing, understanding.embed([episodes[e].content.text for e in missing]), strict=True))
        return {t: (text, vectors[source[t]]) for t, text in texts.items() if source[t] in vectors}

    def _draft_and_hit_vectors(self, draft: Draft, hits: Sequence[Any]) -> tuple[Any, dict[str, Any]]:
        """The draft's vector and each hit's, on the understanding embedder. Stored vectors serve only when they
        come from the same model (the same length is not enough); the rest are embedded here, in one batch."""
        understanding = self._understanding_embedder()
        query = draft.vector if draft.vector is not None else understanding.embed([draft.text])[0]
        same_model = understanding.model_id == self.embedder.model_id
        users = {h.memory.scope.user_id for h in hits}
        vectors = dict(self.store.vectors([h.memory.id for h in hits], user=users.pop() if len(users) == 1 else ANY)) \
            if same_model else {}
        missing = [h.memory for h in hits if h.memory.id not in vectors]
        if missing:
            made = understanding.embed([m.content.text for m in missing])
            vectors.update({m.id: vec for m, vec in zip(missing, made, strict=True)})
        return query, vectors

    def _apply_update(self, draft: Draft, text: str, ctx: _Context) -> None:
        if draft.properties.get("postponed"):
            self._apply_postponement(draft, text, ctx)
            return
        if ctx.speaker == "user":
            self._record_decision(draft, text, ctx)
        status = str(draft.properties["status"])
        candidates = [c for c in self._best_open_tasks(draft, ctx, types=("Task", "Plan"))
                      if c.score >= MATCH_FLOOR or _term_sure(c)]
        moves: bool | None = None
        if candidates:
            reading = ctx.report_reading.get(id(draft))
            worded, told = reading or (_reads_as_report(draft.text), fill.perfective(draft.text))
            moves, candidates = self._report_decision(draft, text, candidates, ctx,
                                                      route="report" if reading else "update", status=status,
                                                      rule=self._clear_lead(candidates), worded=worded, told=told)
        else:
            candidates = self._report_in_its_utterance(draft, text, status, ctx)
            moves = bool(candidates)
        if not candidates:
            if ctx.speaker == "user" and status in CLOSED_REPORTS:
                # the utterance that stated the work, never read as a task, is marked done (``completes``)
                self._close_untasked(draft, status, ctx)
                if UNAPPLIED_REPORTS_KEPT:
                    self._keep_closed_work(draft, status, ctx, text)
                    return
            if UNMARKED_REPORTS_REREAD and ctx.speaker == "user" and not says_how_work_stands(draft.text, status) \
                    and self._keep_reread(draft, text, ctx):
                return
            ctx.out.notes.append(f"status report ({status}) matches no open task of this user; nothing updated")
            return
        if moves and REPORT_OUTCOMES and ctx.speaker == "user" and status in CLOSED_REPORTS \
                and not CUES["done"].search(draft.text) and self._outcome(draft) == "deferred":
            # read as a report ("pushed it back to January" is told as a past deed; "can wait till spring" as the
            # work given up), but what it tells is the work put off: the task stays open
            self._defer(candidates[0], self._later_date(draft, ctx), text, ctx)
            return
        said = f"{ctx.speaker}" + (f", session {ctx.session}" if ctx.session else "") + (
            f", turn {ctx.turn}" if ctx.turn is not None else "")
        self._move_or_ask(candidates, bool(moves), status, text, ctx, by=f"reported by {said}")

    def _clear_lead(self, candidates: Sequence[Candidate]) -> bool:
        """The hand-set test of a report: its best open task fits surely and leads the best rival by MATCH_MARGIN."""
        return (candidates[0].score >= MATCH_SURE or _term_sure(candidates[0])) \
            and candidates[0].score - self._runner_up(candidates) >= MATCH_MARGIN

    def _move_or_ask(self, candidates: Sequence[Candidate], moves: bool, status: str, text: str, ctx: _Context, *,
                     by: str) -> None:
        """A report's outcome: its best open task moves to ``status``, or the user is asked which task it meant."""
        best = candidates[0]
        if moves:
            if best.id in self._queued_ids():  # this utterance already changed that task: read it as stored
                self._flush_queue()
            why = "; ".join(best.reasons)
            self._report_status(best.id, status, ctx, reason=f"{by} ({why}): {text}",
                                done=lambda _: f"moved {best.id} ({best.text!r}) to {status}: {why}",
                                failed=f"could not move task {best.id} to {status}")
            return
        question = (f"“{text}”说的是哪一件事？" if ctx.language == "zh" else f"Which task does “{text}” refer to?")
        ctx.out.confirmations.append(Confirmation("update", text, question, list(candidates[:3]), status=status,
                                                  user=ctx.user, now=ctx.now))

    def _runner_up(self, candidates: Sequence[Candidate]) -> float:
        """The score of the best open task other than ``candidates[0]`` that is other work: a task or plan step read
        from the same utterance as the best (two readings of one statement of work, a task and its restated step)
        is no rival for a report (docs/decisions/0059). 0.0 when none."""
        if len(candidates) < 2:
            return 0.0
        if not SAME_UTTERANCE_NO_RIVAL:
            return candidates[1].score
        records = {r.id: r for r in self.store.fetch([c.id for c in candidates])}

        def said_in(mid: str) -> tuple[str | None, int | None] | None:
            record = records.get(mid)
            if record is None or record.metadata.source.turn is None:
                return None
            return record.metadata.source.session_id, record.metadata.source.turn

        best = said_in(candidates[0].id)
        return max((c.score for c in candidates[1:] if best is None or said_in(c.id) != best), default=0.0)

    def _report_decision(self, draft: Draft, text: str, candidates: Sequence[Candidate], ctx: _Context, *,
                         route: str, status: str, rule: bool, worded: bool = False,
                         told: bool = False) -> tuple[bool, list[Candidate]]:
        """Whether a report moves its best open task, and the candidates best first. With the learned matcher
        (LEARNED_REPORT_MATCH, shipped), for a report told in a later session than its best task by match score was
        said in, the best is the candidate it reads most likely and it moves from the model's threshold with its lead
        over the best rival from another utterance, unless the two fit alike in meaning (TIE: asked); otherwise (in
        the same session, or with no model) ``rule``, the hand-set test, decides and the order is the match score's. Every decision is logged to REPORT_PAIR_LOG when
        the trainer set one."""
        # the matcher learned from reports that close work (done or dropped); progress reports keep the hand-set test
        model = shipped_report_tasks(WRITTEN_PAIRS) if LEARNED_REPORT_MATCH and status in CLOSED_REPORTS else None
        if not candidates or (model is None and REPORT_PAIR_LOG is None):
            return rule, list(candidates)
        raws, places = self._pair_raws(draft, text, candidates, ctx, route=route, status=status, worded=worded,
                                       told=told)
        if REPORT_PAIR_LOG is not None:
            REPORT_PAIR_LOG.append({"turn": ctx.turn, "session": ctx.session, "text": draft.text, "route": route,
                                    "status": status, "rule": rule, "rule_best": candidates[0].id,
                                    "pairs": [{"id": c.id, "turn": place[1] if place else None,
                                               "session": place[0] if place else None, "raw": raw}
                                              for c, raw, place in zip(candidates, raws, places, strict=True)]})
        if model is None or not raws[0]["other_session"]:
            # within the session its best task was said in, a report keeps the hand-set test: the matcher learned
            # from reports told in a later session (the train split has 2 right same-session pairs of 31)
            return rule, list(candidates)
        probabilities = [model.probability(raw) for raw in raws]
        order = sorted(range(len(candidates)), key=lambda i: -probabilities[i])
        best = order[0]
        rival = max((probabilities[i] for i in order[1:] if places[i] is None or places[i] != places[best]),
                    default=0.0)
        ranked = [Candidate(candidates[i].id, candidates[i].text, candidates[i].score,
                            (*candidates[i].reasons, f"report matcher p {probabilities[i]:.2f}"),
                            candidates[i].similarity) for i in order]
        alike = len(candidates) > 1 and raws[best]["lead"] < TIE  # two tasks that fit alike in meaning: ask
        return probabilities[best] >= model.threshold and probabilities[best] - rival >= model.lead and not alike, \
            ranked

    def _read_unmarked_report(self, draft: Draft, candidates: Sequence[Candidate], model: UnmarkedReports,
                              ctx: _Context) -> None:
        """A statement with no report reading whose best open task the learned reading
        (:mod:`mnemir.understand.unmarked_reports`) finds it closes, from the model's threshold and with its lead over
        the best rival from another utterance, closes that task once the utterance is written (``ctx.outcomes``):
        done, or dropped when it says the work was given up. Nothing is asked when it is unsure: the statement was
        never read as a report, and it is stored as what it is either way (docs/decisions/0102)."""
        raws, places = self._pair_raws(draft, ctx.text, candidates, ctx, route="unmarked",
                                       status=fill.update_status(draft.text), worded=False, told=False)
        probabilities = [model.probability(raw) for raw in raws]
        best = max(range(len(candidates)), key=lambda i: probabilities[i])
        rival = max((p for i, p in enumerate(probabilities)
                     if i != best and (places[best] is None or places[i] != places[best])), default=0.0)
        alike = len(candidates) > 1 and raws[best]["lead"] < TIE  # two tasks that fit alike in meaning: no guess
        if probabilities[best] < model.threshold or probabilities[best] - rival < model.lead or alike:
            return
        chosen = candidates[best]
        status = "failed" if CUES["abandon"].search(draft.text) else "completed"
        outcome = self._outcome(draft) if UNMARKED_OUTCOMES else None
        if outcome == "dropped":
            status = "failed"
        ctx.outcomes.append((Candidate(chosen.id, chosen.text, chosen.score,
                                       (*chosen.reasons, f"unmarked report p {probabilities[best]:.2f}"),
                                       chosen.similarity),
                             "deferred" if outcome == "deferred" else status,
                             self._later_date(draft, ctx) if outcome == "deferred" else None))

    def _outcome(self, draft: Draft) -> str | None:
        """What the statement says became of the work, as the learned report-outcome model reads it (done /
        started / deferred / dropped), or None where no model fits the understanding embedder."""
        model = shipped_report_outcomes()
        if model is None:
            return None
        embedder = self._understanding_embedder()
        vector = draft.vector if draft.vector is not None else embedder.embed([draft.text])[0]
        probabilities = outcome_of(model, vector, draft.text, embedder)
        if probabilities is None:
            return None
        if fill.POSTPONE.search(draft.text):  # a marker of work moved to another time ("pushed back", "改到")
            return "deferred"
        best = max(probabilities, key=lambda k: probabilities[k])
        if best == "deferred" and (probabilities[best] < DEFERRAL_SURE or (DEFERRAL_UNTOLD and (
                fill.perfective(draft.text) or CUES["done"].search(draft.text)))):
            return None  # the statement's own reading stands
        return best

    def _later_date(self, draft: Draft, ctx: _Context) -> str | None:
        """The date a deferral puts the work at: one the statement names after today (a statement told in the past
        names when something happened, not when the work is now due)."""
        if fill.perfective(draft.text) and not fill.POSTPONE.search(draft.text):
            return None
        found = fill.resolve_deadline(draft.text, ctx.now)
        if found is None:
            return None
        day = found.value.date() if isinstance(found.value, datetime) else found.value
        return found.value.isoformat() if day > ctx.now.date() else None

    def _apply_outcomes(self, text: str, ctx: _Context) -> None:
        """Close the tasks unmarked reports were read to close (one already moved by this utterance is left); a
        deferral keeps its task open and moves its deadline (UNMARKED_OUTCOMES / REPORT_OUTCOMES)."""
        for candidate, status, deadline in ctx.outcomes:
            if candidate.id in self._queued_ids() or candidate.id in {r.id for r in ctx.out.updated}:
                continue
            if status == "deferred":
                self._defer(candidate, deadline, text, ctx)
                continue
            self._move_or_ask([candidate], True, status, text, ctx, by="an outcome told without a done word")

    def _defer(self, candidate: Candidate, deadline: str | None, text: str, ctx: _Context) -> None:
        """The work was put off: the task stays in its open status (the update records that this turn spoke of
        it), with the later deadline the statement names where the task's type has one."""
        found = self.store.fetch([candidate.id])
        if not found:
            return
        record = found[0]
        properties: dict[str, Any] = {"status": record.properties.get("status") or "pending"}
        spec = self.ontology.resolve(record.type) if record.type in self.ontology else None
        if deadline is not None and spec is not None and ("deadline" in spec.properties or spec.allow_extra):
            properties["deadline"] = deadline
        updated = self.update(candidate.id, properties=properties, user=ctx.user, now=ctx.now, actor=ctx.creator,
                              reason=f"deferred by {ctx.speaker} ({'; '.join(candidate.reasons)}): {text}")
        ctx.out.notes.append(f"read as a deferral of {candidate.id} ({candidate.text!r}): kept open"
                             + (f", deadline {deadline}" if "deadline" in properties else ""))
        ctx.out.updated.append(updated)
        ctx.out.append(updated)

    def _pair_raws(self, draft: Draft, text: str, candidates: Sequence[Candidate], ctx: _Context, *, route: str,
                   status: str, worded: bool, told: bool) -> tuple[list[dict[str, Any]], list[tuple[str | None, int] | None]]:
        """The quantities the report matcher reads of each (report, candidate task) pair, and where each task was
        said ((session, turn), None when unknown)."""
        records = {r.id: r for r in self.store.fetch([c.id for c in candidates])}
        understanding = self._understanding_embedder()
        whole = understanding.embed([text])[0] if text.strip() and text.strip() != draft.text.strip() else None
        report = draft.vector if draft.vector is not None else understanding.embed([draft.text])[0]
        if understanding.model_id == self.embedder.model_id:
            vectors = dict(self.store.vectors([c.id for c in candidates], user=ctx.user))
        else:
            vectors = {}
        missing = [c for c in candidates if c.id not in vectors]
        if missing:
            vectors.update(zip([c.id for c in missing], understanding.embed([c.text for c in missing]), strict=True))

        def place(mid: str) -> tuple[str | None, int] | None:
            record = records.get(mid)
            if record is None or record.metadata.source.turn is None:
                return None
            return record.metadata.source.session_id, record.metadata.source.turn

        places = [place(c.id) for c in candidates]
        turns = [p[1] if p is not None else None for p in places]
        sessions = [p[0] if p is not None else None for p in places]
        by_recency = sorted(range(len(candidates)), key=lambda i: -(turns[i] or -1))
        recency = {i: r for r, i in enumerate(by_recency)}
        numbers = set(_NUMBER.findall(text))
        best_score = max(c.score for c in candidates)
        update_p = self._outcome_reading(draft, report)
        # the report's learned outcome is a feature of the refitted pair readings (and logged for their trainer)
        outcome = self._outcome_probabilities(draft, report) if WRITTEN_PAIRS or REPORT_PAIR_LOG is not None else None
        # the utterance around the statement tells something done ("…, done!", "拿到了"): its other piece may be the deed
        utterance_told = bool(CUES["done"].search(text)) or fill.perfective(text)
        raws = []
        for i, c in enumerate(candidates):
            rival = max((o.score for j, o in enumerate(candidates) if j != i
                         and (places[i] is None or places[j] != places[i])), default=0.0)
            vector = vectors.get(c.id)
            similarity = c.similarity if c.similarity is not None else (
                float(np.dot(report, vector)) if vector is not None else c.score)
            context = next((float(r.rsplit(" ", 1)[1]) for r in c.reasons
                            if r.startswith("said in an utterance of similarity ")), None)
            shared = next((len(r[len("shares "):].split(", ")) for r in c.reasons if r.startswith("shares ")), 0)
            record = records.get(c.id)
            said = turns[i]
            gap = ctx.turn - said if said is not None and ctx.turn is not None else None
            raws.append({
                "score": c.score, "similarity": similarity,
                "utterance_similarity": float(np.dot(whole, vector)) if whole is not None and vector is not None
                else similarity,
                "context_similarity": context, "lead": c.score - rival, "behind_best": best_score - c.score,
                "rank": i, "recency_rank": recency[i], "turn_gap": gap,
                "other_session": places[i] is not None and sessions[i] != ctx.session,
                "shared_terms": shared, "shared_entities": int(any(r.startswith("mentions ") for r in c.reasons)),
                "shared_numbers": int(bool(numbers & set(_NUMBER.findall(c.text)))),
                "candidates": len(candidates), "status": status, "worded": worded, "told": told,
                "task_type": record.type if record is not None else "Task", "route": route,
                "terse": len(content_terms(draft.text)) <= 2, "language": ctx.language, "update_p": update_p,
                "utterance_told": utterance_told, "outcome": outcome})
        return raws, places

    def _outcome_probabilities(self, draft: Draft, vector: Any) -> dict[str, float] | None:
        """What the report alone says became of the work (the learned outcome model's probabilities of done /
        started / deferred / dropped), or None where no model fits the understanding embedder."""
        model = shipped_report_outcomes()
        if model is None:
            return None
        return outcome_of(model, vector, draft.text, self._understanding_embedder())

    def _outcome_reading(self, draft: Draft, vector: Any) -> float | None:
        """How surely the extractor's classifier reads the statement as a report on earlier work (its TaskUpdate
        probability, though another label won): a learned reading of "this tells how some work came out", with no
        wording rule. None when the extractor in use has no such classifier (an LLM extractor)."""
        model = getattr(self.extractor, "model", None)
        if model is None or not callable(getattr(model, "predict", None)) or "TaskUpdate" not in model.labels:
            return None
        return float(dict(model.predict(np.asarray([vector]), [draft.text])[0])["TaskUpdate"])

    def _report_in_its_utterance(self, draft: Draft, text: str, status: str, ctx: _Context) -> list[Candidate]:
        """A terse report ("Sorted it!!", "搞定了") often names its work only in the rest of its utterance ("the
        Riverside Inn, Saturday the 9th, deposit paid"): when the report itself matches no open task, its whole utterance
        is compared instead, and the open task it clearly fits (REPORT_SURE, or a shared word over TERM_SURE, with a
        clear lead) is the candidate. [] when none is clear (nothing is guessed from a longer text)."""
        if not UTTERANCE_REPORTS or ctx.speaker != "user" or status not in CLOSED_REPORTS \
                or len(text.strip()) <= len(draft.text.strip()) + 2 or _corrects_a_value(text):
            return []  # a correction's turn tells what is true of a fact, not which work is done
        whole = Draft("Task", text, draft.properties, kind="update", entities=find_entities(text))
        candidates = [c for c in self._best_open_tasks(whole, ctx, types=("Task", "Plan"))
                      if c.score >= MATCH_FLOOR or _term_sure(c)]
        if not candidates:
            return []
        runner_up = self._runner_up(candidates)
        rule = (candidates[0].score >= UTTERANCE_REPORT_SURE
                or (_term_sure(candidates[0]) and candidates[0].score >= MATCH_SURE)) \
            and candidates[0].score - runner_up >= MATCH_MARGIN
        moves, candidates = self._report_decision(draft, text, candidates, ctx, route="utterance", status=status,
                                                  rule=rule, worded=_reads_as_report(draft.text),
                                                  told=fill.perfective(draft.text))
        best = candidates[0]
        if moves:
            reasons = (*best.reasons, "matched through the whole utterance")
            return [Candidate(best.id, best.text, best.score, reasons, best.similarity)]
        return []

    def _close_untasked(self, draft: Draft, status: str, ctx: _Context) -> bool:
        """A report of work done (or dropped) that matches no open task may be about work the user stated earlier
        that was never read as a task ("I'll ring round three places this week", told in passing): the earlier
        user utterance that states work still ahead, is clearly closest in meaning and shares a content word with
        the report is linked from this utterance's Episode (``completes``), so that "what is still open" leaves it
        out. True when linked."""
        if ctx.speaker != "user" or ctx.episode is None or not USE_UNTASKED:
            return False
        hits = [h for h in self.search(draft.text, types=[EPISODE], where={"speaker": "user"}, user=ctx.user,
                                       k=TASK_POOL, now=ctx.now)
                if h.memory.id != ctx.episode and (_AHEAD.search(h.memory.content.text)
                                                   or (UNTASKED_SOON and _SOON.search(h.memory.content.text)))
                and not CUES["question"].search(h.memory.content.text)]
        if not hits:
            return False
        # an utterance a task was read from is left to the task route (it matched no open task: not clearly this one)
        edges = self.store.edges([h.memory.id for h in hits], relations=[DERIVED_FROM], direction="in")
        tasks = self._task_ids([e.source for e in edges])
        tasked = {e.target for e in edges if e.source in tasks}
        candidates = [c for c in self._scored(draft, hits, entity=None, open_work=False) if c.id not in tasked]
        if not candidates:
            return False
        best = candidates[0]
        runner_up = candidates[1].score if len(candidates) > 1 else 0.0
        if not (_shares(best) and best.score >= UNTASKED_SURE and best.score - runner_up >= MATCH_MARGIN):
            return False
        if ctx.episode in self._queued_ids():
            self._flush_queue()
        self.update(ctx.episode, relationships=[Relationship(target=best.id, relation=COMPLETES,
                                                             properties={"status": status})],
                    user=ctx.user, now=ctx.now, reason=f"reports work {status} stated in {best.id}",
                    actor=ctx.creator)
        ctx.out.notes.append(f"report ({status}) on work stated earlier but never read as a task: {best.id} "
                             f"({best.text[:60]!r}): {'; '.join(best.reasons)}")
        return True

    def _task_ids(self, ids: Sequence[str]) -> set[str]:
        """The ids among ``ids`` of Task / Plan memories (any status)."""
        return {r.id for r in self.store.fetch(list(dict.fromkeys(ids))) if r.type in ("Task", "Plan")}

    def _keep_reread(self, draft: Draft, text: str, ctx: _Context) -> bool:
        """A "report" that says nothing of how any work stands and matches no open task ("Send the invoice to Acme",
        "the budget is $65k") was no report: it is kept as the extractor's best other reading. False: none."""
        reread = getattr(self.extractor, "reread", None)
        again = reread(draft.text, text, ctx.now, draft.vector, draft.reasons) if callable(reread) else None
        if again is None or again.kind == "update":
            return False
        self._store_read(self._link_entities([self._to_record(again, ctx)], ctx)[0], ctx)
        ctx.out.notes.append(f"read as a report but says nothing of how work stands and matches no open task; kept "
                             f"as a {again.type}")
        return True

    def _keep_closed_work(self, draft: Draft, status: str, ctx: _Context, text: str) -> None:
        """Work the user reports done (or dropped) with no open task to move is kept as a Task in that status: what
        was done stays known (and "what's left" leaves it out, with the utterance it was read from)."""
        props = {**fill.task_properties(str(draft.properties.get("goal") or draft.text), ctx.now), "status": status}
        props.pop("deadline", None)
        task = Draft("Task", draft.text, props, confidence=draft.confidence, entities=draft.entities,
                     reasons=[*draft.reasons, f"a report of work {status} with no open task to move: kept as a "
                                              f"{status} task"])
        task.vector = draft.vector
        self._store_read(self._link_entities([self._to_record(task, ctx)], ctx)[0], ctx)
        ctx.out.notes.append(f"status report ({status}) matches no open task of this user; kept as a {status} task")
        if CLOSED_WORK_AS_FACT:
            self._keep_told_fact(draft, text, ctx)

    def _keep_told_fact(self, draft: Draft, text: str, ctx: _Context) -> None:
        """Done work often tells a fact ("got the dentist booked for Thursday at ten", "the deposit's paid, £400"):
        when the extractor's best reading of the report other than a report is a Fact, that Fact is kept too, beside
        the closed task and from the same utterance, so that a question about the fact finds it and a later
        correction or change replaces it."""
        reread = getattr(self.extractor, "reread", None)
        again = reread(draft.text, text, ctx.now, draft.vector, draft.reasons) if callable(reread) else None
        if again is None or again.type != "Fact" or again.kind == "update":
            return
        again.reasons.append("the fact a report of done work tells")
        self._store_read(self._link_entities([self._to_record(again, ctx)], ctx)[0], ctx)
        ctx.out.notes.append("also kept as the fact it tells")

    def _record_decision(self, draft: Draft, text: str, ctx: _Context) -> None:
        """A choice the user reports ("最后决定还是报游泳班", "we settled on the blue one") may close the work of
        choosing, and it is also kept as what was decided (a Fact, attribute ``decision``), so that "what did I
        decide" finds it whether or not a task was open; it replaces the user's earlier leaning or choice closest
        in meaning."""
        props = fill.decision_of(draft.text) if draft.kind == "update" else _choice_of(draft.text)
        if props is None:
            return
        fact = Draft("Fact", draft.text, {**props, "source": "user", "confidence": 0.9}, entities=draft.entities,
                     reasons=[*draft.reasons, "a decision the user reported" if draft.kind == "update"
                              else f"a choice the user stated, read as {draft.type}: kept as a decision too"])
        fact.vector = draft.vector
        record = self._link_entities([self._to_record(fact, ctx)], ctx)[0]
        if self._replace_by_meaning(record, fact, text, ctx, types=DECIDED_TYPES, what="decision"):
            return
        self._store_read(self._link_settled(record, fact, ctx), ctx)
        ctx.out.notes.append(f"kept the decision {props['value']!r} as a fact")

    def _learned_decision(self, text: str, ctx: _Context) -> None:
        """A user's turn the learned model reads as stating a choice made (:mod:`mnemir.understand.decision_turns`:
        "the walnut one it is, delivered Monday", "定了湖边那家！", "final answer: the train") is kept as a decision Fact, as
        :meth:`_record_decision` keeps one the markers found, when nothing of the turn was kept as a decision yet."""
        # not a turn that asks, hedges or only weighs the options (the markers the worded choices obey, _NOT_CHOSEN)
        if not LEARNED_DECISIONS or ctx.speaker != "user" or CUES["question"].search(text) \
                or _NOT_CHOSEN.search(text) or _DELIBERATES.search(text) \
                or any(r.properties.get("attribute") == "decision" for r in ctx.out.created):
            return
        if not ctx.out.created and any(r.type in ("Task", "Plan") for r in ctx.out.updated):
            return  # a turn that only reported on an open task ("the form is in") moved it: it chose nothing new
        understanding = self._understanding_embedder()
        vector = understanding.embed([text])[0]
        read = decision_probability(vector, text, understanding.model_id)
        if read is None or read[0] < read[1]:
            return
        rest = _without_deferrals(text)
        if rest is not None:  # a choice put off ("等明年再说"): what the turn says besides must still read as a choice
            # an acknowledgement left alone ("行吧", "OK") names nothing chosen
            kept = decision_probability(understanding.embed([rest])[0], rest, understanding.model_id) \
                if content_terms(rest) else None
            if kept is None or kept[0] < kept[1]:
                ctx.out.notes.append("the turn puts a choice off; not kept as a decision")
                return
        props: dict[str, Any] = {"entity": "user", "attribute": "decision", "source": "user",
                                 "confidence": round(read[0], 3)}
        probe = Draft("Fact", text, props, entities=find_entities(text),
                      reasons=[f"the turn states a choice made (learned reading, p={read[0]:.2f})"])
        probe.vector = vector
        fact = Draft("Fact", text, {**props, "value": text[:120]}, entities=probe.entities, reasons=probe.reasons)
        fact.vector = vector
        record = self._link_entities([self._to_record(fact, ctx)], ctx)[0]
        if self._replace_by_meaning(record, fact, text, ctx, types=DECIDED_TYPES, what="decision"):
            return
        self._store_read(self._link_settled(record, probe, ctx), ctx)
        ctx.out.notes.append(f"kept the turn as a decision (learned reading, p={read[0]:.2f})")

    def _link_settled(self, record: MemIR, draft: Draft, ctx: _Context) -> MemIR:
        """A decision points (``settles``) at the earlier memories or utterances of this user's conversation that
        weighed the choice: the closest in meaning (SETTLES_SURE), a candidate naming the chosen option counting
        as a correction's named value does (NAMED_VALUE_BONUS). What was said in this utterance is left out."""
        if not SETTLES:
            return record
        probe = _without_lead(draft)
        found = {c.id: c for c in self._closest(probe, SETTLED_TYPES, ctx, k=SETTLES_POOL)}
        named = _old_value_key(str(draft.properties.get("value") or ""))
        if named:
            found.update((c.id, c) for c in self._closest(probe, SETTLED_TYPES, ctx, text=named, k=SETTLES_POOL)
                         if c.id not in found)
        scored = [_named_bonus(c, named) if named else c for c in found.values()]
        own = {ctx.episode, record.id, *((r.id for r in ctx.out.created) if SAID_NOW_NOT_REPLACED else ())}
        kept = [c for c in sorted(scored, key=lambda c: -c.score) if c.id not in own and c.score >= SETTLES_SURE]
        kept = [c for c in kept if not self._said_now(c.id, ctx)][:SETTLED_AT_MOST]
        if not kept:
            return record
        ctx.out.notes.append("the decision settles " + ", ".join(f"{c.id} ({c.text[:50]!r}, {c.score:.2f})"
                                                                 for c in kept))
        links = [Relationship(target=c.id, relation=SETTLES, properties={"score": round(c.score, 3)}) for c in kept]
        return record.model_copy(update={"relationships": [*record.relationships, *links]})

    def _said_now(self, mid: str, ctx: _Context) -> bool:
        """The memory was read from (or is) this very utterance (same session and turn)."""
        if ctx.turn is None:
            return False
        found = self.store.fetch([mid])
        return bool(found) and found[0].metadata.source.turn == ctx.turn \
            and found[0].metadata.source.session_id == ctx.session

    def _store_read(self, record: MemIR, ctx: _Context) -> None:
        """Store one memory read while the dialogue state is applied (after the utterance's own memories were
        written) and count it among what this utterance created."""
        stored = self._commit([record], now=ctx.now, actor=ctx.creator)
        ctx.out.created += stored
        ctx.out.extend(stored)

    def _report_status(self, id: str, status: str, ctx: _Context, *, reason: str, done: Callable[[MemIR], str],
                       failed: str) -> None:
        """Move a task to ``status`` for this turn and say so in its result: ``done(updated)`` is the note when it
        moved, ``failed`` (with the reason) when its state machine or a concurrent write refused."""
        try:
            updated = self._set_task_status(id, status, user=ctx.user, now=ctx.now, reason=reason, actor=ctx.creator)
        except (InvalidTransitionError, ConflictError, NotFoundError) as exc:
            ctx.out.notes.append(f"{failed}: {exc}")
            return
        ctx.out.notes.append(done(updated))
        ctx.out.updated.append(updated)
        ctx.out.append(updated)
        self._link_report(id, status, ctx)

    def _link_report(self, task: str, status: str, ctx: _Context) -> None:
        """This utterance reported on ``task``: its Episode links to it (``reports_on``, REPORT_LINKS), unless the
        task was read from this very utterance (a task stated and reported in one breath has no later report)."""
        if not REPORT_LINKS or ctx.episode is None or ctx.speaker != "user":
            return
        found = self.store.fetch([task])
        if not found or any(r.target == ctx.episode for r in found[0].relations(DERIVED_FROM)):
            return
        link = Relationship(target=task, relation=REPORTS_ON, properties={"status": status})
        for writes, _ in self._queue() or ():
            for write in writes:
                if write.record.id == ctx.episode:  # the episode is written with this utterance: link it there,
                    # in the utterance's one transaction
                    write.record = write.record.model_copy(
                        update={"relationships": [*write.record.relationships, link]})
                    return
        self.update(ctx.episode, relationships=[link], user=ctx.user, now=ctx.now,
                    reason=f"reports on task {task} ({status})", actor=ctx.creator)

    def _set_task_status(self, id: str, status: str, *, user: str | None, now: datetime | None, reason: str,
                         actor: str) -> MemIR:
        """A Task moves through its state machine (its steps follow); a plan step's status is simply set."""
        if self.get(id, user=user).type == "Task":
            return self._lifecycle.update_task(id, status=status, user=user, now=now, reason=reason, actor=actor)
        return self.update(id, properties={"status": status}, user=user, now=now, reason=reason, actor=actor)

    # -- corrections ------------------------------------------------------------------------------
    def _apply_correction(self, record: MemIR, draft: Draft, text: str, ctx: _Context) -> bool:
        """Supersede the fact this correction replaces; True when handled (superseded or sent for confirmation)."""
        entity, attribute = record.properties.get("entity"), record.properties.get("attribute")
        if not entity or not attribute or attribute == "general":
            return self._correct_by_meaning(record, draft, text, ctx)
        where = {"entity": entity, "attribute": attribute}
        olds = [h.memory for h in self.search(text, types=["Fact"], where=where, user=ctx.user, k=5, now=ctx.now)
                if h.memory.id not in ctx.replaced and not _said_by_another(h.memory, ctx)]
        if draft.replaces:
            named = [o for o in olds if draft.replaces.lower() in str(o.properties.get("value", "")).lower()
                     or draft.replaces.lower() in o.content.text.lower()]
            olds = named or olds
        if not olds:  # the attribute may be misread ("checked the email" -> contact): compare by meaning
            return self._correct_by_meaning(record, draft, text, ctx)
        # facts of one text are one statement read twice, not a choice to ask about
        olds = [o for i, o in enumerate(olds) if not any(_same_statement(o.content.text, p.content.text)
                                                          for p in olds[:i])]
        if len(olds) == 1:
            new = self._lifecycle.supersede(olds[0].id, record, user=ctx.user, now=ctx.now,
                                            reason=f"correction ({entity}/{attribute}): {text}")
            ctx.replaced.add(olds[0].id)
            ctx.out.created.append(new)
            ctx.out.append(new)
            return True
        candidates = [Candidate(o.id, o.content.text, 1.0, (f"same entity {entity} and attribute {attribute}",))
                      for o in olds[:3]]
        question = (f"“{text}”要替换哪条旧信息？" if ctx.language == "zh" else f"Which old fact does “{text}” correct?")
        ctx.out.confirmations.append(Confirmation("correction", text, question, candidates, record=record,
                                                  user=ctx.user, now=ctx.now))
        return True

    def _link_corrected_utterances(self, record: MemIR, draft: Draft, ctx: _Context) -> MemIR:
        """A correction that names the value it takes back ("not the 20th", "不是16号") links ``corrects`` to the
        earlier utterances that stated that value and are close to it in meaning (the user's own, or the
        assistant saying it back), whatever was read from them: often nothing typed states the value (a date said
        in passing inside a longer turn), and recall must not show the old utterance beside the correction."""
        named = _old_value_key(draft.replaces)
        if not named:
            return record
        probe = _without_lead(draft)
        found = {c.id: c for c in self._closest(probe, (EPISODE,), ctx, k=CORRECTED_UTTERANCES_POOL, replaced=True)}
        found.update((c.id, c) for c in self._closest(probe, (EPISODE,), ctx, text=str(draft.replaces),
                                                       k=CORRECTED_UTTERANCES_POOL, replaced=True)
                     if c.id not in found)
        # the same value said of another person is not what this correction takes back (a data-loss guard)
        stating = sorted((c for c in (_named_bonus(c, named) for c in found.values())
                          if c.score >= CORRECTED_UTTERANCE_SURE + NAMED_VALUE_BONUS
                          and any(r.startswith("states the value") for r in c.reasons)
                          and not _about_two_others(draft.text, c.text)
                          and not _about_the_speaker_and_another(draft.text, c.text)), key=lambda c: -c.score)
        links = [Relationship(target=c.id, relation=CORRECTS, properties={"value": named})
                 for c in stating[:CORRECTED_UTTERANCES]]
        if not links:
            return record
        ctx.out.notes.append(f"correction takes back {named!r} said in " + ", ".join(
            f"{c.id} ({c.text[:60]!r}, {c.score - NAMED_VALUE_BONUS:.2f})" for c in stating[:CORRECTED_UTTERANCES]))
        return record.model_copy(update={"relationships": [*record.relationships, *links]})

    def _take_back_named_value(self, text: str, ctx: _Context) -> None:
        """A user's utterance that names the value it takes back ("…, not the 12th", "不是7月1号") corrects the earlier
        utterances stating it, whatever it was read as: read as a move of a date (a postponement no task matched) or
        as a report, no correction ran. When nothing read from it links ``corrects`` and it moved no task, its Episode
        links to them."""
        told = _told_sentences(text)
        if not NAMED_VALUE_EPISODES or ctx.speaker != "user" or ctx.episode is None or not told:
            return
        old = _named_old_value(told)
        if not old or not _names_a_value(old):
            old = _said_before(told)
        if not old or not _names_a_value(old):
            old = self._restated_old_value(told, ctx)
        if not old or not _names_a_value(old) \
                or any(rel.relation == CORRECTS for r in ctx.out.created for rel in r.relationships):
            return
        if any(r.type in ("Task", "Plan") for r in ctx.out.updated) and not (
                ONLY_POSTPONEMENTS_KEEP and not _moved_a_date(ctx)):
            return  # it moved a task (a postponement applied): the task carries the new value and is still open
        episode = ctx.out.episode
        if episode is None:
            return
        linked = self._link_corrected_utterances(episode, Draft("Fact", text, {}, kind="correction", replaces=old), ctx)
        links = [rel for rel in linked.relationships if rel.relation == CORRECTS and rel.target != ctx.episode]
        if not links:
            return
        # the utterance, and the statements read from it (what recall shows of it), take the value back
        takers = [ctx.episode, *(r.id for r in ctx.out.created if r.type in UPDATED_TYPES)]
        if set(takers) & self._queued_ids():
            self._flush_queue()
        for taker in takers:
            self.update(taker, relationships=links, user=ctx.user, now=ctx.now, reason=f"takes back {old!r}",
                        actor=ctx.creator)
        ctx.out.notes.append(f"the utterance takes back {old!r}, said in " + ", ".join(r.target for r in links))

    def _restated_old_value(self, text: str, ctx: _Context) -> str | None:
        """The value a correction takes back when it names none but restates it beside the new one ("房子是2015年买的，2012
        是开盘那年，我记混了", "it's 14 now, I had misheard the 12"): an utterance that says it got something
        wrong (a correction cue) and states two or more values of a kind, exactly one of which the user's earlier
        utterances closest to it stated, takes that one back (docs/decisions/0088). None otherwise."""
        if not RESTATED_VALUES or not (CUES["correction"].search(text) or _CORRECTING_WORDS.search(text)
                                       or _MISREAD.search(text)):
            return None
        values = _values_in(text)
        if len(values) < 2:
            return None
        probe = Draft("Fact", text, {}, kind="correction")
        earlier = [c for c in self._closest(probe, (EPISODE,), ctx, where={"speaker": "user"},
                                            k=CORRECTED_UTTERANCES_POOL)
                   if c.id != ctx.episode and not self._said_now(c.id, ctx) and c.score >= RESTATED_SURE]
        stated = [v for v in values if any(_states_value(c.text, v) for c in earlier)]
        return stated[0] if len(stated) == 1 else None

    def _outdate_stated_values(self, ctx: _Context) -> None:
        """A correction that takes back a value said in earlier utterances (``corrects``, with the value) outdates
        the facts and guesses read from them that state that value: the old value is superseded by what the
        correction says (its statement read now, else its utterance), not only hidden beside it at recall
        (docs/decisions/0069). Open work stating the value stays (a task carries the new date when it moves)."""
        if not OUTDATE_STATED_VALUES or ctx.speaker != "user" or ctx.episode is None:
            return
        takers = [ctx.episode, *(r.id for r in ctx.out.created)]
        if set(takers) & self._queued_ids():
            self._flush_queue()
        values: dict[str, set[str]] = {}  # old utterance -> the values taken back from it
        for edge in self.store.edges(takers, relations=[CORRECTS], direction="out", user=ctx.user):
            value = (edge.properties or {}).get("value")
            if edge.target != ctx.episode and isinstance(value, str) and value:
                values.setdefault(edge.target, set()).add(value)
        if not values:
            return
        readings = self.store.edges(list(values), relations=[DERIVED_FROM], direction="in", user=ctx.user)
        sources = {e.source: e.target for e in readings if e.source not in takers and e.source not in ctx.replaced}
        new = next((r.id for r in ctx.out.created if r.type in UPDATED_TYPES), ctx.episode)
        terms = content_terms(ctx.text)
        for old in self.store.fetch(list(sources), user=ctx.user):
            outdated = old.type in OUTDATED_BY_VALUE or (OUTDATE_ANY_STATEMENT and old.type in OUTDATED_TOO)
            if not outdated or str(old.status) != "active" or not old.is_valid_at(ctx.now) \
                    or _about_two_others(ctx.text, old.text) or _about_the_speaker_and_another(ctx.text, old.text):
                continue
            value = next((v for v in sorted(values[sources[old.id]]) if _states_value(old.text, v)), None)
            # about the same thing: a term shared beyond the value ("the 15th" of the rent is not the concert's); a
            # value of four or more characters (a year, a name) tells the statement by itself (0088)
            specific = SPECIFIC_VALUE_ALONE and len(value or "") >= SPECIFIC_VALUE
            if value is None or (not specific and not [t for t in _shared_terms(terms, old.text)
                                                       if not _NUMERAL.fullmatch(t)
                                                       and not _VALUE_KINDS["date"].fullmatch(t)]):
                continue
            reason = f"states {value!r}, which a later correction took back"
            self.update(old.id, status="superseded", user=ctx.user, now=ctx.now, reason=reason, actor=ctx.creator)
            self.update(new, relationships=[Relationship(target=old.id, relation="supersedes",
                                                         properties={"reason": reason})],
                        user=ctx.user, now=ctx.now, reason=reason, actor=ctx.creator)
            ctx.replaced.add(old.id)
            ctx.out.notes.append(f"correction outdated {old.id} ({old.text[:60]!r}): {reason}")

    def _take_back_changed_stance(self, text: str, ctx: _Context) -> None:
        """A user's utterance that says their mind changed ("the rug? changed my mind, grey now", "窗帘不要深蓝了，现在想要米白的")
        takes back the earlier utterance of theirs closest in meaning, whatever either was read as: when nothing read
        from it replaced anything (the old stance was kept only as an utterance, or read as another type, or the
        new one was read as a plan or a feeling), its Episode and the statements read from it link ``corrects`` to
        the earlier user utterance at least CHANGED_UTTERANCE_SURE close with a clear lead (MATCH_MARGIN)."""
        if not CHANGED_EPISODES or ctx.speaker != "user" or ctx.episode is None or ctx.replaced \
                or CUES["question"].search(text) or not _CHANGED_MIND.search(text):
            return
        if any(rel.relation in (CORRECTS, "supersedes") for r in ctx.out.created for rel in r.relationships) \
                or any(r.type in ("Task", "Plan") for r in ctx.out.updated):
            return
        probe = _without_lead(Draft("Fact", text, {}, kind="correction"))
        found = [c for c in self._closest(probe, (EPISODE,), ctx, where={"speaker": "user"}, k=CORRECTED_UTTERANCES_POOL,
                                          replaced=True)
                 if c.id != ctx.episode and not self._said_now(c.id, ctx)]
        if not found:
            return
        best = found[0]
        runner_up = found[1].score if len(found) > 1 else 0.0
        if best.score < CHANGED_UTTERANCE_SURE or best.score - runner_up < MATCH_MARGIN:
            return
        link = Relationship(target=best.id, relation=CORRECTS, properties={"change": True,
                                                                            "score": round(best.score, 3)})
        takers = [ctx.episode, *(r.id for r in ctx.out.created if r.type in (*UPDATED_TYPES, "Plan", "Task"))]
        if set(takers) & self._queued_ids():
            self._flush_queue()
        for taker in takers:
            self.update(taker, relationships=[link], user=ctx.user, now=ctx.now, reason="a change of mind",
                        actor=ctx.creator)
        ctx.out.notes.append(f"a change of mind takes back what was said in {best.id} ({best.text[:60]!r}, "
                             f"{best.score:.2f})")

    # -- dialogue state (issue 15): proposals, relations, postponements, corrections by meaning -----------------
    def _track_proposal(self, extraction: Extraction, text: str, ctx: _Context) -> None:
        """Hold the assistant's proposal for the next user turn; on a plain confirmation make it the user's Task
        (replacing the bare dialogue act), with both turns as provenance. Any other turn drops the proposal."""
        if self._understand_proposals is None:
            self._understand_proposals = {}
        key = (ctx.user, ctx.agent, ctx.session)
        if ctx.speaker == "assistant":
            self._deliver_offer(key, text, ctx)
            if ANSWERED_STATUS_QUESTIONS:
                self._hold_status_question(key, text)
            goal = next((str(d.properties["underlying_goal"]) for d in extraction.drafts
                         if d.type == "DialogueAct" and d.properties.get("underlying_goal")), None)
            if goal:
                offered = OFFERS_DELIVERED and bool(_OFFERS_ITSELF.search(text)) and not _KEEPS_TRACK.search(goal)
                self._understand_proposals[key] = _Proposal(goal, text, ctx.turn, ctx.now, offered)
            else:
                self._understand_proposals.pop(key, None)
            return
        if ctx.speaker != "user":
            return
        proposal = self._understand_proposals.pop(key, None)
        question = (self._understand_questions or {}).pop(key, None) if ANSWERED_STATUS_QUESTIONS else None
        if question is not None and _says_yes(text):
            ctx.answered = question  # a yes to "did you …?" reports the work done; it accepts no proposal
            return
        if proposal is None or not _confirms(text):
            return
        provenance = [
            {"speaker": "assistant", "turn": proposal.turn, "session": ctx.session, "text": proposal.text,
             "at": proposal.at.isoformat()},
            {"speaker": "user", "turn": ctx.turn, "session": ctx.session, "text": text, "at": ctx.now.isoformat()},
        ]
        task = Draft("Task", proposal.goal, fill.task_properties(proposal.goal, ctx.now), confidence=0.9,
                     entities=find_entities(proposal.goal), provenance=provenance,
                     reasons=["the assistant proposed it and the user confirmed"])
        if proposal.offered:
            task.reasons.append(OFFERED)
        extraction.drafts = [task, *[d for d in extraction.drafts if d.type not in ("DialogueAct", "Task", "Plan")]]
        ctx.out.notes.append(f"the user confirmed the assistant's proposal {proposal.goal!r}: stored as the user's task")

    def _hold_status_question(self, key: tuple[str | None, str | None, str | None], text: str) -> None:
        """Hold the assistant's question whether some work was done for the next user turn (any other assistant turn
        drops it)."""
        if self._understand_questions is None:
            self._understand_questions = {}
        question = _status_question(text)
        if question is None:
            self._understand_questions.pop(key, None)
        else:
            self._understand_questions[key] = question

    def _apply_answered_question(self, text: str, ctx: _Context) -> None:
        """The user said yes to the assistant's question whether some work was done: the open task the question names
        is reported done, matched by the question's words as any report is (a clear task moves; two that fit alike, or
        one not clear enough, are asked about). Work this very turn stated is no candidate."""
        question = ctx.answered
        if question is None or ctx.speaker != "user":
            return
        draft = Draft("Task", question, {"status": "completed"}, kind="update", entities=find_entities(question),
                      reasons=["the user said yes to the assistant's question whether it was done"])
        own = {r.id for r in ctx.out.created}
        candidates = [c for c in self._best_open_tasks(draft, ctx, types=("Task", "Plan"))
                      if c.id not in own and (c.score >= MATCH_FLOOR or _term_sure(c))]
        if not candidates:
            ctx.out.notes.append(f"a yes to {question!r}: no open task it names")
            return
        moves, candidates = self._report_decision(draft, text, candidates, ctx, route="update", status="completed",
                                                  rule=self._clear_lead(candidates), worded=False, told=True)
        self._move_or_ask(candidates, moves, "completed", text, ctx, by=f"the user said yes to {question!r}")

    def _wait_for_delivery(self, stored: Sequence[MemIR], ctx: _Context) -> None:
        """The task made from the assistant's offer to do the work itself waits for the assistant's next turn."""
        offered = next((r.id for r in stored if r.type == "Task"
                        and OFFERED in (r.metadata.extra.get("extraction") or {}).get("reasons", ())), None)
        if offered is not None:
            if self._understand_deliveries is None:
                self._understand_deliveries = {}
            self._understand_deliveries[(ctx.user, ctx.agent, ctx.session)] = offered

    def _deliver_offer(self, key: tuple[str | None, str | None, str | None], text: str, ctx: _Context) -> None:
        """The assistant's next turn after the user accepted its offer to do the work itself delivers it (the draft,
        the list, the plan): the task is done. A turn that puts it off or only acknowledges it delivers nothing, and
        the task stays open (only the very next assistant turn is read)."""
        waiting = (self._understand_deliveries or {}).pop(key, None)
        if waiting is None or _PUTS_OFF.search(text):
            return
        if len(re.findall(r"[\u4e00-\u9fff]", text)) < DELIVERY_HAN and len(re.findall(r"[A-Za-z]+", text)) < DELIVERY_WORDS:
            return
        try:
            if str(self.get(waiting, user=ctx.user).properties.get("status", "pending")) not in OPEN_STATUSES:
                return
        except NotFoundError as exc:
            ctx.out.notes.append(f"could not close the offered task {waiting}: {exc}")
            return
        self._report_status(waiting, "completed", ctx, reason=f"the assistant delivered what it offered: {text[:200]}",
                            done=lambda updated: (f"the assistant delivered what it offered: task {waiting} "
                                                  f"({updated.content.text!r}) done"),
                            failed=f"could not close the offered task {waiting}")

    def _resolve_pronoun(self, draft: Draft, ctx: _Context) -> None:
        """A fact whose subject is "he" / "she" / "他" / "她" is about the person the user named last, in this
        utterance before it or in their last PRONOUN_LOOKBACK utterances, when the pronoun's gender agrees with the
        relation word it was named by (a name alone agrees with both)."""
        if not RESOLVE_PRONOUNS or draft.type not in ("Fact", "Hypothesis") or ctx.speaker != "user":
            return
        gender = fill.pronoun_subject(draft.text)
        if gender is None:
            return
        at = ctx.text.find(draft.text[:20])
        before = [ctx.text[:at]] if at > 0 else []
        said = self.store.select(Selection(user_id=ctx.user, types=(EPISODE,), statuses=(MemoryStatus.active,)),
                                 order_by=[("@created_at", False)], limit=2 * PRONOUN_LOOKBACK)
        earlier = [r.content.text for r in said if r.metadata.source.speaker == "user" and r.id != ctx.episode
                   and r.metadata.created_at <= ctx.now][:PRONOUN_LOOKBACK]
        for text in [*before, *earlier]:
            mention = fill.last_person(text, gender)
            if mention is not None:
                draft.properties["entity"] = mention.key
                draft.reasons.append(f"about {mention.key}: the person last named ({mention.surface!r})")
                return

    def _resolve_relation(self, draft: Draft, ctx: _Context) -> None:
        """A fact about "my brother" is about the person the user named as their brother, when exactly one is known
        for this user: by a relation fact ("Tom is my brother") or by a fact that named them both ways ("my brother
        Tom works nights", "Tom, my brother, ..."; read with :func:`fill.person_mention`)."""
        entity = draft.properties.get("entity")
        if draft.type not in ("Fact", "Hypothesis") or entity not in RELATIONS:
            return
        hits = self.search("", types=["Fact"], where={"attribute": "relation", "value": entity}, user=ctx.user, k=5,
                           now=ctx.now)
        names = {str(h.memory.properties.get("entity")) for h in hits}
        for hit in self.search(_relation_words(str(entity), ctx.language), types=["Fact"], user=ctx.user, k=10,
                               now=ctx.now):
            mention = fill.person_mention(hit.memory.content.text)
            if mention is not None and mention.relation == entity \
                    and hit.memory.properties.get("entity") == mention.key:
                names.add(mention.key)
        names -= {"user", str(entity)}
        if len(names) == 1:
            name = names.pop()
            draft.properties["entity"] = name
            draft.reasons.append(f"about {name}: the user's {entity}")

    def _closest(self, draft: Draft, types: Sequence[str], ctx: _Context, *, text: str | None = None,
                 where: Mapping[str, Any] | None = None, k: int = 5, replaced: bool = False) -> list[Candidate]:
        """This user's live memories of ``types`` closest in meaning to the draft (cosine on the understanding
        embedder, plus ENTITY_BONUS for a shared entity or the same ``entity`` property), best first. ``replaced``:
        the candidates are for being replaced or taken back, so another transcript speaker's are left out
        (``_said_by_another``)."""
        hits = self.search(text or draft.text, types=list(types), where=dict(where) if where else None, user=ctx.user,
                           k=k, now=ctx.now)
        if replaced:
            hits = [h for h in hits if not _said_by_another(h.memory, ctx)]
        return self._scored(draft, hits, entity=draft.properties.get("entity"), open_work=False)

    def _replace_by_learned_change(self, record: MemIR, draft: Draft, text: str, ctx: _Context) -> bool:
        """A statement said with no change word that changes what an older one said of the same thing (a new time,
        place, amount or choice; a preference replacing an old one) supersedes it, as the learned change model
        (understand/same_change.py) reads the pair: its best candidate from the model's threshold, with the model's
        lead over the next. Statements about other people, a fact for a guess, and what this utterance said are never
        candidates; every reading of the replaced statement is replaced with it. True when it superseded."""
        model = shipped_same_change()
        if model is None:
            return False
        probe = _without_lead(draft)
        own = {ctx.episode, *(r.id for r in ctx.out.created)}
        people = people_named(draft.text)
        found = [c for c in self._closest(probe, SAME_CHANGE_TYPES, ctx, k=LEARNED_CHANGE_POOL, replaced=True)
                 if c.id not in ctx.replaced and c.id not in own and c.similarity is not None]
        # readings of one statement are one candidate: the one of the draft's type first
        readings: dict[str, list[Candidate]] = {}
        for c in found:
            readings.setdefault(" ".join(c.text.lower().split()), []).append(c)
        firsts = [min(group, key=lambda c: (_kind_of(c) != draft.type, -(c.similarity or 0.0)))
                  for group in readings.values()]
        firsts.sort(key=lambda c: -(c.similarity or 0.0))
        allowed = [c for c in firsts if _same_people(people, c.text) and not _about_other_people(probe.text, c.text)
                   and not (GUESS_REPLACES_NO_FACT and draft.type == "Hypothesis" and _kind_of(c) == "Fact")]
        if not allowed:
            return False
        sims = [float(c.similarity or 0.0) for c in firsts]
        scored = []
        for rank, c in enumerate(firsts):
            if c not in allowed:
                continue
            best_other = max((s for j, s in enumerate(sims) if j != rank), default=0.0)
            raw = change_pair_raw(probe.text, draft.type, c.text, _kind_of(c), similarity=sims[rank], rank=rank,
                                  lead=sims[rank] - best_other, candidates=len(firsts), language=ctx.language)
            scored.append((model.probability(raw), c))
        scored.sort(key=lambda s: -s[0])
        p, best = scored[0]
        second = scored[1][0] if len(scored) > 1 else 0.0
        if p < model.threshold or self._said_now(best.id, ctx):
            return False
        # a new fact replaces only a statement the fact reader resolves to the same entity, unless it says itself
        # that something changed (a change word)
        if draft.type in LEARNED_CHANGE_SAME_ENTITY and not _same_entity(probe.text, best.text) \
                and not (LEARNED_CHANGE_MARKED and _says_changed(probe.text)):
            return False
        # another statement it may change fits as well: read as changed too, or as close in meaning (a rank apart
        # by a hair is no reason to pick one)
        rivals = [c for q, c in scored[1:] if q >= model.threshold or (
            (best.similarity or 0.0) - (c.similarity or 0.0) < LEARNED_CHANGE_TIE and q >= model.threshold / 2
            and (draft.type not in LEARNED_CHANGE_SAME_ENTITY or _same_entity(probe.text, c.text)))]
        if p - second < model.lead or rivals:
            # two statements the new one may change, neither clearly: ask which (the new one is kept either way)
            if LEARNED_CHANGE_ASKS and rivals:
                rivals = [best, *rivals][:3]
                question = (f"“{text}”改变了哪条旧信息？" if ctx.language == "zh"
                            else f"Which earlier statement does “{text}” change?")
                ctx.out.confirmations.append(Confirmation("change", text, question, rivals, record=record,
                                                          user=ctx.user, now=ctx.now))
            return False
        group = list(readings[" ".join(best.text.lower().split())])
        # another statement read from the same utterance that the model also reads as changed goes with it (one
        # utterance said the old value in two clauses: "the stall is pitch 12, so near the gate")
        sources = {r.id: next((rel.target for rel in r.relationships if rel.relation == DERIVED_FROM), None)
                   for r in self.store.fetch([c.id for _, c in scored], user=ctx.user)}
        group += [c for q, c in scored[1:] if q >= model.threshold and sources.get(c.id) is not None
                  and sources.get(c.id) == sources.get(best.id) and c not in group]
        if {c.id for c in group} & self._queued_ids():
            self._flush_queue()
        reason = f"learned change (p={p:.2f}; {'; '.join(best.reasons)}): {text}"
        new = self._lifecycle.supersede(best.id, record, user=ctx.user, now=ctx.now, reason=reason)
        ctx.replaced.add(best.id)
        for other in group:
            if other.id == best.id or other.id in ctx.replaced:
                continue
            if {new.id, other.id} & self._queued_ids():  # a batched ingest queues its writes
                self._flush_queue()
            self.update(other.id, status="superseded", user=ctx.user, now=ctx.now, reason=reason, actor=ctx.creator)
            new = self.update(new.id, relationships=[Relationship(target=other.id, relation="supersedes",
                                                                  properties={"reason": reason})],
                              user=ctx.user, now=ctx.now, reason=reason, actor=ctx.creator)
            ctx.replaced.add(other.id)
        ctx.out.notes.append(f"learned change superseded {best.id} ({best.text!r}, p={p:.2f})")
        ctx.out.created.append(new)
        ctx.out.append(new)
        return True

    def _by_quote(self, found: list[Candidate], quote: str, ctx: _Context) -> list[Candidate]:
        """A correction that quotes what was said before ("I said the loft was 12 square metres, …", "我之前说王姐儿子读初二，
        其实…") finds that statement by the quote's meaning, which is far closer to it than the correction as a whole
        is: each candidate scores at least the quote's cosine with it (plus the words they share), best first."""
        hits = self.search(quote, types=list(CORRECTED_TYPES), user=ctx.user, k=5, now=ctx.now)
        hits = [h for h in hits if not _said_by_another(h.memory, ctx)]
        seen = {c.id for c in found}
        quoted = Draft("Fact", quote, {})
        more = [c for c in self._scored(quoted, hits, entity=None, open_work=False) if c.id not in seen]
        base = {c.id: c for c in found}
        for c in more:
            base[c.id] = Candidate(c.id, c.text, 0.0, (), c.similarity)
        query, vectors = self._draft_and_hit_vectors(quoted, [_Hit(m) for m in self.store.fetch(list(base))])
        terms = content_terms(quote)
        out = []
        for c in base.values():
            vector = vectors.get(c.id)
            if vector is None:
                out.append(c)
                continue
            close = float(np.dot(query, vector)) + TERM_BONUS * min(len(_shared_terms(terms, c.text)), TERMS_COUNTED)
            out.append(c if close <= c.score else Candidate(
                c.id, c.text, close, (*c.reasons, f"close to the statement it quotes ({close:.2f})"), c.similarity))
        return sorted(out, key=lambda c: -c.score)

    def _apply_postponement(self, draft: Draft, text: str, ctx: _Context) -> None:
        """Move the matched open task's deadline; two equally good matches -> a "postpone" confirmation."""
        deadline = str(draft.properties["deadline"])
        # only a type with a deadline can have it moved (the ontology's Plan step has none)
        movable = tuple(t for t in ("Task", "Plan") if t in self.ontology
                        and ("deadline" in self.ontology.resolve(t).properties or self.ontology.resolve(t).allow_extra))
        candidates = [c for c in self._best_open_tasks(draft, ctx, types=movable) if c.score >= MATCH_FLOOR]
        if not candidates:  # nothing planned to move: it is news about a date ("the meeting moved to Thursday")
            ctx.out.notes.append(f"postponement (to {deadline}) matches no open task of this user; kept as a fact")
            fact = Draft("Fact", draft.text, {**fill.fact_properties(draft.text), "source": "user", "confidence": 0.8},
                         kind="correction", entities=draft.entities, reasons=["a moved date with no open task"])
            record = self._to_record(fact, ctx)
            if not self._correct_by_meaning(record, fact, text, ctx):
                stored = self._commit([record], now=ctx.now, actor=ctx.creator)
                ctx.out.created += stored
                ctx.out.extend(stored)
            return
        best = candidates[0]
        runner_up = candidates[1].score if len(candidates) > 1 else 0.0
        if best.score >= MATCH_SURE and best.score - runner_up >= MATCH_MARGIN:
            if best.id in self._queued_ids():
                self._flush_queue()
            updated = self.update(best.id, properties={"deadline": deadline}, user=ctx.user, now=ctx.now,
                                  reason=f"postponed by {ctx.speaker} ({'; '.join(best.reasons)}): {text}",
                                  actor=ctx.creator)
            ctx.out.notes.append(f"moved the deadline of {best.id} ({best.text!r}) to {deadline}")
            ctx.out.updated.append(updated)
            ctx.out.append(updated)
            return
        question = (f"“{text}”说的是哪一件事？" if ctx.language == "zh" else f"Which task does “{text}” refer to?")
        ctx.out.confirmations.append(Confirmation("postpone", text, question, candidates[:3], user=ctx.user,
                                                  now=ctx.now, deadline=deadline))

    def _correct_by_meaning(self, record: MemIR, draft: Draft, text: str, ctx: _Context) -> bool:
        """A correction with no attribute read ("不对，是周四不是周三", "sorry, it's the 14th, not the 4th")
        supersedes the fact, hypothesis or task closest in meaning (an event with a date is often read as a task:
        "the recital is on the 12th"), when it is close enough and clearly closest; two close ones -> a
        confirmation. True when handled; False stores it as a new fact."""
        return self._replace_by_meaning(record, draft, text, ctx, types=CORRECTED_TYPES, what="correction")

    def _replace_by_meaning(self, record: MemIR, draft: Draft, text: str, ctx: _Context, *, types: Sequence[str],
                            what: str) -> bool:
        """Supersede the live memory of ``types`` closest in meaning to a correction or a change of mind (its
        announcing clause left out: "Oops, I got that wrong:"), when close enough and clearly closest; two close
        ones -> a confirmation. Memories about other people ("my sister" / "my brother") are never candidates.
        True when handled; False: nothing it replaces, stored as new."""
        probe = _without_lead(draft)
        found = self._closest(probe, types, ctx, replaced=True)
        # a correction names the value it takes back ("not 20 tables", "不是周三"); a decision names the option it
        # chose, which the deliberation it settles named too ("the cedar or the composite boards"): look for it
        value = draft.replaces if what != "decision" else str(draft.properties.get("value") or "")
        named = _old_value_key(value)
        if named:
            seen = {c.id for c in found}
            found += [c for c in self._closest(probe, types, ctx, text=str(value), replaced=True) if c.id not in seen]
            found = sorted((_named_bonus(c, named) for c in found), key=lambda c: -c.score)
        quoted = what == "correction" and QUOTED_STATEMENTS and bool(value) and _is_quote(str(value))
        if quoted:
            found = self._by_quote(found, str(value), ctx)
        if what != "decision" and VALUE_KIND_BONUS:
            kinds = _value_kinds(draft.text)
            if kinds:
                found = sorted((_kind_bonus(c, kinds) for c in found), key=lambda c: -c.score)
        if what == "correction" and named and NAMED_VALUE_FIRST:
            # a correction that names the value it takes back replaces a statement of that value: where one is
            # found, what does not state it (a statement sharing only the topic) is no candidate
            stating = [c for c in found if _states_value(c.text, named)]
            found = stating or found
        people = people_named(draft.text)
        sure = {"correction": CORRECTION_NAMED_SURE if named else CORRECTION_SURE,
                "decision": DECISION_SURE}.get(what, CHANGE_SURE)
        # what this very utterance said (a decision kept beside the preference read from the same turn) is no
        # earlier statement it changes
        own = {ctx.episode, *(r.id for r in ctx.out.created)} if SAID_NOW_NOT_REPLACED else set()
        terms = content_terms(probe.text)
        candidates = [c for c in found if c.id not in ctx.replaced and c.id not in own and _same_people(people, c.text)
                      # "I said X" tells of whom X tells (the speaker only says it): the quote says who it is about
                      and (what == "decision" or not _about_other_people(str(value) if quoted else probe.text, c.text))
                      and (c.score >= sure or (what == "correction"
                                               and c.score >= CORRECTION_WITH_ENTITY + ENTITY_BONUS))
                      and (what != "change" or _about_the_same(c, draft.type, terms))]
        if not candidates:
            if what == "correction":
                ctx.out.notes.append("correction: no earlier fact is close enough in meaning; stored as a new fact")
            return False
        best = candidates[0]
        # readings of one statement (a done report kept as a closed task and as the fact it tells, a fact said with
        # a feeling) are one thing said, not rivals: the reading of the type the change replaces first is replaced
        same = [c for c in candidates if _same_statement(c.text, best.text)]
        best = min(same, key=lambda c: (_type_rank(c, types), -c.score))
        runner_up = max((c.score for c in candidates if not _same_statement(c.text, best.text)), default=0.0)
        if candidates[0].score - runner_up >= MATCH_MARGIN:
            if best.id in self._queued_ids():
                self._flush_queue()
            new = self._lifecycle.supersede(best.id, record, user=ctx.user, now=ctx.now,
                                            reason=f"{what} ({'; '.join(best.reasons)}): {text}")
            ctx.replaced.add(best.id)
            ctx.out.notes.append(f"{what} superseded {best.id} ({best.text!r}): {'; '.join(best.reasons)}")
            ctx.out.created.append(new)
            ctx.out.append(new)
            return True
        question = (f"“{text}”要替换哪条旧信息？" if ctx.language == "zh" else f"Which old fact does “{text}” correct?")
        ctx.out.confirmations.append(Confirmation("correction", text, question, candidates[:3], record=record,
                                                  user=ctx.user, now=ctx.now))
        return True



#: a change (a value said to have changed, a change of mind: not a correction, which says itself that it takes an
#: earlier statement back) replaces a statement only when both are about the same thing (docs/decisions/0064): a
#: stance (a Preference) or an intention (a Task) is what a change of mind replaces, and the closest one is; any other
#: statement (a fact, a guess) must be close in meaning (text similarity SAME_THING_SIMILARITY), or state the value
#: taken back, or share SAME_THING_TERMS content terms, or name the same entity and share another term, or give a value
#: of the same kind and share a content term. A value shared is what changes, not a topic: numerals, weekdays and
#: months do not count as shared terms (a "three" in "thirty years" and in "300,000")
SAME_THING = True
SAME_THING_SIMILARITY = 0.6
SAME_THING_TERMS = 3
#: ... and a guess (a Hypothesis) does not replace what is stated as known (a Fact)
GUESS_REPLACES_NO_FACT = True
#: the memories read from the utterance being remembered are never what it replaces
SAID_NOW_NOT_REPLACED = True
#: a correction that quotes what was said before ("I said it was …", "我之前说…") is matched to that statement by the
#: quote's meaning as well as its own (docs/decisions/0097); a quote is a clause, not a bare value
QUOTED_STATEMENTS = False
#: a correction that names the value it takes back ("not 4.5", "不是10月7号") replaces only a statement of that value
#: where one is among the candidates (docs/decisions/0107)
NAMED_VALUE_FIRST = False
QUOTE_HAN = 4
QUOTE_WORDS = 3


@dataclass(frozen=True)
class _Hit:
    """A stored memory in the shape of a search hit (for :meth:`UnderstandingMixin._draft_and_hit_vectors`)."""

    memory: MemIR


def _is_quote(value: str) -> bool:
    """A value taken back that is a quoted statement (a clause), not a bare value ("初二", "the 4th")."""
    return len(re.findall(r"[\u4e00-\u9fff]", value)) >= QUOTE_HAN or len(re.findall(r"[A-Za-z]+", value)) >= QUOTE_WORDS
_NUMERAL = re.compile(r"[$£€¥]?[\d.,:%]+(?:st|nd|rd|th|k|m|am|pm)?|[零〇一二两三四五六七八九十百千万亿半几]+")


def _subject(text: str) -> str | None:
    """Who a statement is about, when the fact reader can tell: a relation of the user's (or a person named with
    one) at its head, ``user`` for a statement about the speaker; None otherwise (a thing, a place, a bare name)."""
    mention = fill.person_mention(text)
    if mention is not None:
        return mention.key if mention.key in _RELATION_KEYS or mention.relation else None
    return "user" if fill.fact_properties(text).get("entity") == "user" else None


_RELATION_KEYS = frozenset(RELATIONS)


def _about_other_people(a: str, b: str) -> bool:
    """Two statements are about different people: ``_subject`` reads both, they differ, and neither text names the
    other's person (one who reports or acts on someone, "the doctor switched my dad's pills", is about them too)."""
    if not WHO_IS_PART_OF_THE_FACT:
        return False
    first, second = _subject(a), _subject(b)
    if first is None or second is None or first == second:
        return False
    return second not in _people_keys(a) and first not in _people_keys(b)


def _about_two_others(a: str, b: str) -> bool:
    """Two statements are about two different people, neither of them the speaker ("my brother's ..." against "my
    sister's ..."). A correction's own subject often reads as the speaker only because it says "I said" ("我上次说它…"),
    so the speaker is left out: the guard for value corrections that name what they take back."""
    return _about_other_people(a, b) and "user" not in (_subject(a), _subject(b))


def _about_the_speaker_and_another(correction: str, old: str) -> bool:
    """A correction about the speaker's own value ("I'm 1.70, not 1.65", "我说错了，我身高1.62米") and an earlier
    statement about another person ("my sister is 1.65"), who the correction does not name: a fact about the user and
    one about a relative are different facts, whatever value they share. The correction's subject is read on its
    own statement, past the pieces that only say something was said or was wrong ("I said", "我上次说", "我说错了"):
    those read as about the speaker without being about them (see ``_about_two_others``)."""
    if not SPEAKER_AGAINST_ANOTHER or not WHO_IS_PART_OF_THE_FACT or _subject(old) in (None, "user"):
        return False
    return _own_subject(correction) == "user" and _subject(old) not in _people_keys(correction)


def _own_subject(text: str) -> str | None:
    """Who a statement is about, read on its first piece that states something: a piece that only says what was said
    or that it was wrong ("I said 3.5", "我上次说它3.5公斤", "I got that wrong") is the speaker talking, not the subject."""
    for piece in _CLAUSE.findall(text):
        if _SAYING.search(piece) or _CORRECTING_WORDS.search(piece) or _MISREAD.search(piece):
            continue
        subject = _subject(_LEAD_WORDS.sub("", piece.strip()))
        if subject is not None:
            return subject
    return None


#: the speaker saying what they said or that it was wrong: "I said", "I told you", "I was wrong", "我上次说", "我讲的"
_SAYING = re.compile(r"\bI(?:'d|'ve| had| have)?\s+(?:just\s+|earlier\s+|already\s+|originally\s+)?(?:said|told|"
                     r"mentioned|wrote|typed|meant|put down|was (?:wrong|mistaken|off)|got (?:it|that|this|them) wrong)\b|"
                     r"我(?:上次|之前|刚才|前面|昨天|早上|一开始|原来)?(?:说|讲|写|提|填|报)", re.I)
#: words that open a sentence before its subject ("actually", "sorry", "其实")
_LEAD_WORDS = re.compile(r"^(?:(?:actually|sorry|no|oh|oops|well|so|wait|correction|update|ok(?:ay)?|其实|不对|哦|噢|嗯|"
                         r"对了|更正一下|抱歉|不好意思)[\s,，:：!！.。-]*)+", re.I)


def _people_keys(text: str) -> set[str]:
    """The relation keys of the people a text names ("我爸" -> "father")."""
    return {fill.relation_key(word) or word for word in people_named(text)}


def _says_changed(text: str) -> bool:
    """The statement says itself that something changed (the change words the learned model reads)."""
    return bool(_CHANGED.search(text) or _UPDATED.search(text))


def _same_entity(a: str, b: str) -> bool:
    """The fact reader resolves two statements to the same entity (``fill.fact_properties``)."""
    return str(fill.fact_properties(a).get("entity", "")).casefold() == \
        str(fill.fact_properties(b).get("entity", "")).casefold()


def _about_the_same(candidate: Candidate, draft_type: str, terms: frozenset[str]) -> bool:
    """A change or correction of type ``draft_type`` (its content ``terms``) and a candidate it may replace are
    about the same thing (see SAME_THING)."""
    kind = candidate.reasons[0].split(",", 1)[0] if candidate.reasons else ""
    if GUESS_REPLACES_NO_FACT and draft_type == "Hypothesis" and kind == "Fact":
        return False
    if not SAME_THING or kind in ("Preference", "Task"):
        return True
    if candidate.similarity is None or candidate.similarity >= SAME_THING_SIMILARITY:
        return True
    if any(r.startswith("states the value") for r in candidate.reasons):
        return True
    # a value (a number, a weekday, a month) is what changes, not what the statement is about
    shared = [t for t in _shared_terms(terms, candidate.text)
              if not _NUMERAL.fullmatch(t) and not _VALUE_KINDS["date"].fullmatch(t)]
    entity = any(r.startswith(("mentions ", "about the same ")) for r in candidate.reasons)
    same_kind = any(r.startswith("gives a value of the same kind") for r in candidate.reasons)
    # the entity's own name is one of the shared terms: the same entity needs one more
    return len(shared) >= SAME_THING_TERMS or (entity and len(shared) >= 2) or (same_kind and bool(shared))


#: a change said with no change word is read by a learned model (docs/decisions/0074, understand/same_change.py): a
#: user's (or a tool's) new Preference, Fact or Hypothesis replaces its closest live statement of those types when the
#: model's probability reaches its threshold with a lead over the next candidate; statements about different people
#: are never asked about, a guess never replaces a fact, nothing said in the same utterance is replaced
LEARNED_CHANGES = True
LEARNED_CHANGE_POOL = 5
SAME_CHANGE_TYPES = ("Preference", "Fact", "Hypothesis")
#: the new statements it reads: a preference (a stance replaced by a stance). A new guess is not read. A new fact is
#: not read either: with the gates below it replaced one told event by the next ("we walked past the X" after "we
#: walked past the Y"), since two events said alike read as one thing with a new value; facts wait for a reading
#: that tells a state from an event (docs/decisions/0080)
LEARNED_CHANGE_NEW_TYPES: tuple[str, ...] = ("Preference",)
#: ... a new fact only replaces a statement the fact reader resolves to the same entity (``fill.fact_properties``):
#: without it, a later fact about another attribute of the same thing replaced what was still true as often as a new
#: value did (docs/decisions/0074); with it, out of fold on the collapse train pairs, 26 of 28 fact moves are right
#: (0.93, against 0.76 unguarded; docs/decisions/0080)
LEARNED_CHANGE_SAME_ENTITY = ("Fact",)
#: ... or says itself that something changed (a change word: ``_CHANGED``, ``_UPDATED``) and the rules for marked
#: changes found nothing they may replace (out of fold on the train pairs: 52 fact moves, 48 right, F0.5 0.73 against
#: 0.56 for the entity alone and 0.67 ungated; docs/decisions/0080)
LEARNED_CHANGE_MARKED = True
#: where two statements both read as changed and neither leads, the user is asked which (a "change" confirmation)
LEARNED_CHANGE_ASKS = True
#: ... or where another one is as close in meaning (cosine within this) and read as changed at half the threshold
LEARNED_CHANGE_TIE = 0.05
#: statements about different people never replace each other: who a statement is about is the person the fact reader
#: finds at its head (a relation of the user's, or a name given with one) or the user (a first-person statement)
WHO_IS_PART_OF_THE_FACT = True
#: a correction about the speaker's own value takes nothing back from a statement about another person who holds that
#: value ("I'm 1.70, not 1.65" against "my sister is 1.65"): a data-loss guard (docs/decisions/0111)
SPEAKER_AGAINST_ANOTHER = True
#: words that set what holds now against what held before (zh + en), and a negation
_NOW_CONTRAST = re.compile(r"现在|如今|目前|最近|这阵子|这段时间|已经|不再|从此|以后|今年|这次|改|换|新|\b(?:now|nowadays|these days|"
                           r"currently|lately|recently|anymore|any more|no longer|since|this (?:year|season|term|month|"
                           r"week|time)|from (?:now|today)|new|latest|switched|moved|changed|went up|went down|raised|"
                           r"lowered|dropped|upped|instead)\b", re.I)
_NEGATION = re.compile(r"不|没|别|\b(?:not|no|never|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|won'?t|can'?t|cannot)\b", re.I)
_NUMBERS = re.compile(r"\d+(?:[.,:]\d+)?")


def change_pair_raw(new_text: str, new_type: str, old_text: str, old_type: str, *, similarity: float, rank: int,
                    lead: float, candidates: int, language: str | None = None) -> dict[str, Any]:
    """The quantities the learned change model (understand/same_change.py) reads of one pair: a new statement and
    an older one it may replace (``similarity``: their cosine; ``rank``: the older one's place among the new one's
    candidates by cosine; ``lead``: its cosine over the best other candidate's)."""
    new_terms = {t for t in content_terms(new_text) if not _NUMERAL.fullmatch(t) and not _VALUE_KINDS["date"].fullmatch(t)}
    old_terms = {t for t in content_terms(old_text) if not _NUMERAL.fullmatch(t) and not _VALUE_KINDS["date"].fullmatch(t)}
    shared = new_terms & old_terms
    new_numbers, old_numbers = set(_NUMBERS.findall(new_text)), set(_NUMBERS.findall(old_text))
    new_kinds, old_kinds = _value_kinds(new_text), _value_kinds(old_text)
    new_people, old_people = people_named(new_text), people_named(old_text)
    zh = language == "zh" if language else bool(re.search(r"[\u4e00-\u9fff]", new_text))
    return {
        "new_type": new_type, "old_type": old_type, "similarity": similarity, "rank": rank, "lead": lead,
        "shared_terms": len(shared), "term_overlap": len(shared) / max(len(new_terms | old_terms), 1),
        "shared_numbers": len(new_numbers & old_numbers),
        "numbers_differ": bool(new_numbers) and bool(old_numbers) and new_numbers != old_numbers,
        "same_value_kind": bool(new_kinds & old_kinds), "new_value": bool(new_kinds), "old_value": bool(old_kinds),
        "change_word": _says_changed(new_text),
        "now_word": bool(_NOW_CONTRAST.search(new_text)), "negated": bool(_NEGATION.search(new_text)),
        "same_people": bool(new_people & old_people),
        "length_ratio": min(len(new_text), len(old_text)) / max(len(new_text), len(old_text), 1),
        "candidates": candidates, "language": "zh" if zh else "en",
    }


#: what a correction may replace (an event with a date is often read as a task); what a change of mind may replace,
#: and what may carry one
CORRECTED_TYPES = ("Fact", "Hypothesis", "Task")
CHANGED_TYPES = ("Preference", "Fact", "Hypothesis", "Task")
CHANGING_TYPES = ("Preference", "Fact", "Hypothesis")
#: what a decision settles: an earlier leaning, option or choice (a task of choosing is closed by the update itself)
DECIDED_TYPES = ("Preference", "Fact", "Hypothesis")


def _corrects_a_value(text: str) -> bool:
    """The utterance corrects a value said before: it names the old value ("not the 12th", "不是十二号", "I told you
    £350") or says it got something wrong ("纠正一下", "I misspoke")."""
    old = _named_old_value(text)
    return bool((old and _names_a_value(old)) or _said_before(text) or _CORRECTING_WORDS.search(text))


#: general markers that the speaker got something wrong before (zh + en)
_CORRECTING_WORDS = re.compile(r"纠正|更正|记错|说错|搞错|弄错|看错|看岔|记岔|听错|写错|\b(?:correction|misspoke|misread|misheard|"
                               r"i was wrong|got (?:it|that|the \w+) wrong|my mistake)\b", re.I)


def _names_a_value(value: str) -> bool:
    """A value taken back names something (a number, a date, a name, a thing: "the 4th", "Denver", "7月1号", "20桌"),
    not a word of the negation itself ("not yet", "not really", "不太")."""
    value = value.strip()
    if re.search(r"\d", value) or re.search(r"[\u4e00-\u9fff]{2,}", value):
        return not re.fullmatch(r"(?:不|没|太|很|一定|还|再|要|会|能|用|对|是)+.?", value)
    words = re.findall(r"[A-Za-z']+", value)
    return bool(words) and (any(w[0].isupper() for w in words) or len(words) >= 2 or len(words[0]) >= 5) \
        and not (len(words) == 1 and (words[0].lower() in _NOT_VALUES or _NOT_A_THING.search(words[0])))


#: a lone lower-case word after a negation that is a verb form or a word of judging ("not planning", "isn't booked",
#: "not great"): it says how something is, it names no value taken back (docs/decisions/0057)
_NOT_A_THING = re.compile(r"^(?!(?:morning|evening|wedding|meeting|building|ceiling|parking|booking|clothing|"
                          r"painting|spring|string|shed|speed|seed|bed|red)$)[a-z']{3,}(?:ing|ed)$|^(?:great|good|fine|nice|easy|cheap|before|after|ideal|ready|happy|"
                          r"done|over|there|enough|keen|bothered|worried|allowed|possible|likely)$")


#: words that follow a negation without naming a value taken back
_NOT_VALUES = frozenset({"yet", "really", "sure", "quite", "exactly", "that", "this", "it", "so", "too", "only", "just",
                         "much", "bad", "now", "today", "anymore", "again", "even", "always", "ever", "very", "at",
                         "a", "an", "the", "to", "for", "because", "since", "until", "unless", "if", "what", "how"})


def _as_correction(draft: Draft, record: MemIR, utterance: str = "") -> tuple[Draft, MemIR]:
    """A statement read as a guess or a fact that names the value it takes back ("his visa actually runs out in
    May, not August", "不是20桌，是26桌") is a correction: a Fact that replaces what it corrects. So is one that
    quotes what the speaker said before and takes it back (``_said_before``: in the statement itself, or in its
    utterance when the statement is itself a correction)."""
    if draft.type not in ("Fact", "Hypothesis") or (draft.kind == "correction" and draft.replaces):
        return draft, record
    cued, old = fill.correction_of(draft.text)
    if _old_value_key(old) is None and NAMED_VALUE_BOUNDS:
        wider = _named_old_value(draft.text)
        cued, old = (True, wider) if wider is not None else (cued, old)
    if _old_value_key(old) is None:
        said = _said_before(draft.text) or (_said_before(utterance) if cued or draft.kind == "correction" else None)
        if said is not None:
            cued, old = True, said
    if not cued or _old_value_key(old) is None:
        return draft, record
    props = {**fill.fact_properties(draft.text), "source": "user", "confidence": 0.8} if draft.type != "Fact" \
        else dict(draft.properties)
    fact = Draft("Fact", draft.text, props, kind="correction", confidence=draft.confidence, entities=draft.entities,
                 reasons=[*draft.reasons, f"a correction: takes back {old!r}"], replaces=old)
    fact.vector = draft.vector
    changed = record.model_copy(update={"type": "Fact", "properties": {k: _plain(v) for k, v in props.items()
                                                                        if v is not None}})
    return fact, changed


#: a change word tells of the statement it is said in and of what follows it ("Slight change of plan. The picnic
#: is at the weir."), not of what was said before it in the turn ("My classmate is a nurse. … I no longer take the
#: early bus": the classmate is not changed) (docs/decisions/0087)
CHANGE_WORD_IN_STATEMENT = False
_PIECE = re.compile(r"[^，,。.；;！!？?\n]+")


def _marked_in_statement(marker: re.Pattern[str], statement: str, utterance: str) -> bool:
    """Whether ``marker`` (a change word) is said in ``statement`` itself or before it in the utterance. Where the
    statement cannot be placed in the utterance (rewritten on reading), the whole utterance is read, as before."""
    if not CHANGE_WORD_IN_STATEMENT or marker.search(statement):
        return True
    end = _end_in(statement, utterance)
    return bool(marker.search(utterance if end is None else utterance[:end]))


def _end_in(statement: str, utterance: str) -> int | None:
    """Where ``statement`` ends in ``utterance`` (the end of its last piece found there), or None."""
    at = utterance.find(statement)
    if at >= 0:
        return at + len(statement)
    for piece in reversed([p.strip() for p in _PIECE.findall(statement)]):
        if len(piece) >= 4 and (at := utterance.find(piece)) >= 0:
            return at + len(piece)
    return None


def _without_lead(draft: Draft) -> Draft:
    """The draft without a leading clause that only announces the correction or change ("Oops, I got that wrong:",
    "我记错了，"): what is left is what it is about (its vector is made anew when the text changes)."""
    text, cut, at = draft.text, 0, 0
    for _ in range(3):  # a few short clauses, the last of them carrying the cue ("Oops, my mistake:")
        m = _LEAD.match(text[at:])
        if m is None:
            break
        lead = m.group(0)
        cue = CUES["correction"].search(lead) or _CHANGED.search(lead)
        rest = lead.replace(cue.group(0), " ") if cue else lead
        if re.search(r"\d", lead) or len(content_terms(rest)) > 1 or len(re.findall(r"[A-Za-z]+", lead)) > LEAD_WORDS \
                or len(re.findall(r"[\u4e00-\u9fff]", lead)) > LEAD_HAN:
            break  # the clause says something of its own ("Biscuit is actually 2,"): not an announcement
        at += m.end()
        if cue:
            cut = at
    if cut and text[cut:].strip():
        text = text[cut:]
    if text == draft.text:
        return draft
    return Draft(draft.type, text, draft.properties, kind=draft.kind, entities=draft.entities, replaces=draft.replaces)


#: a correction often names the value it takes back by quoting what the speaker said before ("I told you the rent
#: was £350", "the 12k I told you was off", "我上次说它3.5公斤", "我之前说在徐汇上班") instead of negating it ("not the
#: 4th", "不是20桌"): general markers of the speaker's own earlier statement, read only when the utterance also says it
#: was wrong or corrects it (docs/decisions/0057)
SAID_BEFORE = True
_SAID_BEFORE = (
    re.compile(r"\bI\s+(?:(?:had\s+)?said|told you|mentioned|gave you|wrote down|put down)\s+(?:that\s+|it\s+was\s+)?"
               r"(?P<e>[^.;!?]{1,70})", re.I),
    re.compile(r"(?P<e>\b[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,3})\s+(?:that\s+)?I\s+(?:told you|gave you|mentioned|said)\b",
               re.I),
    re.compile(r"(?:之前|上次|刚才|前面|当时|那天|先前|以前|原先)(?:跟你|和你|给你|我)?(?:说|讲|提|报)(?:过)?(?P<e>[^，,。；;！!？?—]{1,20})"))
#: ... what says the earlier statement was wrong (besides the lexicon's correction cue)
_RETRACTS = re.compile(r"错|不对|不准|不是|其实|更正|纠正|\b(?:wrong|off|mistake|incorrect|correct(?:ion|ing)?\s+(?:myself|the|that|"
                       r"this|it)|correction|actually|wait|not|isn'?t|wasn'?t|it'?s (?:actually |really |more like )?)\b", re.I)
#: a value in the quoted clause: a number with its unit or currency, a date, a time of day
_QUOTED_VALUE = re.compile(
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|"
    r"jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|[£$€¥]\s?\d[\d,.]*\s?[km]?\b|"
    r"\d+(?:\.\d+)?\s?(?:公斤|[月号日点天年岁周个次块元万斤平米桌人])|\d+(?:[.,]\d+)*\s?(?:%|k\b|am\b|pm\b)?", re.I)
#: words that only lead into the quoted statement ("it was", "the budget was", "它", "是")
_QUOTE_LEAD = re.compile(r"^(?:[的是它他她那这在]|(?:it|that|this|the \w+(?: \w+)?)\s+(?:was|is|'s|were|are)\s+)", re.I)
#: Chinese words that end the quoted statement (the retraction that follows it)
_QUOTE_END = re.compile(r"(?:记错|说错|搞错|弄错|不对|不准|有误|错了|其实|后来|但|可).*$")


def _said_before(text: str) -> str | None:
    """The value the speaker says they stated before and now takes back ("I told you the rent was £350. It's
    £420" -> "£350"; "我上次说它3.5公斤，其实有4公斤" -> "3.5公斤"; "我之前说在徐汇上班，不对" -> "徐汇上班"); None
    when the utterance quotes nothing of the kind or does not take it back."""
    if not SAID_BEFORE:
        return None
    for index, pattern in enumerate(_SAID_BEFORE):
        for m in pattern.finditer(text):
            if not (_RETRACTS.search(text[m.end():]) or _RETRACTS.search(text[:m.start()])
                    or CUES["correction"].search(text) or _CHANGED_MIND.search(text)
                    or _retracted_with_quote(m.group("e"), text[m.end():])):
                continue
            value = _quoted_value(m.group("e"))
            # what stands before "I told you" names a value only with a number ("the 12k I told you"), not a topic
            if value is not None and (index != 1 or re.search(r"\d", value)):
                return value
    return None


def _quoted_value(clause: str) -> str | None:
    """The value a quoted earlier statement gave (see _said_before), or None."""
    clause = re.split(r"(?<!\d),|，|\s+(?:but|and|so|because|when|right)\b", clause.strip(), maxsplit=1,
                      flags=re.I)[0].strip()
    found = _QUOTED_VALUE.search(clause)
    if found is not None and re.search(r"\d", found.group(0)):
        return found.group(0).strip()
    if re.search(r"[\u4e00-\u9fff]", clause):
        if clause.startswith("的"):
            return None  # "我之前说的时间记错了": names what was wrong, not the value
        clause = _QUOTE_END.sub("", clause)
        for _ in range(2):
            clause = _QUOTE_LEAD.sub("", clause).strip()
        return clause if 2 <= len(clause) <= 8 and _names_a_value(clause) else None
    clause = _QUOTE_LEAD.sub("", clause).strip()
    words = clause.split()
    return clause if 1 <= len(words) <= 3 and _names_a_value(clause) and not _NOT_QUOTED.match(clause) else None


#: what follows "I said" / "I told you" without quoting a value
_NOT_QUOTED = re.compile(r"(?:was|is|were|are|it|that|this|so|you|no|yes|i|we|he|she|they)\b", re.I)


#: the kinds of value a statement gives (a price, a time of day, a date, a measure): a change or a correction gives
#: a new value of the kind the statement it replaces gave ("$29" -> "$35", "8:10am" -> "9:40am", "3月28号" ->
#: "4月2号"), so a candidate that gives one of the same kinds is that much closer (VALUE_KIND_BONUS)
VALUE_KIND_BONUS = 0.08
_VALUE_KINDS = {
    "money": re.compile(r"[$£€¥]\s?\d|\d\s?(?:元|块|万|美元|欧|英镑|dollars?|pounds?|euros?|quid|k\b)|"
                        r"\b(?:price|cost|fee|rate|pays?)\b|价|费", re.I),
    "time": re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|[点點]半?|[上下]午|晚上|早上|"
                       r"\b(?:noon|midnight|morning|afternoon|evening)\b", re.I),
    "date": re.compile(r"\d+\s?[月号日]|周[一二三四五六日天]|星期|礼拜|\b(?:\d{1,2}(?:st|nd|rd|th)|monday|tuesday|wednesday|"
                       r"thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
                       r"september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b", re.I),
    "measure": re.compile(r"\d\s?(?:%|米|公里|厘米|毫升|升|克|公斤|斤|km|cm|mm|kg|g|ml|metres?|meters?|miles?|"
                          r"kilos?|litres?|liters?|percent)\b|\d\s?(?:%|米|公里|厘米|毫升|升|克|公斤|斤)", re.I),
}


def _value_kinds(text: str) -> frozenset[str]:
    """The kinds of value ``text`` gives (see _VALUE_KINDS)."""
    return frozenset(kind for kind, pattern in _VALUE_KINDS.items() if pattern.search(text))


def _kind_bonus(candidate: Candidate, kinds: frozenset[str]) -> Candidate:
    """The candidate VALUE_KIND_BONUS closer when it gives a value of a kind in ``kinds``."""
    same = sorted(kinds & _value_kinds(candidate.text))
    if not same:
        return candidate
    return Candidate(candidate.id, candidate.text, candidate.score + VALUE_KIND_BONUS,
                     (*candidate.reasons, "gives a value of the same kind: " + ", ".join(same)), candidate.similarity)


def _kind_of(candidate: Candidate) -> str:
    """The candidate's type (its reasons open with it: ``_scored``)."""
    return candidate.reasons[0].split(",", 1)[0] if candidate.reasons else ""


def _same_statement(a: str, b: str) -> bool:
    """Two memory texts are one statement (several readings of one piece of an utterance carry its text)."""
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def _type_rank(candidate: Candidate, types: Sequence[str]) -> int:
    """Where the candidate's type stands in ``types`` (what a correction or change replaces first); its reasons
    open with its type (``_scored``)."""
    kind = candidate.reasons[0].split(",", 1)[0] if candidate.reasons else ""
    return types.index(kind) if kind in types else len(types)


def _reads_as_report(text: str) -> bool:
    """Worded as work done or dropped, with nothing still ahead and no question."""
    return bool((CUES["done"].search(text) or CUES["abandon"].search(text)) and not _AHEAD.search(text)
                and not CUES["question"].search(text))


def _term_sure(candidate: Candidate) -> bool:
    """Sure enough by the words a report shares with a task (TERM_SURE), the texts themselves not far apart
    (TERM_SIMILARITY_FLOOR)."""
    return candidate.score >= TERM_SURE and _shares(candidate) and (
        candidate.similarity is None or candidate.similarity >= TERM_SIMILARITY_FLOOR)


def _shares(candidate: Candidate) -> bool:
    """The candidate (or, for open work, the utterance it was read from) shares a content term with the report
    (``_scored`` names them in its reasons)."""
    return any(reason.startswith("shares ") for reason in candidate.reasons)


def _same_people(people: frozenset[str], text: str) -> bool:
    """Two statements may be about the same person unless both name people by relation and the people differ."""
    other = people_named(text)
    return not people or not other or bool(people & other)


def _shared_terms(terms: frozenset[str], text: str) -> list[str]:
    """The content terms of a report (``terms``) that ``text`` also has, sorted."""
    return sorted(terms & content_terms(text))


def _old_value_key(value: str | None) -> str | None:
    """The value a correction takes back, as a comparable key (lower case, spaces folded); None when too short to
    identify a memory by (one letter or character). A number counts, matched as a whole number ("not 3" names the
    fact that says "3 years old", never "13" or "3.5")."""
    if not value:
        return None
    key = re.sub(r"\s+", " ", str(value)).strip().lower()
    # what only places the value ("the 20th", "on the 4th", "a 2017") or a relative day before a date ("今天31号")
    # is no part of it; an ordinal is its number ("20th" is said "20" elsewhere: "October 20")
    key = _VALUE_ARTICLE.sub("", key).strip() or key
    key = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", key)
    if re.search(r"\d", key):
        key = _RELATIVE_DAY.sub("", key) or key
    return key if len(key) >= 2 or key.isdigit() else None


#: words that only place a value a correction takes back, and relative days said before a date (general markers)
_VALUE_ARTICLE = re.compile(r"^(?:(?:on|in|at|to|for|by|from)\s+)?(?:the|a|an)\s+(?=\S)")
_RELATIVE_DAY = re.compile(r"^(?:今天|昨天|明天|前天|后天|今年|去年|明年|这周|本周|上周|下周|这个月|上个月|下个月)")


#: a correction naming the value it takes back outdates the facts and guesses read from the utterances it corrects
#: that state that value (docs/decisions/0069)
OUTDATE_STATED_VALUES = True
#: ... and so do statements read as a feeling ("I think 60? didn't count properly") or a preference that state it:
#: a value taken back is outdated whatever its statement was read as; open work keeps it (it moves instead) (0088)
OUTDATE_ANY_STATEMENT = True
OUTDATED_BY_VALUE = ("Fact", "Hypothesis")
OUTDATED_TOO = ("EmotionalState", "Preference")


def _states_value(text: str, named: str) -> bool:
    """Whether ``text`` states the value ``named`` (an :func:`_old_value_key`): a whole word or number ("4" is not in
    "14" nor in "4.5", but it ends a sentence: "on the 4.")."""
    text = re.sub(r"\s+", " ", text).lower()
    ordinal = r"(?:st|nd|rd|th)?" if named[-1].isdigit() else ""  # "20" is also said "the 20th"
    # a number is also said against a Chinese measure word or unit ("2017年", "180人"): only Latin letters and digits
    # around it make it part of another word (0088)
    numeric = named.isdigit() or (DECIMALS_BESIDE_HAN and re.fullmatch(r"\d+(?:[.,]\d+)+", named) is not None)
    around = r"[A-Za-z0-9_]" if NUMBERS_BESIDE_HAN and numeric else r"\w"
    pattern = (r"(?<![" + around[1:-1] + r".])" + re.escape(named) + ordinal + r"(?!" + around + r"|\.\d)") \
        if named.isascii() else re.escape(named)
    return re.search(pattern, text) is not None


def _named_bonus(candidate: Candidate, named: str) -> Candidate:
    """A candidate whose text states the value the correction takes back is what it corrects: NAMED_VALUE_BONUS."""
    if not _states_value(candidate.text, named):
        return candidate
    return Candidate(candidate.id, candidate.text, candidate.score + NAMED_VALUE_BONUS,
                     (*candidate.reasons, f"states the value it takes back ({named!r})"))


def _texts_to_embed(extraction: Extraction, *, proposals: bool = True) -> list[str]:
    """The texts remembering an utterance will embed, as far as its extraction tells: each draft's text (stored, and
    searched with), the entity names searched for links, what a correction takes back, an assistant's proposal
    (``proposals``: when a later turn of the same batch may accept it)."""
    out: list[str] = []
    for draft in extraction.drafts:
        out.append(draft.text[:MAX_TEXT_CHARS])
        entity = draft.properties.get("entity")
        if draft.type in ("Fact", "Hypothesis") and entity in RELATIONS:  # searched by _resolve_relation
            out.append(_relation_words(str(entity), extraction.language))
        # the option a decision names, searched when it replaces a leaning (_replace_by_meaning)
        decided = fill.decision_of(draft.text) if draft.kind == "update" else \
            draft.properties if draft.properties.get("attribute") == "decision" else None
        if extraction.speaker == "user" and decided and _old_value_key(str(decided.get("value") or "")):
            out.append(str(decided["value"]))
        out += [" ".join(aliases(key)) for key in sorted({e.key for e in draft.entities})]
        if draft.replaces:
            out.append(str(draft.replaces))
        goal = draft.properties.get("underlying_goal")
        if goal and proposals:
            out.append(str(goal))
    return out


def _relation_words(entity: str, language: str) -> str:
    """The words ``_resolve_relation`` searches for the people a user named by a relation ("doctor dentist gp")."""
    words = " ".join(w for w in RELATIONS[entity] if bool(re.search(r"[\u4e00-\u9fff]", w)) == (language == "zh"))
    return words or entity


#: read whether each user turn is talk between people and keep it on its Episode (docs/decisions/0103)
READ_TALK = True
#: read a transcript's turn without its speaker label ("Jonas: …"): docs/decisions/0078
READ_WITHOUT_LABEL = True
#: ... once that label and another have each opened this many of the user's earlier utterances
TRANSCRIPT_LABELS = 2
#: the labels counted per user, and the users counted (bounds on what is held in memory)
MAX_LABELS = 64
MAX_LABELLED_SCOPES = 10_000
#: the user's latest utterances read back from the store to count labels the first time a scope says one
LABELS_READ_BACK = 50


#: ... and what is read from it says who said it ("Jonas: I fixed my bike" -> a Fact "Jonas: I fixed my bike"): a
#: first-person statement in a transcript is about its speaker
SAY_WHO_SAID_IT = True


def _note_who_said_it(ctx: _Context, text: str, verbatim: str | None) -> None:
    """Who speaks a user's turn of a transcript: the label it opens with (read off or not yet: the first turns of a
    transcript are heard whole until two labels recur), and whether the turn is read as part of one."""
    if ctx.speaker != "user":
        return
    found = speaker_label(verbatim if verbatim is not None else text)
    ctx.said_by = found[0] if found is not None else None
    ctx.in_transcript = found is not None and verbatim is not None and verbatim != text


def _who_said_it(ctx: _Context) -> dict[str, Any]:
    """The metadata that says which transcript speaker said a memory (none outside a transcript)."""
    if ctx.said_by is None:
        return {}
    return {SAID_BY: ctx.said_by, **({IN_TRANSCRIPT: True} if ctx.in_transcript else {})}


def _said_by_another(old: MemIR, ctx: _Context) -> bool:
    """Whether ``old`` was said by another speaker of the transcript this turn belongs to, and neither names the
    other (``lifecycle.terms.said_by_another``): it is no candidate for what this turn replaces or takes back."""
    return said_by_another(ctx.said_by, ctx.text, ctx.in_transcript, old)


def _said_by(record: MemIR, name: str) -> MemIR:
    """``record`` with its text opened by the speaker's label, as the transcript said it."""
    text = f"{name}: {record.content.text}"[:MAX_TEXT_CHARS]
    return record.model_copy(update={"content": record.content.model_copy(update={"text": text})})


def episode_of(text: str, ctx: _Context) -> MemIR:
    """The utterance kept verbatim as an ``Episode`` (who said it, session, turn, time): the evidence every typed
    memory read from it links to (``derived_from``). Stored by ``remember`` whatever extraction makes of it."""
    props: dict[str, Any] = {"speaker": ctx.speaker, "time": ctx.now.isoformat()}
    if ctx.session is not None:
        props["session"] = ctx.session
    if ctx.turn is not None:
        props["turn"] = ctx.turn
    return MemIR(
        content=Content(text=text[:MAX_TEXT_CHARS]), type=EPISODE, properties=props,
        scope=Scope(user_id=ctx.user, agent_id=ctx.agent, session_id=ctx.session),
        metadata=Metadata(created_at=ctx.now, updated_at=ctx.now,
                          source=Source(speaker=ctx.speaker, session_id=ctx.session, turn=ctx.turn,
                                        creator=ctx.creator, at=ctx.now),
                          extra={"dialogue_act": ctx.act, "language": ctx.language, **_who_said_it(ctx),
                                 **({TALK: ctx.talk} if ctx.talk is not None else {})}),
        valid_from=ctx.now,
    )


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


#: a turn number is stored as a property, and the stores keep integers in 64 bits
_MAX_TURN = 2**63 - 1


def _check_turn(turn: object, field: str = "turn") -> None:
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= _MAX_TURN):
        raise ValidationError("turn must be a non-negative 64-bit integer", field=field, value=turn,
                              allowed=f"int from 0 to {_MAX_TURN}")


def _speaker_of(value: object, field: str) -> str:
    """check_speaker, the error naming the turn's speaker field (``turns[3].speaker``)."""
    try:
        return check_speaker(value)
    except ValidationError as exc:
        raise ValidationError(exc.message, **{**exc.context, "field": field}) from None


def _parse_turn(item: Any, index: int) -> tuple[str, str, int, datetime | None]:
    field_name = f"turns[{index}]"
    if isinstance(item, str):
        return "user", check_text(item, f"{field_name}.text"), index, None
    if isinstance(item, Mapping):
        if "text" not in item:
            raise ValidationError(f"{field_name} has no text", field=f"{field_name}.text",
                                  allowed="{'text': ..., 'speaker': ..., 'turn': ...}")
        turn = item.get("turn", index)
        _check_turn(turn, f"{field_name}.turn")
        when = item.get("now")
        if when is not None and not isinstance(when, datetime):
            raise ValidationError(f"{field_name}.now must be a datetime", field=f"{field_name}.now", value=when)
        if when is not None:
            ensure_aware(when, f"{field_name}.now")
        return (_speaker_of(item.get("speaker", "user"), f"{field_name}.speaker"),
                check_text(item["text"], f"{field_name}.text"), turn, when)
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return _speaker_of(item[0], f"{field_name}.speaker"), check_text(item[1], f"{field_name}.text"), index, None
    raise ValidationError(f"{field_name} is not a turn", field=field_name, value=item,
                          allowed="a string, a (speaker, text) pair or a dict with 'text'")


# -- values taken back (session 24, docs/decisions/0088) ------------------------------------------------------------
#: a named old value also ends at a dash, a bracket, "at all", "though" ("not $35 - the club raised it", "the boat is a
#: Beneteau, not a Jeanneau at all"): fill.correction_of ends it only at , . ; ! "but" "anymore"
NAMED_VALUE_BOUNDS = True
_NOT_NAMED = re.compile(
    r"(?:\bnot|\b(?:is|was|are|were)n'?t)\s+(?:in |at |to |on )?"
    r"(?P<v>[£$€¥]?[\w'&.-]+(?:\s+[\w'&.-]+){0,5}?)"
    r"(?=\s+[-–—]\s|\s*[()–—]|\s+at all\b|\s+though\b|\s+but\b|\s+anymore\b|[,;!:?]|\.(?!\d)|\s*$)", re.I)


_VALUE_BOUND = re.compile(r"\s+[-–—]\s|\s*[()–—]|\s+at all\b|\s+though\b", re.I)


def _named_old_value(text: str) -> str | None:
    """The value a correction names as wrong: fill.correction_of's, else one ended by a dash, a bracket, "at all" or
    "though" that gives a number, a name (a capital) or a thing with its article ("a Jeanneau"); a verb form or
    a judgement after "not" names nothing (0057's _NOT_A_THING)."""
    old = fill.correction_of(text)[1]
    if not NAMED_VALUE_BOUNDS:
        return old
    if old:  # what follows a dash or a bracket is no part of the value
        old = _VALUE_BOUND.split(old)[0].strip(" .-'") or None
        first = old.split()[0].lower() if old and old.isascii() else ""
        if first and (first in _NOT_VALUES or _NOT_A_THING.search(first)):
            old = None  # "not planning to", "not sure": a verb form or a judgement names no value
    for m in _NOT_NAMED.finditer(text):
        value = m.group("v").strip(" .-'")
        words = value.split()
        if not words or words[0].lower() in _NOT_VALUES - {"a", "an", "the"} or _NOT_A_THING.search(words[0]):
            continue
        if (re.search(r"\d", value) or any(w[0].isupper() for w in words)
                or (words[0].lower() in ("a", "an", "the") and len(words) >= 2)) and _names_a_value(value) \
                and (not old or not _names_a_value(old)
                     or str(_old_value_key(old)).startswith(str(_old_value_key(value)))):
            return value  # fill's value, or the same cut at a dash or a bracket
    return old


#: a quoted earlier value taken back inside the quote ("上次说三只猫不对") or by a change word after it ("…，现在是四只")
def _retracted_with_quote(quoted: str, rest: str) -> bool:
    return bool(RESTATED_VALUES and (_QUOTE_END.search(quoted) or _UPDATED.search(rest[:40])))


#: an utterance that says it got something wrong and restates the old value beside the new one (see
#: UnderstandingMixin._restated_old_value)
RESTATED_VALUES = True
#: how close (cosine, with the match bonuses) an earlier user utterance must be for its value to count as the old one
RESTATED_SURE = 0.35
#: general markers of having misheard, misread or mixed something up, besides the correction cue (zh + en)
_MISREAD = re.compile(r"没听清|没看清|听岔|记混|搞混|弄混|看漏|\b(?:mixed (?:it|them|that|those) up|got (?:it|them) mixed up|"
                      r"misremembered|misheard|misread|wrong (?:number|date|day|figure|price|year))\b", re.I)
#: values a statement gives: a number with what follows it (a unit, a currency, a measure word), a Chinese numeral of
#: two or more characters, or one with its measure word
_VALUE_IN = re.compile(r"[$£€¥]?\d+(?:[.,:]\d+)*|[零〇一二两三四五六七八九十百千万亿半]{2,}|"
                       r"[一二两三四五六七八九十](?=[箱个只块元本台张件人天周年岁斤次层间套])"
                       r"[箱个只块元本台张件人天周年岁斤次层间套]")


def _values_in(text: str) -> list[str]:
    """The distinct values ``text`` states (see _VALUE_IN), as _old_value_key keys, in order."""
    out: list[str] = []
    for m in _VALUE_IN.finditer(text):
        key = _old_value_key(m.group(0))
        if key and key not in out and not re.fullmatch(r"[零〇一二两三四五六七八九十百千万亿半几]", key):
            out.append(key)
    return out


#: a number said against Chinese text counts as stated (see _states_value)
NUMBERS_BESIDE_HAN = True
#: ... a decimal or a grouped number too ("4.5个平方", "1,200元"): Chinese writes every number against its measure word
#: (docs/decisions/0107)
DECIMALS_BESIDE_HAN = False
#: a value taken back by an utterance that also moved a task is left to the task only when the move was a
#: postponement (the task carries the new date): a report read from the turn ("got the back panel off") says nothing
#: of the value
ONLY_POSTPONEMENTS_KEEP = True


def _moved_a_date(ctx: _Context) -> bool:
    """Whether this utterance was read as moving a piece of work to another time (a postponement)."""
    return any(d.properties.get("postponed") for e in ctx.out.extractions for d in e.updates)


#: a value of at least SPECIFIC_VALUE characters ("2017", "a jeanneau", "布洛芬片") identifies the statement that
#: gave it without a shared term (_outdate_stated_values); shorter ones ("15", "$25", "6点") need one
SPECIFIC_VALUE_ALONE = True
SPECIFIC_VALUE = 4
#: the sentences of an utterance that ask nothing: a value is taken back in what is told, even when the turn goes
#: on to ask about it ("It's a Yamaha, not a Kawai. Does that matter?")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？\n]*")
QUESTIONS_APART = True


def _told_sentences(text: str) -> str:
    if not QUESTIONS_APART:
        return "" if CUES["question"].search(text) else text
    return " ".join(m.group(0).strip() for m in _SENTENCE.finditer(text)
                    if not CUES["question"].search(m.group(0))).strip()


#: a report told first and what follows it after ("ordered it, the one with the round veil. should be here thursday",
#: "表交了，下周出结果"): the clauses before the first that looks ahead tell the work as done (0088)
REPORT_BEFORE_AHEAD = True
#: ... never when told of another person (see _told_of_someone_else)
OTHERS_APART = False
_CLAUSE = re.compile(r"[^，,。.；;！!\n]+[，,。.；;！!\n]*")


def _told_before_ahead(text: str) -> str | None:
    """The leading clauses of ``text`` that tell work as done, when a later clause looks ahead (what will follow:
    "should be here thursday"); None when the text looks ahead from its start, asks, or tells nothing as done."""
    if not REPORT_BEFORE_AHEAD or CUES["question"].search(text) or CUES["correction"].search(text) \
            or _CORRECTING_WORDS.search(text) or _named_old_value(text):
        return None  # a correction tells what is true of a fact, not which work is done
    clauses = [m.group(0) for m in _CLAUSE.finditer(text)]
    ahead = next((i for i, c in enumerate(clauses) if _AHEAD.search(c)), None)
    if ahead is None or ahead == 0:
        return None
    told = "".join(clauses[:ahead]).strip()
    if OTHERS_APART and _told_of_someone_else(told):
        return None  # what another person did is news, not the speaker's work done
    return told if fill.perfective(told) and len(content_terms(told)) >= 1 else None


#: what opens a clause told of another person: a third person, a name or a relation ("the race people emailed",
#: "Adeyemi wanted…", "她自己早就考过了"); the speaker's own work is told in the first person or with no subject
_OPENS_WITH = re.compile(r"^(?:(?:ok(?:ay)?|so|yes|yeah|yep|well|and|also|oh|anyway|update|quick (?:one|thing))\W+)*"
                         r"(?P<w>[A-Za-z']+)", re.I)
_THIRD = frozenset({"he", "she", "they", "he's", "she's", "they've", "the", "his", "her", "their", "my", "our", "your",
                    "this", "that", "these", "those", "there", "someone", "everyone", "nobody"})
_THIRD_ZH = re.compile(r"他|她|它们|人家|对方|大家")
#: a Chinese clause opening with a person addressed by a form of address ("老王", "小李", "阿芳", "陈总", "刘老师")
_ADDRESSED_ZH = re.compile(r"(?:[老小阿][" + fill._SURNAMES + r"]|[" + fill._SURNAMES + r"][\u4e00-\u9fff]?"
                           r"(?:姐|哥|叔|姨|总|老师|师傅|医生|经理))")


def _told_of_someone_else(told: str) -> bool:
    if people_named(told) or _THIRD_ZH.search(told) or _ADDRESSED_ZH.match(told.strip()):
        return True
    m = _OPENS_WITH.match(told.strip())
    if m is None:
        return False
    word = m.group("w")
    return word.lower() in _THIRD or (word[0].isupper() and word not in ("I", "I've", "I'd", "We", "We've")
                                      and not word.lower().endswith("ed")
                                      and word.lower() not in ("finally", "just", "already", "got", "picked",
                                                                "sent", "booked", "ordered", "paid", "done"))


_OWN_WORK = re.compile(r"我(?:还|也|再)?(?:得|要|需要|准备|打算)|\b(?:I|we)\s*(?:still\s+|also\s+)?(?:need|have to|must|will|'ll|"
                       r"am going to|'m going to|want to|should)\b|\b(?:I'll|we'll|I'm going to)\b", re.I)


def _own_work_after(text: str, told: str) -> bool:
    """Whether what follows the report in ``text`` states work of the speaker's own still ahead."""
    return bool(_OWN_WORK.search(text[len(told):] if text.startswith(told) else text))
