"""Two runs of a tool, one under each side's caption, paired line by line.

    Without this patch:                        With this patch:
    [  5]   0.00-20.00  sec  1.35 GBytes   578 Mbits/sec      [  5]   0.00-20.00  sec  2.17 GBytes   932 Mbits/sec
    Before:                                    After:
    [ 203.39] e1000e: pci_pm_suspend ... returned 0 after 323186 usecs      ... after 14 usecs

People paste what the tool printed under `Before:` and `After:` (`Without this patch:`,
`Prior:`, `baseline:` ...): iperf3 summaries, t/io_uring and fio lines, dmesg initcall
times, `time` output, sockperf percentiles. Each section's lines are read as templates (the
line with every figure taken out); a line of one section pairs with the line of the other
that has the same template (the k-th with the k-th), and the figures in the same places
pair. Which figures are results is told by what they measure, never by the tool's name:
on a line with a rate, its rates (iperf3's bitrate, not its transfer or interval); else its
durations (initcall and `time` figures); else the figures a performance word names
(`percentile 99.9 = 45.6`, `avg=99.81`). Counters and settings with no unit pair with
nothing. Which section is the baseline comes from the captions' words (tables/roles.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from analyze.claims.block_text import joined
from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Measurement, Quantity, is_spread
from analyze.claims.lexer.units import metric_of
from analyze.claims.lists import fio_output
from analyze.claims.log_lines import is_log_line
from analyze.claims.tables.roles import (
    BASELINE,
    PATCHED,
    contrast_roles,
    names_a_side,
    probe_unit,
    role_of,
    unit_in_text,
    with_unit,
)

_MAX_LINE = 400  # tool output lines are short; longer lines are prose
_MAX_CAPTION = 100
_MAX_CAPTION_WORDS = 8
_MAX_SECTION = 400  # lines of one run
# dmesg's `[  203.391465] `: when the line was printed, never a result
# a command at a shell prompt: `$ fio ...`, `# echo 0 > /sys/...`, `[dom0]# ...`, `root@host:~# ...`
_PROMPT_LINE = re.compile(r"^\s*(?:\[[^\]\s]{1,40}\]|[\w.-]{1,40}@[\w.-]{1,40}(?::\S*)?)?\s*[#$]\s+\S")
_TIMESTAMP = re.compile(r"^\s*\[\s*\d+\.\d+(?:,\d+)?\]\s*")
# a caption's decoration: `----`, `* Before:`, `=== after ===`, `# baseline`
_DECOR = " \t-=*#~_:>|"
_DIGIT = re.compile(r"\d")
_RATES = frozenset({"pps", "bit/s", "B/s", "trans/s", "req/s", "ops/s", "msg/s", "conn/s", "/s"})
# the words that make a bare figure a result: `percentile 99.990 = 37.013`, `avg=99.81`
_RESULT_WORD = compile_words(
    r"percentile|latency|\blat\b|\bavg\b|average|mean|median|\bp\d{2}|<(?:min|max)>"
    r"|\biops\b|throughput|\bbw\b|bandwidth|\brate\b|elapsed|\breal\b|\btotal\b|\bsys(?:tem)?\b"
    r"|\buser\b|\bops\b|per[- ]sec",
    re.I,
)
# words that make a line a setting or a count, however it reads: `RunTime=120 sec`
_NOT_RESULT_WORD = compile_words(
    r"runtime|duration|interval|timeout|size|count|observations|messages|\bretr\b|jitter"
    r"|\bstd|dev\b|stdev|(?<!<)\bm(?:in|ax)\b(?!>)|warm[- ]?up|\bsamples?\b",
    re.I,
)
# a rate named by its key, with a bare SI suffix: t/io_uring's `IOPS=2.83M`, `pps: 1.2M`
_RATE_KEY = re.compile(r"(?:\biops|\bpps|\btps|\bqps|\bops/s|\bmpps|\bkpps)\s*[=:]\s*$", re.I)
# rates of what went wrong: `err,drop/s`, `lost/s`
_FAILURE_WORD = compile_words(r"\berr|drop|\blost\b|\bmiss|\bfail|\bretr", re.I)
_TOTAL = re.compile(r"\s*(?:total|elapsed)\b")
_CAPTION_WORD = re.compile(r"[a-z0-9_]+")
_BRACKETED_UNIT = re.compile(r"\((?:n|u|µ|m)?(?:sec|s)\)(?=\s*:)")
# redis-benchmark's latency histogram: `0.01% <= 0.1 milliseconds`
_BUCKET = re.compile(r"%\s*<=?\s*\d")
# t/io_uring's `Maximum IOPS=6.47M` after its samples: the best one, not the run's figure
_PEAK = re.compile(r"\s*(?:maximum|minimum|max|min|peak)\b", re.I)
_MEAN_KEY = re.compile(r"\b(?:avg|mean)\s*[=:]\s*$", re.I)
_LEFT_DIGITS = re.compile(r"(?<=[a-z/])\d+|\d+(?=[a-z])")
# a percentage and the brackets or sign around it, taken out of a line's shape
_PERCENTS = re.compile(r"[(\[]?\s*[+\-~±]?\s*\d+(?:[.,]\d+)?\s*%\s*[)\]]?|[(\[]\s*[\d.]+\s*[)\]]")
# `time`'s breakdown: what the run cost the CPU beside how long it took (`real`)
_BRACKETS = str.maketrans("", "", "()[]")
# the blocks worth walking for each kind of caption (see analyze/claims/block_text.py)
_CAPTION_HINT = re.compile(r"^[ \t]*[(\[][A-Za-z]|:[ \t]*$", re.M)
_NUMBERED_HINT = re.compile(r"^[ \t]*[A-Za-z][A-Za-z ]{0,20}?[ \t]*#?\d{1,2}[ \t]*[:.)-][ \t]*[^\d\s]", re.M)
_SWITCH_HINT = re.compile(r"^[ \t]*-[A-Za-z][01](?![\w.])", re.M)
_TYPED_BLANK = re.compile(r"(?<=[,=])\s+")
# nstat's output (`Udp6InDatagrams   615091   0.0`: the counter, its value, its rate), and
# the command that makes its values a second's worth
_NSTAT_ROW = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]{2,40}\s+\d+\s+\d+(?:\.\d+)?\s*$")
_NSTAT_SECOND = re.compile(r"\bnstat\b.*\bsleep\s+1\b.*\bnstat\b")
# a share of a fraction printed before it, not a change: iperf3's lost datagrams `0/1011407 (0%)`
_FRACTION_BEFORE = re.compile(r"\d+/\d+\s*\(?\s*$")
_SHARE_WORD = re.compile(r"\s*(?:cpu|util\w*|idle|busy|usage)\b", re.I)
_TIME_PARTS = re.compile(r"^\s*(?:user|usr|sys)\b")


@dataclass(frozen=True, slots=True)
class _Section:
    role: str
    caption: str
    start: int  # first line after the caption
    end: int  # one past the last line
    # the run written on the caption's own line (`* Before:  4730418pps 2270Mb/sec`):
    # its line and where the run starts in it
    inline: tuple[int, int] | None = None
    # the side is named by each line's label, not by a caption (`nowait-on-1.fio: read:
    # ...`): lines pair by what follows their labels
    labelled: bool = False


# the last clause of a sentence, after its last comma or `and`: a few words
_LAST_CLAUSE = re.compile(r".*(?:,|\band\b)\s*(\S+(?:\s+\S+){0,3})\s*$")


def side_caption(line: str) -> tuple[str, str, int] | None:
    """(role, label, where the run starts on the line) when `line` captions one side's run:
    `Before:`, `Without this patch:`, `nvme io (with this): # t/io_uring ...`, `----- After
    -----`, and the run written on the caption's line: `* Before:  4730418pps 2270Mb/sec`,
    `before: 6.77user 6.22system 9.52elapsed` (the offset is the line's end when the run
    follows below)."""
    text = line.strip().strip(_DECOR)
    if not text or len(text) > _MAX_CAPTION:
        return None
    label, colon, rest = text.partition(":")
    rest = rest.strip()
    inline = len(line)
    if colon and rest and not rest.startswith(("#", "$")):
        inline = line.index(":", line.index(label)) + 1  # the run on the caption's line
    if len(label.split()) > _MAX_CAPTION_WORDS and not rest and line.rstrip().endswith(":"):
        # a sentence's last clause that captions what follows: `or around 3.1M IOPS (single
        # thread, single core), and after:`
        tail = _LAST_CLAUSE.search(label)
        label = tail.group(1) if tail is not None else label
    if len(label.split()) > _MAX_CAPTION_WORDS:
        return None  # a sentence that says "before", not a caption
    if not colon and not line.rstrip().endswith(("-", "=", ":")) and (
            len(label.split()) > 4 or any(q.unit for q in find_quantities(label))):
        return None  # (nor the wrapped end of a line of results: `patch 703ms`)
    role = role_of(label)
    return (role, label.strip(), inline) if role in (BASELINE, PATCHED) else None


def _sections(lines: Sequence[str], skip: set[int]) -> list[_Section]:
    captions = []
    # (each line asked alone: the answers are cached for every reader, and a search of the
    # joined block, once tried here first, cost more than it saved)
    for i, line in enumerate(lines):
        if i in skip or len(line) > _MAX_CAPTION + 20 or not names_a_side(line):
            continue
        found = side_caption(line)
        if found is not None:
            captions.append((i, *found))
    out = []
    for k, (i, role, label, at) in enumerate(captions):
        end = captions[k + 1][0] if k + 1 < len(captions) else len(lines)
        inline = (i, at) if at < len(lines[i]) else None
        out.append(_Section(role, label, i + 1, min(end, i + 1 + _MAX_SECTION), inline))
    if out and out[0].role == PATCHED and out[0].inline is None:
        # `After:` with no `Before:` above it: the run before it, shaped alike, is the
        # baseline (`For 800k elements I get:` then `time` output, then `After:`)
        out.insert(0, _Section(BASELINE, "", _run_above(lines, captions[0][0]), captions[0][0]))
    return out


_GAP_ABOVE = 4  # lines of words (a caption's first lines, blanks) between a run and the caption


def _is_prose(index: int, line: str) -> bool:
    """A line of words, not of a run: no figures, or a sentence's (`using 3200% CPU (32
    drives, 32 threads polling) with regular polling,`)."""
    text = line.strip()
    return _template(index, line) is None or text.endswith((",", ":")) or len(text.split()) > 8


def _run_above(lines: Sequence[str], caption: int) -> int:
    """Where the last run above a caption starts: past the caption's first lines and the
    blanks, its lines up to the blank line or words before them (a run further up is
    another one)."""
    j = caption - 1
    while j >= 0 and caption - j <= _GAP_ABOVE and (not lines[j].strip() or _is_prose(j, lines[j])):
        j -= 1
    if j < 0 or caption - j > _GAP_ABOVE:
        return max(0, caption - _MAX_SECTION)
    while j > 0 and caption - j < _MAX_SECTION and lines[j - 1].strip() \
            and not _is_prose(j - 1, lines[j - 1]):
        j -= 1
    return j


# `time`'s one-line forms: zsh's `0.07s user 0.00s system 0% cpu 1:04.84 total` and GNU's
# `6.77user 6.22system 9.52elapsed 136%CPU`; the run's figure is the total or elapsed time
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,3}):([0-5]\d(?:[.,]\d+)?)(?=\s*(?:total|elapsed)\b)")
_SECONDS_BEFORE = re.compile(r"(?<![\d.,:])(\d+(?:[.,]\d+)?)(?=\s*(?:total|elapsed|user|system)\b)")


def _time_in_seconds(text: str) -> str:
    """`time`'s one-line forms with their figures in seconds, as the lexer reads them:
    `1:04.84 total` → `64.84s total`, `9.52elapsed` → `9.52s elapsed`."""
    if "total" not in text and "elapsed" not in text:
        return text

    def clock(m: re.Match[str]) -> str:
        return f"{int(m.group(1)) * 60 + float(m.group(2).replace(',', '.')):.3f}s "

    text = _CLOCK.sub(clock, text)
    return _SECONDS_BEFORE.sub(lambda m: m.group(1) + "s ", text)


@dataclass(frozen=True, slots=True)
class _Line:
    index: int
    text: str  # the line without a leading dmesg timestamp: what `figures` are placed in
    figures: tuple[Quantity, ...]  # its figures, percentages aside
    stated: tuple[Quantity | None, ...]  # the percentage after each figure, if any


_KEY_BEFORE = re.compile(r"([A-Za-z][\w/]{1,12})\s*[=:]\s*$")


def _key_unit(text: str, q: Quantity) -> str | None:
    """The unit a figure's key names (`IOPS: 1911242`, `pps=812003`), or None."""
    m = _KEY_BEFORE.search(text, 0, q.start)
    if m is None:
        return None
    probe = probe_unit(m.group(1))
    return probe.unit if probe is not None else None


def _bracketed(text: str, q: Quantity) -> bool:
    """A bare figure alone in brackets: `( 71.72)`."""
    return q.unit is None and q.kind == "number" and text[:q.start].rstrip().endswith("(") \
        and text[q.end:].lstrip().startswith(")")


# fio's lines that support its results, never results (docs/claims.md, rule 2)
_FIO_SUPPORT = re.compile(r"^\s*(?:cpu\s*:\s*usr=|IO depths\s*:|submit\s*:|complete\s*:"
                          r"|issued rwts:|latency\s*:\s*target=|(?:bw|iops)\s*(?:\([^)]*\))?\s*:\s*min=)")


def _template(index: int, line: str) -> tuple[str, _Line] | None:
    """The line with its figures taken out (lower case, blanks folded), and the line."""
    found = _shape(line)
    if found is None:
        return None
    shape, text, qs, stated = found
    return shape, _Line(index, text, qs, stated)


# (the section finders each read a block's lines: a line's shape is worked out once)
@lru_cache(maxsize=8192)
def _shape(line: str) -> tuple[str, str, tuple[Quantity, ...], tuple[Quantity | None, ...]] | None:
    if len(line) > _MAX_LINE or _FIO_SUPPORT.match(line) or is_log_line(line) \
            or _PROMPT_LINE.match(line):
        return None  # (a command typed at a prompt sets up a run: `[dom0]# echo 1024 > ...`)
    stamp = _TIMESTAMP.match(line)
    text = _time_in_seconds(line[stamp.end():] if stamp else line)
    # a figure that names what follows (`percentile 99.990 = 37.013`) is part of the key;
    # percentages are stated changes, left out of the shape (a column of them may be
    # missing on one side's line: `ft: 3127 Mb/s  6109677 pps   (356.5%)`)
    # (a bare figure alone in brackets is a remark on the one before, as a percentage is:
    # `1230907 pps  ( 71.72)` beside `1207447 pps  ( 70.5%)`; never a result)
    every = [q for q in find_quantities(text) if not _is_label(text, q) and not _bracketed(text, q)]
    found = _without_spreads(every)
    dropped: list[Quantity] = []
    if "/" in text and "=" in text:
        found, dropped = _slashed_mean(text, found)
    qs = tuple(q for q in found if q.kind != "percent")
    if stamp:
        # (a kernel log line's bare numbers are ids and states, `interface 23`, `port 2`;
        # its results are timed or rated: `link up in 120 ms`)
        qs = tuple(q for q in qs if q.unit)
    if not qs:
        return None
    # (a share is no change: `time`'s `97% cpu`)
    stated = tuple(next((o for o in found if o.kind == "percent" and q.end <= o.start
                         and (k + 1 == len(qs) or o.end <= qs[k + 1].start)
                         and not _SHARE_WORD.match(text, o.end)
                         and not _FRACTION_BEFORE.search(text, 0, o.start)), None)
                   for k, q in enumerate(qs))
    # a spread is part of the shape, not its digits (`± 0.019M/s` on one line, `± 0.001M/s`
    # on the next)
    # a figure's place keeps whether it is a time and its bound: a run's `1378930.00
    # requests per second` is not one more line of its `<= 0.5 milliseconds` (rates keep no
    # unit: `2847 MB/s` on one side is `3183 Mb/s` on the other)
    marks = sorted([*((q, f"\x00{'t' if q.canonical_unit == 's' else ''}{q.bound or ''}\x00")
                      for q in qs),
                    *((q, " ± ") for q in every if is_spread(q)),
                    *((q, "#") for q in dropped)],
                   key=lambda mark: mark[0].start)
    parts, pos = [], 0
    for q, mark in marks:
        parts.append(_PERCENTS.sub(" ", text[pos:q.start]))
        parts.append(mark)
        pos = q.end
    parts.append(_PERCENTS.sub(" ", text[pos:]))
    # digits the lexer left glued to words are part of no figure, nor of the shape: fio's
    # `(73.5GiB/180000msec)` on one line is `(69.7GiB/180002msec)` on the next (a label's
    # figure, `percentile 99.990 =`, stays: it tells the lines apart)
    shape = _LEFT_DIGITS.sub("#", "".join(parts).lower())
    # (blanks after a comma or an `=` are the typist's: fio's `max=285,avg=53.47, stdev= 8.28`
    # on one side is `max=343, avg=59.63, stdev=10.26` on the other; so are brackets left
    # by the percentages taken out: `( 92.6%)  ( 92.5%))`)
    # (fio names its latency line's unit in brackets, chosen per run: `lat (nsec):` on one
    # side is `lat (usec):` on the other, the same line)
    shape = _BRACKETED_UNIT.sub("(time)", shape).translate(_BRACKETS)
    # (a file name labelling the line counts in its digits, `fio-1.log:`, `fio-2.log:`: the
    # runs of one setup, not lines of different shapes)
    shape = _NUMBERED_LABEL.sub(lambda m: _DIGITS.sub("#", m.group(0)), shape)
    return _TYPED_BLANK.sub("", " ".join(shape.split())), text, qs, stated


