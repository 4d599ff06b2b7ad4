"""Who a text names and who a question asks about, as the user's people (docs/decisions/0069).

The people a question names (a relation of the user's, "my sister" / "我姐"; a name the user has used for someone,
"Ilse" / "小琪") are resolved against the people the user's memories introduce together ("my sister Greta", "同事阿宏":
the relation and the name are one person). Recall uses it to tell memories about the person asked about from those
about someone else (:mod:`mnemir.retrieve.persons`).

General facts of the languages behind it: kinship and role nouns (``understand.fill.RELATIONS``) name people; with
a possessive ("my", "our", "我", "我们家") they name the user's own; a name said at the head of a clause
(``understand.fill.person_mention``) names a person; a relation and a name said together ("my flatmate Corinna",
"Omar, my line manager", "我表姐小琪") are the same person. A relation word right after "which" names a kind of person, not
one person ("which friend…", "哪个同事…"): there it does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from mnemir.understand import fill

__all__ = ["People", "about_the_speaker", "addressed", "asked_about", "asks_of_the_speaker", "involved_in", "is_relation", "names_asked",
           "people_in", "person_relation", "read_people", "speaker_label"]

#: relations one person holds at a time (a question naming one means one person); the rest ("friend", "colleague",
#: "neighbour", "cousin", ...) name a kind of person many may be, so a memory naming another of them is still a match
_ONE_PERSON = frozenset({"mother", "father", "stepmother", "stepfather", "wife", "husband", "partner", "girlfriend",
                         "boyfriend", "older sister", "younger sister", "older brother", "younger brother",
                         "mother-in-law", "father-in-law", "boss", "landlord", "roommate", "son", "daughter",
                         "sister", "brother", "sister-in-law", "brother-in-law", "grandmother", "grandfather",
                         "uncle", "aunt", "nephew", "niece"})
_PETS = frozenset({"dog", "cat", "parrot", "rabbit", "hamster"})
#: titles and trades: said without a possessive they name whoever holds one ("医生说…", "刘主任"), not the user's own
_ROLES = frozenset({"boss", "teacher", "doctor", "client", "intern", "guard", "tenant", "nanny", "landlord"})
_REL_WORDS = {w.lower(): key for key, words in fill.RELATIONS.items() for w in words if key not in _PETS}
_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_WORDS = "|".join(sorted((re.escape(w) for w in _REL_WORDS if not _CJK.search(w)), key=len, reverse=True))
_ZH_WORDS = "|".join(sorted((w for w in _REL_WORDS if _CJK.search(w)), key=len, reverse=True))
_ZH_MULTI = "|".join(sorted((w for w in _REL_WORDS if _CJK.search(w) and len(w) > 1), key=len, reverse=True))
#: the user's relation in English: after "my" / "our" (one describing word may stand between: "my older brother")
_EN_OWN = re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?(?P<rel>{_EN_WORDS})(?![\w-])", re.I)
#: English kinship words used as names ("Mum said…", "ask Dad"): capitalised, on their own
_EN_KIN_NAME = re.compile(r"\b(?-i:Mum|Mom|Dad|Mummy|Mommy|Daddy|Grandma|Grandpa|Granny|Gran|Nana)\b")
#: the user's relation in Chinese: after 我 / 我们 / 咱 (maybe 家, 的, a rank: "我二姨", "我们家老大"), or a relation
#: word of two characters or more that no third person owns ("他闺女", "她妈": someone else's)
_ZH_REL = re.compile(rf"(?P<own>(?:我们|咱们|我|咱)(?:家|这边)?的?(?:[大二三四五六七八九小])?)?(?P<rel>{_ZH_WORDS})")
#: a relation word right after "which" names a kind of person, not one ("which friend…", "which of my colleagues",
#: "哪个同事…", "哪位邻居")
_WHICH_EN = re.compile(rf"\bwhich\s+(?:of\s+(?:my|our)\s+)?(?:[a-z]+\s+)?(?P<rel>{_EN_WORDS})(?![\w-])", re.I)
_WHICH_ZH = re.compile(rf"(?:哪个|哪位|哪些|哪一个|哪一位)(?P<rel>{_ZH_WORDS})")
#: a capitalised word inside a sentence (not after a sentence end): a proper noun
_INNER_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)(?<=[\s,(])([A-Z][a-z]+)\b")
#: who only reports ("my sister says…", "我姐说…"): the source of what is said, not who it is about
_REPORTS = re.compile(r"\s*(?:(?:just|also|then)\s+)?(?:says|said|told me|tells me|reckons|thinks|mentioned|"
                      r"(?:跟|和|对)我说|告诉我|说|讲|觉得|提醒)", re.I)
#: clauses, where a person may be named at the head of one (as ``understand.fill`` reads them)
_CLAUSES = re.compile(r"(?<=[。！？!?；;，,])\s*|(?<=[.])\s+")

# -- names said to someone, not of them ---------------------------------------------------------------------------
#: a speaker's label at the head of a turn ("Caroline: …", "小琪：…"): who says it, not whom it is about
_LABEL = re.compile(r"\s*[:：]")
#: words a greeting, a thanks or a leave-taking is said with: the name that follows is the person spoken to
#: ("Hey Mel", "Thanks, Caroline!", "谢谢你，小琪", "嗨小琪")
_GREETING = re.compile(r"(?:\b(?:hey|hi|hiya|hello|yo|thanks|thank\s+you|thx|cheers|bye|goodbye|congrats|"
                       r"congratulations|dear|good\s+(?:morning|night|evening|afternoon))|嘿|嗨|哈喽|哈啰|你好|谢谢你?|"
                       r"谢啦|多谢|早上好|晚上好|晚安|拜拜|再见)\s*[,，]?\s*$", re.I)
#: a sentence's start (where a name said first and set off by a comma or "!" is said to someone: "Mel, you...")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？…]\s*)$")
#: after a name set off at the head of a sentence: what makes it an apposition or a list, not someone spoken to
#: ("Omar, my line manager, is…", "Greta, Tom and I…")
_EN_NOT_ADDRESS = re.compile(r"\s*(?:my|our|the|a|an|who|whose|which|that|and|or|from)\b|\s*(?-i:[A-Z])(?!['’]?(?:m|ve|ll|d)?\b)",
                             re.I)
#: after a Chinese name set off at the head of a sentence: the second person it is said to ("小琪，你…", "老邓，您…",
#: "阿宏，跟你说…")
_ZH_ADDRESS = re.compile(r"\s*(?:啊|呀)?\s*[，,！!]\s*(?:你|您|咱|谢|麻烦|帮我|我跟你|跟你|告诉你)")
#: a name set off by a comma at the end of a clause ("That's lovely, Caroline!", "太好了，小琪！")
_CLAUSE_END = re.compile(r"\s*(?:啊|呀|哦)?\s*(?:[.!?。！？…~]|$)")


#: a transcript's speaker label at the head of a turn: a given name (one or two capitalised words; two to four CJK
#: characters) and a colon, then what the speaker says ("Jonas: …", "Ilse Brandt: …", "小琪：…", "老邓: …")
_SPEAKER_LABEL = re.compile(r"\s*(?P<name>(?-i:[A-Z][a-z'’-]+)(?:\s(?-i:[A-Z][a-z'’-]+))?|[\u4e00-\u9fff]{2,4})"
                            r"\s*(?::\s+|：\s*)(?=\S)")
#: words a heading is written with before a colon: what follows is a note, not someone's words ("Note: …",
#: "Reminder: …", "Update: …", "提醒：…", "备注：…")
_HEADINGS = frozenset({
    "note", "notes", "reminder", "reminders", "todo", "to do", "update", "updates", "fyi", "ps", "re", "fwd", "edit",
    "question", "questions", "answer", "answers", "tip", "tips", "warning", "important", "urgent", "summary",
    "status", "plan", "plans", "goal", "goals", "idea", "ideas", "task", "tasks", "agenda", "news", "result",
    "results", "problem", "issue", "fix", "step", "steps", "next", "done", "subject", "title", "date", "time",
    "place", "address", "phone", "email", "price", "total", "breaking", "spoiler", "quote", "example",
    "translation", "correction", "reply", "follow up", "heads up", "p.s", "nb", "tldr", "caption", "photo", "link",
    "提醒", "备注", "注意", "更新", "问题", "回答", "答案", "补充", "待办", "总结", "计划", "目标", "通知", "说明",
    "结果", "原因", "地址", "时间", "地点", "电话", "价格", "标题", "重要", "紧急", "进展", "任务", "备忘", "附言"})


def speaker_label(text: str) -> tuple[str, str] | None:
    """(name, what is said) when ``text`` opens with a transcript's speaker label ("Jonas: I fixed my bike." ->
    ("Jonas", "I fixed my bike.")): the label says who speaks and is not part of what is said. A heading ("Note: …",
    "提醒：…") is no speaker."""
    m = _SPEAKER_LABEL.match(text)
    if m is None or m.group("name").lower() in _HEADINGS:
        return None
    return m.group("name"), text[m.end():]


def addressed(text: str, start: int, end: int) -> bool:
    """Whether the name at ``text[start:end]`` is said to someone (a vocative: "Hey Mel, …", "Thanks, Caroline!",
    "Mel, you…", "…, Caroline!", "小琪，你…", "谢谢你，小琪") or is the speaker's label at the head of a turn
    ("Caroline: …"): a general fact of both languages. Such a name tells whom the turn is said to or by, not whom it
    is about: "Hey Mel, I painted a lake" is about the speaker."""
    before, after = text[:start], text[end:]
    if not before.strip() and _LABEL.match(after):
        return True
    if _GREETING.search(before):
        return True
    head = before
    label = re.match(r"\s*\S+?\s*[:：]\s*", before)
    if label and not before[label.end():].strip():
        head = ""  # the name right after a speaker's label opens the turn
    if _SENTENCE_START.search(head):
        if _CJK.search(text[start:end]):
            return bool(_ZH_ADDRESS.match(after))
        m = re.match(r"\s*([,!])", after)
        return m is not None and (m.group(1) == "!" or not _EN_NOT_ADDRESS.match(after, m.end()))
    comma = re.search(r"(\S+?)\s*[,，]\s*$", before)
    if comma and _CLAUSE_END.match(after):
        word = comma.group(1).strip(".,!?\"'").lower()
        last = re.split(r"[\s\u4e00-\u9fff]", word)[-1] if not _CJK.search(word) else word
        # "my friend, Anna." / "我朋友，小琪。": an apposition to a relation word, not someone spoken to
        return not any(word.endswith(w) for w in _REL_WORDS if _CJK.search(w)) and last not in _REL_WORDS \
            and last not in ("friend", "friends")
    return False


@dataclass
class People:
    """The people the user's memories name: names (lower case) and the relation each was introduced with."""

    names: set[str] = field(default_factory=set)
    relation_of: dict[str, str] = field(default_factory=dict)
    #: words written with a capital inside a sentence (proper nouns), and English heads of clauses not yet seen so
    _proper: set[str] = field(default_factory=set, repr=False)
    _maybe: set[str] = field(default_factory=set, repr=False)

    def learn(self, text: str) -> None:
        """Read the people ``text`` names at the head of its clauses ("my flatmate Corinna…", "小琪说…")."""
        for clause in [text, *_CLAUSES.split(text)]:
            if not clause.strip():
                continue
            m = fill.person_mention(clause)
            if m is None or m.key in fill.RELATIONS:
                continue
            name = m.key.strip()
            if len(name) < 2 or m.relation in _PETS:
                continue
            # an English word at the head of a sentence ("How's…", "Cycling is…") is a name when it was given with
            # a relation or is written with a capital inside a sentence too
            if not _CJK.search(name) and not m.relation and name not in self._proper:
                self._maybe.add(name)
                continue
            self.names.add(name)
            if m.relation and m.relation not in _PETS:
                self.relation_of.setdefault(name, m.relation)
        self._proper |= {w.lower() for w in _INNER_CAPITAL.findall(text)}
        found = self._maybe & self._proper
        self.names |= found
        self._maybe -= found

    def named_in(self, text: str, *, reporters: bool = True) -> set[str]:
        """The known names ``text`` uses (``reporters=False``: not one named only as who reports what is said)."""
        low = text.lower()
        found = set()
        for name in self.names:
            pattern = re.escape(name) if _CJK.search(name) else rf"(?<![\w-]){re.escape(name)}(?![\w-])"
            # a name said to someone or as the speaker's label is not whom the text is about
            ends = [m.end() for m in re.finditer(pattern, low) if len(low) != len(text)
                    or not addressed(text, m.start(), m.end())]
            if ends and (reporters or not all(_REPORTS.match(low, e) for e in ends)):
                found.add(name)
        return found


