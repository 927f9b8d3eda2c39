"""Size limits (docs/cli.md, "Limits"); every error names the limit.

The command line sets them from the environment (reports/config.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LimitExceeded

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    message_bytes: int = 64 * MiB
    decompressed_bytes: int = 256 * MiB
    page_bytes: int = 16 * MiB
    # the header block of one message: an MTA keeps 100 KiB (Postfix's header_size_limit)
    header_bytes: int = 1 * MiB
    table_lines: int = 100_000
    # A feed page's entries read at a time (lore's hold 25; a hostile mirror's page of
    # 5,000 made 5,002 requests in one go), and the HTTP requests of one sync run: the
    # next run goes on from where this one stopped.
    feed_entries: int = 100
    requests: int = 5_000


DEFAULT_LIMITS = Limits()


def table_too_long(limit: int) -> LimitExceeded:
    """The error of a table or list running past `Limits.table_lines` rows: its claims are
    not read, rather than read from an arbitrary cut."""
    return LimitExceeded("table", limit, "lines")