_NUMBERED_LABEL = re.compile(r"^\s*[^\s:]*\d[^\s:]*(?=:\s)")
_DIGITS = re.compile(r"\d+")


# `rtt min/avg/max/mdev = 42.087/44.438/59.508/1.533 us`: names and values joined by slashes
_SLASHED = re.compile(r"\b([a-z]+(?:/[a-z]+)+)\s*=\s*(\d[\d.]*(?:/\d[\d.]*)+)(?:\s*([a-zµμ]+))?", re.I)
_MEAN_KEYS = ("avg", "mean", "average")


def _slashed_mean(text: str, found: list[Quantity]) -> tuple[list[Quantity], list[Quantity]]:
    """Of values named in slashes, the mean alone, with the unit written after the last
    (ping's `min/avg/max/mdev = .../... us`): the rest is spread, never a result (rule 4 of
    docs/claims.md); none of them when no name is a mean. The figures kept, and those left
    out."""
    m = _SLASHED.search(text)
    if m is None:
        return found, []
    keys = m.group(1).lower().split("/")
    inside = [q for q in found if m.start(2) <= q.start < m.end()]
    if len(inside) != len(keys):
        return found, []
    mean = next((k for k, key in enumerate(keys) if key in _MEAN_KEYS), None)
    rest = [q for q in found if q not in inside]
    if mean is None:
        return rest, inside
    q = inside[mean]
    unit = m.group(3) if m.group(3) and unit_in_text(m.group(3)) else None
    kept = with_unit(q, unit) if unit and q.unit is None else q
    return sorted([*rest, kept], key=lambda o: o.start), [o for o in inside if o is not q]


