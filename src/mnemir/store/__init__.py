"""Storage: the backend contract, the filter language and the backends (``sqlite`` now, ``postgres`` later)."""

from mnemir.store.base import ANY, LIVE_STATUSES, Capabilities, Edge, Selection, Store, Write
from mnemir.store.filters import FilterNode, matches, parse_filter

__all__ = [
    "ANY",
    "LIVE_STATUSES",
    "Capabilities",
    "Edge",
    "FilterNode",
    "Selection",
    "Store",
    "Write",
    "matches",
    "parse_filter",
]
