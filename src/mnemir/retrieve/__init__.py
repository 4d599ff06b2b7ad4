"""Retrieval: the filter language, hybrid search and fusion (role-aware recall builds on these)."""

from mnemir.retrieve.search import MAX_K, FusionConfig, SearchHit, hybrid_search
from mnemir.store.filters import parse_filter

__all__ = ["MAX_K", "FusionConfig", "SearchHit", "hybrid_search", "parse_filter"]