def _relations_in(text: str, *, reporters: bool = True) -> set[str]:
    """The relation keys of the user's people that ``text`` names ("my sister" -> "sister", "我姐" -> "older
    sister"); ``reporters=False`` leaves out one named only as who reports what is said ("my sister says…")."""
    found: set[str] = set()
    matches = [(m.group("rel"), m.end()) for m in _EN_OWN.finditer(text)]
    matches += [(m.group(0), m.end()) for m in _EN_KIN_NAME.finditer(text)]
    for m in _ZH_REL.finditer(text):
        rel = m.group("rel")
        # without 我 / 我们: a word of two characters or more that no third person owns ("他闺女", "刘姐"), and no
        # title or trade ("医生说…", "刘主任": whoever holds it, not one of the user's people)
        if m.group("own") or (len(rel) > 1 and _REL_WORDS[rel] not in _ROLES
                              and (m.start() == 0 or text[m.start() - 1] not in "他她它的")):
            matches.append((rel, m.end()))
    for word, end in matches:
        if addressed(text, end - len(word), end):  # "Thanks, Mum!", "妈妈，你…": said to them
            continue
        if reporters or not _REPORTS.match(text, end):
            found.add(_REL_WORDS[word.lower()])
    return found


def is_relation(key: str) -> bool:
    """Whether ``key`` is a relation or role key ("older sister", "landlord") or a pet's ("cat"), not a name."""
    return key in fill.RELATIONS