def _without_spreads(qs: Iterable[Quantity]) -> list[Quantity]:
    """A line's figures, each spread folded into the figure it is of: the bpf selftests'
    bench prints `11.440 ± 0.019M/s`, the unit written once, after the spread."""
    out: list[Quantity] = []
    for q in qs:
        if is_spread(q):
            if out and out[-1].unit is None and q.unit:
                out[-1] = with_unit(out[-1], q.unit)
            continue
        out.append(q)
    return out


def _runs_by_template(lines: Sequence[str], section: _Section,
                      skip: set[int]) -> dict[str, list[list[_Line]]]:
    """Each template's runs in a section, by their first line. Lines of one template with
    only other repeated figure lines between them are one run printing samples (t/io_uring's
    IOPS every second, xdp-bench's two-line samples): the first sample stands for the run,
    as a reader of the mail takes it. A line of words (a caption, a tool's header) or a line
    printed once (the next command, its settings) between them starts another run."""
    read: list[tuple[str, _Line | None]] = []
    if section.inline is not None:
        i, at = section.inline
        found_inline = _template(i, lines[i][at:])
        if found_inline is not None:
            read.append(found_inline)
    for i in range(section.start, section.end):
        text = lines[i]
        if i in skip or not text.strip():
            continue
        found = _template(i, text)
        if found is not None:
            read.append((_label_free(found[0]), found[1]) if section.labelled else found)
        elif _DIGIT.search(text):  # a command, a path: a boundary when printed once
            read.append(("\x01" + " ".join(text.split()), None))
        else:
            read.append(("", None))  # words (a caption, a header): always a boundary
    count = Counter(template for template, _ in read)
    found_runs: dict[str, list[list[_Line]]] = {}
    last: dict[str, int] = {}  # a template's last place in `read`
    for k, (template, line) in enumerate(read):
        if line is None:
            continue
        before = last.get(template)
        same_run = before is not None and all(
            other and count[other] > 1 for other, _ in read[before + 1:k])
        if same_run:
            found_runs[template][-1].append(line)
        else:
            found_runs.setdefault(template, []).append([line])
        last[template] = k
    return found_runs


def _sweep_keys(run: Sequence[_Line]) -> dict[float, _Line] | None:
    """A run's lines by their key, when they are the rows of a sweep (`nr_prod 1`, `nr_prod
    2`, ...) rather than samples of one run: the key is each line's first figure, a count
    with no unit, distinct down the run. (t/io_uring's `IOS/call=32/31` changes from sample
    to sample too, but at the line's end.)"""
    if len(run) < 2:
        return None
    first = [line.figures[0] for line in run]
    if any(q.unit or not q.value.is_integer() for q in first):
        return None
    keyed = {q.value: line for q, line in zip(first, run, strict=True)}
    return keyed if len(keyed) == len(run) else None


def _rows_of(before: list[_Line], after: list[_Line]) -> tuple[list[tuple[_Line, _Line]], list[int]]:
    """The lines of two runs that pair, and the places of the key figures that paired them:
    the rows of a sweep by their keys (both sides printing at least two of the same keys),
    else the first sample of each side."""
    mine, theirs = _sweep_keys(before), _sweep_keys(after)
    if mine is not None and theirs is not None:
        common = [key for key in mine if key in theirs]
        if len(common) >= 2:
            return [(mine[key], theirs[key]) for key in common], [0]
    return [(before[0], after[0])], []


def _is_label(line: str, q: Quantity) -> bool:
    """A figure that names what follows it (`percentile 99.990 = 37.013`), not a result."""
    return line[q.end:q.end + 3].lstrip().startswith(("=", ":"))


