"""Aligned tables whose rows come in pairs told apart by one column switched off and on:

    recv size    coalesce    threads    bw          cpu usage    bw diff
    =====================================================================
    64             0           1       23GB/sec       100%
    64             1           1       46GB/sec        79%        +100%
    64             0           4       81GB/sec       370%

Structure first: the columns are placed by the header's words (a name of two words stays
one column when one blank parts them); a column of settings (no unit) whose values are two,
set one way and the other (`0` and `1`, `off` and `on`: `roles.contrast_roles` on the
column's name with each value), is the side; the other setting columns are the case. A row
pairs with the row of the other side in the same case, and each column of results (a unit
or a percentage) is a claim; a column the header calls a change (`bw diff`) is the stated
change of the result it names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.block_text import joined
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity

from .roles import BASELINE, STATED, contrast_roles, role_of

_MAX_LINE = 300
_MAX_ROWS = 200
_RULE = re.compile(r"^\s*[-=~_+|]{8,}\s*$")
_WIDE = re.compile(r"\S {2,}\S.*\S {2,}\S")
_HEADER_CELL = re.compile(r"\S+(?: \S+)*")  # words parted by one blank are one name
_ROW_CELL = re.compile(r"[+\-~±]\s{0,3}\d\S*|\S+")  # `+  7%`, `+100%`: one cell each


@dataclass(frozen=True, slots=True)
class _Column:
    name: str
    start: int
    end: int


def _columns(header: str) -> list[_Column]:
    return [_Column(m.group(0), m.start(), m.end()) for m in _HEADER_CELL.finditer(header)]


def _place(columns: Sequence[_Column], start: int, end: int) -> int | None:
    """The column a cell at [start, end) stands under: the one it overlaps most, else the
    nearest by centre."""
    best, overlap = None, 0
    for k, c in enumerate(columns):
        shared = min(end, c.end) - max(start, c.start)
        if shared > overlap:
            best, overlap = k, shared
    if best is not None:
        return best
    centre = (start + end) / 2
    k = min(range(len(columns)), key=lambda j: abs((columns[j].start + columns[j].end) / 2 - centre))
    return k if abs((columns[k].start + columns[k].end) / 2 - centre) <= 12 else None


def _cells(line: str, columns: Sequence[_Column]) -> dict[int, str] | None:
    out: dict[int, str] = {}
    for m in _ROW_CELL.finditer(line):
        k = _place(columns, m.start(), m.end())
        if k is None or k in out:
            return None
        out[k] = m.group(0)
    return out


def _figure(cell: str) -> Quantity | None:
    found = [q for q in find_quantities(cell.replace(" ", "")) if q.kind != "ratio"]
    return found[0] if len(found) == 1 and found[0].start == 0 else None


def find_flag_rows(lines: Sequence[str]) -> list[Measurement]:
    """The pairs of the flag-switched rows of each aligned table of a block (see the module)."""
    out: list[Measurement] = []
    if not _WIDE.search(joined(lines)):
        return out  # (no line with two wide gaps, so no header: one scan of the block in C)
    i = 0
    while i < len(lines) - 2:
        header = lines[i]
        # (cheap tests first: a header of three names or more parted by wide blanks, over a
        # rule or a row with figures)
        if len(header) > _MAX_LINE or not _WIDE.search(header) or any(ch.isdigit() for ch in header) \
                or not (_RULE.match(lines[i + 1]) or any(ch.isdigit() for ch in lines[i + 1])) \
                or len(_columns(header)) < 3:
            i += 1
            continue
        j = i + 1
        if _RULE.match(lines[j]):
            j += 1
        rows: list[int] = []
        while j < len(lines) and lines[j].strip() and len(rows) < _MAX_ROWS \
                and len(lines[j]) <= _MAX_LINE:
            rows.append(j)
            j += 1
        found = _table(lines, header, rows) if len(rows) >= 2 else []
        out += found
        i = j if found else i + 1
    return out


def _table(lines: Sequence[str], header: str, rows: Sequence[int]) -> list[Measurement]:
    columns = _columns(header)
    cells = {r: _cells(lines[r], columns) for r in rows}
    if any(c is None or len(c) < 3 for c in cells.values()):
        return []
    grid: dict[int, dict[int, str]] = {r: c for r, c in cells.items() if c is not None}
    figures = {r: {k: _figure(v) for k, v in row.items()} for r, row in grid.items()}
    setting, result, stated = [], [], []
    for k, column in enumerate(columns):
        found = [figures[r].get(k) for r in rows if k in grid[r]]
        if not found or any(q is None for q in found):
            continue
        if role_of(column.name) == STATED:
            stated.append(k)
        elif all(q.unit is None and q.kind == "number" for q in found if q is not None) \
                and len(found) == len(rows):
            setting.append(k)
        else:
            result.append(k)
    for flag in setting:
        values = sorted({grid[r][flag] for r in rows})
        if len(values) != 2:
            continue
        roles = contrast_roles(f"{columns[flag].name} {values[0]}", f"{columns[flag].name} {values[1]}")
        if roles is None:
            continue
        side = {values[0]: roles[0], values[1]: roles[1]}
        case_columns = [k for k in setting if k != flag]
        by_case: dict[tuple[str, ...], dict[str, int]] = {}
        for r in rows:
            case = tuple(grid[r][k] for k in case_columns)
            if side[grid[r][flag]] in by_case.setdefault(case, {}):
                return []  # one side twice in a case: not pairs
            by_case[case][side[grid[r][flag]]] = r
        out = []
        for case, pair in by_case.items():
            if len(pair) != 2:
                continue
            b, p = pair[BASELINE], pair[next(s for s in pair if s != BASELINE)]
            for k in result:
                bq, pq = figures[b].get(k), figures[p].get(k)
                if bq is None or pq is None:
                    continue
                said = next((figures[p].get(s) or figures[b].get(s) for s in stated
                             if columns[k].name.lower() in columns[s].name.lower()), None)
                condition = (*((columns[c].name, v) for c, v in zip(case_columns, case, strict=True)),
                             ("measure", columns[k].name))
                out.append(Measurement(
                    baseline=bq, patched=pq, source="table", line=b,
                    quote=f"{lines[b].rstrip()}\n{lines[p].rstrip()}" if p == b + 1
                    else f"{lines[b].rstrip()} [...] {lines[p].rstrip()}",
                    unit=bq.unit or pq.unit, stated=said, condition=condition,
                    context=f"{header} {columns[k].name}"))
        return out
    return []