def person_relation(key: str) -> bool:
    """Whether ``key`` is a person's relation or role key ("older sister", "landlord"; not a pet's)."""
    return key in fill.RELATIONS and key not in _PETS


def people_in(text: str, people: People) -> set[str]:
    """Who ``text`` is about: the user's relations (keys) and the known names it uses, but for one named only as
    who reports what is said ("my sister says the doctor changed the dose": about the dose)."""
    return _relations_in(text, reporters=False) | people.named_in(text, reporters=False)


#: capitalised words that name a time, not a person ("on Tuesday", "in March")
_TIME_WORDS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                         "february", "march", "april", "may", "june", "july", "august", "september", "october",
                         "november", "december", "christmas", "easter"})


#: a Chinese name said familiarly at the head of a question: 老 / 小 / 阿 and one character ("老葛…", "小霞…", "阿坤…")
#: (not a word of that form: 小区, 小时, 老师, 老家, 老公, ...)
_ZH_FAMILIAR = re.compile(r"\s*(?P<name>[老小阿](?![区时学孩师板家公婆爸妈伙朋姨样子])[\u4e00-\u9fff])")


#: a question asking who someone is: the answer is a person the question does not name
_ASKS_WHO = re.compile(r"\b(?:who|whom|whose)\b|谁", re.I)


