"""Before/after figures in lists: two captioned blocks paired by position or by key, `X -> Y`
lines, `before: X, after: Y` lines, `key=value` output and netperf result blocks.

Seed 004 is the model of the block form: a caption `trans./sec (3.17)` over nine figures,
then `trans./sec (3.17 + macvlan patch)` over nine figures each followed by the stated
change `+(4.684733558%)`; the i-th pairs with the i-th, and the loop that produced them
(`for i in {35,50,...}` around `super_netperf $i ...`) names the condition. Which block is
the baseline comes from the captions' words, never from their order alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from analyze.claims.block_text import joined
from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities as _find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity, is_spread
from analyze.claims.lexer.units import metric_of
from analyze.claims.listings import code_listing_lines
from analyze.claims.prose.settings import PROFILE_SHARE, SIZE_MEASURED
from analyze.claims.shell.commands import TOOLS, find_commands
from analyze.claims.shell.conditions import counted_condition, label_condition
from analyze.claims.tables.read import MAX_ROWS, ShellContext
from analyze.claims.tables.roles import (
    BASELINE,
    PATCHED,
    figure,
    names_a_side,
    probe_unit,
    resolve_roles,
    role_of,
    stated_in,
    unit_in_text,
    with_unit,
)
from analyze.claims.tables.side_rows import find_side_row_measurements
from analyze.limits import table_too_long

_MAX_LINE = 2_000  # list lines and captions are short; longer lines are read as prose
_MAX_CAPTION = 160
_ARROW = re.compile(r"\s(?:-{1,2}>|={1,2}>)\s|→|⇒|⟶")
_KEY_VALUE = re.compile(r"([A-Za-z][\w.\-/]{0,40})\s*=\s*(?=[\d.+\-~<>])")
# (a note's mark after a label is no part of it: `Before[1]: 7.06M`, its run under `[1]`)
_KEY_COLON = re.compile(r"^\s*(\w[\w .\-/()#]{0,40}?)(?:\[\d{1,2}\])?\s*:\s+(?=\S)")
_ROLE_LABEL = re.compile(r"^\s*([A-Za-z][\w .\-/+()]{0,40}?)(?:\[\d{1,2}\])?\s*[:=]\s*")
_DIGIT = re.compile(r"\d")
# keys of what supports a result, not results: spread (`stdev=`, `min=`, `max=`), and fio's
# and t/io_uring's bookkeeping (`io=439GiB`, `run=90001msec`, `IOS/call=32/32`, fio's `per=`:
# the job's share of its group's bandwidth)
_NOISE_KEY = compile_words(r"std|dev\b|-ad\b|\bvar|stderr|\bci\b|spread|^\s*(?:min|max|io|run|runt|per"
                           r"|ios/call|samples?)\s*$|^\s*(?:maximum|minimum|peak)\b", re.I)
_PEAK_BEFORE = re.compile(r"\b(?:maximum|minimum|max|min|peak|best|worst)\s*$", re.I)
_WORD3 = re.compile(r"[A-Za-z]{3,}")  # a word, for counting the words between two figures
_PROMPT = re.compile(r"^\s*[$#]\s+\S")  # `$ netperf -H ...`: the command, not its output
_RESIDUE = re.compile(r"[\s()\[\],;+\-*]+")
# Words that make a unitless `X -> Y` a result (`tcp_rr: 512k -> 578k`), not a setting.
_MEASURE = compile_words(
    r"throughput|latency|\brate\b|tps|pps|bps|\bbw\b|bandwidth|_?rr\b|crr|stream|maerts|ops"
    r"|trans|\breq|\btime\b|cycles|\bcpu|perf|score|result|speed|\bp\d\d\b|mean|avg|average"
    r"|median|lat\b",
    re.I,
)
# netperf's banner or header: `MIGRATED TCP STREAM TEST from ...`, `Recv   Send ...`. The
# words anywhere are searched behind their first letters, the line starts matched.
_NETPERF_WORDS = compile_words(r"TEST from|Socket\s+Size", re.I)
_NETPERF_HEAD = re.compile(r"\s*(?:Recv\s+Send|Local\s*/Remote)", re.I)


def _netperf_start(line: str) -> bool:
    return _NETPERF_WORDS.search(line) is not None or _NETPERF_HEAD.match(line) is not None

# iperf3's report: `[ ID] Interval ...`, `[  5]   0.00-10.00  sec ...`, `[SUM] ...`; the
# summary lines end in `sender` or `receiver`.
_IPERF_LINE = re.compile(r"\s*\[\s*(?:ID|SUM|[0-9]{1,4})\]\s")
_PKTGEN_RESULT = re.compile(r"\s*Result: OK: ")
_XDP_SUMMARY = re.compile(r"\s*Summary\s+[0-9][0-9,]*\s+(?:rx|tx|xmit|redir)/s\b")
_IPERF_RULE = re.compile(r"\s*(?:- ){4,}-?\s*$")  # between the intervals and the summary
_IPERF_END = re.compile(r"\b(sender|receiver)\s*$")
# netperf's header names its unit in the last column of the last header line.
_NETPERF_UNITS = {
    "10^6bits/sec": "Mbit/s", "10^3bits/sec": "Kbit/s", "10^9bits/sec": "Gbit/s",
    "10^6bytes/sec": "MB/s", "10^3bytes/sec": "KB/s", "per sec": "trans/s",
}


def find_quantities(line: str) -> list[Quantity]:
    # A list line is read as a caption, an item, an arrow and a one-line pair: numbers.py
    # keeps each line's figures, so this lexes it once.
    if not _DIGIT.search(line):
        return []
    return _find_quantities(line)


@dataclass(frozen=True, slots=True)
class _Item:
    line: int
    key: str | None
    value: Quantity
    stated: Quantity | None
    unit: str | None = None  # a unit the item's header names (netperf)


@dataclass(frozen=True, slots=True)
class _Group:
    caption_line: int
    caption: str
    items: tuple[_Item, ...]


# what a stated change is from, after it: the rest of the line says so, no figure of the run
_CHANGE_FROM = re.compile(r"\s+(?:from|relative|over|vs\.?|compared|against|than)\b", re.I)


def _value_items(line: str, i: int, qs: list[Quantity], key: str | None, offset: int) -> list[_Item]:
    """A figure alone on a line (after `offset`), possibly followed by a stated change (and
    what the change is from: `12804 K req/s, +9.2% from the baseline, or ...`)."""
    own = [q for q in qs if q.start >= offset]
    if len(own) > 2 and own[0].unit and own[1].kind == "percent" \
            and _CHANGE_FROM.match(line, own[1].end):
        line, own = line[:own[1].end], own[:2]
    if not own or len(own) > 2:
        return []
    residue = line[offset:]
    for q in reversed(own):
        residue = residue[:q.start - offset] + residue[q.end - offset:]
    if _RESIDUE.sub("", residue):
        return []
    value = figure(own)
    if value is None:
        return []
    rest = [q for q in own if q is not value]
    # `25.134 ± 0.043M/s` (the bpf selftests' bench): a spread, whose unit is the value's
    spreads = [q for q in rest if q.start > value.start and is_spread(q)]
    if spreads:
        rest = [q for q in rest if q not in spreads]
        if value.unit is None and spreads[0].unit:
            value = with_unit(value, spreads[0].unit)
    stated = stated_in(rest)
    if rest and stated is None:
        return []
    return [_Item(i, key, value, stated)]




def _top_level_pairs(line: str) -> list[re.Match[str]] | None:
    """The `key=value` pairs of a line outside brackets, without spread keys: in sockperf's
    `avg-latency=14.212 (std-dev=1.044, mean-ad=0.612, median-ad=0.398)` the bracketed pairs
    qualify the figure before them. None when the line has no `key=value` pair at all."""
    pairs = list(_KEY_VALUE.finditer(line))
    if not pairs:
        return None
    out, depth, pos = [], 0, 0
    for m in pairs:
        segment = line[pos:m.start()]
        depth = max(0, depth + segment.count("(") + segment.count("[")
                    - segment.count(")") - segment.count("]"))
        pos = m.start()
        if depth == 0 and not _NOISE_KEY.search(m.group(1)):
            out.append(m)
    return out


def key_unit(key: str | None) -> str | None:
    """The unit a key's name ends with: `avg_ns` → ns, `ops_per_sec` → ops per sec,
    `lat_us` → us (benchmarks print `name_unit=value`)."""
    if not key or len(key) > 60:
        return None
    words = [w for w in re.split(r"[_\-.\s]+", key) if w]
    for k in range(len(words)):
        tail = " ".join(words[k:])
        q = probe_unit(tail)
        if q is not None and q.text == "1 " + tail:
            return q.unit
    return None


def _items_in(line: str, i: int) -> list[_Item]:
    """The figures of one list line: `494016`, `517159  +(4.68%)`, `throughput=9.41Gbps
    latency=23us`, `1 thread: 3.1 Mpps`."""
    if len(line) > _MAX_LINE or not line.strip():
        return []
    qs = find_quantities(line)
    if not qs:
        return []
    pairs = _top_level_pairs(line)
    if pairs is not None:
        out = []
        for m in pairs:
            q = next((q for q in qs if q.start == m.end()), None)
            if q is not None and not _PEAK_BEFORE.search(line, 0, m.start()):
                # (t/io_uring's `Maximum IOPS=2.96M` after its samples: the best one, not
                # the run's figure)
                out.append(_Item(i, m.group(1), q, None))
        return out
    keyed = _KEY_COLON.match(line)
    if keyed:
        if _NOISE_KEY.search(keyed.group(1).strip()):
            return []  # `Stdev: 2.12 msec`, `Max: 249.53 msec`: the spread of the runs
        return _value_items(line, i, qs, keyed.group(1).strip(), keyed.end())
    return _value_items(line, i, qs, None, 0)


def _netperf(lines: Sequence[str], i: int) -> tuple[tuple[_Item, ...] | None, int]:
    """The results of a netperf block starting at line i, and where the block ends: the
    throughput or transaction rate (the last column of the first data row, `87380  16384
    16384  10.00  9412.34`), and with `-c`/`-C` the CPU utilisation and service demand
    columns its header names (`CPU local`, `S.dem remote`)."""
    header: list[str] = []
    for j in range(i, min(len(lines), i + 14)):
        line = lines[j]
        if len(line) > _MAX_LINE:
            break
        fields = line.split()
        if len(fields) >= 5 and all(re.fullmatch(r"\d[\d.]*", f) for f in fields):
            qs = find_quantities(line)
            if not qs:
                break
            last = header[-1] if header else ""
            written = next((u for u in _NETPERF_UNITS if u in last.lower()), None)
            columns = _netperf_columns(header, line, qs)
            rate = _netperf_rate(columns, qs)
            value = with_unit(qs[rate], _NETPERF_UNITS[written] if written else None)
            key = "trans. rate" if written == "per sec" else "throughput"
            items = [_Item(j, key, value, None, written)]
            for k, name in enumerate(columns):
                if k != rate and _NETPERF_CPU.match(name):
                    unit = _NETPERF_CPU_UNIT.search(name)
                    items.append(_Item(j, name, qs[k], None, unit.group(0) if unit else None))
            end = j + 1
            # TCP_RR prints the remote socket sizes on a second row: `16384  131072`
            if end < len(lines) and re.fullmatch(r"\s*\d+(?:\s+\d+){0,3}\s*", lines[end][:_MAX_LINE]):
                end += 1
            return tuple(items), end
        if line.strip():
            header.append(line)
    return None, i + 1


# netperf's CPU columns (`-c`, `-C`): utilisation (`CPU local % S`) and service demand
# (`S.dem remote us/Tr`, `Service Demand local us/KB`)
_NETPERF_CPU = re.compile(r"(?:cpu|util\w*|s\.dem|service demand)\s+(?:local|remote|send|recv)\b", re.I)
_NETPERF_CPU_UNIT = re.compile(r"%\s*[SUCI]?|us/(?:Tr|KB)", re.I)


def _netperf_columns(header: Sequence[str], row: str, qs: Sequence[Quantity]) -> list[str]:
    """Each figure's column name: the header words standing over it (each header word goes
    to the figure whose start is nearest its own), top line first."""
    names: list[list[str]] = [[] for _ in qs]
    for line in header[-4:]:
        if _netperf_start(line) and "Socket" not in line or "TEST from" in line:
            continue
        for m in re.finditer(r"\S+", line):
            k = min(range(len(qs)), key=lambda k: abs(qs[k].start - m.start()))
            names[k].append(m.group(0))
    return [" ".join(words) for words in names]


def _netperf_rate(columns: Sequence[str], qs: Sequence[Quantity]) -> int:
    """The rate's column: the one its header names (`Throughput`, `Trans. Rate`), else the
    last."""
    for k, name in enumerate(columns):
        if re.search(r"throughput|trans\.?\s*rate|rate\b", name, re.I):
            return k
    return len(qs) - 1


def _pktgen(lines: Sequence[str], i: int) -> tuple[_Item | None, int]:
    """pktgen's result at line i: `Result: OK: 2164488(c2164101+d387) usec, ...` and, on
    the next line, `4620027pps 2365Mb/sec (2365453824bps) errors: 0`: the packet rate."""
    for j in range(i + 1, min(len(lines), i + 3)):
        rate = next((q for q in find_quantities(lines[j][:_MAX_LINE])
                     if q.canonical_unit == "pps"), None)
        if rate is not None:
            return _Item(j, "throughput", rate, None), j + 1
    return None, i + 1


class _ToolReports:
    """The result blocks benchmark tools print, each read as one item: netperf (the last
    column of its first data row), pktgen (the packet rate of its `Result:`), iperf3 (the
    receiver's bitrate, `[SUM]` first; interval lines are progress), xdp-bench (the packet
    rate of its `Summary` line)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._iperf: _IperfRuns | None = None

    def at(self, j: int) -> tuple[tuple[_Item, ...] | None, int] | None:
        """The report starting at line j (its items, None when it holds no result, and
        where it ends), or None when no report starts there."""
        line = self.lines[j][:_MAX_LINE]
        if _netperf_start(line):
            return _netperf(self.lines, j)
        found: tuple[_Item | None, int] | None = None
        if _PKTGEN_RESULT.match(line):
            found = _pktgen(self.lines, j)
        elif _IPERF_LINE.match(line):
            self._iperf = self._iperf or _IperfRuns(self.lines)
            found = self._iperf.report(j)
        elif _XDP_SUMMARY.match(line):
            rate = next((q for q in find_quantities(line) if q.canonical_unit == "pps"), None)
            found = (_Item(j, "throughput", rate, None) if rate else None), j + 1
        if found is None:
            return None
        item, end = found
        return ((item,) if item is not None else None), end


