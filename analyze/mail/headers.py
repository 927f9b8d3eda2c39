"""Header values: RFC 2047 decoding, addresses, Message-IDs, dates.

Archives hide addresses in two ways. lore replaces the first `.` after the `@` with `•`
(seed 004: `jbaron@akamai•com`): that is reversible, so it is repaired. openwall drops `@`
and the next three characters (seed 001: `dcaratti@...hat.com`): that is not, so the address
is kept as shown and flagged `address_hidden`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.errors import HeaderParseError
from email.header import Header, decode_header
from email.utils import parseaddr, parsedate_to_datetime

from .charsets import decode_bytes

_LORE_HIDDEN = re.compile(r"(@[A-Za-z0-9_-]+)\u2022(?=[A-Za-z0-9])")
_OPENWALL_HIDDEN = re.compile(r"@\.\.\.[A-Za-z0-9]")
_ANGLE_ID = re.compile(r"<([^<>\s]+)>")
_WS = re.compile(r"\s+")
# raw 8-bit bytes, as the parser escapes them (chr(): mypyc compiles no surrogate literal)
_SURROGATE = re.compile(f"[{chr(0xDC80)}-{chr(0xDCFF)}]")
MAX_REFERENCES = 128  # real threads reference a few dozen ancestors at most
_MAX_HEADER = 64 * 1024  # longer header values are cut: no real header comes near this


def raw_header_text(value: object) -> str:
    """A header value as text; raw 8-bit bytes (surrogate-escaped by the parser) decoded."""
    if value is None:
        return ""
    if isinstance(value, Header):
        # compat32 hands raw 8-bit header bytes back as a Header in charset unknown-8bit
        # (Patchwork fixture 0014): take the bytes and run the charset fallbacks on them.
        return "".join(
            decode_bytes(chunk, charset) if isinstance(chunk, bytes) else chunk
            for chunk, charset in decode_header(value)
        )[:_MAX_HEADER]
    text = str(value)[:_MAX_HEADER]
    if _SURROGATE.search(text):
        text = decode_bytes(text.encode("ascii", "surrogateescape"))
    return text


def decode_rfc2047(value: object) -> str:
    """Decode encoded-words (`=?UTF-8?q?J=C3=B6rg?=`), unfold, collapse whitespace."""
    text = raw_header_text(value)
    if "=?" in text:
        try:
            parts = decode_header(text)
        except (HeaderParseError, ValueError, LookupError):
            # a broken encoded-word (Patchwork's fuzz/base64err) is shown as written
            parts = [(text, None)]
        pieces = []
        for chunk, charset in parts:
            if isinstance(chunk, bytes):
                pieces.append(decode_bytes(chunk, charset))
            else:
                pieces.append(chunk)
        text = "".join(pieces)
    return _WS.sub(" ", text).strip()


def repair_hidden_addresses(text: str) -> str:
    """Undo lore's reversible address hiding (`user@host•tld` -> `user@host.tld`)."""
    if "\u2022" not in text:
        return text
    return _LORE_HIDDEN.sub(r"\1.", text)


def is_address_hidden(address: str) -> bool:
    """True for openwall's irreversible `user@...ample.com` shortening."""
    return bool(_OPENWALL_HIDDEN.search(address))


# `Name <user@host>` or `user@host` in plain characters, as most From headers are: for these
# `parseaddr` answers the name's words joined by one space and the address as written (its
# parse costs as much as the rest of the headers). Quotes, comments, encoded words, groups
# and any other character go to `parseaddr` itself.
# (words one or more spaces apart: each space is told by the character after it, so a
# hostile header costs linear time; one longer than any real From goes to `parseaddr`)
_PLAIN_FROM = re.compile(r"(?: *([A-Za-z0-9.'_-]+(?: +[A-Za-z0-9.'_-]+)*)? *<([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)>"
                         r"|([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)) *")
_MAX_PLAIN_FROM = 512


def _parseaddr(text: str) -> tuple[str, str]:
    plain = _PLAIN_FROM.fullmatch(text) if len(text) <= _MAX_PLAIN_FROM else None
    if plain is None:
        return parseaddr(text)
    if plain.group(3) is not None:
        return "", plain.group(3)
    return " ".join((plain.group(1) or "").split()), plain.group(2)


def parse_from(value: object) -> tuple[str, str]:
    """(name, address) of a From header, decoded and repaired."""
    text = repair_hidden_addresses(decode_rfc2047(value))
    name, addr = _parseaddr(text)
    if not addr and not name:
        return "", text
    name = name.strip().strip('"').strip()
    return name, addr.strip()


def clean_message_id(value: object) -> str | None:
    """The first Message-ID in a header value, without angle brackets; None if there is none.

    An id written without brackets is taken as its first word, unless that holds a stray `<`
    or `>` (`a<b@x`): such an id cannot be written back in a header, so the mail is treated
    as having none and is keyed by its content.
    """
    text = repair_hidden_addresses(raw_header_text(value))
    match = _ANGLE_ID.search(text)
    if match:
        return match.group(1)
    words = text.split()
    token = words[0] if words else ""
    return token if token and "<" not in token and ">" not in token else None


def message_ids(value: object) -> tuple[str, ...]:
    """The `<id>`s of a References-style header, in order, without duplicates.

    Past MAX_REFERENCES, the first id (the thread's root) and the most recent ones are kept,
    as RFC 5322 asks senders to trim; a hostile header of thousands of ids costs nothing more.
    """
    text = repair_hidden_addresses(raw_header_text(value))
    seen: dict[str, None] = {}
    for match in _ANGLE_ID.finditer(text):
        seen.setdefault(match.group(1), None)
    ids = tuple(seen)
    if len(ids) > MAX_REFERENCES:
        ids = ids[:1] + ids[-(MAX_REFERENCES - 1):]
    return ids


def parse_date(value: object) -> datetime | None:
    """An aware datetime with the mail's own offset; None when the header is absent or bad."""
    text = decode_rfc2047(value)
    if not text:
        return None
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        # RFC 5322 `-0000`: the time is UTC, the sender's zone unknown.
        parsed = parsed.replace(tzinfo=UTC)
    return parsed
