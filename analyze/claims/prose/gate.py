"""Whether any Matcher rule could match a sentence, told from its text and figures alone.

Building a spaCy document costs far more than reading a sentence's words, and most sentences
that hold a figure and a word of change match no rule ("..., which shows up at 2.8% in perf
top under load": `up` is a word of change, but only right after a percentage). This gate is
derived from the rules themselves (`rules.add_rules`), never written beside them: for
each pattern, every word it requires must occur in the sentence, every figure it requires
must be among the sentence's figures, and a word it requires right after a figure must be
the next word after one. Each test only ever errs towards "could": a token spaCy makes is a
piece of the text, so a word missing from the text is missing from the tokens. Sentences
the gate passes are read by spaCy as before, so the gate changes no result, only the cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from analyze.claims.lexer.quantity import Quantity

from .rules import add_rules

# The labels shape.py gives a figure of each kind (a figure may also become COND, SETUP
# or SPREAD, which only ever makes a rule less likely to match).
_KINDS_FOR_LABEL = {
    "PCT": frozenset({"percent"}),
    "RATIO": frozenset({"ratio"}),
    "VAL": frozenset({"number", "range", "duration"}),
}
_OPTIONAL = ("?", "*")


@dataclass(frozen=True, slots=True)
class _Pattern:
    words: int  # the bits (`_Vocabulary`) of the word sets it requires a token of
    figures: tuple[frozenset[str], ...]  # each required figure: one of these kinds
    # a required figure right before a required word, perhaps with an optional "-" between
    adjacent: tuple[tuple[frozenset[str], tuple[str, ...], bool], ...]
    # a required word before a required figure with at most `n` of `between` in between
    leading: tuple[tuple[tuple[str, ...], frozenset[str], int, frozenset[str]], ...] = ()
    # the required words and figures in the pattern's order: (True, kinds) for a figure,
    # (False, words) for a word (see `_in_order`)
    order: tuple[tuple[bool, tuple[str, ...] | frozenset[str]], ...] = ()


class _Vocabulary:
    """The word sets the rules require, numbered: which are met by a text is one bit each."""

    def __init__(self, word_sets: list[tuple[str, ...]]) -> None:
        self.sets = sorted({tuple(sorted({w.lower() for w in ws})) for ws in word_sets})
        self.bit = {ws: 1 << i for i, ws in enumerate(self.sets)}
        bits: dict[str, int] = {}
        for ws, bit in self.bit.items():
            for w in ws:
                bits[w] = bits.get(w, 0) | bit
        # words by their first two characters: a sentence's pairs of characters pick the
        # few words worth a substring test
        self.short = [(w, b) for w, b in bits.items() if len(w) < 2]
        self.by_pair: dict[str, list[tuple[str, int]]] = {}
        for w, b in bits.items():
            if len(w) >= 2:
                self.by_pair.setdefault(w[:2], []).append((w, b))
        self.pairs = frozenset(self.by_pair)

    def key(self, words: tuple[str, ...]) -> int:
        return self.bit[tuple(sorted({w.lower() for w in words}))]

    def met(self, low: str) -> int:
        found = 0
        for w, b in self.short:
            if w in low:
                found |= b
        for pair in self.pairs.intersection(map("".join, zip(low, low[1:], strict=False))):
            for w, b in self.by_pair[pair]:
                if w in low:
                    found |= b
        return found


def _figure_kinds(element: dict[str, Any]) -> frozenset[str] | None:
    labels = element.get("ENT_TYPE")
    if not isinstance(labels, dict) or "IN" not in labels:
        return None
    return frozenset().union(*(_KINDS_FOR_LABEL.get(label, frozenset()) for label in labels["IN"]))


def _words(element: dict[str, Any]) -> tuple[str, ...] | None:
    lower = element.get("LOWER")
    if isinstance(lower, dict) and "IN" in lower:
        return tuple(lower["IN"])
    return None


def _optional(element: dict[str, Any]) -> bool:
    op = element.get("OP")
    return op in _OPTIONAL or (isinstance(op, str) and op.startswith("{0,"))


def _compile(pattern: list[dict[str, Any]]
             ) -> tuple[list[tuple[str, ...]], _Pattern]:
    """The pattern's required word sets (numbered later), figures and adjacencies."""
    words: list[tuple[str, ...]] = []
    figures: list[frozenset[str]] = []
    adjacent: list[tuple[frozenset[str], tuple[str, ...], bool]] = []
    order: list[tuple[bool, tuple[str, ...] | frozenset[str]]] = []
    for i, element in enumerate(pattern):
        if _optional(element) or element.get("OP") == "!":
            continue
        found = _words(element)
        if found is not None:
            words.append(found)
            order.append((False, tuple(w.lower() for w in found)))
        kinds = _figure_kinds(element)
        if kinds is None:
            continue
        figures.append(kinds)
        order.append((True, kinds))
        nxt = pattern[i + 1] if i + 1 < len(pattern) else None
        dash = nxt is not None and nxt.get("ORTH") == "-" and nxt.get("OP") == "?"
        if dash:
            nxt = pattern[i + 2] if i + 2 < len(pattern) else None
        follow = _words(nxt) if nxt is not None and not _optional(nxt) else None
        if follow is not None:
            adjacent.append((kinds, follow, dash))
    return words, _Pattern(0, tuple(figures), tuple(adjacent), _leading(pattern), tuple(order))