class _IperfRuns:
    """The iperf3 reports of a block, read in one pass from the end: for each line of a
    run of report lines, where the run ends and the best summary line from there on. A
    run of thousands of header lines is read once, not once per line it starts from."""

    def __init__(self, lines: Sequence[str]) -> None:
        n = len(lines)
        self.end = [0] * (n + 1)
        self.best: list[tuple[int, int, Quantity] | None] = [None] * (n + 1)
        for j in range(n - 1, -1, -1):
            line = lines[j][:_MAX_LINE]
            if not (_IPERF_LINE.match(line) or _IPERF_RULE.match(line)):
                self.end[j] = j
                continue
            self.end[j] = self.end[j + 1] if j + 1 < n and self.end[j + 1] > j + 1 else j + 1
            best = self.best[j + 1] if self.end[j] > j + 1 else None
            mine = _iperf_summary(line, j)
            # the forward reading kept the last of the best: an earlier line wins only
            # with a higher rank
            self.best[j] = mine if mine is not None and (best is None or mine[0] > best[0]) \
                else best

    def report(self, i: int) -> tuple[_Item | None, int]:
        """The result of the report starting at line i, and where the report ends."""
        found = self.best[i]
        if found is None:
            return None, self.end[i]
        return _Item(found[1], "throughput", found[2], None), self.end[i]


