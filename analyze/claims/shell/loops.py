"""Shell `for` loops written in mail: their values, expanded as bash would (bounded).

Seed 004 writes `for i in {35,50,...,155};` and seed 001 `for c in 1 2 4; do`; the values a loop
walks are what name a table's rows or a list of measurements (`loop_for_values`). Expansion is
bounded (`{1..1000000}` stops at MAX_VALUES) and never runs anything.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

MAX_VALUES = 10_000  # values one loop may expand to (`{1..1000000}` stops here)

VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w{0,63})\}?")


@dataclass(frozen=True, slots=True)
class Loop:
    """A shell `for` loop: `for c in 1 2 4; do ... done`."""

    variable: str
    values: tuple[str, ...]  # expanded: `{1..4}` and `$(seq 1 4)` give ("1", "2", "3", "4")
    line: int  # index of the `for` line
    body: tuple[str, ...] = ()  # the commands inside, nested loops' commands included
    last: int = -1  # index of the `done` line (the last body line when `done` is missing)


def argv_plain(s: str) -> tuple[str, ...]:
    """Words of a shell line (shlex when quoted; whitespace split when the quoting is broken)."""
    if not any(c in s for c in "'\"\\"):
        return tuple(s.split())
    try:
        return tuple(shlex.split(s, posix=True))
    except ValueError:
        return tuple(s.split())


# --- loop values --------------------------------------------------------------------------

_FOR_IN = re.compile(r"for\s+([A-Za-z_]\w{0,63})\s+in\b(.*)", re.S)
_FOR_C = re.compile(
    r"for\s*\(\(\s*(\w+)\s*=\s*(-?\d{1,18})\s*;\s*\1\s*(<=|<|>=|>)\s*(-?\d{1,18})\s*;\s*"
    r"(?:(\1\s*\+\+|\+\+\s*\1)|(\1\s*--|--\s*\1)|\1\s*([+*-])=\s*(\d{1,18}))\s*\)\)"
)
_SEQ = re.compile(r"\$\(\s*seq\s+([^()]{0,200})\)|`\s*seq\s+([^`]{0,200})`")
INT = re.compile(r"-?\d{1,18}")


def parse_for(
    s: str, assigns: dict[str, str], room: int = MAX_VALUES
) -> tuple[str, tuple[str, ...]] | None:
    """The variable and expanded values of a `for` statement, or None when it is not one."""
    m = _FOR_C.match(s)
    if m:
        return m.group(1), _c_style(m, room)
    m = _FOR_IN.match(s)
    if not m:
        return None
    words = m.group(2).strip()
    if words.endswith(" do") or words == "do":
        words = words[:-2].strip()  # `for i in 1 2 4 do` (a missing `;`)
    values: list[str] = []
    pos = 0
    for sm in _SEQ.finditer(words):
        _expand_words(words[pos : sm.start()], assigns, values, room)
        values.extend(_seq(sm.group(1) or sm.group(2) or "", room - len(values)))
        pos = sm.end()
    _expand_words(words[pos:], assigns, values, room)
    return m.group(1), tuple(values[:room])


def _expand_words(text: str, assigns: dict[str, str], out: list[str], room: int) -> None:
    for word in argv_plain(text):
        if len(out) >= room:
            return
        m = VARIABLE.fullmatch(word)
        if m and m.group(1) in assigns:  # `SIZES="64 1500"` ... `for s in $SIZES`
            for part in assigns[m.group(1)].split():
                out.extend(_brace(part, room - len(out)))
        else:
            out.extend(_brace(word, room - len(out)))


def _c_style(m: re.Match[str], room: int) -> tuple[str, ...]:
    start, op, stop = int(m.group(2)), m.group(3), int(m.group(4))
    values: list[str] = []
    i = start
    while len(values) < room:
        if not _compare(i, op, stop):
            break
        values.append(str(i))
        if m.group(5):
            nxt = i + 1
        elif m.group(6):
            nxt = i - 1
        else:
            n = int(m.group(8))
            nxt = i + n if m.group(7) == "+" else i - n if m.group(7) == "-" else i * n
        if nxt == i:
            break
        i = nxt
    return tuple(values)


def _compare(a: int, op: str, b: int) -> bool:
    return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[op]


def _seq(args: str, room: int) -> list[str]:
    """`seq LAST`, `seq FIRST LAST`, `seq FIRST STEP LAST` (integers; options skipped)."""
    words = args.split()
    numbers: list[int] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w in ("-s", "-f"):
            skip = True
        elif INT.fullmatch(w):
            numbers.append(int(w))
        elif not w.startswith("-"):
            return []
    if len(numbers) == 1:
        first, step, last = 1, 1, numbers[0]
    elif len(numbers) == 2:
        first, step, last = numbers[0], 1, numbers[1]
    elif len(numbers) == 3:
        first, step, last = numbers
    else:
        return []
    if step == 0 or (last - first) * step < 0:
        return []
    count = min(room, (last - first) // step + 1)
    return [str(first + k * step) for k in range(max(0, count))]


_RANGE = re.compile(r"(-?\d{1,18}|[A-Za-z])\.\.(-?\d{1,18}|[A-Za-z])(?:\.\.(-?\d{1,18}))?")


def _brace(word: str, room: int, depth: int = 0) -> list[str]:
    """Bash brace expansion of one word, bounded: `{1,2,4}`, `{1..16}`, `{0..64..8}`, `eth{0,1}`."""
    if room <= 0:
        return []
    if len(word) > 256 or depth > 8 or "{" not in word:
        return [word]
    i = word.find("{")
    while i >= 0:
        if i > 0 and word[i - 1] == "$":  # `${var}` is a parameter
            i = word.find("{", i + 1)
            continue
        close, commas = _matching(word, i)
        if close < 0:
            return [word]
        inner = word[i + 1 : close]
        alternatives = _range(inner, room) if _RANGE.fullmatch(inner) else None
        if alternatives is None and commas:
            alternatives = _split_commas(inner, commas, i + 1)
        if alternatives:
            out: list[str] = []
            prefix, suffix = word[:i], word[close + 1 :]
            for alt in alternatives:
                out.extend(_brace(prefix + alt + suffix, room - len(out), depth + 1))
                if len(out) >= room:
                    break
            return out[:room]
        i = word.find("{", i + 1)
    return [word]


def _matching(word: str, i: int) -> tuple[int, list[int]]:
    level = 0
    commas: list[int] = []
    for p in range(i, len(word)):
        ch = word[p]
        if ch == "{":
            level += 1
        elif ch == "}":
            level -= 1
            if level == 0:
                return p, commas
        elif ch == "," and level == 1:
            commas.append(p)
    return -1, commas


def _split_commas(inner: str, commas: list[int], offset: int) -> list[str]:
    parts: list[str] = []
    start = 0
    for c in commas:
        parts.append(inner[start : c - offset])
        start = c - offset + 1
    parts.append(inner[start:])
    return parts


def _range(inner: str, room: int) -> list[str] | None:
    m = _RANGE.fullmatch(inner)
    if m is None:
        return None
    a, b, s = m.group(1), m.group(2), m.group(3)
    step = abs(int(s)) if s else 1
    if step == 0:
        step = 1
    if a.isalpha() != b.isalpha() or (a.isalpha() and len(a) != 1):
        return None
    if a.isalpha():
        lo, hi = ord(a), ord(b)
        sign = 1 if hi >= lo else -1
        count = min(room, abs(hi - lo) // step + 1)
        return [chr(lo + sign * k * step) for k in range(count)]
    lo, hi = int(a), int(b)
    # bash pads to the wider end when either is written with a leading zero: {01..16}
    width = max(len(a), len(b)) if re.match(r"-?0\d", a) or re.match(r"-?0\d", b) else 0
    sign = 1 if hi >= lo else -1
    count = min(room, abs(hi - lo) // step + 1)
    return [str(lo + sign * k * step).zfill(width) for k in range(count)]


def loop_for_values(
    loops: Sequence[Loop], values: Sequence[str], line: int | None = None
) -> Loop | None:
    """The loop that produced a list of measurements or row labels.

    A loop whose values equal `values` (row labels `1 2 4`) wins; otherwise one with as many
    values as there are measurements (seed 004's two 9-number lists and its 9-value loop).
    Several candidates: the nearest one starting before `line`; without `line`, None unless
    they all have the same values.
    """
    wanted = [str(v).strip() for v in values]
    if not wanted:
        return None
    same = [lp for lp in loops if _same_values(lp.values, wanted)]
    return _nearest(same, line) or _nearest(
        [lp for lp in loops if len(lp.values) == len(wanted)], line
    )


def _same_values(have: Sequence[str], wanted: Sequence[str]) -> bool:
    if len(have) != len(wanted):
        return False
    for a, b in zip(have, wanted, strict=True):
        if a == b:
            continue
        try:
            if float(a) != float(b):
                return False
        except ValueError:
            return False
    return True


def _nearest(candidates: list[Loop], line: int | None) -> Loop | None:
    if not candidates:
        return None
    if line is not None:
        before = [lp for lp in candidates if lp.line <= line]
        return max(before, key=lambda lp: lp.line) if before else candidates[0]
    if all(lp.values == candidates[0].values for lp in candidates):
        return candidates[0]
    return None
