"""The units people write after figures in netdev mail, and what they measure.

The table is data: one `Unit` per canonical unit and scale, listing every spelling seen in mail
(pktgen's `pps`, netperf's `Trans/s` and `trans./sec`, iperf's `Mbits/sec`, tc's `2gbit`,
`perf stat`'s `cycles`, the kernel test robot's `%`). `analyze/claims/lexer/numbers.py` builds its lexer from
it; `metric_of` and `lower_is_better` tell what a figure measures and which way is better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from .first_chars import compile_words


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit at one scale: its spellings, its canonical unit and the factor to get there."""

    spellings: tuple[str, ...]
    canonical: str
    factor: float
    kind: str = "number"  # number | percent | ratio | duration (the Quantity kind it gives)
    fold_case: bool = False  # spellings also match in any case (`mpps`, `MPPS`, `Tps`)


def _rates(canonical: str, stems: tuple[str, ...], fold_case: bool = False) -> tuple[Unit, ...]:
    """`stems` per second at each SI scale: ("pps",) gives pps, Kpps, kpps, Mpps, Gpps."""
    scales = (("", 1.0), ("K", 1e3), ("k", 1e3), ("M", 1e6), ("G", 1e9))
    units = []
    for prefix, factor in scales:
        spellings = tuple(prefix + stem for stem in stems)
        units.append(Unit(spellings, canonical, factor, fold_case=fold_case))
    return tuple(units)


def _per_second(stems: tuple[str, ...]) -> tuple[str, ...]:
    """`stem/s`, `stem/sec`, `stem/second` and the spelled-out `stem per second` for each
    stem (xdp1 and neper captions say "packets per second", "transactions per second")."""
    return tuple(f"{stem}{per}{sec}" for stem in stems for per in ("/", " per ")
                 for sec in ("s", "sec", "second") if not (per == " per " and sec == "s"))


