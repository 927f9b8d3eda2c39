"""The runs of pipe-table lines in a block, for the readers of pipe tables.

A run is consecutive lines each with two pipes or more, or a box table's rule between them
(`+------+------+`), no line longer than `max_line`, at most `max_rows` lines. The readers
that read one kind of pipe table each (`variant_rows.py`, `prefixed_rows.py`) take the runs
from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from analyze.claims.block_text import joined

RULE = re.compile(r"\s*[+|]?(?:[-=]+[+|])+[-=]*\s*$")


def pipe_runs(lines: Sequence[str], max_line: int, max_rows: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of pipe-table lines (see the module)."""
    if "|" not in joined(lines):
        return
    i, n = 0, len(lines)
    while i < n:
        if lines[i].count("|") < 2 or len(lines[i]) > max_line:
            i += 1
            continue
        end = i
        while end < n and end - i < max_rows and len(lines[end]) <= max_line \
                and (lines[end].count("|") >= 2 or RULE.match(lines[end])):
            end += 1
        yield i, end
        i = end