def names_asked(query: str, texts: Iterable[str]) -> set[str]:
    """The names a question uses that the user's memories use too (lower case), though no memory introduced them at
    the head of a clause: a word written with a capital inside an English question ("What does Ottilie teach?"), the
    name at the head of a Chinese one ("老葛几点下班？", "王小满是…"; two or three characters, no relation word).
    A general fact of both languages: a proper name asked about that the user has said names that person; a question
    asking who ("Who at Brightwater Bank…?", "谁…") asks for someone it does not name: none."""
    found: set[str] = set()
    if _ASKS_WHO.search(query):  # "Who at Brightwater Bank…": the person asked for is not the one named
        return found
    for word in _INNER_CAPITAL.findall(query):
        if word.lower() not in _TIME_WORDS and word.lower() not in _REL_WORDS:
            found.add(word.lower())
    head = fill.person_mention(query)
    if head is not None and _CJK.search(head.key) and 2 <= len(head.key) <= 3 and head.key not in _REL_WORDS \
            and not head.relation and head.key not in fill.RELATIONS:
        found.add(head.key)
    familiar = _ZH_FAMILIAR.match(query)
    if familiar:
        found.add(familiar.group("name"))
    if not found:
        return found
    said = [t.lower() for t in texts]
    return {n for n in found if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", t) if not _CJK.search(n)
                                     else n in t for t in said)}


