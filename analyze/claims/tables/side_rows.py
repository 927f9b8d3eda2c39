"""Before/after figures in rows named by their side: a table turned on its side.

              p50     p90     p99
  before     24.6    29.8    47.1
  after      22.9    26.4    38.3

  w/o patch:  udp tx:    987 MB/s    16742 calls/s
  with patch: udp tx:   1342 MB/s    22770 calls/s

Each row starts with a label naming its side (before/after, base/patched, w/o / with ...,
read by `roles.role_of`), then figures. A baseline row and the patched row next to it
pair column by column when they are the same template: as many figures, and the same words
between them, and when each column is a result: its figures have a unit, or the caption or
the column's name says what they measure (`old: 4096 87380 6291456` is a setting). The line
above the rows, when it has a cell per column, names the columns (`p50` is the measure;
`threads 1 2 4` names the condition and its values); the line above that is the caption,
which may name the unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity, is_argument
from analyze.claims.lexer.units import metric_of
from analyze.claims.shell.conditions import condition_from_header

from .roles import BASELINE, PATCHED, names_a_side, role_of, unit_in_text, with_unit

_MAX_LINE = 2_000
# the side label: words, then `:`/`=` or a column gap
_SIDE = re.compile(r"\s*([A-Za-z][\w .\-/+()]{0,40}?)(?:\s*[:=]\s*|\s{2,}|\t+)(?=\S)")
_WORD = re.compile(r"\S+")
_WITH = frozenset({"w/", "w/o", "with", "without", "wo/"})
# the same label with the word after `w/` in it, however far the typist spaced them
_SIDE_WORDS = re.compile(r"\s*((?:w/o?|wo/|with(?:out)?)\s+[A-Za-z][\w.\-/+()]{0,30})"
                         r"(?:\s*[:=]\s*|\s{2,}|\t+)(?=\S)", re.I)


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    role: str
    label: str
    figures: tuple[Quantity, ...]
    template: tuple[str, ...]  # the words between the figures
    setup: str = ""  # what the label adds to its side word (`Before + tc accept`: `+ tc accept`)


def _row(line: str, i: int) -> _Row | None:
    if len(line) > _MAX_LINE or not names_a_side(line):
        return None  # the label names a side, so the line does (and that answer is kept)
    m = _SIDE.match(line)
    if m is None:
        return None
    if m.group(1).lower() in _WITH and (longer := _SIDE_WORDS.match(line)) is not None:
        m = longer  # `w/  patch  516,863 ...`: the label is not `w/` alone
    role = role_of(m.group(1))
    if role not in (BASELINE, PATCHED):
        return None
    if "=" in line[m.end():]:
        return None  # `key=value` output: the list reader reads it by key
    figures = tuple(q for q in find_quantities(line) if q.start >= m.end())
    if len(figures) < 2 or any(q.kind in ("percent", "ratio") for q in figures):
        return None  # one figure is a list item; a percentage is a change, not a side
    if any(is_argument(line, q) for q in figures):
        return None  # `Before: in_range(10, 40)`: a call's arguments
    # (the words before the first figure are the label's, however the typist spaced it)
    rest, pos = [], figures[0].start
    for q in figures:
        rest.append(line[pos:q.start])
        pos = q.end
    rest.append(line[pos:])
    template = tuple(w for part in rest for w in _WORD.findall(part))
    # (from the whole text before the figures: `After  + tc accept:`, however spaced)
    return _Row(i, role, m.group(1).strip(), figures, template, _setup(line[:figures[0].start]))


def _columns(lines: Sequence[str], first: int, n: int) -> tuple[str | None, list[str], str]:
    """The condition name and column names from the line above the rows (or none), and the
    caption above that."""
    above = first - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    if above < 0:
        return None, [], ""
    cells = lines[above].split()
    if len(cells) == n and not lines[above].rstrip().endswith(":"):
        return None, cells, _caption(lines, above)
    if len(cells) == n + 1 and all(c[:1].isdigit() for c in cells[1:]):
        return condition_from_header(cells[0]) or cells[0].lower(), cells[1:], _caption(lines, above)
    return None, [], lines[above].strip() if len(lines[above]) <= 160 else ""


def _caption(lines: Sequence[str], at: int) -> str:
    k = at - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    return lines[k].strip() if k >= 0 and len(lines[k]) <= 160 else ""


def _runs(base: _Row, patched: _Row, names: list[str]) -> Measurement | None:
    """Rows of runs, not of columns: several bare figures and the unit written once after
    the last (`Before: 2076 2076 2077 2074 Mb/sec`), no column names over them. One
    measurement: the first run of each side (rule 4 of docs/claims.md), every run kept."""
    figures = (base.figures, patched.figures)
    if names or len(base.figures) < 3 or any(
            q.unit for side in figures for q in side[:-1]) or not (
            base.figures[-1].unit and patched.figures[-1].unit == base.figures[-1].unit):
        return None
    unit = base.figures[-1].unit
    return Measurement(
        baseline=with_unit(base.figures[0], unit), patched=with_unit(patched.figures[0], unit),
        source="list", line=base.line, quote="", unit=unit,
        runs=(tuple(q.value for q in base.figures), tuple(q.value for q in patched.figures)),
    )


def _pair(lines: Sequence[str], base: _Row, patched: _Row) -> list[Measurement]:
    first = min(base.line, patched.line)
    n = len(base.figures)
    condition_name, names, caption = _columns(lines, first, n)
    caption_unit = unit_in_text(caption) if caption else None
    quote = lines[base.line].rstrip() + "\n" + lines[patched.line].rstrip()
    runs = _runs(base, patched, names)
    if runs is not None:
        return [replace(runs, quote=quote, context=" ".join((caption, *base.template)))]
    out = []
    for k, (b, p) in enumerate(zip(base.figures, patched.figures, strict=True)):
        if b.canonical_unit != p.canonical_unit:
            return []  # not the same template after all
        after = lines[base.line][b.end:b.end + 24]
        unit = b.unit or p.unit or unit_in_text(after.split("  ")[0]) or caption_unit
        name = names[k] if names else ""
        if unit is None and metric_of(None, f"{caption} {name}") == "other":
            # `old: 4096 87380 6291456`, `RX 512  TX 512`: settings, not results. Results
            # have a unit, or a caption or column that names what they measure.
            return []
        condition: tuple[tuple[str, str], ...] = ()
        if condition_name and name:
            condition = ((condition_name, name),)
        elif name:
            condition = (("measure", name),)
        context = " ".join(t for t in (caption, name, " ".join(base.template), after) if t)
        out.append(Measurement(
            baseline=with_unit(b, unit), patched=with_unit(p, unit), source="list",
            line=base.line, quote=lines[base.line].rstrip() + "\n" + lines[patched.line].rstrip(),
            unit=unit, condition=condition, context=context,
        ))
    return out


def find_side_row_measurements(lines: Sequence[str]) -> tuple[list[Measurement], set[int]]:
    """The pairs of side-named rows in a block, and the lines they were read from."""
    out: list[Measurement] = []
    used: set[int] = set()
    previous: _Row | None = None
    by_line = {i: r for i, line in enumerate(lines) if line.strip() and (r := _row(line, i)) is not None}
    # (`Before + tc accept` pairs with `After + tc accept`, not with the `After` above it)
    setups = {(r.role, r.setup) for r in by_line.values()}
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        row = by_line.get(i)
        if row is not None and previous is not None and row.role != previous.role \
                and row.line == _next_line(lines, previous.line) \
                and len(row.figures) == len(previous.figures) and row.template == previous.template \
                and _same_setup(previous, row, setups):
            base, patched = (previous, row) if previous.role == BASELINE else (row, previous)
            found = _pair(lines, base, patched)
            if found:
                out += found
                used.update((base.line, patched.line))
                row = None  # a row pairs once
        previous = row
    return out, used


_SIDE_WORD = re.compile(
    r"^\s*(?:before|after|base(?:line)?|patched|old|new|vanilla|stock|w/o?|wo/|with(?:out)?|"
    r"unpatched|orig(?:inal)?|current)\b\s*", re.I)


def _setup(label: str) -> str:
    """What a side label adds to its side word (`Before + tc accept:`: `+ tc accept`)."""
    return " ".join(_SIDE_WORD.sub("", label, count=1).split()).strip(" :=").lower()


def _same_setup(a: _Row, b: _Row, setups: set[tuple[str, str]]) -> bool:
    """Two adjacent rows of opposite sides are one setup's, unless their labels add
    different setups and the block holds a row of the other side with each one's setup."""
    mine, theirs = a.setup, b.setup
    return mine == theirs or not ((b.role, mine) in setups or (a.role, theirs) in setups)


def _next_line(lines: Sequence[str], i: int) -> int:
    """The next line after i that is not blank."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j
