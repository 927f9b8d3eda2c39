"""Mail text made inert for terminals and HTML.

Subjects and bodies are written by strangers: an ESC sequence could retitle the terminal or
hide a line, a bidi override could reorder what a reviewer reads. Every string from a mail
goes through `inert()` before it reaches a terminal; rich renders it as a `Text`, never as
markup, so `[bold red]` stays literal.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls, line and paragraph separators, and
# every format character (Unicode's Cf: bidi marks, embeddings, overrides and isolates, the
# soft hyphen, zero-width space, word joiner, BOM, invisible operators, tag characters,
# interlinear annotations, the Mongolian vowel separator...) but the two joiners (U+200C,
# U+200D), which scripts and emoji need to read right and which hide nothing.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


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


def json_text(doc: Any) -> str:
    """A document as the JSON the contract promises: indented, UTF-8, every control written
    as an escape (inert_json), and no `Infinity` or `NaN`, which are not JSON: a number no
    float holds (a store written before such figures were refused) is null."""
    return inert_json(json.dumps(_finite(doc), indent=2, ensure_ascii=False, allow_nan=False))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def inert_json(text: str) -> str:
    """JSON text with the same characters written as `\\uXXXX` escapes: still the same JSON
    value, but nothing in it can act on a terminal it is printed to."""
    return _UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON escapes a character beyond the BMP as its UTF-16 surrogate pair
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"