def involved_in(text: str, people: People) -> set[str]:
    """Everyone ``text`` names, the one who only reports what is said included ("my dad says he was a carpenter":
    the father, of whom "he" then tells; :func:`people_in` leaves the reporter out)."""
    return _relations_in(text) | people.named_in(text)


#: discourse words a clause may open with before its subject ("Yeah, I…", "Oh and I…", "对，我…", "嗯我…")
_EN_LEAD = r"(?:(?:yeah|yes|yep|ok|okay|oh|so|well|and|but|also|anyway|honestly|actually|right|no|nah|plus|then)\W+)*"
#: a clause whose subject is the speaker: "I" / "I'm" / "I've" … in English, 我 (not 我们 nor 我家 / 我的: the user's
#: household or belongings) in Chinese
_SELF_HEAD = re.compile(rf"^\s*(?:{_EN_LEAD}I(?:['’](?:m|ve|ll|d))?\b|(?:对|嗯|好|哦|噢|是的|那|反正|其实|还有|另外|然后)?[，,]?\s*我(?![们家的]))",
                        re.I)
#: a third person said by a pronoun ("he", "her", "他", "她"): someone else the statement tells of, unnamed
_THIRD_PERSON = re.compile(r"\b(?:he|she|him|her|his|hers|he's|she's|himself|herself)\b|[他她]", re.I)


def about_the_speaker(text: str) -> bool:
    """Whether ``text`` tells of the speaker (the user) and of no one else it could be about: a clause's subject is
    the first person ("I'm at my desk by nine", "对，我七点半到公司") and no third person is said by a pronoun ("I bought her a new
    one" tells of her too). The caller checks that it names nobody (:func:`people_in`). A general fact of both
    languages: the first person is whoever speaks, never the person a question names."""
    if _THIRD_PERSON.search(text):
        return False
    return any(_SELF_HEAD.match(clause) for clause in [text, *_CLAUSES.split(text)] if clause.strip())


#: a question that asks of the speaker too ("what did Ines and I settle on", "when do we meet her", "我和小琪定的是哪天",
#: "她跟我说过什么"): the user is one of the people it is about
_ASKS_OF_SPEAKER = re.compile(r"\b(?:I|me|we|us)\b|我们|咱们|我和|我跟|和我|跟我|给我|对我|帮我|找我")


def asks_of_the_speaker(query: str) -> bool:
    """Whether a question asks about the speaker (the user) too, beside anyone it names: the first person said as a
    subject or an object ("I", "me", "we"; "我和…", "跟我…", "那次我…"); "my sister" / "我姐" asks about the sister
    only."""
    if _ASKS_OF_SPEAKER.search(query):
        return True
    # 我 left once the user's relations ("我姐", "我们家老大") are taken out, not as a possessive (我的, 我家)
    rest = _ZH_REL.sub(lambda m: " " if m.group("own") else m.group(0), query)
    return bool(re.search(r"我(?![的家])", rest))


def read_people(texts: Iterable[str]) -> People:
    """The people named across ``texts`` (see :meth:`People.learn`)."""
    people = People()
    for text in texts:
        people.learn(text)
    return people


def asked_about(query: str, people: People) -> set[str]:
    """The people a question asks about, resolved: each relation it names with the names it was introduced with,
    each name with its relation (a relation that many people hold is not carried over from a name). A relation
    asked as a kind ("which friend") does not count."""
    names = people.named_in(query)
    kinds = {_REL_WORDS[m.group("rel").lower()] for m in (*_WHICH_EN.finditer(query), *_WHICH_ZH.finditer(query))}
    introduced = set(people.relation_of.values())
    # "my kids", "a friend": a relation many people hold names someone only through a name it was introduced with
    relations = {r for r in _relations_in(query) - kinds if r in _ONE_PERSON or r in introduced}
    out = set(names) | relations
    for name, relation in people.relation_of.items():
        if relation in relations:
            out.add(name)
        if name in names and relation in _ONE_PERSON:  # "Ilse" is "my sister"; not every friend is her
            out.add(relation)
    return out
