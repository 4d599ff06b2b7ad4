"""Extraction: one utterance in, typed memory drafts out (offline, no LLM).

Pipeline: check the input -> split into pieces -> a plan? (rule) -> classify
each piece (softmax over sentence vector + cue features) -> fill properties
with rules -> apply the speaker policy.

What is stored and what is not (the policy; tests hold it):

- A piece becomes a memory only when it carries something worth recalling later:
  a durable fact (about the user, someone they know or the world), a preference,
  a task or plan, a report on a task (an *update*, applied to the existing task,
  not stored as a new memory), an emotion the user expressed, or the frame of
  the conversation.
- Greetings, thanks, acknowledgements, questions to the assistant and other
  chit-chat are not facts. An utterance with no memory-worthy piece yields
  exactly one ``DialogueAct`` draft (its act type), so the conversation's shape is
  kept without polluting knowledge; text with no letters at all yields nothing.
- Provenance policy: an assistant turn creates no memory about the user. Its offers,
  questions, restatements and advice are dropped (a note says so); what it proposes
  ("要不要我帮你订个位子？", "Shall I write up the notes?") is kept on the turn's
  ``DialogueAct`` as ``underlying_goal``, so that the user's confirmation on the next
  turn ("好，就这么办", "yes, do that") makes it the user's task (``memory.understanding``).
  Only its reports of work it finished ("I've booked the flight") count, as updates
  of an existing task. System/tool text yields external facts and frames only: what the
  classifier reads in it as anything else is kept as a fact (a tool has no work or feelings).
- A piece read as a report that says nothing of how any work stands is no report: it takes
  the classifier's best other type.
- Something the user has to do (a request, a duty, a due date: "I've got to renew the car tax by
  Friday", "帮我订票") is a ``Task``; something the user means to do (an intention or arrangement
  of their own: "I'm going to cycle to work from next month", "暑假打算回老家") is a ``Plan``, one
  step when told alone; actions told together with a plan step are more steps of it.
- Hedged statements ("我猜可能是…", "I think maybe…") are ``Hypothesis`` memories with
  a confidence, kept apart from facts. A decision is a ``Fact`` with attribute
  ``decision``. A fact's ``entity`` is who or what it is about (the user, a relative,
  a named person, a thing): see :func:`mnemir.understand.fill.fact_properties`.
- A piece below a minimum of meaning (:func:`meaningful`) is dropped, with a note.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from mnemir.embed.base import Embedder
from mnemir.errors import ConfigError, ValidationError
from mnemir.ir import MAX_TEXT_CHARS
from mnemir.ir.record import check_unicode
from mnemir.understand import fill
from mnemir.understand.dates import local_now, resolve_deadline
from mnemir.understand.entities import Entity, find_entities
from mnemir.understand.lexicon import AMBIGUOUS_EMOTION_WORDS, CUES, EMOTION_PROTOTYPES, find_emotion, language_of
from mnemir.understand.model import SoftmaxModel, boosted, load_model
from mnemir.understand.segment import is_plan, split_clauses, split_pieces, split_plan

__all__ = ["EXTRACTION_LABELS", "MEMORY_LABELS", "SPEAKERS", "Draft", "Extraction", "Extractor", "check_speaker",
           "check_text", "finalize", "has_words", "label_of", "lexicon_boost", "meaningful", "proposal_of",
           "says_how_work_stands"]

#: what a piece of an utterance can be (``TaskUpdate``: a report on an existing task, not a new memory)
MEMORY_LABELS = ("Fact", "Preference", "Task", "Plan", "EmotionalState", "ContextualFrame", "Hypothesis", "TaskUpdate")
EXTRACTION_LABELS = ("NONE", *MEMORY_LABELS)
SPEAKERS = ("user", "assistant", "system", "tool")
SPEAKER_ALIASES = {"用户": "user", "human": "user", "助手": "assistant", "ai": "assistant", "agent": "assistant",
                   "bot": "assistant", "系统": "system", "工具": "tool"}
_ALLOWED_BY_SPEAKER = {
    "user": set(MEMORY_LABELS),
    "assistant": {"TaskUpdate"},
    "system": {"Fact", "ContextualFrame"},
    "tool": {"Fact"},
}
CREATOR = "mnemir.understand.rules+softmax"
#: below this classifier probability an EmotionalState with no emotion word is not stored. 0.4, down from 0.6: the
#: generalisation work showed feelings said indirectly (a loss told as not being able to eat) land at p 0.45-0.6; chosen on the dev
#: split (train cross-validation had only 8 such predictions in the 0.4-0.6 band, too few to decide on)
PROTOTYPE_MIN_P = 0.4
#: such a feeling, too unsure to keep, gives way to the piece's next reading (a Fact, a task…) rather than to nothing
#: (docs/decisions/0045)
WEAK_FEELING_GIVES_WAY = True
#: added to EmotionalState's probability when a piece holds a word or idiom of the emotion lexicon (a soft rule,
#: like the intent rules: the model still decides). 0.2 chosen by 5-fold cross-validation on the train split, the
#: smallest of the best: out-of-fold accuracy without it 0.950; 0.1: 0.953, 0.2: 0.954, 0.3: 0.954, 0.4: 0.954
#: (``python -m mnemir.understand.train --cv 5 --emotion-boost B``, the extractor line)
EMOTION_WORD_BOOST = 0.2
#: the shipped weights the extractor reads (``understand/data/<name>.{npz,json}``): ``extractor`` (the training split
#: of ``TRAIN_FILES``) or ``extractor_roles`` (the same, plus the collapse train memories as rows,
#: ``python -m mnemir.eval.collapse_rows``; docs/decisions/0092: collapse dev end to end +0.9 points, continuity dev
#: +0.85, extraction dev -1.2 / -1.3, four write-side tests read differently, so not the default yet)
EXTRACTOR_MODEL = "extractor"
#: the learned reading of how many memories an utterance holds (docs/decisions/0118): ``ONE`` (one memory, however
#: many sentences tell it) or ``MANY``. The extractor reads an utterance piece by piece and gives a piece one type, so
#: a sentence that only supports the memory beside it (what set a feeling off, the reason for a choice) was read as
#: a memory of its own, and two memories said in one sentence ("X, and Y") as one. Fitted by
#: ``python -m mnemir.understand.train`` on the extractor's rows and on utterances composed from its one-memory rows
#: (``python -m mnemir.eval.compose_rows``); None (or a model not there): the pieces are read as they come
COUNT_MODEL: str | None = "memory_count"
COUNT_LABELS = ("ONE", "MANY")
#: an utterance of several pieces is read whole, as one memory, when the count model gives ``ONE`` at least this;
#: None: never. Chosen on train: out-of-fold (5 folds) decisions right on the real rows of several pieces at 0.1 /
#: 0.2 / 0.3 / 0.4 / 0.5: 455 / 455 / 448 / 446 / 431 of 572 (always whole: 426); extraction dev at 0.2 / 0.35 / 0.5:
#: zh 0.8645 -> 0.8629 / 0.8638 / 0.8647, en 0.8352 -> 0.8432 / 0.8427 / 0.8433; at 0.2 collapse dev end to end rose
#: (every 12th scenario, 17 won / 8 lost) but dialogue QA dev labelled (@5 72 / 89, @10 31 / 60) and continuity dev
#: (0.716 -> 0.697, 155 / 220) fell beyond churn,
#: so it is off by default (docs/decisions/0118); 0.2 is the limit to switch on
ONE_MIN_P: float | None = None
#: a piece of several clauses (the whole utterance) is read clause by clause when the count model gives ``MANY`` at
#: least this; None: never. Off: on train no limit up to 0.95 decides better than never (out of fold, 2,891 against
#: 2,895 of 2,954 rows right: two memories in one piece are rare), and at 0.5 extraction dev fell (zh 31 rows won /
#: 157 lost, en 23 / 85; 0118)
MANY_MIN_P: float | None = None
#: where the count model reads an utterance of several pieces as one memory (``ONE_MIN_P``), the whole utterance
#: gives the type and each piece stays a record of that type, when the type is one of ``PIECES_KEPT_TYPES``: a
#: supporting sentence (what set a feeling off, where a fact took place) is not typed alone, yet a later question about
#: it still finds it by its own words and vector; read whole, it was only part of one long record (docs/decisions/0118:
#: recall over talk fell). False: one record of the whole (docs/decisions/0122)
ONE_KEEPS_PIECES = False
#: the whole reading is taken only when its type is one that a piece, read alone, reads as too: the one memory is one
#: of the things the pieces say, the others only support it. A whole read as nothing, or as a type no piece tells (a
#: long turn of a report, a fact and a liking read as one feeling), disagrees with the count model's "one memory" or
#: with every piece, and the pieces are read as they come (docs/decisions/0122). False: the whole reading stands
ONE_AGREES_WITH_PIECES = False
#: with ``ONE_KEEPS_PIECES``, a piece that read alone is a task, a plan step or a report on a task keeps that reading
#: beside the pieces typed by the whole: work asked for or reported changes what is open, and a report typed as the
#: fact or liking beside it would leave its task open (docs/decisions/0122). False: every piece takes the whole's type
ONE_KEEPS_WORK = False
WORK_TYPES = ("Task", "Plan", "TaskUpdate")
#: the types whose pieces are kept as records of their own: a task, a plan step or a report on a task is one unit of
#: work, so two records of it would be two tasks or two changes of one task's status; those stay one record
PIECES_KEPT_TYPES = ("Fact", "Preference", "EmotionalState", "Hypothesis", "ContextualFrame")
#: an utterance whose pieces read only as a feeling and facts is kept as one EmotionalState of the whole text when the
#: classifier reads the whole as a feeling with at least this probability (:meth:`Extractor._outburst`); None: off
OUTBURST_WHOLE_MIN_P: float | None = None
_PLAN_GOAL = "plan goal (rule)"
#: a plan laid out under a goal ("For the bake sale: buy flour, then borrow trays") stores the goal as a Task,
#: the parent of its steps (docs/decisions/0024); False: the steps only, the goal's words heading the first step
#: (every independent author labels such a turn a Plan only; docs/decisions/0099)
PLAN_GOAL_TASK = True
#: a piece read as a report on a task that says nothing of how the work stands (done, dropped, decided, told as having
#: happened, under way, put off) is read here as the classifier's best other memory type. Off: it cost 1.1 points of
#: English macro-F1 on the extraction dev split (reports told with no such word are labelled reports there);
#: ``remember`` rereads such a report only when it matches no open task (docs/decisions/0029)
UNMARKED_UPDATES_REREAD = False
#: a piece read as a plan, task or frame that carries a strong correction marker and names the value it takes back is
#: a correction (a Fact)
NAMED_CORRECTIONS = True
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")


def check_speaker(speaker: object) -> str:
    if isinstance(speaker, str):
        key = speaker.strip().lower()
        key = SPEAKER_ALIASES.get(key, key)
        if key in SPEAKERS:
            return key
    raise ValidationError("unknown speaker", field="speaker", value=speaker, allowed=list(SPEAKERS))


def check_text(text: object, field_name: str = "text") -> str:
    """The text, stripped; or a clear error for non-strings, binary junk and oversized input."""
    if isinstance(text, (bytes, bytearray)):
        raise ValidationError(f"{field_name} must be str, not bytes (decode it first)", field=field_name,
                              value=bytes(text[:20]), allowed="str")
    if not isinstance(text, str):
        raise ValidationError(f"{field_name} must be a string", field=field_name, value=text, allowed="str")
    check_unicode(text, field_name)
    if len(text) > MAX_TEXT_CHARS:
        raise ValidationError(f"{field_name} is too long ({len(text)} chars)", field=field_name,
                              allowed=f"at most {MAX_TEXT_CHARS} characters (split long input into turns)")
    bad = _CONTROL.search(text)
    if bad:
        raise ValidationError(f"{field_name} contains binary/control characters", field=field_name,
                              value=bad.group(0), allowed="printable text")
    stripped = text.strip()
    if not stripped:
        raise ValidationError(f"{field_name} must not be empty", field=field_name, value=text, allowed="non-blank text")
    return stripped


def finalize(result: Extraction, drafts: list[Draft]) -> Extraction:
    """Apply the speaker policy and the minimum of meaning, and keep only the dialogue act when nothing is
    memory-worthy (an assistant's proposal rides on it as ``underlying_goal``)."""
    speaker = result.speaker
    allowed = _ALLOWED_BY_SPEAKER[speaker]
    kept = []
    proposal = proposal_of(result.text, drafts) if speaker == "assistant" else None
    if speaker in _REPORTING_SPEAKERS:
        drafts = _as_reported(result.text, drafts, _ALLOWED_BY_SPEAKER[speaker])
    for draft in drafts:
        label = label_of(draft)
        if label not in allowed:
            why = ": an assistant turn is no memory about the user" if speaker == "assistant" else ""
            result.notes.append(f"dropped a {label} said by the {speaker} (speaker policy{why})")
            continue
        if speaker == "assistant" and not _OWN_REPORT.search(draft.text):
            result.notes.append("dropped an assistant's update that does not report work it did itself (speaker "
                                "policy: only \"I've booked it\" / \"我已经帮你订好了\" counts)")
            continue
        if speaker == "assistant" and _BOOKKEEPING.search(draft.text):
            result.notes.append("dropped the assistant's note about its own bookkeeping (a reminder set, a note "
                                "taken): it finishes no task of the user")
            continue
        if not meaningful(draft.text) and draft.reasons[:1] != [_PLAN_GOAL]:  # a plan's goal may be one word
            result.notes.append(f"dropped a {label} piece below the minimum of meaning: {draft.text!r}")
            continue
        if draft.type == "Fact":
            draft.properties.update(fill.fact_provenance(speaker))
        kept.append(draft)
    if not kept:
        if speaker == "assistant" and not any("speaker policy" in note for note in result.notes):
            result.notes.append("nothing stored from the assistant's turn (speaker policy: an assistant turn is no "
                                "memory about the user)")
        props: dict[str, Any] = {"act_type": result.act, "utterance": result.text[:2000]}
        if proposal:
            props["underlying_goal"] = proposal
            result.notes.append(f"the assistant proposed {proposal!r}: the user's task only once the user confirms")
        kept = [Draft("DialogueAct", result.text, props, reasons=["nothing memory-worthy: kept only the dialogue act"])]
    result.drafts = kept
    return result


#: speakers that only report what is the case (a tool's output, a system message): they have no tasks, plans,
#: feelings or tastes of their own, so what the classifier (trained on people's utterances) reads as one of those is
#: information all the same
_REPORTING_SPEAKERS = ("tool", "system")


def _as_reported(text: str, drafts: list[Draft], allowed: set[str]) -> list[Draft]:
    """A tool's or system's pieces as Facts (a system's frame stays a frame); with none read, the whole text as one
    Fact when it says enough (a tool's output is what it returns, not chit-chat)."""
    out = []
    for draft in drafts:
        if draft.type in allowed and draft.kind != "update":
            out.append(draft)
            continue
        out.append(Draft("Fact", draft.text, fill.fact_properties(draft.text), confidence=draft.confidence,
                         entities=draft.entities, reasons=[*draft.reasons, "reported by a tool or the system: "
                                                           "information, not the user's own task or feeling"]))
    if not out and meaningful(text):
        out.append(Draft("Fact", text, fill.fact_properties(text), confidence=0.5, entities=find_entities(text),
                         reasons=["reported by a tool or the system: information"]))
    return out


#: an assistant's report of work it did itself: a first person with a finished verb ("I've booked", "我已经帮你订好了",
#: "I went ahead and cancelled"); anything else it says (wishes, advice, restatements) finishes no task of the user.
#: A bare 已(经) is no report of the assistant's own ("合同里已经写明了…" tells what a document says): it needs a first
#: person, work done for the user ("已经帮你…") or a finished verb ("…已经订好了") (docs/decisions/0057)
_OWN_REPORT = re.compile(r"我.{0,8}已经?|已经?.{0,3}(?:帮|给|替|为)(?:你|您)|已经?.{0,8}(?:好了|完了|完成|搞定|办了|交了|发了|订了|约了|取消了)|"
                         r"我.{0,10}(?:好了|完了|完成|搞定)|(?:帮你|给你|替你|为你|为您|帮您).{1,8}(?:好了|完了|了)|"
                         r"\b(?:i'?ve|i have|i just|i went ahead and|we'?ve|i)\s+(?:\w+\s+){0,2}?(?:\w+ed|sent|paid|done|"
                         r"made|put|set|got|booked|cancell?ed|moved|sorted|bought|written|wrote|found|told|taken|took)\b|"
                         r"\b(?:is|are|has been|have been)\s+(?:now\s+)?(?:booked|done|sent|paid|cancell?ed|confirmed|"
                         r"reserved|sorted)\b", re.I)
#: an assistant saying it set a reminder or took a note has done nothing of the task itself
_BOOKKEEPING = re.compile(r"提醒|记下|记住|记好|备忘|加到|添加到|清单|日程|\b(?:remind|reminder|noted|note|added (?:it|that|this)? ?to|"
                          r"calendar|your list|to-?do|keep track)\b", re.I)
#: function words that carry no content on their own (a piece made only of these and one short word is a fragment)
_EN_FUNCTION = frozenset(["a", "an", "the", "it", "its", "this", "that", "these", "those", "them", "they", "he", "she", "him", "her", "his", "i", "me", "my", "we", "us", "our", "you", "your", "to", "of", "in", "on", "at", "for", "with", "by", "from", "and", "or", "but", "so", "then", "do", "does", "did", "done", "be", "is", "are", "was", "were", "been", "am", "have", "has", "had", "get", "got", "just", "also", "too", "very", "really", "now", "here", "there", "up", "out", "off", "not", "no", "yes", "ok", "okay", "oh", "well", "please", "will", "would", "can", "could", "shall", "should", "let", "lets", "let's", "go"])
_ZH_FUNCTION = set("的了吧呢啊呀吗嘛哦我你他她它们这那个些也都就还又再先把被给在是有和跟要会能去来做弄下上")


def meaningful(text: str) -> bool:
    """True when a piece says enough to be a memory: in Chinese at least two content characters, in English at least
    two words besides function words (or one word of 4+ letters beside a number or name). "ch", "book it", "做一下"
    are fragments; "买菜", "call mom", "pay rent" are not."""
    han = re.findall(r"[\u4e00-\u9fff]", text)
    if han:
        return len([c for c in han if c not in _ZH_FUNCTION]) >= 2 or (len(han) >= 2 and bool(re.search(r"\d|[A-Za-z]{3}", text)))
    words = re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", text)
    content = [w for w in words if w.lower() not in _EN_FUNCTION]
    if len(content) >= 2:
        return True
    return len(content) == 1 and (len(content[0]) >= 5 or (len(words) >= 3 and len(content[0]) >= 4))


_OFFER_LEAD = re.compile(r"^(?:好的?[，,]?\s*)?(?:要不要我(?:帮你|给你|替你)?|需要我(?:帮你|给你|替你)?|我(?:可以)?(?:帮你|给你|替你)|"
                         r"要我(?:帮你)?|我来(?:帮你)?|我们(?:可以)?|你可以|不如|建议你?|要不(?:要)?)|"
                         r"^(?:(?:ok(?:ay)?|sure|great|alright),?\s+)?(?:shall i|should i|do you want me to|would you like me to|"
                         r"want me to|may i|i can|i could|i'?ll|i will|let me|how about (?:i|we)|we could|you could|"
                         r"you might want to|maybe you should|why don'?t (?:you|we|i)|would you like to|do you want to|"
                         r"would you like|do you want)\s+", re.I)
_OFFER_TAIL = re.compile(r"(?:吗|吧|怎么样|好不好|如何|行吗|可以吗)?\s*[?？。.!！]*$|\s+for you\b.*$|\s*\?$", re.I)
_NO_ACTION = re.compile(r"^(?:help|assist)\b|\b(?:anything|something) else\b|其他|别的|还有什么", re.I)
_SENTENCES = re.compile(r"(?<=[。！？!?；;])\s*|(?<=[.])\s+")


def proposal_of(text: str, drafts: list[Draft] | None = None) -> str | None:
    """What an assistant turn proposes to do, as a goal ("Shall I write up the notes for you?" -> "write up the notes"),
    when one of its sentences offers or suggests an action (the last such sentence); None for questions, facts and
    advice without an action. An offer too short to stand alone ("Shall I book it?") takes the sentence before it
    as its object. Measured on MultiWOZ validation system turns labelled OfferBook (see the training README)."""
    sentences = [x.strip() for x in _SENTENCES.split(text.strip()) if x.strip()]
    for index in range(len(sentences) - 1, -1, -1):
        lead = _OFFER_LEAD.search(sentences[index])
        if lead is None:
            continue
        body = _OFFER_TAIL.sub("", sentences[index][lead.end():]).strip(" ，,。.?？")
        body = re.sub(r"^(?:帮你|给你|替你|先)", "", body).strip()
        if _NO_ACTION.search(body):  # "can I help with anything else?" offers nothing in particular
            return None
        if body and not meaningful(body) and index > 0:
            body = f"{body}: {sentences[index - 1].rstrip(' 。.')}"
        return body if body and meaningful(body) else None
    task = next((d.text for d in drafts or [] if d.type in ("Task", "Plan")), None)
    return task if task and meaningful(task) else None


def has_words(text: str) -> bool:
    """True when the text has a letter or a digit (anything else cannot say something worth remembering)."""
    return any(unicodedata.category(c)[0] in ("L", "N") for c in text)


@dataclass
class Draft:
    """One memory the utterance yields, before it has an id, a scope or a vector.

    ``kind`` is ``"memory"`` (a new record), ``"update"`` (a status report on an existing
    task: ``properties["status"]`` is the new status) or ``"correction"`` (a fact that
    supersedes an old one; ``replaces`` names the old value when the text says it).
    Plan steps carry ``order`` and ``parent`` (the index of their Task draft, if any).
    """

    type: str
    text: str
    properties: dict[str, Any]
    kind: str = "memory"
    confidence: float = 1.0
    entities: list[Entity] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    parent: int | None = None
    replaces: str | None = None
    #: the turns a memory comes from when it is not only this utterance (an assistant's proposal the user
    #: confirmed): a list of {"speaker", "turn", "session", "text", "at"}; stored in ``metadata.extra``
    provenance: list[dict[str, Any]] | None = None
    #: the embedder's vector of ``text`` when the extractor made one to classify it (lets the store skip
    #: embedding it again); not part of ``to_dict``
    vector: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, "kind": self.kind, "properties": _jsonable(self.properties),
                "confidence": round(self.confidence, 3), "entities": [e.key for e in self.entities],
                "reasons": self.reasons, "parent": self.parent, "replaces": self.replaces}


