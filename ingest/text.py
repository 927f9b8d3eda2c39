"""Text that is no mail, read as one message's body: a commit message, a page saved from a
git web viewer or a browser, a robot's report that starts at "Hello,", a paste.

`patchperf analyze` takes any text it is given by name or on standard input (docs/sources.md);
the mail it makes has no header but its content type, so its key is its content hash, as a
saved page's is. Bytes in any 8-bit charset are read (UTF-8, else windows-1252, else
latin-1: every byte string decodes); an HTML page comes down to its text. Only empty and
binary input are refused, by the caller (ingest.detect.looks_binary).
"""

from __future__ import annotations

from analyze.mail.charsets import decode_bytes

from .page_text import PageMail, page_lines
from .pages import render_mail

_HTML_START = (b"<!doctype html", b"<html", b"<head", b"<body")


def _html_text(data: bytes) -> str:
    """A page's visible text, one line per block; <pre> keeps its lines."""
    from .page_html import html_soup

    soup = html_soup(data)
    for hidden in soup(["script", "style", "head", "noscript"]):
        hidden.decompose()
    return soup.get_text("\n")


def text_to_mail(data: bytes) -> bytes:
    """RFC 5322 bytes whose body is `data`'s text (LF line ends, UTF-8)."""
    start = data.lstrip()[:64].lower()
    text = _html_text(data) if start.startswith(_HTML_START) else decode_bytes(data)
    lines = page_lines(text)
    while lines and not lines[-1].strip():
        lines.pop()
    # an empty Subject: a mail needs one of its four identifying fields, and the text gives
    # none (its first line is no subject: it may hold the very figures to read)
    return render_mail(PageMail(headers=(("Subject", ""),), body=tuple(lines)))
