"""Claims of one message that their conditions do not tell apart, told apart by where they
stand.

A reader names what it sees on a claim's own lines: a row's label, a column's header, a
loop's variable. A mail often prints the same table twice, for two machines, two NICs, two
settings, under a heading each (`Sequential write:` over one table, `Random write:` over
the next; `NIC:` and `dummy:`): the rows of both read `case=4000`. Whatever the readers
found, claims of one message with the same metric, unit and condition are siblings no
reader told apart; each gets the heading it stands under as its `section`, at the nearest
level where the siblings' headings differ. Siblings that no heading tells apart are told
apart by their own line: the label a row or a labelled line carries before its figures
(`percentile 99.990 =`, `resume_noirq:`) as `row`, what a sentence says its figure is for
(`4% for the l2fwd sample`) as `for`; and claims of one row, one per column
(a baseline column against three variants), by the column: the header word over the
patched figure, else its place in the row, as `column`.

A heading is a short line of words above the claim that introduces what follows: it ends
in a colon, is underlined, or opens a paragraph. The claim's id is not changed: it was
made from what the claim reads and where it was first written, so the same figures quoted
in a reply, under other headings or none, are still one claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from analyze.claims.lexer.units import lookup
from analyze.claims.tables.roles import BASELINE, PATCHED, role_of
from analyze.model import Claim

_REACH = 60  # lines above a claim where its headings may stand
_LEVELS = 4  # headings kept per claim, nearest first
_MAX_HEADING = 100
_UNDERLINE = re.compile(r"^\s*[-=~_*]{3,}\s*$")
_LETTERS = re.compile(r"[A-Za-z]{2}")
_DIGIT = re.compile(r"\d")
_BULLET = re.compile(r"^[\s*#\-+•]+")
# Lines that stand above a claim without saying what it ran: a quote's attribution, a
# header line copied into the body, a sentence that ends and goes on.
_NOT_HEADING = re.compile(
    r"^(?:On\b.*\bwrote|(?:To|Cc|From|Subject|Date|Sent|Reply-To)\s*:)|\w[.!?]\s+[A-Z]|wrote:\s*$")
_FIGURE = re.compile(r"(?<![\w.])(?<![A-Za-z]-)[-+]?\d[\d,]*(?:\.\d+)?")
# what a sentence's figure is for: `4% for the l2fwd sample`, `20% with zero-copy`
_FOR_PHRASE = re.compile(
    r"^\s*(?:%|percent|x|times)?\s*(?:\w+\s+){0,3}?(?:for|on|with|in|under|when|using)\s+"
    r"((?:the\s+)?[^\s.,;:()]+(?:\s+[^\s.,;:()]+){0,5})")
# the key of a figure: `avg=`, `IOPS=`, `p99:`, fio's `50.00th=[`
_KEY_AT_END = re.compile(r"(?<![\w.])([A-Za-z_][\w.-]*|\d[\d.]*[A-Za-z]\w*)\s*[=:]\s*\[?\s*$")
_MAX_LABEL_WORDS = 8
# a list item's label before its colon: `- zero copy(--auto_zc): 42.83M vs. 44.43M`
_NAMED_PERCENT = re.compile(r"\s*([A-Za-z][\w./+-]*(?: [\w./+-]+){0,3}?)\s*[:=]?\s+[-+~\u2212]?\d[\d.,]*\s*%\s*")
_ITEM_LABEL = re.compile(r"\s*(?:[-*+\u2022]\s+)?([A-Za-z][^:.!?=]{0,40}?)\s*:\s")
_MAX_LABEL = 60


def _is_heading(lines: Sequence[str], i: int) -> bool:
    text = lines[i].strip()
    if not (2 <= len(text) <= _MAX_HEADING) or not _LETTERS.search(text) or _UNDERLINE.match(text):
        return False
    if len(text.split()) <= 4 and role_of(text) in (BASELINE, PATCHED):
        return False  # a side's caption (`Before:`), not what both sides ran
    if _NOT_HEADING.search(text):
        return False
    if text.endswith((":", ":-", ":-)")) and len(text.split()) <= 14:
        return True
    if i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]):
        return True
    # a title or a table's column names: a few words, no sentence (`Sequential Write`,
    # `atomic  v3` over `menu  teo`, `v5.4 + patch` over its run), opening its paragraph
    # (a tool's `Added file /dev/dm-0 (submitter 0)` under its command line is output)
    return _titled(text) and _opens_paragraph(lines, i)


_DIGITS = re.compile(r"\d+")
# a figure with a rate's unit: `122M IOPS`, `3.1 Mpps`, `940 Mbit/s`
_MEASURED = re.compile(r"\d\s*[kKMG]?\s*(?:IOPS|iops|pps|[KMG]?bps|[KMGT]i?B/s|[kKMG]?bit/s|req/s|ops/s)\b")
_DECIMAL = re.compile(r"\d[.,]\d")


def _titled(text: str) -> bool:
    # (figures, not digits, are counted: `rd_blksize=16384 and rd_logical_blksize=4096`; a
    # measured figure, with its decimals or a rate's unit, is a tool's output: `Latency is
    # 24.571 usec`, `irq driven   51M IOPS`)
    return len(_DIGITS.findall(text)) <= 4 and _DECIMAL.search(text) is None \
        and len(text.split()) <= 8 and not text.endswith(
        (".", ",", ";", "?", "!")) and not _MEASURED.search(text)


def _opens_paragraph(lines: Sequence[str], i: int) -> bool:
    """Line i opens its paragraph, or stands in a run of titles that does (a table's two
    header lines)."""
    k = i - 1
    while k >= 0 and lines[k].strip():
        above = lines[k].strip()
        if not (len(above) <= _MAX_HEADING and _titled(above)) or i - k > 3:
            return bool(above.endswith(":")) and k == i - 1 and _LETTERS.search(above) is not None
        k -= 1
    return True


def headings(lines: Sequence[str], line: int, rows: frozenset[int] = frozenset()) -> list[str]:
    """The headings above body line `line` (1-based; `lines` without quote markers), nearest
    first; a heading of several lines in a row (a table's two header lines) is one, its lines
    joined by ` / `. `rows`: lines (1-based) a claim was read from, rows of a table or a
    list, which head nothing (`iops:  82k  264k` above `slat (nsec)  2332  3340`)."""
    out: list[str] = []
    run: list[str] = []
    low = max(0, line - 1 - _REACH)
    # an outline's levels: a label less indented than the lines under it heads them
    # (`Setup2: Network Speed: 100Gb/s` over its indented cases and their results)
    indent = _indent(lines[line - 1]) if 0 < line <= len(lines) else 0
    in_outline = False  # (past an outline's label, only a less indented line heads it)
    # (one step past the reach, where nothing is a heading: the last run is joined there)
    for i in range(min(line - 2, len(lines) - 1), low - 2, -1):
        outline = sibling = False
        if i + 1 in rows:
            pass  # (a row of figures ends the run of titles above the claim, as a blank does)
        elif i >= low and lines[i].strip():
            if _indent(lines[i]) < indent:
                indent = _indent(lines[i])
                outline = _outline_label(lines[i])
                in_outline = in_outline or outline
            else:
                sibling = in_outline  # (the case before, at the same level: not this one's)
        if i >= low and not sibling and i + 1 not in rows and (outline or _is_heading(lines, i)):
            run.append(" ".join(_BULLET.sub("", lines[i].strip()).rstrip(" :-)").split()))
            continue
        text = " / ".join(t for t in reversed(run) if t)[:80]
        run = []
        if text and text not in out:
            out.append(text)
            if len(out) >= _LEVELS:
                break
    return out


def _indent(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def _outline_label(line: str) -> bool:
    """A line that labels what is indented under it: short words, no sentence."""
    text = line.strip()
    return (2 <= len(text) <= _MAX_HEADING and _LETTERS.search(text) is not None
            and not _NOT_HEADING.search(text) and len(text.split()) <= 10
            and not text.endswith((".", ",", ";", "?", "!")))


_MAX_TABLE = 200  # lines of a table walked up to its first line
_CORNER = re.compile(r"^\s*([A-Za-z][^|]{0,40}?)\s*\|")


def table_corner(lines: Sequence[str], line: int) -> str | None:
    """The corner cell of the pipe table holding body line `line` (1-based): the text left of
    the first pipe on the table's first line, when it is words (`AMD Epyc 7402`) rather than
    a side's name or a column's."""
    k = line - 1
    if not 0 <= k < len(lines) or lines[k].count("|") < 2:
        return None
    top = k
    while top > 0 and k - top < _MAX_TABLE and (
            lines[top - 1].count("|") >= 2 or _RULE_LINE.match(lines[top - 1])):
        top -= 1
    while top < k and lines[top].count("|") < 2:
        top += 1  # (past the rule over the table)
    m = _CORNER.match(lines[top])
    if m is None or top == k:
        return None
    corner = " ".join(m.group(1).split())
    if not _LETTERS.search(corner) or role_of(corner) in (BASELINE, PATCHED):
        return None
    return corner


_RULE_LINE = re.compile(r"^\s*[-=+.'|_:]{6,}\s*$")


def _figures(line: str) -> list[tuple[int, int, float]]:
    """The figures of a line: start, end and value of each."""
    out = []
    for m in _FIGURE.finditer(line):
        try:
            out.append((m.start(), m.end(), float(m.group().replace(",", ""))))
        except ValueError:
            continue
    return out


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _span_of(line: str, value: float | None, after: int = 0,
             unit: str | None = None) -> tuple[int, int] | None:
    """Where `value` is written in `line` (the first time from `after`; written with
    `unit` after it before any other time: `returned 0 after 0 usecs`)."""
    if value is None:
        return None
    found_at = [(start, end) for start, end, found in _figures(line)
                if start >= after and _near(found, value)]
    if unit:
        for start, end in found_at:
            if line[end:end + len(unit) + 1].lstrip().startswith(unit):
                return start, end
    return found_at[0] if found_at else None


def row_label(line: str, claim: Claim) -> str | None:
    """The label a row or labelled line gives before the claim's first figure, its
    punctuation and arrows off; None for a line that opens with its figure or a label long
    enough to be a sentence."""
    words = _label_words(line, claim)
    label = " ".join(words or ())
    if not words or len(words) > _MAX_LABEL_WORDS or len(label) > _MAX_LABEL:
        return None
    return label


# a token that only counts or stamps (`[`, `203.391465]`, `0000:00:1f.6:`, `0`)
_BARE_TOKEN = re.compile(r"^[\[\](){}\d.:,x/-]*$")


def _distinct_labels(words: dict[int, list[str]]) -> dict[int, str]:
    """Long labels of siblings cut to the words that tell them apart: the words all of them
    share and bare numbers (a log's time stamps) left out (`[ 203.39] e1000e 0000:00:1f.6:
    pci_pm_suspend+0x0/0x170 returned 0 after`: `pci_pm_suspend+0x0/0x170`)."""
    shared = set.intersection(*(set(w) for w in words.values())) if words else set()
    out = {}
    for k, ws in words.items():
        kept = [w for w in ws if w not in shared and not _BARE_TOKEN.match(w)]
        label = " ".join(kept[:_MAX_LABEL_WORDS])[:_MAX_LABEL]
        if label:
            out[k] = label
    return out


def _label_words(line: str, claim: Claim) -> list[str] | None:
    span = _span_of(line, claim.baseline, unit=claim.unit) or _span_of(line, claim.patched, unit=claim.unit)
    if span is None:
        return None
    before = line[:span[0]]
    figures = _figures(before)
    if figures:
        # a row's name and the key of the figure (`clat (usec): min=4, max=9, avg=`: `clat
        # (usec) avg`), not the other figures between them
        tail = before[figures[-1][1]:]
        key = _KEY_AT_END.search(before)
        if key is not None:
            before = _KEY_AT_END.sub("", before[:figures[0][0]]) + " " + key.group(1)
        elif "|" in tail or not tail.strip() or lookup(tail.strip()):
            # the figures before are other columns of the row (`31.171 ns   60.980 ns`)
            before = before[:figures[0][0]]
        # (else the figure before is the label's own: `percentile 99.990 =`)
    raw = before.split()
    if len(raw) > 1 and raw[0].endswith(":"):
        raw = raw[1:]  # the tool's prefix on each line it prints (`sockperf:`)
    words = [w.strip(":=|()[]<>,;") for w in raw]
    words = [w for w in words if w and any(ch.isalnum() for ch in w)]
    while words and len(words) > 1 and role_of(words[0]) in (BASELINE, PATCHED):
        words = words[1:]  # the side a line names (`before : clat ...`) is no row
    return words


def prose_label(claim: Claim) -> str | None:
    """What a sentence says its figure is for: the phrase after it that opens with `for`,
    `on`, `with`... (`4% for the l2fwd sample app`: `the l2fwd sample app`)."""
    value = claim.stated_change_pct if claim.baseline is None else claim.patched
    if value is None and (ratio := dict(claim.condition).get("ratio")):
        # (a ratio stated alone: `6x improvement in drop rate`)
        figures = _figures(ratio)
        value = figures[0][2] if figures else None
    if value is None:
        return None
    text = " ".join(claim.quote.split())
    for _start, end, found in _figures(text):
        if _near(abs(found), abs(value)):
            m = _FOR_PHRASE.match(text[end:])
            return m.group(1) if m else None
    return None


def _header_over(lines: Sequence[str], line: int, span: tuple[int, int]) -> str | None:
    """The word of the table's header line standing over columns `span` of body line `line`
    (1-based): the first line above the row's block of figure rows that has words and no
    figures."""
    i = line - 2
    while i >= 0 and lines[i].strip() and _figures(lines[i]):
        i -= 1
    if i < 0 or not lines[i].strip() or _figures(lines[i]):
        return None
    header = lines[i].expandtabs()
    for m in re.finditer(r"\S+(?: \S+)*", header):
        if m.start() < span[1] and span[0] < m.end():
            return m.group().strip(":|")
    return None


def _column(lines: Sequence[str], claim: Claim) -> tuple[int, str | None] | None:
    """Where the claim's patched figure stands in its row: its place from the left and the
    header word over it."""
    if claim.line is None or not 0 < claim.line <= len(lines):
        return None
    text = lines[claim.line - 1].expandtabs()
    base = _span_of(text, claim.baseline)
    # (the patched figure, else the baseline's: the two sides in two blocks of one layout
    # stand in the same column)
    span = _span_of(text, claim.patched, after=base[1] if base else 0) or base
    if span is None:
        return None
    return span[0], _header_over(lines, claim.line, span)


def _split(out: list[Claim], members: list[int], key: str, names: dict[int, str],
           partial: bool = False) -> list[list[int]]:
    """Give each member its name under `key` when the names tell some apart (or, `partial`,
    when some have a name and others none); the members still tied after it, in groups."""
    if len(set(names.values())) < 2 and not (partial and names and len(names) < len(members)):
        return [members]
    for k, name in names.items():
        out[k] = replace(out[k], condition=(*out[k].condition, (key, name)))
    tied: dict[str | None, list[int]] = {}
    for k in members:
        tied.setdefault(names.get(k), []).append(k)
    return [group for group in tied.values() if len(group) > 1]


def tell_apart(claims: Sequence[Claim], lines: Sequence[str]) -> list[Claim]:
    """The claims, each group of siblings (same metric, unit and condition, several) given
    what sets each apart: the heading it stands under as its `section`, else its row's label, else
    its column. `lines`: the body's lines as its readers see them, quote markers off."""
    claims = _by_quantity(_cornered(claims, lines))
    groups: dict[tuple[str, str | None, tuple[tuple[str, str], ...]], list[int]] = {}
    for k, claim in enumerate(claims):
        if claim.line is not None:
            # (a ratio stated alone is the claim's result kept as its condition, not what it
            # ran: `6x improvement in drop rate` and `4.5x improvement in l2fwd rate` are siblings)
            ran = tuple(kv for kv in claim.condition if kv[0] != "ratio")
            groups.setdefault((claim.metric, claim.canonical_unit, ran), []).append(k)
    siblings = [members for members in groups.values() if len(members) > 1]
    out = list(claims)
    if not siblings:
        return out
    rows = frozenset(c.line for c in claims if c.line is not None)
    for members in siblings:
        # (a reader that named the section already read the nearest heading: siblings it
        # left alike are told apart by a heading further up, as `heading`)
        section = dict(claims[members[0]].condition).get("section")
        found = {k: [h for h in headings(lines, claims[k].line or 0, rows) if h != section]
                 for k in members}
        for group in _by_headings(out, members, found, 0, "section" if section is None else "heading"):
            _tell_apart_in_place(out, group, lines)
    return out


# what a unit counts, said as a measure: a row's IOPS beside its bandwidth
_QUANTITY = {"ops/s": "IOPS", "B/s": "bandwidth", "pps": "packet rate", "bit/s": "bit rate",
             "s": "time", "B": "size", "%": "share", "trans/s": "transaction rate",
             "req/s": "request rate", "cycles": "cycles"}


def _by_quantity(claims: Sequence[Claim]) -> Sequence[Claim]:
    """Claims of one metric and condition in different units (a row's `KIOPS` and its
    `MiB/s`) are different quantities: each gets the one its unit counts as `measure`,
    where no reader named one."""
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], set[str | None]] = {}
    for c in claims:
        groups.setdefault((c.metric, c.condition), set()).add(c.canonical_unit)
    if all(len(units) < 2 for units in groups.values()):
        return claims
    out = []
    for c in claims:
        units = groups[(c.metric, c.condition)]
        if len(units) > 1 and not any(key == "measure" for key, _ in c.condition):
            name = _QUANTITY.get(c.canonical_unit or "", c.unit or "")
            if name:
                c = replace(c, condition=(*c.condition, ("measure", name)))
        out.append(c)
    return out


