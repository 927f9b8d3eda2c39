"""Sentences of a mail block that may hold a performance claim (analyze/claims/prose/read.py reads them).

Wrapped lines are joined into paragraphs (blank lines, list items, table rows, commands,
trailers and indented output break them), paragraphs are cut into sentences, and only a
sentence holding a figure (`find_quantities`) and a word of change or comparison, and that
some rule could read whatever figures it holds (`gate.could_match_text`, asked before
the sentence is lexed), is kept. This is plain regex work: spaCy is loaded by shape.py only
when a candidate exists.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from analyze.claims.lexer.first_chars import compile_words
from analyze.claims.lexer.numbers import find_quantities
from analyze.claims.lexer.quantity import Quantity

from .gate import could_match_text

# A claim sentence is short; a longer "sentence" is a run of lines with no full stop (command
# output, a pasted log). Skipping it keeps spaCy's cost bounded on hostile input.
MAX_SENTENCE = 1200


@dataclass(frozen=True, slots=True)
class Paragraph:
    """Wrapped lines joined with single spaces, remembering where each line began."""

    text: str
    starts: tuple[int, ...]  # offset in `text` where each line begins
    indexes: tuple[int, ...]  # the line index of each of those lines

    def line_at(self, offset: int) -> int:
        """The index of the line holding the character at `offset` of `text`."""
        return self.indexes[max(0, bisect.bisect_right(self.starts, offset) - 1)]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence worth reading with spaCy: its figures, and the sentence before it."""

    text: str
    offset: int  # where the sentence starts in its paragraph
    paragraph: Paragraph
    quantities: tuple[Quantity, ...]
    # The sentence before, in the same paragraph: it often names the test the change is of
    # ("My setup is 1000 concurrent TCP_CRR flows ... There I see a 3% regression").
    previous: str = ""


# --- paragraphs and sentences -------------------------------------------------------------

_LIST_ITEM = re.compile(r"\s*(?:[-*+•]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+\S")
# pipes, tabs or wide gaps: a table row or aligned output, which the table readers read
# (a wide gap after a comma aligns a sentence's last part, `2.6M(BATCH_IO),   +2.3%`: no cell)
_TABLE_LIKE = re.compile(r"\|[^|]*\||\t|[^\s,] {3,}\S")
_COMMAND = re.compile(r"\s*(?:[$#] |\[.{0,40}\][$#] |diff --git |@@ |--- |\+\+\+ )")
_TRAILER = re.compile(r"[A-Z][A-Za-z-]{1,40}-by: ")
_INDENTED = re.compile(r"(?: {4}|\t)[ \t]*\S")
_BLANKS = re.compile(r"[ \t]{2,}|\t")
# `- page copy:\t\t\t37.77M vs. 42.40M, +12%`: a label's colon and the gap that aligns what
# follows it with the lines around, in a list of sentences; a table row has gaps between
# its cells too
_ALIGNED_LABEL = re.compile(r"\s*[^|\t:]{1,60}:[ \t]+(?=\S)")


def _table_like(line: str) -> bool:
    """A table row or aligned output (pipes, tabs or wide gaps between cells), not a
    labelled sentence aligned after its colon."""
    if _TABLE_LIKE.search(line) is None:
        return False
    label = _ALIGNED_LABEL.match(line)
    return label is None or _TABLE_LIKE.search(line, label.end()) is not None


_LAST: list[tuple[Sequence[str], list[Paragraph]]] = []  # the last block's, by identity


def _paragraphs(lines: Sequence[str]) -> list[Paragraph]:
    """Wrapped lines joined: blank lines, list items, table rows, commands and indented
    lines break paragraphs. Table rows and commands are left to the other readers. (Both
    prose readers ask it of each block in turn: the last block's answer is kept.)"""
    if not isinstance(lines, tuple):
        return _split_paragraphs(lines)  # (a list may change between calls: not kept)
    if _LAST and _LAST[0][0] is lines:
        return _LAST[0][1]
    found = _split_paragraphs(lines)
    _LAST[:] = [(lines, found)]
    return found


