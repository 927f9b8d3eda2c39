"""Tables whose cells hold both sides: `216 vs 183`.

    Runtime comparison: original code vs with the patch for different rps_flow_cnt values.
    | rps_flow_cnt                  |      512     |    2048      |
    | CPU User                      | 216 vs 183   | 216 vs 206   |
    | aRFS Update                   | 533K vs 59   | 521K vs 32   |

Which side of `vs` is which comes from the caption above, written the same way round
(`original code vs with the patch`): without a caption that names the sides, nothing is
read. Only rows whose label names a performance metric (CPU, latency, throughput...) are
claims; rows of counters (`aRFS Update`) support them. A header row of figures names the
condition of each column (`rps_flow_cnt` 512, 2048).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.block_text import joined
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement
from analyze.claims.lexer.units import metric_of

from .roles import BASELINE, PATCHED, role_of, unit_in_text, with_unit

_MAX_LINE = 400
_CAPTION_REACH = 4  # lines above the table its caption may stand
_VS = re.compile(r"\s+(?:vs\.?|versus)\s+", re.I)
_SIDES = re.compile(r"(.{2,80}?)\s+(?:vs\.?|versus)\s+(.{2,80})", re.I)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _sides(lines: Sequence[str], first: int) -> bool | None:
    """Whether the caption over the table at `first` writes the baseline before `vs` (True),
    after it (False), or names no side (None)."""
    for i in range(first - 1, max(-1, first - _CAPTION_REACH), -1):
        m = _SIDES.search(lines[i])
        if m is None:
            continue
        left, right = role_of(m.group(1)), role_of(m.group(2))
        if left == BASELINE or right == PATCHED and left != PATCHED:
            return True
        if left == PATCHED or right == BASELINE:
            return False
    return None


def find_vs_cells(lines: Sequence[str]) -> list[Measurement]:
    """The pairs of the `A vs B` cells of the pipe tables of a block (see the module)."""
    out: list[Measurement] = []
    text = joined(lines)
    if "|" not in text or not _VS.search(text):
        return out
    i, n = 0, len(lines)
    while i < n:
        if "|" not in lines[i] or len(lines[i]) > _MAX_LINE or not _VS.search(lines[i]):
            i += 1
            continue
        start = i
        while start > 0 and ("|" in lines[start - 1] or lines[start - 1].startswith("+-")):
            start -= 1
        end = i
        while end < n and ("|" in lines[end] or lines[end].startswith("+-")):
            end += 1
        out += _table(lines, start, end)
        i = end
    return out


def _table(lines: Sequence[str], start: int, end: int) -> list[Measurement]:
    baseline_first = _sides(lines, start)
    if baseline_first is None:
        return []
    header: list[str] = []
    out = []
    for r in range(start, end):
        line = lines[r]
        if "|" not in line:
            continue
        cells = _cells(line)
        if not _VS.search(line):
            if not header and len(cells) > 1:
                header = cells
            continue
        label = cells[0]
        if metric_of(None, label) == "other":
            continue  # a counter's row: it supports the result
        for k, cell in enumerate(cells[1:], 1):
            parts = _VS.split(cell)
            if len(parts) != 2:
                continue
            left, right = (find_quantities(part) for part in parts)
            if len(left) != 1 or len(right) != 1:
                continue
            base, patched = (left[0], right[0]) if baseline_first else (right[0], left[0])
            unit = base.unit or patched.unit or unit_in_text(label)
            named = k < len(header) and header[k]
            condition = ((header[0].lower() or "case", header[k]),) if named else ()
            out.append(Measurement(
                baseline=with_unit(base, unit), patched=with_unit(patched, unit), source="table",
                line=r, quote=line.rstrip(), unit=unit, stated=None, condition=condition,
                context=label,
            ))
    return out

