"""A row or labelled line that prints a run's spread, not its result.

Rule 4 of the definition (docs/claims.md): the spread of a run (its minimum, maximum,
standard deviation) is never a claim, even printed before and after (sockperf's `<MIN> observation`, a `min:` line of a
latency histogram, `stddev` under a table's mean). The label before the row's first figure
says which it is; a label that goes on to name a result (`Max IOPS`, `max throughput`) is
a peak the author measured, and stays.
"""

from __future__ import annotations

import re

from analyze.claims.lexer.quantity import Measurement

_SPREAD = re.compile(
    r"^[^\w<]*<?(?:min|max|minimum|maximum|std[-_. ]?dev\w*|stdev|variance|sigma)>?"
    r"(?:\s+(?:observation|value|lat(?:ency)?))?[\s:=|()]*$",
    re.IGNORECASE,
)
_TOOL_PREFIX = re.compile(r"^[\w.-]+:\s*(?:-+>\s*)?")


def is_spread(lines: tuple[str, ...] | list[str], m: Measurement) -> bool:
    """True when the pair's label names a spread, not a result."""
    if not 0 <= m.line < len(lines):
        return False
    label = lines[m.line][:m.baseline.start]
    if len(label) > 60:
        return False
    return bool(_SPREAD.match(_TOOL_PREFIX.sub("", label.strip(), count=1)))
