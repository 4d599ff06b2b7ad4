"""Fixtures of the recall tests."""

from __future__ import annotations

import pytest

import mnemir
from mnemir.retrieve import RecallConfig


@pytest.fixture
def role_order_only(mem: mnemir.Memory) -> None:
    """Recall without the fusion with plain search: the modules that use it pin the role-aware order itself (its
    lifecycle rules); the fusion and its guarantees are pinned in test_recall_evidence.py."""
    mem.recall_config = RecallConfig(plain_weight=0.0, unsure_plain_weight=0.0)
