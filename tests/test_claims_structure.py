"""Claims read from the whole message with issue 31's rules: a bare scale given what the
words count, one unit for a pair written once, counters beside a benchmark's result dropped,
a table's reference column and its sign convention, siblings told apart by their headings;
and the archive invariants of tests/eval_archive.py. Mail written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_archive import other_named, scale_only, self_pair, stamp_or_line

from analyze.claims.counters import perf_event, without_supporting_counters
from analyze.claims.siblings import headings
from analyze.model import Claim
from corpus.jobs.files import analyze_files

pytestmark = pytest.mark.readers


def claims(tmp_path: Path, body: str, subject: str = "[PATCH] block: test") -> list[Claim]:
    mail = tmp_path / "m.eml"
    mail.write_text(f"From: A <a@example.org>\nSubject: {subject}\nMessage-ID: <t@example.org>\n"
                    "Date: Mon, 1 Jan 2024 00:00:00 +0000\n\n" + body, encoding="utf-8")
    return list(analyze_files([mail]).claims)


def test_a_bare_scale_takes_what_the_words_around_it_count(tmp_path: Path) -> None:
    got = claims(tmp_path, "null_blk, 20 devices.\n\nBefore:\n7130K\n\nAfter:\n7630K\n\n"
                           "So a +7% IOPS gain.\n")
    (c,) = got  # the gain is this pair's, not a claim of its own
    assert (c.unit, c.metric, c.baseline_canonical, c.stated_change_pct) == (
        "KIOPS", "throughput", 7_130_000, 7.0)


def test_a_scale_and_what_it_counts_written_apart_are_one_unit(tmp_path: Path) -> None:
    (c,) = claims(tmp_path, "Peak performance goes from 7.0 to 7.1M IOPS with this series.\n")
    assert (c.baseline, c.patched, c.unit) == (7.0, 7.1, "MIOPS")
    assert c.change_pct == pytest.approx(100 * 0.1 / 7.0)  # never +10^8 %


def test_one_unit_written_for_a_pair_is_both_figures_unit(tmp_path: Path) -> None:
    (c,) = claims(tmp_path, "With the patch it improves from 5 Mpps to 6.\n")
    assert (c.baseline_canonical, c.patched_canonical, c.change_pct) == (5e6, 6e6, 20.0)


PERF = """\
fsperf -t overwrite, 5 runs each.

Performance counter stats for 'system wide' (5 runs):
event\t\t\t\t\tv5.4 \t\t\t\tv5.4 + patch
sched:sched_waking                   431,952  ( +-  0.63% )          905,001  ( +-  0.25% )
sched:sched_switch                   773,491  ( +-  0.72% )        1,467,539  ( +-  0.41% )
cycles                         1,000,000,000  ( +-  0.10% )      900,000,000  ( +-  0.10% )

elapsed time in seconds       288.09 +- 2.30  ( +-  0.80% )   72.631 +- 0.109 ( +-  0.15% )
"""


def test_perf_events_beside_the_elapsed_time_are_no_claims(tmp_path: Path) -> None:
    got = claims(tmp_path, PERF)
    assert not [c for c in got if perf_event(dict(c.condition).get("event", ""))], got


def test_perf_events_are_no_claims_without_an_elapsed_time_either(tmp_path: Path) -> None:
    body = PERF.split("\nelapsed")[0] + "\n"
    assert claims(tmp_path, body) == []
    # a tracepoint's hits are counters wherever they are printed
    assert claims(tmp_path, "event  before  after\nirq:irq_handler_entry  1288210  402117\n") == []


@pytest.mark.parametrize(("label", "event"), [
    ("sched:sched_waking", True), ("probe:active_load_balance_cpu_stop", True),
    ("cycles", True), ("branch-misses", True), ("cpu/event=0x3c/", True),
    ("time elapsed", False), ("Hmean send-64", False), ("iodepth 32", False)])
def test_perf_event_names(label: str, event: bool) -> None:
    assert perf_event(label) is event


def test_without_supporting_counters_of_nothing() -> None:
    assert without_supporting_counters([], []) == []


MMTESTS = """\
Below is a comparison of dbench runs on XFS:

      clients           MQ                     SQ             MQ-Patched
Amean 1      39.12 (0.00%)       43.29 * -10.67%*       36.09 *   7.74%*
Amean 2     128.58 (0.00%)      101.30 *  21.22%*       96.14 *  25.23%*
Amean 512 10281.61 (0.00%)    10211.16 *   0.69%*    10447.53 *  -1.61%*
"""


def test_a_reference_column_and_a_gain_convention(tmp_path: Path) -> None:
    got = sorted(claims(tmp_path, MMTESTS), key=lambda c: c.baseline or 0)
    # SQ is neither side beside MQ-Patched: compared with nothing
    assert [(c.baseline, c.patched) for c in got] == [(39.12, 36.09), (128.58, 96.14),
                                                     (10281.61, 10447.53)]
    # a fall printed as a gain: lower is better, each change signed as the figure moved
    assert [(c.stated_change_pct, c.direction) for c in got] == [
        (-7.74, "improvement"), (-25.23, "improvement"), (1.61, "regression")]


TWO_TABLES = """\
Throughput, atomic against the new refcount:

