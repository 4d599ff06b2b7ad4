"""Which memories are about someone other than the person a question asks about (docs/decisions/0069).

A fact about one person never answers a question about another: asked "what does my sister do?", what the user said
about a friend's job is no answer, however close in wording. When one of the memories recall ranks near the top is
about the person the question asks about (:func:`mnemir.understand.people.asked_about`), those there that name only
other people move below the rest (their order kept; nothing is dropped). Memories that name nobody (the user's own
facts, a sentence whose subject is a pronoun) are never moved.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from mnemir.understand.people import asked_about, is_relation, people_in, person_relation, read_people

#: the metadata key ``remember`` keeps a transcript speaker's label under ("Dev: …" -> "Dev"), on the utterance and on
#: every memory read from it (docs/decisions/0087)
SAID_BY = "said_by"
#: set on what was read from a turn of a transcript recognised as one (two labels recurring): a conversation between
#: people, not a user talking with the assistant
IN_TRANSCRIPT = "transcript"

__all__ = ["about_the_asked_person", "is_relation"]


def about_the_asked_person(ids: Sequence[str], texts: Mapping[str, str], query: str, k: int, depth: int,
                           known: Iterable[str] = (), entities: Mapping[str, str] | None = None,
                           spoken: Collection[str] = ()) -> tuple[list[int], str | None]:
    """The positions of ``ids`` (a ranked order) re-ordered so that, when the question asks about someone and one of
    the first ``depth`` memories names them, those among the first ``depth`` that name only other people follow the
    rest; the order is kept otherwise. Returns (positions, a note or None). ``texts``: id -> its text; ``known``:
    the texts the user's people are read from (with ``texts``); ``entities``: id -> who a fact is about (a relation
    key or a name the write side read), which counts beside what its text names. ``spoken``: memories that are (or
    were read from) a transcript's turn of one of the people talking ("Ruth: …"): whoever else such a turn names, its
    speaker takes part in it, so it is never moved (decision 0078)."""
    keep = list(range(len(ids)))
    people = read_people([*known, *texts.values()])
    asked = asked_about(query, people)
    if not asked:
        return keep, None
    head = list(ids[:depth])
    named = {mid: people_in(texts.get(mid, ""), people) for mid in head}
    for mid, entity in (entities or {}).items():
        if mid in named and (entity in people.names or person_relation(entity)):
            named[mid].add(entity)
    if not any(named[mid] & asked for mid in head):
        return keep, None
    others = [i for i, mid in enumerate(head) if named[mid] and not named[mid] & asked and mid not in spoken]
    if not others or all(i >= k for i in others):
        return keep, None
    moved = set(others)
    positions = [i for i in range(len(head)) if i not in moved] + others + keep[len(head):]
    note = (f"asked about {', '.join(sorted(asked))}: {len(others)} memor{'y' if len(others) == 1 else 'ies'} "
            "about other people placed after the rest")
    return positions, note
