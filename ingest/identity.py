"""A mail's Message-ID read cheaply from its header block, for storing without analysis.

Storing must stay close to the cost of splitting the mbox (the benchmark's target is 2x the
stdlib parser), so this scans only the header block instead of parsing the whole mail. It
returns the same id that analysis finds (both clean it with analyze.headers).
"""

from __future__ import annotations

import re

from analyze.headers import clean_message_id

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)
_MAX_SCAN = 1024 * 1024  # a header block longer than this is not a real mail's


def scan_message_id(data: bytes) -> str | None:
    """The Message-ID of a raw mail without angle brackets, or None when it has none."""
    end = _HEADER_END.search(data, 0, _MAX_SCAN)
    head = data[: end.start() if end else _MAX_SCAN]
    match = _MESSAGE_ID.search(b"\n" + head)
    if not match:
        return None
    value = match.group(1).decode("ascii", "surrogateescape")
    return clean_message_id(value) if value.strip() else None
