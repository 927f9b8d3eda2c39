"""The unit table, the metric a figure measures, and which way is better."""

from __future__ import annotations

import re

import pytest

from analyze.claims.lexer.units import (
    SI_PREFIXES,
    UNITS,
    lookup,
    lower_is_better,
    metric_of,
    unit_pattern,
)
from analyze.model import METRICS

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


@pytest.mark.parametrize(
    ("spelling", "canonical", "factor"),
    [
        ("pps", "pps", 1.0),
        ("Kpps", "pps", 1e3),
        ("kpps", "pps", 1e3),
        ("Mpps", "pps", 1e6),
        ("mpps", "pps", 1e6),
        ("MPPS", "pps", 1e6),
        ("Gbps", "bit/s", 1e9),
        ("Gbit/s", "bit/s", 1e9),
        ("Mbits/sec", "bit/s", 1e6),
        ("Mb/s", "bit/s", 1e6),
        ("MB/s", "B/s", 1e6),
        ("MB/sec", "B/s", 1e6),
        ("KB/s", "B/s", 1e3),
        ("MiB/s", "B/s", 1024.0**2),
        ("trans./sec", "trans/s", 1.0),
        ("trans/sec", "trans/s", 1.0),
        ("Trans/s", "trans/s", 1.0),
        ("TPS", "trans/s", 1.0),
        ("tps", "trans/s", 1.0),
        ("ops/s", "ops/s", 1.0),
        ("req/s", "req/s", 1.0),
        ("ns", "s", 1e-9),
        ("usec", "s", 1e-6),
        ("µs", "s", 1e-6),
        ("ms", "s", 1e-3),
        ("sec", "s", 1.0),
        ("cycles", "cycles", 1.0),
        ("KiB", "B", 1024.0),
        ("MB", "B", 1e6),
        ("bytes", "B", 1.0),
        ("%", "%", 1.0),
        ("×", "x", 1.0),
    ],
)
def test_lookup(spelling, canonical, factor):
    unit = lookup(spelling)
    assert unit is not None
    assert (unit.canonical, unit.factor) == (canonical, factor)


def test_case_matters_for_bits_bytes_and_milli():
    assert lookup("Mb/s").canonical == "bit/s"
    assert lookup("MB/s").canonical == "B/s"
    assert lookup("Ms") is None  # not milliseconds, not mega-anything
    assert lookup("furlongs") is None


def test_table_is_consistent():
    seen: dict[str, tuple[str, float]] = {}
    for unit in UNITS:
        assert unit.kind in ("number", "percent", "ratio", "duration")
        for spelling in unit.spellings:
            # one spelling, one meaning
            assert seen.setdefault(spelling, (unit.canonical, unit.factor)) == (
                unit.canonical, unit.factor), spelling
    pattern = re.compile(f"(?:{unit_pattern()})$")
    for spelling in seen:
        assert pattern.match(spelling), spelling
    assert set(SI_PREFIXES) == {"K", "k", "M", "G", "T"}


