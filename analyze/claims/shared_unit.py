"""Units a tool names once for figures it prints bare.

Two shapes, both the tool's own layout rather than any wording:

- a row's label names the unit in brackets, then prints the figures bare: fio's
  `clat (usec): min=4, max=1056.6k, avg=197.23`, a table's `Latency (us)  12  10`;
- sockperf prints `Summary: Latency is 24.571 usec` and then its percentiles bare
  (`percentile 99.990 =   37.013`): the same quantity in the unit the summary names. A
  latency pair of paired output with no unit takes the unit of the nearest latency pair of
  the same message that has one, when the two are of one size (within a factor of ten, so a
  summary in usec never lends its unit to a bare count of something else).

The figures stay as written; the unit, the canonical figures and, where the unit tells a
time where the words had guessed another metric, the metric and direction follow. The
claim's id is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.claims.lexer.units import direction_of, lookup, metric_of
from analyze.claims.tables.roles import unit_in_text
from analyze.model import Claim

_REACH = 40  # body lines between the bare pair and the summary lending its unit
_SCALE = 10.0
_FIRST_FIGURE = re.compile(r"\d")


def _of_one_size(a: float, b: float) -> bool:
    return a > 0 and b > 0 and max(a, b) / min(a, b) <= _SCALE


def _direction(claim: Claim, metric: str, canonical: str) -> str:
    change = claim.change_pct if claim.change_pct is not None else claim.stated_change_pct
    return direction_of(metric, canonical, change)


def _with_unit(claim: Claim, written: str, patched_written: str | None = None) -> Claim:
    """The claim with the unit `written` for both figures, or `patched_written` for the
    patched one where its own line names another of the same quantity (fio's `lat (nsec):`
    on one side, `lat (usec):` on the other): the change is then worked out again."""
    unit = lookup(written)
    if unit is None or claim.baseline is None or claim.patched is None:
        return claim
    other = lookup(patched_written) if patched_written and patched_written != written else None
    if other is not None and other.canonical != unit.canonical:
        other = None
    metric = metric_of(unit.canonical, claim.quote)
    if claim.metric != "other" and metric == "other":
        metric = claim.metric
    base = claim.baseline * unit.factor
    patched = claim.patched * (other or unit).factor
    claim = replace(claim, unit=written, canonical_unit=unit.canonical, metric=metric,
                    baseline_canonical=base, patched_canonical=patched,
                    patched_unit=patched_written if other is not None else claim.patched_unit)
    if other is not None and base:
        change = 100.0 * (patched - base) / base
        claim = replace(claim, change_pct=change, consistent=None if claim.stated_change_pct is None
                        else abs(change - claim.stated_change_pct) <= 0.5 + 1e-9)
    return replace(claim, direction=_direction(claim, metric, unit.canonical))


# mmtests' row key: a statistic, then the measure and its count (`Hmean  Rsec-1`)
_MMTESTS_KEY = re.compile(r"^\s*(?:[HAG]mean|BAmean-\d+|Stddev|Min|Max|Median)\s+([A-Za-z/]+)-\d+\s")


def _label_unit(lines: Sequence[str], claim: Claim) -> str | None:
    """The unit a row's label names in brackets before its first figure, or as the measure
    of an mmtests key (`Hmean  Rsec-1`: records a second)."""
    line = claim.line or 0
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    key = _MMTESTS_KEY.match(text)
    if key is not None and lookup(key.group(1)) is not None:
        return key.group(1)
    first = _FIRST_FIGURE.search(text)
    label = text[:first.start() if first else len(text)]
    # (only a bracketed one: a word of the label is what the row is, not its unit)
    return unit_in_text(label) if "(" in label else None


def _patched_label_unit(claim: Claim) -> str | None:
    """The unit the patched figure's own line names in brackets before its figures, for a
    pair read from two lines (the quote holds both, the patched one second)."""
    parts = claim.quote.split("\n")
    if len(parts) != 2:
        return None
    first = _FIRST_FIGURE.search(parts[1])
    label = parts[1][:first.start() if first else len(parts[1])]
    return unit_in_text(label) if "(" in label else None


def with_named_units(claims: Sequence[Claim], lines: Sequence[str]) -> list[Claim]:
    """The claims, bare pairs given the unit their row's label or their tool's summary
    names (see the module)."""
    out = []
    for claim in claims:
        if claim.unit is None and claim.baseline is not None and claim.source != "prose":
            written = _label_unit(lines, claim)
            if written is not None:
                claim = _with_unit(claim, written, _patched_label_unit(claim))
        out.append(claim)
    return _with_summary_units(out)


def _with_summary_units(claims: Sequence[Claim]) -> list[Claim]:
    donors = [c for c in claims if c.metric == "latency" and c.unit and c.canonical_unit == "s"
              and c.baseline is not None and c.line is not None and c.patched_unit is None]
    if not donors:
        return list(claims)
    out = []
    for claim in claims:
        if (claim.metric != "latency" or claim.unit is not None or claim.source != "list"
                or claim.baseline is None or claim.patched is None or claim.line is None):
            out.append(claim)
            continue
        near = [d for d in donors if d.quoted == claim.quoted and abs((d.line or 0) - claim.line) <= _REACH
                and _of_one_size(abs(d.baseline or 0), abs(claim.baseline))]
        donor = min(near, key=lambda d: abs((d.line or 0) - (claim.line or 0))) if near else None
        out.append(claim if donor is None or donor.unit is None else _with_unit(claim, donor.unit))
    return out
