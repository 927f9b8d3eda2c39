"""Performance claims written as sentences, read with spaCy rule matching.

"My host with 8 RX queues was handling 5 Mpps before the patch, and more than 10 Mpps after
patch." (seed 000) is a before/after pair; "improves throughput by 12%" and "a 3% regression"
state only a change; "with this change the box now forwards more than 1.2 Mpps" gives the
patched figure alone. `analyze/claims/prose/sentences.py` picks the sentences holding a figure and a change
cue. Each is reduced to its *shape*: the digit runs of its figures written `0` ("went from
0.0 Mpps to 0.0 Mpps"), with the figures' kinds and units. `analyze/claims/prose/shape.py` reads the
shape with spaCy (a blank English pipeline, the sentencizer and the `Matcher` rules of
`analyze/claims/prose/rules.py`) into a reading that names figures by position; this module puts the
sentence's own figures back. Which words pair which figures never depends on the digits
written, so a reading is kept per shape: the figures of test after test ("With 8 queues this
goes from 7.4 Mpps to 8.1 Mpps.") are matched once. spaCy is imported on the first candidate
sentence only, so reading mail without one never pays its start-up.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from analyze.claims.lexer.quantity import Measurement, Quantity
from analyze.claims.lexer.units import metric_of

from .gate import could_match
from .no_change import is_no_change
from .sentences import MAX_SENTENCE, Candidate, candidates
from .settings import (
    PROFILE_SHARE,
    RESULT,
    SETTING,
    SETTING_AFTER,
    SIZE_MEASURED,
    VERSION_AFTER,
    VERSION_BEFORE,
)
from .shape import (
    NOTHING,
    ChangeRef,
    Conditions,
    LoneRef,
    PairRef,
    Reading,
    StatedRef,
    clause_around,
    read_shape,
    stated_metric,
    without_size_setups,
    words_by,
)

__all__ = ["MAX_SENTENCE", "LoneResult", "StatedChange", "find_prose_changes",
           "find_prose_claims", "find_prose_measurements", "find_prose_results"]


@dataclass(frozen=True, slots=True)
class StatedChange:
    """A change a sentence states without the figures it came from: "improves throughput by
    12%", "a 3% regression", "2x faster". `stated.sign` says which way the measured value went
    (+1 up, -1 down) when the words tell; a ratio for a value that went down is below 1."""

    stated: Quantity
    line: int  # index of the line holding the stated figure (0-based, in the lines given)
    quote: str  # the sentence
    # The words that tell the metric: its clause when that names one, else the sentence
    # (with the sentence before it when the sentence names none), or only the words by the
    # change when the sentence names a metric far from it; led by "throughput" when the
    # change is one of speed ("2x faster").
    context: str
    condition: tuple[tuple[str, str], ...] = ()
    # the metric, when the reader decided it is none of the sentence's (the sentence names
    # one far from the change: "~13% performance gain ... to leverage CPU pinning")
    metric: str | None = None


@dataclass(frozen=True, slots=True)
class LoneResult:
    """A patched figure given without the one before it: "With this change the box now
    forwards more than 1.2 Mpps" (the bound is the figure's own)."""

    patched: Quantity
    line: int
    quote: str
    context: str
    condition: tuple[tuple[str, str], ...] = ()
    # the metric, when the reader decided it is none of the sentence's (the sentence names
    # one far from the change: "~13% performance gain ... to leverage CPU pinning")
    metric: str | None = None


# --- a sentence's shape, and the reading kept for it --------------------------------------

