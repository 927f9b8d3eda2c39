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
from dataclasses import replace

from analyze.model import Claim, Message

# (pattern, family). Case-insensitive except netperf's test names, written in capitals
# (neper's `tcp_rr` is another program).
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"(?i:super_netperf|netperf)|\b(?:TCP_(?:STREAM|RR|CRR|MAERTS|SENDFILE)|UDP_(?:STREAM|RR))\b",
     "netperf"),
    (r"(?i:sockperf)", "sockperf"),
    (r"(?i:iperf3?)", "iperf"),
    (r"(?i:neper)", "neper"),
    (r"(?i:uperf)", "uperf"),
    (r"(?i:qperf)", "qperf"),
    (r"(?i:memtier(?:_benchmark)?)", "memtier"),
    (r"(?i:redis-benchmark)", "redis-benchmark"),
    (r"(?i:wrk2?)", "wrk"),
    (r"(?i:fio)", "fio"),
    (r"(?i:stress-ng)", "stress-ng"),
    (r"(?i:will[-_ ]it[-_ ]scale)", "will-it-scale"),
    (r"(?i:vm-scalability)", "vm-scalability"),
    (r"(?i:hackbench)", "hackbench"),
    (r"(?i:schbench)", "schbench"),
    (r"(?i:tbench)", "tbench"),
    (r"(?i:dbench)", "dbench"),
    (r"(?i:sysbench)", "sysbench"),
    (r"(?i:pgbench)", "pgbench"),
    (r"(?i:unixbench)", "unixbench"),
    (r"(?i:lmbench)", "lmbench"),
    (r"(?i:pktgen)", "pktgen"),
    (r"(?i:xdp-bench)", "xdp-bench"),
    (r"(?i:xdpsock)", "xdpsock"),
    (r"(?i:trafgen)", "trafgen"),
    (r"(?i:udpgso_bench(?:_tx|_rx)?)", "udpgso_bench"),
    (r"(?i:perf bench)", "perf-bench"),
    (r"(?i:fs_?mark)", "fsmark"),
    (r"(?i:aim[79])", "aim"),
    (r"(?i:reaim)", "reaim"),
)
# one pattern, each family a named group: the leftmost mention wins in one pass
_ANY = re.compile("|".join(f"(?<![\\w-])(?P<f{i}>{p})(?![\\w-])"
                           for i, (p, _) in enumerate(_FAMILIES)))
_NAME = {f"f{i}": family for i, (_, family) in enumerate(_FAMILIES)}
_ABOVE = 12  # lines above a claim that may introduce it
_BODY_LINES = 2000  # a body's whole-text look is bounded: mail is written by strangers


def benchmark_named(text: str) -> str | None:
    """The family of the first benchmark `text` names, or None."""
    m = _ANY.search(text)
    return _NAME[m.lastgroup] if m and m.lastgroup else None


def families_named(text: str) -> set[str]:
    return {_NAME[m.lastgroup] for m in _ANY.finditer(text) if m.lastgroup}


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
        said = benchmark_named(" ".join([claim.quote, *(f"{k} {v}" for k, v in claim.condition)]))
        if said:
            return said
        if claim.line is not None:
            for line in reversed(lines[max(0, claim.line - 1 - _ABOVE):claim.line - 1]):
                said = benchmark_named(line)
                if said:
                    return said
        said = benchmark_named(message.subject.name)
        if said:
            return said
        if not whole:
            named = families_named("\n".join(lines[:_BODY_LINES]))
            whole.append(named.pop() if len(named) == 1 else None)
        return whole[0]

    return tuple(replace(c, benchmark=of(c)) for c in claims)