def _repeats(element: dict[str, Any]) -> int | None:
    """How many tokens an optional element may take; None for any number."""
    op = element.get("OP")
    if op == "?":
        return 1
    if isinstance(op, str) and op.startswith("{0,") and op.endswith("}"):
        return int(op[3:-1])
    return None


def _leading(pattern: list[dict[str, Any]]
             ) -> tuple[tuple[tuple[str, ...], frozenset[str], int, frozenset[str]], ...]:
    """Each required word followed, through optional words only, by a required figure:
    "up ~9%" in `[up, (about|~...)?, PCT]`."""
    out = []
    for i, element in enumerate(pattern):
        head = _words(element)
        if head is None or _optional(element):
            continue
        between: set[str] = set()
        room = 0
        for nxt in pattern[i + 1:]:
            kinds = _figure_kinds(nxt)
            if kinds is not None and not _optional(nxt):
                out.append((head, frozenset(between), room, kinds))
                break
            words, repeats = _words(nxt), _repeats(nxt)
            if words is None or repeats is None or not _optional(nxt):
                break  # anything else between: no test
            between.update(w.lower() for w in words)
            room += repeats
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Rules:
    vocabulary: _Vocabulary
    patterns: tuple[_Pattern, ...]
    # the patterns by the lowest bit of their word sets: a sentence meets few word sets,
    # so only the patterns filed under one of those are worth a look
    by_bit: dict[int, tuple[_Pattern, ...]]
    wordless: tuple[_Pattern, ...]

    def candidates(self, met: int) -> list[_Pattern]:
        found = list(self.wordless)
        while met:
            bit = met & -met
            found += self.by_bit.get(bit, ())
            met ^= bit
        return found


@cache
def _indexed() -> _Rules:
    vocabulary, patterns = _rules()
    by_bit: dict[int, list[_Pattern]] = {}
    for p in patterns:
        if p.words:
            by_bit.setdefault(p.words & -p.words, []).append(p)
    return _Rules(vocabulary, patterns, {b: tuple(ps) for b, ps in by_bit.items()},
                  tuple(p for p in patterns if not p.words))


class _Collect:
    """Takes the rules' patterns as spaCy's Matcher would (`add_rules` adds them to it)."""

    def __init__(self) -> None:
        self.compiled: list[tuple[list[tuple[str, ...]], _Pattern]] = []

    def add(self, _label: str, patterns: list[list[dict[str, Any]]]) -> None:
        self.compiled.extend(_compile(p) for p in patterns)


@cache
def _rules() -> tuple[_Vocabulary, tuple[_Pattern, ...]]:
    collect = _Collect()
    add_rules(collect)
    compiled = collect.compiled
    vocabulary = _Vocabulary([ws for sets, _ in compiled for ws in sets])
    patterns = tuple(replace(p, words=sum({vocabulary.key(ws) for ws in sets}))
                     for sets, p in compiled)
    return vocabulary, patterns


def _next_word_is(text: str, end: int, words: tuple[str, ...], dash: bool) -> bool:
    """The word after a figure ending at `end` is one of `words`, as far as the text can
    tell: when the figure's token may run on past `end` (no space after it), say yes."""
    if end >= len(text):
        return False
    if not text[end].isspace():
        return True
    tail = text[end:end + 64].lstrip()
    if dash and tail.startswith("-"):
        tail = tail[1:].lstrip()
    tail = tail.lower()
    return any(tail.startswith(w) for w in words)


