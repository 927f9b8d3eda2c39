"""The author's own verdict on a table or list of results: "no difference", "within the
noise", "practically identical". The definition makes such a comparison neutral (docs/claims.md:
neutral where the author says there is no difference), though the figures differ in their
last digits:

    No difference discernible from noise:

    Before:             2076 2076 2076 2077 Mb/sec
    After:              2080 2078 2078 2079 Mb/sec

The verdict is read in the paragraph right above the results or right below them (the run
of lines the claim stands in, and one paragraph either side), or in the prose that closes
the results below it, past other tables and one note ("overall no noticeable
differences" under three tables); it covers the claims whose change is small enough to be
the noise the author saw. A large change beside it
is the author's exception ("no difference, except for send-64 at +20%"), left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.model import Claim

# the largest change, in percent, an author's "no difference" covers; a verdict with no
# exception or hedge in its sentence ("the benchmark shows no impact") covers a wider band,
# as reviewers read it, while one that singles out cases ("overall no noticeable
# differences, except ...") leaves the cases it did not name to their figures
NOISE_PCT = 1.5
WIDE_NOISE_PCT = 3.0
_QUALIFIED = re.compile(r"\b(?:except|but|apart\s+from|other\s+than|overall|mostly|generally|largely"
                        r"|in\s+general|slight\w*|some|most)\b", re.I)
_MAX_PARAGRAPH = 12  # lines of a paragraph read for the verdict
_VERDICT = re.compile(
    r"\bno\s+(?:real|noticeable|significant|measurable|visible|discernible|notable|clear|big|"
    r"major|obvious|meaningful|perceptible|appreciable|statistically\s+significant)?\s*"
    r"(?:performance\s+)?(?:difference|change|impact|regression|improvement|gain)s?\b"
    r"|\b(?:indistinguishable|not\s+distinguishable)\b"
    r"|\b(?:in|within|below|under)\s+(?:the\s+)?(?:run-to-run\s+)?noise\b"
    r"|\b(?:pretty\s+much|practically|essentially|basically|virtually|roughly)\s+"
    r"(?:identical|unchanged|the\s+same|equal|on\s+par)\b"
    r"|\b(?:does|did|do)\s*(?:not|n't)\s+(?:help|matter|make\s+(?:a|any)\s+(?:real\s+|performance\s+|noticeable\s+|measurable\s+)?difference)\b"
    r"|\bperformance\s+(?:is|was|stays|remains|stayed|remained)\s+(?:the\s+same|unchanged|identical)\b"
    r"|\b(?:is|are|was|were|be|looks?|seems?|generally|mostly|largely|performance[- ])\s+neutral\b"
    r"|\b(?:very|pretty|quite|rather)\s+similar\b|\babout\s+the\s+same\b|\bon\s+par\b"
    r"|\b(?:very|pretty|quite)\s+alike\b"
    r"|\b(?:can(?:not|'t)|could(?:n't|\s+not)|do(?:n't|\s+not)|did(?:n't|\s+not))\s+see\s+"
    r"(?:much|any|a|real|significant|noticeable)?\s*(?:influence|impact|difference|change)s?\b",
    re.I)
# where the verdict's sentence ends: a question ("no difference?") is no verdict
_SENTENCE_END = re.compile(r"[.?!](?:\s|$)")


def _runs(lines: Sequence[str], at: int) -> tuple[int, int]:
    """The run of non-blank lines holding 0-based line `at`: [start, end)."""
    start = at
    while start > 0 and lines[start - 1].strip():
        start -= 1
    end = at + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return start, end


def _paragraph_above(lines: Sequence[str], start: int) -> str:
    k = start - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    out: list[str] = []
    while k >= 0 and lines[k].strip() and len(out) < _MAX_PARAGRAPH:
        out.append(lines[k])
        k -= 1
    return " ".join(reversed(out))


def _paragraph_below(lines: Sequence[str], end: int) -> str:
    k = end
    while k < len(lines) and not lines[k].strip():
        k += 1
    out: list[str] = []
    while k < len(lines) and lines[k].strip() and len(out) < _MAX_PARAGRAPH:
        out.append(lines[k])
        k += 1
    return " ".join(out)


_MAX_BELOW = 80  # lines read below a run for the verdict on all the results above it
_FIGURES = re.compile(r"\d[\d.,]*\D+\d")  # two figures on a line: a row of results


def _data(run: Sequence[str]) -> bool:
    """A run of results, not of prose: rows of figures, a table's rules and captions."""
    rows = sum(1 for line in run if "|" in line or _FIGURES.search(line) or len(line.strip()) <= 40)
    return rows * 2 >= len(run)


def _verdict_after_results(lines: Sequence[str], end: int) -> float:
    """The author's verdict after the results that follow a run, not only right below it:
    a paragraph closing several tables ("overall no noticeable differences"), or after one
    note on them ("Notice: ... is unstable"), covers every run above it. Reads down over runs
    of results to the second paragraph of prose; the band the verdict covers, else 0."""
    k, prose = end, 0
    while k < len(lines) and k - end < _MAX_BELOW:
        while k < len(lines) and not lines[k].strip():
            k += 1
        start = k
        while k < len(lines) and lines[k].strip() and k - start < _MAX_PARAGRAPH:
            k += 1
        run = lines[start:k]
        if not run or _data(run):
            continue
        band = _no_difference_band(" ".join(run))
        if band:
            return band
        prose += 1
        if prose == 2:
            return 0.0
    return 0.0


def _says_no_difference(text: str) -> bool:
    return _no_difference_band(text) > 0


def _no_difference_band(text: str) -> float:
    """The largest change a verdict of no difference in `text` covers: 0 for none (a
    question is no verdict), WIDE_NOISE_PCT for one whose sentence names no exception."""
    band = 0.0
    for m in _VERDICT.finditer(text):
        end = _SENTENCE_END.search(text, m.end())
        if end is not None and end.group().strip() == "?":
            continue
        start = max(0, *(text.rfind(c, 0, m.start()) + 1 for c in ".!?"))
        sentence = text[start:end.start() if end is not None else len(text)]
        band = max(band, NOISE_PCT if _QUALIFIED.search(sentence) else WIDE_NOISE_PCT)
    return band


def with_verdicts(claims: Sequence[Claim], lines: Sequence[str]) -> list[Claim]:
    """The claims, those of a table, a list or paired runs whose author says right above or
    below them that there is no difference made neutral (see the module); `lines` are the
    body's lines without quote markers, claims' `line` 1-based."""
    out: list[Claim] = []
    said: dict[tuple[int, int], float] = {}
    for c in claims:
        change = c.change_pct
        line = c.line
        if c.source == "prose" or change is None or abs(change) > WIDE_NOISE_PCT \
                or c.direction == "neutral" or line is None or not 0 < line <= len(lines):
            out.append(c)
            continue
        run = _runs(lines, line - 1)
        if run not in said:
            # (the run itself too: a caption ending in `:` over its rows is in it)
            inside = " ".join(lines[run[0]:run[1]])
            said[run] = max(0.0, *(_no_difference_band(t) for t in (
                _paragraph_above(lines, run[0]), _paragraph_below(lines, run[1]),
                inside if len(inside) < 2000 else ""))) or (
                _verdict_after_results(lines, run[1]))
        out.append(replace(c, direction="neutral") if abs(change) <= said[run] else c)
    return out
