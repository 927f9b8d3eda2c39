"""Which benchmark a claim's figures came from: `netperf`, `fio`, `will-it-scale`, ...

The kernel test robot names each row of its tables by its benchmark (`netperf.Throughput_Mbps`,
`stress-ng.sock.ops_per_sec`); an author names it somewhere near the figures ("Results with
netperf TCP_STREAM:" above a before/after list). Issue 23 compares the two: a claim and a
robot finding disagree only within one benchmark family. A claim's benchmark is the first
named, looking in order at:

1. the claim itself: its quoted line and its condition;
2. the lines just above it (a heading, the sentence that introduces a table), nearest first;
3. the subject;
4. the whole body, when it names exactly one benchmark.

Names are folded to one spelling per family (`super_netperf` and netperf's `TCP_RR` test are
netperf; `iperf3` is iperf; `will_it_scale` is will-it-scale).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import lru_cache

from analyze.model import Claim, Message

# (pattern, family), matched in the lower-cased text: one case-sensitive pass over a copy
# made in C is 25 times faster than Python's case-insensitive alternation (80 µs, not 2 ms, a
# 2,000-line body)
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"super_netperf|netperf", "netperf"),
    (r"sockperf", "sockperf"),
    (r"iperf3?", "iperf"),
    (r"neper", "neper"),
    (r"uperf", "uperf"),
    (r"qperf", "qperf"),
    (r"memtier(?:_benchmark)?", "memtier"),
    (r"redis-benchmark", "redis-benchmark"),
    (r"wrk2?", "wrk"),
    (r"fio", "fio"),
    (r"stress-ng", "stress-ng"),
    (r"will[-_ ]it[-_ ]scale", "will-it-scale"),
    (r"vm-scalability", "vm-scalability"),
    (r"hackbench", "hackbench"),
    (r"schbench", "schbench"),
    (r"tbench", "tbench"),
    (r"dbench", "dbench"),
    (r"sysbench", "sysbench"),
    (r"pgbench", "pgbench"),
    (r"unixbench", "unixbench"),
    (r"lmbench", "lmbench"),
    (r"pktgen", "pktgen"),
    (r"xdp-bench", "xdp-bench"),
    (r"xdpsock", "xdpsock"),
    (r"trafgen", "trafgen"),
    (r"udpgso_bench(?:_tx|_rx)?", "udpgso_bench"),
    (r"perf bench", "perf-bench"),
    (r"fs_?mark", "fsmark"),
    (r"aim[79]", "aim"),
    (r"reaim", "reaim"),
)
# One alternation without groups: a named group for each family took Python's regex off its
# fast scan for the first character (790 µs a body, not 63). The family is looked up in the
# few names found.
_ANY = re.compile("|".join(p for p, _ in _FAMILIES))
_EACH = tuple((re.compile(p), family) for p, family in _FAMILIES)
# netperf's tests, in its own capitals (neper's `tcp_rr` is another program), in the text as
# written
_NETPERF_TESTS = re.compile(r"(?:TCP_(?:STREAM|RR|CRR|MAERTS|SENDFILE)|UDP_(?:STREAM|RR))\b")
_ABOVE = 12  # lines above a claim that may introduce it
_BODY_LINES = 2000  # a body's whole-text look is bounded: mail is written by strangers
_CHARS = 200_000  # and so is every text looked at, whatever its lines' length


def _word(text: str, start: int, end: int) -> bool:
    """A name stands alone: no letter, digit, `_` or `-` joins it (`prefio`, `fio-like`)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "_-" or after.isalnum() or after in "_-")


def _mentions(text: str) -> list[tuple[int, str]]:
    """(line, family) of every benchmark `text` names, in order. Lines are counted as the
    matches go (a count from the start for each would be quadratic in a mail repeating a
    name); the text is bounded by the callers."""
    low = text.lower()  # (the same lines: lower() keeps every newline)
    out = list(_counted(low, (m for m in _ANY.finditer(low) if _word(low, m.start(), m.end())),
                        _family_of))
    if "P_" in text:  # (a substring test first: the regex has no fast scan)
        out += _counted(text, (m for m in _NETPERF_TESTS.finditer(text)
                               if _word(text, m.start(), m.end())), lambda _: "netperf")
    return sorted(out)


def _counted(text: str, matches: Iterable[re.Match[str]],
             name: Callable[[str], str]) -> Iterator[tuple[int, str]]:
    line, last = 0, 0
    for m in matches:
        line += text.count("\n", last, m.start())
        last = m.start()
        yield line, name(m.group())


@lru_cache(maxsize=256)
def _family_of(name: str) -> str:
    return next(family for pattern, family in _EACH if pattern.fullmatch(name))


def benchmark_named(text: str) -> str | None:
    """The family of the first benchmark `text` names, or None."""
    found = _mentions(text)
    return found[0][1] if found else None


def families_named(text: str) -> set[str]:
    return {name for _, name in _mentions(text)}


def _bounded(text: str) -> str:
    return text[:_CHARS]


def family(name: str) -> str:
    """A benchmark's name (the robot's `will-it-scale`, `netperf`) folded as claims fold it;
    a name we do not know is kept, lower-case, `_` as `-`."""
    return benchmark_named(name) or name.casefold().replace("_", "-")


def with_benchmarks(claims: tuple[Claim, ...], message: Message) -> tuple[Claim, ...]:
    """The claims, each with the benchmark its figures came from (None when the mail does
    not say)."""
    if not claims:
        return claims
    lines = message.body.lines
    whole: list[str | None] = []  # the body's one benchmark, looked up once, when needed

    def of(claim: Claim) -> str | None:
        said = benchmark_named(_bounded(" ".join([claim.quote,
                                                  *(f"{k} {v}" for k, v in claim.condition)])))
        if said:
            return said
        if claim.line is not None and claim.line > 1:
            # the nearest mention in the lines above the claim's
            above = _mentions(_bounded(
                "\n".join(lines[max(0, claim.line - 1 - _ABOVE):claim.line - 1])))
            if above:
                return above[-1][1]
        said = benchmark_named(_bounded(message.subject.name))
        if said:
            return said
        if not whole:
            named = families_named(_bounded("\n".join(lines[:_BODY_LINES])))
            whole.append(named.pop() if len(named) == 1 else None)
        return whole[0]

    out = []
    for claim in claims:
        # a quoted claim is compared with nothing (its author's mail says where it came from)
        named = None if claim.quoted else of(claim)
        out.append(claim if named is None else replace(claim, benchmark=named))
    return tuple(out)
