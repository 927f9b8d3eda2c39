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