def _iperf_summary(line: str, j: int) -> tuple[int, int, Quantity] | None:
    """A summary line's rank (`[SUM]` over a stream, receiver over sender), line and
    bitrate."""
    end = _IPERF_END.search(line)
    if end is None:
        return None
    rate = next((q for q in find_quantities(line) if q.canonical_unit == "bit/s"), None)
    if rate is None:
        return None
    return (2 if "SUM" in line[:8] else 0) + (1 if end.group(1) == "receiver" else 0), j, rate


def _next_run(lines: Sequence[str], j: int) -> int | None:
    """After a netperf result and blank lines, where the same run's next test starts (its
    command or its banner), if it does within three lines."""
    for k in range(j, min(len(lines), j + 3)):
        text = lines[k][:_MAX_LINE]
        if text.strip():
            return k if _PROMPT.match(text) or _netperf_start(text) else None
    return None


class _LineItems:
    """`_items_in` of each line of a block, read once: a line is asked as a caption (it has
    none) and again as the line under one."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.found: dict[int, list[_Item]] = {}

    def __call__(self, i: int) -> list[_Item]:
        found = self.found.get(i)
        if found is None:
            found = self.found[i] = _items_in(self.lines[i], i)
        return found


def _caption(line: str, i: int, items: _LineItems) -> tuple[str, list[_Item]] | None:
    """A caption line (`trans./sec (3.17)`, `before:`), with figures on the same line when it
    is a labelled one (`before: throughput=9.41Gbps latency=23us`)."""
    text = line.strip()
    if not text or len(text) > _MAX_CAPTION:
        return None
    m = _ROLE_LABEL.match(line) if ":" in line or "=" in line else None
    if m and role_of(m.group(1)) in (BASELINE, PATCHED) and line[m.end():].strip():
        rest = line[m.end():]
        shifted = _items_in(" " * m.end() + rest, i)
        if shifted:
            return m.group(1).strip(), shifted
        if _DIGIT.search(rest):
            return None
        # `Before: (not enabling bigger TSO/GRO packets)`: a caption and what it means
    if items(i):
        return None
    return text, []


class _Groups:
    """The captioned groups of a block: a caption line, then its items (one blank line at
    most between them). A group is a function of the line it starts at."""

    def __init__(self, lines: Sequence[str], skip: set[int], max_rows: int) -> None:
        self.lines, self.skip, self.max_rows = lines, skip, max_rows
        self.tools = _ToolReports(lines)
        self.line_items = _LineItems(lines)
        self.read: dict[int, tuple[_Group | None, int]] = {}

    def at(self, i: int) -> tuple[_Group | None, int]:
        """The group captioned by line i (None when the line is no caption or nothing
        follows it), and where the next caption may start. Kept: `_block_measurements`
        asks it of the side-naming lines before reading the block whole."""
        found = self.read.get(i)
        if found is None:
            found = self.read[i] = self._read(i)
        return found

    def _read(self, i: int) -> tuple[_Group | None, int]:
        lines, n = self.lines, len(self.lines)
        cap = _caption(lines[i], i, self.line_items)
        if cap is None:
            return None, i + 1
        caption, items = cap
        j, blanks = i + 1, 0
        while j < n and len(items) <= self.max_rows and j not in self.skip:
            line = lines[j]
            if not line.strip():
                after = _next_run(lines, j) if items and items[-1].unit else None
                if after is not None:
                    j = after  # netperf output, blank, `$ netperf -t TCP_RR ...`: one run
                    continue
                if items or blanks:
                    break
                blanks += 1
                j += 1
                continue
            if _PROMPT.match(line[:_MAX_LINE]):
                j += 1
                continue
            report = self.tools.at(j)
            if report is not None:
                found_items, j = report
                if found_items is None:
                    break
                items += found_items
                continue
            label = _ROLE_LABEL.match(line) if ":" in line or "=" in line else None
            if label and role_of(label.group(1)) in (BASELINE, PATCHED):
                break  # the next run's caption: `after: 4.0 Mpps` right below `before: 3.1 Mpps`
            found = self.line_items(j)
            if not found:
                if not items and _is_command(line) and not names_a_side(line):
                    # `ip link set dev eth0 gso_max_size 65536` and the tool's command line,
                    # each with a blank line after it, before the run's output
                    j, blanks = j + 1, 0
                    continue
                break
            items += found
            j += 1
        if len(items) > self.max_rows:
            raise table_too_long(self.max_rows)
        if items:
            return _Group(i, caption, tuple(items)), j
        return None, i + 1

    def all(self) -> list[_Group]:
        groups: list[_Group] = []
        i, n = 0, len(self.lines)
        while i < n:
            if i in self.skip:
                i += 1
                continue
            group, i = self.at(i)
            if group is not None:
                groups.append(group)
        return groups


def _is_command(line: str) -> bool:
    """A shell command written without a prompt (`ip link set ...`, `netperf -H ...`)."""
    first = line.split(None, 1)[0] if line.strip() else ""
    if not (first in TOOLS or first.startswith(("./", "sudo", "taskset", "numactl"))):
        return False  # (the test below runs a shell reader: only lines that may be one)
    return len(line) <= _MAX_LINE and bool(find_commands([line]))


def _norm(key: str | None) -> str:
    return (key or "").strip().lower()


def _first_of_each_key(items: Sequence[_Item]) -> list[_Item]:
    seen: set[str] = set()
    out = []
    for it in items:
        if _norm(it.key) not in seen:
            seen.add(_norm(it.key))
            out.append(it)
    return out


_RUN_NAME_WORDS = 6


def _names_a_run(caption: str) -> bool:
    """Whether a caption that names no side can still name the other run beside one that
    does: a short label (`net-next:`, `5.19-rc3 + for-next`, `trans./sec (3.17)`), not a
    sentence, a setting (`QD=2, Batch=1`) or a line of a tool's output (`| 99.99th=[126]`,
    `[  265.87] ...`)."""
    text = caption.strip()
    if not text or text[0] in "|[(<>#$" or "=" in text:
        return False
    return len(text.split()) <= _RUN_NAME_WORDS and not text.rstrip(":").endswith((".", ","))


# keys whose unitless figures are results: `IOPS=2.1M`, `avg=99.81`, `tps=3120`
_RESULT_KEY = compile_words(r"iops|\bbw\b|bandwidth|\blat|latency|throughput|rate|pps|\btps\b|\bqps\b"
                            r"|\bops\b|trans|mean|\bavg|median|\bp\d+|elapsed|speed|score|cycles"
                            r"|\bcpu|util|time|msgs?\b|requests", re.I)


def _is_setting(b: _Item, p: _Item) -> bool:
    """A keyed pair of figures with no unit under a key that names no result: a setting
    printed by the tool (t/io_uring's `polled=1, fixedbufs=1, QD=128`, `sq_ring=128`)."""
    unit = b.unit or b.value.unit or p.value.unit or key_unit(b.key)
    return not unit and not _RESULT_KEY.search(b.key or "")


# a function's name, as a profile prints it: `io_iopoll_complete`, `__schedule`, `memcpy()`
_FUNCTION = re.compile(r"_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?|[a-z_][a-z0-9_]*\(\)")


def _is_profile_share(b: _Item, p: _Item) -> bool:
    """A function's share of a profile under each side (`io_iopoll_complete: 5.29%`), the
    definition's profile share: no claim, before and after alike."""
    key = (b.key or "").strip()
    # (a key that names a measure is one, snake case or not: `cpu_util`, `p99_lat`)
    return b.value.kind == "percent" and p.value.kind == "percent" \
        and _FUNCTION.fullmatch(key) is not None and metric_of(None, key.replace("_", " ")) == "other"


def _pair_groups(lines: Sequence[str], first: _Group, second: _Group,
                 cmds: ShellContext) -> list[Measurement] | None:
    roles = resolve_roles([first.caption, second.caption])
    unnamed = first.caption if roles[0] is None else second.caption if roles[1] is None else None
    if unnamed is not None and not _names_a_run(unnamed):
        return None  # one side named, the other a line of prose or of a tool's output
    if roles[0] == BASELINE and roles[1] in (PATCHED, None) or roles == [None, PATCHED]:
        base, patched = first, second
    elif roles[0] == PATCHED and roles[1] in (BASELINE, None) or roles == [None, BASELINE]:
        base, patched = second, first
    else:
        return None
    keyed = all(it.key for it in (*base.items, *patched.items))
    if keyed:
        # a key printed again is the run's next sample: the first stands for the run
        firsts = {_norm(it.key): it for it in reversed(patched.items)}
        pairs = [(b, firsts[_norm(b.key)]) for b in _first_of_each_key(base.items)
                 if _norm(b.key) in firsts and not _is_setting(b, firsts[_norm(b.key)])
                 and not _is_profile_share(b, firsts[_norm(b.key)])]
    elif len(base.items) == len(patched.items):
        pairs = list(zip(base.items, patched.items, strict=True))
    else:
        return None
    if not pairs:
        return None
    loop_name = None
    if not keyed and len(pairs) > 1:
        loop = cmds.loop_for([b.value.text for b, _ in pairs], first.caption_line)
        if loop is not None and len(loop.values) == len(pairs):
            loop_name = (cmds.name_of_variable(loop.variable), loop.values)
    caption_unit = unit_in_text(patched.caption) or unit_in_text(base.caption)
    if caption_unit is None:
        # the line over both runs names their unit: `Benchmarked ... access() (ops/s):` over
        # `before: 5106246` and `after: 5269678`
        top = min(first.caption_line, second.caption_line) - 1
        if top >= 0 and len(lines[top]) <= _MAX_CAPTION and lines[top].rstrip().endswith(":"):
            caption_unit = unit_in_text(lines[top])
    units = [b.unit or b.value.unit or p.value.unit or key_unit(b.key) or caption_unit
             for b, p in pairs]
    # keys of one unit name what each figure measures (`trig-fentry`, `trig-kprobe`, both
    # in M/s): the key tells the claims apart
    shared = {u for u in units if units.count(u) > 1}
    out = []
    for k, (b, p) in enumerate(pairs):
        unit = units[k]
        condition: tuple[tuple[str, str], ...] = ()
        context = f"{base.caption} {patched.caption}"
        if loop_name is not None:
            condition = ((loop_name[0], str(loop_name[1][k])),)
        elif b.key:
            condition = label_condition(b.key)
            if not condition:
                context = f"{context} {b.key}"
                if keyed and unit in shared:
                    condition = (("measure", b.key.strip()),)
        # (each side's own unit where each names one: fio's `lat (nsec):` on one side is
        # `lat (usec):` on the other)
        punit = p.unit or p.value.unit or unit
        out.append(Measurement(
            baseline=with_unit(b.value, unit), patched=with_unit(p.value, punit), source="list",
            line=b.line, quote=lines[b.line].rstrip() + "\n" + lines[p.line].rstrip(),
            unit=unit, stated=p.stated, condition=condition, context=context,
        ))
    return out


_DIGITS_RUN = re.compile(r"\d+")


def _block_measurements(lines: Sequence[str], skip: set[int], max_rows: int,
                        cmds: ShellContext) -> list[Measurement]:
    # Two groups pair only when a caption names a side (`resolve_roles`), a caption is a
    # short line or its label, and a group has items: a block where no line naming a side
    # captions a group (a table's header above its `---` rule) has no pair to look for.
    reader = _Groups(lines, skip, max_rows)
    if not any(i not in skip and len(line) <= _MAX_LINE and names_a_side(line)
               and reader.at(i)[0] is not None for i, line in enumerate(lines)):
        return []
    groups = reader.all()
    # the runs of one side numbered one after another (`nvme-orig-1.fio:`, `nvme-orig-2.fio:`):
    # a run of them is one side's repeats, never paired run by run with the other side's
    stems = [_DIGITS_RUN.sub("#", g.caption) for g in groups]
    numbered = {k for k in range(len(groups)) if "#" in stems[k] and (
        (k > 0 and stems[k - 1] == stems[k]) or (k + 1 < len(groups) and stems[k + 1] == stems[k]))}
    out: list[Measurement] = []
    k = 0
    while k + 1 < len(groups):
        if k in numbered or k + 1 in numbered:
            k += 1
            continue
        found = _pair_groups(lines, groups[k], groups[k + 1], cmds)
        if found and k + 2 < len(groups) and _gap(groups[k + 1], groups[k + 2]) < _gap(
                groups[k], groups[k + 1]) and _pair_groups(lines, groups[k + 1], groups[k + 2], cmds):
            found = None  # the middle run's own pair is the one right after it
        if found:
            k += 2
            # (further runs each named patched against the baseline that opened them: `base
            # + 11 (+ inline completion infra)`, then `base + 11-16 (+ uring_lock hashing)`;
            # each pair is then named by its run's caption)
            base = groups[k - 2] if role_of(groups[k - 2].caption) == BASELINE else None
            runs = [(groups[k - 1], found)]
            while base is not None and k < len(groups) and k not in numbered \
                    and resolve_roles([base.caption, groups[k].caption]) == [BASELINE, PATCHED] \
                    and (more := _pair_groups(lines, base, groups[k], cmds)):
                runs.append((groups[k], more))
                k += 1
            for run, pairs in runs:
                name = (("variant", run.caption.strip().rstrip(":").strip()),) if len(runs) > 1 else ()
                out += [replace(m, condition=(*m.condition, *name)) for m in pairs]
        else:
            k += 1
    return out


def _gap(first: _Group, second: _Group) -> int:
    """Lines between the end of one group and the caption of the next."""
    return second.caption_line - max(it.line for it in first.items)


_ROLE_SEGMENT = re.compile(r"([A-Za-z][\w/+\-. ]{0,30}?)\s*[:=]\s*")


def _one_line(line: str, i: int) -> Measurement | None:
    """`before: 3.1 Mpps, after: 4.0 Mpps` (or `w/o patch: ..., with patch: ...`)."""
    if len(line) > _MAX_LINE or ":" not in line and "=" not in line:
        return None
    qs = find_quantities(line)
    if len(qs) < 2:
        return None
    starts = {q.start: q for q in qs}
    found: dict[str, tuple[re.Match[str], Quantity]] = {}
    for m in _ROLE_SEGMENT.finditer(line):
        q = starts.get(m.end())
        role = role_of(m.group(1)) if q is not None else None
        if q is not None and role in (BASELINE, PATCHED):
            if role in found:
                return None  # three or more labelled figures: a list, not a pair
            found[role] = (m, q)
    if len(found) != 2:
        return None
    (bm, bq), (pm, pq) = found[BASELINE], found[PATCHED]
    stated = stated_in([q for q in qs if q.start >= max(bq.end, pq.end)])
    first = bm if bm.start() < pm.start() else pm
    words = first.group(1)
    role_word = re.search(r"\b(?:before|after|base|baseline|vanilla|w/o|without|with|old|new|"
                          r"unpatched|patched|orig|original|stock)\b", words, re.I)
    label = (line[:first.start()] + (words[:role_word.start()] if role_word else "")).strip(" \t:-,;(")
    unit = bq.unit or pq.unit
    if not unit and not _MEASURE.search(line):
        return None  # `old: 1024 entries, new: 2048 entries` is a setting, not a result
    return Measurement(
        baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="list", line=i,
        quote=line.rstrip(), unit=unit, stated=stated, condition=label_condition(label),
        context=label,
    )


# a count written after the pair: `(10.4 Mpps -> 11.6 Mpps at 8 threads)`
_COUNT_AFTER = re.compile(r"\s*(?:[A-Za-z/.]+\s+)?,?\s*(?:at|with|using|on|for|across)\s+"
                          r"(\d[\d,]*\s+[A-Za-z][A-Za-z -]{0,24}?)\s*(?:[).;,]|$)")


def _condition_after(rest: str) -> tuple[tuple[str, str], ...]:
    """The condition a pair's own words give after it, when they count something this
    module knows as one (threads, queues, flows...): `at 8 threads` → threads=8."""
    m = _COUNT_AFTER.match(rest)
    found = counted_condition(m.group(1).replace(",", "")) if m else None
    return (found,) if found else ()




def _arrow(line: str, i: int, caption: str = "") -> Measurement | None:
    """`tcp_rr: 512k -> 578k trans/s`, `4 threads: 3.1 Mpps -> 4.0 Mpps`, `X => Y`, `X → Y`.

    Bare figures (`8 flows:   210455 -> 228170`) take their unit and metric from the caption
    above the lines (`neper tcp_rr, ..., transactions per second:`) when the label is a
    condition (`8 flows`) or absent."""
    if len(line) > _MAX_LINE or not (">" in line or "→" in line or "⇒" in line or "⟶" in line):
        return None
    arrow = _ARROW.search(line)
    if arrow is None:
        return None
    qs = find_quantities(line)
    left = [q for q in qs if q.end <= arrow.start()]
    right = [q for q in qs if q.start >= arrow.end()]
    if not left or not right:
        return None
    bq, pq = left[-1], right[0]
    if line[bq.end:arrow.start()].strip() or line[arrow.end():pq.start].strip():
        return None
    if _ARROW.match(line[pq.end:pq.end + 4]) or _ARROW.search(line[max(0, bq.start - 5):bq.start]):
        return None  # `31 -> 29 -> 30 -> 32`: a figure's path across patches, not one pair
    if line[pq.end:pq.end + 1] == "+" or line[bq.start - 1:bq.start] == "+":
        return None  # `0+512k -> 1M+512k`: offsets and lengths, sums, not figures
    label = line[:bq.start].strip(" \t:-,;")
    unit = bq.unit or pq.unit
    if not (bq.canonical_unit or pq.canonical_unit):
        # `512k -> 578k trans/s`: the unit written after the figures
        unit = unit_in_text(line[pq.end:pq.end + 40]) or unit
    if (bq.canonical_unit or pq.canonical_unit) == "B" and not SIZE_MEASURED.search(line):
        return None  # a size set or planned (`64k --> 2 MiB journey next`), no result
    if bq.kind == pq.kind == "percent" and PROFILE_SHARE.search(line[:bq.start]):
        return None  # a function's share of a profile (`io_req_local_work_add() from 3% -> 0.5%`)
    condition = label_condition(label) or _condition_after(line[pq.end:])
    context = label
    if not (unit or _MEASURE.search(label)):
        if not caption or (label and not condition):
            return None  # `queues 1 -> 8` is a setting, not a result
        unit = unit_in_text(caption)
        if not (unit or _MEASURE.search(caption)):
            return None
        context = f"{label} {caption}".strip()
    # the change may be written before the pair: `randreads: ~25% increase (~1900 MB/s ->
    # 2400 MB/s)` (one percentage on the line, the pair's)
    percents = [q for q in qs if q.kind == "percent"]
    stated = stated_in(right[1:])
    if stated is not None and len(_WORD3.findall(line, pq.end, stated.start)) >= 2 \
            and not _near_change(bq, pq, stated):
        stated = None  # a percentage further on, of something else (`..., which is 8.5% of`)
    if stated is None and len(percents) == 1 and _near_change(bq, pq, percents[0]):
        stated = percents[0]
    return Measurement(
        baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="list", line=i,
        quote=line.rstrip(), unit=unit, stated=stated, condition=condition,
        context=context,
    )


def _near_change(bq: Quantity, pq: Quantity, percent: Quantity) -> bool:
    """Whether a percentage elsewhere on a pair's line can be its change: near the change
    the figures compute (`~25% increase (~1900 MB/s -> 2400 MB/s)`: 26 %), not another
    share (`12.067 -> 12.565 MIOPS, ... more than 8.5% of the overhead`)."""
    base = bq.canonical_value if bq.canonical_value is not None else bq.value
    new = pq.canonical_value if pq.canonical_value is not None else pq.value
    if not base:
        return False
    change = abs(100.0 * (new - base) / base)
    return abs(change - abs(percent.value)) <= max(1.0, 0.25 * abs(percent.value))


def find_list_measurements(lines: Sequence[str], max_rows: int = MAX_ROWS) -> list[Measurement]:
    """Before/after pairs in the lists of a block of body lines (quote markers stripped).
    LimitExceeded when a list runs past `max_rows` items."""
    out, used = find_side_row_measurements(lines)
    used |= code_listing_lines(lines)
    # A run of arrow lines' caption: the short text line right above the run (one blank
    # line between them at most).
    caption, anchor = "", -10
    for i, line in enumerate(lines):
        if i in used:
            continue
        # (the first tests of `_one_line` and `_arrow`, inline: most lines have no `:`, `=`,
        # `>` or arrow, and two calls a line cost more than the rest of the loop)
        m = None
        if (":" in line or "=" in line) and len(line) <= _MAX_LINE:
            m = _one_line(line, i)
        if m is None and (">" in line or "→" in line or "⇒" in line or "⟶" in line) \
                and len(line) <= _MAX_LINE:
            m = _arrow(line, i, caption if i - anchor <= 2 else "")
        if m is not None:
            out.append(m)
            used.add(i)
            anchor = i
        elif line.strip():
            text = line.strip()
            caption, anchor = (text if len(text) <= _MAX_CAPTION else ""), i
    out += _relative_lines(lines, used)
    out += _block_measurements(lines, used, max_rows, ShellContext(lines))
    return out


# `XDP_REDIRECT (upstream codepath + bulking APIs): 10.1Mpps`: a label, a colon, one figure
_LABELLED = re.compile(r"\s*([A-Za-z][^:=]{0,80}?)\s*:\s*(?=[~<>]?\s*\d)")
_LABEL_WORD = re.compile(r"[a-z0-9_]+")
_LABELLED_HINT = re.compile(r"^[ \t]*[A-Za-z][^:=\n]{0,80}?:[ \t]*[~<>]?[ \t]*\d", re.M)
_ADDED = compile_words(r"^(?:\+|with\b|w/)", re.I)


def _relative_lines(lines: Sequence[str], used: set[int]) -> list[Measurement]:
    """Two lines in a row, one figure each, labelled as one setup and the same setup with
    something added, or without something:

        XDP_REDIRECT (upstream codepath): 8.5Mpps
        XDP_REDIRECT (upstream codepath + bulking APIs): 10.1Mpps

        no-private-stack:    0.662 ± 0.019M/s (drops 0.000 ± 0.000M/s)
        private-stack:       0.673 ± 0.017M/s (drops 0.000 ± 0.000M/s)

    The longer label starts with all of the shorter one's words and adds one to three,
    after a `+`, `with` or `w/` (`rx: 5 Mpps` over `rx drop: 3 Mpps` adds a different test,
    not something to the same setup); it is the patched side unless what it adds names the
    baseline (`+ revert`). A label that is the other with `no`, `non` or `without` before
    it is the baseline; so is one naming the baseline beside one naming no side that starts
    with the same word (`Routing Original Driver Network Stack: 382 Kpps`, a blank line,
    `Routing XDP Redirect (xdp_fwd_kern): 1.48 Mpps`). The figure may carry its spread and a remark in brackets; the same
    two labels again (runs repeated) count at their first pair."""
    out: list[Measurement] = []
    hints = _LABELLED_HINT.finditer(joined(lines))
    if next(hints, None) is None or next(hints, None) is None:
        return out  # (fewer than two `label: figure` lines in the block)
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    previous: _Labelled | None = None
    for i, line in enumerate(lines):
        m = _LABELLED.match(line) if ":" in line and len(line) <= _MAX_CAPTION and i not in used \
            else None
        q = _lone_figure(line, m.end()) if m else None
        if m is None or q is None:
            if line.strip():
                previous = None  # (a blank line between the two lines is allowed)
            continue
        label = m.group(1)
        here = (i, label, tuple(_LABEL_WORD.findall(label.lower())), q)
        if previous is not None and (previous[0] == i - 1 or (
                previous[0] == i - 2 and not lines[i - 1].strip())) \
                and previous[3].canonical_unit == q.canonical_unit:
            pair = (_extends(previous, here) or _extends(here, previous)
                    or _negates(previous, here) or _negates(here, previous)
                    or _sided(previous, here) or _sided(here, previous))
            if pair is not None:
                (bi, _, bwords, bq), (pi, _, pwords, pq) = pair
                used.update((previous[0], i))
                previous = None
                if (bwords, pwords) in seen:
                    continue  # a rerun of the same two
                seen.add((bwords, pwords))
                first, second = min(bi, pi), max(bi, pi)
                out.append(Measurement(
                    baseline=bq, patched=pq, source="list", line=first,
                    quote=f"{lines[first].rstrip()}\n{lines[second].rstrip()}",
                    unit=bq.unit or pq.unit, stated=None, condition=(),
                    context=f"{lines[first].strip()} {lines[second].strip()}"))
                continue
        previous = here
    return out


def _lone_figure(line: str, start: int) -> Quantity | None:
    """The one figure after a label: with a unit, maybe its spread (`± 0.019M/s`), and
    nothing else but a remark in brackets (`(drops 0.000 ± 0.000M/s)`)."""
    rest = line[start:]
    bracket = rest.find("(")
    head = rest if bracket < 0 else rest[:bracket]
    if bracket >= 0 and not rest.rstrip().endswith(")"):
        return None
    found = find_quantities(head)
    qs = [q for q in found if not is_spread(q)]
    if len(qs) != 1 or qs[0].kind != "number" or head[:qs[0].start].strip():
        return None
    residue = head
    for f in reversed(found):
        residue = residue[:f.start] + residue[f.end:]
    if residue.strip(" .,;"):
        return None  # more words than a figure: a sentence, or a figure of something else
    q = qs[0]
    spread = next((f for f in found if is_spread(f)), None)
    if not q.canonical_unit and spread is not None and spread.unit:
        q = with_unit(q, spread.unit)  # `0.662 ± 0.019M/s`: the spread names the unit
    if not q.canonical_unit:
        return None
    return Quantity(q.value, q.text, q.start + start, q.end + start, q.kind, q.unit,
                    q.canonical_unit, q.canonical_value, q.bound, q.sign, q.high)


_NEGATION = re.compile(r"^(?:no|non|without|w/o)[-\s]+", re.I)


def _sided(base: _Labelled, other: _Labelled) -> tuple[_Labelled, _Labelled] | None:
    """(baseline, patched) when two labels start alike and the first names the baseline, the
    other no side (`Routing Original Driver Network Stack` and `Routing XDP Redirect`)."""
    if not base[2] or not other[2] or base[2][0] != other[2][0] or role_of(base[1]) != BASELINE:
        return None
    return (base, other) if role_of(other[1]) is None else None


def _negates(without: _Labelled, other: _Labelled) -> tuple[_Labelled, _Labelled] | None:
    """(baseline, patched) when `without`'s label is `other`'s with `no`/`non`/`without`
    before it (`no-private-stack` and `private-stack`)."""
    m = _NEGATION.match(without[1].strip())
    if m is None or not other[2] or tuple(_LABEL_WORD.findall(without[1][m.end():].lower())) != other[2]:
        return None
    return without, other


_Labelled = tuple[int, str, tuple[str, ...], Quantity]


def _extends(short: _Labelled, long: _Labelled) -> tuple[_Labelled, _Labelled] | None:
    """(baseline, patched) when `long`'s label adds to `short`'s (see `_relative_lines`)."""
    words, more = short[2], long[2]
    if not words or more[:len(words)] != words or not 1 <= len(more) - len(words) <= 3:
        return None
    # what follows the shorter label's words in the longer one: `+ bulking APIs)`
    text = long[1].lower()
    at = 0
    for word in words:
        at = text.find(word, at) + len(word)
    if not _ADDED.search(text[at:].strip(" ()[],")):
        return None
    extra = " ".join(more[len(words):])
    return (long, short) if role_of(extra) == BASELINE else (short, long)
