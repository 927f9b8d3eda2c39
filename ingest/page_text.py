"""Saved text renderings of archive pages (lore, openwall): their header lines and body.

What a page shows is kept as shown (`•` in lore addresses, `@...` in openwall ones): repairing
those is analysis's job. Only the page chrome goes: banners, link texts such as `(raw)` and
`[thread overview]`, the navigation line and the footers. HTML pages (page_html.py) come down
to the same text and go through the same functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analyze.errors import BadInput

from .detect import OPENWALL_NAV

# the header lines archive pages show, in canonical spelling
_SHOWN = {
    "from": "From",
    "to": "To",
    "cc": "Cc",
    "subject": "Subject",
    "date": "Date",
    "message-id": "Message-ID",
    "in-reply-to": "In-Reply-To",
    "references": "References",
}
_FIELD = re.compile(r"([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)")
# lore's link texts after the values (seed 004): `Date: ...\t[thread overview]`, `<id> (raw)`
_LORE_TAILS = {
    "Date": re.compile(r"\s*\[thread overview\]\s*$"),
    "Message-ID": re.compile(r"\s*\(raw\)\s*$"),
}
_LORE_FOOTERS = ("next prev parent reply", "Thread overview:", "Reply instructions:")
_OPENWALL_FOOTERS = ("Powered by blists", "Confused about mailing lists")
_ATTACHMENT = re.compile(r'^\s*(?:View\s*\|\s*)?(?:View|Download) attachment "([^"]*)"')


@dataclass(frozen=True)
class PageMail:
    """One message as an archive page shows it."""

    headers: tuple[tuple[str, str], ...]  # (canonical name, unfolded value), page order
    body: tuple[str, ...]  # lines, page chrome removed
    attachments: tuple[str, ...] = ()  # names of attachments the page links to (not fetched)


def page_lines(text: str) -> list[str]:
    """Lines of a page's text: BOM dropped, CRLF and CR line ends made LF."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def parse_header_block(lines: list[str], start: int) -> tuple[list[tuple[str, str]], int]:
    """Header lines from `start` (blank lines before them skipped) up to the blank line.

    Folded lines (tab in lore, aligned spaces in openwall) are unfolded with one space.
    Returns the shown headers and the index of the first body line.
    """
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    fields: list[list[str]] = []
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            break
        if line[:1] in (" ", "\t") and fields:
            fields[-1][1] += " " + line.strip()
        elif m := _FIELD.match(line):
            fields.append([m.group(1), m.group(2).rstrip()])
        else:
            break  # a page with no blank line after its headers: the body starts here
        i += 1
    shown = [(_SHOWN[n.lower()], v) for n, v in fields if n.lower() in _SHOWN]
    if not shown:
        raise BadInput("no message header lines on the page")
    return shown, i


def _last_line_starting(lines: list[str], start: int, prefixes: tuple[str, ...]) -> int | None:
    for i in range(len(lines) - 1, start - 1, -1):
        if lines[i].lstrip().startswith(prefixes):
            return i
    return None


def _trim(lines: list[str]) -> tuple[str, ...]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return tuple(lines[start:end])


def cut_lore_footer(lines: list[str], start: int) -> int:
    """Where the body ends: lore's footer (`next prev parent reply`, thread overview...)."""
    for prefix in _LORE_FOOTERS:  # the footer's first line, else a later part of it
        found = _last_line_starting(lines, start, (prefix,))
        if found is not None:
            return found
    return len(lines)


def lore_from_lines(lines: list[str], start: int) -> PageMail:
    """A lore message from the lines of its `<pre id=b>` (or text rendering) at `start`."""
    headers, body_start = parse_header_block(lines, start)
    cleaned = []
    for name, value in headers:
        tail = _LORE_TAILS.get(name)
        cleaned.append((name, tail.sub("", value) if tail else value))
    end = cut_lore_footer(lines, body_start)
    return PageMail(tuple(cleaned), _trim(lines[body_start:end]))


def parse_lore_text(text: str) -> PageMail:
    """A saved text rendering of a lore message page (like seed 004)."""
    lines = page_lines(text)
    start = 0
    for i, line in enumerate(lines[:8]):  # banner: "public inbox for ...", "help / color / ..."
        if "help / color / mirror" in line:
            start = i + 1
            break
    return lore_from_lines(lines, start)


def openwall_from_lines(lines: list[str], start: int) -> PageMail:
    """An openwall message from the lines of its `<pre>` (or text rendering) at `start`."""
    headers, body_start = parse_header_block(lines, start)
    end = len(lines)
    for prefix in _OPENWALL_FOOTERS:
        found = _last_line_starting(lines, body_start, (prefix,))
        if found is not None:
            end = min(end, found)
    body, attachments = [], []
    for line in lines[body_start:end]:
        if m := _ATTACHMENT.match(line):
            attachments.append(m.group(1))
        elif not OPENWALL_NAV.match(line):
            body.append(line)
    return PageMail(tuple(headers), _trim(body), tuple(dict.fromkeys(attachments)))


def parse_openwall_text(text: str) -> PageMail:
    """A saved text rendering of a lists.openwall.net message page (like seed 001)."""
    lines = page_lines(text)
    start = next((i for i, line in enumerate(lines[:80]) if OPENWALL_NAV.match(line)), None)
    if start is None:
        raise BadInput("openwall page without its navigation line")
    return openwall_from_lines(lines, start + 1)