def label_of(draft: Draft) -> str:
    """The extraction label a draft answers to: its type, or ``TaskUpdate`` for a report on an existing task."""
    return "TaskUpdate" if draft.kind == "update" else draft.type


def _jsonable(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in props.items()}


@dataclass
class Extraction:
    """What one utterance yields: drafts (possibly none), its dialogue act and language."""

    text: str
    speaker: str
    language: str
    act: str
    drafts: list[Draft] = field(default_factory=list)
    creator: str = CREATOR
    notes: list[str] = field(default_factory=list)

    @property
    def updates(self) -> list[Draft]:
        return [d for d in self.drafts if d.kind == "update"]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "speaker": self.speaker, "language": self.language, "act": self.act,
                "creator": self.creator, "drafts": [d.to_dict() for d in self.drafts], "notes": self.notes}


class Extractor:
    """The offline extractor: the shipped softmax model + property rules."""

    creator = CREATOR

    def __init__(self, embedder: Embedder, model: SoftmaxModel | None = None,
                 count_model: SoftmaxModel | None = None) -> None:
        self.embedder = embedder
        #: see :data:`OUTBURST_WHOLE_MIN_P` (per extractor, so that a comparison can run both side by side)
        self.outburst_whole_min_p = OUTBURST_WHOLE_MIN_P
        self.model = model if model is not None else load_model(EXTRACTOR_MODEL)
        self.model.check(embedder)
        self.count_model = count_model if count_model is not None else _shipped_count_model()
        if self.count_model is not None:
            self.count_model.check(embedder)
        self._prototypes: tuple[list[str], Any] | None = None

    def classify(self, texts: list[str]) -> list[list[tuple[str, float]]]:
        if not texts:
            return []
        return self.model.predict(self.embedder.embed(texts), texts)

    def extract(self, text: str, *, speaker: str = "user", now: datetime | None = None) -> Extraction:
        text = check_text(text)
        speaker = check_speaker(speaker)
        now = local_now(now)
        result = Extraction(text, speaker, language_of(text), fill.act_type(text))
        if not has_words(text):
            result.notes.append("no letters or digits: nothing to remember")
            return result
        drafts = self._plan(text, now) if is_plan(text) else []
        if not drafts:
            drafts = self._pieces(text, now)
        return finalize(result, drafts)

    # -- plans ----------------------------------------------------------------------
    def _plan(self, text: str, now: datetime) -> list[Draft]:
        goal, steps = split_plan(text)
        if len(steps) < 2:
            return []
        drafts: list[Draft] = []
        parent = None
        if goal and PLAN_GOAL_TASK:
            props = _with_utterance_deadline(fill.task_properties(goal, now), text, now)
            drafts.append(Draft("Task", goal, props, entities=find_entities(goal), reasons=[_PLAN_GOAL]))
            parent = 0
        elif goal:  # no Task of its own: the goal's words head the first step, so that they stay with the plan
            steps = [f"{goal}: {steps[0]}", *steps[1:]]
        for order, step in enumerate(steps, start=1):
            drafts.append(Draft("Plan", step, {"order": order, "status": "pending"}, entities=find_entities(step),
                                parent=parent, reasons=[f"plan step {order} of {len(steps)} (rule)"]))
        return drafts

    # -- pieces ---------------------------------------------------------------------
    def _emotion_by_prototype(self, vector: Any) -> str:
        if self._prototypes is None:
            labels = [e for e, phrases in EMOTION_PROTOTYPES.items() for _ in phrases]
            phrases = [p for ps in EMOTION_PROTOTYPES.values() for p in ps]
            self._prototypes = (labels, self.embedder.embed(phrases))
        labels, matrix = self._prototypes
        return labels[int(np.argmax(matrix @ vector))]

    def reading_units(self, text: str) -> list[str]:
        """The pieces the classifier reads: ``split_pieces``; the whole utterance where the count model reads several
        pieces as one memory (``ONE_MIN_P``); its clauses where it reads one piece of several clauses as several
        memories (``MANY_MIN_P``)."""
        return self._units(text)[0]

    def _units(self, text: str) -> tuple[list[str], Any]:
        """:meth:`reading_units`, with the whole utterance's vector when it is read whole (else None)."""
        pieces = split_pieces(text)
        if self.count_model is None or (ONE_MIN_P if len(pieces) > 1 else MANY_MIN_P) is None:
            return pieces, None  # nothing to decide (and no extra embedding)
        clauses = split_clauses(pieces[0]) if len(pieces) == 1 else []
        if len(pieces) == 1 and len(clauses) < 2:
            return pieces, None
        whole = text.strip()
        vector = self.embedder.embed([whole])
        p_many = dict(self.count_model.predict(vector, [whole])[0]).get(COUNT_LABELS[1], 0.0)
        if len(pieces) > 1 and ONE_MIN_P is not None and 1.0 - p_many >= ONE_MIN_P:
            return [whole], vector
        if len(pieces) == 1 and MANY_MIN_P is not None and p_many >= MANY_MIN_P:
            return clauses, None
        return pieces, None

    def _pieces(self, text: str, now: datetime) -> list[Draft]:
        pieces, whole_vector = self._units(text)
        if whole_vector is not None and ONE_AGREES_WITH_PIECES and not self._agrees(text, whole_vector):
            pieces, whole_vector = split_pieces(text), None
        if whole_vector is not None and ONE_KEEPS_PIECES:
            kept = self._typed_by_whole(text, whole_vector, now)
            if kept:
                return kept
        vectors = whole_vector if whole_vector is not None else self.embedder.embed(pieces)
        by_text = dict(zip(pieces, vectors, strict=True))
        predictions = [lexicon_boost(piece, pred) for piece, pred in
                       zip(pieces, self.model.predict(vectors, pieces), strict=True)]
        labelled = [(piece, _report_rule(piece, pred[0][0]), pred[0][1])
                    for piece, pred in zip(pieces, predictions, strict=True)]
        whole = self._outburst(text, labelled, now)
        if whole is not None:
            return [whole]
        if any(label == "Plan" for _, label, _ in labelled):
            # actions told together with a step of a plan are more steps of it ("周六上午给阳台换花盆，下午去修自行车"):
            # no training row labels one utterance both Task and Plan
            labelled = [(t, "Plan" if label == "Task" else label, p) for t, label, p in labelled]
        groups = _group(labelled)
        felt = dict(zip(pieces, (dict(pred).get("EmotionalState", 0.0) for pred in predictions), strict=True))
        ranked = dict(zip(pieces, predictions, strict=True))
        drafts = []
        for label, piece_text, confidence in groups:
            vector = by_text.get(piece_text)
            draft = self._draft(label, piece_text, text, now, confidence, vector)
            if draft is None and label == "EmotionalState" and WEAK_FEELING_GIVES_WAY and piece_text in ranked:
                draft = self._next_reading(piece_text, text, now, ranked[piece_text], vector)
            if draft is not None:
                draft.vector = vector  # the text it classified (None for merged pieces): the store reuses it
                drafts.append(draft)
                beside = _feeling_beside(draft, felt.get(piece_text, 0.0))
                if beside is not None:
                    beside.vector = vector
                    drafts.append(beside)
        return drafts

    def _agrees(self, text: str, whole_vector: Any) -> bool:
        """True when the type the whole utterance reads as is one that a piece of it, read alone, reads as
        (``ONE_AGREES_WITH_PIECES``)."""
        whole = _report_rule(text, lexicon_boost(text, self.model.predict(np.asarray(whole_vector), [text])[0])[0][0])
        if whole == "NONE":
            return False
        pieces = split_pieces(text)
        return any(_report_rule(piece, lexicon_boost(piece, pred)[0][0]) == whole
                   for piece, pred in zip(pieces, self.model.predict(self.embedder.embed(pieces), pieces), strict=True))

    def _typed_by_whole(self, text: str, whole_vector: Any, now: datetime) -> list[Draft]:
        """The pieces of an utterance the count model reads as one memory, each a record of the type the whole
        utterance reads as (``ONE_KEEPS_PIECES``); none when that type is not one of ``PIECES_KEPT_TYPES`` (the
        caller then keeps the one record of the whole)."""
        ranked = lexicon_boost(text, self.model.predict(np.asarray(whole_vector), [text])[0])
        label, p = _report_rule(text, ranked[0][0]), ranked[0][1]
        if label not in PIECES_KEPT_TYPES:
            return []
        felt = dict(ranked).get("EmotionalState", 0.0)
        pieces = split_pieces(text)
        vectors = self.embedder.embed(pieces)
        own = [lexicon_boost(piece, pred)[0] for piece, pred in
               zip(pieces, self.model.predict(vectors, pieces), strict=True)]
        drafts = []
        for piece, vector, (alone, p_alone) in zip(pieces, vectors, own, strict=True):
            alone = _report_rule(piece, alone)
            if ONE_KEEPS_WORK and alone in WORK_TYPES:
                draft = self._draft(alone, piece, text, now, p_alone, vector)
            else:
                draft = self._draft(label, piece, text, now, p, vector)
            if draft is None:
                continue
            draft.vector = vector
            draft.reasons.append(f"one memory of {len(pieces)} sentences (count model): typed by the whole, "
                                 "kept piece by piece")
            drafts.append(draft)
            beside = _feeling_beside(draft, felt)  # as the one record of the whole would carry it
            if beside is not None:
                beside.vector = vector
                drafts.append(beside)
        return drafts

    def _outburst(self, text: str, labelled: Sequence[tuple[str, str, float]], now: datetime) -> Draft | None:
        """An outburst told in several sentences ("I'm livid. The garage kept the car another week and charged me for
        it.") is one feeling with what set it off: when its pieces read only as a feeling and facts (at least one a
        feeling) and the classifier reads the whole utterance as a feeling with at least ``outburst_whole_min_p``,
        it is one EmotionalState of the whole text, not a feeling beside calm facts. What happened stays in the
        feeling's text (and in the utterance kept verbatim), so a question about the event still finds it; a calm
        fact question does not take the outburst for its answer."""
        floor = self.outburst_whole_min_p
        labels = {label for _, label, _ in labelled}
        if floor is None or len(labelled) < 2 or "EmotionalState" not in labels \
                or not labels <= {"EmotionalState", "Fact", "NONE"}:
            return None
        vector = self.embedder.embed([text])[0]
        label, p = lexicon_boost(text, self.model.predict(np.asarray([vector]), [text])[0])[0]
        if label != "EmotionalState" or p < floor:
            return None
        draft = self._draft("EmotionalState", text, text, now, p, vector)
        if draft is not None:
            draft.vector = vector
            draft.reasons.append(f"an outburst: its pieces read as a feeling and facts, the whole as a feeling "
                                 f"(p={p:.2f}); kept whole")
        return draft

    def reread(self, piece: str, whole: str, now: datetime, vector: Any = None,
               reasons: Sequence[str] = ()) -> Draft | None:
        """A piece read as a report that says nothing of how any work stands ("Send the invoice to Acme", "the budget
        is $65k") is no report: it is read as the classifier's best other memory type."""
        vectors = np.asarray([vector]) if vector is not None else self.embedder.embed([piece])
        ranked = lexicon_boost(piece, self.model.predict(vectors, [piece])[0])
        label, p = next(((lab, p) for lab, p in ranked if lab not in ("TaskUpdate", "NONE")), ("NONE", 0.0))
        draft = self._draft(label, piece, whole, now, p, vector)
        if draft is not None:
            draft.reasons[:0] = [*reasons, "no word of how work stands: not a report"]
        return draft

    def _next_reading(self, piece: str, whole: str, now: datetime, ranked: Sequence[tuple[str, float]],
                      vector: Any) -> Draft | None:
        """A feeling too unsure to keep, with no emotion word, gives way to the piece's next reading ("the consultant
        asked me not to nap until the sleep study" at EmotionalState 0.34, Fact 0.18): nothing when that is NONE
        (chit-chat) or a report."""
        label, p = next(((lab, p) for lab, p in ranked if lab != "EmotionalState"), ("NONE", 0.0))
        if label in ("NONE", "TaskUpdate"):
            return None
        draft = self._draft(_report_rule(piece, label), piece, whole, now, p, vector)
        if draft is not None:
            draft.reasons.append("a feeling too unsure to keep, with no emotion word: read as the next reading")
        return draft

    def _draft(self, label: str, piece: str, whole: str, now: datetime, confidence: float,
               vector: Any = None) -> Draft | None:
        if label == "NONE":
            return None
        reasons = [f"classified {label} (p={confidence:.2f})"]
        entities = find_entities(piece)
        if label == "Plan":  # something the user means to do (an intention, an arrangement): one step of a plan
            return Draft("Plan", piece, {"order": 1, "status": "pending"}, confidence=confidence, entities=entities,
                         reasons=reasons)
        if label == "Task":
            props = _with_utterance_deadline(fill.task_properties(piece, now), whole, now)
            return Draft("Task", piece, props, confidence=confidence, entities=entities, reasons=reasons)
        if label == "TaskUpdate":
            target = fill.strip_request(piece)
            later = fill.postponed_to(piece, now)
            if later is not None:  # moved to a later time: the deadline changes, the status does not
                return Draft("Task", piece, {"goal": target, "deadline": later, "postponed": True}, kind="update",
                             confidence=confidence, entities=entities, reasons=[*reasons, f"postponed to {later}"])
            status = fill.update_status(piece)
            if UNMARKED_UPDATES_REREAD and not says_how_work_stands(piece, status):
                return self.reread(piece, whole, now, vector, reasons)
            return Draft("Task", piece, {"status": status, "goal": target}, kind="update", confidence=confidence,
                         entities=entities, reasons=[*reasons, f"reports status {status}"])
        if label == "Fact":
            props = fill.fact_properties(piece)
            is_correction, old = fill.correction_of(piece)
            return Draft("Fact", piece, props, kind="correction" if is_correction else "memory",
                         confidence=confidence, entities=entities, reasons=reasons, replaces=old)
        if label == "Preference":
            return Draft("Preference", piece, fill.preference_properties(piece), confidence=confidence,
                         entities=entities, reasons=reasons)
        if label == "EmotionalState":
            emotion = fill.emotion_properties(piece) or fill.emotion_properties(whole)
            if emotion is None:
                if confidence < PROTOTYPE_MIN_P:  # a weak guess with no emotion word: not enough to store
                    return None
                if vector is None:
                    vector = self.embedder.embed([piece])[0]
                emotion = {"emotion_type": self._emotion_by_prototype(vector), "intensity": 0.5}
                reasons.append("emotion type by nearest prototype (no emotion word in the lexicon)")
            return Draft("EmotionalState", piece, emotion, confidence=confidence, entities=entities, reasons=reasons)
        if label == "Hypothesis":
            props = fill.hypothesis_properties(piece)
            return Draft("Hypothesis", piece, props, confidence=confidence, entities=entities, reasons=reasons)
        if label == "ContextualFrame":
            return Draft("ContextualFrame", piece, fill.frame_properties(piece), confidence=confidence,
                         entities=entities, reasons=reasons)
        return None


