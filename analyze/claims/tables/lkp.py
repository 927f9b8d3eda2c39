"""The kernel test robot's comparison tables (LKP / 0-DAY CI reports).

         %stddev     %change         %stddev
             \\          |                \\
     15432 ±  2%     +12.3%      17330 ±  1%  netperf.Throughput_Mbps
 5.926e+08 ±  2%     +12.3%  6.654e+08 ±  1%  netperf.workload
      3.41 ±  5%      +0.9        4.31 ±  3%  perf-profile.calltrace.cycles-pp.unix_stream_sendmsg

Left is the base commit, right the commit tested: the robot fixes the layout, so position
is enough here. Every row is a named quantity, keyed by `measure` = its name; the name also
tells the metric (`analyze.claims.lexer.units.metric_of` reads dotted counter names).
`%change` is a stated change; an unsigned-percent `+0.9` is an absolute change in percentage
points, not a percentage.

Only the tested benchmark's results are claims (docs/claims.md): the rows named after the
testcase (`netperf.Throughput_Mbps`, `stress-ng.io-uring.ops_per_sec`). The robot's monitors
(`perf-profile.*`, `vmstat.*`, `meminfo.*`, ...) support them, and so does the benchmark's own
bookkeeping: `<testcase>.time.*`, `<testcase>.workload`, and its latency buckets
(`fio.latency_250ms%`, a share of the requests). The testcase is the one the report's
headline names ("noticed a 12.3% improvement of netperf.Throughput_Mbps"); a table quoted
without its headline keeps the rows of any family that is not a monitor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.block_text import joined
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.limits import DEFAULT_LIMITS, table_too_long

from .roles import with_unit

MAX_ROWS = DEFAULT_LIMITS.table_lines
_MAX_LINE = 300  # robot rows are about 80 columns; longer lines are not rows

_HEADER = re.compile(r"^\s*%stddev\s+%change\s+%stddev\s*$")
# The line under the header (`\   |   \`) is part of the table; any other line that is not a
# row ends it (the next section, `*****`, `Disclaimer:`).
_RULE = re.compile(r"^[\s\\|]*$")
_NUM = r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
_SPREAD = r"(?:\s*±\s*\d+%)?"
_ROW = re.compile(
    rf"^\s*(?P<base>{_NUM}){_SPREAD}\s+(?P<change>[+-]?(?:\d+(?:\.\d+)?|Inf)%?)\s+"
    rf"(?P<patched>{_NUM}){_SPREAD}\s+(?P<name>[A-Za-z][\w.\-:/%()@+]*)\s*$"
)


# The robot's monitors: what it records beside every benchmark, to explain a change.
MONITORS = frozenset({
    "perf-profile", "perf-stat", "perf-sched", "perf-c2c", "perf-sanity-tests", "proc-vmstat",
    "vmstat", "numa-vmstat", "meminfo", "numa-meminfo", "numa-numastat", "mpstat", "iostat",
    "sched_debug", "slabinfo", "time", "cpuidle", "uptime", "turbostat", "pmeter",
    "interrupts", "softirqs", "boot-time", "diskstats", "pagetypeinfo", "buddyinfo",
    "lock_stat", "latency_stats", "kmsg", "dmesg", "filefrag", "ftrace", "sysctl", "vmstat_-s",
    "pp",  # perf-profile, as people shorten it when they paste rows (`pp.self.tcp_sendmsg`)
})
# "kernel test robot noticed a -51.1% regression of fio.read_bw_MBps on:", "FYI, we noticed a
# 12.8% improvement of netperf.Throughput_tps due to commit"
_HEADLINE = re.compile(r"noticed an? [-+]?\d+(?:\.\d+)?% (?:improvement|regression) of "
                       r"([A-Za-z][\w-]*)\.")
_BUCKET = re.compile(r"\.latency_[\w.]*%$")


def tested_family(lines: Sequence[str]) -> str | None:
    """The benchmark the report's headline names (`fio`, `stress-ng`), or None."""
    for line in lines:
        if "noticed" in line:
            m = _HEADLINE.search(line)
            if m is not None:
                return m.group(1)
    return None


