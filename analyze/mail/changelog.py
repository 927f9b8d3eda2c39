"""The version-history notes a cover letter or a patch carries (issue 23).

Authors write them in a few shapes (real posts in ../shared/corpus/real), often below the `---`
that closes a patch's commit message:

    Changes in v3:            b4's, with `- Link to v2: https://lore...` as its last bullet
    Changes since v2          stacked, newest first: `since v3`, `since v2`, `since v1`
    Changes v2 -> v3:  v1->v2:  V1 -> V2  RFC v2 -> v3:  RFC -> RFC v2:
    From v1[0]:               with a numbered reference below
    v3:  V3:                  a heading, or one line: `v2: reworded the commit message`
    Changelog:                a heading over version sub-headings, or over bullets

A section runs over bullets, indented and wrapped lines until a blank line followed by a line
that is no bullet, the next heading, a `---` line, a diffstat, a trailer or the `-- `
signature. Only unquoted lines are read: a changelog quoted in a reply is the quoted mail's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_READ = 400  # unquoted lines looked at; a changelog sits near the top or below `---`
MAX_KEPT = 200  # lines kept from one mail
_MAX_HEADING = 300  # a heading (one-line form included) is short; a longer line is prose
_MAX_TEXT = 1000  # characters kept of one line


@dataclass(frozen=True, slots=True)
class ChangelogLine:
    """One note of a version history, as written (surrounding whitespace removed)."""

    version: int | None  # the version the change is in; None: the mail's own version
    text: str


_V = r"(?:v|version\s?)"
_FROM_SIDE = rf"(?:rfc\s?)?(?:{_V}\d{{1,3}}|rfc)(?:\s?\[\d{{1,3}}\])?"
_PREVIOUS = r"(?:previous|last|prior)\s(?:version|revision|posting|series|submission|spin|iteration)"
_HEADING = re.compile(
    r"\s{0,8}(?:[-*+\u2022]\s{1,4})?(?:"
    # `Changes v2 -> v3:`, `v1->v2:`, `RFC -> RFC v2`: the changes are in the later one
    r"(?:(?:changes|changelog|change\s?log)\s{0,3}(?:from|since|in|for)?\s{0,3}:?\s{0,3})?"
    rf"{_FROM_SIDE}\s{{0,3}}(?:->|-->|=>|\u2192|to\b|\.\.)\s{{0,3}}(?:rfc\s?)?{_V}(?P<to>\d{{1,3}})"
    # `Changes since v2`, `Changes from v1:`, `From v1[0]:`, `From RFC[1]:`
    r"|(?:(?:changes|changelog|change\s?log)\s{1,3})?(?:since|from)\s{1,3}(?:the\s)?"
    rf"(?:(?:rfc\s?)?{_V}(?P<since>\d{{1,3}})|(?P<rfc>rfc)|(?P<previous>{_PREVIOUS}))"
    r"(?:\s?\[\d{1,3}\])?"
    # `Changes in v3:`, `Changelog v2:`, `v2 changes:`
    r"|(?:changes|changelog|change\s?log|changes\smade)(?:\s{1,3}(?:in|for))?\s{1,3}"
    rf"(?:rfc\s?)?{_V}(?P<in>\d{{1,3}})"
    r"|(?:rfc\s?)?v(?P<in2>\d{1,3})\s(?:changes|changelog)"
    # `v3:` and the one-line `v2: reworded the commit message` (the colon is required below)
    r"|(?:rfc\s?)?v(?P<bare>\d{1,3})"
    # `Changelog:` over sub-headings; a bare `Changes:` is left out, too often a patch's own list
    r"|(?P<generic>changelog|change\s?log|(?:revision|version)\s(?:history|log))"
    r")\s{0,3}(?P<colon>:\s*(?P<rest>.*?))?\s*",
    re.I,
)
_OPENERS = frozenset("cCrRvVsSfF")
# where the loop below stops (the signature, the diff), found with str.find: a regex over a
# whole patch cost more than the rest of the reading
_STOPS = ("\n-- \n", "\n--\n", "\ndiff --git ", "\nIndex: ")
_URL_START = re.compile(r"<?https?://", re.I)
# The one-line form's note starts with a word: `v1: 5.2 Mpps` labels a figure, not a change.
_NOTE_START = re.compile(r"[^\W\d_]|[(\[\"'`]")
_BULLET = re.compile(r"\s*(?:[-*+\u2022o]\s|\d{1,2}[.)]\s|\(\d{1,2}\)\s|\[\d{1,2}\]\s)")
_RULE = re.compile(r"-{3,}")
_DIFFSTAT = re.compile(r"\s*\S+\s+\|\s+(?:\d{1,18}|Bin)\b|\s*\d{1,18} files? changed\b")
# Trailers end a history written above them; `Link:` stays (nd-031 links each older version).
_TRAILER = re.compile(
    r"(?:[A-Za-z][A-Za-z-]{0,40}-by|Fixes|Cc|Closes|base-commit|change-id|prerequisite-[\w-]+):",
    re.I,
)
_SHORTLOG = re.compile(r"\S.{0,80}\(\d{1,4}\):")
# b4's template bullets (`- EDITME: describe what is new...`) say nothing the author wrote.
_PLACEHOLDER = "EDITME"


@dataclass(slots=True)
class _Section:
    kind: str  # "in" (version known or None), "since" (from the version written)
    number: int | None
    lines: list[str]


def changelog_lines(body_lines: Sequence[str], depths: Sequence[int]) -> tuple[ChangelogLine, ...]:
    """The version-history lines of one mail, in order, with the version each change is in."""
    # No heading is read past the signature or the diff, found with str.find before any line
    # is looked at in Python: a patch's diff is most of its lines.
    text = "\n" + "\n".join(body_lines[:MAX_READ * 4]) + "\n"
    end = min((i for i in map(text.find, _STOPS) if i >= 0), default=len(text))
    body_lines = body_lines[:text.count("\n", 1, end) + 1]
    sections: list[_Section] = []
    current: _Section | None = None
    blank_before = False
    kept = 0
    read = 0
    for line, depth in zip(body_lines, depths, strict=False):
        if depth:
            current = None  # a quote interrupts the author's list
            continue
        read += 1
        if read > MAX_READ or kept >= MAX_KEPT:
            break
        if line in ("-- ", "--") or line.startswith(("diff --git ", "Index: ")):
            break  # the signature or the diff: no history below
        stripped = line.strip()
        if not stripped:
            blank_before = current is not None
            continue
        # every heading opens with c, r, v, s or f (changes, rfc, v2, version, since, from)
        # after blanks and a bullet: a string test spares the heading's regex most lines
        opener = line.lstrip(" \t-*+\u2022")[:1]
        heading = (_heading(line) if opener in _OPENERS and len(line) <= _MAX_HEADING
                   else None)
        if heading is not None:
            current, note = heading
            sections.append(current)
            blank_before = False
            if note:
                current.lines.append(note[:_MAX_TEXT])
                kept += 1
            continue
        if current is None:
            continue
        if _ends_section(line, stripped) or (blank_before and not _BULLET.match(line)):
            current = None
            continue
        blank_before = False
        if _PLACEHOLDER in stripped:
            continue
        current.lines.append(stripped[:_MAX_TEXT])
        kept += 1
    return _versioned(sections)


def _heading(line: str) -> tuple[_Section, str] | None:
    """The section a heading line opens and the note written on it (one-line form), or None."""
    match = _HEADING.fullmatch(line)
    if match is None:
        return None
    rest = match["rest"] or ""
    if match["bare"] is not None:
        if match["colon"] is None or (rest and not _NOTE_START.match(rest)):
            return None
        if _URL_START.match(rest):
            # `v7 : https://lore...` points at the older version, like b4's `Link to v7:`
            # under the newer version's heading: a note of this mail's version.
            return _Section("in", None, []), line.strip()
        return _Section("in", int(match["bare"]), []), rest
    if match["to"] is not None:
        return _Section("in", int(match["to"]), []), rest
    if match["in"] is not None or match["in2"] is not None:
        return _Section("in", int(match["in"] or match["in2"]), []), rest
    if match["since"] is not None:
        return _Section("since", int(match["since"]), []), rest
    if match["rfc"] is not None:
        return _Section("since", 0, []), rest  # an RFC came before v1
    return _Section("in", None, []), rest  # `since the previous version`, `Changelog:`


def _ends_section(line: str, stripped: str) -> bool:
    return bool(
        _RULE.fullmatch(stripped)
        or _DIFFSTAT.match(line)
        or _TRAILER.match(stripped)
        or _SHORTLOG.fullmatch(stripped)
    )


def _versioned(sections: Sequence[_Section]) -> tuple[ChangelogLine, ...]:
    """Lines with their versions. A `since vN` heading does not say which version its changes
    are in: the newest (highest N) is this mail's own (None); stacked older ones, written
    newest first (`since v3`, `since v2`, `since v1` in a v4), are each in vN+1."""
    since = [s.number for s in sections if s.kind == "since" and s.number is not None]
    newest = max(since, default=None)
    out: list[ChangelogLine] = []
    for section in sections:
        version = section.number
        if section.kind == "since" and version is not None:
            version = None if version == newest else version + 1
        out.extend(ChangelogLine(version, text) for text in section.lines)
    return tuple(out[:MAX_KEPT])
