"""Before/after figures in tables: pipe tables, space-aligned columns, the kernel test
robot's `%change` tables and `perf stat` blocks.

Which column is the baseline and which the patched is read from the header's words
(before/after, base/patched, vanilla, w/o / with patch, old/new, `net-next` / `net-next +
series`), never from position alone: a table whose header says neither gives nothing. The
one exception is the kernel test robot's report, whose layout is fixed (base commit first).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .commands import (
    Loop,
    Shell,
    condition_from_header,
    condition_of,
    loop_for_values,
    read_shell,
)
from .numbers import find_quantities
from .quantity import Measurement, Quantity

MAX_ROWS = 100_000
MAX_COLUMNS = 64  # more header cells than this is not a table a person wrote
_MAX_HEADER = 400  # longer lines are prose or junk, not a header
_MAX_ROW = 2_000  # regexes with adjacent optional whitespace only ever see short lines

BASELINE, PATCHED, STATED, NOISE = "baseline", "patched", "stated", "noise"

_NOISE = re.compile(r"std-?dev|\bstdev\b|\bstd\b|\bsd\b|±|\+-|\bvariance\b|\bvar\b", re.I)
# `with changes` / `this change` name the patched side, not a change column.
_STATED = re.compile(
    r"improv|\bimpr\b|delta|\bdiff\b|difference|(?<!with )(?<!this )(?<!the )\bchanges?\b"
    r"|%\s*change|\bgain|speed-?up|\bratio\b|\bpercent|Δ|regress|\bincrease\b|\bdecrease\b"
    r"|^\s*[(\[]?%[)\]]?\s*$",
    re.I,
)
_BASELINE = re.compile(
    r"\bbefore\b|\bbase(?:line)?\b|\bvanilla\b|\bunpatched\b|\bw/o\b|\bwithout\b|\bold\b"
    r"|\borig(?:inal)?\b|\bstock\b|\bpre-?patch\b|\bno[- ]?patch\b|\bprior\b|\breference\b",
    re.I,
)
_PATCHED = re.compile(
    r"\bafter\b|\bpatched\b|\bpatch(?:es|set)?\b|\bw/\s?[a-z]|\bnew\b|\bpost-?patch\b"
    r"|\bwith\s+(?:the\s+|this\s+|my\s+|your\s+|these\s+|that\s+|all\s+)?"
    r"(?:patch|patches|series|fix|fixes|change|changes|set)\b"
    r"|\bseries\b|\bfix(?:ed|es)?\b|\bapplied\b|\+\s*[A-Za-z]",
    re.I,
)
_DIGIT = re.compile(r"\d")
_SEPARATOR = re.compile(r"^[\s|:+\-=_~]*[-=_~]{3}[\s|:+\-=_~]*$")
_ALIGNED_CELL = re.compile(r"[^\t ]+(?: [^\t ]+)*")
_WORD = re.compile(r"\S+")
_LOOP_VAR = re.compile(r"^\$\{?([A-Za-z_]\w*)\}?$")
_BRACKETED = re.compile(r"[(\[]([^()\[\]]{1,40})[)\]]")
_NUM_LABEL = re.compile(r"^\s*(\d[\d.,]*)\s*([A-Za-z].*?)\s*:?\s*$")


def role_of(text: str) -> str | None:
    """What a header cell or a caption says its figures are: baseline, patched, stated
    (a change column), noise (stddev), or None."""
    if _NOISE.search(text):
        return NOISE
    if _STATED.search(text):
        return STATED
    if _BASELINE.search(text):
        return BASELINE
    if _PATCHED.search(text):
        return PATCHED
    return None


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9_.]+", text.lower()))


def resolve_roles(texts: Sequence[str]) -> list[str | None]:
    """Roles of sibling headers or captions, with the relative form: of `net-next` and
    `net-next + series` (or `3.17` and `3.17 + macvlan patch`), the bare one is the baseline."""
    roles = [role_of(t) for t in texts]
    for i, text in enumerate(texts):
        if roles[i] != PATCHED or "+" not in text:
            continue
        stem = _tokens(text.split("+", 1)[0])
        if not stem:
            continue
        for j, other in enumerate(texts):
            if roles[j] is None and _tokens(other) == stem:
                roles[j] = BASELINE
    return roles


def probe_unit(word: str) -> Quantity | None:
    """The lexer's reading of `1 <word>` when `word` is a unit (`Mpps`, `pps/thread`, `usec`)."""
    word = word.strip(" :,;")
    if not word or len(word) > 30 or _DIGIT.match(word):
        return None
    probe = "1 " + word
    found = find_quantities(probe)
    if found and found[0].start == 0 and found[0].unit and found[0].kind != "percent":
        return found[0]
    return None


