"""Values found in mail text: a figure with its unit, and a before/after pair of them.

`numbers.py` finds Quantities in a line; the readers of tables, lists and prose
(`analyze/claims/tables/`, `lists/`, `prose/`) pair them into Measurements;
`analyze/claims/extract.py` turns those into Claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Quantity:
    """One figure as written: `3518448`, `35,5 Mpps`, `+(4.68%)`, `~2.2K-8.7K`, `2x`."""

    value: float  # as written in `unit`, signed: separators removed, decimal comma read, SI prefix NOT applied
    text: str  # the exact span of the line
    start: int  # offsets of the span in the line
    end: int
    kind: str  # number | percent | ratio | range | duration
    unit: str | None = None  # as written: Mpps, pps, trans./sec, %, x, ns, MB/sec, ...
    canonical_unit: str | None = None  # pps, bit/s, B/s, trans/s, ops/s, s, cycles, %, B, x
    canonical_value: float | None = None  # value in canonical_unit (prefixes applied)
    bound: str | None = None  # lower (more than, over, at least, >), upper (up to, <), approx (~, about)
    sign: int | None = None  # +1 / -1 when a sign is written (`+(4.68%)`, `- 8.4%`); value carries it
    high: float | None = None  # the upper end of a range, in `unit`


@dataclass(frozen=True, slots=True)
class Measurement:
    """A before/after pair read from a table, a list or a sentence."""

    baseline: Quantity
    patched: Quantity
    source: str  # table | list | prose
    line: int  # index of the line the pair was read from (0-based, in the lines given)
    quote: str  # the exact text: the row, the list lines or the sentence
    unit: str | None = None  # as written, from the cells or else from a header or caption
    stated: Quantity | None = None  # the change the mail states (percent or ratio), if any
    condition: tuple[tuple[str, str], ...] = ()  # what varies: (("threads", "4"),)
    context: str = ""  # words around the figures (header, caption) that tell the metric
    # every run of each side as written, when a side gives several (baseline and patched
    # are then the stated mean, else the first run: docs/claims.md, rule 4)
    runs: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    # what the table's own signs say of its figures, when they say it (a fall printed as a
    # gain: lower is better); None: the unit and metric decide
    lower_is_better: bool | None = None


def is_spread(q: Quantity) -> bool:
    """A spread printed after a figure (`± 0.019M/s`, `+- 3`), not a figure of its own."""
    return q.sign is None and q.text.lstrip().startswith(("±", "+-", "+/-"))


# an open call's bracket before a figure: `in_range(10, 40)`, `foo(1 << 20,`
_OPEN_CALL = re.compile(r"[A-Za-z_]\w*\([^()]*$")


def is_argument(line: str, q: Quantity) -> bool:
    """A figure written as an argument of a call (`Before: in_range(10, 40)`): code or a
    test's output, never a measurement."""
    return "(" in line and _OPEN_CALL.search(line, max(0, q.start - 120), q.start) is not None
