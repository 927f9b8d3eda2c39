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
from dataclasses import dataclass

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of
from analyze.claims.shell.commands import Shell, read_shell
from analyze.claims.shell.conditions import condition_from_header, condition_of, counted_condition
from analyze.claims.shell.loops import Loop, loop_for_values
from analyze.limits import DEFAULT_LIMITS, table_too_long

from .baseline_row import find_baseline_rows
from .flag_rows import find_flag_rows
from .grouped_sides import find_grouped_sides
from .lkp import find_lkp_measurements
from .perf_stat import find_perf_stat_measurements
from .pipe_runs import MAX_COLUMNS, pipe_cells
from .pipe_runs import Cell as _Cell
from .prefixed_rows import find_prefixed_rows
from .roles import (
    BASELINE,
    NOISE,
    PATCHED,
    STATED,
    figure,
    names_a_side,
    off_word,
    probe_unit,
    resolve_roles,
    role_of,
    said_of_all,
    stated_in,
    unit_in_text,
    with_unit,
)
from .variant_rows import find_variant_rows
from .vs_cells import find_vs_cells

MAX_ROWS = DEFAULT_LIMITS.table_lines
_MAX_HEADER = 400  # longer lines are prose or junk, not a header
_MAX_ROW = 2_000  # regexes with adjacent optional whitespace only ever see short lines


_DIGIT = re.compile(r"\d")
# a row named by a word and its number: `Instance 1`, `Run 2`, `job 3`
_INDEX_LABEL = re.compile(r"^\s*[A-Za-z][A-Za-z_-]*\s+#?\d{1,3}(?![\d.,%])\b")
# a kernel or firmware log's time stamp, with its level or caller: `[ 0.015116735,6]`, `[ 14.46][ T1]`
_LOG_STAMP = re.compile(r"^\s*\[\s*\d+\.\d+(?:,\d+)?\]")
_SEPARATOR = re.compile(r"^[\s|:+\-=_~]*[-=_~]{3}[\s|:+\-=_~]*$")
_ALIGNED_CELL = re.compile(r"[^\t ]+(?: [^\t ]+)*")
_WORD = re.compile(r"\S+")
_LOOP_VAR = re.compile(r"^\$\{?([A-Za-z_]\w*)\}?$")
_FOR_WORD = re.compile(r"\bfor\b")
# scripts/bloat-o-meter's `Function  old  new  delta`: code sizes, never a claim
_BLOAT_O_METER = re.compile(r"^\s*function\s+old\s+new\s+delta\s*$", re.I)
_DIFFSTAT = re.compile(r"^\s*\S+\s+\|\s+(?:\d+\s*[+\-]*|Bin\b)")

__all__ = [
    "BASELINE", "MAX_ROWS", "NOISE", "PATCHED", "STATED", "condition_name", "figure",
    "find_lkp_measurements", "find_perf_stat_measurements", "find_table_measurements",
    "probe_unit", "resolve_roles", "role_of", "stated_in", "unit_in_text", "with_unit",
]


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
    return bool(_DIFFSTAT.match(line[:_MAX_HEADER]))


@dataclass(frozen=True, slots=True)
class _Header:
    cells: list[_Cell]
    roles: list[str | None]
    pipe: bool
    pairs: list[tuple[int, int, int | None]]  # baseline column, patched column, stated column
    condition: int | None


# of two change columns after a pair (`diff | % change`), the one that is a percentage
_RELATIVE = re.compile(r"%|percent|\bchange|gain|improv|speed", re.I)


def _pairs(roles: Sequence[str | None], texts: Sequence[str] = ()) -> list[tuple[int, int, int | None]]:
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
        changes = [i for i in range(max(b, p) + 1, limit) if roles[i] == STATED]
        relative = [i for i in changes if texts and _RELATIVE.search(texts[i])]
        chosen = relative or changes
        out.append((b, p, chosen[0] if chosen else None))
    return out


# perf report / perf diff: a symbol's line, `[k]` in the kernel, `[.]` in user space
_PROFILE_ROW = re.compile(r"\[[k.]\]\s+\S")
_PLAIN_NUMBER = re.compile(r"\s*[\d.,]+\s*$")


