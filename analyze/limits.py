"""Size limits (ARCHITECTURE.md: 'Default limits'); every error names the limit.

The command line sets them from the environment (reports/config.py).
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    message_bytes: int = 64 * MiB
    decompressed_bytes: int = 256 * MiB
    page_bytes: int = 16 * MiB
    table_lines: int = 100_000


DEFAULT_LIMITS = Limits()
