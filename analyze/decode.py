"""From raw bytes to decoded mail: headers, the text body, text attachments.

stdlib `email` (compat32 policy: the fastest, and lenient with broken mail) splits the MIME
structure and undoes quoted-printable and base64; charsets and RFC 2047 are handled here so a
bad declaration falls back instead of failing (charsets.py).
"""

from __future__ import annotations

import email.parser
import email.policy
import re
from dataclasses import dataclass
from datetime import datetime
from email.message import Message as EmailMessage
from itertools import islice

from .charsets import decode_bytes, known_charset
from .errors import BadInput, LimitExceeded
from .headers import (
    clean_message_id,
    decode_rfc2047,
    is_address_hidden,
    message_ids,
    parse_date,
    parse_from,
    repair_hidden_addresses,
)
from .limits import DEFAULT_LIMITS, Limits
from .model import Attachment

MAX_PARTS = 1000  # a real mail has a handful of MIME parts; more is an attack
# The stdlib parser recurses once per nested multipart (or message/rfc822) and builds every
# part before any can be counted: a mail nested thousands deep would exhaust the stack, and
# two million empty parts take 17 s and 700 MB. So both are bounded on the raw bytes first.
MAX_MULTIPARTS = 100
# A Content-Type header (at a line start, in any case) declaring a part that holds parts
_CONTAINER = re.compile(rb"\ncontent-type:\s*(?:multipart/|message/rfc822)", re.IGNORECASE)
_BOUNDARY = re.compile(rb'boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.IGNORECASE)
_BOUNDARY_REACH = 1024  # how far after its Content-Type a boundary parameter is looked for
_PATCH_TYPES = ("text/x-patch", "text/x-diff", "text/x-p", "application/x-patch")
_PATCH_NAMES = (".patch", ".diff")

_parser = email.parser.BytesParser(policy=email.policy.compat32)


@dataclass(frozen=True, slots=True)
class DecodedMail:
    message_id: str | None
    subject: str
    from_name: str
    from_addr: str
    address_hidden: bool
    date: datetime | None
    in_reply_to: str | None
    references: tuple[str, ...]
    list_id: str | None
    change_id: str | None
    body_text: str
    attachments: tuple[Attachment, ...]
    warnings: tuple[str, ...] = ()


def decode_mail(data: bytes, limits: Limits = DEFAULT_LIMITS) -> DecodedMail:
    """Decode one RFC 5322 message; BadInput when it is not a mail at all."""
    if len(data) > limits.message_bytes:
        raise LimitExceeded("message", limits.message_bytes)
    if not data or data.isspace():  # (not .strip(): a copy of the whole message)
        raise BadInput("empty message")
    _check_header_size(data, limits.header_bytes)
    _check_mime_structure(data)
    try:
        msg = _parser.parsebytes(data)
    except RecursionError:  # pragma: no cover - bounded by _check_mime_structure
        raise LimitExceeded("MIME nesting", MAX_MULTIPARTS, "levels") from None
    if not any(msg.get(h) is not None for h in ("From", "Subject", "Message-ID", "Date")):
        raise BadInput("not a mail: no From, Subject, Date or Message-ID header")

    body_parts: list[str] = []
    attachments: list[Attachment] = []
    warnings: list[str] = []
    _collect_parts(msg, body_parts, attachments, warnings)

    get = msg.get
    from_name, from_addr = parse_from(get("From"))
    message_id, in_reply_to, list_id, change_id = (
        get("Message-ID"), get("In-Reply-To"), get("List-Id"), get("X-Change-ID")
    )
    return DecodedMail(
        message_id=clean_message_id(message_id) if message_id else None,
        subject=decode_rfc2047(get("Subject")),
        from_name=from_name,
        from_addr=from_addr,
        address_hidden=is_address_hidden(from_addr),
        date=parse_date(get("Date")),
        in_reply_to=clean_message_id(in_reply_to) if in_reply_to else None,
        references=message_ids(get("References")),
        list_id=clean_message_id(list_id) if list_id else None,
        change_id=(decode_rfc2047(change_id) or None) if change_id else None,
        body_text=repair_hidden_addresses("\n".join(body_parts)),
        attachments=tuple(attachments),
        warnings=tuple(dict.fromkeys(warnings)),
    )


def _check_header_size(data: bytes, limit: int) -> None:
    """The header block (up to the first empty line, or all of it) within the limit: a
    62 MB References header alone grew to 740 MB once parsed and split into ids."""
    ends = [i for i in (data.find(b"\n\n", 0, limit + 2), data.find(b"\n\r\n", 0, limit + 3)) if i >= 0]
    end = min(ends) if ends else len(data)
    if end > limit:
        raise LimitExceeded("header", limit)


def _check_mime_structure(data: bytes) -> None:
    """Count, on the raw bytes, the parts that hold parts and the delimiter lines of their
    boundaries; both bound what the stdlib parser would build. An overestimate at worst
    (a boundary that prefixes another), never an underestimate."""
    head = b"\n" + data[:256]  # a Content-Type on the first line has no newline before it
    starts = [m.end() - 1 for m in _CONTAINER.finditer(head) if m.start() == 0]
    found = islice(_CONTAINER.finditer(data), MAX_MULTIPARTS + 1)
    starts += [m.end() for m in found]
    if len(starts) > MAX_MULTIPARTS:
        raise LimitExceeded("multipart and message/rfc822 parts", MAX_MULTIPARTS, "parts")
    boundaries = set()
    for start in starts:
        b = _BOUNDARY.search(data, start, start + _BOUNDARY_REACH)
        if b is not None:
            boundaries.add(b.group(1) or b.group(2))
    # each part starts at a delimiter line `--boundary`; each multipart ends at one more
    delimiters = sum(data.count(b"\n--" + b) for b in boundaries)
    if delimiters > MAX_PARTS + len(starts):
        raise LimitExceeded("MIME parts", MAX_PARTS, "parts")


def _part_text(part: EmailMessage, warnings: list[str]) -> str:
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = b""
    if not isinstance(payload, bytes):  # pragma: no cover - compat32 returns bytes here
        payload = str(payload).encode("utf-8", "replace")
    declared = part.get_content_charset()
    if declared and known_charset(declared) is None:
        warnings.append(f"unknown charset {declared[:40]!r}, read with the utf-8/windows-1252 fallbacks")
    return decode_bytes(payload, declared)


def _is_patch_attachment(ctype: str, filename: str | None) -> bool:
    return ctype in _PATCH_TYPES or bool(filename and filename.lower().endswith(_PATCH_NAMES))


def _collect_parts(
    msg: EmailMessage, body: list[str], attachments: list[Attachment], warnings: list[str]
) -> None:
    """Walk the MIME tree: inline text/plain is the body, text/html alternatives are ignored,
    patches and other text attachments are kept as attachments (Patchwork 0019/0020)."""
    count = 0
    for part in msg.walk():
        count += 1
        if count > MAX_PARTS:
            raise LimitExceeded("MIME parts", MAX_PARTS, "parts")
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        # str(): compat32 hands a value with raw 8-bit bytes back as a Header object
        disposition = str(part.get("Content-Disposition") or "").split(";")[0].strip().lower()
        raw_name = part.get_filename()
        filename = decode_rfc2047(raw_name) if raw_name else None
        if ctype == "text/plain" and disposition != "attachment" and not filename:
            body.append(_part_text(part, warnings))
        elif ctype == "text/html" and not filename:
            continue  # the HTML alternative of a text/plain body (Patchwork fixture 0019)
        elif ctype.startswith("text/") and ctype != "text/html" or _is_patch_attachment(ctype, filename):
            attachments.append(Attachment(filename=filename, content_type=ctype, text=_part_text(part, warnings)))
        else:
            attachments.append(Attachment(filename=filename, content_type=ctype, text=None))
