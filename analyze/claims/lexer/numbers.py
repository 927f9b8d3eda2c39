"""Find the figures in one line of mail: `3518448`, `35,5 Mpps`, `+(4.68%)`, `~2.2K-8.7K`, `2x`.

`find_quantities(line)` returns every figure in order, never overlapping, each a `Quantity`
with its unit as written and in canonical units. Numbers that are parts of something else are
not figures: message ids and addresses, hashes and identifiers (`b5f1a7c2`, `eth0`, `x86_64`),
dates and times, versions (`v6.9`, `4.19.0-rc1`, `Linux 3.17`), IP and MAC addresses, hunk
headers, diffstat counts, patch counters (`[PATCH 3/7]`) and file names
(`analyze/claims/lexer/number_spans.py` finds those spans).

Rules for separators (documented because mail mixes locales):
- `1,234,567` and `1,234` are thousands (the English habit of netdev), except that a line which
  elsewhere writes a decimal comma (`35,5 Mpps`) or dot thousands (`1.341.700`) is read in that
  locale, where `1,234` is 1.234.
- `1.341.700` (two or more dot groups of exactly three digits) is thousands; a single `1.341`
  is a decimal; `4.19.0` (other group sizes) is a version.
- `1 234 567` (groups of exactly three after a single space) is one number only when a unit
  follows or the spaces are no-break/thin spaces: plain spaces also separate table columns,
  and `64 128 256` is three packet sizes.
- `35,5` is a decimal comma unless the number is an element of a comma list (`{35,50,65}`,
  `a,10,20`): then each element is its own number.
- `value` carries the written sign (`-(0.51%)` is -0.51, `sign` -1). A `-` or `+` followed by
  one space is a sign only before a percentage and not as a line's first character (a bullet).
- `±  2%` and `+-  0.12%` (a spread: test robot, perf stat) keep the symbol in `text`, sign None.
- Ranges: `97-110MB/sec`, `2.2K-8.7K`, `5 to 7 Mpps` (not after "from"/"increased"...: that is
  a change), `between 10 and 20 Mpps`; `value` is the low end, `high` the high end.
- Bounds: `~`, `>`, `<=`... are part of `text`; words ("more than", "up to about") are looked
  for in the 64 characters before the figure and are not.
- Ratios: `2x`, `2.5×`, `x2`, `32-fold`, `2.5 times`, `factor of 32` (in `text`), `twice`.
- Digit runs over 30 digits are not figures and are skipped whole; at most `MAX_FIGURES` per line.

Everything runs in time linear in the line: one left-to-right scan with anchored regexes whose
repetitions cannot overlap, and look-behind windows of bounded size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import islice

from .first_chars import compile_words
from .number_spans import excluded_spans
from .quantity import Quantity
from .units import SI_PREFIXES, lookup, unit_pattern

MAX_DIGITS = 30
# Beyond this a figure is no measurement, and a unit's scale (`9.9e+308 Gpps`) or a change
# computed from it would overflow to infinity: such a number is not read as a figure.
MAX_FIGURE = 1e100
# No line of a result table or a sentence holds this many figures; past it, stop looking
# (a 1 MB line of `1 1 1 ...` would otherwise build half a million Quantities).
MAX_FIGURES = 2000
_WINDOW = 64  # how far back bound words ("more than", "up to about") are looked for

_START = compile_words(r"[0-9]|(?<!\w)[Tt]wice(?!\w)")  # a fast scan to the next digit or `t`
_DIGITS = re.compile(r"[0-9]+")
_IDENT_TAIL = re.compile(r"[\w.\-+]*")
_SPACE = "[ \u00a0\u202f\u2009]"

# Number cores, tried in this order at a digit (or a `.` before a digit).
_DOT_GROUPS = re.compile(r"[0-9]{1,3}(?:\.[0-9]{3}){2,}(?:,[0-9]+)?(?![0-9]|[.,][0-9])")
# `4.19.0`, `5.x`, `6.9-rc1`, `3.17 kernel`, `4.19 + this series` (a tree plus patches)
_VERSION_AHEAD = re.compile(
    r"[0-9]+\.x\b|[0-9]+\.[0-9]+(?:\.[0-9]+|\.x\b|-rc[0-9]+|(?:-[0-9]+)?\+?\s?kernel|\s?\+\s?[A-Za-z])"
)
# (a leading 0 is no thousands group: `0,459` is a decimal comma, as zsh's `time` prints)
_COMMA_GROUPS = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?(?![0-9]|[.,][0-9])")
# at most 6 groups, and not followed by another spaced number: `123 456 789 ...` is a column run
_SPACE_GROUPS = re.compile(
    rf"[0-9]{{1,3}}(?:{_SPACE}[0-9]{{3}}){{1,6}}(?![0-9]|[.,][0-9]|{_SPACE}[0-9])"
)
# The plain numbers the fast paths read (`_numeric_row`, `_Scanner._plain_cell`,
# `_PLAIN_DECIMAL`), written once: digits with at most one decimal part, or thousands grouped
# with commas; MAX_DIGITS digits a part at most.
_RUN = rf"[0-9]{{1,{MAX_DIGITS}}}"
_FRACTION = rf"\.{_RUN}"
_NUMBER = rf"{_RUN}(?:{_FRACTION})?"
_GROUPED = rf"[1-9][0-9]{{0,2}}(?:,[0-9]{{3}})+(?:{_FRACTION})?"
# `_Scanner._plain_cell`: a number with at most one decimal part, then only blanks up to a
# column's `|` or the end; and what, just before it, could make it more than a number.
_PLAIN_CELL = re.compile(rf"({_NUMBER}|{_GROUPED})(%?)(?=[ \t]*(?:\||$))")
_CELL_BEFORE = ("", " ", "\t", "|", "+", "-", "−", "±", "(")  # a percentage may be signed
_NOT_PLAIN_BEFORE = "~≈<>=≥≤.+-−±/(×$#@\\&'_"
_SPACES_TUPLE = (" ", "\u00a0", "\u202f", "\u2009")
_DECIMAL = re.compile(r"[0-9]*\.[0-9]+|[0-9]+")
_PLAIN_DECIMAL = re.compile(_RUN + _FRACTION + r"(?![0-9.,eE+\-\u00a0\u202f\u2009]|\s\+|\s?kernel)")
_EXPONENT = re.compile(r"[eE][+-][0-9]{1,3}(?![\w.])")  # signed, as `%e` writes it
_COMMA_DECIMAL = re.compile(r"[0-9]+,[0-9]+(?![0-9]|,[0-9])")
_MINSEC = re.compile(r"([0-9]{1,6})m([0-9]{1,6}(?:[.,][0-9]+)?)s(?!\w)")  # `0m21,735s` too

_UNIT = re.compile(rf"(?:{unit_pattern()})(?!\w)")
# A unit with letters glued on that no ASCII word has (`5 usé`, `10 Mppś`): a unit mangled,
# or another word; either way not that unit, and the number is no bare figure either.
_MANGLED_UNIT = re.compile(rf"(?:{unit_pattern()})[^\x00-\x7f\W]|(?:{unit_pattern()})[\u0300-\u036f]")
_SI = re.compile(r"[KkMGT](?!\w)")
_HYPHEN_UNIT = re.compile(r"-(fold|times|bytes?)(?!\w)", re.I)
_RANGE_JOIN = re.compile(
    rf"{_SPACE}?[-–]{_SPACE}?(?=~?[0-9])(?!-)|\s+to\s+(?=~?[0-9])|\s+and\s+(?=~?[0-9])"
)
_BETWEEN = re.compile(r"\bbetween\s+$", re.I)
_BY_BEFORE = re.compile(r"\bby\s+~?$", re.I)

# Left context: symbols that belong to the figure's text, and words that bound it.
_SYMBOL_BEFORE = compile_words(r"(~=|~|≈|>=|<=|≥|≤|(?<![-=<>])>|<(?![-=]))[ ]?$")
_FILLER = compile_words(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|just|only|even|still|"
    r"slightly|well|a|an|the|some|circa|ca\.)|~|≈)\s*$",
    re.I,
)
_APPROX_FILLERS = frozenset(
    {"about", "around", "roughly", "approximately", "approx", "approx.", "nearly", "almost",
     "circa", "ca.", "~", "≈"}
)
_BOUND_WORDS = compile_words(
    r"(?:^|(?<=[\s(]))(?:(no|not) )?(more than|over|above|at least|greater than|higher than|"
    r"in excess of|upwards of|up to|at most|under|below|less than|fewer than|lower than|"
    r"beyond)\s*$",
    re.I,
)
_UPPER_WORDS = frozenset(
    {"up to", "at most", "under", "below", "less than", "fewer than", "lower than"}
)
_FACTOR = compile_words(r"(?:^|(?<=\W))factor(?: of)?\s+$", re.I)
_RANGE_VERBS = compile_words(
    r"\b(?:from|increas\w*|decreas\w*|improv\w*|drop\w*|ris\w*|rose|grow\w*|grew|went|goes|"
    r"go|reduc\w*|fell|fall\w*|jump\w*|rais\w*|bump\w*|boost\w*|chang\w*|regress\w*)\b[^0-9]*$",
    re.I,
)

def find_quantities(line: object, max_figures: int = MAX_FIGURES) -> list[Quantity]:
    """Every figure in `line`, in order and never overlapping (see the module's rules).

    At most `max_figures` are returned (the first ones). Never raises: any string gives a
    (possibly empty) list; a non-string gives [].
    """
    if not isinstance(line, str) or not line:
        return []
    if max_figures == MAX_FIGURES and len(line) <= _CACHED_LINE:
        return list(_cached(line))
    row = _numeric_row(line, max_figures)
    if row is not None:
        return list(row)
    return _without_references(line, _scaled_words(
        line, list(islice(_Scanner(line).scan(), max(0, max_figures)))))


def _without_references(line: str, qs: list[Quantity]) -> list[Quantity]:
    """The figures less a note's or a link's number in brackets (`see [2]`, `patches[1]`, a
    `[3]` line over its link): a reference, never a figure. A bracketed value after a key
    (fio's `99.00th=[157]`) stays. Nor is a power's base or exponent a figure of its own
    (`from 1 to 10^6` is no `10`)."""
    if "^" in line:
        qs = [q for q in qs if line[q.end:q.end + 1] != "^" and line[q.start - 1:q.start] != "^"]
    if "[" not in line:
        return qs
    return [q for q in qs if not (
        q.unit is None and q.kind == "number" and len(q.text) <= 2 and q.text.isdigit()
        and line[q.start - 1:q.start] == "[" and line[q.end:q.end + 1] == "]"
        and line[:q.start - 1].rstrip()[-1:] not in ("=", ":"))]


# A scale written on the figure, or alone after it, and what it counts after a blank
# (`7.1M IOPS`, `440K pps`, `11720 K req/s`, `3.2 M IOPS`): one unit, `MIOPS`, as `7.1MIOPS`
# would be. A scale with nothing it counts after it stays a bare scale.
_SCALE_ONLY = frozenset({"K", "k", "M", "G"})
_COUNTED = re.compile(r"[ \t]([A-Za-z][A-Za-z/]{1,11})\b")
_LONE_SCALE = re.compile(r"[ \t]([KkMG])[ \t]+([A-Za-z][A-Za-z/]{1,11})\b")
_SCALES_ALONE = re.compile(r"\d[ \t]+[KkMG][ \t]")


def _scaled_words(line: str, qs: list[Quantity]) -> list[Quantity]:
    if not qs or not (any(q.unit in _SCALE_ONLY for q in qs) or _SCALES_ALONE.search(line)):
        return qs
    out = []
    for q in qs:
        if q.unit in _SCALE_ONLY:
            m = _COUNTED.match(line, q.end)
            scale = q.unit
        elif q.unit is None and q.kind == "number":
            m = _LONE_SCALE.match(line, q.end)
            scale = m.group(1) if m is not None else ""
        else:
            m = None
        if m is not None:
            word = m.group(m.lastindex or 1)
            probe = _unit_of(f"{scale}{'IOPS' if word.lower() == 'iops' else word}")
            if probe is not None and probe.canonical_value is not None and probe.canonical_unit:
                q = Quantity(q.value, line[q.start:m.end()], q.start, m.end(), q.kind, probe.unit,
                             probe.canonical_unit, q.value * probe.canonical_value, q.bound,
                             q.sign, q.high)
        out.append(q)
    return out


@lru_cache(maxsize=64)
def _unit_of(unit: str) -> Quantity | None:
    found = list(islice(_Scanner("1 " + unit).scan(), 1))
    return found[0] if found and found[0].unit == unit else None


# The table, list and prose readers each lex the lines of a block, and quoted lines come back
# in every reply: the same line is read many times, so its figures are kept (Quantities are
# frozen, so sharing them is safe). Long lines are rare and not worth the memory.
_CACHED_LINE = 2048


@lru_cache(maxsize=32768)
def _cached(line: str) -> tuple[Quantity, ...]:
    row = _numeric_row(line)
    if row is not None:
        return row
    return tuple(_without_references(line, _scaled_words(line, list(islice(_Scanner(line).scan(), MAX_FIGURES)))))


# A pipe-table row of numbers and percentages only (`   64 | 3,518,448 | 3,591,240 | +2.1%`),
# the line result tables are made of: read with two regexes, as `_Scanner._plain_cell` reads
# each cell. Digits, dots, commas in groups of three, pipes and blanks hold no date, address
# or version (`excluded_spans`) and never make the line read with decimal commas, and a sign
# only on a percentage keeps the cascade of `_Scanner._finish` to what is done below.
# tests/test_numbers.py checks it against the scanner.
_ROW_CELL = rf"(?:{_GROUPED}|{_NUMBER}|[+-]?{_NUMBER}%)"
_NUMERIC_ROW = re.compile(
    rf"[ \t]*(?:\|[ \t]*)?{_ROW_CELL}(?:[ \t]*\|[ \t]*{_ROW_CELL})*[ \t]*(?:\|[ \t]*)?")
_ROW_FIGURE = re.compile(rf"({_GROUPED})|([+-]?)({_NUMBER})(%?)")


def _numeric_row(line: str, max_figures: int = MAX_FIGURES) -> tuple[Quantity, ...] | None:
    if "|" not in line or _NUMERIC_ROW.fullmatch(line) is None:
        return None
    out = []
    # (the first `max_figures` only, as the scanner stops: a 1 MB row of `1|1|...` is
    # half a million cells)
    for m in islice(_ROW_FIGURE.finditer(line), max(0, max_figures)):
        grouped, sign_text, number, percent = m.groups()
        if grouped is not None:
            value = float(grouped.replace(",", ""))
            out.append(Quantity(value, grouped, m.start(), m.end(), "number", None, None, value))
            continue
        value = float(number)
        if not percent:
            out.append(Quantity(value, number, m.start(3), m.end(3), "number", None, None, value))
            continue
        sign = None
        if sign_text:
            sign = 1 if sign_text == "+" else -1
            value = -value if sign == -1 else value
        canonical_unit, canonical_value = _canonical("%", value)
        out.append(Quantity(value, m.group(), m.start(), m.end(), "percent", "%",
                            canonical_unit, canonical_value, None, sign, None))
    return tuple(out)


def clear_cache() -> None:
    """Forget the figures of lines read so far (benchmarks time cold reads with it)."""
    _cached.cache_clear()


class _Scanner:
    """One left-to-right pass over a line."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.skips = excluded_spans(line)
        self.skip_index = 0
        self.last_end = 0  # end of the previous figure or skipped span
        self.comma_locale = _uses_decimal_comma(line)
        self.first_visible = len(line) - len(line.lstrip())

    def scan(self) -> Iterator[Quantity]:
        line = self.line
        pos = 0
        while True:
            m = _START.search(line, pos)
            if m is None:
                return
            i = m.start()
            skip_end = self._skip_end(i)
            if skip_end is not None:
                pos = self.last_end = skip_end
                continue
            if line[i] in "Tt":
                yield self._emit(i, m.end(), 2.0, "ratio", "x", None, None)
                pos = m.end()
                continue
            result = self._plain_cell(i) or self._figure_at(i)
            if isinstance(result, int):
                pos = max(result, i + 1)
                self.last_end = max(self.last_end, pos) if result > i else self.last_end
                continue
            yield result
            pos = self.last_end = result.end

    def _plain_cell(self, i: int) -> Quantity | None:
        """A number alone before a column's end (`|` or the end of the line): most cells of
        a result table. A bare one (`605`, `1,262,001`) with nothing on its left that could
        sign, bound or name it is built here; a percentage (`+9.9%`) skips the number
        cascade and unit search but is finished (signs, brackets, bounds) the usual way.
        Either reads as `_figure_at` would; anything else is None and goes the long way."""
        line = self.line
        prev = line[i - 1] if i else ""
        if prev not in _CELL_BEFORE:
            return None
        m = _PLAIN_CELL.match(line, i)
        if m is None:
            return None
        number, percent = m.group(1), m.group(2)
        if "," in number and (percent or self.comma_locale):
            return None  # `1,234` is 1.234 where the line writes decimal commas
        value = float(number.replace(",", ""))
        if percent:
            if _glued_to_name(prev, line[i - 2] if i > 1 else ""):
                return None  # `rx-5%`: part of a name
            unit, unit_end = self._unit_after(m.start(2))
            if unit is None or unit_end != m.end():
                return None
            return self._finish(i, unit_end, value, unit, _kind_of(unit), high=None)
        if prev not in " \t|":
            return None
        lo = max(self.last_end, i - _WINDOW)
        tail = line[lo:i].rstrip()[-1:]
        if tail and (tail.isalpha() or tail in _NOT_PLAIN_BEFORE):
            return None
        if _spread_start(line, lo, i) is not None:
            return None
        return Quantity(value, m.group(), i, m.end(), "number", None, None, value)

    def _skip_end(self, i: int) -> int | None:
        while self.skip_index < len(self.skips) and self.skips[self.skip_index][1] <= i:
            self.skip_index += 1
        if self.skip_index < len(self.skips):
            start, end = self.skips[self.skip_index]
            if start <= i:
                return end
        return None

    def _skip_token(self, i: int) -> int:
        """End of the identifier, id or version that starts at or runs through `i`."""
        return _ident_end(self.line, i)

    def _figure_at(self, i: int) -> Quantity | int:
        """The figure whose first digit is at `i`, or the position to resume scanning from."""
        line = self.line
        prev = line[i - 1] if i > 0 else ""
        prev2 = line[i - 2] if i > 1 else ""
        ratio_prefix = False
        start = i
        # Digits glued to a letter are part of a name: eth0, b5f1a7c2, x86_64, v6.9, TCP_RR2.
        if prev and (prev.isalnum() or prev == "_"):
            if prev in "xX" and not (prev2.isalnum() or prev2 == "_"):
                ratio_prefix = True
                start = i - 1
            else:
                return self._skip_token(i)
        elif _glued_to_name(prev, prev2):
            return self._skip_token(i)
        elif prev == "×":
            ratio_prefix = True
            start = i - 1
        if prev == "." and not ratio_prefix and not prev2.isalnum():
            i -= 1  # `.5 Mpps`
            start = i

        core = self._core(i, prev)
        if isinstance(core, int):
            return core
        value, end = core
        if ratio_prefix:
            if end < len(line) and (line[end].isalnum() or line[end] == "_"):
                return self._skip_token(i)
            return self._finish(start, end, value, "x", "ratio", high=None)

        # `0m19.695s`, as time(1) prints it
        ms = _MINSEC.match(line, i) if line.startswith("m", end) else None
        if ms is not None:
            seconds = int(ms.group(1)) * 60 + float(ms.group(2).replace(",", "."))
            return self._finish(start, ms.end(), seconds, "s", "duration", high=None,
                                unit_text="s")

        unit, unit_end = self._unit_after(end)
        if unit is None and end < len(line) and (line[end].isalnum() or line[end] == "_"):
            return self._skip_token(i)  # `3cab4f`, `8RX`, `1st`
        if unit is None and not line.isascii() and _MANGLED_UNIT.match(
                line, end + 1 if line.startswith(" ", end) else end):
            return self._skip_token(i)  # `5 usé`: read as 5 s it gave +49,999,900 %
        if unit is None and line.startswith((">/", ">&", ">>"), end):
            return end + 1  # shell redirections in quoted commands: `2>/dev/null`, `2>&1`
        if unit is None and end < len(line) and line[end] == "-" and value.is_integer():
            after = line[end + 1:end + 2]
            if after.isalpha() and line[i] == "0" and end - i > 1:
                return self._skip_token(i)  # `0001-net-foo`: a patch file's counter
        high = None
        stop = unit_end if unit is not None else end
        rng = self._range_after(i, stop, value, unit)
        if rng is not None:
            high, unit, stop = rng
        kind = _kind_of(unit)
        if high is not None:
            kind = "range"
        return self._finish(start, stop, value, unit, kind, high=high)

    def _core(self, i: int, prev: str) -> tuple[float, int] | int:
        """The number at `i` as (value, end), or where to resume when it is not a figure."""
        line = self.line
        digits = _DIGITS.match(line, i if line[i] != "." else i + 1)
        if digits is None:
            return i + 1
        end = digits.end()
        if end - digits.start() > MAX_DIGITS:
            return _ident_end(line, end)
        # fast path for the common plain integer (tables of 10,000 rows are mostly these)
        nxt = line[end] if end < len(line) else ""
        if line[i] != "." and (
            nxt == ""
            or nxt not in ".,\u00a0\u202f\u2009 "
            or (nxt == " " and (end - i > 3 or not line[end + 1:end + 4].isdigit()))
        ):
            return float(line[i:end]), end
        # fast path for a plain decimal (`13.8 Mpps`): nothing after it that would make it a
        # version (`4.19.0`, `6.9-rc1`, `3.17 kernel`, `4.19 + fix`), grouped digits or an
        # exponent, so the cascade below would read it as `_DECIMAL` does
        if line[i] != ".":
            m = _PLAIN_DECIMAL.match(line, i)
            if m is not None:
                return float(m.group()), m.end()
        # `{35,50,65}` and `a,10,20` are lists: no comma grouping, no decimal comma
        in_list = prev != "" and prev in ",{["
        if line[i] != ".":
            m = _DOT_GROUPS.match(line, i)
            if m is not None:
                text = m.group().replace(".", "").replace(",", ".")
                return float(text), m.end()
            if _VERSION_AHEAD.match(line, i):
                return self._skip_token(i)
            if not in_list:
                m = _COMMA_GROUPS.match(line, i)
                if m is not None:
                    text = m.group()
                    if self.comma_locale and text.count(",") == 1 and "." not in text:
                        return float(text.replace(",", ".")), m.end()
                    return float(text.replace(",", "")), m.end()
                m = _SPACE_GROUPS.match(line, i)
                if m is not None and self._space_groups_ok(m):
                    return float(re.sub(_SPACE, "", m.group())), m.end()
                m = _COMMA_DECIMAL.match(line, i)
                if m is not None:
                    return float(m.group().replace(",", ".")), m.end()
        m = _DECIMAL.match(line, i)
        if m is None:
            return i + 1
        end = m.end()
        if end < len(line) and line[end] == "." and line[end + 1:end + 2].isdigit():
            return self._skip_token(i)  # `1.2.3`: a version or an address
        exp = _EXPONENT.match(line, end)
        if exp is not None:
            # printf's `%e`, as the kernel test robot prints large counts: `5.926e+08`
            value = float(m.group() + exp.group())
            if not abs(value) <= MAX_FIGURE:
                return self._skip_token(i)  # `1.5e+400`: no measurement, and no float
            return value, exp.end()
        return float(m.group()), end

    def _space_groups_ok(self, m: re.Match[str]) -> bool:
        """`1 234 567` is one number only before a unit or with no-break/thin spaces."""
        if any(ch in m.group() for ch in "\u00a0\u202f\u2009"):
            return True
        unit, _ = self._unit_after(m.end())
        return unit is not None and unit not in ("x", "X", "times")

    def _unit_after(self, end: int) -> tuple[str | None, int]:
        """The unit written at `end` (glued, or after one space) and where it ends."""
        line = self.line
        at = end + 1 if line.startswith(_SPACES_TUPLE, end) else end
        if line.startswith("-", end):
            m = _HYPHEN_UNIT.match(line, end)
            if m is not None:  # `32-fold`, `64-byte`
                word = m.group(1).lower()
                return ("x" if word in ("fold", "times") else "B"), m.end()
            return None, end
        if line.startswith("[", at):
            # perf bench's `Total time: 1.284 [sec]`: a unit in brackets
            m = _UNIT.match(line, at + 1)
            if m is not None and line.startswith("]", m.end()) and m.group() not in ("x", "X", "×"):
                return m.group(), m.end() + 1
            return None, end
        if at >= len(line) or not (line[at].isalpha() or line[at] in "%×/"):
            return None, end  # units start with a letter, `%`, `×` or `/` (`14880000/s`)
        m = _UNIT.match(line, at)
        if m is not None:
            text = m.group()
            spaced = at > end
            # `2 x 10G` multiplies; `5 s` is fine, but a spaced `x` or `X` is not a ratio.
            if not (spaced and text in ("x", "X", "×")):
                return text, m.end()
        if line.startswith("%", at):
            return "%", at + 1
        if at == end:
            m = _SI.match(line, at)
            if m is not None:
                return m.group(), m.end()
        return None, end

    def _range_after(
        self, i: int, stop: int, low: float, unit: str | None
    ) -> tuple[float, str | None, int] | None:
        """`97-110MB/sec`, `2.2K-8.7K`, `5 to 7 Mpps`: (high, unit, end) or None."""
        line = self.line
        if not line.startswith(("-", "–", " ", "\u00a0", "\u202f", "\u2009", "\t"), stop):
            return None
        join = _RANGE_JOIN.match(line, stop)
        if join is None:
            return None
        word = join.group().strip()
        if word == "to" and _RANGE_VERBS.search(line, max(0, i - _WINDOW), i) \
                and not _BY_BEFORE.search(line, max(0, i - 8), i):
            return None  # "from 5 to 10 Mpps" is a change; "improved by 35% to 40%" a range
        if word == "and" and not _BETWEEN.search(line, max(0, i - _WINDOW), i):
            return None  # only "between 10 and 20 Mpps" joins with "and"
        j = join.end()
        if line[j] == "~":
            j += 1
        second = self._plain_number(j)
        if second is None:
            return None
        high, end = second
        if end < len(line) and line[end] in "-–" and line[end + 1:end + 2].isdigit():
            return None  # `1-2-3`: an id or a list, not a range
        high_unit, unit_end = self._unit_after(end)
        if high_unit is None and end < len(line) and (line[end].isalnum() or line[end] == "_"):
            return None
        if high < low:
            return None
        if unit is None:
            if high_unit is None and join.group().strip() in ("-", "–") and " " in join.group():
                return None  # `5 - 3` in a table is arithmetic or two columns
            return high, high_unit, (unit_end if high_unit else end)
        if high_unit is None:
            if unit in SI_PREFIXES or word in ("to", "and"):
                return None
            return high, unit, end  # `5-7 Mpps`... written `5 Mpps-7`: rare, keep the unit
        if _same_family(unit, high_unit):
            return high, unit, unit_end
        return None

    def _plain_number(self, j: int) -> tuple[float, int] | None:
        """A simple number at `j` (the high end of a range)."""
        line = self.line
        digits = _DIGITS.match(line, j)
        if digits is None or digits.end() - j > MAX_DIGITS:
            return None
        for pattern in (_COMMA_GROUPS, _DECIMAL):
            m = pattern.match(line, j)
            if m is not None:
                if m.end() < len(line) and line[m.end()] == "." and \
                        line[m.end() + 1:m.end() + 2].isdigit():
                    return None
                return float(m.group().replace(",", "")), m.end()
        return None

    def _finish(
        self,
        start: int,
        end: int,
        value: float,
        unit: str | None,
        kind: str,
        high: float | None,
        unit_text: str | None = None,
    ) -> Quantity:
        """Attach the sign, brackets and bound written around the figure, and build it."""
        line = self.line
        sign = None
        lo = max(self.last_end, start - _WINDOW)
        # `+(4.68%)` / `-(0.51%)`: a sign outside brackets
        if start >= 2 and line[start - 1] == "(" and line[start - 2] in "+-−" and \
                start - 2 >= lo and end < len(line) and line[end] == ")":
            sign = 1 if line[start - 2] == "+" else -1
            start -= 2
            end += 1
        elif start >= 1 and start - 1 >= lo and line[start - 1] in "+-−±" and \
                not line.startswith("+-", start - 2):
            before = line[start - 2] if start >= 2 else ""
            if not before or not (before.isalnum() or before in "_.)"):
                if line[start - 1] != "±":  # `± 2%` is a spread, not a sign
                    sign = 1 if line[start - 1] == "+" else -1
                start -= 1
        elif (spread := _spread_start(line, lo, start)) is not None:
            # the test robot's `40838 ±  2%`, perf stat's `( +-  0.12% )`: kept in the text
            start = spread
        elif kind == "percent" and start >= 2 and start - 2 >= lo and \
                line[start - 1] == " " and line[start - 2] in "+-−" and \
                start - 2 != self.first_visible:
            before = line[start - 3] if start >= 3 else ""
            if not before or before.isspace() or before in "(|":
                sign = 1 if line[start - 2] == "+" else -1
                start -= 2
        bound = None
        window = line[lo:start]
        tail = window.rstrip()[-1:]
        if tail == "" or not (tail.isalpha() or tail in "~≈<>=≥≤."):
            return self._build(start, end, value, unit_text or unit, kind, None, sign, high)
        if tail.isalpha():
            # After a word no symbol can stand, and a factor or a bound is said only by
            # a few last words ("from 5 Mpps" is most figures in prose): one test for all.
            word = _last_word(window.rstrip())
            if word.isascii() and word not in _WORD_ENDINGS:
                return self._build(start, end, value, unit_text or unit, kind, None, sign, high)
        symbol = _SYMBOL_BEFORE.search(window) if _may_end_in_symbol(window) else None
        if symbol is not None:
            bound = _symbol_bound(symbol.group(1))
            start -= len(symbol.group())
            window = window[: len(window) - len(symbol.group())]
        if unit is None and kind == "number" and sign is None and _may_end_in_factor(window):
            factor = _FACTOR.search(window)
            if factor is not None:  # "by a factor of 32"
                start -= len(factor.group())
                unit, kind = "x", "ratio"
                window = window[: len(window) - len(factor.group())]
        if bound in (None, "approx"):
            word_bound = _word_bound(window)
            if word_bound is not None:
                bound = word_bound if word_bound != "approx" or bound is None else bound
        return self._build(start, end, value, unit_text or unit, kind, bound, sign, high)

    def _build(
        self, start: int, end: int, value: float, unit_written: str | None, kind: str,
        bound: str | None, sign: int | None, high: float | None,
    ) -> Quantity:
        if sign == -1:
            value = -value
            if high is not None:
                high = -high
        canonical_unit, canonical_value = _canonical(unit_written, value)
        return Quantity(
            value=value,
            text=self.line[start:end],
            start=start,
            end=end,
            kind=kind,
            unit=unit_written,
            canonical_unit=canonical_unit,
            canonical_value=canonical_value,
            bound=bound,
            sign=sign,
            high=high,
        )

    def _emit(
        self, start: int, end: int, value: float, kind: str, unit: str,
        high: float | None, bound: str | None,
    ) -> Quantity:
        return Quantity(value, self.line[start:end], start, end, kind, unit, unit, value,
                        bound, None, high)


def _spread_start(line: str, lo: int, end: int) -> int | None:
    r"""Where a spread symbol (`±`, `+-`, `+/-`) followed by at most three blanks ends at
    `end` within `line[lo:end]`, or None. Read backwards from `end`: a regex,
    `(?:±|\+-|\+/-)\s{0,3}$`, searched forwards, would try every position of the window."""
    k = end
    while k > lo and end - k < 5 and line[k - 1].isspace():
        k -= 1
    # `\s{0,3}$`: three blanks at most, and `$` may stand before a final newline
    blanks = end - k - (1 if end - k == 4 and line[end - 1] == "\n" else 0)
    if blanks > 3 or (k > lo and line[k - 1].isspace()):
        return None
    if k - 1 >= lo and line[k - 1] == "±":
        return k - 1
    if k - 2 >= lo and line[k - 2:k] == "+-":
        return k - 2
    if k - 3 >= lo and line[k - 3:k] == "+/-":
        return k - 3
    return None


def _glued_to_name(prev: str, prev2: str) -> bool:
    """`$1`, `#3`, `git-send-email-7`, `foo/2`, `a.5`, `4.19.0`'s tail: parts of names."""
    if prev in ("$", "#", "@", "\\", "&"):
        return True
    if prev in ("-", "+", "/", ".", "'") and (prev2.isalpha() or prev2 == "_"):
        return True
    return prev == "." and prev2.isdigit()


def _ident_end(line: str, i: int) -> int:
    m = _IDENT_TAIL.match(line, i)
    return m.end() if m is not None else i + 1


_DOT_THOUSANDS = compile_words(r"(?<![0-9.])[0-9]{1,3}\.[0-9]{3}\.[0-9]{3}(?![0-9]|\.[0-9])")
_COMMA_DECIMAL_ANYWHERE = compile_words(
    r"(?<![0-9,{\[])[0-9]+,(?:[0-9]{1,2}|[0-9]{4,})(?![0-9]|,[0-9])")


def _uses_decimal_comma(line: str) -> bool:
    """Whether the line writes in a decimal-comma locale (`35,5 Mpps`, `1.341.700`)."""
    # dot thousands need two dots, a decimal comma a comma: most lines have neither
    if line.count(".") >= 2 and _DOT_THOUSANDS.search(line):
        return True
    return "," in line and _COMMA_DECIMAL_ANYWHERE.search(line) is not None


def _kind_of(unit: str | None) -> str:
    if unit is None or unit in SI_PREFIXES:
        return "number"
    known = lookup(unit)
    return known.kind if known is not None else "number"


def _same_family(a: str, b: str) -> bool:
    if a in SI_PREFIXES and b in SI_PREFIXES:
        return True
    ua, ub = lookup(a), lookup(b)
    return ua is not None and ub is not None and ua.canonical == ub.canonical


def _canonical(unit: str | None, value: float) -> tuple[str | None, float | None]:
    if unit is None:
        return None, value
    if unit in SI_PREFIXES:
        return None, value * SI_PREFIXES[unit]
    known = lookup(unit)
    if known is None:
        return None, None
    return known.canonical, value * known.factor


def _symbol_bound(symbol: str) -> str:
    if symbol in ("~", "~=", "≈"):
        return "approx"
    return "lower" if symbol in (">", ">=", "≥") else "upper"


# The last words of the fillers and bound phrases `_word_bound` looks for: a window that
# ends in none of them (or in `~`, `≈`) has no bound, and its regexes need not run.
_BOUND_ENDINGS = frozenset({
    "about", "around", "roughly", "approximately", "approx", "nearly", "almost", "just", "only",
    "even", "still", "slightly", "well", "a", "an", "the", "some", "circa", "ca", "than", "over",
    "above", "least", "of", "to", "most", "under", "below", "beyond",
})
_SYMBOL_ENDINGS = "~≈=<>≥≤"
_WORD_ENDINGS = _BOUND_ENDINGS | {"factor", "of"}  # what `_may_end_in_factor` looks for too


def _last_word(text: str) -> str:
    end = len(text)
    start = end
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    return text[start:end].lower()


def _may_end_in_symbol(window: str) -> bool:
    """Whether `_SYMBOL_BEFORE` (a symbol, a space at most, then the end) can match."""
    window = window.removesuffix("\n")
    return window[-1:] in _SYMBOL_ENDINGS and window[-1:] != "" or \
        (window[-1:] == " " and window[-2:-1] in _SYMBOL_ENDINGS and window[-2:-1] != "")


def _may_end_in_factor(window: str) -> bool:
    """Whether `_FACTOR` ("factor", "factor of", then spaces to the end) can match."""
    word = _last_word(window.rstrip())
    return word in ("factor", "of") or not word.isascii()


def _may_end_in_bound(window: str) -> bool:
    text = window.rstrip()
    if text[-1:] in ("~", "≈"):
        return True
    if text.endswith("."):  # `approx.`, `ca.`
        text = text[:-1]
    word = _last_word(text)
    # re.I also folds letters str.lower() does not ("ſ" is "s"): a word of such letters
    # goes the long way
    return text != "" and (word in _BOUND_ENDINGS or not word.isascii())


def _word_bound(window: str) -> str | None:
    """The bound said in words just before a figure: "more than", "up to about", "~"."""
    if not _may_end_in_bound(window):
        return None
    approx = False
    for _ in range(3):
        filler = _FILLER.search(window)
        if filler is None:
            break
        word = filler.group().strip().lower()
        approx = approx or word in _APPROX_FILLERS
        window = window[: filler.start()]
    m = _BOUND_WORDS.search(window)
    if m is not None:
        negated = m.group(1) is not None
        upper = m.group(2).lower() in _UPPER_WORDS
        if negated:  # "no more than" is an upper bound, "not less than" a lower one
            upper = not upper
        return "upper" if upper else "lower"
    return "approx" if approx else None
