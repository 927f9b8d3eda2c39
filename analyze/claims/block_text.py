"""A block's lines joined into one text, kept for the block being read.

The readers walk a block line by line in Python; most blocks hold nothing a given reader
wants. Searching the joined text once with a regular expression (at C speed) tells a reader
whether the walk is worth it. Only a tuple of lines is kept (a list may change between
calls): `analyze/claims/extract.py` hands every reader the same tuple of a block.
"""

from __future__ import annotations

from collections.abc import Sequence

_LAST: list[tuple[Sequence[str], str]] = []


def joined(lines: Sequence[str]) -> str:
    """The lines joined with newlines (the last block's answer is kept)."""
    if _LAST and _LAST[0][0] is lines:
        return _LAST[0][1]
    text = "\n".join(lines)
    if isinstance(lines, tuple):
        _LAST[:] = [(lines, text)]
    return text
