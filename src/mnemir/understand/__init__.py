"""Understanding: typed extraction from dialogue and query intent (offline by default, zh + en).

``Extractor`` turns an utterance into memory drafts; ``IntentRecognizer`` turns a
query into a ``RetrievalIntent``. Neither touches a store: the facade
(``mnemir.memory.understanding``) resolves updates and links against memory.
"""

from mnemir.understand.dates import DateMatch, find_dates, resolve_deadline, time_range
from mnemir.understand.entities import Entity, aliases, find_entities, normalize_entity
from mnemir.understand.extract import SPEAKERS, Draft, Extraction, Extractor, check_speaker, check_text
from mnemir.understand.intent import INTENT_KINDS, KIND_TYPES, IntentRecognizer, RetrievalIntent

__all__ = [
    "INTENT_KINDS",
    "KIND_TYPES",
    "SPEAKERS",
    "DateMatch",
    "Draft",
    "Entity",
    "Extraction",
    "Extractor",
    "IntentRecognizer",
    "RetrievalIntent",
    "aliases",
    "check_speaker",
    "check_text",
    "find_dates",
    "find_entities",
    "normalize_entity",
    "resolve_deadline",
    "time_range",
]