_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class _Shape:
    """A candidate sentence with its figures' digits written `0`."""

    text: str
    figures: tuple[Quantity, ...]  # at their places in `text`, without values
    originals: tuple[Quantity, ...]  # the sentence's own figures, in the same order
    # where each figure ends in `text`, and how much longer the original is up to there
    ends: tuple[int, ...]
    shifts: tuple[int, ...]

    @property
    def key(self) -> tuple[object, ...]:
        return (self.text, *((q.start, q.end, q.kind, q.unit, q.canonical_unit)
                             for q in self.figures))

    def original_offset(self, offset: int) -> int:
        """Where a character of `text` outside any figure is in the sentence."""
        k = bisect.bisect_right(self.ends, offset)
        return offset + (self.shifts[k - 1] if k else 0)


def _shape(c: Candidate) -> _Shape:
    parts: list[str] = []
    figures: list[Quantity] = []
    originals: list[Quantity] = []
    ends: list[int] = []
    shifts: list[int] = []
    pos = size = shift = 0
    for q in sorted(c.quantities, key=lambda x: x.start):
        if q.start < pos:
            continue  # the lexer never overlaps figures; a reading could not place one
        parts.append(c.text[pos:q.start])
        size += q.start - pos
        written = _DIGITS.sub("0", c.text[q.start:q.end])
        figures.append(Quantity(value=0.0, text=written, start=size, end=size + len(written),
                                kind=q.kind, unit=q.unit, canonical_unit=q.canonical_unit))
        originals.append(q)
        parts.append(written)
        size += len(written)
        shift += (q.end - q.start) - len(written)
        ends.append(size)
        shifts.append(shift)
        pos = q.end
    parts.append(c.text[pos:])
    return _Shape("".join(parts), tuple(figures), tuple(originals), tuple(ends), tuple(shifts))


# Readings by shape key; bounded, and cleared when full (a reading is cheap to redo).
_READINGS: dict[tuple[object, ...], Reading] = {}
_READINGS_SIZE = 20_000


def _reading(shape: _Shape) -> Reading:
    """What the rules read in a shape: spaCy's reading, or nothing when the gate tells
    that no rule can match (spaCy reads the shape, so the gate is asked of the shape too).
    Either is kept for the next sentence of the same shape."""
    key = shape.key
    found = _READINGS.get(key)
    if found is None:
        if len(_READINGS) >= _READINGS_SIZE:
            _READINGS.clear()
        readable = could_match(shape.text, shape.figures)
        found = _READINGS[key] = read_shape(shape.text, shape.figures) if readable else NOTHING
    return found


# --- the sentence's figures put back ------------------------------------------------------


def _value_text(q: Quantity) -> str:
    if abs(q.value) < 1e15 and q.value == int(q.value):
        return str(int(q.value))
    return repr(q.value)


def _signed(q: Quantity, direction: str, lib: bool) -> Quantity:
    """The stated change with the sign of what happened to the measured value. The value
    stays as written (a written sign is in it); `sign` carries what the words say."""
    up = {"UP": True, "DOWN": False, "GOOD": not lib, "BAD": lib}[direction]
    sign = 1 if up else -1
    if q.kind == "ratio":
        if not up and q.value > 1:
            inverse = 1.0 / q.value
            return replace(q, value=inverse, canonical_value=inverse, sign=sign)
        return replace(q, sign=sign)
    return q if q.sign is not None else replace(q, sign=sign)


def _stated(shape: _Shape, ref: StatedRef) -> Quantity:
    if ref.figure is not None:
        q = shape.originals[ref.figure]
    else:
        assert ref.word is not None
        start, _, text, value = ref.word
        at = shape.original_offset(start)
        q = Quantity(value=value, text=text, start=at, end=at + len(text), kind="ratio",
                     unit="x", canonical_unit="x", canonical_value=value)
    return _signed(q, ref.direction, ref.lower_is_better) if ref.direction else q


def _conditions(shape: _Shape, conditions: Conditions) -> tuple[tuple[str, str], ...]:
    return tuple((key, _value_text(shape.originals[k])) for key, k in conditions)


