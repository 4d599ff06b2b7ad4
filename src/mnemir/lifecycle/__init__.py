"""Lifecycle governance: merge, contradictions, task states, decay and retention, hypotheses, migrations.

Policies are pure functions of records and ``now`` (``merge``, ``contradictions``, ``tasks``, ``decay``,
``hypothesis``, ``migrations.migrate_record``); ``governor`` (write time) and ``maintenance`` (background)
apply them through the store contract.
"""

from mnemir.lifecycle.config import (
    ALLERGY_VS_LIKING,
    DEFAULT_POLICIES,
    STRATEGIES,
    ConflictPair,
    FactChecker,
    LifecycleConfig,
    Strategy,
    TypePolicy,
)
from mnemir.lifecycle.contradictions import Conflict, find_conflicts, may_supersede, resolve
from mnemir.lifecycle.decay import decay_weight
from mnemir.lifecycle.events import GovernanceEvent, WriteReport
from mnemir.lifecycle.evolution import OntologyDiff, diff_ontologies
from mnemir.lifecycle.governor import Governor
from mnemir.lifecycle.hypothesis import apply_evidence, promote, updated_confidence
from mnemir.lifecycle.maintenance import MaintenanceReport, overdue_tasks, run_maintenance
from mnemir.lifecycle.merge import find_duplicate, is_duplicate, merge_into
from mnemir.lifecycle.migrations import (
    Migration,
    MigrationReport,
    RenameEnumValue,
    RenameProperty,
    RenameType,
    SplitType,
    migrate_record,
    run_migration,
    upgrade_record,
)
from mnemir.lifecycle.tasks import TRANSITIONS, check_transition, is_overdue, transition

__all__ = [
    "ALLERGY_VS_LIKING",
    "DEFAULT_POLICIES",
    "STRATEGIES",
    "TRANSITIONS",
    "Conflict",
    "ConflictPair",
    "FactChecker",
    "GovernanceEvent",
    "Governor",
    "LifecycleConfig",
    "MaintenanceReport",
    "Migration",
    "MigrationReport",
    "OntologyDiff",
    "RenameEnumValue",
    "RenameProperty",
    "RenameType",
    "SplitType",
    "Strategy",
    "TypePolicy",
    "WriteReport",
    "apply_evidence",
    "check_transition",
    "decay_weight",
    "diff_ontologies",
    "find_conflicts",
    "find_duplicate",
    "is_duplicate",
    "is_overdue",
    "may_supersede",
    "merge_into",
    "overdue_tasks",
    "migrate_record",
    "promote",
    "resolve",
    "run_maintenance",
    "run_migration",
    "transition",
    "updated_confidence",
    "upgrade_record",
]