def unit_in_text(text: str) -> str | None:
    """A unit named in a header or caption: `(Mpps)`, `[usec]`, `pps`, `avg. pps/thread`."""
    text = text[:_MAX_HEADER]
    candidates = [m.group(1) for m in _BRACKETED.finditer(text)]
    candidates += [w for w in _WORD.findall(text)[:16]]
    for cand in candidates:
        for word in (cand, *cand.split()):
            q = probe_unit(word.strip("()[]"))
            if q is not None:
                return q.unit
    return None


def with_unit(q: Quantity, unit: str | None) -> Quantity:
    """A bare figure given the unit its header or caption names (so `3518448` under
    `pps` gets its canonical value)."""
    if q.unit or not unit or q.kind in ("percent", "ratio"):
        return q
    found = find_quantities(f"{q.text} {unit}")
    if not found or found[0].start != 0 or not found[0].unit:
        return q
    f = found[0]
    return replace(q, unit=f.unit, canonical_unit=f.canonical_unit, canonical_value=f.canonical_value)


def figure(qs: Sequence[Quantity]) -> Quantity | None:
    """The figure of a cell: its first non-percent quantity, else its first."""
    for q in qs:
        if q.kind != "percent":
            return q
    return qs[0] if qs else None


def stated_in(qs: Sequence[Quantity]) -> Quantity | None:
    """A stated change among a cell's quantities: a percentage or a ratio."""
    for q in qs:
        if q.kind in ("percent", "ratio"):
            return q
    return None


@dataclass(frozen=True)
class _Cell:
    start: int
    end: int
    text: str


def _pipe_cells(line: str) -> list[_Cell]:
    cells: list[_Cell] = []
    start = 0
    for pos in [*(m.start() for m in re.finditer(r"\|", line)), len(line)]:
        cells.append(_Cell(start, pos, line[start:pos].strip()))
        start = pos + 1
        if len(cells) > MAX_COLUMNS * 4:
            break
    if cells and not cells[0].text and line.lstrip().startswith("|"):
        cells = cells[1:]
    if cells and not cells[-1].text and line.rstrip().endswith("|"):
        cells = cells[:-1]
    return cells


def _spans(pattern: re.Pattern[str], line: str) -> list[_Cell]:
    return [_Cell(m.start(), m.end(), m.group(0)) for m in pattern.finditer(line)]


def _display(line: str, cells: list[_Cell]) -> list[tuple[int, int]]:
    """Cells' display columns, tabs at 8 (tab-aligned tables)."""
    if "\t" not in line:
        return [(c.start, c.end) for c in cells]
    col, pos, out = 0, 0, []
    for c in cells:
        for ch in line[pos:c.start]:
            col = col + 8 - col % 8 if ch == "\t" else col + 1
        start = col
        col += c.end - c.start  # cells hold no tabs
        pos = c.end
        out.append((start, col))
    return out


def _is_diffstat(line: str) -> bool:
    # ` net/sched/act_police.c | 186 +++++-----` (seed 001's diffstat)
    return bool(re.match(r"^\s*\S+\s+\|\s+(?:\d+\s*[+\-]*|Bin\b)", line[:_MAX_HEADER]))