def is_result(name: str, family: str | None) -> bool:
    """Whether the row `name` is a result of the tested benchmark (a claim), not a monitor's
    counter or the benchmark's bookkeeping."""
    head, _, rest = name.partition(".")
    if not rest or head in MONITORS or (family is not None and head != family):
        return False
    return not (rest.startswith("time.") or rest == "workload" or _BUCKET.search(name))


# the unit a row's name ends in: `netperf.Throughput_Mbps`, `fio.read_bw_MBps`,
# `...DefaultTestDirectory.mb_s`, `fio.write_clat_mean_us`, `stress-ng.*.ops_per_sec`
_NAME_UNITS = (
    (re.compile(r"[._](?:mb_s|MBps)$"), "MB/s"),
    (re.compile(r"[._]KBps$"), "KB/s"),
    (re.compile(r"[._]Mbps$"), "Mbps"),
    (re.compile(r"[._]Gbps$"), "Gbps"),
    (re.compile(r"[._]tps$"), "tps"),
    (re.compile(r"[._]ops_per_sec$"), "ops/s"),
    (re.compile(r"[._]iops$", re.I), "IOPS"),
    (re.compile(r"[._]msg_s$"), "msg/s"),
    (re.compile(r"[._]ns$"), "ns"),
    (re.compile(r"[._]us$"), "us"),
    (re.compile(r"[._]ms$"), "ms"),
)


def name_unit(name: str) -> str | None:
    """The unit a robot row's name ends in, or None (`hackbench.throughput`)."""
    for pattern, unit in _NAME_UNITS:
        if pattern.search(name):
            return unit
    return None


def _number(line: str, m: re.Match[str], group: str) -> Quantity | None:
    text = m.group(group)
    try:
        value = float(text)
    except ValueError:
        return None
    return Quantity(value=value, text=text, start=m.start(group), end=m.end(group), kind="number")


def _change(m: re.Match[str]) -> Quantity | None:
    """The `%change` cell as a stated change: only a percentage is one (`-7.5%`)."""
    text = m.group("change")
    if not text.endswith("%") or "Inf" in text:
        return None
    try:
        value = float(text[:-1])
    except ValueError:
        return None
    sign = -1 if text.startswith("-") else 1
    return Quantity(value=value, text=text, start=m.start("change"), end=m.end("change"),
                    kind="percent", unit="%", canonical_unit="%", canonical_value=value, sign=sign)


def _stands_alone(m: re.Match[str], line: str) -> bool:
    """A row quoted without its header (a reply keeps two rows of the report): the robot's
    shape is plain enough then only with a signed `%change` and a dotted counter name."""
    change = m.group("change")
    return change[0] in "+-" and change.endswith("%") and "." in m.group("name") and (
        "±" in line or len(m.group("name")) > 6)


# Several commits side by side (a bisection's candidates): a header of commit ids over a rule
# of dashes, then per row the base figure and, for each other commit, its change and figure
#
#  7c80b038d23e1f4c 4890b686f4088c90432149bd6de 332b589c49656a45881bca4ecc0
#  ---------------- --------------------------- ---------------------------
#      15722           -69.5%       4792           -40.8%       9300        netperf.Throughput_Mbps
_COMMITS = re.compile(r"^\s*[0-9a-f]{12,40}(?:\s+[0-9a-f]{12,40})+\s*$")
_COMMITS_IN_TEXT = re.compile(_COMMITS.pattern, re.M)
_DASHES = re.compile(r"^[\s-]+-[\s-]*$")
_CELL = re.compile(rf"\s+(?P<change>[+-]?(?:\d+(?:\.\d+)?|Inf)%?)\s+(?P<value>{_NUM}){_SPREAD}")
_MULTI_ROW = re.compile(
    rf"^\s*(?P<base>{_NUM}){_SPREAD}(?P<cells>(?:{_CELL.pattern}){{2,}})\s+"
    rf"(?P<name>[A-Za-z][\w.\-:/%()@+]*)\s*$")


