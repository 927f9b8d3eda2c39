"""The spans of a line that hold digits but no figures, for the number lexer (numbers.py).

Message ids and addresses, URLs, dates and times, MAC and IP addresses, versions named as
such (`Linux 3.17`), commit ids, patch counters (`[PATCH 3/7]`), diffstat counts, hunk
headers and file names (`0001-net-sched.patch`). Each pattern runs only when a literal it
needs is in the line, and each is anchored on a literal or has repetitions that cannot
overlap, so the work stays linear in the line.
"""

from __future__ import annotations

import re

from .first_chars import compile_words

__all__ = ["excluded_spans"]

# Spans that hold digits but no figures. Each pattern is anchored on a literal or has
# repetitions that cannot overlap, so a search over the line stays linear.
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?![a-z])"
)
# IPv4 with a mask or port; octets are checked to be <= 255 (`1.341.700.000` is a number)
_IPV4 = compile_words(r"(?<![0-9.])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?:/[0-9]{1,2}|:[0-9]{1,5})?"
                      r"(?![0-9]|\.[0-9])")
_ADDRESS = compile_words(r"(?<![\w.+=%\-])[\w.+=%\-]+@[\w\-]+(?:\.[\w\-]+)*")
_FILE_NAME = compile_words(r"(?<![\w\-/.])[\w\-/]+(?:\.[\w\-]+)*\.(?:c|h|S|py|sh|patch|diff|txt|"
                           r"rst|json|ya?ml|o|ko|mbox|log|csv|bpf|dts|dtsi)(?!\w)")
