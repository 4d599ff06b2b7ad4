"""Where the evaluation and training corpora live: outside the installed package.

The package ships models, not corpora. A source checkout keeps the benchmark files in ``benchmarks/`` and the
training corpora in ``training/`` at the repository root; ``$MNEMIR_BENCHMARKS`` / ``$MNEMIR_TRAINING`` (or an
explicit path given to the caller) point elsewhere, e.g. for an installed package.
"""

from __future__ import annotations

import os
from pathlib import Path

from mnemir.errors import ConfigError

__all__ = ["benchmarks_dir", "repo_root", "training_dir"]


def repo_root() -> Path:
    """The source checkout this module lives in (``src/mnemir/paths.py`` -> the folder holding ``src``)."""
    return Path(__file__).resolve().parents[2]


def _folder(env: str, name: str, override: str | Path | None) -> Path:
    chosen = Path(override) if override is not None else Path(os.environ.get(env) or repo_root() / name)
    if not chosen.is_dir():
        raise ConfigError(f"the {name} folder was not found at {chosen}: run from a source checkout, set ${env}, "
                          "or pass the folder's path")
    return chosen


def benchmarks_dir(override: str | Path | None = None) -> Path:
    """The folder of benchmark files (``benchmarks/`` in a checkout, or ``$MNEMIR_BENCHMARKS``)."""
    return _folder("MNEMIR_BENCHMARKS", "benchmarks", override)


def training_dir(override: str | Path | None = None) -> Path:
    """The folder of training corpora (``training/`` in a checkout, or ``$MNEMIR_TRAINING``)."""
    return _folder("MNEMIR_TRAINING", "training", override)