@pytest.mark.parametrize(
    ("canonical", "context", "metric"),
    [
        ("pps", "", "throughput"),
        ("bit/s", "", "throughput"),
        ("B/s", "", "throughput"),
        ("trans/s", "", "transactions"),
        ("req/s", "", "throughput"),  # requests a second: as the corpus annotates them
        ("", "stress-ng.io-uring.ops", "other"),  # a count of bogo ops, no rate
        ("", "bogo ops/s", "throughput"),
        ("ops/s", "", "throughput"),  # IOPS: as the real corpus annotates it
        ("s", "", "time"),  # a wall-clock time unless the words name one operation's latency
        ("s", "clat (usec)", "latency"),
        # (a time taken for many of something is a job's, unless named a latency)
        ("s", "Average insertion time for 200K elements", "time"),
        ("s", "a batch of 128 operations took", "time"),
        ("s", "p99 latency for 1000 requests", "latency"),
        ("s", "cost per free in ns", "latency"),
        ("s", "real", "time"),
        ("s", "returned 0 after", "time"),
        ("s", "p99 latency", "latency"),
        # a run's elapsed time is latency too (evaluation set's README: "time (ns, us, ms,
        # s, elapsed time) → latency"); CPU time is cpu (`msec task-clock`)
        ("s", "elapsed", "time"),
        ("s", "time elapsed", "time"),
        ("s", "runtime of the test", "time"),
        ("s", "task-clock", "cpu"),
        ("s", "cpu-clock", "cpu"),
        ("s", "user", "cpu"),
        (None, "instructions", "other"),
        (None, "irq:irq_handler_entry", "other"),
        (None, "rx core busy", "cpu"),
        ("%", "rx core busy", "cpu"),
        # the kernel test robot's counter names: the monitor tells the metric
        (None, "netperf.Throughput_Mbps", "throughput"),
        (None, "vmstat.cpu.sy", "cpu"),
        (None, "meminfo.SUnreclaim", "memory"),
        (None, "hackbench.time.elapsed_time", "latency"),
        (None, "hackbench.time.voluntary_context_switches", "other"),
        (None, "perf-profile.calltrace.cycles-pp.unix_stream_sendmsg", "cpu"),
        (None, "netperf.workload", "other"),
        (None, "a 3% regression in connection rate", "transactions"),
        (None, "packets per second as reported by the sample", "throughput"),
        ("cycles", "", "cpu"),
        ("%", "CPU", "cpu"),
        ("%", "idle", "cpu"),
        ("%", "softirq util", "cpu"),
        ("%", "improvement", "other"),
        ("%", "", "other"),
        ("B", "", "memory"),
        ("x", "", "other"),
        (None, "pps", "throughput"),
        (None, "Mpps per queue", "throughput"),
        (None, "throughput", "throughput"),
        (None, "trans./sec (3.17)", "transactions"),
        (None, "TCP_RR", "transactions"),
        (None, "netperf.Throughput_tps", "transactions"),
        (None, "latency (us)", "latency"),
        (None, "elapsed", "time"),
        (None, "cycles", "cpu"),
        (None, "CPU", "cpu"),
        (None, "memory", "memory"),
        (None, "before patch", "other"),
        (None, "", "other"),
    ],
)
def test_metric_of(canonical, context, metric):
    assert metric_of(canonical, context) == metric
    assert metric in METRICS


@pytest.mark.parametrize(
    ("metric", "canonical", "lower"),
    [
        ("throughput", "pps", False),
        ("transactions", "trans/s", False),
        ("latency", "s", True),
        ("cpu", "%", True),
        ("cpu", "cycles", True),
        ("memory", "B", True),
        ("other", "s", True),  # elapsed time: shorter is better
        ("other", "%", False),
        ("other", None, False),
    ],
)
def test_lower_is_better(metric, canonical, lower):
    assert lower_is_better(metric, canonical) is lower


def test_a_share_of_cycles_is_cpu():
    # "page_pool_refill_alloc_cache() drops from 9.3% to 2.1% of cycles"
    assert metric_of("%", "drops from 9.3% to 2.1% of cycles with this applied") == "cpu"


@pytest.mark.parametrize("context,metric", [
    ("TCP_RR p99 latency is reduced by 6%", "latency"),
    ("TCP_RR improves by 6%", "transactions"),
    ("TCP_STREAM cpu utilization", "cpu"),
    ("TCP_STREAM gains 3%", "throughput"),
])
def test_a_metric_word_wins_over_a_test_name(context, metric):
    assert metric_of(None, context) == metric


@pytest.mark.parametrize("context,metric", [
    ("cpumap NAPI patches v2 Throughput", "throughput"),  # a name that starts with cpu
    ("cpumap redirect", "other"),
    ("CPU usage", "cpu"),
    ("cpus busy", "cpu"),
    ("cpu_util", "cpu"),
])
def test_cpu_is_a_word_not_a_prefix(context, metric):
    assert metric_of(None, context) == metric


@pytest.mark.parametrize(("context", "metric"), [
    ("about a 4% improvement in peak performance", "throughput"),
    ("For AF_XDP the rx_drop benchmark was improved by 2%", "throughput"),
    ("perf report shows 12% in memcpy", "other"),  # a profile, no speed
    ("taking us from 9.6M to 10M IOPS/core", "throughput"),  # IOPS/, not ops/
])
def test_a_change_of_speed_with_no_quantity_named_is_of_a_rate(context: str, metric: str) -> None:
    assert metric_of(None, context) == metric