# Each pattern runs only when one of its literals is in the line (most lines hold none), at
# least as many times as the pattern needs it (`2015-07-02` two `-`, `1.2.3.4` three `.`).
_EXCLUDED: tuple[tuple[tuple[str, ...], re.Pattern[str], int], ...] = (
    # hunk headers: `@@ -321,8 +321,8 @@`
    (("@@",), compile_words(r"@@ -[0-9]+(?:,[0-9]+)? \+[0-9]+(?:,[0-9]+)? @@"), 1),
    (("://",), compile_words(r"(?:https?|ftp|git|ssh)://[^\s<>\"')\]]*"), 1),
    # ISO and slashed dates with a four-digit year, optionally with a time
    (("-",), compile_words(r"(?<![0-9])[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
                           r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)?(?![0-9])"), 2),
    # (`On 07/02/15 09:07, Eric Dumazet wrote:` — attribution lines use a two-digit year)
    (("/",), compile_words(r"(?<![0-9/])(?:[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}|[0-9]{4}/[0-9]{1,2}/"
                           r"[0-9]{1,2}|[0-9]{2}/[0-9]{2}/[0-9]{2})(?![0-9/])"), 2),
    # times, MAC and IPv6 addresses: `07:07:27 +0200`, `00:1b:21:3a:4f:5c`, `fe80::1`
    ((":",), compile_words(r"(?<![\w:])[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{0,4}){2,}(?:\.[0-9]+)?"
                           r"(?![\w:])(?:\s?[+-][0-9]{4}(?![0-9]))?"), 2),
    ((":",), compile_words(r"(?<![\w:.])[0-9]{1,2}:[0-9]{2}(?![\w:])(?:\s?[+-][0-9]{4}(?![0-9]))?"), 1),
    # dates with month names: `Jul 2015`, `3 Jul 2015`, `July 3, 2015`
    (("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
     compile_words(rf"(?<!\w)(?:[0-9]{{1,2}}(?:st|nd|rd|th)?\s)?{_MONTH}\.?"
                   r"(?:\s{1,2}[0-9]{1,2}(?:st|nd|rd|th)?(?![0-9]),?)?"
                   r"(?:\s[0-9]{2}:[0-9]{2}:[0-9]{2})?(?:\s[0-9]{4}(?![0-9]))?"), 1),
    # versions named as such: `Linux 3.17`, `kernel 4.19.0-rc1`, `gcc 13.2`
    (("inux", "ernel", "ersion", "gcc", "GCC", "clang", "LLVM", "llvm", "glibc", "iproute2",
      "ethtool", "ython", "elease", "stable"),
     compile_words(r"(?<!\w)(?:[Ll]inux|[Kk]ernels?|[Vv]ersion|gcc|GCC|clang|LLVM|llvm|glibc|"
                   r"iproute2|ethtool|[Pp]ython|[Rr]elease|stable)[\s\-]v?[0-9]+(?:\.[0-9]+)+"
                   r"(?:-rc[0-9]+)?(?:[-+~][\w.]+)?"), 1),
    # commit ids after `commit` / `Fixes:`
    (("ommit", "Fixes:"), compile_words(r"(?<!\w)(?:[Cc]ommit|Fixes:)\s[0-9a-f]{6,40}(?!\w)"), 1),
    # the kernel log's time stamps: `[  167.667701] skbuff: ...` is when, never how long
    (("]",), compile_words(r"\[\s*[0-9]{1,7}\.[0-9]{6}\]"), 1),
    # patch counters in subjects: `[PATCH net-next 3/7]`
    (("]",), compile_words(r"(?<![\w/])[0-9]{1,4}/[0-9]{1,4}(?=\])"), 1),
    # diffstat: `3 files changed, 10 insertions(+), 2 deletions(-)` and ` dev.c | 12 ++--`
    ((" changed", "insertion", "deletion"),
     compile_words(r"(?<!\w)[0-9]+ files? changed|(?<!\w)[0-9]+ insertions?\(\+\)|"
                   r"(?<!\w)[0-9]+ deletions?\(-\)"), 1),
    (("|",), compile_words(r"\|\s{1,8}(?:[0-9]+ [+\-]+\s*$|Bin [0-9]+ -> [0-9]+ bytes)"), 1),
    # file names with a digit: `0001-net-sched.patch`, `test_bpf2.c`
    ((".",), _FILE_NAME, 1),
    ((".",), _IPV4, 3),
)


# Each pattern's gate: its one literal, its few literals, or a search for any of many. The
# file-name pattern tries a match at every word; most lines hold no file extension at all.
_FILE_EXTENSION = re.compile(r"\.(?:c|h|S|py|sh|patch|diff|txt|rst|json|ya?ml|o|ko|mbox|log|csv"
                             r"|bpf|dts|dtsi)(?!\w)")
_GATES: tuple[tuple[str | tuple[str, ...] | re.Pattern[str], int, re.Pattern[str]], ...] = tuple(
    (_FILE_EXTENSION if pattern is _FILE_NAME else
     needles[0] if len(needles) == 1 else
     needles if len(needles) <= 3 else re.compile("|".join(map(re.escape, needles))),
     at_least, pattern)
    for needles, pattern, at_least in _EXCLUDED
)
_ANY_DIGIT = re.compile(r"[0-9]")


def excluded_spans(line: str) -> list[tuple[int, int]]:
    """Sorted, merged spans of the line that hold no figures."""
    spans: list[tuple[int, int]] = []
    for gate, at_least, pattern in _GATES:
        if isinstance(gate, str):
            if (gate not in line) if at_least == 1 else (line.count(gate) < at_least):
                continue
        elif isinstance(gate, tuple):  # a few literals: substring tests beat a regex
            if not any(needle in line for needle in gate):
                continue
        elif gate.search(line) is None:
            continue
        for m in pattern.finditer(line):
            if _ANY_DIGIT.search(line, m.start(), m.end()) is None:
                continue
            if pattern is _IPV4 and not _is_ipv4(m.group()):
                continue
            spans.append(m.span())
    if "@" in line:
        # mail addresses and Message-IDs: `1435842455-30501-7-git-send-email-x@google.com`;
        # the look-behind starts a match only at the start of a token, which keeps it linear
        spans.extend(m.span() for m in _ADDRESS.finditer(line))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _is_ipv4(text: str) -> bool:
    octets = re.split(r"[/:]", text)[0].split(".")
    return all(int(o) <= 255 for o in octets)