def _results(line: str, qs: Sequence[Quantity]) -> list[int]:
    """The places of a line's results (see the module's rules); percentages are stated
    changes, attached to the result before them, never results themselves."""
    if _BUCKET.search(line) or _PEAK.match(line):
        return []  # a histogram's bucket (`0.01% <= 0.1 milliseconds`), a run's peak sample
    places = [k for k, q in enumerate(qs) if q.kind != "ratio"]
    rates = [k for k in places if (qs[k].canonical_unit in _RATES or (
        qs[k].canonical_unit is None and _RATE_KEY.search(line[max(0, qs[k].start - 12):qs[k].start])))
        and not _FAILURE_WORD.search(f"{line[max(0, qs[k].start - 8):qs[k].start]} {qs[k].unit or ''}")]
    if rates:
        return _first_of_each_quantity(qs, rates)
    times = [k for k in places if qs[k].canonical_unit == "s" and qs[k].kind != "range"]
    if times:
        # `time`'s one-line forms: the total (zsh) or elapsed (GNU) time is the run's
        totals = [k for k in times if _TOTAL.match(line, qs[k].end)]
        if totals:
            return totals
        # (the mean of values named in slashes was kept alone: `min/avg/max = 1/2/3 us`)
        slashed = _SLASHED.search(line) if "/" in line else None
        return [k for k in times if not _NOT_RESULT_WORD.search(line[max(0, qs[k].start - 24):
                                                                      qs[k].start])
                or (slashed is not None and slashed.start(2) <= qs[k].start < slashed.end(2))]
    # fio's `lat (nsec): min=547, max=2929.3k, avg=1074.98, stdev=6498.72`: the mean is
    # the result, its spread beside it supports it
    means = [k for k in places if _MEAN_KEY.search(line[max(0, qs[k].start - 8):qs[k].start])]
    if means:
        return means
    if not _RESULT_WORD.search(line) or _NOT_RESULT_WORD.search(line):
        return []
    return [k for k in places if qs[k].canonical_unit in (None, "cycles", "%")
            and qs[k].kind != "range"][-1:]


def _first_of_each_quantity(qs: Sequence[Quantity], places: list[int]) -> list[int]:
    """One figure a quantity: pktgen's `2270Mb/sec (2270600640bps)` and fio's `bw=1412MiB/s
    (1481MB/s)` print one rate twice, in two units; the first is the claim's."""
    out: list[int] = []
    for k in places:
        value, unit = qs[k].canonical_value, qs[k].canonical_unit
        if value and any(qs[o].canonical_unit == unit
                         and abs((qs[o].canonical_value or 0.0) - value) <= 0.05 * abs(value)
                         for o in out):
            continue
        out.append(k)
    return out


def _pair(lines: Sequence[str], base: _Section, patched: _Section,
          skip: set[int]) -> list[Measurement]:
    if fio_output.is_fio_report(lines, base.start, base.end) and \
            fio_output.is_fio_report(lines, patched.start, patched.end):
        return _fio_pairs(lines, base, patched, skip)
    before = _runs_by_template(lines, base, skip)
    after = _runs_by_template(lines, patched, skip)
    unit_hint = unit_in_text(f"{base.caption} {patched.caption}")
    # `time`: real (bash), `Executed in` (fish) is the run's figure, not user and sys
    timed = any(t.startswith(("real", "executed in")) for t in before)
    per_second = any(_NSTAT_SECOND.search(lines[j]) for j in range(base.start, min(base.end, len(lines)))
                     if "nstat" in lines[j])
    counted: set[tuple[float, float]] = set()
    above = _words_above(lines, min(base.start, patched.start) - 1)
    claimed_parts = {m.group(1).lower()[:3] for m in _PART_CLAIMED.finditer(above)}
    shares = _shares(lines, base) or _shares(lines, patched)
    out = []
    for template, runs in before.items():
        others = after.get(template, [])
        if len(others) != len(runs) or (timed and _TIME_PARTS.match(template)):
            continue  # the k-th run pairs with the k-th only when both sides ran as often
        rows = []
        for b_run, p_run in zip(runs, others, strict=True):
            if [lines[x.index].strip() for x in b_run] == [lines[x.index].strip() for x in p_run]:
                continue  # one run written out twice (a cover's figures again in a commit)
            found, keys = _rows_of(b_run, p_run)
            name = _key_header(lines, b_run[0].index) if keys else ""
            rows += [(b, p, keys, name) for b, p in found]
        for b, p, keys, name in rows:
            if len(b.figures) != len(p.figures):
                continue
            if per_second and _NSTAT_ROW.match(b.text):
                # nstat's counters over one second (`nstat -n; sleep 1; nstat`): each is a
                # rate; one counted twice (`Udp6RcvbufErrors` = `Udp6InErrors`) is one
                values = (b.figures[0].value, p.figures[0].value)
                if values in counted:
                    continue
                counted.add(values)
                label = _label(b.text, b.figures[0])
                out.append(_measurement(lines, b, p, 0, "/s", "/s", (), None,
                                        f"{base.caption} {patched.caption} {label}"))
                continue
            results = [k for k in _results(b.text, b.figures) if k not in keys]
            if claimed_parts:
                # `time`'s user or system time, where the words above claim it ("roughly
                # halves the system time"): a claim beside the total
                results = sorted({*results, *(k for k, q in enumerate(b.figures)
                                              if (m := _PART_AFTER.match(b.text, q.end))
                                              and m.group(1).lower()[:3] in claimed_parts)})
            mean = _mean_column(lines, base, b)
            if mean is not None:
                # (a header of statistics over the rows, `avg  min  max  stdev`: the mean is
                # the run's figure, rule 4; the rest is its spread)
                results = [mean]
            columns = _tab_columns(lines, base, b) if _MEAN_ROW.match(b.text) else {}
            if columns:
                # a tab table's row of means: each column its header names is a result
                results = sorted(set(results) | set(columns))
            for k in results:
                bq, pq = b.figures[k], p.figures[k]
                if bq.canonical_unit in _RATES and bq.value == pq.value == 0:
                    continue  # nothing went that way on either side (`0 xmit/s`)
                # (a unit in brackets before the figures: fio's `lat (nsec): ... avg=1074.98`)
                unit = (bq.unit or pq.unit or _unit_in_brackets(b.text[:bq.start])
                        or unit_in_text(columns.get(k, "")) or _key_unit(b.text, bq) or unit_hint
                        # (`time`'s `real` row of bare figures, a summary of runs: seconds)
                        or ("s" if timed and _REAL_ROW.match(b.text) else None))
                # (each side's own unit when each names one: `(nsec)` here, `(usec)` there)
                punit = pq.unit or _unit_in_brackets(p.text[:pq.start]) or unit
                part = _PART_AFTER.match(b.text, bq.end) if claimed_parts else None
                label = (f"{part.group(1)} time" if part else None) or columns.get(k) \
                    or _label(b.text, bq)
                condition = tuple((_label(b.text, b.figures[key]) or name or "case",
                                   b.figures[key].text) for key in keys)
                if k in columns:
                    condition += (("measure", columns[k]),)
                out.append(_measurement(lines, b, p, k, unit, punit, condition,
                                        None if shares else _stated(p, k, results),
                                        f"{base.caption} {patched.caption} {label}"))
    return out


def _fio_pairs(lines: Sequence[str], base: _Section, patched: _Section,
               skip: set[int]) -> list[Measurement]:
    """Two fio reports: each result paired with the result of the same name
    (analyze/claims/lists/fio_output.py)."""
    before = [f for f in fio_output.read_report(lines, base.start, base.end) if f.line not in skip]
    after = [f for f in fio_output.read_report(lines, patched.start, patched.end)
             if f.line not in skip]
    jobs = {f.key[0] for f in before} | {f.key[0] for f in after}
    out = []
    for b, p in fio_output.pair_reports(before, after):
        condition: tuple[tuple[str, str], ...] = (("measure", b.label),)
        if len(jobs) > 1:
            condition = (("job", b.job or b.key[0]), *condition)
        out.append(Measurement(
            baseline=b.quantity, patched=p.quantity, source="list", line=b.line,
            quote=lines[b.line].rstrip() + "\n" + lines[p.line].rstrip(),
            unit=b.quantity.unit, condition=condition,
            context=f"{base.caption} {patched.caption} {b.label}"))
    return out