#: the memory types beside which a feeling said in the same piece is kept as a reading of its own: an outburst told
#: with its event ("got a parking fine outside the hospital, I'm seething", "房东又要涨租，我火大得很") is both what
#: happened and how the user felt. A preference is not among them (its like / dislike words are its content)
FEELING_BESIDE_TYPES = ("Fact", "Hypothesis", "Task", "TaskUpdate", "Plan", "ContextualFrame")
#: the least EmotionalState probability (after the emotion-word boost) for a piece read as another type to also
#: carry the feeling; None: off
FEELING_BESIDE_MIN_P: float | None = 0.2


def _shipped_count_model() -> SoftmaxModel | None:
    """The count model named by :data:`COUNT_MODEL`, or None where it is off or not trained."""
    if COUNT_MODEL is None:
        return None
    try:
        return load_model(COUNT_MODEL)
    except ConfigError:
        return None


def _feeling_beside(draft: Draft, p_feeling: float) -> Draft | None:
    """An EmotionalState beside ``draft`` when its piece also says, in an unambiguous emotion word, how the user
    felt, and the classifier gives that reading at least ``FEELING_BESIDE_MIN_P``."""
    if FEELING_BESIDE_MIN_P is None or draft.type not in FEELING_BESIDE_TYPES or p_feeling < FEELING_BESIDE_MIN_P:
        return None
    found = find_emotion(draft.text)
    if found is None or found[1].lower() in AMBIGUOUS_EMOTION_WORDS:
        return None
    emotion = fill.emotion_properties(draft.text)
    if emotion is None:
        return None
    return Draft("EmotionalState", draft.text, emotion, confidence=p_feeling, entities=draft.entities,
                 reasons=[f"a feeling said beside the {draft.type} (p={p_feeling:.2f}, emotion word {found[1]!r})"])


