"""Which memories are about someone other than the person a question asks about (docs/decisions/0069).

A fact about one person never answers a question about another: asked "what does my sister do?", what the user said
about a friend's job is no answer, however close in wording. When one of the memories recall ranks near the top is
about the person the question asks about (:func:`mnemir.understand.people.asked_about`), those there that name only
other people move below the rest (their order kept; nothing is dropped). Memories that name nobody (the user's own
facts, a sentence whose subject is a pronoun) are never moved, unless ``speaker_is_other``: then a statement whose
subject is the speaker and that tells of no one else ("I'm at the shop by five") is about the user, another person
than the one asked about (docs/decisions/0094).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from mnemir.understand.people import (
    about_the_speaker,
    asked_about,
    asks_of_the_speaker,
    involved_in,
    is_relation,
    names_asked,
    people_in,
    person_relation,
    read_people,
)

#: the metadata key ``remember`` keeps a transcript speaker's label under ("Dev: …" -> "Dev"), on the utterance and on
#: every memory read from it (docs/decisions/0087)
SAID_BY = "said_by"
#: set on what was read from a turn of a transcript recognised as one (two labels recurring): a conversation between
#: people, not a user talking with the assistant
IN_TRANSCRIPT = "transcript"

#: the key a statement about the speaker (the user) is counted under: never a name or a relation asked about
SPEAKER = "\x00speaker"

__all__ = ["asked_person_order", "is_relation"]


def asked_person_order(ids: Sequence[str], texts: Mapping[str, str], query: str, k: int, depth: int,
                       known: Iterable[str] = (), entities: Mapping[str, str] | None = None,
                       spoken: Collection[str] = (), *, reporters: bool = False,
                       speaker_is_other: bool = False,
                       question_names: bool = False,
                       utterances: Mapping[str, str] | None = None) -> tuple[list[int], str | None, list[int]]:
    """The positions of ``ids`` (a ranked order) re-ordered so that, when the question asks about someone and one of
    the first ``depth`` memories names them, those among the first ``depth`` that name only other people follow the
    rest; the order is kept otherwise. Returns (positions, a note or None, the positions of the memories that name
    only other people: those among the first k, when they were already last, too). ``texts``: id -> its text; ``known``:
    the texts the user's people are read from (with ``texts``); ``entities``: id -> who a fact is about (a relation
    key or a name the write side read), which counts beside what its text names. ``spoken``: memories that are (or
    were read from) a transcript's turn of one of the people talking ("Ruth: …"): whoever else such a turn names, its
    speaker takes part in it, so it is never moved (decision 0078). ``reporters``: a memory that names the asked
    person only as who reports ("my dad says he was a carpenter") is about them too: it counts as naming them and is
    never moved (0094). ``speaker_is_other``: a statement about the speaker that names nobody counts as naming the
    user, who is not the person asked about, unless the question asks of the speaker too ("Ines and I") (0094). ``question_names``: a name the question uses that the memories use
    too is a person's, though no memory introduced it (:func:`~mnemir.understand.people.names_asked`, 0094).
    ``utterances``: id -> the text of the utterance a reading was read from: a reading that names nobody ("she
    works late") is about the people its utterance names (0111)."""
    keep = list(range(len(ids)))
    known = list(known)
    people = read_people([*known, *texts.values()])
    # the speaker is another person only than someone the memories introduce as a person (a relation, a name said
    # at a clause head), not than a capitalised word the question shares with them (a place, a firm)
    introduced = bool(asked_about(query, people))
    if question_names:
        people.names |= names_asked(query, [*known, *texts.values()])
    asked = asked_about(query, people)
    if not asked:
        return keep, None, []
    head = list(ids[:depth])
    named = {mid: people_in(texts.get(mid, ""), people) for mid in head}
    for mid, entity in (entities or {}).items():
        if mid in named and (entity in people.names or person_relation(entity)):
            named[mid].add(entity)
    for mid, said in (utterances or {}).items():  # a reading naming nobody is about whom its utterance names
        if mid in named and not named[mid] and not involved_in(texts.get(mid, ""), people):
            named[mid] = people_in(said, people)
    involved = {mid: named[mid] | involved_in(texts.get(mid, ""), people) if reporters else named[mid] for mid in head}
    if speaker_is_other and introduced and not asks_of_the_speaker(query):  # "what did Ines and I settle on": the user is asked about too
        for mid in head:
            if not involved[mid] and about_the_speaker(texts.get(mid, "")):
                named[mid] = {SPEAKER}
    if not any(involved[mid] & asked for mid in head):
        return keep, None, []
    others = [i for i, mid in enumerate(head) if named[mid] and not involved[mid] & asked and mid not in spoken]
    if not others or all(i >= k for i in others):
        return keep, None, []
    moved = set(others)
    positions = [i for i in range(len(head)) if i not in moved] + others + keep[len(head):]
    note = (f"asked about {', '.join(sorted(asked))}: {len(others)} memor{'y' if len(others) == 1 else 'ies'} "
            "about other people placed after the rest")
    return positions, note, others