def _stated_context(c: Candidate, speed: bool, q: Quantity) -> str:
    """The words that tell a stated change's metric (see StatedChange.context): its clause
    when that names one ("QPS is up ~9% and tail latency is down 4%"), else the sentence."""
    clause = without_size_setups(clause_around(c.text, q.start, q.end))
    metric = stated_metric(c.text, q.start, q.end)
    sentence = without_size_setups(c.text)
    if metric == "other" and metric_of(None, sentence) != "other":
        # the sentence names a metric far from the change: not the change's
        text = words_by(c.text, q.start, q.end)
    else:
        text = clause if metric != "other" and metric_of(None, clause) == metric else sentence
    own = metric_of(None, text)
    if speed and own not in ("throughput", "transactions"):
        return "throughput " + text
    if own == "other" and c.previous:
        return c.previous + " " + text
    return text


# a figure written as an adjective (`2-byte aligned`, `64-byte SQEs`, `4-core box`)
# describes a thing; two of them compare things, not runs
_ATTRIBUTE = re.compile(r"^\d+(?:\.\d+)?-[A-Za-z]")


# A profile's share (docs/claims.md: not a claim, even before and after): "from the perf profile,
# foo() drops from 9.3% to 2.1% of cycles". Said by the figures' own words (`of cycles`,
# `of samples`) or by the sentence naming the profiler.
_SHARE_OF = re.compile(r"\s*(?:of\s+(?:the\s+)?(?:total\s+)?(?:cpu\s+)?(?:cycles|samples)\b|in\s+(?:the\s+)?"
                       r"(?:perf\s+)?profile)", re.I)


def _profile_share(text: str, m: Measurement) -> bool:
    if m.baseline.kind != "percent" or m.patched.kind != "percent":
        return False
    end = max(m.baseline.end, m.patched.end)
    return bool(_SHARE_OF.match(text, end) or PROFILE_SHARE.search(text))


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def _says_what(text: str, m: Measurement) -> bool:
    """A sentence's pair says what it measures: a unit on its figures, else words of its own
    sentence naming a metric. Two bare numbers with neither are a setting, a count, a limit
    ("grew from 3 to 6 layers"), never a result by themselves."""
    if m.unit or m.baseline.unit or m.patched.unit:
        return True
    first, last = min(m.baseline.start, m.patched.start), max(m.baseline.end, m.patched.end)
    ends = [e.end() for e in _SENTENCE_END.finditer(text, 0, first)]
    after = _SENTENCE_END.search(text, last)
    return metric_of(None, text[ends[-1] if ends else 0:after.end() if after else len(text)]) != "other"


_ANY_FIGURE = re.compile(r"\d")
# a command's option right before a figure: `bench -s 16384`, `--iodepth=32`, `-t 8`
_OPTION_BEFORE = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*[ =]$")


# a change named right after a pair of percentages: the pair is the change's range
_CHANGE_AFTER = re.compile(
    r"\s*(?:\w+\s+){0,2}?(?:benefit|improvement|gain|increase|speed-?up|boost|better|faster|"
    r"slower|regression|drop|reduction|decrease|worse|penalty|overhead|win)", re.IGNORECASE)


def _change_range(text: str, m: Measurement) -> bool:
    """Two percentages that bound a change (`this gives from 2% to 5% performance
    benefit`): a range of the change, never a figure before and after (rule 6)."""
    if m.baseline.kind != "percent" or m.patched.kind != "percent":
        return False
    end = max(m.baseline.end, m.patched.end)
    return bool(_CHANGE_AFTER.match(text, end))


def _option_value(text: str, m: Measurement) -> bool:
    """One of the pair's figures is a command's argument (`./gem_pwrite ... -s 16384` over
    `Before: 0.205s`): a setting, never a side."""
    return any(_OPTION_BEFORE.search(text[max(0, q.start - 40):q.start]) for q in (m.baseline, m.patched))


