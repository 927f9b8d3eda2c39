"""Counters of two `perf stat` runs, one labelled before and one after, paired by event.

 Performance counter stats for 'taskset -c 3 ./xsk_tx' (5 runs):

          1,823.41 msec task-clock                #    0.998 CPUs utilized    ( +-  0.41% )
     5,201,339,870      cycles                    #    2.853 GHz              ( +-  0.38% )
     <not counted>      branch-misses
           1.82703 +- 0.00751 seconds time elapsed  ( +-  0.41% )

Each event is a named quantity, keyed by `measure` = the event name without its unit
(`task-clock`, `cycles`, `time elapsed`). What follows `#` and `( +- x% )` is derived from the
count (rate, IPC, run-to-run spread), not a result of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.block_text import joined
from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement

from .roles import BASELINE, PATCHED, figure, probe_unit, role_of, with_unit

_MAX_LINE = 300
_MAX_HEADER = 400
_HEADER = compile_words(r"Performance counter stats for", re.I)  # searched in every line
_TIME_UNITS = r"msec|usec|nsec|ms|us|ns|seconds|secs|sec"
_LINE = re.compile(
    r"^\s*(?:(?P<value>\d[\d,.]*)|<not (?:counted|supported)>)\s+(?:\+-\s*[\d.,]+\s+)?"
    rf"(?:(?P<unit>{_TIME_UNITS})\s+)?"
    r"(?P<event>time elapsed|[A-Za-z][\w\-./:=,]*(?: (?:user|sys))?)(?:\s+[#(].*)?\s*$"
)


@dataclass(frozen=True, slots=True)
class _PerfBlock:
    start: int  # first line of the block (its header, if any)
    role: str | None
    events: dict[str, tuple[int, str | None]]  # event name → (line index, unit word)


def _role(lines: Sequence[str], start: int, floor: int) -> str | None:
    """Before or after: the header's own words (`'./bench' (vanilla)`), else a short caption
    in the two non-blank lines above (`Before:`, `old kernel:`)."""
    own = role_of(lines[start]) if _HEADER.search(lines[start][:_MAX_HEADER]) else None
    if own in (BASELINE, PATCHED):
        return own
    seen = 0
    for k in range(start - 1, max(floor, start - 6) - 1, -1):
        text = lines[k].strip()
        if not text:
            continue
        role = role_of(text) if len(text) <= 120 else None
        if role in (BASELINE, PATCHED):
            return role
        seen += 1
        if seen >= 2:
            break
    return None


# `_LINE` anywhere in a block's text, one line per `^`...`$`: a block with neither a header
# nor such a line holds no counters, and its lines need no look one by one.
_LINE_IN_TEXT = re.compile(_LINE.pattern, re.M)


def _blocks(lines: Sequence[str]) -> list[_PerfBlock]:
    text = joined(lines)
    if _HEADER.search(text) is None and _LINE_IN_TEXT.search(text) is None:
        return []
    blocks: list[_PerfBlock] = []
    i, n, floor = 0, len(lines), 0
    while i < n:
        line = lines[i]
        headed = bool(_HEADER.search(line[:_MAX_HEADER]))
        if not headed and not (len(line) <= _MAX_LINE and _LINE.match(line)):
            i += 1
            continue
        start, j, blanks = i, i + 1 if headed else i, 0
        events: dict[str, tuple[int, str | None]] = {}
        while j < n and blanks < 2:
            text = lines[j]
            if not text.strip():
                blanks += 1
            elif len(text) <= _MAX_LINE and (m := _LINE.match(text)):
                blanks = 0
                if m.group("value"):
                    events.setdefault(m.group("event"), (j, m.group("unit")))
            else:
                break
            j += 1
        if headed or len(events) >= 2:
            blocks.append(_PerfBlock(start, _role(lines, start, floor), events))
        floor = j
        i = max(j, i + 1)
    return blocks


def find_perf_stat_measurements(lines: Sequence[str]) -> list[Measurement]:
    """Counters of two `perf stat` runs labelled before/after (or vanilla/patched, old/new),
    paired by event name and keyed by it (`measure`)."""
    out: list[Measurement] = []
    blocks = _blocks(lines)
    k = 0
    while k + 1 < len(blocks):
        first, second = blocks[k], blocks[k + 1]
        # (two plain tests: mypyc compiles `roles not in ((a, b), (b, a))` into C that
        # reads an unset variable)
        if first.role == BASELINE and second.role == PATCHED:
            base, patched = first, second
        elif first.role == PATCHED and second.role == BASELINE:
            base, patched = second, first
        else:
            k += 1
            continue
        for event, (bi, unit_word) in base.events.items():
            if event not in patched.events:
                continue
            pi, _ = patched.events[event]
            bq = figure(find_quantities(lines[bi]))
            pq = figure(find_quantities(lines[pi]))
            if bq is None or pq is None:
                continue
            # the count's unit: written before the event (`msec task-clock`, `seconds time
            # elapsed`) or the event itself when it is one (`cycles`)
            probed = probe_unit(event)
            unit = bq.unit or pq.unit or unit_word or (probed.unit if probed else None)
            out.append(Measurement(
                baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="table",
                line=bi, quote=lines[bi].rstrip() + "\n" + lines[pi].rstrip(), unit=unit,
                stated=None, condition=(("measure", event),), context=event,
            ))
        k += 2
    return out
