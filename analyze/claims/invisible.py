"""Characters a reader does not see, taken out of the text the claim readers read.

A soft hyphen in `9\u00ad Mpps`, a zero-width space in `5\u200b000000`, a strike-through
mark on `1\u0336` change nothing a person reads, but a lexer stops at them and reads another
number (`5\u200b000000` as 5). So every format character (Unicode category Cf: soft hyphen,
zero-width and joiner characters, bidi marks and overrides, the BOM, tag characters,
interlinear annotation marks...) is removed, and so are combining marks written on a digit.
Renderers still show these characters escaped (reports/safe.py): reading through them is
for figures only.
"""

from __future__ import annotations

import re

# Every code point of category Cf in Unicode 15 (tests/test_hostile_numbers.py checks the
# list against unicodedata, which would cost 0.3 s to walk at each import).
FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
# The combining-mark blocks (diacriticals, their extensions and supplements, the marks for
# symbols, half marks): on a digit they are decoration, as U+0336's strike-through is.
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_HIDDEN = re.compile(f"[{FORMAT}]+|(?<=[0-9])[{_COMBINING}]+")


def visible(line: str) -> str:
    """The line without format characters and without the combining marks on its digits."""
    if line.isascii():  # (most lines: no format or combining character can be there)
        return line
    return _HIDDEN.sub("", line) if _HIDDEN.search(line) else line