# the two ends of a range written with a tilde or a spaced dash: `100% ~ 200%`, `5% - 35%`
_RANGE_BEFORE = re.compile(r"\d\s*%\s*(?:~|\s[-–]\s?)?\s*$")
_RANGE_AFTER = re.compile(r"\s*(?:~|\s[-–]\s?)\s*[~≈]?\d[\d.,]*\s*%")


def in_range(text: str, q: Quantity) -> bool:
    """A percentage that is an end of a range (rule 6 of docs/claims.md: a range keeps no
    figure): `the improvement is 100% ~ 200%`, `a 5% - 35% gain`."""
    before = text[max(0, q.start - 12):q.start]
    if _RANGE_AFTER.match(text, q.end):
        return True
    tilde = q.text.startswith(("~", "≈")) or re.search(r"(?:~|\s[-–]\s?)\s*$", before)
    return bool(tilde and _RANGE_BEFORE.search(before))


# A ratio is a change of performance only when the sentence names what it is of: `2x
# faster`, `halves the latency`; not `increased twice by mistake`, `twice as many buckets`,
# `a factor of 8 fewer firmware commands`, `4 times more` than a timer's period.
_RATIO_OF_PERFORMANCE = re.compile(
    r"perform|fast|slow|quick|speed|throughput|bandwidth|goodput|latenc|\brtt\b|\bpps\b|"
    r"iops|\bops\b|\brates?\b|transactions|\btps\b|requests|\bcpu|cycles|overhead|\bcost|"
    r"memory|footprint|\busage|utili[sz]ation|\bbw\b|\bruntime|\btook\b|\btakes?\b|"
    r"\bduration|improv|regress|\bgains?\b|boost|speed-?up|slow-?down|efficien|scal(?:e|es|ing)\b"
    r"|\bwin\b|better|worse|\btime\b|elapsed|\bmpps\b|\bgbps\b|\bmbps\b|packets|msgs?\b"
    r"|messages|\bqps\b|\bbench", re.I)
def _range_against_bare(m: Measurement) -> bool:
    """A range set against a bare number (`fine if given 3-5 sec instead of 1`): a span of
    settings, not two measured figures. (Two ranges, `at 97-110MB/sec and at 180-195MB/sec
    with this fix`, are two sides, each its midpoint.)"""
    b, p = m.baseline, m.patched
    return (b.kind == "range") != (p.kind == "range") and not (b.unit if p.kind == "range" else p.unit)


# a pair whose object is a pronoun: `bump it from 8 to 32`
_PRONOUN_OBJECT = re.compile(r"\b(?:it|this|that|them|these|those)\s+(?:(?:up|down)\s+)?(?:from|by)?\s*$", re.I)
_INSTEAD = re.compile(r"\binstead\s+of\b", re.I)


# the rates an Ethernet link is set to or comes up at, in bit/s
_LINK_RATES = frozenset(r * 10**6 for r in (10, 100, 1000, 2500, 5000, 10000, 25000, 40000, 50000,
                                            100000, 200000, 400000, 800000))
_MEASURED_RATE = re.compile(r"throughput|bandwidth|goodput|perform|iperf|netperf|measur|\bbw\b", re.I)


def _link_speeds(text: str, m: Measurement) -> bool:
    """Two link speeds, not two measured rates: both exactly a speed a link is set to or
    comes up at (`recovered from 1000Mb/s to 10000Mb/s` after replugging), and nothing in
    the sentence says a rate was measured."""
    b, p = m.baseline, m.patched
    if b.canonical_unit != "bit/s" or p.canonical_unit != "bit/s":
        return False
    if b.canonical_value is None or p.canonical_value is None:
        return False
    return (round(b.canonical_value) in _LINK_RATES and round(p.canonical_value) in _LINK_RATES
            and not _MEASURED_RATE.search(text))