@dataclass(frozen=True)
class _Header:
    cells: list[_Cell]
    roles: list[str | None]
    pipe: bool
    pairs: list[tuple[int, int, int | None]]  # baseline column, patched column, stated column
    condition: int | None


def _pairs(roles: Sequence[str | None]) -> list[tuple[int, int, int | None]]:
    bases = [i for i, r in enumerate(roles) if r == BASELINE]
    patched = [i for i, r in enumerate(roles) if r == PATCHED]
    if not bases or not patched:
        return []
    if len(bases) == 1:
        raw = [(bases[0], p) for p in patched]
    elif len(bases) == len(patched):
        raw = list(zip(bases, patched, strict=True))
    else:
        return []
    out: list[tuple[int, int, int | None]] = []
    for k, (b, p) in enumerate(raw):
        limit = min(raw[k + 1]) if k + 1 < len(raw) else len(roles)
        stated = next((i for i in range(max(b, p) + 1, limit) if roles[i] == STATED), None)
        out.append((b, p, stated))
    return out


def _header(line: str) -> _Header | None:
    if len(line) > _MAX_HEADER or not (_BASELINE.search(line) or _PATCHED.search(line)):
        return None
    pipe = "|" in line and not _is_diffstat(line)
    if pipe:
        cells = _pipe_cells(line)
    else:
        cells = _spans(_ALIGNED_CELL, line)
        if len(cells) < 2 and len(_WORD.findall(line)) <= 6:
            cells = _spans(_WORD, line)
    if not 2 <= len(cells) <= MAX_COLUMNS:
        return None
    roles = resolve_roles([c.text for c in cells])
    pairs = _pairs(roles)
    if not pairs:
        return None
    # A sentence split on single spaces is not a header: every cell must be short.
    if any(len(c.text) > 40 for c in cells):
        return None
    condition = next((i for i, r in enumerate(roles) if r is None and i < min(min(p[:2]) for p in pairs)), None)
    return _Header(cells, roles, pipe, pairs, condition)


def _row_columns(header: _Header, hline: str, line: str) -> list[_Cell | None]:
    """Each header column's cell in a row (None where the row has none)."""
    n = len(header.cells)
    if header.pipe:
        cells = _pipe_cells(line)
        return [cells[i] if i < len(cells) else None for i in range(n)]
    cells = _spans(_ALIGNED_CELL, line[:_MAX_ROW * 50])
    if len(cells) < n:
        words = _spans(_WORD, line[:_MAX_ROW * 50])
        if len(words) == n:
            cells = words
    if len(cells) == n:
        return list(cells)
    # Ragged: give each row cell to the header column it overlaps, else the nearest one.
    hcols = _display(hline, header.cells)
    starts = [s for s, _ in hcols]
    out: list[_Cell | None] = [None] * n
    for cell, (s, e) in zip(cells, _display(line, cells), strict=True):
        k = max(0, bisect_right(starts, s) - 1)
        best = min(range(max(0, k - 1), min(n, k + 2)),
                   key=lambda i: (-(min(e, hcols[i][1]) - max(s, hcols[i][0])),
                                  abs((s + e) - (hcols[i][0] + hcols[i][1]))))
        if out[best] is None:
            out[best] = cell
    return out


def _row_quantities(line: str, cols: Sequence[_Cell | None], wanted: set[int]) -> list[Quantity]:
    """The row's figures up to the last cell a pair reads: a 1 MB row of pipes is not lexed
    past the columns the header names."""
    ends = [c.end for k in wanted if k < len(cols) and (c := cols[k]) is not None]
    return find_quantities(line[:max(ends)]) if ends else []


def _in_cell(qs: Sequence[Quantity], cell: _Cell | None) -> list[Quantity]:
    if cell is None:
        return []
    return [q for q in qs if cell.start <= q.start and q.end <= cell.end]


