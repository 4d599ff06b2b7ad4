"""Fixtures for the understanding tests: the shipped models on the real default embedder, loaded once."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mnemir.embed import USEEmbedder
from mnemir.understand import Extractor, IntentRecognizer

#: Wednesday 4 March 2026, 10:00 in UTC+8 (the corpus uses the same anchor)
WED = datetime(2026, 3, 4, 10, 0, tzinfo=timezone(timedelta(hours=8)))


@pytest.fixture(scope="session")
def extractor(embedder: USEEmbedder) -> Extractor:
    return Extractor(embedder)


@pytest.fixture(scope="session")
def recognizer(embedder: USEEmbedder) -> IntentRecognizer:
    return IntentRecognizer(embedder)


@pytest.fixture
def wed() -> datetime:
    return WED
