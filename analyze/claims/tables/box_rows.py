"""A box table whose rows run over two lines, read as one line a row.

Box tables drawn with rules (`+-----+-----+`) often give a row two lines: a name and its
setting (`ZWP` over `mq-deadline`), a figure and its change under it (`183` over `(-0%)`), a
column's name and its unit (`seqw4K1` over `(MB/s)`). Between two rules, lines whose pipes
stand in the same places are one row: each cell's text is the texts of its lines joined.
The first line of the row holds the joined row and the others become rules, so the row's
line number stays the first line's and the table's readers read it as any one-line row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.tables.pipe_runs import RULE, pipe_runs, plain_rules

_MAX_LINE = 400
_MAX_ROWS = 400
_MAX_ROW_LINES = 3
_PERCENT_ONLY = re.compile(r"\(?\s*[-+]?\d[\d.,]*\s*%\s*\)?")


def _pipes(line: str) -> tuple[int, ...]:
    return tuple(i for i, ch in enumerate(line) if ch == "|")


_FIGURE = re.compile(r"(?<![\w.%])\d[\d.,]*(?![\d.,]*\s*%)")


def _complete(line: str) -> bool:
    """A line that is a whole row: a label and a figure (not a change) in every cell."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return len(cells) > 1 and bool(cells[0]) and all(
        c and _FIGURE.search(c) is not None for c in cells[1:])


def _assemble(cells: Sequence[str], lead: str) -> str:
    if lead:
        # (a header indented over the rows' name column keeps its indent)
        return lead + "|" + "|".join(f" {c} " if c else "" for c in cells[1:])
    return "|".join(f" {c} " if c else "" for c in cells)


def _groups(lines: Sequence[str], start: int, end: int) -> list[tuple[int, int]]:
    """The runs of lines between the rules of one table."""
    out = []
    i = start
    while i < end:
        if RULE.match(lines[i]):
            i += 1
            continue
        j = i
        while j < end and not RULE.match(lines[j]):
            j += 1
        out.append((i, j))
        i = j
    return out


def merged_box_rows(lines: Sequence[str]) -> Sequence[str]:
    """`lines` with each box-table row of several lines made one line (see the module) and
    each rule drawn with other corners made `+---+` (`pipe_runs.plain_rules`); `lines`
    itself when there is neither.

    A table rules off each row only when its rows run over several lines: it has two rows
    or more of two or three lines between rules, and no longer run (a table ruled only
    under its header and at its end holds one row a line)."""
    lines = plain_rules(lines)
    out: list[str] | None = None
    for start, end in pipe_runs(lines, _MAX_LINE, _MAX_ROWS):
        if not any(RULE.match(lines[i]) for i in range(start, end)):
            continue
        groups = [(i, j) for i, j in _groups(lines, start, end)
                  if j < end and (i == start or RULE.match(lines[i - 1]))]
        long = [(i, j) for i, j in groups if j - i >= 2]
        if long and groups and long[0] == groups[0] and long[0][1] - long[0][0] > _MAX_ROW_LINES:
            long = long[1:]  # (a header of many lines over rows of two: left as it is)
        if len(long) < 2 or any(j - i > _MAX_ROW_LINES for i, j in long):
            continue
        for i, j in long:
            group = lines[i:j]
            if len({_pipes(line) for line in group}) != 1:
                continue  # (the lines of one row keep their pipes in the same places)
            if all(_complete(line) for line in group):
                continue  # (rows of a table ruled only round its header and its end)
            if out is None:
                out = list(lines)
            parts = [line.split("|") for line in group]
            # (a cell's change after its figure, as one-line rows write it: `+15%` over
            # `6.0` is `6.0 +15%`)
            cells = [" ".join(sorted((p[k].strip() for p in parts if p[k].strip()),
                                     key=lambda t: _PERCENT_ONLY.fullmatch(t) is not None))
                     for k in range(len(parts[0]))]
            out[i] = _assemble(cells, parts[0][0] if not parts[0][0].strip() else "")
            for k in range(i + 1, j):
                out[k] = lines[j]  # (the rule under the row: the readers skip it)
    return lines if out is None else out