def _variants(roles: list[str | None], cells: Sequence[_Cell], line: str) -> list[str | None]:
    """A header with one baseline column and no patched one (`| baseline | 0-15 | 0-16 |
    diff`): the unnamed columns after the baseline are variants of the patched side, each
    compared with the baseline. Only when a column of row labels comes first (the baseline's
    row label in an aligned table, `baseline  2900  5800`, is no header) and no unnamed
    column is a bare number (a sweep's values)."""
    if roles.count(BASELINE) != 1 or PATCHED in roles:
        return roles
    b = roles.index(BASELINE)
    after = [k for k in range(b + 1, len(roles)) if roles[k] is None]
    labels_first = b > 0 or "|" in line[:cells[b].start]  # (`           | baseline  | ...`)
    if not labels_first or not after or any(_PLAIN_NUMBER.match(cells[k].text) for k in after):
        return roles
    stop = next((k for k in range(b + 1, len(roles)) if roles[k] is not None), len(roles))
    return [PATCHED if b < k < stop and r is None else r for k, r in enumerate(roles)]


def _header(line: str) -> _Header | None:
    if len(line) > _MAX_HEADER or not names_a_side(line) or _BLOAT_O_METER.match(line):
        return None
    pipe = "|" in line and not _is_diffstat(line)
    if pipe:
        cells = pipe_cells(line)
    elif "\t" not in line and "  " not in line and len(line.split()) > 6:
        return None  # words one space apart are one aligned cell, and too many for a header
    else:
        cells = _spans(_ALIGNED_CELL, line)
        words = len(cells) < 2
        if words and len(_WORD.findall(line)) <= 6:
            cells = _spans(_WORD, line)
    if not 2 <= len(cells) <= MAX_COLUMNS:
        return None
    roles = _variants(resolve_roles([c.text for c in cells]), cells, line)
    if PATCHED in roles and BASELINE not in roles:
        # (`default` over one column, `patched` over the other: the side the switch has off)
        roles = [BASELINE if r is None and off_word(c.text) else r for r, c in zip(roles, cells, strict=True)]
    if not pipe and words and ("(" in line or ")" in line):
        return None  # a caption's aside split on its blanks (`ro (w/o -rw=rw option)`), no header
    if not pipe and words and (any(r is None for r in roles[1:]) or line.rstrip().endswith(":")):
        # words one space apart are a header only when each names a column (`threads before
        # after`); `Without your patches applied -` is a caption in words, and so is a line
        # that ends in a colon (`Using two threads, baseline kernel:`): it leads into what follows
        return None
    pairs = _pairs(roles, [c.text for c in cells])
    if not pairs:
        return None
    # A sentence split on single spaces is not a header: every cell must be short.
    if any(len(c.text) > 40 for c in cells):
        return None
    condition = next((i for i, r in enumerate(roles) if r is None and i < min(min(p[:2]) for p in pairs)), None)
    return _Header(cells, roles, pipe, pairs, condition)


def _row_columns(header: _Header, hline: str, line: str) -> tuple[list[_Cell | None], _Cell | None]:
    """Each header column's cell in a row (None where the row has none), and the row's label
    when the header has no column for it: in

                          old          new
      throughput      94.12 Gbps   94.08 Gbps

    `throughput` sits left of every header column and names the row."""
    n = len(header.cells)
    if header.pipe:
        cells = pipe_cells(line)
        if len(cells) == n + 1 and hline.lstrip().startswith("|") \
                and not line.lstrip().startswith("|"):
            # the header's label cell is blank (`      | baseline | ...`), the row's is not
            return list(cells[1:]), cells[0]
        return [cells[i] if i < len(cells) else None for i in range(n)], None
    cells = _spans(_ALIGNED_CELL, line[:_MAX_ROW * 50])
    if len(cells) < n:
        words = _spans(_WORD, line[:_MAX_ROW * 50])
        if len(words) == n:
            cells = words
    if len(cells) == n:
        return list(cells), None
    # Ragged: give each row cell to the header column it overlaps, else the nearest one.
    hcols = _display(hline, header.cells)
    starts = [s for s, _ in hcols]
    out: list[_Cell | None] = [None] * n
    label = None
    for k, (cell, (s, e)) in enumerate(zip(cells, _display(line, cells), strict=True)):
        if k == 0 and e <= starts[0] and header.condition is None:
            label = cell
            continue
        near = max(0, bisect_right(starts, s) - 1)
        best = min(range(max(0, near - 1), min(n, near + 2)),
                   key=lambda i: (-(min(e, hcols[i][1]) - max(s, hcols[i][0])),
                                  abs((s + e) - (hcols[i][0] + hcols[i][1]))))
        if out[best] is None:
            out[best] = cell
    return out, label


