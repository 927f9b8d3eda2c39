"""Counters that support a result, read beside it: which pairs are no claims of their own.

`perf stat` prints the benchmark's own result (`seconds time elapsed`) under the counters it
kept while the benchmark ran: cycles, instructions, context switches, tracepoint hits
(`sched:sched_waking`, `probe:...`). Those counters explain a result; they are not one
(docs/claims.md, rule 2: "perf stat only the benchmark's result or seconds time elapsed").
So in a block that shows `perf stat` (its header or its command), a pair of perf events is
dropped; so is a pair of tracepoint hits (`sched:sched_switch`) anywhere. The elapsed time,
and the benchmark's own figures beside it, stay.
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
_PERF = re.compile(r"Performance counter stats|\bperf stat\b", re.I)
_KEYS = ("measure", "event", "case")


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
    return [m for m in measurements
            if not (perf_event(label := _label(m)) and (perf or ":" in label))
            or _ELAPSED.search(_label(m))]