def _split_paragraphs(lines: Sequence[str]) -> list[Paragraph]:
    out: list[Paragraph] = []
    parts: list[str] = []
    starts: list[int] = []
    indexes: list[int] = []
    size = 0
    for i, raw in enumerate(lines):
        line = raw.strip()
        # (each pattern is tried only when the literal it needs is there: a command starts
        # with one of `$#[d@-+`, a trailer holds `-by: `, a table row a pipe, tab or gap, a
        # list item a bullet, a digit, `(`, or a small letter before `.` or `)`)
        if not line or line.startswith(">") or (line[0] in "$#[d@-+" and _COMMAND.match(raw)) \
                or ("-by: " in line and _TRAILER.match(line)) \
                or (("|" in line or "\t" in line or "   " in line) and _table_like(line)):
            if parts:
                out.append(Paragraph(" ".join(parts), tuple(starts), tuple(indexes)))
                parts, starts, indexes, size = [], [], [], 0
            continue
        indented = raw.startswith(("    ", "\t")) and _INDENTED.match(raw) is not None
        if "  " in line or "\t" in line:
            # (a typist's double blank or an aligning tab inside a sentence is one blank to
            # its reader: `drops from  97% to 14%`; the word matcher sees each as a token)
            line = _BLANKS.sub(" ", line)
        first = line[0]
        if parts and (indented or (
                (first in "-*+•(" or first.isdigit() or (first.islower() and line[1:2] in ".)"))
                and _LIST_ITEM.match(raw) is not None)):
            out.append(Paragraph(" ".join(parts), tuple(starts), tuple(indexes)))
            parts, starts, indexes, size = [], [], [], 0
        parts.append(line)
        starts.append(size)
        indexes.append(i)
        size += len(line) + 1
        if indented:  # indented output: one line is one paragraph
            out.append(Paragraph(" ".join(parts), tuple(starts), tuple(indexes)))
            parts, starts, indexes, size = [], [], [], 0
    if parts:
        out.append(Paragraph(" ".join(parts), tuple(starts), tuple(indexes)))
    return out


_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "etc", "approx", "fig", "cf", "resp", "ca", "v.s",
                            "mr", "dr", "no", "nr", "al"})


def _sentences(text: str) -> list[tuple[int, int]]:
    """Cheap sentence bounds: a full stop, ! or ? before a space, unless it ends an
    abbreviation or an initial (`vs. 5 Mpps`, `e.g. 64-byte`, `J. Doe`). Mail often starts a
    sentence in lower case, so case is no hint."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        word = text[max(start, m.start() - 8):m.start()].rsplit(" ", 1)[-1].lower()
        if text[m.start()] == "." and (word in _ABBREVIATIONS or len(word) == 1):
            continue
        bounds.append((start, m.end()))
        start = m.end()
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds


# A figure: a digit, or a ratio in words. Searched as two patterns: a digit is found by a
# fast scan, and the words behind their first letters (first_chars.py); as one alternation
# every branch is tried at every position.
_DIGIT = re.compile(r"\d")
_RATIO_WORD = compile_words(r"\b(?:twice|thrice|doubl|tripl|halv)", re.IGNORECASE)
# A word of change or comparison, or a percentage or ratio written as one.
_CUE_WORDS = compile_words(
    r"\b(?:improv|regress|increas|decreas|reduc|lower|rais|boost|speed|degrad"
    r"|doubl|tripl|halv|accelerat|penalt|compar|shrink|slow|fast|quick|gain|drop)"
    r"|\b(?:before|after|from|without|w/o|vs|versus|instead|rather|relative|against|now|more"
    r"|less|higher|better|worse|twice|thrice|times|up|down|cut|cuts|save[sd]?|saving|hurts?"
    r"|grows?|grew|rise|rises|rose|fell|falls?|wins?|hit|lose|loses)\b|\((?:was|previously)\b"
    # "are at 180-195MB/sec with this fix": the result of the patch, named as such
    r"|\bwith\s+(?:(?:the|this|these|my|his|her|their|your)\s+)?(?:patch|patches|fix|change"
    r"|series|patchset|commit)",
    re.IGNORECASE,
)
_DIGIT_X = re.compile(r"\d\s*x\b", re.IGNORECASE)  # `2x`, `3 X`


def _has_figure(text: str) -> bool:
    return _DIGIT.search(text) is not None or _RATIO_WORD.search(text) is not None


def _has_cue(text: str) -> bool:
    return ("%" in text or "×" in text or _CUE_WORDS.search(text) is not None
            or _DIGIT_X.search(text) is not None)


def candidates(lines: Sequence[str]) -> list[Candidate]:
    """The sentences of `lines` that hold a figure and a word of change or comparison; a
    question is skipped (it asks for figures, it does not claim them)."""
    out: list[Candidate] = []
    for para in _paragraphs(lines):
        if not _has_figure(para.text):
            continue  # no sentence of it can be kept (and each is only ever the next's context)
        previous = ""
        for start, end in _sentences(para.text):
            raw = para.text[start:end]
            text = raw.strip()
            before, previous = previous, (text if len(text) <= MAX_SENTENCE else "")
            if not text or len(text) > MAX_SENTENCE or text.endswith("?"):
                continue
            if not _has_figure(text) or not _has_cue(text) or not could_match_text(text):
                continue  # (the gate first: a sentence no rule can read is never lexed)
            quantities = tuple(find_quantities(text))
            if not quantities and not _WORD_RATIO.search(text):
                continue
            offset = start + (len(raw) - len(raw.lstrip()))
            out.append(Candidate(text, offset, para, quantities, before))
    return out


_WORD_RATIO = re.compile(r"\b(?:twice|thrice|doubl\w*|tripl\w*|halv\w*)\b", re.IGNORECASE)