# a row of a run's statistics: `Average  2683850.6  0.000084854 ...` (rule 4: a stated mean)
_MEAN_ROW = re.compile(r"^\s*(?:average|avg|mean|median)\b", re.I)
_CELL_NAME = re.compile(r"^[A-Za-z%][\w .%/()\-]{0,40}$")


# `time`'s parts after their figures (`0,39s system`, `6.22system`), and a claim about one
_PART_AFTER = re.compile(r"\s*(user|usr|sys|system)\b", re.I)
_PART_CLAIMED = re.compile(r"\b(user|sys|system)\s+time\b", re.I)
_ABOVE = 3  # lines of words above a run's caption that may say what it claims


def _words_above(lines: Sequence[str], caption: int) -> str:
    """The lines of words right above a caption (its paragraph, up to three lines)."""
    j = caption - 1
    out: list[str] = []
    while j >= 0 and not lines[j].strip() and caption - j <= _ABOVE:
        j -= 1
    while j >= 0 and lines[j].strip() and len(out) < _ABOVE:
        out.append(lines[j])
        j -= 1
    return " ".join(reversed(out))


_REAL_ROW = re.compile(r"\s*real\s+\d", re.I)
_STAT_NAME = re.compile(r"avg|average|mean|median|min|max|std|stdev|stddev|dev|sd|p\d{2}(?:\.\d+)?", re.I)
_MEAN_NAME = re.compile(r"avg|average|mean|median", re.I)


def _mean_column(lines: Sequence[str], section: _Section, row: _Line) -> int | None:
    """The place of the mean among a row's figures when a header of statistics names its
    columns (`        avg     min     max     stdev` over `real    0.205   0.190 ...`): the
    nearest line of words above the row in its run, a statistic's name over each figure."""
    for j in range(row.index - 1, max(section.start - 1, row.index - 6), -1):
        words = lines[j].split()
        if not words or any(ch.isdigit() for ch in lines[j]):
            continue
        if len(words) != len(row.figures) or not all(_STAT_NAME.fullmatch(w) for w in words):
            return None
        return next((k for k, w in enumerate(words) if _MEAN_NAME.fullmatch(w)), None)
    return None


def _tab_columns(lines: Sequence[str], section: _Section, row: _Line) -> dict[int, str]:
    """The column names a tab-separated header above `row` gives its figures, by the k-th
    figure: the nearest line above in the run whose tab cells are all words, each figure
    taking the name of the header cell at its tab position; only names that say what they
    measure (`Transactions`, `Latency P50 (s)`), never a count or a setting."""
    if "\t" not in row.text:
        return {}
    header = None
    for j in range(row.index - 1, max(section.start - 1, row.index - 12), -1):
        cells = lines[j].split("\t")
        named = [c.strip() for c in cells if c.strip()]
        if len(named) >= 2 and all(_CELL_NAME.match(c) for c in named):
            header = [c.strip() for c in cells]
            break
    if header is None:
        return {}
    out: dict[int, str] = {}
    at = 0
    for cell_index, cell in enumerate(row.text.split("\t")):
        for k, q in enumerate(row.figures):
            if at <= q.start < at + len(cell) and cell_index < len(header) and header[cell_index] \
                    and metric_of(None, header[cell_index]) != "other":
                out[k] = header[cell_index]
        at += len(cell) + 1
    return out


def _measurement(lines: Sequence[str], b: _Line, p: _Line, k: int, unit: str | None,
                 punit: str | None, condition: tuple[tuple[str, str], ...],
                 stated: Quantity | None, context: str) -> Measurement:
    """The pair of the k-th figures of two paired lines."""
    return Measurement(
        baseline=with_unit(b.figures[k], unit), patched=with_unit(p.figures[k], punit),
        source="list", line=b.index, quote=lines[b.index].rstrip() + "\n" + lines[p.index].rstrip(),
        unit=unit, stated=stated, condition=condition, context=context)


def _key_header(lines: Sequence[str], first: int) -> str:
    """The name of a sweep's key when a header word over its rows gives it (`iodepth` over
    `1  write: IOPS=...`): the nearest line of words above them (over the sweep's other
    blocks) when it is one word."""
    for i in range(first - 1, max(-1, first - 20), -1):
        words = lines[i].split()
        if len(words) == 1 and not _DIGIT.search(words[0]):
            return words[0].strip(":").lower()
        if words and _template(i, lines[i]) is None:
            break
    return ""


def _unit_in_brackets(text: str) -> str | None:
    """The unit of time a line names in brackets before its keys: `lat (nsec): min=...`."""
    found = _BRACKETED_UNIT.search(text)
    return unit_in_text(found.group(0)) if found else None


def _shares(lines: Sequence[str], section: _Section) -> bool:
    """A run whose percentages are shares of one of its lines, not changes: a line prints
    exactly `(100%)` (`fwd: 682 Mb/s 1333582 pps (100%)`, then `nf: ... ( 93.1%)`)."""
    return any(q.kind == "percent" and q.value == 100.0 and q.sign is None
               for j in range(section.start, min(section.end, len(lines)))
               if "100" in lines[j] and "%" in lines[j]
               for q in find_quantities(lines[j]))


def _stated(line: _Line, k: int, results: Sequence[int]) -> Quantity | None:
    """The percentage after the k-th figure; a line with one result and one percentage
    states that result's change wherever it prints it (`2.801 ± 0.014M/s (drops 0.000 ±
    0.000M/s) (3.51%)`)."""
    if line.stated[k] is not None or len(results) != 1:
        return line.stated[k]
    written = [q for q in line.stated if q is not None]
    return written[0] if len(written) == 1 else None


def _label(text: str, q: Quantity) -> str:
    """The words before a figure on its line: what it is (`IOPS=`, `returned 0 after`)."""
    return " ".join(text[:q.start].split()[-4:])


def _relative_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section]]:
    """Runs captioned as one setup and the same setup with something added, the patched
    run named by what it adds:

        RETPOLINE=n, Selinux: Off              RETPOLINE=n, Selinux: Off, BPF-JIT ON:
        fwd: 877 Mb/s  1713897 pps            fwd: 875 Mb/s  1710246 pps

    A caption is a short line without figures right above figure lines; its run goes to
    the next blank line. One caption extends another when its words start with all of the
    other's and add at most three (`net-next` → `net-next + series`)."""
    # (cheap tests first: a short line over a line with a digit, whose words start another
    # such line's; only then is either lexed)
    short = [(i, tuple(_CAPTION_WORD.findall(lines[i].lower()))) for i in range(len(lines) - 1)
             if 0 < len(lines[i].strip()) <= _MAX_CAPTION and _DIGIT.search(lines[i + 1])]
    if len(short) < 2:
        return []
    whole = {words for _, words in short}
    # what each caption would be with one to three of its last words taken off
    stems = {words[:-k] for _, words in short for k in (1, 2, 3) if len(words) > k}
    found: list[tuple[int, tuple[str, ...], int]] = []  # caption line, its words, run end
    for i, words in short:
        if not words or not (words in stems or any(words[:-k] in whole for k in (1, 2, 3)
                                                   if len(words) > k)):
            continue  # no other caption extends it, nor does it extend one
        if _template(i, lines[i]) is not None or _template(i + 1, lines[i + 1]) is None:
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() and end - i <= _MAX_SECTION:
            end += 1
        found.append((i, words, end))
    pairs = []
    used: set[int] = set()
    for i, words, end in found:
        if i in used:
            continue
        for j, other, other_end in found:
            extra = other[len(words):]
            if j in used or j == i or other[:len(words)] != words or not 1 <= len(extra) <= 3:
                continue
            base = _Section(BASELINE, " ".join(words), i + 1, end)
            patched = _Section(PATCHED, " ".join(other), j + 1, other_end)
            if role_of(" ".join(extra)) == BASELINE:  # `X` and `X without the fix`
                base, patched = (_Section(BASELINE, patched.caption, patched.start, patched.end),
                                 _Section(PATCHED, base.caption, base.start, base.end))
            pairs.append((base, patched))
            used.update((i, j))
            break
    return pairs