def _spelling(heading: str) -> str:
    return " ".join(heading.lower().replace("-", " ").replace("_", " ").split())


def _by_headings(out: list[Claim], members: list[int], found: dict[int, list[str]],
                 start: int, key: str) -> list[list[int]]:
    """Siblings told apart by the nearest level of headings where theirs differ, as `key`;
    those one heading leaves alike by the next level up, as `heading` (`block-size 2M:` under
    both `Setup1: ...` and `Setup2: ...`). The groups still tied."""
    for level in range(start, _LEVELS):
        named = {k: found[k][level] for k in members if len(found[k]) > level}
        # (`block size 8k` and `block-size 8k` are one heading typed twice; or some stand
        # under a heading and the others under none: `But when I raise the rate to 200000,
        # I get this:` over the second pair of runs only)
        if len({_spelling(h) for h in named.values()}) > 1 or (named and len(named) < len(members)
                                            and level == min(len(found[k]) for k in members)):
            _split(out, members, key, named, partial=True)
            alike: dict[str | None, list[int]] = {}
            for k in members:
                alike.setdefault(_spelling(named[k]) if k in named else None, []).append(k)
            tied: list[list[int]] = []
            for group in alike.values():
                if len(group) > 1:
                    tied += _by_headings(out, group, found, level + 1, "heading")
            return tied
    return [members]