# Case matters for bits and bytes (Mb/s is megabits, MB/s megabytes) and for m/M (ms, Mpps
# written `mpps` is still mega: nobody measures millipackets, hence fold_case on packet rates).
UNITS: tuple[Unit, ...] = (
    # packet rates: pktgen, xdp_redirect samples, trafgen
    *_rates("pps", ("pps",), fold_case=True),
    *_rates("pps", ("fps",)),  # frames per second: on a network, frames are packets
    Unit(_per_second(("pkt", "pkts", "packets", "Pkt", "Pkts", "Packets")), "pps", 1.0),
    Unit(_per_second(("frames", "Frames")), "pps", 1.0),
    # xdp-bench counts packets by what happened to them: `6,812,440 rx/s`
    Unit(("rx/s", "tx/s", "xmit/s", "redir/s"), "pps", 1.0),
    Unit(_per_second(("Kpkt", "Kpkts", "kpkt", "kpkts")), "pps", 1e3),
    Unit(_per_second(("Mpkt", "Mpkts")), "pps", 1e6),
    # bit rates: iperf `Mbits/sec`, netperf `10^6bits/s`, tc `rate 2gbit`
    Unit(("bps", "b/s", "bit/s", "bits/s", "bit/sec", "bits/sec", "bits per second"), "bit/s", 1.0),
    Unit(
        ("Kbps", "kbps", "Kb/s", "kb/s", "Kbit/s", "kbit/s", "Kbits/s", "kbits/s",
         "Kbits/sec", "kbits/sec", "Kbit/sec", "kbit/sec", "Kb/sec", "kb/sec", "kbit", "Kbit"),
        "bit/s", 1e3,
    ),
    Unit(
        ("Mbps", "mbps", "Mb/s", "Mb/sec", "Mbit/s", "Mbits/s", "Mbits/sec", "Mbit/sec", "mbit",
         "Mbit", "Mb"),
        "bit/s", 1e6,
    ),
    Unit(
        ("Gbps", "gbps", "Gb/s", "Gb/sec", "Gbit/s", "Gbits/s", "Gbits/sec", "Gbit/sec", "gbit",
         "Gbit", "GbE", "Gbe", "Gb"),
        "bit/s", 1e9,
    ),
    Unit(("Tbps", "Tb/s", "Tbit/s", "Tbits/s", "Tbits/sec"), "bit/s", 1e12),
    # byte rates: fio, dd, iperf -f M
    Unit(("B/s", "B/sec", "bytes/s", "bytes/sec", "Bytes/s", "Bytes/sec"), "B/s", 1.0),
    # (`BW(MB/S)`: a capital S after a byte unit's slash is still a second)
    Unit(("KB/s", "kB/s", "KB/sec", "kB/sec", "KBytes/sec", "KBytes/s", "KB/S"), "B/s", 1e3),
    Unit(("MB/s", "MB/sec", "MBytes/sec", "MBytes/s", "MB/S", "MB/SEC"), "B/s", 1e6),
    Unit(("GB/s", "GB/sec", "GBytes/sec", "GBytes/s", "GB/S"), "B/s", 1e9),
    Unit(("KiB/s", "KiB/sec", "KiB/S"), "B/s", 1024.0),
    Unit(("MiB/s", "MiB/sec", "MiB/S"), "B/s", 1024.0**2),
    Unit(("GiB/s", "GiB/sec", "GiB/S"), "B/s", 1024.0**3),
    # (binary bit rates, as fio's users write them: `329 Mib/s`)
    Unit(("Kib/s", "Kibit/s"), "bit/s", 1024.0),
    Unit(("Mib/s", "Mibit/s"), "bit/s", 1024.0**2),
    Unit(("Gib/s", "Gibit/s"), "bit/s", 1024.0**3),
    # transactions: netperf TCP_RR prints `Trans.\nRate\nper sec`; mail writes trans./sec, tps
    Unit(
        ("trans/s", "trans/sec", "trans./sec", "trans./s", "tps", "TPS", "Tps",
         *_per_second(("transactions", "Transactions", "tran", "Trans", "Trans."))),
        "trans/s", 1.0,
    ),
    Unit(("Ktps", "KTPS", "ktps"), "trans/s", 1e3),
    Unit(_per_second(("req", "reqs", "requests", "Req", "Requests")), "req/s", 1.0),
    Unit(("Kreq/s", "kreq/s", "Kreqs/s", "kreqs/s"), "req/s", 1e3),
    Unit(("ops/s", "ops/sec", "op/s", "Ops/s", "ops/second", "IOPS", "iops", "calls/s",
          "calls/sec",
          "ops per second", "ops per sec", "operations per second"), "ops/s", 1.0),
    # (queries a second: `after (Kqps)`, a request/response count a second as sends are)
    Unit(("qps", "QPS"), "ops/s", 1.0),
    # (records a second: mmtests' ebizzy rows, `Hmean  Rsec-1`)
    Unit(("Rsec", "records/s", "records/sec"), "ops/s", 1.0),
    Unit(("Kqps", "kqps", "KQPS"), "ops/s", 1e3),
    Unit(("Mqps", "MQPS"), "ops/s", 1e6),
    Unit(("Kops/s", "kops/s", "Kops/sec", "kops/sec", "KIOPS", "kIOPS", "kiops", "Kiops"),
         "ops/s", 1e3),
    Unit(("Mops/s", "Mops/sec", "Mop/s", "MIOPS", "miops", "Miops"), "ops/s", 1e6),
    # the bpf selftests' bench prints event rates as `44.118 ± 0.052M/s`
    Unit(("K/s", "k/s"), "ops/s", 1e3),
    Unit(("M/s",), "ops/s", 1e6),
    Unit(_per_second(("msg", "msgs", "messages")), "msg/s", 1.0),
    Unit(_per_second(("conn", "conns", "connections")), "conn/s", 1.0),
    # time: ping, cyclictest, bpf selftests' `ns/op`, perf's `msec task-clock`
    # (a table's `Nanosec` header: page_pool's time_bench tables)
    Unit(("ns", "nsec", "nsecs", "ns/op", "ns/pkt", "ns/packet", "nanoseconds", "Nanoseconds",
          "nanosec", "Nanosec"), "s", 1e-9,
         kind="duration"),
    # (fish's `time` prints `millis` and `micros`)
    Unit(("us", "usec", "usecs", "µs", "μs", "microseconds", "Microseconds", "microsec", "Microsec",
          "micros", "us/op", "usec/op"), "s", 1e-6,
         kind="duration"),
    Unit(("ms", "msec", "msecs", "milliseconds", "Milliseconds", "millisec", "Millisec", "millis"),
         "s", 1e-3, kind="duration"),
    Unit(("s", "sec", "secs", "second", "seconds"), "s", 1.0, kind="duration"),
    Unit(("min", "mins", "minutes"), "s", 60.0, kind="duration"),
    # cycles: perf stat, `cycles/pkt` in XDP and page_pool micro-benchmarks
    Unit(("cycles", "cycle", "cyc", "cycles/pkt", "cycles/packet", "cycles/op"), "cycles", 1.0,
         fold_case=True),
    Unit(("Kcycles", "kcycles"), "cycles", 1e3),
    # memory sizes
    Unit(("B", "byte", "bytes", "Bytes"), "B", 1.0),
    Unit(("KB", "kB", "KBytes", "Kbytes", "kbytes"), "B", 1e3),
    Unit(("MB", "MBytes", "Mbytes"), "B", 1e6),
    Unit(("GB", "GBytes", "Gbytes"), "B", 1e9),
    Unit(("TB",), "B", 1e12),
    Unit(("KiB", "kiB"), "B", 1024.0),
    Unit(("MiB",), "B", 1024.0**2),
    Unit(("GiB",), "B", 1024.0**3),
    # a bare rate: xdp samples and ethtool deltas print `14880000/s`; the context says of what
    Unit(("/s", "/sec"), "/s", 1.0),
    # clock rates: perf stat's `#    3.200 GHz`
    Unit(("Hz",), "Hz", 1.0),
    Unit(("KHz", "kHz"), "Hz", 1e3),
    Unit(("MHz",), "Hz", 1e6),
    Unit(("GHz",), "Hz", 1e9),
    # changes
    Unit(("%", "percent", "pct"), "%", 1.0, kind="percent"),
    Unit(("x", "X", "×", "times"), "x", 1.0, kind="ratio"),
)

