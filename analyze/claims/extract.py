"""From a message's text to its performance claims.

The body is cut into blocks of consecutive lines at one quote depth (quote markers
stripped); tables, lists and prose are read in each block, in that order, and a line that
gave a table or list figure is not read again as prose. A change stated in a sentence that a
table or list of the same message already gives (the kernel test robot's summary line above
its `%change` row) is that claim, not a second one. Figures inside quotes are attributed
to the message they were first written in: the In-Reply-To parent for depth 1, further up
the References for deeper quotes, even when that message is not in the input (seed 000:
Jamal's reply quotes Eric's patch). `merge_claims` makes a claim repeated down a thread one
claim.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from analyze.claims.benchmark import with_benchmarks
from analyze.claims.counters import without_supporting_counters
from analyze.claims.invisible import visible
from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import NEUTRAL_PCT, direction_of, lower_is_better, metric_of
from analyze.claims.listings import code_size_lines, device_dump_lines, listing_lines
from analyze.claims.lists.paired import find_paired_runs
from analyze.claims.lists.read import find_list_measurements
from analyze.claims.lists.stated import find_stated_lines
from analyze.claims.log_lines import is_log_line
from analyze.claims.prose.carried import find_carried_pairs, find_formula_pairs
from analyze.claims.prose.listed import spread_over_list
from analyze.claims.prose.percent import find_percent_changes
from analyze.claims.prose.read import (
    LoneResult,
    StatedChange,
    find_prose_changes,
    find_prose_measurements,
    find_prose_results,
)
from analyze.claims.prose.vs_pairs import find_vs_pairs
from analyze.claims.shared_unit import with_named_units
from analyze.claims.siblings import headings, tell_apart
from analyze.claims.spread_rows import is_spread
from analyze.claims.tables.box_rows import merged_box_rows
from analyze.claims.tables.named_rows import find_named_rows, introduced_words
from analyze.claims.tables.read import find_table_measurements
from analyze.claims.tables.roles import series_words
from analyze.claims.tables.verified import find_verified_pairs
from analyze.claims.verdicts import NOISE_PCT, with_verdicts
from analyze.errors import LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.mail.body import strip_quote
from analyze.model import Claim, Message

# A block without one has no claim: a digit, or a ratio in words ("halves the latency").
# Two searches: a digit is found by a fast scan, the words behind their first letters.
_DIGIT = re.compile(r"\d")
_RATIO_WORD = compile_words(r"twice|thrice|doubl|tripl|halv", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Block:
    depth: int
    start: int  # index of the block's first line in the body
    lines: tuple[str, ...]  # quote markers stripped


def _content_end(message: Message) -> int:
    """Where the prose of a mail ends: its signature or list footer, and for a patch the
    `---` line before the diffstat and diff (numbers there are code, not results)."""
    body = message.body
    end = len(body.lines)
    if body.signature_start is not None:
        end = min(end, body.signature_start)
    if body.footer_start is not None:
        end = min(end, body.footer_start)
    if message.patch is not None and not message.patch.quoted:
        lines, depths = body.lines, body.depths
        for i in range(end):  # (by index: slices of a long patch's lines would be copies)
            if not depths[i] and (lines[i] == "---" or lines[i].startswith("diff --git ")):
                return i
    return end


# Lines whose form says they hold no result: trailers, a diffstat and its summary, the
# shortlog header of a cover letter (`Jane Doe (3):`). Read as blank lines (they still end a
# paragraph or a table), so their addresses, dates and counts are never lexed.
_NOT_CONTENT = re.compile(
    r"\s*(?:[A-Z][A-Za-z-]{1,40}-by|Cc): [^\n]*@"  # trailers name an address
    r"|\s*(?:Link|Closes): \S*://"
    r"|\s*Fixes: [0-9a-f]{8,}"
    r"|\s*\S+\s+\|\s+[0-9]+ [+-]+\s*$"
    r"|\s*[0-9]+ files? changed(?:, [0-9]+ (?:insertion|deletion)s?\([+-]\))*\s*$"
    r"|\S[^()]{0,80} \([0-9]+\):\s*$"
)
_ATTRIBUTION_START = ("On ", "Le ", "Am ", "El ", "Il ", "Op ")


def _is_name(words: Sequence[str]) -> bool:
    """`Jakub Kicinski`, `Toke Høiland-Jørgensen`: a person, not `async buffered` (writes)."""
    return 0 < len(words) <= 3 and all(w[:1].isupper() for w in words)


def _not_content(line: str) -> bool:
    if ":" not in line and "|" not in line and "changed" not in line:
        return False  # every form below has one of these; most lines have none
    # a quote's attribution: `On Thu, 2 Jul 2015 at 07:07, Eric Dumazet wrote:`,
    # `Eric Dumazet <edumazet@example.com> writes:`, `Jakub Kicinski wrote:`
    text = line.strip()
    if len(text) <= 300 and text.endswith((" wrote:", " writes:")) and (
            text.startswith(_ATTRIBUTION_START) or "@" in text or _is_name(text.split()[:-1])):
        return True
    # each form of `_NOT_CONTENT` needs one of these; a line of prose with a colon has none
    if not ("@" in line or "://" in line or "Fixes: " in line or "|" in line
            or "changed" in line or text.endswith("):")):
        return False
    return _NOT_CONTENT.match(line) is not None


def _content(lines: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """The lines with those that are no content blanked, and whether any was."""
    # (`_not_content`'s first test inline: most lines have none of its three marks)
    content = tuple("" if (":" in x or "|" in x or "changed" in x) and _not_content(x) else x
                    for x in lines)
    return content, content != tuple(lines)


def _has_figure(lines: Sequence[str]) -> bool:
    # one scan of the joined lines (no word of a ratio spans a line end)
    text = "\n".join(lines)
    return _DIGIT.search(text) is not None or _RATIO_WORD.search(text) is not None


def _blocks(message: Message) -> Iterator[_Block]:
    """The blocks of the body that may hold a claim: with a figure, and not a quoted piece
    of a patch. Both are first asked of the lines as sent (quote markers hold no digit and
    no `@@`), so most blocks are dropped before their lines are cut and cleaned."""
    body = message.body
    end = _content_end(message)
    start = 0
    for i in range(1, end + 1):
        if i < end and body.depths[i] == body.depths[start]:
            continue
        depth, first, raw = body.depths[start], start, body.lines[start:i]
        start = i
        if not _has_figure(raw):
            continue
        lines = [strip_quote(x, depth) for x in raw] if depth else raw
        if depth and _is_quoted_hunk(lines):
            # a whole patch quoted: its commit message above the diff may still hold a claim
            lines = _message_above_diff(lines)
            if not lines or _is_quoted_hunk(lines) or not _has_figure(lines):
                continue
        content, blanked = _content(lines)
        if not blanked or _has_figure(content):  # (unchanged lines hold the figure seen)
            # read through what nobody sees: `5\u200b000000` is 5000000, not 5
            yield _Block(depth, first, tuple(visible(x) for x in content))


def _origin(message: Message, depth: int) -> str | None:
    """The message a quote at `depth` was first written in, from the mail's own headers."""
    if depth == 0:
        return message.message_id
    chain: list[str] = []
    references = list(message.references)
    if message.in_reply_to:
        chain.append(message.in_reply_to)
        if message.in_reply_to in references:
            # (References run oldest first and end with the parent; an id after the parent
            # is none of its ancestors: some mailers add the reply's own alias there)
            references = references[:references.index(message.in_reply_to)]
    chain += [r for r in reversed(references) if r != message.in_reply_to]
    if not chain:
        return None
    return chain[min(depth, len(chain)) - 1]


