"""The project's named error types.

Every error that bad input can cause is one of these; the CLI turns them into one-line
messages. Anything else that escapes is a bug and is allowed to surface as one.
"""

from __future__ import annotations


class PatchperfError(Exception):
    """Base of every error patchperf raises on purpose."""


class BadInput(PatchperfError):
    """The input is not something patchperf can read (not mail, corrupt, truncated...)."""


class LimitExceeded(BadInput):
    """The input is larger than a configured limit; the message names the limit."""

    def __init__(self, what: str, limit: int, unit: str = "bytes") -> None:
        super().__init__(f"{what} exceeds the limit of {limit:,} {unit}")
        self.what = what
        self.limit = limit
        self.unit = unit


class StoreError(PatchperfError):
    """The store cannot be opened or written (corrupt, read-only, locked, newer schema)."""


class UsageError(PatchperfError):
    """The command line asks for something that cannot be done."""