def _commit_columns(lines: Sequence[str], max_rows: int, family: str | None) -> list[Measurement]:
    """The rows of the robot's tables of several commits (see `_COMMITS`): a claim for each
    commit against the first, keyed by the row's name and the commit."""
    out: list[Measurement] = []
    for h, header in enumerate(lines[:-1]):
        if len(header) > _MAX_LINE or not _COMMITS.match(header) or not _DASHES.match(lines[h + 1]):
            continue
        commits = header.split()
        for i in range(h + 2, min(len(lines), h + 2 + max_rows)):
            line = lines[i]
            m = _MULTI_ROW.match(line) if len(line) <= _MAX_LINE else None
            if m is None:
                if line.strip():
                    break
                continue
            out += _commit_row(line, i, m, commits, family)
    return out


def _commit_row(line: str, i: int, m: re.Match[str], commits: Sequence[str],
                family: str | None) -> list[Measurement]:
    """A claim for each commit of a row of several (see `_COMMITS`); `commits` names them,
    the base first (else they are counted from 1)."""
    name = m.group("name")
    base = _number(line, m, "base")
    if base is None or not is_result(name, family):
        return []
    out = []
    for k, cell in enumerate(_CELL.finditer(line, m.start("cells"), m.end("cells"))):
        patched = _number(line, cell, "value")
        if patched is None:
            continue
        commit = commits[k + 1][:12] if k + 1 < len(commits) else str(k + 1)
        unit = name_unit(name)
        out.append(Measurement(
            baseline=with_unit(base, unit), patched=with_unit(patched, unit), source="table",
            line=i, quote=line.rstrip(), unit=unit, stated=_change(cell),
            condition=(("measure", name), ("commit", commit)), context=name,
        ))
    return out


def find_lkp_measurements(lines: Sequence[str], max_rows: int = MAX_ROWS) -> list[Measurement]:
    """The benchmark's rows of the kernel test robot's `%change` tables, keyed by the row's
    name."""
    out: list[Measurement] = []
    text = joined(lines)
    if "%" not in text:
        return out  # (a robot table has its `%change`; a row alone, its signed percentage)
    commit_table = _COMMITS_IN_TEXT.search(text) is not None
    if commit_table:
        out += _commit_columns(lines, max_rows, tested_family(lines))
    family = tested_family(lines) if "noticed" in text else None
    active = False
    rows = 0  # of the table being read
    for i, line in enumerate(lines):
        if len(line) > _MAX_LINE:
            active = False
            continue
        if not active and "%" not in line:
            continue  # outside a table, a header (`%stddev`) or a row alone (`+12.3%`) has one
        if _HEADER.match(line):
            active, rows = True, 0
            continue
        m = _ROW.match(line)
        if m is None:
            if active and not _RULE.match(line):
                active = False
            elif not active and not commit_table:
                # a row of several commits quoted alone: the robot's shape, each change signed
                multi = _MULTI_ROW.match(line)
                if multi is not None and "." in multi.group("name") and all(
                        c.group("change")[0] in "+-" and c.group("change").endswith("%")
                        for c in _CELL.finditer(line, multi.start("cells"), multi.end("cells"))):
                    out += _commit_row(line, i, multi, (), family)
            continue
        if not active and not _stands_alone(m, line):
            continue
        base, patched = _number(line, m, "base"), _number(line, m, "patched")
        if base is None or patched is None:
            continue
        name = m.group("name")
        if active:
            rows += 1
            if rows > max_rows:
                raise table_too_long(max_rows)
        if not is_result(name, family):
            continue
        unit = name_unit(name)
        out.append(Measurement(
            baseline=with_unit(base, unit), patched=with_unit(patched, unit), source="table",
            line=i, quote=line.rstrip(), unit=unit, stated=_change(m),
            condition=(("measure", name),), context=name,
        ))
    return out