def _row_quantities(line: str, cols: Sequence[_Cell | None], wanted: set[int]) -> list[Quantity]:
    """The row's figures up to the last cell a pair reads: a 1 MB row of pipes is not lexed
    past the columns the header names."""
    ends = [c.end for k in wanted if k < len(cols) and (c := cols[k]) is not None]
    return find_quantities(line[:max(ends)]) if ends else []


def _in_cell(qs: Sequence[Quantity], cell: _Cell | None) -> list[Quantity]:
    if cell is None:
        return []
    return [q for q in qs if cell.start <= q.start and q.end <= cell.end]


_CAPTION_LINES = 3


def _caption(lines: Sequence[str], i: int, most: int = _CAPTION_LINES) -> str:
    """The lines just above a table (`test results (avg. pps/thread):`), if short: a caption
    may wrap (`netperf TCP_RR mean latency in microseconds after the resize,` over `lower
    is better:`), so up to three lines of its paragraph."""
    k = i - 1
    if k >= 0 and not lines[k].strip():
        k -= 1
    found: list[str] = []
    while k >= 0 and len(found) < most:
        text = lines[k].strip()
        if not text:
            if len(found) == 1 and _GROUPS.fullmatch(found[0]) and _introduces(lines, k - 1):
                # (a header's groups over it, `ext4  bcachefs`, and over them the sentence
                # that introduces the table, `... in seconds is as follows.`)
                k -= 1
                continue
            break
        if len(text) > 120 or "|" in text:
            return " ".join(reversed(found))
        found.append(text)
        k -= 1
    return " ".join(reversed(found))


# a line of a few column groups' names (`ext4      bcachefs`), no sentence
_GROUPS = re.compile(r"[\w.+/-]+(?:\s{2,}[\w.+/-]+){1,5}")
_INTRODUCES = re.compile(r":\s*$|\b(?:is|are)\s+(?:as\s+follows|below)\b", re.I)


def _introduces(lines: Sequence[str], k: int) -> bool:
    """Line k ends a short paragraph that introduces what follows (`... is as follows.`,
    a colon at its end)."""
    paragraph: list[str] = []
    while k >= 0 and lines[k].strip() and len(paragraph) < _CAPTION_LINES:
        if len(lines[k]) > 120:
            return False
        paragraph.append(lines[k].strip())
        k -= 1
    return bool(paragraph) and _INTRODUCES.search(" ".join(reversed(paragraph))) is not None


# a caption's legend for the figures under it: `A few numbers in Mb/sec (w/retpoline) ...`
_LEGEND = re.compile(r"\b(?:numbers|figures|results|values|data|rates|times)\s+(?:are\s+|shown\s+)?in\s+([^\s,;()]+)"
                     # (a sentence that says in what unit what follows is: `... with varying
                     # thread count in seconds is as follows`)
                     r"|\bin\s+([A-Za-z][\w/]{0,15})\s+(?:is|are)\s+(?:as\s+follows|below|shown|listed|given)\b",
                     re.I)


def _legend_unit(caption: str) -> str | None:
    """The unit a caption's legend gives the figures under it, anywhere in the caption
    (`A few numbers in Mb/sec ... with N rules`): said of the figures themselves, unlike a
    unit in the caption's other sentences (`with 4KB bytes per send`)."""
    m = _LEGEND.search(caption) if caption else None
    return unit_in_text(m.group(m.lastindex or 1)) if m else None


