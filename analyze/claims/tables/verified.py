"""Pairs told by the percentages written beside them.

Many tables name no side in their words, but say which figure was compared with which by
the change they print:

    IO size | non-zc    | zc             | zc + flush          Hmean send-64   87.47 (0.00%)   127.14 (45.36%)
    4000    | 495134    | 606420 (+22%)  | 558971 (+12%)       Hmean send-128 174.36 (0.00%)   256.42 (47.06%)

    rx-frames = 0  0.91 +0%             |        |        | +15%   |  +4%   |
    rx-frames = 4  1.00 +9.8%      1000 |   10.1 |    5.2 |  6.0   |  2.8   |

`606420 (+22%)` is 22 % above 495134, so 495134 is its baseline; `+9.8%` on the
`rx-frames = 4` row is its change from the row marked `+0%`; a row of percentages over a row
of figures states the change of the figure below each one, from the figure whose distance
to it comes out as written. A percentage is checked against the figures it could be the
change between (the other figures of its line, the figures of the same column in the
table's other rows); the way of pairing that most of a table's percentages agree with is
the table's, and every percentage of the table is read that way — one a typo made wrong
keeps its figures and its percentage as written (docs/claims.md).

Percentages that no figure pair computes to (shares, profile lines, spreads) give nothing:
the check is what makes this reader safe on tables whose words say nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.block_text import joined
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity

from .roles import (
    BASELINE,
    PATCHED,
    STATED,
    resolve_roles,
    role_of,
    said_of_all,
    unit_in_text,
    with_unit,
)

_MAX_LINE = 400  # table rows are short; longer lines are prose
_MAX_ROWS = 200  # rows of one table read here; a longer run of lines is a log
_MAX_FIGURES = 24  # figures of one row
_PERCENT = re.compile(r"\d\s*%")
# a percentage written as a change: signed, or in brackets or stars (`+9.8%`, `( 45.36%)`)
_CHANGE_PERCENT = re.compile(r"[+\-]\s?\d[\d.,]*\s*%|[(\[*]\s*[+\-]?\s*\d[\d.,]*\s*%")
# what may stand between a figure and its percentage: `87.47 (  0.00%)`, `1.00 +9.8%`
# (mmtests marks a significant change `*  22.73%*` instead of bracketing it)
_BETWEEN = re.compile(r"^[\s(\[*]*$")
_DIGITS = re.compile(r"[-+]?\d[\d.,]*\s*%?")
_NEAR = 6  # characters between the centres of two cells of one column, aligned by eye
# the robot's rows (`15432 ± 2%  +12.3%  17330 ± 1%  name`) are its own reader's
_LKP_ROW = re.compile(r"^\s*-?[\d.e+]+\s*(?:±\s*\d+%)?\s+[+-]?[\d.]+%?\s+-?[\d.e+]+\s*(?:±\s*\d+%)?\s+\S+\s*$")


@dataclass(frozen=True, slots=True)
class _Figure:
    row: int  # the row's place in the table
    k: int  # the figure's place in its row
    q: Quantity
    cell: int  # its pipe cell (-1 in a table without pipes)
    percent: Quantity | None  # the percentage written right after it


@dataclass(frozen=True, slots=True)
class _Percent:
    row: int
    q: Quantity
    cell: int
    figure: _Figure | None  # the figure it is written after, if any


@dataclass(frozen=True, slots=True)
class _Row:
    line: int  # index in the block's lines
    text: str  # tabs expanded: columns line up as they did on the screen
    figures: tuple[_Figure, ...]
    pipe: bool


def _cell_of(text: str, pos: int) -> int:
    return text.count("|", 0, pos) if "|" in text else -1


def _is_change(text: str, q: Quantity, row_words: str) -> bool:
    """Whether a percentage reads as a change: signed (`+9.8%`), in brackets (`( 45.36%)`),
    or on a row its words call a change (`increase  2.9%  0.15%`). A bare `19%` after
    figures is a share (df's `Use%`, a CPU's load)."""
    if q.sign is not None or text[q.end:q.end + 2].lstrip().startswith((")", "]", "*")):
        return True
    return role_of(row_words) == STATED


def _read_row(r: int, line: int, text: str) -> tuple[_Row, list[_Percent]]:
    found = find_quantities(text)[:_MAX_FIGURES * 2]
    figures: list[_Figure] = []
    percents: list[_Percent] = []
    row_words = _DIGITS.sub(" ", text)
    for q in found:
        if q.kind == "percent":
            if not _is_change(text, q, row_words):
                continue
            before = figures[-1] if figures else None
            attached = (before if before is not None and before.percent is None
                        and _BETWEEN.match(text[before.q.end:q.start]) else None)
            if attached is not None:
                figures[-1] = _Figure(attached.row, attached.k, attached.q, attached.cell, q)
                attached = figures[-1]
            percents.append(_Percent(r, q, _cell_of(text, q.start), attached))
        elif q.kind in ("number", "duration") and len(figures) < _MAX_FIGURES:
            figures.append(_Figure(r, len(figures), q, _cell_of(text, q.start), None))
    return _Row(line, text, tuple(figures), "|" in text), percents


def _tables(lines: Sequence[str]) -> list[list[tuple[int, str]]]:
    """Runs of short non-blank lines holding a percentage with a digit beside it."""
    out: list[list[tuple[int, str]]] = []
    run: list[tuple[int, str]] = []
    for i, line in enumerate([*lines, ""]):
        if line.strip() and len(line) <= _MAX_LINE and len(run) < _MAX_ROWS:
            run.append((i, line.expandtabs(8)))
            continue
        if any("%" in text and _PERCENT.search(text) and (
                _CHANGE_PERCENT.search(text) or role_of(_DIGITS.sub(" ", text)) == STATED)
               for _, text in run):
            out.append(run)
        run = [(i, line.expandtabs(8))] if line.strip() and len(line) <= _MAX_LINE else []
    return out


def _aligned(f: _Figure, rows: Sequence[_Row], other: _Row) -> _Figure | None:
    """The figure of `other` in the column of `f`: the same pipe cell; in a table without
    pipes, the same place when the rows have as many figures, else the one under it."""
    mine = rows[f.row]
    if mine.pipe and other.pipe:
        return next((g for g in other.figures if g.cell == f.cell), None)
    if len(other.figures) == len(mine.figures):
        return other.figures[f.k]
    return _under(f.q, other)


def _under(q: Quantity, row: _Row) -> _Figure | None:
    centre = (q.start + q.end) / 2
    best = min(row.figures, key=lambda g: abs((g.q.start + g.q.end) / 2 - centre), default=None)
    if best is None:
        return None
    if best.q.start < q.end and q.start < best.q.end:
        return best
    return best if abs((best.q.start + best.q.end) / 2 - centre) <= _NEAR else None


def _change(base: Quantity, patched: Quantity) -> float | None:
    a, b = base.canonical_value or base.value, patched.canonical_value or patched.value
    if not a or base.canonical_unit != patched.canonical_unit:
        return None
    return (b - a) / abs(a) * 100.0


_DECIMALS = re.compile(r"[.,](\d+)")


def _agrees(change: float | None, stated: Quantity, signed: bool = False) -> bool:
    """Whether a computed change is the stated one as printed: rounded or cut to the digits
    written (`+12%` for 12.9 %), or within 6 % of it. A tool that states the gain of a
    lower-is-better figure prints its sign the other way (mmtests' `Amean`); `signed` asks
    for the sign as printed."""
    if change is None:
        return False
    decimals = _DECIMALS.search(stated.text)
    last_digit = 10.0 ** -(len(decimals.group(1)) if decimals else 0)
    tolerance = max(last_digit + 0.05 * last_digit, 0.06 * abs(stated.value))
    return abs(change - stated.value) <= tolerance or (
        not signed and abs(change + stated.value) <= tolerance)


# A way of pairing: ("line", k) the k-th figure of the same row; ("back", d) the figure d
# places before in the same row; ("row", r) the same column of row r; ("up", d) the same
# column d rows above.
_Way = tuple[str, int]


def _patched_candidates(p: _Percent, rows: Sequence[_Row]) -> list[_Figure]:
    if p.figure is not None:
        return [p.figure]
    if rows[p.row].figures:
        return []  # a percentage among figures, after none of them: not a change column
    out = []
    for step in (1, -1):  # the row below a row of percentages, then the one above
        r = p.row + step
        while 0 <= r < len(rows) and not rows[r].figures:
            r += step
        if 0 <= r < len(rows):
            cell = p.cell
            f = (next((g for g in rows[r].figures if g.cell == cell), None) if rows[r].pipe
                 and rows[p.row].pipe else _under(p.q, rows[r]))
            if f is not None and (f.percent is None):
                out.append(f)
    return out


def _baseline_by(way: _Way, f: _Figure, rows: Sequence[_Row]) -> _Figure | None:
    kind, n = way
    figures = rows[f.row].figures
    if kind == "line":
        return figures[n] if n < f.k else None
    if kind == "cell":
        # (the figure in the n-th pipe cell: a label cell holding numbers of its own, `4
        # threads 10000`, moves a row's figures but not its cells)
        return next((g for g in figures if g.cell == n and g.k < f.k), None)
    if kind == "back":
        return figures[f.k - n] if 0 < n <= f.k else None
    r = n if kind == "row" else f.row - n
    if not 0 <= r < len(rows) or r == f.row:
        return None
    return _aligned(f, rows, rows[r])


def _ways(f: _Figure, rows: Sequence[_Row]) -> list[tuple[_Way, _Figure]]:
    out: list[tuple[_Way, _Figure]] = []
    for g in rows[f.row].figures[:f.k]:
        out += [(("line", g.k), g), (("back", f.k - g.k), g)]
        if g.cell >= 0 and g.cell != f.cell and sum(h.cell == g.cell for h in rows[f.row].figures) == 1:
            out.append((("cell", g.cell), g))
    for r, row in enumerate(rows):
        if r != f.row and row.figures:
            other = _aligned(f, rows, row)
            if other is not None:
                out += [(("row", r), other), (("up", f.row - r), other)]
    return out


def _is_reference(g: _Figure) -> bool:
    return g.percent is None or g.percent.value == 0


def _read_table(run: Sequence[tuple[int, str]], lines: Sequence[str]) -> list[Measurement]:
    rows: list[_Row] = []
    percents: list[_Percent] = []
    for r, (i, text) in enumerate(run):
        if _LKP_ROW.match(text):
            return []
        row, found = _read_row(r, i, text)
        rows.append(row)
        percents += found
    if not percents:
        return []
    votes: Counter[_Way] = Counter()
    for p in percents:
        agreeing = {(way, _agrees(_change(g.q, f.q), p.q, signed=True))
                    for f in _patched_candidates(p, rows) for way, g in _ways(f, rows)
                    if _is_reference(g) and g is not f and _agrees(_change(g.q, f.q), p.q)}
        # a way that gives the change with the sign printed is the one meant, where there is
        # one (`523.5k (+0.6%)` is up from the 520.3k above it, not down from the 526,337
        # beside it)
        same_sign = {way for way, signed in agreeing if signed}
        votes.update(same_sign or {way for way, _ in agreeing})
    if not votes:
        return []
    # the way most percentages agree with; between equals, the same row before other rows,
    # a fixed place before a distance
    order = {"line": 0, "cell": 1, "back": 2, "row": 3, "up": 4}
    way, agreed = min(votes.items(), key=lambda item: (-item[1], order[item[0][0]], item[0][1]))
    applicable = []
    for p in percents:
        for f in _patched_candidates(p, rows):
            g = _baseline_by(way, f, rows)
            if g is not None and g is not f and _is_reference(g):
                applicable.append((p, f, g))
                break
    if agreed < 2 and not (agreed == 1 and len(applicable) == 1):
        return []
    if agreed < 0.6 * len(applicable):
        return []
    caption = _caption(lines, run)
    # a unit the header names once over all its columns (`| baselines, Mpps | this series |`)
    first = min(p.row for p in percents)
    header_unit = unit_in_text(" ".join(r.text.replace("|", " ") for r in rows[:first])[:400])
    reruns = _reruns(lines, run[0][0], rows)
    names = _cell_names(rows)
    columns = _column_roles(lines, run, rows)
    # (a table that prints a fall as a gain, `39.12 (0.00%)  36.09 * 7.74%*`, says its
    # figures are better lower: mmtests' times)
    flipped = [(c := _change(g.q, f.q)) is not None and abs(c) > 0.05 and p.q.value != 0
               and (c < 0) != (p.q.value < 0) for p, f, g in applicable]
    lower_better = True if flipped and sum(flipped) > len(flipped) / 2 else None
    # (what the caption or the note under the table says of its figures: `Numbers are times
    # so lower is better`)
    end = run[-1][0] + 1
    note = next((t for t in (lines[k].strip() for k in range(end, min(len(lines), end + 2))) if t), "")
    of_all, said_lower = said_of_all(f"{caption} {note[:120]}")
    if lower_better is None:
        lower_better = said_lower
    context = f"{caption} {of_all}" if of_all else caption
    out = []
    for p, f, g in applicable:
        if f.row == g.row and _column(rows[f.row], f) in reruns:
            continue
        if f.row == g.row and columns and PATCHED in columns.values() \
                and columns.get(_column(rows[f.row], f)) is None:
            continue  # a column of neither side beside a patched one: a reference
        unit = (f.q.unit or g.q.unit or unit_in_text(names.get(f.cell, ""))
                or unit_in_text(caption) or header_unit)
        frow = rows[f.row]
        # the rows the pair was read from, in order: adjacent ones one after the other (the
        # claim's lines), others as fragments
        read = sorted({f.row, g.row, p.row})
        quote = rows[read[0]].text.rstrip()
        for a, b in zip(read, read[1:], strict=False):
            quote += ("\n" if b == a + 1 else " [...] ") + rows[b].text.rstrip()
        change = _change(g.q, f.q)
        stated = p.q
        if change is not None and stated.value and (change < 0) != (stated.value < 0) \
                and abs(change) > 0.05 and _agrees(change, stated):
            # printed as a gain where the figure fell: signed as the figure moved (a
            # percentage that is not this change at all is kept as written: rule 10)
            stated = Quantity(-stated.value, stated.text, stated.start, stated.end, stated.kind,
                              stated.unit, stated.canonical_unit,
                              None if stated.canonical_value is None else -stated.canonical_value,
                              stated.bound, None if stated.sign is None else -stated.sign,
                              stated.high)
        label = _label(frow, f)
        if p.row != f.row:
            # a row of percentages over its row of figures names the case too (`net,mac`
            # over `1000 | 10.5 | ...`)
            named = " ".join(rows[p.row].text[:p.q.start].replace("|", " ").split())
            named = _DIGITS.sub("", named).strip(" +-")
            label = " ".join(t for t in (named[:40], label) if t)
        condition: tuple[tuple[str, str], ...] = (("case", label),) if label else ()
        if f.cell >= 0 and f.cell in names and (g.cell != f.cell or len(names) > 1):
            # (two columns of one row with the same figures are two claims: `rbtree` and
            # `pipapo` both 3.0 -> 3.1; a row against a row names the column they share)
            condition += (("measure", names[f.cell]),)
        out.append(Measurement(
            baseline=with_unit(g.q, unit), patched=with_unit(f.q, unit), source="table",
            line=rows[read[0]].line, quote=quote, unit=unit, stated=stated,
            condition=condition, context=context, lower_is_better=lower_better,
        ))
    return out


_HEADER_REACH = 3  # lines above a table where its header may stand
_HEADER_WORD = re.compile(r"\S+")


def _column_roles(lines: Sequence[str], run: Sequence[tuple[int, str]],
                  rows: Sequence[_Row]) -> dict[int, str | None]:
    """The role of each compared column (by its place among a row's figures with a
    percentage) that an aligned header names, word over figure (`clients  MQ  SQ
    MQ-Patched`): baseline, patched or None (a reference). Empty when no header names as
    many columns as the rows compare, or when its names say nothing of the sides."""
    width = max((sum(1 for g in row.figures if g.percent is not None) for row in rows), default=0)
    if width < 2 or any(row.pipe for row in rows):
        return {}
    heads = [text for _, text in run[:1] if not any(ch.isdigit() for ch in text)]
    heads += [lines[i].expandtabs(8) for i in range(run[0][0] - 1, max(-1, run[0][0] - _HEADER_REACH), -1)
              if lines[i].strip()][:1]
    row = next((r for r in rows if sum(1 for g in r.figures if g.percent is not None) == width), None)
    if row is None:
        return {}
    compared = [g for g in row.figures if g.percent is not None]
    for head in heads:
        words = [(m.start(), m.end(), m.group(0)) for m in _HEADER_WORD.finditer(head)]
        if len(words) < width:
            continue
        names: list[str] = []
        for g in compared:
            centre = (g.q.start + g.q.end) / 2
            best = min(words, key=lambda w: abs((w[0] + w[1]) / 2 - centre))
            names.append(best[2])
        if len(set(names)) != width:
            continue
        roles = resolve_roles(names)
        if PATCHED in roles or BASELINE in roles:
            return dict(enumerate(roles))
    return {}


_LEGEND_REACH = 100  # lines above a table its legend may stand
_LEGEND_ITEM = 40


def _column(row: _Row, f: _Figure) -> int:
    """The place of a figure among its row's compared figures (those with a percentage)."""
    return sum(1 for g in row.figures[:f.k] if g.percent is not None)


def _reruns(lines: Sequence[str], start: int, rows: Sequence[_Row]) -> set[int]:
    """The columns that run the baseline again, to show the noise (mmtests compare output
    under a legend naming its columns: `base, patched, base`): a column named as the first
    is compared with nothing. The legend is the nearest line above the table that lists as
    many short names, comma-separated, as its rows have compared figures."""
    width = max((sum(1 for g in row.figures if g.percent is not None) for row in rows), default=0)
    if width < 3:
        return set()
    for i in range(start - 1, max(-1, start - _LEGEND_REACH), -1):
        line = lines[i]
        if line.count(",") != width - 1:
            continue
        # (`Columns: base, patched, base`: the list's own label is no name)
        names = [" ".join(part.split()).lower() for part in line.split(",")]
        names[0] = names[0].rsplit(": ", 1)[-1]
        if all(0 < len(name) <= _LEGEND_ITEM for name in names):
            return {k for k, name in enumerate(names) if k and name == names[0]}
    return set()


_NAME_WORDS = re.compile(r"[A-Za-z][\w.\-/]*")


def _cell_names(rows: Sequence[_Row]) -> dict[int, str]:
    """A pipe table's column names, by cell: the words of its rows without figures, read
    down each cell (`hash` `no` `ranges`). A header indented over the rows' name column has
    one cell fewer than its rows: its cells name the rows' last ones."""
    out: dict[int, list[str]] = {}
    widest = max((row.text.count("|") for row in rows if row.pipe and row.figures), default=0)
    for row in rows:
        if not row.pipe or row.figures:
            continue
        cells = row.text.split("|")
        shift = widest - row.text.count("|") if not cells[0].strip() else 0
        for k, cell in enumerate(cells):
            words = _NAME_WORDS.findall(cell)
            if k and words:
                out.setdefault(k + max(0, shift), []).extend(words)
    return {k: " ".join(words)[:60] for k, words in out.items()}


def _label(row: _Row, f: _Figure) -> str:
    """The row's words before its first figure (`Hmean send-64`, `rx-frames =`) and, when
    its first figure is not a result, that figure too (`4000` of `4000 | 495134 | ...`)."""
    text = row.text
    first = row.figures[0] if row.figures else None
    if row.pipe and first is not None and first.cell == 0 and text.find("|") > first.q.end \
            and any(g.cell > 0 for g in row.figures):
        # (a label cell of words and figures, `4 threads 10000|`: the whole cell)
        return " ".join(text[:text.find("|")].split()).strip(" =:")[:60]
    end = first.q.start if first is not None else len(text)
    if first is not None and first is not f and first.percent is None and (
            len(row.figures) > 2 or first.q.unit is None):
        end = first.q.end
    return " ".join(text[:end].replace("|", " ").split()).strip(" =:")[:60]


def _caption(lines: Sequence[str], run: Sequence[tuple[int, str]]) -> str:
    """The words over a table (`NIC (requests / second):`, its header): the run's first
    line when it holds no figure, else the text just above the run, when short."""
    first = run[0][1].strip()
    if not any(ch.isdigit() for ch in first):
        return first[:120]
    for k in range(run[0][0] - 1, max(-1, run[0][0] - 3), -1):
        text = lines[k].strip()
        if text:
            return text if len(text) <= 120 else ""
    return ""


def find_verified_pairs(lines: Sequence[str]) -> list[Measurement]:
    """The pairs the tables of a block of lines state a percentage of change for, each
    checked against its figures (see the module's rules)."""
    out: list[Measurement] = []
    if "%" not in joined(lines):
        return out  # (a table is read here by its percentages)
    for run in _tables(lines):
        out += _read_table(run, lines)
    return out
