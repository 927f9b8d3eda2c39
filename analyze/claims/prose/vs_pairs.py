"""Two figures set against each other with `vs` and no word for either side, whose change
the same sentence states:

    tested with t/io_uring nops, batching=32: 24 vs 31.5 MIOPS, or ~30% win
    latency 210 vs 180 usec (-14%)

`vs` says two figures are compared, not which is the baseline; the words for the sides that
the rule-matched reader (read.py) needs are missing. The stated percentage tells: of the two
orders, the one whose computed change agrees with it is the pair. When neither or both
agree, nothing is read: words alone never decide it here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of
from analyze.claims.tables.roles import with_unit

from .sentences import MAX_SENTENCE, _paragraphs, _sentences

# `vs`, and what the second figure is of when named after it: `1,400K IOPS vs bcache 210K IOPS`
_VS = re.compile(r"\s*(?:vs\.?|versus|v\.s\.)\s*(?:[A-Za-z][\w.-]*\s+){0,2}", re.I)
_HINT = re.compile(r"\b(?:vs\.?|versus|v\.s\.)(?=\s)", re.I)
_APPROX_SHARE = 0.15  # how far "~30%" may be from the change it rounds


def _agrees(computed: float, stated: Quantity) -> bool:
    """The stated percentage (unsigned as written, or signed) is this change, within its
    rounding or truncation (a unit of its last digit: 2.54 to 2.6 is written `+2.3%`; for
    "~30%", a share of it)."""
    decimals = len(stated.text.split(".")[1].rstrip("% ")) if "." in stated.text else 0
    tolerance = max(1.0 * 10 ** -decimals, _APPROX_SHARE * abs(stated.value)
                    if stated.bound == "approx" else 0.0)
    if stated.sign is not None or stated.value < 0:
        value = stated.value if stated.value < 0 or stated.sign is None else stated.sign * stated.value
        return abs(computed - value) <= tolerance + 1e-9
    return abs(abs(computed) - stated.value) <= tolerance + 1e-9


def _change(base: Quantity, patched: Quantity) -> float | None:
    b = base.canonical_value if base.canonical_value is not None else base.value
    p = patched.canonical_value if patched.canonical_value is not None else patched.value
    return None if not b else 100.0 * (p - b) / b


def _pair(text: str, a: Quantity, b: Quantity, stated: Quantity,
          gained: bool = False) -> tuple[Quantity, Quantity] | None:
    """The two figures in the order the stated change gives, each with the unit written
    once (`24 vs 31.5 MIOPS`). `gained`: the words say the rate rose (`~5% performance
    gain`), which orders a pair an unsigned percentage fits both ways."""
    unit = b.unit or a.unit
    if (a.unit and b.unit and a.canonical_unit != b.canonical_unit) or unit is None:
        return None
    a, b = with_unit(a, unit), with_unit(b, unit)
    forward, backward = _change(a, b), _change(b, a)
    if forward is None or backward is None:
        return None
    one, other = _agrees(forward, stated), _agrees(backward, stated)
    if one and other and gained and stated.sign is None \
            and metric_of(a.canonical_unit or b.canonical_unit) in ("throughput", "transactions"):
        return (a, b) if forward > 0 else (b, a)
    if one == other:
        return None
    return (a, b) if one else (b, a)


# words that say a rate rose
_GAINED = re.compile(r"\b(?:gain\w*|improv\w*|faster|boost\w*|speed-?up|increas\w*|higher|more)\b", re.I)


def find_vs_pairs(lines: Sequence[str]) -> list[Measurement]:
    """The `X vs Y` pairs of a block that a percentage of their sentence orders (see the
    module)."""
    out: list[Measurement] = []
    for para in _paragraphs(lines):
        if "%" not in para.text or not _HINT.search(para.text):
            continue
        said: list[Quantity] = []  # the sentence before's percentages
        for start, end in _sentences(para.text):
            text = para.text[start:end]
            before, said = said, []
            if len(text) > MAX_SENTENCE:
                continue
            qs = find_quantities(text) if "%" in text or _HINT.search(text) else []
            if "%" in text:
                said = [q for q in qs if q.kind == "percent"]
            if not _HINT.search(text) or ("%" not in text and not (
                    len(before) == 1 and text.lstrip().startswith("("))):
                continue
            # (the pair in brackets after the sentence that states its change: `showed ~5%
            # performance gain. (7044 KIOPS vs 7423)`)
            carried = before[0] if "%" not in text else None
            figures = [q for q in qs if q.kind in ("number", "duration")]
            for a, b in zip(figures, figures[1:], strict=False):
                if not _VS.fullmatch(text, a.end, b.start):
                    continue
                # the first percentage after the pair and before the next figure, else the
                # one right before it (`showed ~5% performance gain. (7044 KIOPS vs 7423)`)
                later = [q for q in qs if q.start >= b.end]
                earlier = [q for q in qs if q.end <= a.start]
                stated = later[0] if later and later[0].kind == "percent" and later[0].high is None \
                    else earlier[-1] if earlier and earlier[-1].kind == "percent" \
                    and earlier[-1].high is None and len(earlier) == 1 else carried
                if stated is None:
                    continue
                gained = stated is carried and bool(_GAINED.search(para.text[:start]))
                found = _pair(text, a, b, stated, gained)
                if found is None:
                    continue
                base, patched = found
                moved = 1 if (patched.canonical_value or patched.value) > (
                    base.canonical_value or base.value) else -1
                out.append(Measurement(
                    baseline=base, patched=patched, source="prose",
                    line=para.line_at(start + a.start), quote=text.strip(),
                    unit=patched.unit or base.unit,
                    stated=Quantity(stated.value, stated.text, stated.start, stated.end,
                                    stated.kind, stated.unit, stated.canonical_unit,
                                    stated.canonical_value, stated.bound,
                                    stated.sign if stated.sign is not None else moved, None),
                    condition=(), context=text))
    return out
