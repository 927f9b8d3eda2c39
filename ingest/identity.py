"""What storing needs to know of a mail, read cheaply from its header block: is it a mail at
all, and what is its Message-ID.

Storing must stay close to the cost of splitting the mbox (the benchmark's target is 2x the
stdlib parser), so this reads only the header block, the way the stdlib parser delimits it:
up to the first blank line, or the first line that is neither a header nor a continuation.
The id it returns is the one analysis finds (both clean it with analyze.mail.headers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analyze.mail.headers import clean_message_id

_FIELD = re.compile(rb"([!-9;-~]+)[ \t]*:")  # RFC 5322 field name: printable ASCII but ':'
_MAIL_FIELDS = frozenset({b"from", b"subject", b"date", b"message-id"})
_MAX_SCAN = 1024 * 1024  # a header block longer than this is not a real mail's


@dataclass(frozen=True)
class Identity:
    is_mail: bool  # has at least one of From, Subject, Date, Message-ID (analysis's rule)
    message_id: str | None


def identify(data: bytes) -> Identity:
    """Whether the bytes are a mail, and their Message-ID (None when they have none)."""
    is_mail = False
    raw_id: list[bytes] | None = None
    collecting = False
    for line in data[:_MAX_SCAN].split(b"\n"):
        line = line.rstrip(b"\r")
        if not line:
            break
        if line[:1] in (b" ", b"\t"):
            if collecting and raw_id is not None:
                raw_id.append(line)
            continue
        match = _FIELD.match(line)
        if match is None:
            break  # the body starts here for the stdlib parser too
        name = match.group(1).lower()
        collecting = False
        if name in _MAIL_FIELDS:
            is_mail = True
            if name == b"message-id" and raw_id is None:
                raw_id = [line[match.end():]]
                collecting = True
    message_id = None
    if raw_id is not None:
        value = b" ".join(raw_id).decode("ascii", "surrogateescape")
        message_id = clean_message_id(value) if value.strip() else None
    return Identity(is_mail, message_id)