def _stated_pct(stated: Quantity | None) -> float | None:
    """The change a mail states, in percent with its sign: `+(4.68%)`, `-8.4%`, `2x` (+100 %).
    A sign the words give ("a 3% regression") is in `sign`, not in the figure as written."""
    if stated is None:
        return None
    if stated.kind == "percent":
        if stated.sign is not None and stated.value >= 0:
            return stated.sign * stated.value
        return stated.value  # signed as written: `-(0.51%)` is -0.51
    if stated.kind == "ratio":
        return (stated.value - 1.0) * 100.0
    return None


_NOT_NUMERAL = re.compile(r"[^0-9.,]")


def _decimals(text: str) -> int:
    # (in ASCII text the digits are 0-9: one substitution instead of a loop over characters)
    digits = (_NOT_NUMERAL.sub("", text) if text.isascii()
              else "".join(ch for ch in text if ch.isdigit() or ch in ".,"))
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


# what a claim is of, besides its figures, whatever else its condition names
_ID_KEYS = ("ratio",)


def _claim_id(origin: str | None, found_in: str, metric: str, condition: tuple[tuple[str, str], ...],
              baseline: float | None, patched: float | None, stated: float | None) -> str:
    """The claim's id: where its figures were first written, its metric and its figures.
    Not its condition, which a reader reads from the lines around the figures and a reply
    quotes only in part (`cpus=2` from a command above them): the same figures quoted are
    the same claim. Two claims of one message with the same figures and other conditions
    are told apart by `_distinct_ids`."""
    kept = tuple((key, value) for key, value in condition if key in _ID_KEYS)
    key = repr((origin or found_in, metric, kept, baseline, patched, stated))
    return "c" + hashlib.sha1(key.encode()).hexdigest()[:12]


def _distinct_ids(claims: Sequence[Claim]) -> list[Claim]:
    """The claims, those of one id but different conditions (two rows of one table with
    the same figures: `rbtree` and `pipapo` both 3.0 -> 3.1) each given an id of its own
    from its condition."""
    conditions: dict[str, set[tuple[tuple[str, str], ...]]] = {}
    for claim in claims:
        conditions.setdefault(claim.id, set()).add(claim.condition)
    if all(len(found) == 1 for found in conditions.values()):
        return list(claims)
    return [claim if len(conditions[claim.id]) == 1 else replace(
        claim, id="c" + hashlib.sha1(repr((claim.id, claim.condition)).encode()).hexdigest()[:12])
        for claim in claims]