# A bare SI prefix glued to a figure (`2.2K`, `10G`, `1.5M`): the unit itself is unknown.
SI_PREFIXES: dict[str, float] = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@cache
def _by_spelling() -> tuple[dict[str, Unit], dict[str, Unit]]:
    exact: dict[str, Unit] = {}
    folded: dict[str, Unit] = {}
    for unit in UNITS:
        for spelling in unit.spellings:
            exact.setdefault(spelling, unit)
            if unit.fold_case:
                folded.setdefault(spelling.lower(), unit)
    return exact, folded


def lookup(spelling: str) -> Unit | None:
    """The unit written `spelling` (`Mpps`, `trans./sec`, `MB/sec`), or None."""
    exact, folded = _by_spelling()
    return exact.get(spelling) or folded.get(spelling.lower())


@cache
def unit_pattern() -> str:
    """A regex alternation of every spelling, longest first (so `MB/sec` wins over `MB`)."""
    exact, folded = _by_spelling()
    parts = [re.escape(s) for s in sorted(exact, key=len, reverse=True)]
    folds = [re.escape(s) for s in sorted(folded, key=len, reverse=True)]
    alternatives = "|".join(parts)
    if folds:
        alternatives += "|(?i:" + "|".join(folds) + ")"
    return alternatives


_BY_CANONICAL = {
    "pps": "throughput",
    "bit/s": "throughput",
    "B/s": "throughput",
    "msg/s": "throughput",
    "trans/s": "transactions",
    "req/s": "throughput",  # requests a second: work done a second, as IOPS (the corpus)
    "ops/s": "throughput",  # IOPS, ops/s: how much work a second, as the corpus annotates them
    "conn/s": "transactions",
    "cycles": "cpu",
    "B": "memory",
}