def _versions(text: str, m: Measurement) -> bool:
    """Two release numbers, not figures: bare dotted numbers with a kernel or release named
    right before or after them (`a regression from 5.10 to 6.6 in downstream kernel`)."""
    b, p = m.baseline, m.patched
    if b.unit or p.unit or "." not in b.text or "." not in p.text:
        return False
    first, last = (b, p) if b.start < p.start else (p, b)
    return bool(VERSION_AFTER.match(text, last.end) or VERSION_BEFORE.search(text, 0, first.start))


def _setting(text: str, m: Measurement) -> bool:
    """A sentence's pair is a setting or a size, not a result: the words before it in its
    clause, since the figure before it, name a setting (default, timeout, limit, offset,
    bytes, ...) and neither they nor the pair name a result (performance, faster, latency,
    took, ...) nor is the pair a rate."""
    if _versions(text, m):
        return True
    first, last = min(m.baseline.start, m.patched.start), max(m.baseline.end, m.patched.end)
    if (m.patched.canonical_unit or m.baseline.canonical_unit) == "B" \
            and _INSTEAD.search(text, first, last) \
            and not SIZE_MEASURED.search(clause_around(text, first, last)):
        # one size instead of another, and nothing of memory used: a field or a message as
        # built or found wrong, a run's setting (`80 bytes instead of 120`, `4kB IOs instead
        # of 512 byte IOs`); a structure shrunk `from 24 bytes to 16` is a size claim
        return True
    if (m.patched.canonical_unit or m.baseline.canonical_unit) == "Hz":
        return True  # a frequency is set (`the sampling rate from 100Hz to 976562.5Hz`), not measured
    if _link_speeds(text, m):
        return True
    if metric_of(m.patched.canonical_unit or m.baseline.canonical_unit) in ("throughput", "transactions"):
        return False  # a rate is a result (`with 64 byte packets ... from 11.2 Mpps to 12.7 Mpps`)
    clause = clause_around(text, first, last)
    at = text.find(clause)
    before = clause[:max(0, first - at)] if at >= 0 else text[max(0, first - 80):first]
    # (only the words since the figure before it: `the timeout from 5s to 1s makes the test
    # take 12s instead of 60s` is a setting, then a result)
    figures = list(_ANY_FIGURE.finditer(before))
    if figures:
        before = before[figures[-1].end():]
    if RESULT.search(before + text[first:last]):
        return False
    if _PRONOUN_OBJECT.search(before) and at > 0:
        # (`chose a tiny batch size, bump it from 8 to 32`: what `it` is, the clause before
        # names; only its own words, back to the figure before it)
        earlier = text[max(0, at - 80):at]
        figures = list(_ANY_FIGURE.finditer(earlier))
        before = (earlier[figures[-1].end():] if figures else earlier) + before
    # (or the word each figure describes: `20 ms sleep instead of 10 ms delay`)
    # (the word written once after both figures, `from 9 to 5 layers`, describes both)
    lead, tail = sorted((m.baseline, m.patched), key=lambda q: q.start)
    return bool(SETTING.search(before)) or all(
        SETTING_AFTER.match(text, q.end) for q in (m.baseline, m.patched)) or (
        lead.unit is None and SETTING_AFTER.match(text, tail.end) is not None)


def _measurement(c: Candidate, shape: _Shape, pair: PairRef) -> Measurement:
    b, p = shape.originals[pair.baseline], shape.originals[pair.patched]
    # the pair's metric is the one its own clause names, when it names one: in "IOPS from
    # 7.15M to 7.65M and 5% less CPU utilization" the pair is of IOPS, not of CPU
    clause = clause_around(c.text, min(b.start, p.start), max(b.end, p.end))
    metric = metric_of(None, clause)
    stated = _stated(shape, pair.stated) if pair.stated else None
    if stated is not None and metric != "other" and stated_metric(
            c.text, stated.start, stated.end) not in (metric, "other"):
        stated = None  # the percentage is another metric's change
    return Measurement(
        baseline=b, patched=p, source="prose",
        line=c.paragraph.line_at(c.offset + min(b.start, p.start)), quote=c.text,
        unit=p.unit or b.unit, stated=stated,
        condition=_conditions(shape, pair.conditions),
        context=clause if metric != "other" else c.text,
    )