def says_how_work_stands(piece: str, status: str) -> bool:
    """A report on a task says how the work stands: done, dropped, decided, told as having happened, or under way
    (``update_status`` finds the first four; a progress word the last)."""
    return status != "in_progress" or bool(CUES["progress"].search(piece))


def _with_utterance_deadline(props: dict[str, Any], utterance: str, now: datetime) -> dict[str, Any]:
    """A task piece without a deadline of its own takes the one its whole utterance names ("周五前：先…再…")."""
    if "deadline" not in props:
        deadline = resolve_deadline(utterance, now)
        if deadline is not None:
            props["deadline"] = deadline.value
    return props


def lexicon_boost(piece: str, ranked: list[tuple[str, float]],
                  boost: float = EMOTION_WORD_BOOST) -> list[tuple[str, float]]:
    """The classifier's ranking with EmotionalState raised by ``boost`` when the piece holds an emotion word."""
    found = find_emotion(piece)
    if found is None or found[1].lower() in AMBIGUOUS_EMOTION_WORDS:
        return ranked
    return boosted(ranked, {"EmotionalState": boost})


_FINISHED = re.compile(r"已经|已.{0,6}(?:好|完)了|终于|总算|\b(?:already|i'?ve|we'?ve|has been|have been|is (?:done|booked|"
                       r"finished|sent|paid)|finally|managed to|just (?:\w+ed|sent|paid|done))\b", re.I)