def _word_then_figure(text: str, low: str, head: tuple[str, ...], between: frozenset[str],
                      room: int, starts: dict[int, str | None], kinds: frozenset[str]) -> bool:
    """Some word of `head` is followed, past blanks and at most `room` words of `between`,
    by a figure of one of `kinds`, as far as the text can tell.

    A token never holds a blank, so the token after a word starts at the next non-blank
    character p, and a figure's token (grown to cover the figure) starts where the token
    holding the figure's start began: the figure starts in the run of non-blank characters
    at p. Every way of reading words of `between` is followed ("a" and "about" both start
    "about ~9%"); a reading that stops inside a word leads to no token and finds nothing."""
    for word in head:
        at = low.find(word)
        while at >= 0:
            if _inside_a_word(low, at, at + len(word)):
                at = low.find(word, at + 1)
                continue  # "setup" holds no token "up"
            frontier = {at + len(word)}
            for step in range(room + 1):
                following: set[int] = set()
                for p in frontier:
                    while p < len(text) and text[p].isspace():
                        p += 1
                    if _figure_in_run(text, p, starts, kinds):
                        return True
                    if step < room:
                        following.update(p + len(w) for w in between if low.startswith(w, p))
                frontier = following
                if not frontier:
                    break
            at = low.find(word, at + 1)
    return False


def _figure_in_run(text: str, p: int, starts: dict[int, str | None],
                   kinds: frozenset[str]) -> bool:
    """A figure of `kinds` starts in the run of non-blank characters at p."""
    end = p
    while end < len(text) and not text[end].isspace():
        end += 1
    return any(p <= s < end and _fits(k, kinds) for s, k in starts.items())


def _inside_a_word(low: str, start: int, end: int) -> bool:
    """The span is a word with a letter or digit glued to it, so it is no token of its own.

    Only a letter or digit glued to a letter or digit counts: spaCy splits punctuation off
    what it touches ("improvement: 5%" is "improvement", ":", "5", "%"; "=5%" is "=", ...).
    It does split some words between letters too ("wasnt" is "was" "nt", "thats" is "that"
    "s"), but the second piece is never a word a rule allows between its word and a figure,
    so no leading constraint can hold through such a split. tests/test_prose.py checks this
    against spaCy's own tokenizer exceptions, so a new rule that breaks it is caught."""
    word = low[start:end]
    return (start > 0 and word[:1].isalnum() and low[start - 1].isalnum()) or (
        end < len(low) and word[-1:].isalnum() and low[end].isalnum())


# A figure as the checks below see it: where it starts and ends, and its kind; None for a
# place where the lexer might find a figure of any kind (`could_match_text`).
_Span = tuple[int, int, str | None]


def _fits(kind: str | None, kinds: frozenset[str]) -> bool:
    return kind is None or kind in kinds


def _in_order(order: Sequence[tuple[bool, tuple[str, ...] | frozenset[str]]], low: str,
              spans: Sequence[_Span]) -> bool:
    """The pattern's required words and figures can be found in the text in its order.

    A match's tokens are in text order, each starts where the one before it ends or later,
    a word token is its word's characters, and a figure's token covers the figure (figures
    are merged into tokens spanning them, `shape.figures_of`). So each element starts
    at or after the end of the one before. Taking, at each step, the occurrence that ends
    first leaves the most room for the rest: if that fails, every choice does. (`spans` are
    sorted and do not overlap.)"""
    bound = 0
    for is_figure, items in order:
        if is_figure:
            assert isinstance(items, frozenset)
            span = next((f for f in spans if f[0] >= bound and _fits(f[2], items)), None)
            if span is None:
                return False
            bound = span[1]
        else:
            ends = [at + len(w) for w in items if (at := low.find(w, bound)) >= 0]
            if not ends:
                return False
            bound = min(ends)
    return True


def _possible(p: _Pattern, text: str, low: str, spans: Sequence[_Span],
              ends_known: bool = True) -> bool:
    if len(p.figures) > len(spans) or not all(
            any(_fits(kind, kinds) for _, _, kind in spans) for kinds in p.figures):
        return False
    # (where a figure ends is known only once the sentence is lexed)
    if ends_known and not all(
        any(_fits(kind, kinds) and _next_word_is(text, end, follow, dash)
            for _, end, kind in spans)
        for kinds, follow, dash in p.adjacent
    ):
        return False
    if not _in_order(p.order, low, spans):
        return False
    if not p.leading:
        return True
    starts = {start: kind for start, _, kind in spans}
    return all(_word_then_figure(text, low, head, between, room, starts, kinds)
               for head, between, room, kinds in p.leading)


