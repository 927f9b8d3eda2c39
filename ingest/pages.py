"""Archive pages (lore, openwall; HTML or saved text) rebuilt as RFC 5322 bytes.

The rebuilt mail carries the header lines the page shows, a text/plain UTF-8 body and an
`X-Patchperf-Attachment: name` line per attachment the page links to. Non-ASCII header values
are kept as raw UTF-8 (RFC 6532), not RFC 2047-encoded: lore's `•` sits inside addresses,
where encoded-words are not allowed, and analyze/mail/headers.py reads 8-bit header bytes as UTF-8
first, so the values come back exactly as the page showed them.
"""

from __future__ import annotations

import re

from analyze.errors import BadInput

from .page_html import parse_lore_html, parse_openwall_html
from .page_text import PageMail, parse_lore_text, parse_openwall_text

PAGE_FORMATS = ("lore-html", "openwall-html", "lore-text", "openwall-text")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
_MAX_LINE = 998  # RFC 5322's hard limit on a line


def _fold(line: str) -> str:
    """Fold an over-long header line at spaces (only the hard limit matters here)."""
    if len(line) <= _MAX_LINE:
        return line
    out, current = [], ""
    for word in line.split(" "):
        if current and len(current) + 1 + len(word) > 900:
            out.append(current)
            current = "\t" + word
        else:
            current = f"{current} {word}" if current else word
    out.append(current)
    return "\n".join(out)


def render_mail(page: PageMail) -> bytes:
    """The RFC 5322 bytes of a page's message (LF line ends, UTF-8)."""
    lines = []
    for name, value in page.headers:
        lines.append(_fold(f"{name}: {_CONTROLS.sub(' ', value).strip()}"))
    for name in page.attachments:
        lines.append(_fold(f"X-Patchperf-Attachment: {_CONTROLS.sub(' ', name).strip()}"))
    lines += [
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: 8bit",
        "",
        *page.body,
    ]
    return ("\n".join(lines) + "\n").encode("utf-8", "replace")


def parse_page(data: bytes, fmt: str) -> PageMail:
    """A page's message; `fmt` is one of PAGE_FORMATS (from ingest.detect.sniff_format)."""
    if fmt == "lore-html":
        return parse_lore_html(data)
    if fmt == "openwall-html":
        return parse_openwall_html(data)
    text = data.decode("utf-8", "replace")
    if fmt == "lore-text":
        return parse_lore_text(text)
    if fmt == "openwall-text":
        return parse_openwall_text(text)
    raise BadInput(f"not an archive page format: {fmt}")


def page_to_mail(data: bytes, fmt: str) -> bytes:
    """RFC 5322 bytes rebuilt from a saved page; BadInput when the page holds no message."""
    return render_mail(parse_page(data, fmt))
