"""Pipe tables whose top header row names the sides over spans of columns, and whose second
header row names what each column measures:

    |                               |      Baseline     |     xarray      |
    |                               |   Cycles |     ns | Cycles |     ns |
    |-------------------------------+----------+--------+--------+--------|
    | no-softirq-page_pool01        |       20 |  5.713 |     19 |  5.516 |

Each side's cell spans the measure cells standing under it; a measure named under the
baseline and under a patched side is one pair per row (`Cycles` with `Cycles`, `ns` with
`ns`), never a measure with its neighbour. Which span is the baseline is read from the side
names as any header's (`roles.resolve_roles`); beside a baseline, a span its name does not
place is a variant tried against it (`xarray`).
"""

from __future__ import annotations

from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity

from .pipe_runs import RULE, Cell, pipe_cells, pipe_runs
from .roles import BASELINE, PATCHED, names_a_side, resolve_roles, unit_in_text, with_unit

_MAX_LINE = 400
_MAX_ROWS = 200

def _columns(top: list[Cell], sub: list[Cell]) -> list[tuple[int, str | None, str]]:
    """Each measure column of the second header: its index, the side over it, its name."""
    roles = resolve_roles([text for _, _, text in top[1:]])
    if BASELINE in roles and PATCHED not in roles:
        # (a baseline and spans named for what they try: `Baseline | xarray`, each a variant)
        roles = [PATCHED if r is None and text else r for r, (_, _, text) in zip(roles, top[1:], strict=True)]
    out = []
    for k, (a, b, name) in enumerate(sub[1:], start=1):
        mid = (a + b) // 2
        side = next((roles[g] for g, (start, end, _) in enumerate(top[1:]) if start <= mid < end), None)
        out.append((k, side, name))
    return out


def _figure(cell: str) -> Quantity | None:
    found = [q for q in find_quantities(cell) if q.kind != "percent"]
    return found[0] if len(found) == 1 else None


def find_grouped_sides(lines: Sequence[str]) -> tuple[list[Measurement], set[int]]:
    """The pairs of the tables of a block laid out as the module shows, and the lines of the
    header rows they were read from (no other header reader reads those)."""
    out: list[Measurement] = []
    used: set[int] = set()
    for start, end in pipe_runs(lines, _MAX_LINE, _MAX_ROWS):
        rows = [r for r in range(start, end) if not RULE.match(lines[r])]
        if len(rows) < 3 or not names_a_side(lines[rows[0]]):
            continue
        top, sub = pipe_cells(lines[rows[0]]), pipe_cells(lines[rows[1]])
        if not 3 <= len(top) < len(sub) or any(_figure(text) for _, _, text in sub[1:]):
            continue
        columns = _columns(top, sub)
        base = {name: k for k, side, name in columns if side == BASELINE and name}
        pairs = [(base[name], k, name) for k, side, name in columns
                 if side == PATCHED and name in base]
        if not pairs:
            continue
        found = []
        for r in rows[2:]:
            cells = pipe_cells(lines[r])
            if len(cells) != len(sub):
                continue
            label = cells[0][2]
            for b, p, name in pairs:
                bq, pq = _figure(cells[b][2]), _figure(cells[p][2])
                if bq is None or pq is None:
                    continue
                unit = bq.unit or pq.unit or unit_in_text(name)
                condition = ((("case", label),) if label else ()) + (("measure", name),)
                found.append(Measurement(
                    baseline=with_unit(bq, unit), patched=with_unit(pq, unit), source="table",
                    line=r, quote=lines[r].rstrip(), unit=unit, stated=None,
                    condition=condition, context=f"{name} {label}"))
        if found:
            out += found
            used.update(rows[:2])
    return out, used
