"""Rows of the same shape under labels that name what each row ran, not which side it is:

    Test Result
    fio-3.35, Gen 4 device
                      write              read             randwrite   randread
    regular poll    BW=3939MiB/s    BW=6596MiB/s    IOPS=190K   IOPS=526K
    IRQ             BW=3927MiB/s    BW=6567MiB/s    IOPS=181K   IOPS=216K
    hybrid poll     BW=3933MiB/s    BW=6600MiB/s    IOPS=190K   IOPS=390K(suboptimal)

    dd:                     0.5s
    FALLOC_FL_WRITE_ZEROES: 0.17s

Structure first: two or more lines in a row, each a label and then only figures, whose
figures have the same shape (as many, the same keys, the same units) are runs of one
benchmark, a row each. Words then say which row is which side, in this order: the labels'
own side words (`before`, `patched`: other readers read those, and a row they read is left
to them; a row they leave unnamed beside the named ones may be the side they meant, and
then nothing is read); the one label named by the series (a word of its subject's title,
`FALLOC_FL_WRITE_ZEROES`) or introduced by the mail as new (`a new hybrid poll is
implemented`), which is the patched row, against the first other row, the baseline (any
further row is a reference, compared with nothing); of two labels, what one adds or turns
off, and nothing else (`roles.switch_roles`). When nothing tells, nothing is read.

A column's name comes from a header line above the rows with as many cells; a unit from
the cells, else from the caption or header. Rows of percentages are levels, not changes,
only where the caption or header names what they are a share of (`CPU Utilization`).
Figures with no unit and no word of what they measure are settings, and not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of
from analyze.claims.shell.conditions import condition_from_header

from .roles import BASELINE, PATCHED, resolve_roles, switch_roles, unit_in_text, with_unit

_MAX_LINE = 240
_MAX_ROWS = 12
_MAX_CELLS = 16
# a row's label: words (a flag's capitals, a `+` setup, a bracketed remark), then a colon
# or a column gap
_LABEL = re.compile(r"\s*([A-Za-z][\w .\-/+()'#]{0,48}?)\s*(?::[ \t]+|[ \t]{2,}|\t|[ \t](?=[A-Za-z]\w*=))"
                    r"(?=[~\w])")
# a label that is code, not a name: a source file and line (`mm/slub.c:4562`), an offset
# (`kfree+0xe2/0x580`)
_CODE = re.compile(r"\b0x[0-9a-f]|\.[ch]\b|->|::")
# `time`'s own lines: one run's parts, not runs of their own
_TIME_PARTS = frozenset({"real", "user", "sys"})
# a unit in brackets after a figure: `BW=378.2(MB/s)`
_BRACKETED_UNIT = re.compile(r"\s*\(([^()\d]{1,12})\)\s*$")
# cells: a column gap, a tab, or a comma between `key=value` cells
_CELL_GAP = re.compile(r"\s{2,}|\t|,\s*")
_KEY = re.compile(r"([A-Za-z][\w%/()]{0,15})\s*=\s*")
_REMARK = re.compile(r"\s*(?:\([^()]{0,30}\))?\s*$")
# a share of something a row of percentages is a level of
_SHARE = re.compile(r"\b(?:cpu|util\w*|usage|load|idle|busy|sys|usr)\b", re.I)
_WORD = re.compile(r"[a-z][a-z0-9_\-]{2,}")
# what a mail introduces: `a new hybrid poll`, `the proposed scheme`, `introduces batching`
_INTRODUCED = re.compile(
    r"\b(?:new|proposed|introduc(?:e|es|ed|ing))\s+(?:(?:a|an|the)\s+)?([A-Za-z][\w\-]{2,})", re.I)
_RULE = re.compile(r"\s*[-=_*~+]{3,}\s*$")
_FIGURE_DIGIT = re.compile(r"\d")
_ADDS_ONE = re.compile(r"\+\s*[\w\-]+")
_LOST_GAP = re.compile(r"(?<=[\w)])\?{3,}(?= ?[\d~<>])")
# a label alone on its line, maybe ending in a colon: a few words and no figure with a unit
_LONE_LABEL = re.compile(r"\s*([A-Za-z][\w .\-/+()'#,]{0,60}?)\s*:?\s*")
_SIGNED_PERCENT = re.compile(r"\(?\s*~?\s*[-+−]\s*\d[\d.]*\s*%")


@dataclass(frozen=True)
class _Row:
    line: int
    label: str
    figures: tuple[Quantity, ...]
    keys: tuple[str, ...]  # each cell's `key=`, lower case, "" for none
    stated: Quantity | None = None  # a signed percentage after the figures: `12419 K req/s, ~+6%`
    first: int | None = None  # the label's own line, when it stands above its figures

    @property
    def shape(self) -> tuple[tuple[str, str | None, bool], ...]:
        return tuple((k, q.canonical_unit, q.kind == "percent")
                     for k, q in zip(self.keys, self.figures, strict=True))


def _row(line: str, i: int) -> _Row | None:
    # (a row holds a figure: most lines of a mail hold none, and the label's pattern is
    # the costlier test)
    if len(line) > _MAX_LINE or _FIGURE_DIGIT.search(line) is None:
        return None
    if "??" in line:
        # (a gap of tabs or no-break spaces a mailer could not encode, `polled??????? 71M`)
        line = _LOST_GAP.sub(lambda m: " " * len(m.group()), line)
    if not ("  " in line or "\t" in line or ": " in line or "=" in line):
        return None  # (no gap, colon or key after a label: prose)
    m = _LABEL.match(line)
    if m is None:
        return None
    return _cells(m.group(1).strip(), line[m.end():], i)


def _label_above(lines: Sequence[str], i: int) -> _Row | None:
    """A row whose label stands on a line of its own above its figures, indented under it:

        baseline (patches 1-10):
            11720 K req/s
    """
    if i < 1 or len(lines[i]) > _MAX_LINE or not lines[i].strip()[:1].isdigit():
        return None
    label = lines[i - 1]
    m = _LONE_LABEL.fullmatch(label)
    if m is None or len(label) - len(label.lstrip()) >= len(lines[i]) - len(lines[i].lstrip()):
        return None
    row = _cells(m.group(1).strip(), lines[i], i)
    return None if row is None else replace(row, first=i - 1)


def _cells(label: str, rest: str, i: int) -> _Row | None:
    if _CODE.search(label) or label.lower() in _TIME_PARTS:
        return None
    figures: list[Quantity] = []
    keys: list[str] = []
    stated = None
    for cell in _CELL_GAP.split(rest.strip()):
        if not cell:
            continue
        if figures and figures[0].kind != "percent" and _SIGNED_PERCENT.match(cell):
            # (the change the row states, and what it is from: the row's last cell)
            stated = find_quantities(cell)[0]
            break
        key = _KEY.match(cell)
        text = cell[key.end():] if key else cell
        if not text[:1].isdigit() and not (text[:1] in "+-~<>." and text[1:2].isdigit()):
            return None  # (a cell of words: no row of figures, and no lexing needed to see it)
        found = find_quantities(text)
        # (one figure at the cell's start, and nothing after it but a remark in brackets)
        if len(found) != 1 or found[0].start != 0 or found[0].kind == "ratio" \
                or _REMARK.fullmatch(text, found[0].end) is None:
            return None
        q = found[0]
        unit = _BRACKETED_UNIT.match(text, q.end)
        if q.unit is None and unit is not None:
            q = with_unit(q, unit.group(1))
        figures.append(q)
        keys.append(key.group(1).lower() if key else "")
        if len(figures) > _MAX_CELLS:
            return None
    if not figures:
        return None
    return _Row(i, label, tuple(figures), tuple(keys), stated)


def _groups(lines: Sequence[str], taken: set[int]) -> list[list[_Row]]:
    """Runs of two or more rows on consecutive lines (a row's label may stand on the line
    above its figures), of one shape, none read already."""
    rows: list[_Row] = []
    for i, line in enumerate(lines):
        if i in taken:
            continue
        row = _row(line, i)
        if row is None and i - 1 not in taken:
            row = _label_above(lines, i)
            if row is not None and rows and rows[-1].line == i - 1:
                rows.pop()  # (its label line, read as a row of its own)
        if row is not None:
            rows.append(row)
    out: list[list[_Row]] = []
    run: list[_Row] = []
    for row in rows:
        start = row.line if row.first is None else row.first
        if run and start == run[-1].line + 1 and row.shape == run[-1].shape \
                and len(run) < _MAX_ROWS:
            run.append(row)
            continue
        if len(run) >= 2:
            out.append(run)
        run = [row]
    if len(run) >= 2:
        out.append(run)
    return out


def _above(lines: Sequence[str], i: int) -> int:
    j = i - 1
    while j >= 0 and (not lines[j].strip() or _RULE.match(lines[j])):
        j -= 1
    return j


def _header(lines: Sequence[str], first: int, shape: tuple[object, ...]) -> tuple[str, list[str], str]:
    """What the column names over the rows vary (`No of instances` over `1  2  4`, else
    `column`), the names (a line of as many cells as the rows have figures, maybe one more
    for the labels' column, and no row itself), and the caption over them; else no names
    and the line above as the caption."""
    n = len(shape)
    j = _above(lines, first)
    if j < 0:
        return "column", [], ""
    text = lines[j].strip()
    cells = [c for c in re.split(r"\s{2,}|\t", text) if c]
    if len(cells) not in (n, n + 1):
        cells = text.split()
    name = "column"
    if len(cells) == n + 1:
        # (the first names the labels' column, or what the columns vary: `threads  1  2  4`)
        name = (condition_from_header(cells[0]) or cells[0].lower()) if cells[0][:1].isalpha() else name
        cells = cells[1:]
    row = _row(lines[j], j)
    if len(cells) == n and n > 1 and not text.endswith(":") and (row is None or row.shape != shape):
        k = _above(lines, j)
        return name, cells, (lines[k].strip() if k >= 0 and len(lines[k]) <= 160 else "")
    return "column", [], text if len(text) <= 160 else ""


def _is_axis(row: _Row) -> bool:
    """A first row that is the columns' header, not a run: what it varies and its values
    (`No of instances  1  2  4  8`), bare whole numbers named as a condition or counting
    up."""
    values = [q.value for q in row.figures]
    if any(q.unit or q.kind != "number" or "." in q.text for q in row.figures):
        return False
    return condition_from_header(row.label) is not None or (
        len(values) >= 3 and all(a < b for a, b in zip(values, values[1:], strict=False)))


def _words(label: str) -> set[str]:
    words = _WORD.findall(label.lower())
    return {*words, *(part for w in words if "-" in w for part in w.split("-"))}


def _roles(labels: list[str], series: frozenset[str],
           introduced: Callable[[], frozenset[str]]) -> list[str | None]:
    """Each row's side, by the words of its label, the series and the mail (see the module)."""
    roles = resolve_roles(labels)
    if BASELINE in roles and PATCHED in roles:
        # (a row the words leave unnamed beside them may be the side they meant: `unwritten
        # file`, `unwritten file + fast_commit`, `written file`; nothing is read. Where the
        # patched label is the baseline's with one thing added that the series names or the
        # mail introduces, `polled` and `polled+fixed` under a series on fixed buffers, the
        # pair is that addition and the other rows are references)
        stem, extended = labels[roles.index(BASELINE)], labels[roles.index(PATCHED)]
        addition = extended[len(stem):].strip() if extended.startswith(stem) else ""
        added = roles.count(BASELINE) == roles.count(PATCHED) == 1 \
            and _ADDS_ONE.fullmatch(addition) is not None \
            and bool(_words(addition) & {p for w in (series | introduced()) for p in _words(w)})
        return roles if None not in roles or added else [None] * len(labels)
    if any(roles):
        return [None] * len(labels)  # a side named once: the side-row readers' to read
    words = [_words(label) for label in labels]
    if not set.intersection(*words) and any(len(label.split()) > 2 for label in labels):
        return [None] * len(labels)  # (labels of different things, not of one thing's runs)
    # a label's own words: those no other label has
    own = [w - set().union(*(o for k, o in enumerate(words) if k != i)) for i, w in enumerate(words)]
    named = [i for i, w in enumerate(own) if w & series]
    if len(named) != 1:
        named = [i for i, w in enumerate(own) if w & introduced()] if len(named) == 0 else []
    if len(named) == 1:
        patched = named[0]
        base = next(k for k in range(len(labels)) if k != patched)
        return [PATCHED if k == patched else BASELINE if k == base else None
                for k in range(len(labels))]
    if len(labels) == 2:
        pair = switch_roles(labels[0], labels[1])
        if pair is not None:
            return list(pair)
    return [None] * len(labels)


def introduced_words(lines: Sequence[str]) -> frozenset[str]:
    """The words a mail introduces something by: `new`, `proposed`, `introduces` before
    them."""
    found: set[str] = set()
    for line in lines:
        if "new" in line or "ntroduc" in line or "roposed" in line:
            found.update(w.lower() for w in _INTRODUCED.findall(line))
    return frozenset(found)


def find_named_rows(lines: Sequence[str], taken: set[int], series: frozenset[str],
                    introduced: Callable[[], frozenset[str]]) -> list[Measurement]:
    """The pairs of the rows of each run of same-shaped labelled rows in a block whose
    sides the labels, the series or the mail tell (see the module); lines in `taken` were
    read by another reader."""
    out: list[Measurement] = []
    for run in _groups(lines, taken):
        # (a header of whole numbers has the rows' shape: `No of instances  1  2  4`)
        axis = run[0] if _is_axis(run[0]) else None
        if axis is not None:
            run = run[1:]
            if len(run) < 2:
                continue
        roles = _roles([r.label for r in run], series, introduced)
        if BASELINE not in roles or PATCHED not in roles:
            continue
        base = next(r for r, role in zip(run, roles, strict=True) if role == BASELINE)
        if axis is not None:
            varied = condition_from_header(axis.label) or axis.label.lower()
            names = [q.text for q in axis.figures]
            k = _above(lines, axis.line)
            caption = lines[k].strip() if k >= 0 and len(lines[k]) <= 160 else ""
        else:
            top = run[0].line if run[0].first is None else run[0].first
            varied, names, caption = _header(lines, top, base.shape)
        for row, role in zip(run, roles, strict=True):
            if role == PATCHED:
                out += _pairs(lines, base, row, (varied, names), caption)
    return out


def _text(lines: Sequence[str], row: _Row) -> str:
    if row.first is None:
        return lines[row.line].rstrip()
    return f"{lines[row.first].strip()} {lines[row.line].strip()}"


def _pairs(lines: Sequence[str], base: _Row, patched: _Row, columns: tuple[str, list[str]],
           caption: str) -> list[Measurement]:
    varied, names = columns
    caption_unit = unit_in_text(caption) if caption else None
    share = bool(_SHARE.search(caption) or any(_SHARE.search(n) for n in names))
    quote = f"{_text(lines, base)} [...] {_text(lines, patched)}"
    out = []
    for k, (b, p) in enumerate(zip(base.figures, patched.figures, strict=True)):
        name = names[k] if names else ""
        key = base.keys[k]
        if not b.value:
            return []  # (nothing against something is no change a percentage can say)
        if b.kind == "percent" and not share:
            return []  # percentages with nothing they are a share of: changes, not levels
        unit = b.unit or p.unit or (unit_in_text(name) if name else None) or caption_unit
        what = " ".join(t for t in (caption, name, key) if t)
        if unit is None and metric_of(None, what) == "other":
            return []  # figures that say nothing of what they measure: settings
        condition: tuple[tuple[str, str], ...] = ()
        if name:
            condition += ((varied, name),)
        if key:
            condition += (("measure", key),)
        stated = patched.stated if len(patched.figures) == 1 else None
        out.append(Measurement(
            baseline=with_unit(b, unit), patched=with_unit(p, unit), source="table",
            line=base.line, quote=quote, unit=unit, condition=condition, stated=stated,
            context=" ".join(t for t in (key, name, caption, base.label, patched.label) if t),
        ))
    return out