# a run's label in brackets at the start of its line: `(passthru) read: IOPS=17.2k, ...`
_LABEL = re.compile(r"\s*[(\[]([A-Za-z][\w\-+./ ]{0,30})[)\]]\s+(?=\S)")


_NAME_WORD = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*")


def _spelled(words: Iterable[str]) -> set[str]:
    """Words with one spelling: `passthru` is `passthrough`."""
    return {w.replace("thru", "through") for w in words}


def _caption_words(text: str) -> set[str]:
    """The words of a caption, a hyphenated one whole and in its parts (`Zero-copy:` is
    named by the series `ublk zero-copy support`)."""
    words = _NAME_WORD.findall(text.lower())
    return _spelled([*words, *(part for w in words if "-" in w for part in w.split("-"))])


def _named_sections(lines: Sequence[str], series: frozenset[str]) -> list[tuple[_Section, _Section]]:
    """Runs under two captions that name no side, one of them named by the series itself:

        [RFC 00/19] uringlet
        ...
        async buffered writes:            uringlet:
        iodepth                           iodepth
          1   write: IOPS=428k, ...         1   write: IOPS=120k, ...

    The caption that names what the series is (a word of its subject's title, `series`) is
    the patched run; the caption beside it that does not, the baseline. A caption is a short
    line of words ending in `:` with figure lines within two lines below it, or a label in
    brackets that starts a run's line (`(passthru) read: IOPS=17.2k, ...` then `(block)
    read: IOPS=15.3k, ...`); its run goes to the next caption."""
    if not series or not _CAPTION_HINT.search(joined(lines)):
        return []
    named_by = _spelled(series)
    captions: list[tuple[int, bool, int | None]] = []  # line, names the series, label's end
    for i, line in enumerate(lines[:-1]):
        label = _LABEL.match(line) if line.lstrip()[:1] in "([" else None
        if label is not None and not _DIGIT.search(label.group(1)) \
                and _template(i, line[label.end():]) is not None:
            words = _caption_words(label.group(1))
            captions.append((i, bool(named_by & words), label.end()))
            continue
        text = line.strip()
        if (not text.endswith(":") or len(text) > _MAX_CAPTION or _DIGIT.search(text)
                or len(text.split()) > _MAX_CAPTION_WORDS or side_caption(line) is not None):
            continue
        if not any(_template(j, lines[j]) is not None for j in range(i + 1, min(len(lines), i + 3))):
            continue
        captions.append((i, bool(named_by & _caption_words(text)), None))
    pairs = []
    for k in range(len(captions) - 1):
        (i, named, at), (j, other_named, other_at) = captions[k], captions[k + 1]
        if named == other_named or (at is None) != (other_at is None):
            continue  # (a label pairs with a label, a caption line with a caption line)
        end = captions[k + 2][0] if k + 2 < len(captions) else min(len(lines), j + 1 + _MAX_SECTION)
        first = _Section(PATCHED if named else BASELINE, lines[i].strip(" :"), i + 1, j,
                         None if at is None else (i, at))
        second = _Section(PATCHED if other_named else BASELINE, lines[j].strip(" :"), j + 1, end,
                          None if other_at is None else (j, other_at))
        pairs.append((first, second) if first.role == BASELINE else (second, first))
    return pairs


# `Result 1: current method`, `Test #2 - with the series`: runs numbered in turn, each with
# what it ran
_NUMBERED = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,20}?)\s*#?(\d{1,2})\s*[:.)-]\s*(\S.{0,80}?)\s*:?\s*$")


def _numbered_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section]]:
    """Runs numbered in turn under captions saying what each ran, one of them naming a side:

        Result 1: current method            Result 2: sync_dma_len method
        proto 17:     326539 pkt/s          proto 17:     353918 pkt/s

    The run whose caption names the baseline (`current method`) is compared with each other
    one (variants of the patched side, a claim each); when none does, the one naming the
    patched side is compared with the only other one. A caption names the same thing and
    counts on from the one before (`Result 1`, `Result 2`); its run goes to the next."""
    captions: list[tuple[int, str, int, str]] = []  # line, name, number, what it ran
    if not _NUMBERED_HINT.search(joined(lines)):
        return []
    for i, line in enumerate(lines[:-1]):
        if len(line) > _MAX_CAPTION:
            continue
        m = _NUMBERED.match(line)
        if m is None or _DIGIT.search(m.group(3)) or not any(
                _template(j, lines[j]) is not None for j in range(i + 1, min(len(lines), i + 3))):
            continue  # (`proto 17:  326539 pkt/s` is a run's line, not a caption)
        captions.append((i, m.group(1).lower(), int(m.group(2)), m.group(3)))
    runs = [c for k, c in enumerate(captions)
            if any(o[1] == c[1] and abs(o[2] - c[2]) == 1 for o in captions[max(0, k - 1):k + 2])]
    if len(runs) < 2 or len({name for _, name, _, _ in runs}) != 1:
        return []
    roles = [role_of(what) for _, _, _, what in runs]
    ends = [runs[k + 1][0] if k + 1 < len(runs) else min(len(lines), runs[k][0] + 1 + _MAX_SECTION)
            for k in range(len(runs))]
    sections = [_Section(role or "", f"{name} {n}: {what}", i + 1, end)
                for (i, name, n, what), role, end in zip(runs, roles, ends, strict=True)]
    if roles.count(BASELINE) == 1 and PATCHED not in roles[:roles.index(BASELINE)]:
        base = sections[roles.index(BASELINE)]
        return [(base, _Section(PATCHED, s.caption, s.start, s.end)) for s, r in
                zip(sections, roles, strict=True) if r != BASELINE]
    if BASELINE not in roles and roles.count(PATCHED) == 1 and len(runs) == 2:
        patched = sections[roles.index(PATCHED)]
        other = next(s for s in sections if s is not patched)
        return [(_Section(BASELINE, other.caption, other.start, other.end), patched)]
    return []


# a caption of command-line options only: `-D1 -B1`, `-d8 -s2 -c2 -D0`
_OPTIONS = re.compile(r"^\s*(?:-[A-Za-z][\w.=]*\s*)+:?\s*$")
_SWITCH = re.compile(r"^-([A-Za-z])([01])$")


def _switched_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section]]:
    """Runs under captions of the same options but one switch, off in one and on in the
    other (`-D0 -B1` and `-D1 -B1`, t/io_uring's and fio's way of turning a feature off and
    on): the run with the switch on is the patched one, trying what the series adds. Only
    single-letter switches set to 0 or 1: a setting with other values (`-d8`, `-s2`) is a
    condition, not a side. A run goes to the next blank line."""
    captions = []
    if not _SWITCH_HINT.search(joined(lines)):
        return []
    for i, line in enumerate(lines[:-1]):
        if "-" in line and len(line) <= _MAX_CAPTION and _OPTIONS.match(line) \
                and _template(i + 1, lines[i + 1]) is not None:
            captions.append((i, line.strip(" :").split()))
    pairs = []
    for k in range(len(captions) - 1):
        (_, first), (_, second) = captions[k], captions[k + 1]
        if len(first) != len(second):
            continue
        differ = [(a, b) for a, b in zip(first, second, strict=True) if a != b]
        if len(differ) != 1:
            continue
        a, b = (_SWITCH.match(t) for t in differ[0])
        if a is None or b is None or a.group(1) != b.group(1):
            continue
        sections = []
        for at, _ in (captions[k], captions[k + 1]):
            end = at + 1
            while end < len(lines) and lines[end].strip() and end - at <= _MAX_SECTION:
                end += 1
            sections.append((at, end))
        (fi, fe), (si, se) = sections
        off, on = ((fi, fe), (si, se)) if a.group(2) == "0" else ((si, se), (fi, fe))
        pairs.append((_Section(BASELINE, lines[off[0]].strip(), off[0] + 1, off[1]),
                      _Section(PATCHED, lines[on[0]].strip(), on[0] + 1, on[1])))
    return pairs


