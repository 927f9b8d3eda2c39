"""From a message's text to its performance claims.

The body is cut into blocks of consecutive lines at one quote depth (quote markers
stripped); tables, lists and prose are read in each block, in that order, and a line that
gave a table or list figure is not read again as prose. Figures inside quotes are attributed
to the message they were first written in: the In-Reply-To parent for depth 1, further up
the References for deeper quotes, even when that message is not in the input (seed 000:
Jamal's reply quotes Eric's patch). `merge_claims` makes a claim repeated down a thread one
claim.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .body import strip_quote
from .lists import find_list_measurements
from .model import Claim, Message
from .prose import find_prose_changes, find_prose_measurements
from .quantity import Measurement, Quantity
from .tables import find_table_measurements
from .units import lower_is_better, metric_of

# Relative changes below this are "neutral": the figures are the same as far as a mail's
# rounding can tell (`3518448 -> 3591240` is +2.1 %, not neutral).
NEUTRAL_PCT = 0.05


@dataclass(frozen=True)
class _Block:
    depth: int
    start: int  # index of the block's first line in the body
    lines: tuple[str, ...]  # quote markers stripped


def _content_end(message: Message) -> int:
    """Where the prose of a mail ends: its signature or list footer, and for a patch the
    `---` line before the diffstat and diff (numbers there are code, not results)."""
    body = message.body
    end = min(i for i in (body.signature_start, body.footer_start, len(body.lines)) if i is not None)
    if message.patch is not None and not message.patch.quoted:
        for i, (line, depth) in enumerate(zip(body.lines[:end], body.depths[:end], strict=True)):
            if not depth and (line == "---" or line.startswith("diff --git ")):
                return i
    return end


def _blocks(message: Message) -> list[_Block]:
    body = message.body
    end = _content_end(message)
    blocks: list[_Block] = []
    start = 0
    for i in range(1, end + 1):
        if i < end and body.depths[i] == body.depths[start]:
            continue
        depth = body.depths[start]
        lines = body.lines[start:i]
        blocks.append(_Block(depth, start, tuple(strip_quote(x, depth) for x in lines) if depth else lines))
        start = i
    return blocks


def _origin(message: Message, depth: int) -> str | None:
    """The message a quote at `depth` was first written in, from the mail's own headers."""
    if depth == 0:
        return message.message_id
    chain: list[str] = []
    if message.in_reply_to:
        chain.append(message.in_reply_to)
    chain += [r for r in reversed(message.references) if r != message.in_reply_to]
    if not chain:
        return None
    return chain[min(depth, len(chain)) - 1]


def _stated_pct(stated: Quantity | None) -> float | None:
    """The change a mail states, in percent with its sign: `+(4.68%)`, `-8.4%`, `2x` (+100 %)."""
    if stated is None:
        return None
    if stated.kind == "percent":
        return stated.value  # signed as written: `-(0.51%)` is -0.51
    if stated.kind == "ratio":
        return (stated.value - 1.0) * 100.0
    return None


def _decimals(text: str) -> int:
    digits = "".join(ch for ch in text if ch.isdigit() or ch in ".,")
    for sep in (".", ","):
        if sep in digits:
            return len(digits.rsplit(sep, 1)[1])
    return 0


def _consistent(computed: float | None, stated: Quantity | None, stated_pct: float | None,
                baseline: Quantity | None, patched: Quantity | None) -> bool | None:
    """Stated and computed change agree within the mail's rounding: half a unit in the last
    written digit of the stated figure, plus what rounding of the two figures can move."""
    if computed is None or stated is None or stated_pct is None:
        return None
    tolerance = 0.5 * 10 ** -_decimals(stated.text)
    if stated.kind == "ratio":
        tolerance *= 100.0
    if baseline is not None and patched is not None and baseline.value:
        step = max(0.5 * 10 ** -_decimals(baseline.text), 0.5 * 10 ** -_decimals(patched.text))
        tolerance += 100.0 * step * (1 + abs(patched.value / baseline.value)) / abs(baseline.value)
    return abs(computed - stated_pct) <= tolerance + 1e-9


def _direction(metric: str, canonical_unit: str | None, change: float | None) -> str:
    if change is None or abs(change) < NEUTRAL_PCT:
        return "neutral"
    better = change < 0 if lower_is_better(metric, canonical_unit) else change > 0
    return "improvement" if better else "regression"