def could_match(text: str, quantities: Sequence[Quantity]) -> bool:
    """False only when no rule can match the sentence `text` with these figures."""
    low = text.lower()
    if len(low) != len(text):
        return True  # lower-casing moved the offsets ("İ" is two characters): cannot tell
    rules = _indexed()
    met = rules.vocabulary.met(low)
    spans = sorted((q.start, q.end, q.kind) for q in quantities)
    return any(met & p.words == p.words and _possible(p, text, low, spans)
               for p in rules.candidates(met))


# --- before the sentence is lexed ----------------------------------------------------------

# Where the lexer (numbers.py) can start a figure: at its first digit, or before it at a
# sign, bracket, bound symbol, spread (`+/-  2%`), ratio `x` or leading `.` written within
# a few characters of it, or at the words `twice` and `factor` ("by a factor of 32").
_DIGIT_RUN = re.compile(r"[0-9]+")
_BEFORE_A_FIGURE = frozenset("+-−±(~≈<>=≥≤xX×./")
# How far before its digits a figure's written start can be: a bound symbol and a blank
# (`>= `, numbers.py `_SYMBOL_BEFORE`, whose `$` may also stand before a line end), a
# spread (`+/-` and three blanks, `numbers._spread_start`) and a `.` or `x` (`_figure_at`) make
# 11; every character passed on the way may be the start (a blank too, by that `$`).
_REACH = 12
_WORD_STARTS = ("twice", "factor")


def _figure_starts(text: str, low: str) -> list[int]:
    starts: set[int] = set()
    for m in _DIGIT_RUN.finditer(text):
        digit = k = m.start()
        starts.add(digit)
        while k > 0 and digit - k < _REACH and (text[k - 1] in _BEFORE_A_FIGURE
                                                 or text[k - 1].isspace()):
            k -= 1
            starts.add(k)
    for word in _WORD_STARTS:
        at = low.find(word)
        while at >= 0:
            starts.add(at)
            at = low.find(word, at + 1)
    return sorted(starts)


# Answers kept by the sentence with each run of digits written `0`: the answer depends on
# where runs of digits are, never on the digits, save in the rule words that hold one
# (`v2`): a sentence with one of those is not kept. Quoted replies and a bot's reports
# repeat sentences with new figures.
_TEXT_ANSWERS: dict[str, bool] = {}
_TEXT_ANSWERS_SIZE = 20_000


def could_match_text(text: str) -> bool:
    """False only when no rule can match the sentence `text` whatever figures the lexer
    finds in it: asked before lexing, so a sentence no rule can read costs no lexing.

    Each figure is taken to be of any kind and as short as can be, at every place one can
    start (`_figure_starts`); where a figure ends is not known, so the words right after a
    figure are not asked. Every test then errs towards "could" as `could_match` does with
    the lexed figures (tests/test_prose.py checks the two against each other)."""
    low = text.lower()
    if any(w in low for w in _digit_words()):
        return _could_match_text(text)  # where such a word stands matters: not kept
    key = _DIGIT_RUN.sub("0", text)
    found = _TEXT_ANSWERS.get(key)
    if found is None:
        if len(_TEXT_ANSWERS) >= _TEXT_ANSWERS_SIZE:
            _TEXT_ANSWERS.clear()
        found = _TEXT_ANSWERS[key] = _could_match_text(text)
    return found


@cache
def _digit_words() -> tuple[str, ...]:
    vocabulary = _indexed().vocabulary
    return tuple(sorted(w for ws in vocabulary.sets for w in ws if any(c.isdigit() for c in w)))


def _could_match_text(text: str) -> bool:
    low = text.lower()
    if len(low) != len(text):
        return True
    rules = _indexed()
    met = rules.vocabulary.met(low)
    found = rules.candidates(met)
    if not any(met & p.words == p.words for p in found):
        return False
    spans: list[_Span] = [(start, start + 1, None) for start in _figure_starts(text, low)]
    return any(met & p.words == p.words and _possible(p, text, low, spans, ends_known=False)
               for p in found)