#: the strong correction markers (a subset of the lexicon's correction cue, without "其实" / "actually")
_CORRECTING = re.compile(r"^不对(?!劲)|不是.{1,15}(?:而)?是|是.{1,15}[，,]\s*不是|记错|说错|搞错|弄错|看错|听错|写错|打错|算错|记混|"
                         r"更正|纠正|\b(?:correction|i meant|my mistake|i mixed up|scratch that|sorry,? .{1,40}\bnot\b|wait,? no|"
                         r"typo|misread|misheard|misremembered|got (?:it|that|them|the \w+) (?:wrong|mixed up|muddled)|"
                         r"(?:earlier|before|previously),? i (?:said|told you|mentioned))\b", re.I)


#: markers of a conversation's topic or the assistant's role being set ("我们聊…", "你当我的…", "we're planning…",
#: "act as my…"): a frame of the conversation, not a standing preference
_TOPIC = re.compile(r"我们(?:聊|谈|讨论|说|只聊)|聊聊|话题|你(?:是|当|做|来当)我的|扮演|\b(?:we'?re (?:planning|talking|discussing|"
                    r"working on)|talk(?:ing)? about|discuss|focus(?:ing)? on|you'?re (?:my|an?|the)|you are (?:my|an?|the)|"
                    r"act as|be my|pretend|play the (?:role|part))\b", re.I)