def _claim_id(origin: str | None, found_in: str, metric: str, condition: tuple[tuple[str, str], ...],
              baseline: float | None, patched: float | None, stated: float | None) -> str:
    key = repr((origin or found_in, metric, condition, baseline, patched, stated))
    return "c" + hashlib.sha1(key.encode()).hexdigest()[:12]


def _canonical(q: Quantity | None, unit_from: Quantity | None) -> float | None:
    if q is None:
        return None
    if q.canonical_value is not None:
        return q.canonical_value
    # a bare table cell takes its unit's scale from the other figure or the header
    if unit_from is not None and unit_from.canonical_value is not None and unit_from.value:
        return q.value * unit_from.canonical_value / unit_from.value
    return q.value


def _make_claim(message: Message, block: _Block, m: Measurement) -> Claim:
    base, patched = m.baseline, m.patched
    unit = m.unit or patched.unit or base.unit
    canonical_unit = patched.canonical_unit or base.canonical_unit
    metric = metric_of(canonical_unit, m.context or m.quote)
    b_can, p_can = _canonical(base, patched), _canonical(patched, base)
    change = None
    if b_can not in (None, 0) and p_can is not None and math.isfinite(b_can) and math.isfinite(p_can):
        change = 100.0 * (p_can - b_can) / b_can
    stated = _stated_pct(m.stated)
    direction = _direction(metric, canonical_unit, change if change is not None else stated)
    origin = _origin(message, block.depth)
    return Claim(
        id=_claim_id(origin, message.key, metric, m.condition, base.value, patched.value, stated),
        message_id=origin,
        found_in=message.key,
        quoted=block.depth > 0,
        metric=metric,
        unit=unit,
        canonical_unit=canonical_unit,
        baseline=base.value,
        patched=patched.value,
        baseline_canonical=b_can,
        patched_canonical=p_can,
        bound=patched.bound or base.bound,
        change_pct=change,
        stated_change_pct=stated,
        consistent=_consistent(change, m.stated, stated, base, patched),
        direction=direction,
        condition=m.condition,
        source=m.source,
        quote=m.quote,
        line=block.start + m.line + 1,
        date=message.date,
    )


def extract_claims(message: Message) -> tuple[Claim, ...]:
    """The claims one message writes or quotes. Depends on the message alone."""
    claims: list[Claim] = []
    for block in _blocks(message):
        if not any(ch.isdigit() for line in block.lines for ch in line):
            continue
        used: set[int] = set()
        for m in [*find_table_measurements(block.lines), *find_list_measurements(block.lines)]:
            claims.append(_make_claim(message, block, m))
            used.update(range(m.line, m.line + max(1, m.quote.count("\n") + 1)))
        for m in find_prose_measurements(block.lines):
            if m.line not in used:
                claims.append(_make_claim(message, block, m))
                used.add(m.line)
        for change in find_prose_changes(block.lines):
            if change.line in used:
                continue
            stated = _stated_pct(change.stated)
            metric = metric_of(change.stated.canonical_unit if change.stated.kind != "percent" else None,
                               change.context)
            origin = _origin(message, block.depth)
            claims.append(Claim(
                id=_claim_id(origin, message.key, metric, change.condition, None, None, stated),
                message_id=origin, found_in=message.key, quoted=block.depth > 0, metric=metric,
                unit=change.stated.unit, canonical_unit=change.stated.canonical_unit,
                baseline=None, patched=None, baseline_canonical=None, patched_canonical=None,
                bound=change.stated.bound, change_pct=None, stated_change_pct=stated,
                consistent=None, direction=_direction(metric, None, stated),
                condition=change.condition, source="prose", quote=change.quote,
                line=block.start + change.line + 1, date=message.date,
            ))
    return merge_claims(claims)


def merge_claims(claims: Iterable[Claim]) -> tuple[Claim, ...]:
    """One claim per id: where it was written first-hand when that is at hand, else where it
    was first seen (a claim repeated in quotes down a thread is one claim)."""
    best: dict[str, Claim] = {}
    for claim in claims:
        kept = best.get(claim.id)
        if kept is None or (kept.quoted and not claim.quoted):
            best[claim.id] = claim
    return tuple(best.values())


def claims_of(messages: Sequence[Message]) -> tuple[Claim, ...]:
    """Every claim of a set of messages, merged across the thread."""
    return merge_claims(c for m in messages for c in extract_claims(m))
