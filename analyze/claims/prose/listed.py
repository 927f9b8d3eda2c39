"""A change stated once for the tests listed under it, one claim per test:

    All of the benchmarks below have experienced around ~45% regression.
    phoronix-pts-fio-1.15.0-RandomWrite-EngineIO_uring-...
    phoronix-pts-fio-1.15.0-SequentialWrite-EngineIO_uring-...

The sentence points at a list (`the benchmarks below`, `the following tests`) and the lines
right under it are names, one a line: each test's change is the sentence's (docs/claims.md,
rule 5: one claim per mode or test a change is written for).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.claims.lexer.first_chars import compile_words

from .read import StatedChange

_POINTS_DOWN = compile_words(
    r"\b(?:benchmarks?|tests?|test ?cases?|workloads?|cases?|jobs?)\s+(?:listed\s+)?below\b"
    r"|\bfollowing\s+(?:benchmarks?|tests?|test ?cases?|workloads?|cases?|jobs?)\b", re.I)
# a test's name alone on its line: one token, or a few words with no sentence in them
_NAME = re.compile(r"^\s*(?:[-*•]\s+)?([A-Za-z][\w.,:+/=\-]{2,120})\s*$")
_MAX_NAMES = 20


def spread_over_list(lines: Sequence[str], changes: Sequence[StatedChange]) -> list[StatedChange]:
    """The changes, each one a sentence states for the list under it made one per name."""
    out: list[StatedChange] = []
    for change in changes:
        names = _listed(lines, change) if _POINTS_DOWN.search(change.quote) else []
        if len(names) < 2:
            out.append(change)
            continue
        out += [replace(change, condition=(*change.condition, ("benchmark", name)))
                for name in names]
    return out


def _listed(lines: Sequence[str], change: StatedChange) -> list[str]:
    """The names on the lines right under the change's sentence (its last line first)."""
    i = change.line
    while i < len(lines) and lines[i].strip() and not lines[i].rstrip().endswith((".", ":")):
        i += 1  # to the line the sentence ends on
    names = []
    for line in lines[i + 1:i + 1 + _MAX_NAMES]:
        m = _NAME.match(line)
        if m is None:
            break
        names.append(m.group(1))
    return names