def _value(q: Quantity | None) -> float | None:
    """A figure as written; a range (`97-110MB/sec`) is its midpoint."""
    if q is None:
        return None
    if q.kind == "range" and q.high is not None:
        return (q.value + q.high) / 2.0
    return q.value


def _bound(*figures: Quantity | None) -> str | None:
    """What a claim's figures are: `lower` for "more than X", ..., `approx` for a range."""
    for q in figures:
        if q is not None and q.bound:
            return q.bound
    if any(q is not None and q.kind == "range" and q.high is not None for q in figures):
        return "approx"
    return None


def _canonical(q: Quantity | None, unit_from: Quantity | None) -> float | None:
    if q is None:
        return None
    if q.unit is None and q.kind == "number" and unit_from is not None and unit_from.unit \
            and unit_from.canonical_value is not None and unit_from.value \
            and 0.1 <= abs(q.value / unit_from.value) <= 10:
        # one unit written for the pair (`from 5 Mpps to 6`, `from 7.0 to 7.1M`): the bare
        # figure, of the same size as the other, is in it, as the claim shows both (a tool
        # that prints `IOPS=73248` and then `IOPS=381.76K` wrote each figure whole)
        return (_value(q) or q.value) * unit_from.canonical_value / unit_from.value
    if q.canonical_value is not None:
        middle = _value(q)
        if q.value and middle is not None and middle != q.value:
            return q.canonical_value * middle / q.value  # the midpoint of a range, scaled
        return q.canonical_value
    # a bare table cell takes its unit's scale from the other figure or the header
    value = _value(q) or q.value
    if unit_from is not None and unit_from.canonical_value is not None and unit_from.value:
        return value * unit_from.canonical_value / unit_from.value
    return value


_SCALES = frozenset({"K", "k", "M", "G"})
# what a bare `K` or `M` counts, named near the figures: `7130K` ... `So a +7% IOPS gain`
_COUNTED_NEAR = re.compile(r"(?<![^\W_])(IOPS|iops|pps|ops/s)\b")
_NEAR_LINES = 4
_COUNT_CAPTION_REACH = 30  # lines above a pair where a caption naming what it counts may stand


def _counted_words(pattern: re.Pattern[str], text: str) -> set[str]:
    """What `pattern` finds counted in `text`, `iops` spelled as the unit is: `IOPS`."""
    return {w.upper() if w.lower() == "iops" else w for w in pattern.findall(text)}


def _counted(block: _Block, m: Measurement) -> tuple[Quantity, Quantity] | None:
    """The pair with a bare scale (`7130K` over `7630K`) given what it counts, when the words
    around it name one thing counted (`IOPS`): `KIOPS`, as `7130K IOPS` is read."""
    scale = m.baseline.unit if m.baseline.unit in _SCALES else m.patched.unit
    if scale not in _SCALES or m.baseline.canonical_unit or m.patched.canonical_unit:
        return None
    last = m.line + m.quote.count("\n")
    near = " ".join((m.context, *block.lines[max(0, m.line - _NEAR_LINES):last + _NEAR_LINES + 1]))
    words = _counted_words(_COUNTED_NEAR, near)
    if not words:
        # a caption further up names it: `Performance test result(IOPS):` over its cases
        caption = next((line for line in reversed(block.lines[max(0, m.line - _COUNT_CAPTION_REACH):m.line])
                        if line.rstrip().endswith(":") and len(line) <= 120), "")
        words = _counted_words(_COUNTED_NEAR, caption)
    if not words:
        # the same figure printed by the tool further on, under its key: `Before[1]: 7.06M`
        # over the run `[1]` that ends `IOPS=7.06M`
        keyed = re.compile(rf"\b(IOPS|iops|pps)\s*[=:]\s*(?:{re.escape(m.baseline.text)}|"
                           rf"{re.escape(m.patched.text)})(?![\w.])")
        words = _counted_words(keyed, "\n".join(line for line in block.lines if "=" in line or ":" in line))
    if len(words) != 1:
        return None
    word = words.pop()
    scaled = find_quantities(f"1 {scale}{word}")
    plain = find_quantities(f"1 {word}")
    if not scaled or not scaled[0].unit or scaled[0].canonical_value is None \
            or not plain or not plain[0].unit or plain[0].canonical_value is None:
        return None

    def counted(q: Quantity) -> Quantity:
        # (`7130K` in KIOPS; a figure written without the scale, `73248`, in IOPS)
        unit = scaled[0] if q.unit == scale else plain[0] if q.unit is None else None
        if unit is None or unit.canonical_value is None:
            return q
        return Quantity(q.value, q.text, q.start, q.end, q.kind, unit.unit, unit.canonical_unit,
                        q.value * unit.canonical_value, q.bound, q.sign, q.high)
    return counted(m.baseline), counted(m.patched)


def _not_logged(measurements: Sequence[Measurement]) -> list[Measurement]:
    """The pairs less those read from a log's lines (an oops's registers, a NIC's counters,
    iperf3's sender line: analyze/claims/log_lines.py)."""
    return [m for m in measurements
            if not any(is_log_line(part) for part in m.quote.split("\n")[:2])]


