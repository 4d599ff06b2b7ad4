"""mnemir: typed long-term memory for AI agents.

>>> import mnemir
>>> mem = mnemir.open("./agent-memory")            # doctest: +SKIP
"""

from importlib import metadata as _metadata

from mnemir.embed import Embedder, USEEmbedder
from mnemir.errors import (
    ConfigError,
    ConflictError,
    EndpointError,
    InvalidTransitionError,
    MissingDependencyError,
    MnemirError,
    ModelMismatchError,
    NotFoundError,
    StoreError,
    ValidationError,
    VersionError,
)
from mnemir.ir import HistoryEntry, MemIR, MemoryStatus, Relationship, Scope, Source
from mnemir.memory import AsyncMemory, Memory, MemoryConfig, open, open_async
from mnemir.ontology import Ontology, PropertySpec, TypeDef
from mnemir.retrieve import Context, FusionConfig, RankingConfig, Recall, RecallConfig, RecallHit, SearchHit
from mnemir.understand.intent import RetrievalIntent

__version__ = _metadata.version("mnemir")  # one source: pyproject.toml

__all__ = [
    "AsyncMemory",
    "ConfigError",
    "ConflictError",
    "Context",
    "Embedder",
    "EndpointError",
    "FusionConfig",
    "HistoryEntry",
    "InvalidTransitionError",
    "MemIR",
    "Memory",
    "MemoryConfig",
    "MemoryStatus",
    "MissingDependencyError",
    "MnemirError",
    "ModelMismatchError",
    "NotFoundError",
    "Ontology",
    "PropertySpec",
    "RankingConfig",
    "Recall",
    "RecallConfig",
    "RecallHit",
    "Relationship",
    "RetrievalIntent",
    "Scope",
    "SearchHit",
    "Source",
    "StoreError",
    "TypeDef",
    "USEEmbedder",
    "ValidationError",
    "VersionError",
    "__version__",
    "open",
    "open_async",
]
