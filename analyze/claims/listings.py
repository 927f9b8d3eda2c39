"""Lines of a numbered source listing: code quoted by line number, never figures.

The kernel test robot quotes the code a warning is about as `vim +1271 file.c` followed by
the file's lines, each led by its number and a tab (`  1265\t *`); a reviewer pastes an
editor's view of a patch the same way (`311 + return dst;`). Three lines or more in a row,
each opening with the number of the one before plus one and then a tab, a diff's `+`/`-`
or nothing, are such a listing: their numbers say where the code stands, and a reader that
pairs lines by shape would pair `401` with `405`. The rows of a sweep (`1 write: IOPS=...`,
`2 write: ...`) are written with blanks and figures after their number, and stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NUMBERED = re.compile(r"^[\s>@]*(\d{1,6})(?:\t|\s[+*-](?![\d.])|\s*$)")
_RUN = 3


def listing_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indexes of `lines` that belong to a numbered listing."""
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