class ShellContext:
    """The mail's commands and loops, read once and only when a table or list needs them."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._shell: Shell | None = None
        self._may_loop: bool | None = None

    @property
    def shell(self) -> Shell:
        if self._shell is None:
            self._shell = read_shell(self._lines)
        return self._shell

    @property
    def may_loop(self) -> bool:
        """Whether the lines can hold a shell loop at all: every loop starts with the word
        `for` (`before`, `format` hold no loop)."""
        if self._may_loop is None:
            self._may_loop = any("for" in line and _FOR_WORD.search(line) for line in self._lines)
        return self._may_loop

    def name_of_variable(self, variable: str) -> str:
        return condition_of(variable, self.shell.commands) or variable

    def loop_for(self, values: Sequence[str], line: int | None = None) -> Loop | None:
        if not self.may_loop or not self.shell.loops:
            return None
        return loop_for_values(self.shell.loops, list(values), line)

    def header_name(self, header: str) -> str | None:
        # The commands name a header only when it is a `$var` or a loop's variable.
        if not self.may_loop and not _LOOP_VAR.match(header.strip()):
            return condition_from_header(header)
        return condition_from_header(header, self.shell.commands, self.shell.loops)


def condition_name(header: str, values: Sequence[str], cmds: ShellContext,
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


def _note(lines: Sequence[str], j: int) -> str:
    """The line just below a table, when short: `(all figures in Mpps; ...)`."""
    for k in range(j, min(len(lines), j + 2)):
        text = lines[k].strip()
        if text:
            return text if len(text) <= 120 and "|" not in text else ""
    return ""


def measure_label(label: str) -> str | None:
    """The unit a row label names when the label is a measure, not a condition: in a table
    with one metric per row (`tcp_stream (Gbit/s)`, `tcp_rr p99 latency (us)`, `rx core
    busy`), the label says what the row's figures are. Returns the unit ("" when the label
    names a metric without one), or None when the label is a condition (`64`, `4 threads`)."""
    label = label.strip()
    if not label or _DIGIT.match(label) or len(label) > 60:
        return None
    unit = unit_in_text(label)
    if unit is not None:
        return unit
    return "" if metric_of(None, label) != "other" else None


def _group_units(lines: Sequence[str], i: int, cells: int) -> dict[int, str]:
    """The units a pipe table's row of group labels over its header names, by header cell:
    `| Test |Cycles | 1-5 |    | Nanosec | ...` over `| name |Before | After |diff| Before
    | ...`: each cell takes the unit of the nearest label at or left of it."""
    if i == 0 or lines[i - 1].count("|") != lines[i].count("|"):
        return {}
    above = lines[i - 1].split("|")[1:]
    out: dict[int, str] = {}
    unit: str | None = None
    for k in range(min(cells, len(above))):
        found = unit_in_text(above[k]) if above[k].strip() else None
        if k == 0:
            continue  # (the row labels' column)
        unit = found or unit
        if unit:
            out[k] = unit
    return out


def _rows(lines: Sequence[str], i: int, header: _Header,
          max_rows: int) -> tuple[list[int], list[str], int]:
    """The table's rows below header line i, the text-only lines among the first ones
    (`(Mpps)` under the header), and the line after the table."""
    n = len(lines)
    j = i + 1
    rows: list[int] = []
    extra: list[str] = []
    blank_seen = False
    while j < n and len(rows) <= max_rows:
        line = lines[j]
        if not line.strip():
            if rows and _row_after_gap(lines, j, rows[-1]):
                j += 1
                continue
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
        elif _LOG_STAMP.match(line):
            break  # a kernel log's line (`[    0.015116735,6] CPU: ...`): no table's row
        elif rows and len(line) <= _MAX_HEADER and names_a_side(line) and _header(line) is not None:
            break  # the next table's header (`| bs_8k | base[kiops] | new[kiops] |`)
        else:
            rows.append(j)
        j += 1
    if len(rows) > max_rows:
        raise table_too_long(max_rows)
    return rows, extra, j


def _row_after_gap(lines: Sequence[str], j: int, last: int) -> bool:
    """Whether the blank line j only spaces out one table: the line after it is one more row
    of the last row's shape (a label, then as many aligned cells, each holding a figure, at
    the same columns) and stands alone, with a blank or the end after it. A `=20` a mail's
    encoding left at the end of a row decodes to such a gap, and so does a writer's spacing
    before a last row (`CPU util%:  37%  78%`)."""
    k = j + 1
    if k >= len(lines) or not lines[k].strip() or (k + 1 < len(lines) and lines[k + 1].strip()):
        return False
    row, prev = lines[k][:_MAX_ROW], lines[last][:_MAX_ROW]
    if _header(row) is not None or _LOG_STAMP.match(row):
        return False
    cells, before = _spans(_ALIGNED_CELL, row), _spans(_ALIGNED_CELL, prev)
    if len(cells) != len(before) or len(cells) < 2:
        return False
    if not all(_DIGIT.search(c.text) for c in cells[1:]) or _DIGIT.match(cells[0].text):
        return False
    # the figures under the ones above them: each cell's right end within a few columns
    return all(abs(a - b) <= 4 or abs(s - t) <= 4 for (s, a), (t, b)
               in zip(_display(row, cells)[1:], _display(prev, before)[1:], strict=True))


def _table(lines: Sequence[str], i: int, header: _Header, max_rows: int,
           cmds: ShellContext) -> tuple[list[Measurement], int]:
    rows, extra, j = _rows(lines, i, header, max_rows)
    if not rows:
        return [], j
    hline = lines[i]
    caption = _caption(lines, i)
    # (the unit from the caption's last line only, the one over the table: a paragraph above
    # it names the figures of its own sentences, `with 4KB bytes per send`)
    near = caption[len(caption) - len(_caption(lines, i, 1)):] if caption else ""
    texts = [c.text for c in header.cells]
    per_row = [(r, *_row_columns(header, hline, lines[r])) for r in rows]
    wanted = {k for pair in header.pairs for k in pair if k is not None}
    row_quantities = [_row_quantities(lines[r], cols, wanted) for r, cols, _ in per_row]
    cond = header.condition
    labels = [(c.text if (c := (cols[cond] if cond is not None else implied)) else "")
              for _, cols, implied in per_row]
    # One metric per row: the labels name measures (`tcp_rr (trans/s)`), not conditions. So
    # do word labels on rows whose figures have different units (Gbps, %, MB).
    measures = [measure_label(t) for t in labels]
    b0 = header.pairs[0][0]
    first_bases = [figure(_in_cell(qs, cols[b0]))
                   for (_, cols, _), qs in zip(per_row, row_quantities, strict=True)]
    row_units = {q.canonical_unit for q in first_bases if q is not None}
    worded = [t for t in labels if t]
    by_measure = bool(worded) and not any(_DIGIT.match(t) for t in worded) and (
        len(row_units) > 1 or all(m is not None for m, t in zip(measures, labels, strict=True) if t))
    measures = [m or "" for m in measures]
    cond_name = None
    counted: dict[str, tuple[str, str]] = {}
    if not by_measure and any(labels):
        # rows named by words (`UDP tx`, `UDP rx`) are named quantities: measures
        unnamed = "case" if any(_DIGIT.match(t) for t in labels if t) else "measure"
        cond_name = condition_name(texts[cond] if cond is not None else "", labels, cmds, i) or unnamed
        # labels that count what varies (`1 queue`, `4 queues`): the noun names it
        found = {t: counted_condition(t) for t in labels if t}
        if all(found.values()) and len({c[0] for c in found.values() if c}) == 1:
            counted = {t: c for t, c in found.items() if c}
    note = _note(lines, j)
    # what the caption or the note under the table says of all its figures: `Numbers are
    # times so lower is better`
    of_all, lower_better = said_of_all(f"{caption} {note}")
    groups = _group_units(lines, i, len(texts)) if header.pipe else {}
    out: list[Measurement] = []
    for b, p, s in header.pairs:
        context = " ".join(t for t in (caption, texts[b], texts[p], *extra, groups.get(b, "")) if t)
        header_unit = (unit_in_text(texts[b]) or unit_in_text(texts[p]) or groups.get(b)
                       or unit_in_text(" ".join(extra)) or unit_in_text(near)
                       or unit_in_text(note) or _legend_unit(caption))
        for (r, cols, _), qs, label, measure, first_base in zip(
                per_row, row_quantities, labels, measures, first_bases, strict=True):
            line = lines[r]
            if "[" in line and _PROFILE_ROW.search(line):
                continue  # a profile's share of a symbol (`3.98%  -3.95%  [k] sg_next`)
            bq = first_base if b == b0 else figure(_in_cell(qs, cols[b]))
            pqs = _in_cell(qs, cols[p])
            pq = figure(pqs)
            if bq is None or pq is None:
                continue
            index = _INDEX_LABEL.match(line)
            if index is not None and (bq.end <= index.end() or pq.end <= index.end()):
                continue  # the row's own number (`Instance 1`, `Run 2`) is its label, no side
            stated = stated_in(_in_cell(qs, cols[s])) if s is not None else None
            if stated is None and s is not None:
                stated = _bare_percent(_in_cell(qs, cols[s]), bq, pq)
            if stated is None:
                stated = stated_in([q for q in pqs if q is not pq])
            condition: tuple[tuple[str, str], ...] = ()
            row_context = context
            if by_measure:
                unit = bq.unit or pq.unit or measure or header_unit
                row_context = f"{label} {context}"
            else:
                unit = bq.unit or pq.unit or header_unit
                if label in counted:
                    condition = (counted[label],)
                elif label:
                    condition = ((cond_name or "case", label),)
            out.append(Measurement(
                baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="table",
                line=r, quote=line.rstrip(), unit=unit, stated=stated, condition=condition,
                context=f"{row_context} {of_all}" if of_all else row_context,
                lower_is_better=lower_better,
            ))
    return out, j


def _bare_percent(cell: Sequence[Quantity], bq: Quantity, pq: Quantity) -> Quantity | None:
    """A change column's figure written without `%` (`| delta |` over `2.48`), read as the
    percentage it is when the pair beside it works out to it; an absolute delta is not."""
    if len(cell) != 1 or cell[0].kind != "number" or not bq.value:
        return None
    q = cell[0]
    change = 100.0 * (pq.value - bq.value) / bq.value
    digits = len(q.text.split(".")[1]) if "." in q.text else 0
    if abs(q.value - change) > 0.5 * 10 ** -digits + 0.005 * abs(change) + 0.05:
        return None
    return Quantity(q.value, q.text, q.start, q.end, "percent", "%", "%", q.value, q.bound,
                    q.sign, q.high)


def find_table_measurements(lines: Sequence[str], max_rows: int = MAX_ROWS) -> list[Measurement]:
    """Before/after pairs in the tables of a block of body lines (quote markers stripped).
    LimitExceeded when a table has more than `max_rows` rows.

    Pipe and aligned tables need header words naming the baseline and the patched column;
    the kernel test robot's `%change` tables and `perf stat` blocks are read by layout.
    """
    cmds = ShellContext(lines)
    out, grouped = find_grouped_sides(lines)
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        # (the first test of `_header`, inline: most lines name no side)
        header = _header(line) if len(line) <= _MAX_HEADER and names_a_side(line) \
            and i not in grouped else None
        if header is None:
            i += 1
            continue
        found, end = _table(lines, i, header, max_rows, cmds)
        out += found
        i = end if found else i + 1
    out += find_lkp_measurements(lines, max_rows)
    out += find_perf_stat_measurements(lines)
    out += find_vs_cells(lines)
    out += find_variant_rows(lines)
    out += find_baseline_rows(lines)
    out += find_prefixed_rows(lines)
    taken = {m.line for m in out}
    out += [m for m in find_flag_rows(lines) if m.line not in taken]
    return out
