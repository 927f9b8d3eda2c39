"""Claims of one message that their conditions do not tell apart, told apart by where they
stand.

A reader names what it sees on a claim's own lines: a row's label, a column's header, a
loop's variable. A mail often prints the same table twice, for two machines, two NICs, two
settings, under a heading each (`Sequential write:` over one table, `Random write:` over
the next; `NIC:` and `dummy:`): the rows of both read `case=4000`. Whatever the readers
found, claims of one message with the same metric and the same condition are siblings no
reader told apart; each gets the heading it stands under as its `section`, at the nearest
level where the siblings' headings differ.

A heading is a short line of words above the claim that introduces what follows: it ends
in a colon, is underlined, or opens a paragraph. The claim's id is not changed: it was
made from what the claim reads and where it was first written, so the same figures quoted
in a reply, under other headings or none, are still one claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.claims.tables.roles import BASELINE, PATCHED, role_of
from analyze.mail.body import strip_quote
from analyze.model import Body, Claim

_REACH = 60  # lines above a claim where its headings may stand
_LEVELS = 4  # headings kept per claim, nearest first
_MAX_HEADING = 100
_UNDERLINE = re.compile(r"^\s*[-=~_*]{3,}\s*$")
_LETTERS = re.compile(r"[A-Za-z]{2}")
_DIGIT = re.compile(r"\d")
_BULLET = re.compile(r"^[\s*#\-+•]+")


def _is_heading(lines: Sequence[str], i: int) -> bool:
    text = lines[i].strip()
    if not (2 <= len(text) <= _MAX_HEADING) or not _LETTERS.search(text) or _UNDERLINE.match(text):
        return False
    if len(text.split()) <= 4 and role_of(text) in (BASELINE, PATCHED):
        return False  # a side's caption (`Before:`), not what both sides ran
    if text.endswith((":", ":-", ":-)")) and len(text.split()) <= 14:
        return True
    if i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]):
        return True
    # a title or a table's column names: a few words, no sentence (`Sequential Write`,
    # `atomic  v3` over `menu  teo`, `v5.4 + patch` over its run)
    return len(_DIGIT.findall(text)) <= 4 and len(text.split()) <= 8 and not text.endswith(
        (".", ",", ";", "?", "!"))


def headings(lines: Sequence[str], line: int) -> list[str]:
    """The headings above body line `line` (1-based; `lines` without quote markers), nearest
    first; a heading of several lines in a row (a table's two header lines) is one, its lines
    joined by ` / `."""
    out: list[str] = []
    run: list[str] = []
    low = max(0, line - 1 - _REACH)
    # (one step past the reach, where nothing is a heading: the last run is joined there)
    for i in range(min(line - 2, len(lines) - 1), low - 2, -1):
        if i >= low and _is_heading(lines, i):
            run.append(" ".join(_BULLET.sub("", lines[i].strip()).rstrip(" :-)").split()))
            continue
        text = " / ".join(t for t in reversed(run) if t)[:80]
        run = []
        if text and text not in out:
            out.append(text)
            if len(out) >= _LEVELS:
                break
    return out


def tell_apart(claims: Sequence[Claim], body: Body) -> list[Claim]:
    """The claims, each group of siblings (same metric, same condition, several) given the
    heading that sets each apart as its `section`."""
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[int]] = {}
    for k, claim in enumerate(claims):
        if claim.line is not None and not any(key == "section" for key, _ in claim.condition):
            groups.setdefault((claim.metric, claim.condition), []).append(k)
    siblings = [members for members in groups.values() if len(members) > 1]
    out = list(claims)
    if not siblings:
        return out  # (most messages: their lines are not read again)
    # the body's lines as its readers see them, quote markers off
    lines = [strip_quote(line, depth) for line, depth in zip(body.lines, body.depths, strict=False)]
    for members in siblings:
        found = {k: headings(lines, claims[k].line or 0) for k in members}
        for level in range(_LEVELS):
            named = {k: h[level] for k, h in found.items() if len(h) > level}
            if len(set(named.values())) > 1:
                for k, heading in named.items():
                    out[k] = replace(out[k], condition=(*out[k].condition, ("section", heading)))
                break
    return out