def _one_line_twice(m: Measurement) -> bool:
    """The pair's two lines are one text (`Speed: 25000Mb/s` under both captions, a `dd`
    line to the fourth decimal): one output pasted twice or a setting both runs print, an
    identical restatement (docs/claims.md, rule 7), never two measurements to compare."""
    parts = m.quote.split("\n")
    return len(parts) == 2 and " ".join(parts[0].split()) == " ".join(parts[1].split())


def _in_listing(m: Measurement, listed: frozenset[int]) -> bool:
    """The pair was read from a numbered source listing (`analyze/claims/listings.py`)."""
    return bool(listed) and (m.line in listed or m.line + m.quote.count("\n") in listed)


def _with_counted(block: _Block, measurements: Sequence[Measurement]) -> list[Measurement]:
    out = []
    for m in measurements:
        counted = _counted(block, m)
        out.append(m if counted is None else
                   replace(m, baseline=counted[0], patched=counted[1], unit=counted[1].unit))
    return out


def _caption_metric(block: _Block, line: int, canonical_unit: str | None) -> str:
    """The metric the caption over a table or list names when its rows' own words do not
    (mmtests' `pgbench Transactions` over `Hmean 4  2213.45 ...`): the nearest heading above
    the pair in its block."""
    found = headings(block.lines, line + 1)
    if not found or any(ch.isdigit() for ch in found[0]):
        return "other"  # (a setting over the table, `read_bps_device = 30MB/s`, is no caption)
    return metric_of(canonical_unit, found[0])


# what is used up, where less is better whatever its unit
_USED = re.compile(r"\butili[sz]ation\b|(?:\b|_)overhead\b", re.I)


def _make_claim(message: Message, block: _Block, m: Measurement) -> Claim:
    base, patched = m.baseline, m.patched
    unit = m.unit or patched.unit or base.unit
    canonical_unit = patched.canonical_unit or base.canonical_unit
    context = m.context or m.quote
    if canonical_unit == "s" and unit:
        context = f"{context} {unit}"  # (a time's own unit may say what it is: `ns`)
    metric = metric_of(canonical_unit, context)
    if metric == "other" and m.source != "prose":
        metric = _caption_metric(block, m.line, canonical_unit)
    b_can, p_can = _canonical(base, patched), _canonical(patched, base)
    change = None
    # (no percentage moves a figure across zero: an offset's mean from -1.12 to 0.14 ns)
    if b_can not in (None, 0) and p_can is not None and math.isfinite(b_can) and math.isfinite(p_can) \
            and (b_can < 0) == (p_can < 0):
        change = 100.0 * (p_can - b_can) / b_can
    stated = _stated_pct(m.stated)
    lower_better = m.lower_is_better
    if lower_better is None and metric == "other" and _USED.search(context):
        lower_better = True  # (a share used up, `Network utilisation 97% -> 14%`: less is better)
    direction = direction_of(metric, canonical_unit, change if change is not None else stated,
                           lower_better)
    if stated == 0.0 and change is not None and abs(change) <= NOISE_PCT:
        direction = "neutral"  # (the author's own `(+0%)` beside figures that differ a little)
    origin = _origin(message, block.depth)
    # `5 Mpps → 10 Gpps`: the figures stay as written, each with its own unit
    patched_unit = (patched.unit if base.unit and patched.unit and patched.unit != base.unit
                    else None)
    if patched_unit is not None:
        unit = base.unit
    return Claim(
        id=_claim_id(origin, message.key, metric, m.condition, _value(base), _value(patched),
                     stated),
        message_id=origin,
        found_in=message.key,
        quoted=block.depth > 0,
        metric=metric,
        unit=unit,
        canonical_unit=canonical_unit,
        baseline=_value(base),
        patched=_value(patched),
        baseline_canonical=b_can,
        patched_canonical=p_can,
        bound=_bound(patched, base),
        change_pct=change,
        stated_change_pct=stated,
        consistent=_consistent(change, m.stated, stated, base, patched),
        direction=direction,
        condition=m.condition,
        source=m.source,
        quote=m.quote,
        line=block.start + m.line + 1,
        date=message.date,
        patched_unit=patched_unit,
        runs=m.runs,
    )


_CUT_WORD = compile_words(r"reduc\w*|decreas\w*|\bsav(?:es?|ed|ings?)\b|\bcut\b|shav\w*|eliminat\w*"
                          r"|\bfewer\b|\bless\b", re.I)