# Context words, checked in this order; the first group with a hit names the metric.
# Transactions come first because their headers also say "sec" (`trans./sec`), and netperf
# names its request/response tests TCP_RR, UDP_RR, TCP_CRR.
_CONTEXT_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("transactions", compile_words(
        r"trans\b|trans\.|transactions?|(?:\b|_)tps\b|connection rate|connections? per|"
        r"connections?/|\bcps\b|\bqps\b|queries per", re.I)),
    # (requests and operations a second are work done a second, as IOPS are; a count of
    # operations, stress-ng's `bogo ops`, is no rate)
    ("throughput", compile_words(
        r"req(?:uest)?s?/|requests? per|(?<![a-z])ops/|(?:\b|_)ops[_ ]per|operations? per|"
        r"pps\b|throughput|bandwidth|\bbw\b|goodput|[kmg]?bps\b|[kmg]?bits?/|[kmg]?b/s|"
        r"packets?/|packets? per|\bpkts?/|\brate\b|\bfps\b|\b[kmg]?iops\b|\bio/s\b", re.I)),
    ("time", compile_words(r"elapsed|wall[- ]?clock|\brun[- ]?time\b|completion time|"
                           r"\b(?:numbers|figures|results|values)\s+are\s+(?:\w+\s+)?(?:times|durations)\b", re.I)),
    ("latency", compile_words(
        r"latency|latencies|\brtt\b|round.trip|delay|jitter|response time|percentile|"
        r"\bp(?:50|90|95|99)(?:\.9+)?\b|"
        r"\b(?:[nmu]s|[nmu]sec|µs|μs)\b", re.I)),
    ("cpu", compile_words(
        r"(?<!per-)\bcpus?(?![a-z])|cycles|\butil|\bidle\b|softirq|\bsys\b|\busr\b|\bload\b|task-clock|\bbusy\b"
        # (what a job costs beside its work: `submission overhead`, LKP's `app_overhead`)
        r"|(?<!memory )(?<!mem )(?:\b|_)overhead\b",
        re.I)),
    ("memory", compile_words(
        r"memory|\bmem\b|meminfo|\brss\b|slab|footprint|\b[kmg]i?b\b|bytes\b|allocation", re.I)),
)

# A test's name says what it measures only when no word of the context does: "TCP_RR p99
# latency is reduced by 6%" is a latency, "TCP_RR improves by 6%" a transaction rate.
_TEST_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("transactions", compile_words(r"\b(?:tcp|udp)[_-]c?rr\b|\brr\b", re.I)),
    # (mmtests' `netperf-udp` and `netperf-tcp` are stream tests: a send or receive rate)
    ("throughput", compile_words(r"_stream\b|\bnetperf-(?:udp|tcp)\b(?![-_]c?rr)", re.I)),
)

# What makes a time one operation's latency rather than how long a job took: fio's `clat`,
# a percentile, a round trip, a wakeup, a time per request.
_LATENCY_WORDS = compile_words(
    r"latenc|(?:\b|_)[cs]?lat\b|(?:\b|_)rtt\b|round.trip|delay|jitter|response|percentile|"
    r"(?:\b|_)p(?:50|90|95|99)(?:\.9+)?\b|\b\d+(?:\.\d+)?th\b|wake-?up|\bping\b|/op\b|"
    r"(?:^|\b|_)avg(?:_|\b)(?!\s+of\b)|"
    r"\bper[ -](?!(?:second|sec|run|test|job|boot|cpu|core|thread|process|queue|device)\b)[a-z]|"
    # (nobody times a job in nanoseconds: a figure in ns is one operation's cost)
    r"\bn(?:ano)?secs?\b|\bns\b",
    re.I)
