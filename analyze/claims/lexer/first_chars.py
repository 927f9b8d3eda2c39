"""Word-list regexes that search quickly: a look-ahead on the characters a match can start with.

Python's `re` skips quickly to a pattern's first character only when the pattern starts with a
literal or a class it can see. An alternation of words behind `\\b` (`\\bbefore\\b|\\bbase(?:line)?\\b|
...`, searched case-blind) starts with neither, so every branch is tried at every position of the
line: 10 to 40 microseconds per line of mail, paid by each reader on every line. Put in front
of the same pattern, `(?=[bBvV...])` lets the engine jump from one possible first letter to
the next, and the match is the same (the look-ahead only skips positions where no branch can
start). The set of first characters is read from the parsed pattern; when it cannot be told
(a pattern that may match empty, or starts with `.` or `\\w`), the pattern is compiled as is.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The parser `re.compile` itself uses (private: Python 3.11 renamed sre_parse to re._parser).
# On a Python without it, patterns are compiled as they are: same matches, no look-ahead.
_parser: Any
_c: Any
try:
    _parser = importlib.import_module("re._parser")
    _c = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover
    _parser = _c = None

_MAX_CLASS = 512  # a range wider than this (`[^...]`, `\w`) is no useful first character
# `\s` is str.isspace(): a few dozen characters, none above U+3000
_SPACES = frozenset(c for c in range(0x3001) if chr(c).isspace())


def compile_words(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, searching faster when its first characters are known."""
    chars = first_chars(pattern, flags)
    if not chars:
        return re.compile(pattern, flags)
    cls = "".join(f"\\U{ord(c):08x}" for c in sorted(chars))  # escaped: `-`, `]`, `^` too
    return re.compile(f"(?=[{cls}])(?:{pattern})", flags)


def first_chars(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """The characters a match of `pattern` can start with, as written (case folding, if
    `flags` asks for it, applies to the look-ahead as to the pattern); None when unknown."""
    if _parser is None or re.match(r"\(\?[a-zA-Z]+\)", pattern):
        return None  # inline global flags must stay first: leave such a pattern alone
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    found = _first(list(parsed))
    if found is None or found[1]:  # unknown, or the pattern may match the empty string
        return None
    return frozenset(chr(c) for c in found[0])


def _first(items: list[tuple[Any, Any]]) -> tuple[set[int], bool] | None:
    """First characters of a sequence of parsed items, and whether it may match empty."""
    out: set[int] = set()
    for item in items:
        found = _first_of(item)
        if found is None:
            return None
        chars, nullable = found
        out |= chars
        if not nullable:
            return out, False
    return out, True


def _first_of(item: tuple[Any, Any]) -> tuple[set[int], bool] | None:
    op, av = item
    if op is _c.LITERAL:
        return {av}, False
    if op is _c.IN:
        chars: set[int] = set()
        for kind, value in av:
            if kind is _c.LITERAL:
                chars.add(value)
            elif kind is _c.RANGE and value[1] - value[0] <= _MAX_CLASS:
                chars.update(range(value[0], value[1] + 1))
            elif kind is _c.CATEGORY and value is _c.CATEGORY_SPACE:
                chars |= _SPACES
            else:  # a negated class, another category (\w, \d), a huge range
                return None
        return chars, False
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return set(), True  # zero-width: the next item says where a match starts
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if add_flags or del_flags:
            return None  # `(?i:...)` changes how its characters match
        return _first(list(sub))
    if op is _c.BRANCH:
        chars, nullable = set(), False
        for branch in av[1]:
            found = _first(list(branch))
            if found is None:
                return None
            chars |= found[0]
            nullable = nullable or found[1]
        return chars, nullable
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, _high, sub = av
        found = _first(list(sub))
        if found is None:
            return None
        return found[0], found[1] or low == 0
    if op is _c.ATOMIC_GROUP:
        return _first(list(av))
    return None  # `.`, a category, a back-reference, a conditional: cannot tell


# --- a gate of literals: text that holds none of them cannot match ------------------------

class Gated:
    """A pattern searched only in text that holds one of the literal strings every match
    holds (`before`, `patch`, `w/o` ... for a word list): `str.__contains__` on a line costs
    a few tens of nanoseconds a literal, a search of a case-blind word list microseconds.

    Only ASCII text is gated (lowercased for a case-blind pattern): `re.IGNORECASE` also
    matches characters whose lowercase is no ASCII letter (`ſ` for `s`, `K` for `k`), and a
    literal that is not ASCII (`±`) cannot be in ASCII text, so it is left out of the gate."""

    __slots__ = ("pattern", "literals", "_fold")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = compile_words(pattern, flags)
        self._fold = bool(flags & re.IGNORECASE)
        found = required_literals(pattern, flags)
        self.literals: tuple[str, ...] | None = None
        if found is not None:
            ascii_ = {s.lower() if self._fold else s for s in found if s.isascii()}
            # (a literal holding another is never the one that decides: `patched` has `patch`)
            self.literals = tuple(sorted(s for s in ascii_ if not any(o != s and o in s for o in ascii_)))

    def search(self, text: str) -> re.Match[str] | None:
        if self.literals is not None and text.isascii():
            probe = text.lower() if self._fold else text
            if not any(s in probe for s in self.literals):
                return None
        return self.pattern.search(text)


def required_literals(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Literal strings of which every match of `pattern` contains one (for each branch of an
    alternation, its longest run of literal characters that no match can leave out); None when
    some branch has none (`\\w+`, `[0-9]`), or the pattern cannot be read."""
    if _parser is None or re.match(r"\(\?[a-zA-Z]+\)", pattern):
        return None
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    return _required(list(parsed))


def _required(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """The best required literal set of a sequence: the one whose shortest member is longest
    (`\\bno[- ]?patch\\b` gives {patch}, not {no})."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and (best is None or min(map(len, found)) > min(map(len, best))):
            best = found

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider(frozenset(["".join(run)]))
            run = []
        if op is _c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if not (add_flags or del_flags):
                consider(_required(list(sub)))
        elif op is _c.BRANCH:
            branches = [_required(list(b)) for b in av[1]]
            if all(branches):
                consider(frozenset().union(*[b for b in branches if b]))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
            consider(_required(list(av[2])))
        elif op is _c.ATOMIC_GROUP:
            consider(_required(list(av)))
        # anything else (a class, an assertion, an optional part) requires no literal
    if run:
        consider(frozenset(["".join(run)]))
    return best
