"""Pairs a sentence does not write as a pair: split over two sentences, the figure before in
one, the change to the figure after in the next; or worked out in a formula.

    Prior to using RCU a script calling "iptables" approx. 200 times was taking 1.16s.
    With RCU this increased to 11.59s.

    ((353912/326550)-1)*100 = 8.37% faster.

The second sentence moves its one figure with a verb of change and `to` ("increased to",
"dropped to", "went down to") and gives no figure it moved from; the sentence right before
it, in the same paragraph, gives exactly one figure of the same quantity. That figure is
the baseline (docs/claims.md, rule 8: the state before the change the sentences tell of).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity

from .sentences import MAX_SENTENCE, _paragraphs, _sentences
from .settings import RESULT, SETTING

# `increased to 11.59s`, `went down to 25 us`, `dropped to ~3 Mpps`
_MOVED_TO = compile_words(
    r"\b(?:increased|decreased|dropped|rose|fell|grew|shrank|climbed|jumped|reduced|improved"
    r"|regressed|went\s+(?:up|down)|goes\s+(?:up|down)|increases|decreases|drops)\s+to\s*$",
    re.I)


def _measured(text: str) -> list[Quantity]:
    return [q for q in find_quantities(text) if q.kind in ("number", "duration")]


def _a_setting(before: str, sentence: str) -> bool:
    """The words before a figure name a setting (a timer, a default, `every`) and its
    sentence names no result."""
    return SETTING.search(before) is not None and RESULT.search(sentence) is None


def find_carried_pairs(lines: Sequence[str]) -> list[Measurement]:
    """The pairs split over two sentences of a paragraph (see the module)."""
    out: list[Measurement] = []
    for para in _paragraphs(lines):
        if " to " not in para.text:
            continue
        bounds = _sentences(para.text)
        for (start, end), (pstart, pend) in zip(bounds[1:], bounds, strict=False):
            text = para.text[start:end]
            if len(text) > MAX_SENTENCE or " to " not in text:
                continue
            after = _measured(text)
            if len(after) != 1 or not after[0].canonical_unit \
                    or _MOVED_TO.search(text[:after[0].start]) is None:
                continue
            before = _measured(para.text[pstart:pend])
            if len(before) != 1 or before[0].canonical_unit != after[0].canonical_unit:
                continue
            b, p = before[0], after[0]
            first, second = para.text[pstart:pend], text
            if _a_setting(first[:b.start], first) or _a_setting(text[:p.start], second):
                continue  # `Lock status is checked every 500ms. The timer is decreased to 10ms.`
            out.append(Measurement(
                baseline=b, patched=p, source="prose", line=para.line_at(pstart + b.start),
                quote=para.text[pstart:end].strip(), unit=b.unit or p.unit, stated=None,
                condition=(), context=para.text[pstart:end],
            ))
    return out


_N = r"(\d[\d,]*(?:\.\d+)?)"
# the change worked out: `((353912/326550)-1)*100 = 8.37%`, `(353912/326550 - 1) * 100 = 8.37%`,
# `(353912-326550)/326550 = 8.37%`; the patched figure over the baseline
_FORMULAS = (
    re.compile(rf"\(\s*\(?\s*{_N}\s*/\s*{_N}\s*\)?\s*-\s*1\s*\)\s*\*\s*100\s*=\s*~?\s*([-+]?\d+(?:\.\d+)?)\s*%"),
    re.compile(rf"\(\s*{_N}\s*-\s*{_N}\s*\)\s*/\s*(?P<again>{_N[1:-1]})(?:\s*\*\s*100)?\s*=\s*~?\s*([-+]?\d+(?:\.\d+)?)\s*%"),
)


def find_formula_pairs(lines: Sequence[str]) -> list[Measurement]:
    """Pairs whose change a line works out as a formula (see the module); the figures must
    give the percentage written."""
    out: list[Measurement] = []
    for i, line in enumerate(lines):
        if "/" not in line or "%" not in line or len(line) > 400:
            continue
        for k, formula in enumerate(_FORMULAS):
            m = formula.search(line)
            if m is None:
                continue
            if k == 0:
                patched_at, base_at, pct_at = 1, 2, 3
            else:
                patched_at, base_at, pct_at = 1, 2, 4
                if m.group(2).replace(",", "") != m.group("again").replace(",", ""):
                    continue
            b = _figure(line, m, base_at)
            p = _figure(line, m, patched_at)
            pct = float(m.group(pct_at))
            if b is None or p is None or not b.value or \
                    abs(100.0 * (p.value - b.value) / b.value - pct) > max(0.05, 0.02 * abs(pct)):
                continue
            stated = find_quantities(line[m.start(pct_at):m.end()])
            out.append(Measurement(
                baseline=b, patched=p, source="prose", line=i, quote=line.strip(),
                unit=None, stated=stated[0] if stated else None, condition=(), context=line))
            break
    return out


def _figure(line: str, m: re.Match[str], group: int) -> Quantity | None:
    found = find_quantities(line[m.start(group):m.end(group)])
    if len(found) != 1 or found[0].kind != "number":
        return None
    q = found[0]
    return Quantity(q.value, q.text, q.start + m.start(group), q.end + m.start(group), q.kind,
                    q.unit, q.canonical_unit, q.canonical_value, q.bound, q.sign, q.high)
