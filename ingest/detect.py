"""What kind of mail file this is, from its first bytes (never from its name).

In this order (docs/sources.md): gzip by magic bytes, mbox by a leading `From ` line, HTML by its markup, an
RFC 5322 header block, else a saved text rendering of an archive page. The answer is one of
`gz`, `mbox`, `lore-html`, `openwall-html`, `eml`, `lore-text`, `openwall-text`, or None when
the bytes are no mail at all.
"""

from __future__ import annotations

import re

HEAD_BYTES = 64 * 1024  # enough for any header block or page chrome seen so far

_GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, which some editors put before the headers
_FIELD = re.compile(rb"[!-9;-~]+:")  # RFC 5322 field-name, then the colon
_KNOWN_FIELDS = frozenset(
    b"from to cc subject date message-id received return-path mime-version content-type "
    b"in-reply-to references sender reply-to delivered-to x-mailer list-id".split()
)
# lore: `<pre id=b>` (attributes may be split by newlines, quoted or not)
_LORE_PRE = re.compile(rb"<pre\s[^>]*\bid\s*=\s*[\"']?b[\"'\s>]", re.IGNORECASE)
_OPENWALL_PRE = re.compile(rb"<pre\s[^>]*white-space:\s*pre-wrap", re.IGNORECASE)
_HTML = re.compile(rb"<(?:!doctype\s+html|html|head|title|body|pre)\b", re.IGNORECASE)
# openwall's navigation line, seen in seed 001: `[<prev] [next>] [thread-next>] [day] ...`
# openwall's navigation line: `[<prev] [next>] [thread-next>] [day] [month] [year] [list]`
OPENWALL_NAV = re.compile(r"^\s*\[<?(?:prev|next|thread-prev|thread-next)>?\].*\[(?:day|list)\]")
_OPENWALL_HEADER = re.compile(rb"^(?:Message-ID|Date|From|To|Cc|Subject):\s")


def _lines(text: bytes, limit: int = 200) -> list[bytes]:
    return [line.rstrip(b"\r") for line in text.split(b"\n", limit)[:limit]]


def _strip_start(head: bytes) -> bytes:
    """Drop a UTF-8 BOM and leading blank lines (saved pages often start with them)."""
    if head.startswith(BOM):
        head = head[len(BOM) :]
    return head.lstrip(b" \t\r\n")


def is_header_line(line: bytes) -> bool:
    """A header field line or a folded continuation of one."""
    return bool(_FIELD.match(line)) or line[:1] in (b" ", b"\t")


def _is_header_block(text: bytes) -> bool:
    lines = _lines(text)
    if not lines or not _FIELD.match(lines[0]):
        return False
    block = []
    for line in lines:
        if not line.strip():
            break
        block.append(line)
    fields = [line.split(b":", 1)[0].lower() for line in block if _FIELD.match(line)]
    good = sum(1 for line in block if is_header_line(line))
    # fuzzed Patchwork mails (fuzz/charset.mbox) mangle names; most lines must still be headers
    return good * 10 >= len(block) * 9 and any(f in _KNOWN_FIELDS for f in fields)


def _looks_like_mbox(text: bytes) -> bool:
    lines = _lines(text, 3)
    if not lines[0].startswith(b"From ") or len(lines[0]) < 6:
        return False
    # prose that happens to begin "From the ..." is not followed by a header line
    rest = [line for line in lines[1:] if line]
    return not rest or is_header_line(rest[0])


def _is_lore_text(text: bytes) -> bool:
    lines = _lines(text, 6)
    return lines[0].lower().startswith(b"public inbox for ") and any(
        b"help / color / mirror" in line for line in lines[1:]
    )


def _is_openwall_text(text: bytes) -> bool:
    lines = _lines(text, 60)
    for i, line in enumerate(lines):
        if OPENWALL_NAV.match(line.strip().decode('latin-1')):
            return any(_OPENWALL_HEADER.match(after) for after in lines[i + 1 : i + 6])
    return False


def sniff_format(head: bytes) -> str | None:
    """The format of a file from its first bytes (up to HEAD_BYTES); None when it is no mail."""
    if head.startswith(_GZIP_MAGIC):
        return "gz"
    text = _strip_start(head)
    if not text:
        return None
    if _looks_like_mbox(text):
        return "mbox"
    if _HTML.search(text[:4096]):
        lower = text.lower()
        if _LORE_PRE.search(text) and b"public inbox" in lower.replace(b"-", b" "):
            return "lore-html"
        if _OPENWALL_PRE.search(text) and (b"blists" in lower or b"lists.openwall.net" in lower):
            return "openwall-html"
        return None
    if _is_header_block(text):
        return "eml"
    if _is_lore_text(text):
        return "lore-text"
    if _is_openwall_text(text):
        return "openwall-text"
    return None


def looks_binary(head: bytes) -> bool:
    """True when the bytes are not text at all (NULs, or mostly control bytes)."""
    if not head:
        return False
    if b"\0" in head:
        return True
    sample = head[:4096]
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return controls * 20 > len(sample)
