"""Mail text made inert for terminals and HTML.

Subjects and bodies are written by strangers: an ESC sequence could retitle the terminal or
hide a line, a bidi override could reorder what a reviewer reads. Every string from a mail
goes through `inert()` before it reaches a terminal; rich renders it as a `Text`, never as
markup, so `[bold red]` stays literal.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, the Arabic letter mark, line and
# paragraph separators, bidi marks, embeddings, overrides and isolates.
_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str | None) -> str:
    """`text` with every control and bidi character shown as a visible escape (`\\x1b`)."""
    if not text:
        return ""
    return _UNSAFE.sub(_escape, text)


def one_line(text: str | None, width: int | None = None) -> str:
    """Inert text on one line, optionally cut to `width` characters with an ellipsis."""
    flat = inert(text).replace("\t", " ").replace("\n", " ")
    if width and len(flat) > width:
        return flat[: width - 1] + "…"
    return flat


def inert_json(text: str) -> str:
    """JSON text with the same characters written as `\\uXXXX` escapes: still the same JSON
    value, but nothing in it can act on a terminal it is printed to."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