def find_paired_runs(lines: Sequence[str], taken: set[int],
                     series: frozenset[str] = frozenset()) -> list[Measurement]:
    """The results of runs captioned by their side and paired line by line (see the module's
    rules), of runs of one setup with and without an addition (`_relative_sections`), and of
    runs one of whose captions names the series (`series`: the words of its subject's title,
    `_named_sections`). Runs another reader has read figures in (`taken`: the lines of its
    claims, a `perf stat` block, a netperf report) are left to it."""
    # (two runs print two lines of figures at the least: a block of prose has no runs, and
    # the section finders below each walk the block)
    figured = 0
    for i, line in enumerate(lines):
        if i not in taken and _DIGIT.search(line):
            figured += 1
            if figured == 2:
                break
    else:
        return []
    sections = _sections(lines, set())
    out: list[Measurement] = []
    read = set(taken)
    k = 0
    while k + 1 < len(sections):
        first, second = sections[k], sections[k + 1]
        seen = any(i in read for i in range(first.start - 1, second.end))
        if {first.role, second.role} == {BASELINE, PATCHED} and not seen:
            base, patched = (first, second) if first.role == BASELINE else (second, first)
            found = _pair(lines, base, patched, read)
            if found:
                out += found
                read.update(range(first.start - 1, second.end))
                k += 2
                continue
        k += 1
    shared: set[int] = set()  # a baseline compared with several variants: read again
    for base, patched in _numbered_sections(lines):
        own = set(range(base.start - 1, base.end))
        if any(i in read for i in range(patched.start - 1, patched.end)) or (
                base.start not in shared and own & read):
            continue
        found = _pair(lines, base, patched, read - own if base.start in shared else read)
        out += found
        if found:
            shared.add(base.start)
            read.update((*own, *range(patched.start - 1, patched.end)))
    for base, patched, heading in [*((b, p, "") for b, p in _relative_sections(lines)),
                                   *((b, p, "") for b, p in _named_sections(lines, series)),
                                   *((b, p, "") for b, p in _switched_sections(lines)),
                                   *_contrasted_sections(lines), *_labelled_sections(lines),
                                   *_report_sections(lines), *_connected_sections(lines)]:
        if any(i in read for i in (*range(base.start - 1, base.end),
                                   *range(patched.start - 1, patched.end))):
            continue
        found = _pair(lines, base, patched, read)
        if heading:
            found = [replace(m, condition=(("setup", heading), *m.condition)) for m in found]
        out += found
        if found:
            read.update((*range(base.start - 1, base.end), *range(patched.start - 1, patched.end)))
    return out


_UNDERLINE = re.compile(r"^\s*[-=~_*]{3,}\s*$")
_CAPTION_END = re.compile(r"(?::-?|\s-+|:\s*-+)\s*$")
_CAPTION_ENDS = re.compile(r"(?::-?|\s-+|:\s*-+)[ \t]*$|^[ \t]*[-=~_*]{3,}[ \t]*$", re.M)


def _contrasted_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section, str]]:
    """Runs of the same shape under two captions that name one thing set two ways, the
    words that tell them apart saying which is which (`roles.contrast_roles`):

        * Configfs non-membacked mode:-
        QUEUE_FLAG_NOWAIT disabled :-          QUEUE_FLAG_NOWAIT enabled :-
        ----------------------------           ----------------------------
        fio-1.log:  read: IOPS=1299k, ...       fio-1.log:  read: IOPS=5469k, ...

    Structure first: a caption is a short line of words ending in `:` (or underlined), its
    run the figure lines below it up to the next caption or line of prose; two captions in a row pair when their runs print lines of
    the same shape. Only then the words: what one caption has and the other has not, off
    or plain on one side (`disabled`, `0`, `default`), on on the other. A caption with no
    run of its own right above the pair is the setup both ran in (a condition)."""
    # (two lines that end as captions, or underlines, or nothing here to read: one search
    # of the block's text, most blocks have none)
    hints = _CAPTION_ENDS.finditer(joined(lines))
    if next(hints, None) is None or next(hints, None) is None:
        return []
    captions: list[tuple[int, str, int]] = []  # caption line, its text, its first run line
    for i, line in enumerate(lines[:-1]):
        if not line.rstrip().endswith((":", "-")) \
                and lines[i + 1].lstrip()[:3] not in ("---", "===", "~~~", "___", "***"):
            continue  # (the cheap test of what follows, first)
        text = line.strip()
        if not text or len(text) > _MAX_CAPTION or len(text.split()) > _MAX_CAPTION_WORDS \
                or not re.search(r"[A-Za-z]{2}", text) or _UNDERLINE.match(text):
            continue
        j = i + 1
        underlined = _UNDERLINE.match(lines[j]) is not None
        if underlined:
            j += 1
        if not (underlined or _CAPTION_END.search(text)):
            continue  # a caption ends in `:` (`:-`, `---`) or is underlined
        while j < len(lines) and j <= i + 3 and not lines[j].strip():
            j += 1
        captions.append((i, text.strip(" *#:-=\t"), j))
    if len(captions) < 2:
        return []
    # (the words first, they cost little: a run's shapes only for captions that contrast)
    contrasted = {k for k in range(len(captions) - 1)
                  if contrast_roles(captions[k][1], captions[k + 1][1]) is not None}
    if not contrasted:
        return []
    wanted = {k for c in contrasted for k in (c - 1, c, c + 1)}
    runs: list[tuple[int, int, frozenset[str]]] = []  # each caption's run and its shapes
    for k, (i, _, begin) in enumerate(captions):
        if k not in wanted:
            runs.append((begin, begin, frozenset()))
            continue
        limit = captions[k + 1][0] if k + 1 < len(captions) else min(len(lines), i + 1 + _MAX_SECTION)
        shapes: set[str] = set()
        end = begin
        for j in range(begin, limit):
            if not lines[j].strip() or _UNDERLINE.match(lines[j]):
                continue
            found = _template(j, lines[j])
            if found is None:
                if shapes:
                    break
                continue
            shapes.add(_label_free(found[0]))
            end = j + 1
        runs.append((begin, end, frozenset(shapes)))
    out = []
    used: set[int] = set()
    for k in sorted(contrasted):
        first, second = captions[k][1], captions[k + 1][1]
        a, b = runs[k], runs[k + 1]
        if k in used or k + 1 in used or not a[2] or not b[2] or not a[2] & b[2]:
            continue
        roles = contrast_roles(first, second)
        if roles is None:
            continue
        heading = ""
        if k > 0 and not runs[k - 1][2] and k - 1 not in used:
            heading = captions[k - 1][1]
        one = _Section(roles[0], first, a[0], a[1])
        two = _Section(roles[1], second, b[0], b[1])
        out.append((one, two, heading) if roles[0] == BASELINE else (two, one, heading))
        used.update((k, k + 1))
    return out


