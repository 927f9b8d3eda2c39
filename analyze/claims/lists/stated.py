"""Changes stated per test in a list, without their figures:

  TCP_RR:      +4.1%
  TCP_CRR:     +2.0%
  - UDP_STREAM: -0.3% (noise)

A line is a test or metric name (`metric_of` must know what it measures), a colon, and a
signed percentage, with at most a short remark in brackets after it. An unsigned figure
(`CPU: 45%`) is a level, not a change; a name that measures nothing known (`v2: +10%`) is
not a result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.units import metric_of
from analyze.claims.prose.read import StatedChange

_MAX_LINE = 200
_NAMED = re.compile(r"\s*(?:[-*•]\s+)?([A-Za-z][\w .\-/()]{0,40}?)\s*:\s*(?=[+\-−])")
_REMARK = re.compile(r"\s*(?:\([^()]{0,40}\))?\s*$")


def find_stated_lines(lines: Sequence[str]) -> list[StatedChange]:
    out = []
    for i, line in enumerate(lines):
        if len(line) > _MAX_LINE or "%" not in line:
            continue
        m = _NAMED.match(line)
        if m is None:
            continue
        name = m.group(1).strip()
        figures = [q for q in find_quantities(line) if q.start >= m.end()]
        if not figures:
            continue
        q = figures[0]
        if q.start != m.end() or q.kind != "percent" or q.sign is None:
            continue
        if not _REMARK.match(line, q.end) or metric_of(None, name) == "other":
            continue
        out.append(StatedChange(stated=q, line=i, quote=line.strip(), context=name,
                                condition=(("measure", name),)))
    return out
