"""The ``mnemir`` command line."""

from mnemir.cli import commands, server  # noqa: F401  (registers the feature commands on the group)
from mnemir.cli.app import cli, main

__all__ = ["cli", "main"]