def _stated_claim(message: Message, block: _Block, change: StatedChange,
                  source: str = "prose") -> Claim:
    """A change stated without its figures. Its metric comes from the sentence's words
    ("a 3% regression in connection rate"), never from the `%` it is written in. A ratio
    ("2x faster", "an order of magnitude") is no percentage: it is kept as the claim's
    `ratio` condition, with no stated change to score (docs/claims.md)."""
    stated = _stated_pct(change.stated)
    metric = change.metric or metric_of(None, change.context)
    condition = change.condition
    direction = direction_of(metric, None, stated)
    if metric == "other" and stated is not None and stated < 0 and _CUT_WORD.search(
            change.quote[max(0, change.stated.start - 40):change.stated.end + 40]):
        # a cut of something no metric names is of a cost: "~10% extra write amp
        # reduction", "saves 8% of the memory bandwidth"
        direction = "improvement" if abs(stated) >= NEUTRAL_PCT else "neutral"
    if change.stated.kind == "ratio":
        condition = (*condition, ("ratio", change.stated.text.strip()))
        stated = None
    origin = _origin(message, block.depth)
    return Claim(
        id=_claim_id(origin, message.key, metric, condition, None, None, stated),
        message_id=origin, found_in=message.key, quoted=block.depth > 0, metric=metric,
        unit=None, canonical_unit=None,
        baseline=None, patched=None, baseline_canonical=None, patched_canonical=None,
        bound=change.stated.bound, change_pct=None, stated_change_pct=stated,
        consistent=None, direction=direction,
        condition=condition, source=source, quote=change.quote,
        line=block.start + change.line + 1, date=message.date,
    )


def _lone_claim(message: Message, block: _Block, result: LoneResult) -> Claim:
    """A patched figure given alone ("now forwards more than 1.2 Mpps"): no baseline, so no
    computed change; it reads as an improvement when its bound says "at least" that much of
    something where more is better (or "at most" where less is)."""
    q = result.patched
    metric = metric_of(q.canonical_unit, result.context)
    bound = _bound(q)
    lib = lower_is_better(metric, q.canonical_unit)
    better = (bound == "lower" and not lib) or (bound == "upper" and lib)
    origin = _origin(message, block.depth)
    patched = _value(q)
    return Claim(
        id=_claim_id(origin, message.key, metric, result.condition, None, patched, None),
        message_id=origin, found_in=message.key, quoted=block.depth > 0, metric=metric,
        unit=q.unit, canonical_unit=q.canonical_unit, baseline=None, patched=patched,
        baseline_canonical=None, patched_canonical=_canonical(q, None), bound=bound,
        change_pct=None, stated_change_pct=None, consistent=None,
        direction="improvement" if better else "neutral", condition=result.condition,
        source="prose", quote=result.quote, line=block.start + result.line + 1,
        date=message.date,
    )


def _family(metric: str) -> str:
    """Metrics one sentence may name for the other's pair: "latency is about 1% worse" sums
    up a pair of times whose own lines name no latency."""
    return "latency" if metric == "time" else metric


class _Changes:
    """The changes of a message's table and list claims, by metric and by (metric,
    condition), sorted: a stated-only change is looked up in log time, not against each."""

    def __init__(self, figures: Sequence[Claim]) -> None:
        by: dict[tuple[str | None, tuple[tuple[str, str], ...] | None], list[float]] = {}
        for other in figures:
            for change in (other.stated_change_pct, other.change_pct):
                if change is not None and math.isfinite(change):
                    by.setdefault((_family(other.metric), None), []).append(change)
                    by.setdefault((_family(other.metric), other.condition), []).append(change)
                    by.setdefault((None, None), []).append(change)
        self.by = {key: sorted(values) for key, values in by.items()}
        # (and by sentence or row: a pair and its percentage in one are one claim, whatever
        # metric the words around each name: `a 4% improvement in peak performance, taking
        # us from 9.6M to 10M IOPS/core`)
        self.in_quote: dict[str, list[float]] = {}
        for other in figures:
            for change in (other.stated_change_pct, other.change_pct):
                if change is not None and math.isfinite(change):
                    self.in_quote.setdefault(other.quote, []).append(change)

    def restates(self, claim: Claim, tolerance: float) -> bool:
        """A stated-only change that a table or list claim of the same message already
        gives: the robot's "a -7.5% regression of hackbench.throughput" above its `%change`
        row, or "That's ~1% worse" under the two sockperf lines it sums up. Same metric, same
        change within the stated figure's rounding, and no other condition named."""
        stated = claim.stated_change_pct
        if stated is None or not math.isfinite(stated):
            return False
        # (a change whose words name no metric restates a pair of any: the robot's
        # headline of `stress-ng.io-uring.ops_per_sec` over its row, read in ops/s)
        key = (None, None) if claim.metric == "other" and not claim.condition else (
            _family(claim.metric), claim.condition or None)
        values = self.by.get(key, [])
        i = bisect.bisect_left(values, stated - tolerance - 1e-9)
        if i < len(values) and values[i] <= stated + tolerance + 1e-9:
            return True
        return any(abs(change - stated) <= tolerance + 1e-9 for change in self.in_quote.get(claim.quote, ()))


_APPROX_SHARE = 0.15  # how far "~20%" may be from the change it rounds (22 % is "~20%")


def _rounding(stated: Quantity) -> float:
    """Half a unit in the last written digit of a stated change, in percent; of an
    approximate one (`~20%`, `about 20%`), a share of the figure."""
    tolerance = 0.5 * 10 ** -_decimals(stated.text)
    tolerance = tolerance * 100.0 if stated.kind == "ratio" else tolerance
    if stated.bound == "approx":
        scale = 100.0 if stated.kind == "ratio" else 1.0
        tolerance = max(tolerance, _APPROX_SHARE * abs(stated.value) * scale)
    return tolerance


