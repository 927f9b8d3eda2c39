"""Saved HTML archive pages (lore, openwall) down to their text, then page_text's parsers.

Parsed with BeautifulSoup over lxml, never with regular expressions: lore splits attributes
across lines (`<pre\\nid=b>`, `<a\\nhref=...>`; docs/sources.md).
"""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

from analyze.errors import BadInput, LimitExceeded

from .page_text import PageMail, lore_from_lines, openwall_from_lines, page_lines

_ATTACHMENT_LINK = re.compile(r'(?:View|Download) attachment "([^"]*)"')


# BeautifulSoup keeps an object of about 500 bytes per tag: 15 MiB of empty `<b>` took 1 GB
# and 25 s. A lore page of a 1 MB patch has about 50,000 tags.
MAX_TAGS = 500_000


def html_soup(data: bytes) -> BeautifulSoup:
    """A page parsed by lxml under BeautifulSoup. Lore pages are ASCII with &#NNNN;
    entities, openwall pages UTF-8 (docs/sources.md)."""
    if data.count(b"<") > MAX_TAGS:
        raise LimitExceeded("page", MAX_TAGS, "tags")
    # A page is whatever a server (or a saved file) holds: an Atom feed saved as .html, or a
    # body that looks like a file name, is read as HTML all the same, and bs4's advice about
    # it would be a page of text on the user's terminal.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        return BeautifulSoup(data, "lxml", from_encoding="utf-8")


def parse_lore_html(data: bytes) -> PageMail:
    """A lore message page: header lines and body from `<pre id=b>`, quotes as plain text."""
    soup = html_soup(data)
    pre = soup.find("pre", id="b")
    if pre is None:
        raise BadInput("lore page without a message (no <pre id=b>)")
    parts = [pre.get_text()]
    # the body may sit in further <pre> blocks before the <hr> that opens the footer
    for sibling in pre.find_next_siblings():
        if sibling.name == "hr" or sibling.get("id") == "R":
            break
        if sibling.name == "pre":
            parts.append(sibling.get_text())
    return lore_from_lines(page_lines("\n".join(parts)), 0)


def parse_openwall_html(data: bytes) -> PageMail:
    """An openwall message page: the `<pre style="white-space: pre-wrap">` block."""
    soup = html_soup(data)
    pre = soup.find("pre", style=lambda s: bool(s) and "pre-wrap" in s)
    if pre is None:
        raise BadInput("openwall page without a message (no pre-wrap <pre>)")
    page = openwall_from_lines(page_lines(pre.get_text()), 0)
    # attachment links may sit outside the <pre>; note their names, never fetch them
    names = list(page.attachments)
    names += (m.group(1) for m in _ATTACHMENT_LINK.finditer(soup.get_text()))
    return PageMail(page.headers, page.body, tuple(dict.fromkeys(names)))
