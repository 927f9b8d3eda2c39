"""From raw bytes to decoded mail: headers, the text body, text attachments.

stdlib `email` (compat32 policy: the fastest, and lenient with broken mail) splits the MIME
structure and undoes quoted-printable and base64; charsets and RFC 2047 are handled here so a
bad declaration falls back instead of failing (charsets.py).
"""

from __future__ import annotations

import email.parser
import email.policy
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email.message import Message as EmailMessage
from functools import partial
from itertools import islice

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Attachment

from .charsets import decode_bytes, known_charset
from .headers import (
    clean_message_id,
    decode_rfc2047,
    is_address_hidden,
    message_ids,
    parse_date,
    parse_from,
    repair_hidden_addresses,
)
from .mime_fields import Fields

MAX_PARTS = 1000  # a real mail has a handful of MIME parts; more is an attack
# The stdlib parser recurses once per nested multipart or message/*: a mail nested thousands
# deep would exhaust the stack, so containers are counted on the raw bytes first (any
# Content-Type line, an attached mbox's too: an overestimate, never an underestimate).
MAX_CONTAINERS = 100
_CONTAINER = re.compile(rb"\ncontent-type:\s*(?:multipart|message)/", re.IGNORECASE)
# The parser keeps every line of a mail as a string (about 90 bytes each): 64 MiB of short
# lines took 2.5 GB. A patch mail of 64 MiB has about a million lines.
MAX_LINES = 1_000_000
_PATCH_TYPES = ("text/x-patch", "text/x-diff", "text/x-p", "application/x-patch")
_PATCH_NAMES = (".patch", ".diff")



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
    _check_lines_and_containers(data)
    try:
        msg = _parse(data)
    except RecursionError:  # (as deep as MAX_CONTAINERS allows, it is not reached)
        raise LimitExceeded("MIME nesting", MAX_CONTAINERS, "levels") from None
    fields = Fields(msg)
    get = fields.get
    if not any(get(h) is not None for h in ("From", "Subject", "Message-ID", "Date")):
        raise BadInput("not a mail: no From, Subject, Date or Message-ID header")

    body_parts: list[str] = []
    attachments: list[Attachment] = []
    warnings: list[str] = []
    _collect_parts(msg, fields, body_parts, attachments, warnings)

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


def _check_lines_and_containers(data: bytes) -> None:
    # lines as the parser splits them: at \n, \r or \r\n
    if max(data.count(b"\n"), data.count(b"\r")) > MAX_LINES:
        raise LimitExceeded("message", MAX_LINES, "lines")
    head = b"\n" + data[:256]  # a Content-Type on the first line has no newline before it
    first = 1 if _CONTAINER.match(head) else 0
    if next(islice(_CONTAINER.finditer(data), MAX_CONTAINERS - first, None), None) is not None:
        raise LimitExceeded("multipart and message/* parts", MAX_CONTAINERS, "parts")


def _parse(data: bytes) -> EmailMessage:
    """The stdlib parser (compat32: the fastest, and lenient with broken mail) with a part
    factory that counts: past MAX_PARTS it stops the parse, before the rest are built,
    whatever the boundaries look like (empty, RFC 2231, `\r` lines: the stdlib reads
    more spellings than any pre-count on the raw bytes would)."""
    made = -1  # the parser makes one part to try its factory

    def part(*args: object, **kwargs: object) -> EmailMessage:
        nonlocal made
        made += 1
        if made > MAX_PARTS:
            raise LimitExceeded("MIME parts", MAX_PARTS, "parts")
        return EmailMessage(*args, **kwargs)  # type: ignore[arg-type]

    return email.parser.BytesParser(part, policy=email.policy.compat32).parsebytes(data)


def _param(read: Callable[[], str | None], what: str, warnings: list[str]) -> str | None:
    """A MIME parameter (`filename`, `charset`) as the stdlib reads it, or None when its
    RFC 2231 spelling is broken (`name*=undefined''x`, `foo*=a; foo*0=b`): the stdlib
    raises plain TypeError, ValueError or LookupError there."""
    try:
        return read()
    except (TypeError, ValueError, LookupError):
        warnings.append(f"an unreadable {what} parameter, ignored")
        return None


def _part_text(part: EmailMessage, fields: Fields, warnings: list[str]) -> str:
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = b""
    if not isinstance(payload, bytes):  # pragma: no cover - compat32 returns bytes here
        payload = str(payload).encode("utf-8", "replace")
    declared = fields.charset(partial(_param, part.get_content_charset, "charset", warnings))
    if declared and known_charset(declared) is None:
        warnings.append(f"unknown charset {declared[:40]!r}, read with the utf-8/windows-1252 fallbacks")
    return decode_bytes(payload, declared)


def _is_patch_attachment(ctype: str, filename: str | None) -> bool:
    return ctype in _PATCH_TYPES or bool(filename and filename.lower().endswith(_PATCH_NAMES))


def _collect_parts(
    msg: EmailMessage, top: Fields, body: list[str], attachments: list[Attachment], warnings: list[str]
) -> None:
    """Walk the MIME tree: inline text/plain is the body, text/html alternatives are ignored,
    patches and other text attachments are kept as attachments (Patchwork 0019/0020)."""
    for part in msg.walk():  # (at most MAX_PARTS: `_parse` counted them)
        if part.is_multipart():
            continue
        fields = top if part is msg else Fields(part)
        ctype = fields.content_type()
        # str(): compat32 hands a value with raw 8-bit bytes back as a Header object
        disposition = str(fields.get("Content-Disposition") or "").split(";")[0].strip().lower()
        raw_name = fields.filename(partial(_param, part.get_filename, "filename", warnings))
        filename = decode_rfc2047(raw_name) if raw_name else None
        if ctype == "text/plain" and disposition != "attachment" and not filename:
            body.append(_part_text(part, fields, warnings))
        elif ctype == "text/html" and not filename:
            continue  # the HTML alternative of a text/plain body (Patchwork fixture 0019)
        elif ctype.startswith("text/") and ctype != "text/html" or _is_patch_attachment(ctype, filename):
            attachments.append(Attachment(filename=filename, content_type=ctype,
                                          text=_part_text(part, fields, warnings)))
        else:
            attachments.append(Attachment(filename=filename, content_type=ctype, text=None))
