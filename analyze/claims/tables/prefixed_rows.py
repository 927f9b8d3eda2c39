"""Pipe tables whose row labels name a setup, then a case, with a comma between:

                                                   | packet |  est.  |
                                                   |  rate  | cycles |
                                                   | (Mpps) |        |
    -----------------------------------------------|--------|--------|
    Without retpolines, netdev drop                | 15.443 |    188 |
    Without retpolines, dummy lookup function      |  9.995 |    292 |
    - - - - - - - - - - - - - - - - - - - - - - - -|- - - - | - - - -|
    With retpolines, netdev drop                   | 10.420 |    278 |
    With retpolines, dummy lookup function         |  7.038 |    412 |
    - - - - - - - - - - - - - - - - - - - - - - - -|- - - - | - - - -|
    This series, retpolines, netdev drop           | 10.431 |    278 |
    This series, retpolines, dummy lookup function |  7.549 |    384 |

The label's last part is the case (`netdev drop`); what comes before it, the setup. The
setup that names the series or the patch (`This series, retpolines`) is the patched one; its
baseline is the other setup of the same conditions: the same words once the side's words are
set aside, kept or negated alike (`With retpolines` has retpolines, `Without retpolines` has
not). Rows of the same case pair cell by cell; the header lines above the rows name the
columns and their units. A table with no such baseline, or with more than one, gives nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of

from .pipe_runs import pipe_runs
from .roles import PATCHED, names_a_side, role_of, unit_in_text, with_unit

_MAX_LINE = 300
_MAX_ROWS = 100
_RULE = re.compile(r"^[\s\-=+|.:'`]*$")  # `-----|----|`, `- - - -|- - -|`
_WORD = re.compile(r"[a-z0-9_]+")
# words that name a side rather than a condition of the setup
_SIDE_WORDS = frozenset({"this", "the", "my", "series", "patch", "patches", "patched", "patchset",
                         "set", "with", "w", "applied", "current", "baseline", "base", "vanilla",
                         "before", "after", "unpatched", "new", "old"})
_NEGATIONS = frozenset({"without", "no", "non", "wo"})
_ARROW = re.compile(r"^\s*(?:-+>|=+>|→)\s*")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.rstrip().rstrip("|").split("|")]


def _setup(prefix: str) -> frozenset[str]:
    """A setup's conditions: its words without the side's, a negated one marked."""
    out, negate = set(), False
    for word in _WORD.findall(prefix.lower()):
        if word in _NEGATIONS:
            negate = True
            continue
        if word not in _SIDE_WORDS:
            out.add(("not " if negate else "") + word)
        negate = False
    return frozenset(out)


def _figure(cell: str) -> Quantity | None:
    found = find_quantities(cell)
    if len(found) != 1 or found[0].kind != "number" or found[0].start > 1:
        return None
    return found[0]


def find_prefixed_rows(lines: Sequence[str]) -> list[Measurement]:
    """The pairs of each pipe table of a block whose row labels are `setup, case` (see the
    module)."""
    out: list[Measurement] = []
    for start, end in pipe_runs(lines, _MAX_LINE, _MAX_ROWS):
        if any("," in line.split("|", 1)[0] and names_a_side(line.split("|", 1)[0])
               for line in lines[start:end]):
            out += _table(lines, start, end)
    return out


def _table(lines: Sequence[str], start: int, end: int) -> list[Measurement]:
    header: list[list[str]] = []
    groups: dict[str, dict[str, tuple[int, list[str]]]] = {}
    for r in range(start, end):
        line = lines[r]
        if _RULE.match(line):
            continue
        cells = _cells(line)
        label = _ARROW.sub("", cells[0])
        if not label and not groups:
            header.append(cells)  # a header line: no label, above the rows
            continue
        prefix, comma, case = label.rpartition(",")
        if not comma:
            continue
        groups.setdefault(prefix.strip(), {})[case.strip()] = (r, cells)
    patched = [g for g in groups if role_of(g) == PATCHED]
    if len(patched) != 1:
        return []
    setup = _setup(patched[0])
    bases = [g for g in groups if g != patched[0] and _setup(g) == setup]
    if len(bases) != 1:
        return []
    names = _column_names(header)
    out = []
    for case, (r, cells) in groups[bases[0]].items():
        other = groups[patched[0]].get(case)
        if other is None:
            continue
        pr, pcells = other
        for k in range(1, min(len(cells), len(pcells))):
            b, p = _figure(cells[k]), _figure(pcells[k])
            if b is None or p is None:
                continue
            name = names.get(k, "")
            unit = b.unit or p.unit or unit_in_text(name)
            if unit is None and metric_of(None, name) == "other":
                continue  # a column no unit or word says is a result
            condition: tuple[tuple[str, str], ...] = (("case", case),)
            if name:
                condition += (("measure", name),)
            out.append(Measurement(
                baseline=with_unit(b, unit), patched=with_unit(p, unit), source="table",
                line=r, quote=f"{lines[r].rstrip()} [...] {lines[pr].rstrip()}", unit=unit,
                stated=None, condition=condition,
                context=f"{bases[0]} {patched[0]} {name}".strip(),
            ))
    return out


def _column_names(header: Sequence[Sequence[str]]) -> dict[int, str]:
    """Each column's name, its header cells read down (`packet` `rate` `(Mpps)`)."""
    out: dict[int, list[str]] = {}
    for cells in header:
        for k, cell in enumerate(cells):
            if k and cell:
                out.setdefault(k, []).append(cell)
    return {k: " ".join(words) for k, words in out.items()}
