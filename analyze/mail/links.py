"""Message-IDs a mail links to through archive URLs.

b4 writes "Link to v1: https://lore.kernel.org/r/<msgid>" in cover letters and authors paste
`https://lore.kernel.org/netdev/<msgid>/`; `patch.msgid.link/<msgid>` is the newer short
form. Series assembly uses these to link versions across threads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

_LORE = re.compile(
    r"https?://(?:lore\.kernel\.org/[A-Za-z0-9._-]+|patch\.msgid\.link)/([^\s/<>\"]+)",
    re.IGNORECASE,
)
_MAX = 64  # a cover letter links a few earlier versions; more is noise


def linked_message_ids(lines: Sequence[str], depths: Sequence[int]) -> tuple[str, ...]:
    """Message-IDs in archive links on unquoted lines, in order, without duplicates."""
    found: dict[str, None] = {}
    for line, depth in zip(lines, depths, strict=False):
        if depth or "://" not in line:
            continue
        for match in _LORE.finditer(line):
            msgid = unquote(match.group(1)).strip(".,;:)>]'\"")
            if msgid and "@" in msgid:
                found.setdefault(msgid, None)
                if len(found) >= _MAX:
                    return tuple(found)
    return tuple(found)