netperf-udp
                          atomic              v3
Hmean     send-64     189.36 (   0.00%)   227.14 *  19.95%*
Hmean     send-128    378.77 (   0.00%)   387.94 (   2.42%)

And with the menu governor switched to teo as well:

netperf-udp
                          atomic              v3
                            menu             teo
Hmean     send-64     189.36 (   0.00%)   248.79 *  31.38%*
Hmean     send-128    378.77 (   0.00%)   439.06 (  15.92%)
"""


def test_siblings_are_told_apart_by_their_headings(tmp_path: Path) -> None:
    got = claims(tmp_path, TWO_TABLES)
    sections = {(dict(c.condition)["case"], dict(c.condition).get("section")) for c in got}
    assert sections == {("Hmean send-64", "netperf-udp / atomic v3"),
                        ("Hmean send-128", "netperf-udp / atomic v3"),
                        ("Hmean send-64", "netperf-udp / atomic v3 / menu teo"),
                        ("Hmean send-128", "netperf-udp / atomic v3 / menu teo")}


def test_a_side_caption_is_no_heading() -> None:
    lines = ["Results:", "", "Before:", "7130K"]
    assert headings(lines, 4) == ["Results"]


@pytest.mark.parametrize(("claim", "found"), [
    ({"quote": "nowait-on-1.fio: read: IOPS=864k\nnowait-on-1.fio: read: IOPS=864k"}, True),
    ({"quote": "a: IOPS=864k\nb: IOPS=900k"}, False),
    ({"quote": "a [...] a"}, True),
])
def test_self_pairs(claim: dict[str, str], found: bool) -> None:
    assert self_pair(claim) is found


def test_stamps_line_numbers_and_units() -> None:
    assert stamp_or_line({"quote": "[  203.716208] foo", "baseline": 203.716208, "patched": 1.0})
    assert stamp_or_line({"quote": "at net/core/dev.c:4321", "baseline": 4321.0, "patched": 4400.0})
    assert not stamp_or_line({"quote": "[  203.716208] took 12 usecs", "baseline": 12.0, "patched": 3.0})
    assert other_named({"metric": "other", "quote": "7130K IOPS"})
    assert not other_named({"metric": "throughput", "quote": "7130K IOPS"})
    assert scale_only({"unit": "K"}) and not scale_only({"unit": "KIOPS"})


def test_what_logs_print_is_no_result(tmp_path: Path) -> None:
    body = """\
Before:
RSP: 0018:ffffb8c0c0003e10 EFLAGS: 00010282
     rx_bytes: 1234567
[  5]   0.00-10.00  sec  1.10 GBytes   944 Mbits/sec    0             sender
[  5]   0.00-10.00  sec  1.10 GBytes   941 Mbits/sec                  receiver

After:
RSP: 0018:ffffb8c0c0004e20 EFLAGS: 00010246
     rx_bytes: 2234567
[  5]   0.00-10.00  sec  1.40 GBytes  1204 Mbits/sec    0             sender
[  5]   0.00-10.00  sec  1.40 GBytes  1201 Mbits/sec                  receiver
"""
    # iperf3's receiver summary is the result; registers, counters and the sender's line not
    assert [(c.baseline, c.patched) for c in claims(tmp_path, body)] == [(941, 1201)]


def test_a_tool_that_prints_each_figure_whole_keeps_its_scale(tmp_path: Path) -> None:
    body = ("Before:\nIOPS=73248, BW=4.58GiB/s, IOS/call=32/32\n\n"
            "After:\nIOPS=381.76K, BW=23.86GiB/s, IOS/call=32/31\n")
    iops = next(c for c in claims(tmp_path, body) if c.baseline == 73248)
    assert iops.change_pct == pytest.approx(100 * (381_760 - 73_248) / 73_248)


def test_a_kernel_log_time_stamp_is_no_figure() -> None:
    from analyze.claims.lexer.numbers import find_quantities

    line = "[  167.667701] skbuff: skb_over_panic: text:ffffffffb1e32cc1 len:60224"
    assert [q.value for q in find_quantities(line)] == [60224]
    assert stamp_or_line({"quote": line, "baseline": 167.667701, "patched": 60224.0})


def test_a_unit_the_header_names_once_over_its_columns(tmp_path: Path) -> None:
    body = """\
Indicative, a single run:

 -------------.-----------------------------.---------------------.
 Xeon 6230    |       baselines, Mpps       |     this series     |
 -------------|--------|--------|-----------|----------|----------|
 type  count  |  drop  |  hash  |  rbtree   |   hash   |  rbtree  |
 -------------|--------|--------|-----------|----------|----------|
 net,port     |        |        |           |   +12%   |   +5%    |
       1000   |   11.1 |    5.0 |    2.0    |    5.6   |    2.1   |
"""
    got = claims(tmp_path, body)
    assert {(c.baseline, c.patched, c.unit, c.metric) for c in got} == {
        (5.0, 5.6, "Mpps", "throughput"), (2.0, 2.1, "Mpps", "throughput")}
