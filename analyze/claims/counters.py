"""Counters that support a result, read beside it: which pairs are no claims of their own.

`perf stat` prints the benchmark's own result (`seconds time elapsed`) under the counters it
kept while the benchmark ran: cycles, instructions, context switches, tracepoint hits
(`sched:sched_waking`, `probe:...`). Those counters explain a result; they are not one
(docs/claims.md, rule 2: "perf stat only the benchmark's result or seconds time elapsed").
So in a block that shows `perf stat` (its header or its command), a pair of perf events is
dropped; so is a pair of tracepoint hits (`sched:sched_switch`) anywhere. The elapsed time,
and the benchmark's own figures beside it, stay. Likewise `time` prints the CPU time a run
took (`user`, `sys`) under its `real` line: where the block pairs the real line, its user and
sys lines only explain it, unless the words claim them ("roughly halves the system time").
Counts a run saw, a pair of whole numbers with no unit under a label that counts things
(`NTP kernel TX timestamps : 1410956`, `rx packets`), are counters too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.quantity import Measurement

# perf's event names: hardware and software events, cache events, tracepoints and probes
# (`sched:sched_switch`, `probe:foo`), PMU events (`cpu/event=0x3c/`)
_EVENT = re.compile(
    r"(?:[a-z_][\w-]*:[\w-]+|cycles|instructions|branches|branch-misses|branch-loads"
    r"|cache-misses|cache-references|context-switches|cs|cpu-migrations|migrations"
    r"|page-faults|faults|minor-faults|major-faults|task-clock|cpu-clock|ref-cycles"
    r"|bus-cycles|stalled-cycles-(?:frontend|backend)|(?:L1|LLC|dTLB|iTLB)-[\w-]+"
    r"|[a-z_]+/[\w=,.-]+/\w*)(?::[ukhGH]+)?",
    re.I)
_ELAPSED = re.compile(r"\belapsed\b", re.I)
# a count of things a run saw, by its label's last word: chronyc's `NTP kernel TX timestamps`,
# `rx packets`, `interrupts`, `sendto() calls`; with no unit and whole numbers, a counter
_COUNTED = re.compile(
    r"\b(?:timestamps|packets|pkts|frames|drops|dropped|errors|interrupts|irqs|calls|syscalls"
    r"|misses|faults|events|retransmits|retransmissions|segments|wakeups|switches|samples"
    r"|observations|hits|messages)\s*:?\s*$", re.I)
_PERF = re.compile(r"Performance counter stats|\bperf stat\b", re.I)
_KEYS = ("measure", "event", "case")
_TIME_LINE = re.compile(r"^\s*(real|user|sys)\b[\s:]*$", re.I)
_PART_CLAIMED = re.compile(r"\b(?:user|sys|system)\s+time\b", re.I)


def perf_event(label: str) -> bool:
    """Whether a row's label is a perf event's name."""
    return bool(_EVENT.fullmatch(label.strip()))


def _label(m: Measurement) -> str:
    named = dict(m.condition)
    for key in _KEYS:
        if key in named:
            return named[key]
    return m.context


def without_supporting_counters(measurements: Sequence[Measurement],
                                lines: Sequence[str]) -> list[Measurement]:
    """The block's pairs less its perf event counts (see the module)."""
    if not measurements:
        return []
    perf = any(_PERF.search(line) for line in lines if "perf" in line or "Perf" in line)
    kept = [m for m in measurements
            if not (perf_event(label := _label(m)) and (perf or ":" in label))
            or _ELAPSED.search(_label(m))]
    kept = [m for m in kept if not _counted(m)]
    timed = {m: _time_line(m, lines) for m in kept}
    if "real" not in timed.values() or any(_PART_CLAIMED.search(line) for line in lines):
        return kept  # (the words claim the user or system time: "roughly halves the system time")
    return [m for m in kept if timed[m] not in ("user", "sys")]


def _counted(m: Measurement) -> bool:
    """A pair of whole numbers with no unit whose label counts things (see `_COUNTED`)."""
    if m.unit or m.baseline.unit or m.patched.unit:
        return False
    if not (m.baseline.value.is_integer() and m.patched.value.is_integer()):
        return False
    return bool(_COUNTED.search(_label(m)))


def _time_line(m: Measurement, lines: Sequence[str]) -> str | None:
    """`real`, `user` or `sys` for a pair read from `time`'s lines, else None."""
    if not 0 <= m.line < len(lines):
        return None
    found = _TIME_LINE.match(lines[m.line][:m.baseline.start])
    return found.group(1).lower() if found else None