# a line of a patch's code: added or removed C (`+\treturn 0;`, `+ * level 5->6: ...`),
# never a signed figure (`+4.1%`)
_CODE_LINE = re.compile(r"^[+-](?:\t|\s*(?:[{}#]|/\*|\*(?!\*)|//)|\s*(?:static|return|if|else|for|while"
                        r"|struct|int|unsigned|void|const|u\d\d|bool|long|goto)\b)")
_MIN_CODE_LINES = 3


_DIFF_START = re.compile(r"^(?:---\s*$|diff --git |@@ -|Index: )")


def _message_above_diff(lines: Sequence[str]) -> list[str]:
    """The lines of a quoted patch above its diff (`---`, `diff --git`, a hunk header)."""
    for k, line in enumerate(lines):
        if _DIFF_START.match(line):
            return list(lines[:k])
    return []


def _is_quoted_hunk(lines: Sequence[str]) -> bool:
    """A quoted piece of a patch (a review reply): its numbers are code, not results. A
    hunk header (one that reads as no content, as `_content` tells, does not count), or a
    quote trimmed to lines of code, most of its lines added or removed C."""
    if any(line.startswith(("@@ -", "diff --git ")) and not _not_content(line) for line in lines):
        return True
    code = sum(1 for line in lines if line[:1] in "+-" and _CODE_LINE.match(line))
    return code >= _MIN_CODE_LINES and code * 2 >= sum(1 for line in lines if line.strip())


_CAPTION_REACH = 8  # lines below a caption of change its pair may start


def _captions_stated(lines: Sequence[str], measurements: list[Measurement],
                     changes: Sequence[StatedChange],
                     ) -> tuple[list[Measurement], set[tuple[int, float]]]:
    """A change stated on a caption line over the pair it is of: `xdp1 test shows ~41.1%
    improvement:` above `Before: ~1.7Mpps` / `After: ~2.3Mpps` states that pair's change
    (kept as written, even where the figures say otherwise). The first pair below the
    caption with no stated change of its own takes it; returns the measurements and the
    changes so placed, by (line, value): they make no claim of their own."""
    # (a caption may wrap: `... improvement on guest receiving pps for` / `small buffers:`)
    captions = [c for c in changes
                if any(line.rstrip().endswith(":") for line in lines[c.line:c.line + 2])]
    if not captions:
        return measurements, set()
    out = list(measurements)
    placed: set[tuple[int, float]] = set()
    for change in captions:
        if (change.line, change.stated.value) in placed:
            continue  # (both prose readers may find it)
        below = [k for k, m in enumerate(out)
                 if change.line < m.line <= change.line + _CAPTION_REACH]
        if not below:
            continue
        k = min(below, key=lambda k: out[k].line)  # the first pair below the caption
        if out[k].stated is None:
            out[k] = replace(out[k], stated=change.stated)
            placed.add((change.line, change.stated.value))
    return out, placed


def _with_verified(verified: Sequence[Measurement],
                   others: Sequence[Measurement]) -> list[Measurement]:
    """The pairs a table's percentages prove, with the other readers' pairs: where another
    reader read the same pair it keeps its reading (its header named the unit and the
    condition); where it paired a proven figure some other way, it read the table wrong."""
    if not verified:
        return list(others)
    pairs = {(i, m.baseline.value, m.patched.value) for m in others for i in _lines_of(m)}
    proven = [m for m in verified
              if not any((i, m.baseline.value, m.patched.value) in pairs for i in _lines_of(m))]
    figures: dict[int, set[float]] = {}
    agreed: dict[tuple[int, float, float], Measurement] = {}
    for m in verified:
        for i in _lines_of(m):
            figures.setdefault(i, set()).update((m.baseline.value, m.patched.value))
            agreed[(i, m.baseline.value, m.patched.value)] = m
    kept = []
    for m in others:
        proof = agreed.get((m.line, m.baseline.value, m.patched.value))
        if proof is not None:
            # (its reading, with what the table's own percentages say: the change signed
            # as the figure moved, and whether its figures are better lower)
            kept.append(replace(m, stated=proof.stated or m.stated,
                                lower_is_better=proof.lower_is_better))
        elif not figures.get(m.line, set()) & {m.baseline.value, m.patched.value}:
            kept.append(m)
    return [*proven, *kept]


def _lines_of(m: Measurement) -> range:
    """The lines a pair was read from: its line and those its quote runs on over."""
    return range(m.line, m.line + m.quote.count("\n") + 1)


_SUMMARY_ABOVE = 12  # lines a sentence summing up a pair may stand below its figures
_SUMMARY_BELOW = 8  # ... or above them