def _cornered(claims: Sequence[Claim], lines: Sequence[str]) -> Sequence[Claim]:
    """Two tables of one layout, one per machine: the corner cell over each table's row
    labels names what it is of (`AMD Epyc 7402` over one, `BCM2711` over the other), and
    each claim of a message with tables of different corners gets its table's as `table`."""
    corners = {k: c for k, claim in enumerate(claims) if claim.source == "table"
               and (c := table_corner(lines, claim.line or 0))}
    if len(set(corners.values())) < 2:
        return claims
    return [replace(c, condition=(*c.condition, ("table", corners[k]))) if k in corners else c
            for k, c in enumerate(claims)]


def _tell_apart_in_place(out: list[Claim], members: list[int], lines: Sequence[str]) -> None:
    """Siblings under one heading told apart by their rows' labels, then by their columns."""
    labels: dict[int, str] = {}
    long: dict[int, list[str]] = {}
    for k in members:
        claim = out[k]
        line = claim.line or 0
        if claim.source == "prose":
            label = prose_label(claim)
            if label is None and 0 < line <= len(lines):
                # (a sentence under a list item's label: `- page copy: 2.54M vs. 2.6M, +2.3%`;
                # a name and its percentage alone: `XDP_PASS      -1,2%`)
                item = _ITEM_LABEL.match(lines[line - 1]) or _NAMED_PERCENT.fullmatch(lines[line - 1])
                label = " ".join(item.group(1).split()) if item else None
            if label is not None:
                labels[k] = label
        elif 0 < line <= len(lines):
            label = row_label(lines[line - 1], claim)
            if label is not None and label not in dict(claim.condition).values():
                labels[k] = label
            elif label is None and (words := _label_words(lines[line - 1], claim)):
                long[k] = words
    if len(long) > 1:
        labels.update((k, label) for k, label in _distinct_labels(long).items() if k not in labels)
    key = "for" if all(out[k].source == "prose" for k in labels) else "row"
    for group in _split(out, members, key, labels):
        places = {k: place for k in group if (place := _column(lines, out[k])) is not None}
        if len({out[k].line for k in places}) != 1 or len({at for at, _ in places.values()}) < 2:
            continue
        headers = {k: header for k, (_, header) in places.items() if header}
        if len(set(headers.values())) == len(places):
            _split(out, group, "column", headers)
        else:
            order = sorted({at for at, _ in places.values()})
            # the baseline's column is the first: a patched figure's column counts from 2
            _split(out, group, "column", {k: str(order.index(at) + 2) for k, (at, _) in places.items()})
