"""Retrieval: the filter language, hybrid search and fusion, and role-aware recall with its prompt Context."""

from mnemir.retrieve.context import Context
from mnemir.retrieve.ranking import RankingConfig
from mnemir.retrieve.recall import Recall, RecallConfig, RecallHit
from mnemir.retrieve.search import MAX_K, FusionConfig, SearchHit, hybrid_search
from mnemir.store.filters import parse_filter

__all__ = ["MAX_K", "Context", "FusionConfig", "RankingConfig", "Recall", "RecallConfig", "RecallHit", "SearchHit",
           "hybrid_search", "parse_filter"]