def _caption(lines: Sequence[str], i: int) -> str:
    """The line just above a table (`test results (avg. pps/thread):`), if short."""
    for k in range(i - 1, max(-1, i - 3), -1):
        text = lines[k].strip()
        if text:
            return text if len(text) <= 120 and "|" not in text else ""
    return ""


class _Commands:
    """The mail's commands and loops, read once and only when a table or list needs them."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._shell: Shell | None = None

    @property
    def shell(self) -> Shell:
        if self._shell is None:
            self._shell = read_shell(self._lines)
        return self._shell

    def name_of_variable(self, variable: str) -> str:
        return condition_of(variable, self.shell.commands) or variable

    def loop_for(self, values: Sequence[str], line: int | None = None) -> Loop | None:
        if not self.shell.loops:
            return None
        return loop_for_values(self.shell.loops, list(values), line)

    def header_name(self, header: str) -> str | None:
        return condition_from_header(header, self.shell.commands, self.shell.loops)


def condition_name(header: str, values: Sequence[str], cmds: _Commands,
                   line: int | None = None) -> str | None:
    """Name of a condition column: a loop variable's meaning (`$c` of `-t $c` → threads), a
    header word (threads, queues, size), or the loop whose values the column lists."""
    header = header.strip()
    var = _LOOP_VAR.match(header)
    if var:
        return cmds.name_of_variable(var.group(1))
    if header:
        named = cmds.header_name(header)
        if named:
            return named
    loop = cmds.loop_for(values, line) if values else None
    if loop is not None:
        return cmds.name_of_variable(loop.variable)
    return re.sub(r"\W+", "_", header.lower()).strip("_") or None


def _table(lines: Sequence[str], i: int, header: _Header, max_rows: int,
           cmds: _Commands) -> tuple[list[Measurement], int]:
    n = len(lines)
    j = i + 1
    rows: list[int] = []
    extra: list[str] = []
    blank_seen = False
    while j < n and len(rows) < max_rows:
        line = lines[j]
        if not line.strip():
            if rows or blank_seen:
                break
            blank_seen = True
        elif _SEPARATOR.match(line[:_MAX_ROW]):
            pass
        elif not _DIGIT.search(line):
            if rows or len(extra) >= 2:
                break
            extra.append(line)
        elif header.pipe and "|" not in line:
            break
        else:
            rows.append(j)
        j += 1
    if not rows:
        return [], j
    hline = lines[i]
    caption = _caption(lines, i)
    texts = [c.text for c in header.cells]
    per_row = [(r, _row_columns(header, hline, lines[r])) for r in rows]
    wanted = {k for pair in header.pairs for k in pair if k is not None}
    row_quantities = [_row_quantities(lines[r], cols, wanted) for r, cols in per_row]
    cond = header.condition
    cond_name = None
    if cond is not None:
        values = [(c.text if (c := cols[cond]) else "") for _, cols in per_row]
        cond_name = condition_name(texts[cond], values, cmds, i) or "case"
    out: list[Measurement] = []
    for b, p, s in header.pairs:
        context = " ".join(t for t in (caption, texts[b], texts[p], *extra) if t)
        header_unit = (unit_in_text(texts[b]) or unit_in_text(texts[p])
                       or unit_in_text(" ".join(extra)) or unit_in_text(caption))
        for (r, cols), qs in zip(per_row, row_quantities, strict=True):
            line = lines[r]
            bq = figure(_in_cell(qs, cols[b]))
            pqs = _in_cell(qs, cols[p])
            pq = figure(pqs)
            if bq is None or pq is None:
                continue
            stated = stated_in(_in_cell(qs, cols[s])) if s is not None else None
            if stated is None:
                stated = stated_in([q for q in pqs if q is not pq])
            unit = bq.unit or pq.unit or header_unit
            condition: tuple[tuple[str, str], ...] = ()
            label = cols[cond] if cond is not None else None
            if label is not None and label.text:
                condition = ((cond_name or "case", label.text),)
            out.append(Measurement(
                baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="table",
                line=r, quote=line.rstrip(), unit=unit, stated=stated, condition=condition,
                context=context,
            ))
    return out, j


def find_table_measurements(lines: Sequence[str], max_rows: int = MAX_ROWS) -> list[Measurement]:
    """Before/after pairs in the tables of a block of body lines (quote markers stripped).

    Pipe and aligned tables need header words naming the baseline and the patched column;
    the kernel test robot's `%change` tables and `perf stat` blocks are read by layout.
    """
    cmds = _Commands(lines)
    out: list[Measurement] = []
    i, n = 0, len(lines)
    while i < n:
        header = _header(lines[i])
        if header is None:
            i += 1
            continue
        found, end = _table(lines, i, header, max_rows, cmds)
        out += found
        i = end if found else i + 1
    out += find_lkp_measurements(lines, max_rows)
    out += find_perf_stat_measurements(lines)
    return out


# -- the kernel test robot's comparison tables ------------------------------------------------
#
#          %stddev     %change         %stddev
#              \          |                \
#      29316 ±  2%     -12.9%      25547        netperf.Throughput_Mbps
#
# Left is the base commit, right the commit tested; the layout is fixed by the robot.
_LKP_HEADER = re.compile(r"^\s*%stddev\s+%change\s+%stddev\s*$")
_LKP_END = re.compile(r"^\s*(?:\*{5}|={5}|commit:|[a-z_/]+:\s*$)")
_LKP_NUM = r"-?\d[\d.]*(?:e[+-]?\d+)?"
_LKP_ROW = re.compile(
    rf"^\s*(?P<base>{_LKP_NUM})(?:\s*±\s*\d+%)?\s+(?P<change>[+-]?\d[\d.]*%?)\s+"
    rf"(?P<patched>{_LKP_NUM})(?:\s*±\s*\d+%)?\s+(?P<metric>[A-Za-z][\w.\-:/%()]*)\s*$"
)
# Monitors the robot runs beside the benchmark: their rows are counters, not results.
_LKP_MONITORS = frozenset(str.split("""
    vmstat mpstat perf-stat perf-profile perf-sched perf-c2c perf-lock meminfo proc-vmstat
    numa-meminfo numa-vmstat slabinfo sched_debug cpuidle turbostat time softirqs interrupts
    iostat uptime boot-time latency_stats lock_stat pmeter kmsg dmesg diskstats buddyinfo
    pagetypeinfo cpufreq nfsstat sysctl cgroup ftrace sar memmap oom-killer watchdog pidstat
    last_state stderr filefrag energy power
