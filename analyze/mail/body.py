"""Body lines: quote depth, signature and mailing-list footers.

A quote level is one `>` plus at most one following space, so seed 004's `>>>  out:` is the
context line ` out:` of a hunk quoted three levels deep. Lines are kept as sent: unflowing
`format=flowed` would join diff and table lines.
"""

from __future__ import annotations

import re

from analyze.model import Body

_QUOTE = re.compile(r"(?:> ?)+")

# Footers vger appended to netdev mail until 2019 (seen on every 2015 post) and Mailman's.
_FOOTER_STARTS = (
    "To unsubscribe from this list:",
    "_______________________________________________",
)


def quote_depth(line: str) -> int:
    """How many quote levels a line carries."""
    if not line.startswith(">"):
        return 0
    match = _QUOTE.match(line)
    assert match is not None
    return match.group(0).count(">")


def strip_quote(line: str, depth: int) -> str:
    """The line without its first `depth` quote levels."""
    pos = 0
    for _ in range(depth):
        if pos < len(line) and line[pos] == ">":
            pos += 1
            if pos < len(line) and line[pos] == " ":
                pos += 1
    return line[pos:]


def split_lines(text: str) -> tuple[str, ...]:
    """Lines as sent; CRLF and lone CR read as line ends, the final newline dropped."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return tuple(text.split("\n")) if text else ()


def make_body(text: str) -> Body:
    """A Body from decoded text: lines, depths, signature and footer positions."""
    lines = split_lines(text)
    depths = tuple(quote_depth(line) if line[:1] == ">" else 0 for line in lines)
    footer = None
    signature = None
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if depths[i]:
            continue
        if footer is None and line.startswith(_FOOTER_STARTS):
            footer = i
            # vger's footer came after a bare `--` line of its own
            if i and lines[i - 1].rstrip() == "--":
                footer = i - 1
            continue
        if line == "-- " and (footer is None or i < footer):
            signature = i
            break
    return Body(lines=lines, depths=depths, signature_start=signature, footer_start=footer)
