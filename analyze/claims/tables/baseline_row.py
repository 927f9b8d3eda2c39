"""A row named the baseline and the rows of variants under it, in aligned columns:

    (in Kpps)
                direct Rx    direct GRO    cpumap    cpumap GRO
    baseline    2900         5800          2700      2700 (N/A)
    threaded                               2300      4000
    old GRO                                2300      4000

Each row under the baseline row whose label names no side (`threaded`, `v2`; `old GRO`
names a variant here) is a variant of the patched side; each of its figures is compared with the baseline's figure in
the same column (a claim each: rule 1 of docs/claims.md). Columns are told by position: a
figure belongs to the header cell its span overlaps, else to the nearest one. A row labelled
as a spread (`stddev`) or a change (`diff`, `delta`) ends the variants. The figures need a
unit, in their cells or in the caption above the header, or words that say what they
measure; else they are settings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of

from .roles import BASELINE, names_a_side, role_of, unit_in_text, with_unit

_MAX_LINE = 300
_MAX_VARIANTS = 20
# a row's label: words, then a column gap or a colon
_LABEL = re.compile(r"\s*([A-Za-z][\w .\-/+()]{0,30}?)(?:\s*:\s+|\s{2,}|\t+)(?=\S)")
_WORD = re.compile(r"[a-z0-9_]+")
_HEADER_CELL = re.compile(r"\S+(?: \S+)*")  # words one blank apart are one cell


def _row(line: str) -> tuple[str, list[Quantity]] | None:
    """A row's label and figures (no percentages, no `key=value` output), or None."""
    if len(line) > _MAX_LINE or "=" in line:
        return None
    m = _LABEL.match(line)
    if m is None:
        return None
    figures = [q for q in find_quantities(line) if q.start >= m.end()]
    if not figures or any(q.kind in ("percent", "ratio") for q in figures):
        return None
    return m.group(1).strip(), figures


def _column(header: Sequence[re.Match[str]], q: Quantity) -> int:
    """The header cell a figure sits under: the one its span overlaps most, else the
    nearest by centre."""
    return min(range(len(header)), key=lambda k: (
        -(min(q.end, header[k].end()) - max(q.start, header[k].start())),
        abs((q.start + q.end) - (header[k].start() + header[k].end()))))


def _is_variant(label: str, baseline: str) -> bool:
    """Whether a row's label names a variant: no side, spread or change (`stddev`, `diff`,
    `after` end the variants), nor the baseline again (`baseline (again)`); a word that
    elsewhere names a baseline may name a variant here (`old GRO` under `baseline`)."""
    role = role_of(label)
    if role is None:
        return True
    words = set(_WORD.findall(baseline.lower()))
    return role == BASELINE and not words & set(_WORD.findall(label.lower()))


def _above(lines: Sequence[str], i: int) -> int:
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j


def find_baseline_rows(lines: Sequence[str]) -> list[Measurement]:
    """The variants of each baseline row of a block, paired with it column by column (see
    the module)."""
    out: list[Measurement] = []
    # (each line asked alone: the answers are cached for every reader, and a search of the
    # joined block, once tried here first, cost more than it saved)
    for i, line in enumerate(lines):
        if len(line) > _MAX_LINE or not names_a_side(line):
            continue
        base = _row(line)
        if base is None or role_of(base[0]) != BASELINE or i == 0:
            continue
        label_end = line.index(base[0]) + len(base[0])
        header = [c for c in _HEADER_CELL.finditer(lines[i - 1]) if c.start() >= label_end - 1]
        if len(header) < len(base[1]) or any(q.kind == "number" and not q.unit
                                              for c in header for q in find_quantities(c.group())):
            continue  # the line above names no column of each figure (or is a row itself)
        caption_at = _above(lines, i - 1)
        caption = lines[caption_at].strip() if caption_at >= 0 else ""
        caption_unit = unit_in_text(caption) if caption else None
        base_at = {_column(header, q): q for q in base[1]}
        k = i + 1
        while k < len(lines) and k - i <= _MAX_VARIANTS:
            variant = _row(lines[k])
            if variant is None or not _is_variant(variant[0], base[0]):
                break
            label, figures = variant
            for q in figures:
                col = _column(header, q)
                b = base_at.get(col)
                if b is None or b.canonical_unit != q.canonical_unit:
                    continue
                unit = b.unit or q.unit or caption_unit
                name = header[col].group()
                if unit is None and metric_of(None, f"{caption} {name}") == "other":
                    continue  # a setting, not a result
                out.append(Measurement(
                    baseline=with_unit(b, unit), patched=with_unit(q, unit), source="table",
                    line=i, quote=f"{lines[i - 1].rstrip()}\n{line.rstrip()}\n{lines[k].rstrip()}",
                    unit=unit, stated=None,
                    condition=(("variant", label), ("measure", name)),
                    context=f"{caption} {name}",
                ))
            k += 1
    return out