#: markers of a standing instruction at the start of a piece
_STANDING = re.compile(r"^(?:以后|今后|从现在起|从今以后|往后|以后都)|^(?:from now on|going forward|from here on|in (?:the )?future)\b",
                       re.I)


def _report_rule(piece: str, label: str) -> str:
    """General cue rules over the classifier's label: a finished-work report ("已经帮你订好了", "I've booked it") is an
    update even if it reads like a request; a stated choice is a decision (a Fact); a correction is no guess; a
    move to a later time is an update of what was planned."""
    if label in ("Task", "NONE") and CUES["done"].search(piece) and _FINISHED.search(piece) \
            and not CUES["request"].search(piece) and not CUES["question"].search(piece) \
            and not fill.CONDITIONAL.search(piece):
        return "TaskUpdate"
    # "最后还是选了…", "we went with…": a stated choice is a decision, kept as a Fact (attribute decision); one the
    # classifier reads as a report stays an update (making a choice may be what closes a task)
    if label in ("Task", "Hypothesis", "Plan", "NONE", "ContextualFrame") and fill.decision_of(piece) is not None \
            and not CUES["question"].search(piece) and not CUES["request"].search(piece):
        return "Fact"
    # "以后…都…", "from now on, …": a standing instruction is how the user wants things done, not one errand
    # (a standing instruction is no frame either, unless it sets the conversation's topic: "from now on we talk
    # about the move" is a frame)
    if (label in ("Task", "TaskUpdate", "NONE") or (label == "ContextualFrame" and not _TOPIC.search(piece))) \
            and _STANDING.search(piece) and not CUES["question"].search(piece):
        return "Preference"
    # "不对，…不是…", "sorry, it's X not Y": a correction states what is true, it is no guess, no feeling (unless it
    # names one) and not nothing
    if label in ("Hypothesis", "NONE", "EmotionalState") and _CORRECTING.search(piece) \
            and not CUES["question"].search(piece) and (label != "EmotionalState" or find_emotion(piece) is None):
        return "Fact"
    # a correction that names the value it takes back ("…, not the 3rd", "不是周三，是周四") states what is true, even
    # when it reads like an arrangement or a piece of work (a date, a plan): unless it asks for something
    if NAMED_CORRECTIONS and label in ("Plan", "Task", "ContextualFrame") and _CORRECTING.search(piece) and fill.correction_of(piece)[1] \
            and not CUES["question"].search(piece) and not CUES["request"].search(piece):
        return "Fact"
    # "…推迟到下周三了", "it got pushed to Monday": a move to a later time reports on something already planned
    if label in ("Task", "NONE", "Fact") and fill.POSTPONE.search(piece) and not CUES["question"].search(piece) \
            and not CUES["request"].search(piece) and not _CORRECTING.search(piece):
        return "TaskUpdate"
    return label


def _group(labelled: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Merge neighbours with the same label, and give unlabelled pieces to the memory before (or after) them."""
    groups: list[list[Any]] = []
    pending_none: list[str] = []
    for piece, label, confidence in labelled:
        if label == "NONE":
            if groups:
                groups[-1][1] += " " + piece
            else:
                pending_none.append(piece)
            continue
        if groups and groups[-1][0] == label and label != "Fact":
            groups[-1][1] += " " + piece
            groups[-1][2] = max(groups[-1][2], confidence)
            continue
        text = " ".join([*pending_none, piece]) if pending_none and not groups else piece
        pending_none = [] if not groups else pending_none
        groups.append([label, text, confidence])
    return [(g[0], _join(g[1]), g[2]) for g in groups]


def _join(text: str) -> str:
    # pieces of Chinese text were separated by a space that was not there
    return re.sub(r"(?<=[\u4e00-\u9fff，。！？])\s+(?=[\u4e00-\u9fff])", "，", text).strip()
