"""The runs of pipe-table lines in a block, for the readers of pipe tables.

`pipe_cells` splits a row into its cells, each with where it stands.

A run is consecutive lines each with two pipes or more, or a box table's rule between them
(`+------+------+`), no line longer than `max_line`, at most `max_rows` lines. The readers
that read one kind of pipe table each (`variant_rows.py`, `prefixed_rows.py`) take the runs
from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from analyze.claims.block_text import joined


class Cell(NamedTuple):
    """A cell's span in its line and its text (a table has many: a tuple is cheap to make)."""

    start: int
    end: int
    text: str


MAX_COLUMNS = 64  # more header cells than this is not a table a person wrote
_MAX_CELLS = MAX_COLUMNS * 4 + 1  # a longer row of pipes is cut here


def pipe_cells(line: str) -> list[Cell]:
    """The cells of a pipe row, each with where it stands: the text between two pipes, and
    before the first or after the last when the row does not open or close with one."""
    cells: list[Cell] = []
    start = 0
    for part in line.split("|", _MAX_CELLS)[:_MAX_CELLS]:
        end = start + len(part)
        cells.append(Cell(start, end, part.strip()))
        start = end + 1
    if cells and not cells[0].text and line.lstrip().startswith("|"):
        cells = cells[1:]
    if cells and not cells[-1].text and line.rstrip().endswith("|"):
        cells = cells[:-1]
    return cells


RULE = re.compile(r"\s*[+|]?(?:[-=]+[+|])+[-=]*\s*$")
# A rule drawn with other corners: `x-----x-----x`, `o=====o`, `*-----*`, `-----.-----.`, or the box-drawing
# characters (`├─────┼─────┤`). The corners are told from words by standing between runs of
# at least three dashes, so `x-axis` or a `---` line is no rule.
_DRAWN_RULE = re.compile(r"\s*[xXo*+|.'├┌└┬┴┼╋╬]?(?:[-=─━═]{3,}[xXo*+|.'├┤┌┐└┘┬┴┼╋╬])+[-=─━═]*\s*$")
_PLAIN = str.maketrans({**dict.fromkeys("xXo*.'├┤┌┐└┘┬┴┼╋╬", "+"), **dict.fromkeys("─━", "-"),
                        "═": "="})


def plain_rules(lines: Sequence[str]) -> Sequence[str]:
    """`lines` with each rule drawn with other corners (`x----x----x`, `├───┼───┤`) written
    `+----+----+`, character for character, so the table readers know one kind of rule;
    `lines` itself when there is none."""
    out: list[str] | None = None
    for i, line in enumerate(lines):
        if "--" not in line and "─" not in line and "━" not in line and "==" not in line \
                and "═" not in line:
            continue
        if not RULE.match(line) and _DRAWN_RULE.match(line):
            if out is None:
                out = list(lines)
            out[i] = line.translate(_PLAIN)
    return lines if out is None else out


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
