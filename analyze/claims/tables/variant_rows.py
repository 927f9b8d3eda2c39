"""Pipe tables whose first column names the side of each row, the rest of the label the case:

    Version      | Test                           | Generic | Native
    5.11         | redirect_map   i40e->i40e      |    1.9M |  9.3M
    5.11         | redirect_map   i40e->veth      |    1.5M | 11.2M
    5.11 + patch | redirect_map   i40e->i40e      |    1.9M |  9.6M
    5.11 + patch | redirect_map   i40e->veth      |    1.5M | 11.9M

The first column holds two names that tell the sides apart as header words do
(`roles.resolve_roles`: `5.11` and `5.11 + patch`, `before` and `after`); a baseline row
pairs with the patched row whose other label cells are the same, column by column. A case
one side has no row for is compared with nothing; a row of neither side (`Unaligned` beside
`Aligned (baseline)` and `Aligned (with patches)`) is a reference, compared with nothing.
A box table's rules (`+------+------+`) between the rows are skipped. A row of fewer, wider
cells over the header (`| IOdepth | 8 | 16 |`) groups the columns under each of its cells:
the group is part of each column's condition. A column's name may give its unit
(`BW(MiB/s)`).
"""

from __future__ import annotations

from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement

from .pipe_runs import RULE, pipe_cells, pipe_runs
from .roles import BASELINE, PATCHED, names_a_side, resolve_roles, unit_in_text, with_unit

_MAX_LINE = 400
_MAX_ROWS = 200
_MAX_SIDES = 4


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_figure(cell: str) -> bool:
    found = find_quantities(cell)
    return len(found) == 1 and found[0].kind != "percent" and found[0].start <= 1


def find_variant_rows(lines: Sequence[str]) -> list[Measurement]:
    """The pairs of the side-named rows of each pipe table of a block (see the module)."""
    out: list[Measurement] = []
    for start, end in pipe_runs(lines, _MAX_LINE, _MAX_ROWS):
        out += _table(lines, start, end)
    return out


def _groups(lines: Sequence[str], above: Sequence[int], header_line: int,
            width: int) -> list[tuple[str, str] | None]:
    """What the rows over the header say of each column: a row of fewer, wider cells
    (`| IOdepth |    8    |    16    |`) spans the header's cells standing under each of
    its own, and its first cell names what it varies. None for a column no such row spans."""
    out: list[tuple[str, str] | None] = [None] * width
    under = pipe_cells(lines[header_line])
    for r in above:
        spans = pipe_cells(lines[r])
        if len(spans) < 2:
            continue
        name = spans[0][2].lower() or "group"
        for k, (a, b, _) in enumerate(under[:width]):
            mid = (a + b) // 2
            cell = next((text for start, end, text in spans[1:] if start <= mid < end), "")
            if k and cell:
                out[k] = (name, cell)
    return out


def _table(lines: Sequence[str], start: int, end: int) -> list[Measurement]:
    # (a box table's rules between its rows are no rows: `+------+------+`)
    rows = [(r, _cells(lines[r])) for r in range(start, end) if not RULE.match(lines[r])]
    if not rows:
        return []
    # the rows' width is the last row's; rows of fewer cells over the first full row group
    # its columns (`| IOdepth | 8 | 16 |` over `| | KIOPS | BW | KIOPS | BW |`)
    width = len(rows[-1][1])
    first = next(k for k, (_, cells) in enumerate(rows) if len(cells) == width)
    above = [r for r, cells in rows[:first] if len(cells) < width]
    if first != len(above):
        return []
    rows = rows[first:]
    if width < 3 or any(len(cells) != width for _, cells in rows):
        return []
    # (the sides first: most pipe tables name none, and are not lexed)
    firsts = {cells[0] for _, cells in rows}
    if not any(names_a_side(first) for first in firsts):
        return []
    header = rows[0][1] if not any(_is_figure(c) for c in rows[0][1]) else []
    groups = _groups(lines, above, rows[0][0], width) if header and above else [None] * width
    body = rows[1:] if header else rows
    sides = sorted({cells[0] for _, cells in body})
    if len(sides) > _MAX_SIDES:
        return []
    roles = dict(zip(sides, resolve_roles(sides), strict=True))
    if sorted(r for r in roles.values() if r is not None) != sorted((BASELINE, PATCHED)):
        return []  # (one name of each side; a row of neither, `Unaligned`, is a reference)
    body = [(r, cells) for r, cells in body if roles[cells[0]] is not None]
    figures = [k for k in range(1, width) if body and all(_is_figure(cells[k]) for _, cells in body)]
    if not figures:
        return []
    labels = [k for k in range(1, width) if k not in figures]
    patched_rows = {tuple(cells[k] for k in labels): (r, cells) for r, cells in body
                    if roles[cells[0]] == PATCHED}
    out = []
    for r, cells in body:
        if roles[cells[0]] != BASELINE:
            continue
        case = tuple(cells[k] for k in labels)
        other = patched_rows.get(case)
        if other is None:
            continue
        pr, pcells = other
        for k in figures:
            b, p = find_quantities(cells[k])[0], find_quantities(pcells[k])[0]
            name = header[k] if header else ""
            # (a column's own name gives its unit: `BW(MiB/s)`, `Lat(usec)`)
            unit = b.unit or p.unit or (unit_in_text(name) if name else None)
            condition = tuple((header[c].lower() if header else "case", cells[c])
                              for c in labels if cells[c])
            group = groups[k]
            if group is not None:
                condition += (group,)
            if name:
                condition += (("measure", name),)
            out.append(Measurement(
                baseline=with_unit(b, unit), patched=with_unit(p, unit), source="table",
                line=r, quote=f"{lines[r].rstrip()} [...] {lines[pr].rstrip()}", unit=unit,
                stated=None, condition=condition,
                # (the column's own name first: it says what the column measures)
                context=" ".join((name, *header, *case)) if name else " ".join((*header, *case)),
            ))
    return out