def _agrees_with(m: Measurement, stated: Quantity) -> bool:
    """Whether a pair's figures compute to a change stated for it: a percentage within the
    digits written (or 6 %), a ratio (`4 times as much`) within 6 %."""
    b, p = _canonical(m.baseline, m.patched), _canonical(m.patched, m.baseline)
    if not b or p is None or not math.isfinite(b) or not math.isfinite(p):
        return False
    if stated.kind == "ratio":
        ratio = max(p / b, b / p) if p else 0.0
        return abs(ratio - stated.value) <= 0.06 * stated.value
    if stated.kind != "percent":
        return False
    change = abs(100.0 * (p - b) / b)
    tolerance = max(10.0 ** -_decimals(stated.text) * 1.05, 0.06 * abs(stated.value))
    return abs(change - abs(stated.value)) <= tolerance


def _same_point(m: Measurement, change: StatedChange, metric: str) -> bool:
    """Whether a stated change can be of a pair: the metric it names (if any) is the pair's,
    and so is the condition it names (if any)."""
    if metric != "other" and _family(metric) != _family(metric_of(
            m.patched.canonical_unit or m.baseline.canonical_unit, m.context or m.quote)):
        return False
    return not change.condition or set(change.condition) <= set(m.condition)


def _summaries_stated(measurements: list[Measurement], changes: Sequence[StatedChange],
                      placed: set[tuple[int, float]], lines: Sequence[str] = (),
                      ) -> tuple[list[Measurement], set[tuple[int, float]]]:
    """A change a sentence states near a pair whose figures compute to it is that pair's:
    "or about a 25% improvement" under two t/io_uring runs (5.18M -> 6.54M IOPS, 2.53 ->
    3.19 GiB/s) is their stated change, not a claim of its own. A percentage goes to every
    such pair without one; a ratio (`4 times as much space (8 bytes -> 32 bytes)`) is only
    found restated (a claim's change is a percentage)."""
    out = list(measurements)
    placed = set(placed)
    seen: set[tuple[int, float]] = set()  # (both prose readers may find a change: the first,
    for change in changes:                # which knows its condition, decides)
        key = (change.line, change.stated.value)
        if key in placed or key in seen:
            continue
        seen.add(key)
        metric = change.metric or metric_of(None, change.context)
        near = [k for k, m in enumerate(out)
                if m.line - _SUMMARY_BELOW <= change.line <= _last_line(lines, m) + _SUMMARY_ABOVE
                and _agrees_with(m, change.stated) and _same_point(m, change, metric)]
        if not near:
            continue
        placed.add(key)
        if change.stated.kind == "percent":
            for k in near:
                if out[k].stated is None:
                    out[k] = replace(out[k], stated=change.stated)
    return out, placed


def _last_line(lines: Sequence[str], m: Measurement) -> int:
    """The last line a pair was read from: where the last line of its quote stands (two
    runs' first lines quoted one over the other may stand far apart)."""
    last = m.quote.rsplit("\n", 1)[-1].rsplit(" [...] ", 1)[-1].rstrip()
    end = m.line + m.quote.count("\n")
    if not last:
        return end
    for j in range(max(end, m.line), min(len(lines), m.line + _MAX_SPAN)):
        if lines[j].rstrip() == last:
            return j
    return end


_MAX_SPAN = 400


class _Introduced:
    """The words a message introduces something by (`a new hybrid poll`), read from its
    body once, and only when a reader asks."""

    def __init__(self, message: Message) -> None:
        self._message = message
        self._words: frozenset[str] | None = None

    def __call__(self) -> frozenset[str]:
        if self._words is None:
            self._words = introduced_words(self._message.body.lines)
        return self._words