# CPU time is CPU, not latency: perf's `1,823.41 msec task-clock`, time(1)'s `user`/`sys`.
_CPU_TIME = compile_words(
    r"task-clock|cpu-clock|cpu[ _-]?time|\b[us]time\b|\b(?:user|sys|system)[ _]time|"
    r"^\s*(?:user|sys)\s*$",
    re.I,
)
# "% of cycles": a share of a perf profile is CPU time too
_CPU_PERCENT = compile_words(
    r"(?<!per-)\bcpus?(?![a-z])|\butil|\bidle\b|softirq|\bsys\b|\busr\b|\bload\b|%cpu|\bbusy\b|\bcycles\b", re.I)

# A counter's dotted name (the kernel test robot's `vmstat.cpu.sy`, `meminfo.SUnreclaim`,
# `hackbench.time.elapsed_time`, `perf-profile.calltrace.cycles-pp.*`): its first part is the
# monitor that produced it, which tells the metric before any word of the rest does
# (`perf-profile...unix_stream_sendmsg` is a share of cycles, not a stream's throughput).
_COUNTER_NAME = re.compile(r"^[A-Za-z][\w\-]*(?:\.[\w\-%:]+)+$")
_MONITOR_METRICS = {
    "perf-profile": "cpu", "mpstat": "cpu", "turbostat": "cpu", "cpuidle": "cpu",
    "meminfo": "memory", "numa-meminfo": "memory", "slabinfo": "memory", "memmap": "memory",
}
_COUNTER_FIELDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("latency", compile_words(r"(?:^|\.)time\.elapsed_time", re.I)),
    ("cpu", compile_words(r"(?:^|\.)time\.(?:user|system)_time|percent_of_cpu|(?:^|\.)cpu\.", re.I)),
    ("memory", compile_words(r"resident_set|\.rss\b|_rss\b", re.I)),
    ("other", compile_words(r"(?:^|\.)time\.|context_switches|page_faults|(?:^|\.)workload$", re.I)),
)


def _counter_metric(name: str) -> str | None:
    """The metric of a dotted counter name, from its monitor and field; None when neither
    says (the benchmark's own rows, `netperf.Throughput_Mbps`, go by their words)."""
    if len(name) > 200 or not _COUNTER_NAME.match(name):
        return None
    monitor = name.split(".", 1)[0].lower()
    if monitor in _MONITOR_METRICS:
        return _MONITOR_METRICS[monitor]
    for metric, pattern in _COUNTER_FIELDS:
        if pattern.search(name):
            return metric
    return None


def metric_of(canonical_unit: str | None, context: str = "") -> str:
    """What a figure measures: throughput, latency, transactions, cpu, memory, time or other.

    The unit decides when it can (pps → throughput, trans/s → transactions, cycles → cpu,
    B → memory); times are latency where `context` names one operation's latency (`clat`,
    a percentile, a round trip), CPU time where it names that (`task-clock`), else a job's
    wall-clock time; `%` is cpu only when `context` says so (a bare percentage is usually a
    change); a counter's dotted name (`vmstat.cpu.sy`) goes by its monitor; figures without
    a unit take the metric of the first context words found (header, caption, row label).
    """
    if canonical_unit == "B" and context:
        return _bytes_metric(context[:2000])
    if canonical_unit in _BY_CANONICAL:
        return _BY_CANONICAL[canonical_unit]
    if len(context) <= _MAX_KEPT_CONTEXT:
        return _kept_metric(canonical_unit, context)
    return _metric(canonical_unit, context[:2000])


# The rows of a table, the items of a list and the claims of a thread share their context
# (caption and header words): what it names is read once.
_MAX_KEPT_CONTEXT = 400


@lru_cache(maxsize=4096)
def _kept_metric(canonical_unit: str | None, context: str) -> str:
    return _metric(canonical_unit, context)


