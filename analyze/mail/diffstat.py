"""Find the diffstat block a mail carries, as written (cover letters, format-patch output).

    net/sched/act_police.c | 186 +++++++++++++++++++++++------------------
    1 file changed, 106 insertions(+), 80 deletions(-)

(seed 001). Only unquoted lines count: a diffstat quoted in a reply belongs to the mail quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.model import Diffstat, DiffstatFile

# ` path | 186 +++--`; git pads the path and may shorten it to `.../tail`. The graph is
# optional: a file with changes can have a count wider than the graph allows, and
# `| 0` is written for a mode-only change.
# (counts of at most 18 digits: int() refuses 4,301, and no diff has more than 18)
_FILE = re.compile(r"\s*(?P<path>\S(?:.*\S)?)\s+\|\s+(?P<n>\d{1,18})(?: (?P<graph>[+-]*))?\s*")
# ` pixel.bmp | Bin 0 -> 142 bytes` (Patchwork's fixture 0025).
_BIN = re.compile(r"\s*(?P<path>\S(?:.*\S)?)\s+\|\s+Bin(?: \d+ -> \d+ bytes)?\s*")
# ` 1 file changed, 106 insertions(+), 80 deletions(-)`; either count may be left out
# when it is zero, and old git wrote `1 files changed`.
_SUMMARY = re.compile(
    r"\s*(?P<files>\d{1,18}) files? changed"
    r"(?:, (?P<ins>\d{1,18}) insertions?\(\+\))?"
    r"(?:, (?P<del>\d{1,18}) deletions?\(-\))?\s*"
)
_MAX_LINE = 1024


def find_diffstat(lines: Sequence[str], depths: Sequence[int]) -> Diffstat | None:
    """Return the first diffstat block at quote depth 0, or None.

    A block is a run of file lines (`path | N +-`, `path | Bin ...`), usually closed by the
    `N files changed` summary line. Totals come from the summary; with no summary they are
    None, and a count it leaves out is 0.
    """
    if not any("|" in line for line in lines):
        return None
    files: list[DiffstatFile] = []
    graphs = False
    for line, depth in zip(lines, depths, strict=False):
        entry = _file_line(line) if depth == 0 and "|" in line else None
        if entry is not None:
            files.append(entry[0])
            graphs = graphs or entry[1]
            continue
        summary = _SUMMARY.fullmatch(line) if depth == 0 and "changed" in line else None
        if summary is not None:
            return Diffstat(
                files=tuple(files),
                added=int(summary["ins"] or 0),
                removed=int(summary["del"] or 0),
            )
        # Without a graph a run of `x | 3` lines is too likely a table in prose.
        if files and graphs:
            return Diffstat(files=tuple(files), added=None, removed=None)
        files, graphs = [], False
    if files and graphs:
        return Diffstat(files=tuple(files), added=None, removed=None)
    return None


def _file_line(line: str) -> tuple[DiffstatFile, bool] | None:
    """The file of one diffstat line, and whether the line looks unmistakably like one."""
    # git writes these lines about 80 columns wide; the length cap also keeps the path
    # pattern's backtracking cheap on hostile lines of spaces.
    if len(line) > _MAX_LINE or line.count("|") != 1:
        return None
    match = _FILE.fullmatch(line)
    if match is not None:
        return DiffstatFile(path=match["path"], changed=int(match["n"])), bool(match["graph"])
    match = _BIN.fullmatch(line)
    if match is not None:
        return DiffstatFile(path=match["path"], changed=None), True
    return None