def extract_claims(message: Message, limits: Limits = DEFAULT_LIMITS) -> tuple[Claim, ...]:
    """The claims one message writes or quotes. Depends on the message alone. LimitExceeded
    when one of its tables or lists runs past `limits.table_lines`."""
    found: list[tuple[Claim, float | None]] = []  # a stated-only claim with its rounding
    figures: list[Claim] = []  # from tables, lists and sentences
    rows = limits.table_lines
    series = series_words(message.subject.name)
    introduced = _Introduced(message)
    for block in _blocks(message):
        used: set[int] = set()
        # pairs a table's own percentages prove first: where another reader paired the
        # same figures otherwise, it read the table wrong
        boxed = merged_box_rows(block.lines)
        read = _with_verified(find_verified_pairs(boxed), [
            *find_table_measurements(boxed, rows),
            *find_list_measurements(block.lines, rows)])
        # runs of a tool under each side's caption, where no table or list was read
        taken = {i for m in read for i in range(m.line, m.line + max(1, m.quote.count("\n") + 1))}
        listed = listing_lines(block.lines) | code_size_lines(block.lines) | device_dump_lines(block.lines)
        paired = find_paired_runs(block.lines, taken, series)
        taken.update(i for m in paired for i in range(m.line, _last_line(block.lines, m) + 1))
        by_name = find_named_rows(block.lines, taken, series, introduced)
        measurements = _with_counted(block, without_supporting_counters(
            _not_logged([m for m in (*read, *paired, *by_name)
                         # (a bare row of zeros measured nothing: mmtests' `SeqCreate del 0.00`)
                         if not _in_listing(m, listed) and not is_spread(block.lines, m)
                         and not _one_line_twice(m) and not (
                             (m.baseline.value, m.patched.value) == (0.0, 0.0)
                             and not (m.unit or m.baseline.unit or m.patched.unit))]),
            block.lines))
        stated = spread_over_list(block.lines, [*find_prose_changes(block.lines),
                                                *find_percent_changes(block.lines)])
        measurements, captioned = _captions_stated(block.lines, measurements, stated)
        measurements, captioned = _summaries_stated(measurements, stated, captioned, block.lines)
        for m in measurements:
            figures.append(_make_claim(message, block, m))
            found.append((figures[-1], None))
            used.update(range(m.line, m.line + max(1, m.quote.count("\n") + 1)))
        for change in find_stated_lines(block.lines):
            if change.line not in used:
                found.append((_stated_claim(message, block, change, source="list"),
                              _rounding(change.stated)))
                used.add(change.line)
        for m in _with_counted(block, _not_logged([
                *find_prose_measurements(block.lines), *find_carried_pairs(block.lines),
                *find_formula_pairs(block.lines), *find_vs_pairs(block.lines)])):
            if m.line not in used:
                figures.append(_make_claim(message, block, m))
                found.append((figures[-1], None))
                used.add(m.line)
        said = set()  # the rule-matched reader's changes first; the same percentage once
        for change in stated:
            # (one percentage per line, but an aligned row names a test for each of its own)
            named = dict(change.condition)
            key = (change.line, change.stated.value, named.get("test") or named.get("benchmark"))
            if change.line not in used and key not in said and key[:2] not in captioned:
                found.append((_stated_claim(message, block, change), _rounding(change.stated)))
                said.add(key)
        for result in find_prose_results(block.lines):
            if result.line not in used:
                found.append((_lone_claim(message, block, result), None))
                used.add(result.line)
    if not found:
        return ()
    changes = _Changes(figures)
    kept = _not_retyped([c for c, tolerance in found
                         if tolerance is None or not changes.restates(c, tolerance)])
    body = message.body
    # (as the table readers saw them: a box row of two lines is one line, its first)
    lines = merged_box_rows([strip_quote(line, depth)
                             for line, depth in zip(body.lines, body.depths, strict=False)])
    return merge_claims(with_verdicts(tell_apart(with_named_units(_distinct_ids(kept), lines), lines),
                                      lines))


def _not_retyped(claims: list[Claim]) -> list[Claim]:
    """The claims, less those a reply writes out again in its own text after quoting them:
    the same pair, figure for figure, as a quoted claim of the same message is an identical
    restatement (rule 7 of docs/claims.md), credited where it was first written."""
    quoted = {(c.metric, c.baseline, c.patched) for c in claims
              if c.quoted and c.baseline is not None and c.patched is not None}
    if not quoted:
        return claims
    return [c for c in claims if c.quoted or (c.metric, c.baseline, c.patched) not in quoted]


def merge_claims(claims: Iterable[Claim]) -> tuple[Claim, ...]:
    """One claim per id: where it was written first-hand when that is at hand, else where it
    was first seen (a claim repeated in quotes down a thread is one claim)."""
    best: dict[str, Claim] = {}
    for claim in claims:
        kept = best.get(claim.id)
        if kept is None or (kept.quoted and not claim.quoted):
            best[claim.id] = claim
    return tuple(best.values())


def claims_or_warning(message: Message, limits: Limits = DEFAULT_LIMITS) -> tuple[tuple[Claim, ...], str | None]:
    """`extract_claims`, with a table past the limit a warning rather than an error: the mail
    keeps the rest of its analysis (its series, its diff); only its claims are not read. A
    claim whose figures no report can show truly (`_refused`) is dropped with a warning
    naming its line and quote."""
    try:
        claims = with_benchmarks(extract_claims(message, limits), message)
    except LimitExceeded as exc:
        return (), f"{exc}; its claims are not read"
    refused = [(c, why) for c in claims if (why := _refused(c)) is not None]
    if not refused:
        return claims, None
    kept = tuple(c for c in claims if _refused(c) is None)
    claim, why = refused[0]
    quote = " ".join(claim.quote.split())[:80]
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    return kept, f"a claim dropped: {why} (line {claim.line}: {quote!r}){more}"


def _refused(claim: Claim) -> str | None:
    """Why no report may show this claim's figures, or None: a number no float holds, or a
    negative amount of something that cannot be negative (`from −5 Mpps`, which gave
    −300 %)."""
    figures = (claim.baseline, claim.patched, claim.baseline_canonical, claim.patched_canonical,
               claim.change_pct, claim.stated_change_pct)
    if not all(x is None or math.isfinite(x) for x in figures):
        return "a figure too large for a number"
    if claim.canonical_unit is not None and any(
            x is not None and x < 0 for x in (claim.baseline_canonical, claim.patched_canonical)):
        return f"a negative figure in {claim.unit or claim.canonical_unit}"
    return None


def claims_of(messages: Sequence[Message], limits: Limits = DEFAULT_LIMITS) -> tuple[Claim, ...]:
    """Every claim of a set of messages, merged across the thread (a message whose table is
    past the limit gives none; its analysis said so)."""
    return merge_claims(c for m in messages for c in claims_or_warning(m, limits)[0])
