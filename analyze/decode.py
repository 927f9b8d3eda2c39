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
# The stdlib parser recurses once per nested multipart; a mail nested thousands deep would
# exhaust the stack before MAX_PARTS is ever counted, so nesting is bounded up front.
MAX_MULTIPARTS = 100
_MULTIPART = re.compile(rb"multipart/", re.IGNORECASE)
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
    if not data.strip():
        raise BadInput("empty message")
    # in any case (`MULTIPART/` too), without lower-casing 64 MiB of mail, stopping at the
    # first one past the limit
    if next(islice(_MULTIPART.finditer(data), MAX_MULTIPARTS, None), None) is not None:
        raise LimitExceeded("multipart parts", MAX_MULTIPARTS, "parts")
    try:
        msg = _parser.parsebytes(data)
    except RecursionError:
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
        disposition = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
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