# A size in bytes is of a structure as built (metric `size`: docs/claims.md) where the words
# name one, `struct`, `sizeof`, a stack frame, an array, and nothing of memory used.
_BUILT = compile_words(r"\bstruct\b|\bsizeof\b|\bstack\b|\bframe size|\bsize of\b|\barray\b", re.I)
_MEMORY_USED = compile_words(r"memory|\bmem\b|\brss\b|slab|footprint|consum|allocat|\bkmalloc", re.I)
# a share of something else than a CPU's time: `network utilisation`, `link utilization`
_OTHER_SHARE = compile_words(
    r"\b(?:network|link|bus|disk|pcie|wire|nic|device|port)\s+(?:utili[sz]ation|util|usage|load)\b", re.I)


@lru_cache(maxsize=1024)
def _bytes_metric(context: str) -> str:
    return "size" if _BUILT.search(context) and not _MEMORY_USED.search(context) else "memory"


def _metric(canonical_unit: str | None, context: str) -> str:
    if canonical_unit == "s":
        if _CPU_TIME.search(context):
            return "cpu"
        # (a time is one operation's latency where the words say so; else how long a job,
        # a run, a boot or a callback took: a wall-clock time; a time taken for many of
        # something, `insertion time ... for 200K elements`, is a job's unless it is named
        # a latency)
        if _MANY.search(context) and not _NAMED_LATENCY.search(context):
            return "time"
        return "latency" if _LATENCY_WORDS.search(context) else "time"
    if canonical_unit == "%":
        if _OTHER_SHARE.search(context) and not re.search(r"\bcpus?\b", context, re.I):
            return "other"
        return "cpu" if _CPU_PERCENT.search(context) else "other"
    counter = _counter_metric(context.strip())
    if counter is not None:
        return counter
    if _CPU_TIME.search(context):
        return "cpu"
    for metric, words in _CONTEXT_WORDS + _TEST_NAMES:
        if words.search(context):
            return metric
    # (words that name no quantity but speed: "performance", "perf bump", "faster", a
    # benchmark's name, are of a rate, as the corpus annotates a change stated of them)
    if canonical_unit is None and _SPEED_WORDS.search(context):
        return "throughput"
    return "other"


_MANY = re.compile(r"\b(?:for|of)\s+(?:a\s+batch\s+of\s+)?\d[\d.,]*\s*[kKM]?\s+(?:elements|entries|operations"
                   r"|ops|requests|packets|files|iterations|loops|rules|items|objects|inserts|insertions)\b"
                   r"|\bbatch(?:es)?\s+of\s+\d", re.I)
_NAMED_LATENCY = re.compile(r"latenc|\bp\d{2}\b|percentile|\brtt\b|round.trip|\bper\s+(?:op|operation|request|packet|element)\b", re.I)
_SPEED_WORDS = compile_words(
    r"\bperf(?:ormance)?\b(?!\s+(?:top|report|record|annotate|stat|profile|diff)\b)|\bfaster\b"
    r"|\bspeed-?ups?\b|\bxdp_(?:drop|tx|pass|redirect)\b|\brx_?drop\b|\btxonly\b|\bl2fwd\b",
    re.I)


_LOWER_BETTER_METRICS = frozenset({"latency", "cpu", "memory", "time", "size"})
_LOWER_BETTER_UNITS = frozenset({"s", "cycles", "B"})


def lower_is_better(metric: str, canonical_unit: str | None) -> bool:
    """True when a smaller figure is the improvement: latency, CPU, memory, and any time."""
    return metric in _LOWER_BETTER_METRICS or canonical_unit in _LOWER_BETTER_UNITS


# A change is "neutral" only when the figures are the same (docs/claims.md: neutral where the
# figures are equal or the author says there is no difference); `24.571 -> 24.579` usec is a
# small regression, not neutral.
NEUTRAL_PCT = 1e-9


def direction_of(metric: str, canonical_unit: str | None, change: float | None,
                 lower_better: bool | None = None) -> str:
    """improvement, regression or neutral for a change of `change` percent."""
    if change is None or abs(change) < NEUTRAL_PCT:
        return "neutral"
    if lower_better is None:
        lower_better = lower_is_better(metric, canonical_unit)
    better = change < 0 if lower_better else change > 0
    return "improvement" if better else "regression"
