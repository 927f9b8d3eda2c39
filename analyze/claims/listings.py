"""Lines of a numbered source listing: code quoted by line number, never figures.

The kernel test robot quotes the code a warning is about as `vim +1271 file.c` followed by
the file's lines, each led by its number and a tab (`  1265\t *`); a reviewer pastes an
editor's view of a patch the same way (`311 + return dst;`). Three lines or more in a row,
each opening with the number of the one before plus one and then a tab, a diff's `+`/`-`
or nothing, are such a listing: their numbers say where the code stands, and a reader that
pairs lines by shape would pair `401` with `405`. The rows of a sweep (`1 write: IOPS=...`,
`2 write: ...`) are written with blanks and figures after their number, and stay. The list
reader also leaves out five numbered lines or more, most of them code (`  6900
while (!kthread_should_stop()) {`): `code_listing_lines`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.block_text import joined

_NUMBERED = re.compile(r"^[\s>@]*(\d{1,6})(?:\t|\s[+*-](?![\d.])|\s*$)")
_ANY_NUMBERED = re.compile(r"^[ >@\t]*\d{1,6}(?:\t|[ ][+*-](?![\d.])|[ \t]*$)", re.M)
_RUN = 3


def listing_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indexes of `lines` that belong to a numbered listing (numbered one after the
    other, each number followed by a tab, a diff's marker or nothing): never read."""
    if not _ANY_NUMBERED.search(joined(lines)):
        return frozenset()  # (most blocks: one scan in C)
    out: set[int] = set()
    run: list[int] = []
    last: int | None = None
    for i, line in enumerate(lines):
        m = _NUMBERED.match(line) if line[:12].lstrip(" >@\t")[:1].isdigit() else None
        n = int(m.group(1)) if m else None
        if n is not None and last is not None and n == last + 1 and run and run[-1] == i - 1:
            run.append(i)
        else:
            if len(run) >= _RUN:
                out.update(run)
            run = [i] if n is not None else []
        last = n
    if len(run) >= _RUN:
        out.update(run)
    return frozenset(out)


# a line of source code under its line number (a checker's report, a quoted listing):
# `  6900          while (!kthread_should_stop()) {`, or the number alone on a blank line
_NUMBERED_LINE = re.compile(r"^\s*\d{1,6}(?:\s{2,}(\S.*))?\s*$")
_CODE = re.compile(r"[;{}]|/\*|\*/|\b(?:if|for|while|return|struct|static|int|void)\b|->|\w\(")
_MIN_LISTING = 5
_LISTING_HINT = re.compile(r"^[ \t]*\d{1,6}[ \t]{2,}\S[^\n]*[;{}]", re.M)


def code_listing_lines(lines: Sequence[str]) -> set[int]:
    """The lines of a numbered source listing by a looser rule, for the list reader only (a
    fio sweep's `1   write: ...);` rows would pass it): runs of at least five numbered
    lines, most of them code."""
    out: set[int] = set()
    if not _LISTING_HINT.search(joined(lines)):
        return out  # (most blocks: no numbered line of code)
    run: list[int] = []
    code = 0
    for i, line in enumerate([*lines, "x"]):
        m = _NUMBERED_LINE.match(line) if line[:12].strip()[:1].isdigit() else None
        if m is not None:
            run.append(i)
            code += bool(m.group(1) and _CODE.search(m.group(1)))
            continue
        if len(run) >= _MIN_LISTING and code * 2 >= len(run):
            out.update(run)
        run, code = [], 0
    return out


# binutils' `size`: `text data bss dec hex filename` over a line an object file
_SIZE_HEADER = re.compile(r"^\s*text\s+data\s+bss\s+dec\s+hex\s+filename\s*$", re.I)
_SIZE_HINT = re.compile(r"\btext\s+data\s+bss\b", re.I)


def code_size_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indexes of `lines` that print code sizes: binutils' `size` output under its
    header, to the first blank line, and what the header's paragraph sums of it (`total data:
    2373`). Code sizes are no performance figures (docs/claims.md), before and after alike."""
    if not _SIZE_HINT.search(joined(lines)):
        return frozenset()
    out: set[int] = set()
    for i, line in enumerate(lines):
        if not _SIZE_HEADER.match(line):
            continue
        j = i
        while j < len(lines) and lines[j].strip():
            out.add(j)
            j += 1
    return frozenset(out)


# lspci -vv's capability keys: a device's description, a line each (a long one wraps)
_DEVICE_KEY = re.compile(r"^\s*(?:LnkCap|LnkSta|LnkCtl|DevCap|DevCtl|DevSta|Capabilities: \[)")
_DEVICE_LINES = 3  # keys enough to call a stretch of lines a device dump


def device_dump_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indexes of `lines` in an lspci dump: from its first capability key to the line
    after its last (where a wrapped line's tail stands, `<512ns, L1 <16us`). What a device
    is (its link's exit latencies, its payload sizes) is no performance figure."""
    if "Cap" not in joined(lines):
        return frozenset()
    keyed = [i for i, line in enumerate(lines) if _DEVICE_KEY.match(line)]
    if len(keyed) < _DEVICE_LINES:
        return frozenset()
    return frozenset(range(keyed[0], min(len(lines), keyed[-1] + 2)))