# a run's line label before its figures (`configfs-qmode-0-nowait-0-fio-1.log:`): which file
# it came from, not part of its shape
_LINE_LABEL = re.compile(r"^[^\s:]{1,80}:\s+(?=\S)")
_LABEL_GAP = 2  # blank lines between the groups of labelled lines of one comparison
# a line that joins two runs as the two ends of one change: `from:` ... `to` ... ; `vs`
_CONNECTOR = re.compile(r"^\s*(?:to|vs\.?|versus)\s*:?\s*$", re.I)
_FROM = re.compile(r"\bfrom\s*:?\s*$", re.I)


def _connected_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section, str]]:
    """Two runs of the same shape joined by a line that makes them the two ends of one
    change, the first the baseline:

        ... this changes the performance from:

        IOPS=108.41M, BW=52.93GiB/s, IOS/call=31/31
        IOPS=108.43M, BW=52.94GiB/s, IOS/call=32/32

        to

        IOPS=118.79M, BW=58.00GiB/s, IOS/call=31/32

    (`to` after a `from` that ends the words above the first run; `vs` or `versus` alone)."""
    out = []
    for k, line in enumerate(lines):
        if not _CONNECTOR.match(line):
            continue
        above = _run_bounds(lines, k, -1)
        below = _run_bounds(lines, k, +1)
        if above is None or below is None:
            continue
        if line.strip().lower().startswith("to"):
            words = next((lines[j] for j in range(above[0] - 1, max(-1, above[0] - 4), -1)
                          if lines[j].strip()), "")
            if not _FROM.search(words):
                continue
        shapes = [{_label_free(t[0]) for j in range(a, b) if (t := _template(j, lines[j]))}
                  for a, b in (above, below)]
        if not shapes[0] & shapes[1]:
            continue
        out.append((_Section(BASELINE, "from", above[0], above[1]),
                    _Section(PATCHED, line.strip(), below[0], below[1]), ""))
    return out


def _run_bounds(lines: Sequence[str], at: int, step: int) -> tuple[int, int] | None:
    """The run of figure lines next to line `at` (above it for step -1, below for +1),
    blank lines between them and it skipped: (first, one past the last)."""
    j = at + step
    while 0 <= j < len(lines) and not lines[j].strip() and abs(j - at) <= 2:
        j += step
    if not (0 <= j < len(lines)) or _template(j, lines[j]) is None:
        return None
    end = j
    while 0 <= end + step < len(lines) and abs(end - at) < _MAX_SECTION \
            and _template(end + step, lines[end + step]) is not None:
        end += step
    return (min(j, end), max(j, end) + 1)
_LABEL_LINES = 24  # lines of words above a report where its setting may be named


def _report_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section, str]]:
    """Two fio reports of the same job, each under the lines that say what ran, the two
    settings named alike but for the words that tell them apart:

        + test_nowait default-nowait-off            + test_nowait nowait-on
        + fio fio/verify.fio --size=2G ...           + fio fio/verify.fio --size=2G ...
        write-and-verify: (groupid=0, jobs=1): ...   write-and-verify: (groupid=0, jobs=1): ...

    Structure first: the reports pair by their job's name (the k-th of a name with the next
    one of that name); then the words: of the lines of words above each (back to the
    report of that name before it), the nearest two that name one thing and differ by
    words that tell which is which (`roles.contrast_roles`)."""
    reports = fio_output.find_reports(lines)
    if len(reports) < 2:
        return []
    out = []
    used: set[int] = set()
    for k, first in enumerate(reports):
        if k in used:
            continue
        later = next((j for j in range(k + 1, len(reports))
                      if reports[j].job == first.job and j not in used), None)
        if later is None:
            continue
        second = reports[later]
        before = next((r.end for r in reversed(reports[:k]) if r.job == first.job), 0)
        roles = _setting_contrast(_word_lines(lines, before, first.start),
                                  _word_lines(lines, first.end, second.start))
        if roles is None:
            continue
        one = _Section(roles[0], first.job, first.start, first.end)
        two = _Section(roles[1], second.job, second.start, second.end)
        out.append((one, two, "") if roles[0] == BASELINE else (two, one, ""))
        used.update((k, later))
    return out


def _word_lines(lines: Sequence[str], start: int, end: int) -> list[str]:
    """The lines of words (no figure) between start and end, nearest the end first."""
    out = []
    for j in range(end - 1, max(start, end - 200) - 1, -1):
        text = lines[j].strip()
        if text and len(text) <= _MAX_CAPTION and re.search(r"[A-Za-z]{2}", text) \
                and not _DIGIT.search(text):
            out.append(text.strip(" +#$*:-"))
            if len(out) >= _LABEL_LINES:
                break
    return out


def _setting_contrast(above_first: Sequence[str], above_second: Sequence[str]
                      ) -> tuple[str, str] | None:
    """The roles of two runs from the nearest lines above each that name one thing two
    ways: lines sharing a word, told apart by `roles.contrast_roles`."""
    candidates = sorted(((a + b, x, y) for a, x in enumerate(above_first)
                         for b, y in enumerate(above_second) if x != y),
                        key=lambda t: t[0])
    for _, x, y in candidates:
        if set(x.lower().split()) & set(y.lower().split()):
            roles = contrast_roles(x, y)
            if roles is not None:
                return roles
    return None


def _labelled_sections(lines: Sequence[str]) -> list[tuple[_Section, _Section, str]]:
    """Lines of the same shape whose labels name two settings of one thing, with no caption
    (output grepped from files named after what ran):

        default-nowait-off-1.fio:  read:  IOPS=792k,  BW=3095MiB/s
        default-nowait-off-2.fio:  read:  IOPS=812k,  BW=3173MiB/s

        nowait-on-1.fio:           read:  IOPS=864k,  BW=3374MiB/s
        nowait-on-2.fio:           read:  IOPS=863k,  BW=3371MiB/s

    Structure first: a group is consecutive lines of one shape past their labels whose
    labels are one name numbered (`-1`, `-2`: runs of one setting); two groups of the same
    shape in a row (blank lines between) are the two sides, the words that tell their names
    apart saying which is which (`roles.contrast_roles`). Each side's first run stands for
    it (docs/claims.md, rule 4)."""
    groups: list[tuple[str, str, int, int]] = []  # shape, label stem, first line, end
    for i, line in enumerate(lines):
        m = _LINE_LABEL.match(line) if ":" in line[:82] else None
        if m is None or len(line) > _MAX_LINE or not _DIGIT.search(line, m.end()):
            continue
        found = _template(i, line)
        if found is None:
            continue
        shape = _label_free(found[0])
        stem = _DIGITS.sub("#", m.group(0).strip(" :"))
        if groups and groups[-1][0] == shape and groups[-1][1] == stem and groups[-1][3] == i:
            groups[-1] = (shape, stem, groups[-1][2], i + 1)
        else:
            groups.append((shape, stem, i, i + 1))
    out = []
    seen: set[tuple[str, str, str]] = set()  # a pair of settings, and their shape
    k = 0
    while k + 1 < len(groups):
        (shape, stem, start, end), (other_shape, other_stem, other_start, other_end) = \
            groups[k], groups[k + 1]
        if (shape, stem, other_stem) in seen:
            k += 2  # the same two settings again: another run of one comparison (rule 4)
            continue
        between = lines[end:other_start]
        if shape != other_shape or stem == other_stem or len(between) > _LABEL_GAP \
                or any(b.strip() for b in between):
            k += 1
            continue
        roles = contrast_roles(stem, other_stem)
        if roles is None:
            k += 1
            continue
        one = _Section(roles[0], stem, start, end, labelled=True)
        two = _Section(roles[1], other_stem, other_start, other_end, labelled=True)
        out.append((one, two, "") if roles[0] == BASELINE else (two, one, ""))
        seen.add((shape, stem, other_stem))
        k += 2
    return out


def _label_free(shape: str) -> str:
    return _LINE_LABEL.sub("", shape)