def _change(c: Candidate, shape: _Shape, change: ChangeRef) -> StatedChange:
    q = _stated(shape, change.stated)
    far = stated_metric(c.text, q.start, q.end) == "other" != metric_of(None, c.text)
    return StatedChange(stated=q, line=c.paragraph.line_at(c.offset + q.start), quote=c.text,
                        context=_stated_context(c, change.stated.speed, q),
                        condition=_conditions(shape, change.conditions),
                        metric="other" if far and not change.stated.speed else None)


def _lone(c: Candidate, shape: _Shape, lone: LoneRef) -> LoneResult:
    q = shape.originals[lone.figure]
    return LoneResult(patched=q, line=c.paragraph.line_at(c.offset + q.start), quote=c.text,
                      context=c.text, condition=_conditions(shape, lone.conditions))


# --- the public functions -----------------------------------------------------------------

_Found = tuple[tuple[Measurement, ...], tuple[StatedChange, ...], tuple[LoneResult, ...]]
_LAST: tuple[tuple[str, ...], _Found] | None = None


def _found(lines: Sequence[str]) -> _Found:
    """Everything the sentences of one block give, read once: extract.py asks for each part."""
    global _LAST
    key = tuple(lines)
    if _LAST is not None and _LAST[0] == key:
        return _LAST[1]
    found = _find(key)
    _LAST = (key, found)
    return found


def _find(lines: Sequence[str]) -> _Found:
    measurements: list[Measurement] = []
    changes: list[StatedChange] = []
    lone: list[LoneResult] = []
    for c in candidates(lines):
        shape = _shape(c)
        reading = _reading(shape)
        measurements += (m for m in (_measurement(c, shape, pair) for pair in reading.pairs)
                         if not (_ATTRIBUTE.match(m.baseline.text)
                                 and _ATTRIBUTE.match(m.patched.text))
                         and not _profile_share(c.text, m) and _says_what(c.text, m)
                         and not _setting(c.text, m) and not _option_value(c.text, m)
                         and not _change_range(c.text, m)
                         and not _range_against_bare(m))
        changes += (found for found in (_change(c, shape, change) for change in reading.changes)
                    if (found.stated.kind not in ("percent", "ratio")
                        or not is_no_change(c.text, found.stated))
                    and (found.stated.kind != "ratio" or _RATIO_OF_PERFORMANCE.search(c.text))
                    and not (found.stated.kind == "percent" and in_range(c.text, found.stated)))
        lone += (_lone(c, shape, result) for result in reading.lone)
    return tuple(measurements), tuple(changes), tuple(lone)


def find_prose_claims(lines: Sequence[str]) -> tuple[list[Measurement], list[StatedChange]]:
    """Before/after pairs and stated-only changes written in the sentences of `lines` (one
    block at one quote depth, markers stripped). spaCy is loaded only if a sentence holds a
    figure and a word of change."""
    measurements, changes, _ = _found(lines)
    return list(measurements), list(changes)


def find_prose_measurements(lines: Sequence[str]) -> list[Measurement]:
    """Before/after pairs written in sentences: "5 Mpps before the patch, and more than 10
    Mpps after patch", "went from 40us to 25us", "10 Mpps vs 5 Mpps without the patch"."""
    return list(_found(lines)[0])


def find_prose_changes(lines: Sequence[str]) -> list[StatedChange]:
    """Changes stated without their figures: "improves throughput by 12%", "a 3% regression",
    "2x faster", "halves the latency"."""
    return list(_found(lines)[1])


def find_prose_results(lines: Sequence[str]) -> list[LoneResult]:
    """Patched figures given alone as the patch's result: "With this change the box now
    forwards more than 1.2 Mpps" (no baseline is written)."""
    return list(_found(lines)[2])