"""))


def _quantity_at(qs: Sequence[Quantity], line: str, start: int, end: int) -> Quantity | None:
    for q in qs:
        if q.start == start or (start <= q.start < end):
            return q
    text = line[start:end]
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        return None
    kind = "percent" if text.endswith("%") else "number"
    sign = (-1 if text[0] == "-" else 1) if text[0] in "+-" else None
    return Quantity(value=abs(value) if sign else value, text=text, start=start, end=end,
                    kind=kind, unit="%" if kind == "percent" else None, sign=sign)


def find_lkp_measurements(lines: Sequence[str], max_rows: int = MAX_ROWS) -> list[Measurement]:
    """Benchmark rows of the kernel test robot's `%change` tables (monitor counters left out)."""
    out: list[Measurement] = []
    active, taken = False, 0
    for i, line in enumerate(lines):
        if len(line) > 300:
            continue
        if _LKP_HEADER.match(line):
            active = True
            continue
        if not active:
            continue
        if _LKP_END.match(line):
            active = False
            continue
        m = _LKP_ROW.match(line)
        if m is None or taken >= max_rows:
            continue
        metric = m.group("metric")
        if metric.split(".", 1)[0] in _LKP_MONITORS:
            continue
        qs = find_quantities(line)
        bq = _quantity_at(qs, line, m.start("base"), m.end("base"))
        pq = _quantity_at(qs, line, m.start("patched"), m.end("patched"))
        cq = _quantity_at(qs, line, m.start("change"), m.end("change"))
        if bq is None or pq is None:
            continue
        suffix = re.split(r"[._]", metric)[-1]
        probed = probe_unit(suffix)
        unit = bq.unit or pq.unit or (probed.unit if probed else None)
        taken += 1
        out.append(Measurement(
            baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="table", line=i,
            quote=line.rstrip(), unit=unit,
            stated=cq if cq is not None and cq.kind == "percent" else None,
            condition=(), context=metric,
        ))
    return out


# -- perf stat blocks, one run before and one after -------------------------------------------
#
#  Performance counter stats for './bench' (vanilla):
#      3,123,456,789      cycles                    #    3.101 GHz
#          1.012345 +- 0.00123 seconds time elapsed  ( +-  0.12% )
_PERF_HEADER = re.compile(r"Performance counter stats for", re.I)
_PERF_LINE = re.compile(
    r"^\s*(?P<value>\d[\d,.]*)\s+(?:\+-\s*[\d.,]+\s+)?(?:(?:msec|usec|nsec|seconds)\s+)?"
    r"(?P<event>[A-Za-z][\w\-./:=,]*(?: (?:time elapsed|user|sys))?)(?:\s+[#(].*)?\s*$"
)


@dataclass(frozen=True)
class _PerfBlock:
    start: int  # first line of the block (its header, if any)
    role: str | None
    events: dict[str, int]  # event name → line index


def _perf_role(lines: Sequence[str], start: int, floor: int) -> str | None:
    own = role_of(lines[start]) if _PERF_HEADER.search(lines[start]) else None
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


def _perf_blocks(lines: Sequence[str]) -> list[_PerfBlock]:
    blocks: list[_PerfBlock] = []
    i, n, floor = 0, len(lines), 0
    while i < n:
        line = lines[i]
        headed = bool(_PERF_HEADER.search(line[:_MAX_HEADER]))
        if not headed and not (len(line) <= 300 and _PERF_LINE.match(line)):
            i += 1
            continue
        start, j, blanks = i, i + 1 if headed else i, 0
        events: dict[str, int] = {}
        while j < n and blanks < 2:
            text = lines[j]
            if not text.strip():
                blanks += 1
            elif len(text) <= 300 and (m := _PERF_LINE.match(text)):
                blanks = 0
                events.setdefault(m.group("event"), j)
            else:
                break
            j += 1
        if headed or len(events) >= 2:
            blocks.append(_PerfBlock(start, _perf_role(lines, start, floor), events))
        floor = j
        i = max(j, i + 1)
    return blocks


def find_perf_stat_measurements(lines: Sequence[str]) -> list[Measurement]:
    """Counters of two `perf stat` runs labelled before/after (or vanilla/patched), paired by
    event name."""
    out: list[Measurement] = []
    blocks = _perf_blocks(lines)
    k = 0
    while k + 1 < len(blocks):
        first, second = blocks[k], blocks[k + 1]
        roles = (first.role, second.role)
        if roles not in ((BASELINE, PATCHED), (PATCHED, BASELINE)):
            k += 1
            continue
        base, patched = (first, second) if roles[0] == BASELINE else (second, first)
        for event, bi in base.events.items():
            pi = patched.events.get(event)
            if pi is None:
                continue
            bq = figure(find_quantities(lines[bi]))
            pq = figure(find_quantities(lines[pi]))
            if bq is None or pq is None:
                continue
            unit = bq.unit or pq.unit
            out.append(Measurement(
                baseline=bq, patched=pq, source="table", line=bi,
                quote=lines[bi].rstrip() + "\n" + lines[pi].rstrip(), unit=unit, stated=None,
                condition=(), context=event,
            ))
        k += 2
    return out
