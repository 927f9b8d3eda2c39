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
    assert stamp_or_line({"quote": "  1265\t *\n  1259\t", "baseline": 1265.0, "patched": 1259.0})
    assert not stamp_or_line({"quote": "1 write: IOPS=428k\n1 write: IOPS=120k", "baseline": 428.0,
                              "patched": 120.0})
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


SOCKPERF = """\
Prior:
sockperf: Summary: Latency is 24.571 usec
sockperf: ---> <MAX> observation = 103294.331
sockperf: ---> percentile 99.999 =   45.633
sockperf: ---> percentile 99.000 =   33.390
sockperf: ---> <MIN> observation =   12.220

After:
sockperf: Summary: Latency is 24.965 usec
sockperf: ---> <MAX> observation = 195.841
sockperf: ---> percentile 99.999 =   45.026
sockperf: ---> percentile 99.000 =   33.482
sockperf: ---> <MIN> observation =   12.277
"""


def test_paired_lines_are_told_apart_by_their_labels(tmp_path: Path) -> None:
    got = {dict(c.condition).get("row"): (c.metric, c.unit, c.baseline, c.patched)
           for c in claims(tmp_path, SOCKPERF)}
    # the percentiles are the summary's latency, in its unit; <MIN> and <MAX> are spread
    assert got == {"Summary Latency is": ("latency", "usec", 24.571, 24.965),
                   "percentile 99.999": ("latency", "usec", 45.633, 45.026),
                   "percentile 99.000": ("latency", "usec", 33.39, 33.482)}


MMTESTS_COLUMNS = """\
pgbench Transactions
Hmean     1       726.68 (   0.00%)      713.79 (  -1.77%)      764.83 (   5.25%)
Hmean     4      2213.45 (   0.00%)     2302.69 (   4.03%)     2155.90 (  -2.60%)
"""


def test_a_row_against_several_columns_names_each_column(tmp_path: Path) -> None:
    got = {(dict(c.condition)["case"], dict(c.condition).get("column")): (c.metric, c.patched)
           for c in claims(tmp_path, MMTESTS_COLUMNS)}
    # the caption names the metric the rows do not
    assert got == {("Hmean 1", "2"): ("transactions", 713.79), ("Hmean 1", "3"): ("transactions", 764.83),
                   ("Hmean 4", "2"): ("transactions", 2302.69), ("Hmean 4", "3"): ("transactions", 2155.9)}


def test_a_header_names_the_column_it_stands_over(tmp_path: Path) -> None:
    body = ("Hackbench seconds, lower is better:\n\n"
            "groups    base     ring    mutex\n"
            "1         10.0     9.0     8.0\n")
    got = {dict(c.condition).get("column"): c.patched for c in claims(tmp_path, body)}
    assert got == {"ring": 9.0, "mutex": 8.0}


def test_percentages_of_one_sentence_are_told_apart_by_what_they_are_for(tmp_path: Path) -> None:
    body = ("This yields a throughput increase of 4% for the l2fwd sample app. If we only\n"
            "look at Tx, the series increases throughput by 20% for txonly.\n")
    got = {dict(c.condition).get("for"): c.stated_change_pct for c in claims(tmp_path, body)}
    assert got == {"the l2fwd sample app": 4.0, "txonly": 20.0}


def test_time_user_and_sys_lines_support_the_real_one(tmp_path: Path) -> None:
    body = ("Before:\n\nreal\t0m45.566s\nuser\t0m0.762s\nsys\t0m44.100s\n\n"
            "After:\n\nreal\t0m3.547s\nuser\t0m0.710s\nsys\t0m2.800s\n")
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.metric) == (45.566, 3.547, "time")  # a job's wall-clock time


def test_two_bare_numbers_in_a_sentence_are_no_claim(tmp_path: Path) -> None:
    body = ("The scheduler tree went from 9 to 5 layers, and the series grew from 3 to 6.\n"
            "Throughput went from 5 to 6 Mpps.\n")
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.unit) == (5.0, 6.0, "Mpps")


@pytest.mark.parametrize("line", [
    "On Tue, Aug 19, 2025 at 04:31:49PM -0700, A Person wrote:",
    "To: Someone <someone@example.org>",
    "It was always a bit slower. Before the patch",
])
def test_what_is_no_heading(line: str) -> None:
    assert headings([line, "", "10 -> 12 Mpps"], 3) == []


FIO_LINES = """\
throttle at 30MB/s, fio randread, 8 jobs:

    before : IOPS=57.2k, BW=224MiB/s (234MB/s)(15.6GiB/71561msec)
    after  : IOPS=58.5k, BW=229MiB/s (240MB/s)(15.6GiB/69996msec)

    before : clat (usec): min=4, max=1105.5k, avg=126.20, stdev=6419.22
    after  : clat (usec): min=4, max=183956, avg=120.60, stdev=2957.28

    before : lat (usec): min=5, max=1105.5k, avg=129.45, stdev=6419.29
    after  : lat (usec): min=5, max=183958, avg=124.40, stdev=2958.18
"""


def test_a_rows_label_names_the_unit_of_its_bare_figures(tmp_path: Path) -> None:
    got = {dict(c.condition).get("row"): (c.metric, c.unit, c.baseline, c.patched, c.direction)
           for c in claims(tmp_path, FIO_LINES) if c.baseline == 129.45 or c.baseline == 126.2}
    assert got == {"clat usec avg": ("latency", "usec", 126.2, 120.6, "improvement"),
                   "lat usec avg": ("latency", "usec", 129.45, 124.4, "improvement")}


ZONED = """\
NVMe ZNS drive:

             +--------+--------+----------+
             |seqw4K1 |seqw4K16|rndw128K16|
             |(MB/s)  | (MB/s) |  (KIOPS) |
 +-----------+--------+--------+----------+
 |    ZWL    | 183    | 707    | 14.1     |
 |mq-deadline|        |        |          |
 +-----------+--------+--------+----------+
 |    ZWP    | 183    | 719    | 14.1     |
 |mq-deadline|(-0%)   | (+1%)  | (+0%)    |
 +-----------+--------+--------+----------+
 |    ZWP    | 175    | 691    | 11.2     |
 |    bfq    | (-4%)  | (-2%)  | (-20%)   |
 +-----------+--------+--------+----------+
"""


def test_a_box_tables_two_line_rows_are_one_row_each(tmp_path: Path) -> None:
    got = {(dict(c.condition)["case"], dict(c.condition)["measure"]): (c.unit, c.baseline, c.patched, c.stated_change_pct)
           for c in claims(tmp_path, ZONED)}
    assert got == {
        ("ZWP mq-deadline", "seqw4K1 MB/s"): ("MB/s", 183.0, 183.0, 0.0),
        ("ZWP mq-deadline", "seqw4K16 MB/s"): ("MB/s", 707.0, 719.0, 1.0),
        ("ZWP mq-deadline", "rndw128K16 KIOPS"): ("KIOPS", 14.1, 14.1, 0.0),
        ("ZWP bfq", "seqw4K1 MB/s"): ("MB/s", 183.0, 175.0, -4.0),
        ("ZWP bfq", "seqw4K16 MB/s"): ("MB/s", 707.0, 691.0, -2.0),
        ("ZWP bfq", "rndw128K16 KIOPS"): ("KIOPS", 14.1, 11.2, -20.0),
    }


def test_a_box_table_ruled_only_round_its_header_keeps_one_row_a_line() -> None:
    from analyze.claims.tables.box_rows import merged_box_rows
    lines = ["+------+-----+", "| case | 512 |", "+------+-----+", "| User | 216 vs 183 |",
             "| Sys  | 1441 vs 1171 |", "+------+-----+"]
    assert merged_box_rows(lines) is lines


def test_a_histograms_buckets_are_no_pairs(tmp_path: Path) -> None:
    bucket = "    131072 -> 262143     : {}     |{}|\n"
    body = ("funclatency before:\n\n" + bucket.format(1842, "*" * 40) + "\nafter:\n\n"
            + bucket.format(1242, "*" * 26 + " " * 14))
    assert claims(tmp_path, body) == []


def test_fio_percentile_rows_are_told_apart_by_their_keys(tmp_path: Path) -> None:
    from analyze.claims.siblings import row_label
    line = "     | 30.00th=[   71], 40.00th=[   73], 50.00th=[   75], 60.00th=[   76],"
    (c,) = claims(tmp_path, "Before: 75 usec\nAfter: 90 usec\n")
    assert row_label(line, c) == "50.00th"
    assert row_label("sockperf: ---> percentile 99.990 =   75", c) == "percentile 99.990"
    assert row_label("    before : clat (usec): min=4, max=1056.6k, avg=75, stdev=1", c) == "clat usec avg"


LISTING = """\
vim +1271 kernel/time/timekeeping.c

  1259\t
  1260\t/**
  1261\t * convert a timestamp
  1262\t *
  1263\t */
  1264\tbool convert(u64 *cycles)
> 1265\t{
"""


def test_a_numbered_source_listing_gives_no_pair(tmp_path: Path) -> None:
    assert claims(tmp_path, LISTING) == []
    from analyze.claims.listings import listing_lines
    assert listing_lines(LISTING.splitlines()) == frozenset(range(2, 9))
    # the rows of a sweep, numbered with blanks and figures after: no listing
    assert listing_lines(["1 write: IOPS=428k", "2 write: IOPS=406k", "3 write: IOPS=380k"]) == frozenset()
    assert listing_lines(["303 + case NFPROTO_IPV4:", "304 + break;", "305 +}"]) == frozenset({0, 1, 2})


@pytest.mark.parametrize(("body", "kept"), [
    ("The default launch time changed from 1 s to 0.1 s in this version.\n", None),
    ("This raises the hitcount limit from 255 to 65535 packets per entry.\n", None),
    ("The command buffer grew from 24 to 26 bytes.\n", None),
    ("With the patch the latency went from 20 us to 5 us.\n", (20.0, 5.0)),
    ("Reducing the timeout from 5s to 1s makes the test take 12s instead of 60s.\n", (60.0, 12.0)),
])
def test_a_setting_written_from_x_to_y_is_no_result(tmp_path: Path, body: str,
                                                    kept: tuple[float, float] | None) -> None:
    got = [(c.baseline, c.patched) for c in claims(tmp_path, body)]
    assert got == ([kept] if kept else [])


def test_long_log_labels_are_cut_to_what_tells_them_apart(tmp_path: Path) -> None:
    line = "[  {}] e1000e 0000:00:1f.6: pci_pm_{}+0x0/0x170 returned 0 after {} usecs\n"
    body = ("Before:\n" + line.format("203.391465", "suspend", 323186) + line.format("203.716208", "resume_early", 0)
            + "\nAfter:\n" + line.format("150.455612", "suspend", 14) + line.format("151.101010", "resume_early", 0))
    got = {dict(c.condition).get("row"): (c.baseline, c.patched) for c in claims(tmp_path, body)}
    assert got == {"pci_pm_suspend+0x0/0x170": (323186.0, 14.0), "pci_pm_resume_early+0x0/0x170": (0.0, 0.0)}


def test_runs_under_a_heading_are_told_from_runs_under_none(tmp_path: Path) -> None:
    runs = "Without the patch:\nhardware TX rate : {} pps\n\nWith the patch:\nhardware TX rate : {} pps\n"
    body = ("At 140000 requests a second I get these numbers.\n\n" + runs.format(387239, 692326)
            + "\nBut when I increase the rate to 200000, I get this:\n\n" + runs.format(581575, 412095))
    got = {dict(c.condition).get("section"): c.baseline for c in claims(tmp_path, body)}
    assert got == {None: 387239.0, "But when I increase the rate to 200000, I get this": 581575.0}


GROUPED = """\
X86 server:
| Test name  |Cycles |   1-5 |    | Nanosec |    1-5 |        |
| (tasklet_*)|Before | After |diff|  Before |  After |   diff |
|------------+-------+-------+----+---------+--------+--------|
| fast_path  |    19 |    19 |   0|   5.399 |  5.492 |  0.093 |
| slow       |   238 |   284 |  46|  66.134 | 78.909 | 12.775 |
"""


def test_a_row_of_group_labels_over_the_header_names_each_groups_unit(tmp_path: Path) -> None:
    got = {(dict(c.condition)["tasklet"], c.unit): (c.metric, c.direction) for c in claims(tmp_path, GROUPED)}
    assert got == {("fast_path", "Cycles"): ("cpu", "neutral"), ("slow", "Cycles"): ("cpu", "regression"),
                   ("fast_path", "Nanosec"): ("latency", "regression"), ("slow", "Nanosec"): ("latency", "regression")}


def test_two_blocks_of_one_layout_name_their_columns(tmp_path: Path) -> None:
    body = ("Before:\n              fast_path              ptr_ring\n"
            "1.         31.171 ns               60.980 ns\n\n"
            "After:\n              fast_path              ptr_ring\n"
            "6.         26.163 ns               53.781 ns\n")
    got = {dict(c.condition).get("column"): (c.baseline, c.patched) for c in claims(tmp_path, body)}
    assert got == {"fast_path": (31.171, 26.163), "ptr_ring": (60.98, 53.781)}


SETUPS = """\
No difference discernible from noise:

Before:             2076 2076 2076 2077 2077 2074 Mb/sec
After:              2080 2078 2078 2079 2079 2077 Mb/sec
Before + tc accept: 1877 1875 1878 1874 1882 1873 Mb/sec
After  + tc accept: 1874 1877 1881 1875 1876 1876 Mb/sec
"""


def test_side_rows_pair_by_setup_and_keep_their_runs(tmp_path: Path) -> None:
    got = sorted((c.baseline, c.patched, c.unit, c.runs) for c in claims(tmp_path, SETUPS))
    assert got == [
        (1877.0, 1874.0, "Mb/sec", ((1877.0, 1875.0, 1878.0, 1874.0, 1882.0, 1873.0),
                                    (1874.0, 1877.0, 1881.0, 1875.0, 1876.0, 1876.0))),
        (2076.0, 2080.0, "Mb/sec", ((2076.0, 2076.0, 2076.0, 2077.0, 2077.0, 2074.0),
                                    (2080.0, 2078.0, 2078.0, 2079.0, 2079.0, 2077.0))),
    ]


def test_a_runs_percentages_of_one_line_at_100_are_shares_not_changes(tmp_path: Path) -> None:
    body = ("RETPOLINE=n:\nfwd: 682 Mb/s  1333582 pps    (100%)\t\t( 77.7%)\n"
            "nf:  635 Mb/s  1242167 pps    ( 93.1%)\t\t( 72.4%)\n\n"
            "RETPOLINE=n, BPF-JIT ON:\nfwd: 719 Mb/s  1406091 pps  (100%)\t\t( 81.9%)\n"
            "nf:  690 Mb/s  1349784 pps  ( 95.9%)\t\t( 78.6%)\n")
    got = {(dict(c.condition).get("row"), c.unit): (c.baseline, c.patched, c.stated_change_pct)
           for c in claims(tmp_path, body)}
    assert got == {("fwd", "Mb/s"): (682.0, 719.0, None), ("fwd", "pps"): (1333582.0, 1406091.0, None),
                   ("nf", "Mb/s"): (635.0, 690.0, None), ("nf", "pps"): (1242167.0, 1349784.0, None)}


def test_figures_quoted_without_their_context_are_the_same_claim(tmp_path: Path) -> None:
    (first,) = claims(tmp_path, "taskset -c 3 ./xdpsock -r -q 1\n\nrxdrop on 2 cores: 10.2 Mpps -> 14.1 Mpps\n")
    mail = tmp_path / "r.eml"
    mail.write_text("From: B <b@example.org>\nSubject: Re: [PATCH] block: test\nMessage-ID: <r@example.org>\n"
                    "In-Reply-To: <t@example.org>\nReferences: <t@example.org>\n"
                    "Date: Mon, 1 Jan 2024 01:00:00 +0000\n\n"
                    "> rxdrop on 2 cores: 10.2 Mpps -> 14.1 Mpps\n\nNice.\n", encoding="utf-8")
    (quoted,) = analyze_files([mail]).claims
    assert quoted.quoted and quoted.id == first.id


def test_two_rows_with_the_same_figures_stay_two_claims(tmp_path: Path) -> None:
    body = "| set | rbtree | pipapo |\n|---|---|---|\n| before | 3.0 | 3.0 |\n| after | 3.1 | 3.1 |\n"
    got = claims(tmp_path, body)
    assert len({c.id for c in got}) == len(got) == 2


def test_a_sentences_percentage_beside_its_pair_is_that_pairs(tmp_path: Path) -> None:
    body = ("This is good for about a 4% improvement in peak performance, taking us\n"
            "from 9.6M to 10M IOPS/core.\n")
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.stated_change_pct) == (9.6, 10.0, 4.0)


def test_one_line_printed_under_both_captions_is_no_pair(tmp_path: Path) -> None:
    body = ("Before:\n        Speed: 25000Mb/s\n    536870912 bytes copied, 11.7257 s, 45.8 MB/s\n\n"
            "After:\n        Speed: 25000Mb/s\n    536870912 bytes copied, 11.7257 s, 45.8 MB/s\n")
    assert claims(tmp_path, body) == []


def test_only_equal_figures_are_neutral(tmp_path: Path) -> None:
    body = ("| test | before | after |\n|---|---|---|\n| latency (usec) | 24.571 | 24.579 |\n"
            "| rate (Mpps) | 5.00 | 5.00 |\n")
    got = {c.baseline: c.direction for c in claims(tmp_path, body)}
    assert got == {24.571: "regression", 5.0: "neutral"}


def test_a_commands_argument_is_no_side_of_a_pair(tmp_path: Path) -> None:
    body = ("- ./gem_pwrite --run-subtest bench -s 524288\n  Before: 6.1021s, After: 4.8047s\n")
    got = [(c.baseline, c.patched) for c in claims(tmp_path, body)]
    assert got == [(6.1021, 4.8047)]


def test_a_rate_after_a_setting_is_still_a_result(tmp_path: Path) -> None:
    body = ("With 8 pktgen threads sending 64 byte UDP through a veth pair this moves the\n"
            "receiver from 11.2 Mpps to 12.7 Mpps.\n")
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.unit) == (11.2, 12.7, "Mpps")


def test_two_percentages_that_bound_a_change_are_no_pair(tmp_path: Path) -> None:
    got = claims(tmp_path, "On my x86_64, this gives from 2% to 5% performance benefit.\n")
    assert [(c.baseline, c.patched) for c in got if c.baseline is not None] == []
    (cpu,) = claims(tmp_path, "CPU usage went from 80% to 40% with the patch.\n")
    assert (cpu.baseline, cpu.patched) == (80.0, 40.0)


DRAWN = """\
Results, mean of three runs on a 16-core box:

Random write:

o-------------o-----------------------o-----------------------o
|  numjobs    |           4           |           32          |
o-------------o-----------------------o-----------------------o
|             |  IOPS(K)  | Lat(msec) |  IOPS(K)  | Lat(msec) |
o-------------o-----------------------o-----------------------o
| base        |  310      |   1.72    |  402      |   9.81    |
o-------------o-----------------------o-----------------------o
| patched     |  355      |   1.50    |  440      |   8.90    |
o-------------o-----------------------o-----------------------o
"""


def test_a_table_ruled_with_other_corners_under_grouped_columns(tmp_path: Path) -> None:
    """Rules drawn with `o` corners are rules; the row of wide cells over the header gives
    each column its group (numjobs), and each column's name its unit and metric."""
    got = {(dict(c.condition).get("numjobs"), c.unit): (c.metric, c.baseline, c.patched)
           for c in claims(tmp_path, DRAWN)}
    assert got == {
        ("4", "KIOPS"): ("throughput", 310, 355), ("4", "msec"): ("latency", 1.72, 1.50),
        ("32", "KIOPS"): ("throughput", 402, 440), ("32", "msec"): ("latency", 9.81, 8.90)}


def test_a_word_with_dashes_is_no_rule() -> None:
    from analyze.claims.tables.pipe_runs import plain_rules
    lines = ["x-axis --- time", "+-----+-----+", "x-----x-----x", "├─────┼─────┤"]
    assert plain_rules(lines) == [lines[0], lines[1], "+-----+-----+", "+-----+-----+"]


TOOL_RUNS = """\
Two threads on a single
core, baseline kernel:

$ ./bench -q 64 -b 4096 /dev/nvme0n1
Opened device /dev/nvme0n1 (queue 0)
Engine=aio, sq_ring=128, cq_ring=128
IOPS=1210K, BW=4727MiB/s
IOPS=1208K, BW=4719MiB/s

and with the series applied:

$ ./bench -q 64 -b 4096 /dev/nvme0n1
Opened device /dev/nvme0n1 (queue 0)
Engine=aio, sq_ring=128, cq_ring=128
IOPS=1388K, BW=5422MiB/s
IOPS=1391K, BW=5433MiB/s
"""


def test_a_caption_in_words_ending_in_a_colon_is_no_table_header(tmp_path: Path) -> None:
    """`core, baseline kernel:` (a sentence's wrapped end) names a side, but it leads into the run below it:
    the run's settings line (`sq_ring=128, cq_ring=128`) is no row of a table under it. The two
    runs pair by their result lines, and the tool's own output lines are no headings."""
    got = claims(tmp_path, TOOL_RUNS)
    assert sorted((c.baseline, c.patched) for c in got) == [(1210, 1388), (4727, 5422)]
    assert not any("Opened device" in v for c in got for _, v in c.condition)


@pytest.mark.parametrize(("body", "expected"), [
    # a level a word of change reaches is no change; the change is by how much
    ("The table grows at 80% occupancy and shrinks at 20% occupancy, a cheap lookup.\n", []),
    ("Under load the throughput grew 12% with this series.\n", [12.0]),
    ("The patch gains close to 7% in throughput on the small-packet test.\n", [7.0]),
    # a bound of a level: the words of the bound say no change
    ("With the filter off, CPU usage is less than 2% on that box.\n", []),
    ("Throughput is more than 9% faster with the series.\n", [9.0]),
])
def test_a_level_a_percentage_reaches_is_no_change(tmp_path: Path, body: str,
                                                   expected: list[float]) -> None:
    got = claims(tmp_path, body)
    assert sorted(abs(c.stated_change_pct or 0) for c in got) == expected


def test_a_maximum_raised_is_a_limit_not_a_result(tmp_path: Path) -> None:
    got = claims(tmp_path, "Allow counting up to 4096 hits per entry instead of only 64, so that "
                           "long-lived flows keep their history.\n")
    assert got == []


def test_fios_share_of_the_group_is_no_result(tmp_path: Path) -> None:
    got = claims(tmp_path, "Without the patch:\n  bw (MiB/s): min= 1903, max= 2114, per=100.00%, "
                           "avg=2011.31\n\nWith the patch:\n  bw (MiB/s): min= 1990, max= 2202, "
                           "per=100.00%, avg=2095.72\n")
    assert [(c.baseline, c.patched, c.unit) for c in got] == [(2011.31, 2095.72, "MiB/s")]


def test_a_figure_under_a_condition_before_instead_of_is_the_alternatives(tmp_path: Path) -> None:
    """"X instead of Y" gives the new figure first, unless X is what a condition would give:
    "it takes 40s if I walk the whole list instead of 4s" puts the alternative's figure
    first, so it is the baseline."""
    (c,) = claims(tmp_path, "With big sets the lookup is slow (it takes 40s if I walk the "
                            "whole list instead of 4s), so the new walk matters.\n")
    assert (c.baseline, c.patched, c.direction) == (40, 4, "improvement")
    (c,) = claims(tmp_path, "The rebuild now takes 4s instead of 40s.\n")
    assert (c.baseline, c.patched) == (40, 4)


def test_what_may_happen_from_one_count_to_another_is_no_result(tmp_path: Path) -> None:
    assert claims(tmp_path, "- the worker context may grow from 2 to 40\nallocated slots "
                            "for timer ticks, which saves memory for\nsmall setups\n") == []
    (c,) = claims(tmp_path, "With the series the forwarding rate can go from 5 Mpps to "
                            "7 Mpps on one core.\n")
    assert (c.baseline, c.patched, c.unit) == (5, 7, "Mpps")


def test_the_wrapped_end_of_a_result_line_is_no_sides_caption(tmp_path: Path) -> None:
    """`patch 703ms` ends a wrapped line of results; it names no run of its own, so the
    lines above and below it are no baseline and patched runs."""
    got = claims(tmp_path, "It improved very little here:\n\n"
                           "100K entries ~ avg. insert mainline 310ms series 420ms this \n"
                           "patch 401ms\n"
                           "400K entries ~ avg. insert mainline 3160ms series 4370ms this \n"
                           "patch 4254ms\n")
    assert not any((c.baseline, c.patched) in ((310, 3160), (420, 4370)) for c in got)


@pytest.mark.parametrize("body", [
    "We meant to send a 30 ms sleep instead of the 15 ms delay, but your fix is better.\n",
    "This switches the rings to 16 byte descriptors instead of 32 byte descriptors.\n",
    "The link is polled every 400ms by default. The timer is decreased to 20ms while "
    "the link trains.\n",
])
def test_what_was_set_is_no_result(tmp_path: Path, body: str) -> None:
    assert claims(tmp_path, body) == []


def test_a_result_beside_a_setting_word_is_still_one(tmp_path: Path) -> None:
    (c,) = claims(tmp_path, "Opening the port took 500ms. With the patch this dropped to 40ms.\n")
    assert (c.baseline, c.patched) == (500, 40)


@pytest.mark.parametrize(("body", "expected"), [
    # the stated change orders the two sides `vs` sets against each other
    ("Measured with the nop benchmark, batch 16: 18 vs 23.5 MIOPS, or ~30% win.\n",
     (18, 23.5, "MIOPS", 30.0)),
    ("p99 latency 240 vs 200 usec (-17%) on the small box.\n", (240, 200, "usec", -17.0)),
    ("Peak rate 31.5 vs 24 Mpps with and without, ~30% better.\n", (24, 31.5, "Mpps", 30.0)),
])
def test_a_pair_set_against_each_other_is_ordered_by_its_stated_change(
        tmp_path: Path, body: str, expected: tuple[float, float, str, float]) -> None:
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.unit, c.stated_change_pct) == expected


def test_a_pair_set_against_each_other_that_its_change_cannot_order_is_not_guessed(
        tmp_path: Path) -> None:
    got = claims(tmp_path, "We see 10 vs 10.1 Mpps, a 1% gain.\n")
    assert [(c.baseline, c.patched) for c in got] == [(None, None)]


def test_a_rate_moved_from_one_figure_to_another_is_a_result_whatever_it_is_of(
        tmp_path: Path) -> None:
    (c,) = claims(tmp_path, "This bumps our per-core IO limit from ~2.9M IOPS to ~3.3M IOPS.\n")
    assert (c.baseline, c.patched, c.unit) == (2.9, 3.3, "MIOPS")


NO_DIFFERENCE = """\
Tested on the 2-socket box, 5 runs each; no difference discernible from noise:

Before:             3310 3308 3312 Mb/sec
After:              3318 3311 3315 Mb/sec

Small packets did change:

Before:             1210 1208 1207 Mb/sec
After:              1399 1401 1398 Mb/sec
"""


def test_the_authors_no_difference_makes_the_results_beside_it_neutral(tmp_path: Path) -> None:
    """The author's verdict right above a run covers its small change; the second run,
    under its own caption, keeps the direction its figures give."""
    got = {c.baseline: c.direction for c in claims(tmp_path, NO_DIFFERENCE)}
    assert got == {3310: "neutral", 1210: "improvement"}


def test_a_change_larger_than_noise_beside_a_verdict_is_the_authors_exception(
        tmp_path: Path) -> None:
    body = ("Generally neutral, except for the smallest size:\n\n"
            "Before:             3310 3308 3312 Mb/sec\nAfter:              3900 3911 3915 Mb/sec\n")
    (c,) = claims(tmp_path, body)
    assert c.direction == "improvement"


def test_mmtests_netperf_stream_tables_are_throughput(tmp_path: Path) -> None:
    body = ("netperf-tcp\n                      base                  patched\n"
            "Hmean     64        1204.25 (   0.00%)     1259.90 *   4.62%*\n"
            "Hmean     128       2376.89 (   0.00%)     2479.71 *   4.33%*\n")
    assert {c.metric for c in claims(tmp_path, body)} == {"throughput"}


def _machine_table(machine: str, rows: list[tuple[str, str, str, str]]) -> str:
    out = [" ------------.---------------.------------.",
           f" {machine:<12}|  baseline     |  series    |",
           "  1 thread   |_______________|____________|",
           "             |               |            |",
           " ------------|   lookup      |  lookup    |",
           " type  size  |   (Mpps)      |  (Mpps)    |",
           " ------------|---------------|------------|"]
    for kind, size, base, new in rows:
        out += [f" {kind:<11} |               |   {'':<9}|", f"       {size:<5} |   {base:<12}|   {new:<9}|",
                " ------------|---------------|------------|"]
    out[-1] = " ------------'---------------'------------'"
    return "\n".join(out) + "\n"


def test_two_tables_of_one_layout_are_told_apart_by_their_corner_cells(tmp_path: Path) -> None:
    """One table per machine, named in the corner over the rows' labels; each row's label
    runs over two lines of the box (`net,port` over `1000`)."""
    body = ("Lookup rates, five runs each:\n\n"
            + _machine_table("Xeon 6230", [("net,port", "1000", "9.1", "9.8  +8%"),
                                           ("net,mac", "1000", "8.0", "8.9 +11%")])
            + "\n" + _machine_table("Cortex-A72", [("net,port", "1000", "1.10", "1.21 +10%"),
                                                    ("net,mac", "1000", "0.91", "1.02 +12%")]))
    got = {(dict(c.condition).get("table"), dict(c.condition).get("case")): (c.baseline, c.patched)
           for c in claims(tmp_path, body)}
    assert got == {("Xeon 6230", "net,port 1000"): (9.1, 9.8), ("Xeon 6230", "net,mac 1000"): (8.0, 8.9),
                   ("Cortex-A72", "net,port 1000"): (1.10, 1.21),
                   ("Cortex-A72", "net,mac 1000"): (0.91, 1.02)}


TABLES_IN_A_ROW = """\
block size 4096:
+------------+------------+-----------+-------+
| qd_32_4k   | base[kiops]| new[kiops]| delta |
+------------+------------+-----------+-------+
|    read    |    510     |    540    |  5.88 |
|   write    |    470     |    480    |  2.13 |
+------------+------------+-----------+-------+
+------------+------------+-----------+-------+
| qd_32_16k  | base[kiops]| new[kiops]| delta |
+------------+------------+-----------+-------+
|    read    |    300     |    350    | 16.67 |
|   write    |    280     |    300    |  7.14 |
+------------+------------+-----------+-------+
"""


def test_the_next_tables_header_ends_a_table(tmp_path: Path) -> None:
    """Each table's rows are its own: the second header (with a figure in its first cell)
    is no row of the first table, and each table names its rows' condition; the header's
    bracketed `kiops` is the unit."""
    got = {tuple(c.condition): (c.baseline, c.patched, c.unit) for c in claims(tmp_path, TABLES_IN_A_ROW)}
    assert got == {(("qd_32_4k", "read"),): (510, 540, "kiops"), (("qd_32_4k", "write"),): (470, 480, "kiops"),
                   (("qd_32_16k", "read"),): (300, 350, "kiops"), (("qd_32_16k", "write"),): (280, 300, "kiops")}


def test_each_side_of_fio_output_keeps_its_own_unit(tmp_path: Path) -> None:
    body = ("Without the patch:\n   lat (nsec): min=8269, max=61635, avg=9240.65\n\n"
            "With the patch:\n   lat (usec): min=9, max=982, avg=10.53\n")
    (c,) = claims(tmp_path, body)
    assert (c.unit, c.patched_unit, c.direction) == ("nsec", "usec", "regression")
    assert c.change_pct == pytest.approx(100 * (10530 - 9240.65) / 9240.65)


def test_binary_bit_rates_and_lower_case_kiops_are_units() -> None:
    from analyze.claims.tables.roles import unit_in_text
    assert unit_in_text("total bandwidth(Mib/s)") == "Mib/s"
    assert unit_in_text("base[kiops]") == "kiops"
    assert unit_in_text("times are in nanoseconds") == "nanoseconds"  # `times` is no unit


def test_counts_of_things_a_run_saw_are_no_results(tmp_path: Path) -> None:
    """Whole numbers with no unit under a label that counts things (chronyc's timestamp
    counts) support a result; so does a ratio of packets counted per queue."""
    runs = ("Without the patch:\nNTP kernel TX timestamps   : 1210956\n\n"
            "With the patch:\nNTP kernel TX timestamps   : 646146\n")
    assert claims(tmp_path, runs) == []
    assert claims(tmp_path, "On average queue 3 shows 2.9 times more packets sent there than "
                            "to the other queues.\n") == []
    assert claims(tmp_path, "With busy polling we see 40% fewer sendto() calls.\n") == []
    (c,) = claims(tmp_path, "With the patch we get 30% more packets per second on one core.\n")
    assert c.stated_change_pct == 30.0


def test_an_id_after_the_parent_in_references_is_no_quotes_origin(tmp_path: Path) -> None:
    """References run oldest first and end with the parent; a mailer that appends the
    reply's own alias after it does not make that alias the quoted figures' origin."""
    mail = tmp_path / "m.eml"
    mail.write_text("From: A <a@example.org>\nSubject: Re: [PATCH] io: x\nMessage-ID: <r@example.org>\n"
                    "In-Reply-To: <parent@example.org>\n"
                    "References: <root@example.org> <parent@example.org> <alias@example.org>\n"
                    "Date: Mon, 1 Jan 2024 00:00:00 +0000\n\n"
                    "> > Before: 4100 Mb/sec\n> > After: 4700 Mb/sec\n>\n> Nice.\n\nThanks.\n",
                    encoding="utf-8")
    (c,) = analyze_files([mail]).claims
    assert c.message_id == "root@example.org"


def test_code_sizes_printed_by_size_are_no_claims(tmp_path: Path) -> None:
    body = ("arm64-before:\ntext    data     bss     dec     hex filename\n"
            " 812     402       0    1214     4be foo.o\n1190     410       0    1600     640 bar.o\n"
            "total data: 812\n\narm64-after:\ntext    data     bss     dec     hex filename\n"
            "1702     808       0    2510     9ce foo.o\ntotal data: 808\n")
    assert claims(tmp_path, body) == []


def test_a_firmware_logs_lines_are_no_tables_rows(tmp_path: Path) -> None:
    """`[ 0.015116735,6]` stamps a log line with its level: the line is no row of a table
    whose header happens to stand above it."""
    body = ("Build reference: next-20240105\n\n"
            "[    0.014094328,6] MFSI 0:0: Initialized\n"
            "[    0.015116735,6] CPU:  1 secondary threads\n"
            "[    0.016079682,5] PLAT: Using SuperIO UART\n")
    assert claims(tmp_path, body) == []


def test_a_paragraph_over_a_table_lends_it_no_unit_of_its_own_figures(tmp_path: Path) -> None:
    """The sentence over the table names a send size (`4KB bytes per send`): the table's unit
    is its header's (`Kqps`), never the size the paragraph above is set up with."""
    body = ("The zero-copy example shows a 5 times performance improvement for TCP\n"
            "with 4KB bytes per send, and levels it with the copy path.\n\n"
            "bytes  | before | after (Kqps)\n1200   | 185    | 923\n4000   | 183    | 1286\n")
    got = {c.baseline: (c.metric, c.unit) for c in claims(tmp_path, body)}
    # (the ratio restates the first row, 185 -> 923: one claim)
    assert got == {185: ("throughput", "Kqps"), 183: ("throughput", "Kqps")}


def test_mmtests_measure_in_the_row_key_is_the_unit(tmp_path: Path) -> None:
    body = ("ebizzy Overall Throughput\n"
            "Hmean     Rsec-1    102650.58 (   0.00%)   107498.40 (   4.72%)\n"
            "Hmean     Rsec-3    403238.27 (   0.00%)   395083.09 (  -2.02%)\n")
    assert {(c.unit, c.metric) for c in claims(tmp_path, body)} == {("Rsec", "throughput")}


def test_an_authors_zero_percent_beside_close_figures_is_neutral(tmp_path: Path) -> None:
    got = claims(tmp_path, "Before: 183 MB/s\nAfter: 184 MB/s (+0%)\n")
    assert [(c.baseline, c.patched, c.direction) for c in got] == [(183, 184, "neutral")]


def test_iperfs_lost_datagrams_share_is_no_stated_change(tmp_path: Path) -> None:
    body = ("Without the patch:\n[  5]   0.00-20.00  sec  1.05 GBytes   451 Mbits/sec  0.000 ms  0/778672 (0%)\n\n"
            "With the patch:\n[  5]   0.00-20.00  sec  1.36 GBytes   586 Mbits/sec  0.000 ms  0/1011407 (0%)\n")
    (c,) = claims(tmp_path, body)
    assert (c.baseline, c.patched, c.stated_change_pct, c.direction) == (451, 586, None, "improvement")


GROUPED_SIDES = """\
|                      |      Baseline     |     rework      |
|                      |   Cycles |     ns | Cycles |     ns |
|----------------------+----------+--------+--------+--------|
| bench01_fast_path    |       21 |  5.913 |     18 |  5.016 |
| bench02_ring         |       58 | 16.160 |     51 | 14.064 |
"""


def test_sides_over_spans_pair_each_measure_with_its_own(tmp_path: Path) -> None:
    """The top header names the sides over two columns each; the second names what each
    column measures: Cycles pairs with Cycles, ns with ns, never a side's Cycles with its ns."""
    got = {(dict(c.condition)["case"], c.unit): (c.baseline, c.patched, c.metric)
           for c in claims(tmp_path, GROUPED_SIDES)}
    assert got == {("bench01_fast_path", "Cycles"): (21, 18, "cpu"),
                   ("bench01_fast_path", "ns"): (5.913, 5.016, "latency"),
                   ("bench02_ring", "Cycles"): (58, 51, "cpu"),
                   ("bench02_ring", "ns"): (16.16, 14.064, "latency")}


def test_a_frequency_set_and_per_cpu_counts_are_no_results(tmp_path: Path) -> None:
    assert claims(tmp_path, "This changes the sampling rate from 100Hz to 1000Hz.\n") == []
    assert claims(tmp_path, "That means we do 64 per-cpu aggregations instead of 1 here.\n") == []


def test_commands_and_parameters_set_are_no_results(tmp_path: Path) -> None:
    """A command typed at a prompt sets a run up (`[dom0]# echo 1024 > ...`), and a
    parameter moved from one value to another is a setting: neither is a result."""
    body = ("Default:\n\n    [dom0]# echo 512 > /sys/module/foo/parameters/max_pages\n"
            "    10.5 MB/s\n\nWorst case:\n\n    [dom0]# echo 0 > /sys/module/foo/parameters/max_pages\n"
            "    10.1 MB/s\n")
    assert not any(c.baseline == 512 for c in claims(tmp_path, body))
    assert claims(tmp_path, "I just changed the template's max_sectors from 32767 to 64.\n") == []


def test_a_changes_figures_in_brackets_after_it_are_its_pair(tmp_path: Path) -> None:
    (c,) = claims(tmp_path, "For 1M blocks:\n\t\t1800% improvement in IO BW (120 MiB/s to 2280 MiB/s).\n")
    assert (c.baseline, c.patched, c.unit, c.stated_change_pct) == (120, 2280, "MiB/s", 1800.0)


def test_a_default_column_beside_a_patched_one_is_the_baseline(tmp_path: Path) -> None:
    """`default` over one column and `patched` over the other: the default is the side the
    switch has off; a caption's aside under the header (`ro (w/o -rw=rw)`) is no header,
    and a row's own number (`Instance 1`) is its label, never a side."""
    body = ("\t\tdefault\t\t\t\tpatched\nro (w/o -rw=rw option)\n"
            "Instance 1\tr=11.3GiB/s\t\t\tr=35.4GiB/s\nInstance 2\tr=11.2GiB/s\t\t\tr=35.1GiB/s\n")
    got = sorted((c.baseline, c.patched, c.unit) for c in claims(tmp_path, body))
    assert got == [(11.2, 35.1, "GiB/s"), (11.3, 35.4, "GiB/s")]


def test_sizes_moved_by_an_arrow_with_no_word_of_memory_used_are_settings(tmp_path: Path) -> None:
    got = claims(tmp_path, "The plan:\n\n- 64k --> 2 MiB journey next.\n- Memory used: 70 MiB -> 43 MiB\n")
    assert [(c.baseline, c.patched, c.metric) for c in got] == [(70, 43, "memory")]


def test_a_change_column_written_without_a_percent_sign_is_the_pairs_change(
        tmp_path: Path) -> None:
    """`delta` over `6.70`: the figure is the pair's change when the pair works out to it;
    an absolute delta (bloat-o-meter's, `+12`) is no percentage."""
    body = ("| test  | base[kiops] | new[kiops] | delta |\n|-------|-------------|------------|-------|\n"
            "| read  |     567     |    605     | 6.70  |\n| write |     551     |    563     | 12    |\n")
    got = {c.baseline: c.stated_change_pct for c in claims(tmp_path, body)}
    assert got == {567: 6.70, 551: None}


def test_a_row_labels_hyphenated_number_stays_in_the_label(tmp_path: Path) -> None:
    body = ("As client:\n                      base     patched\nTCP_STREAM send-64    734.14   754.20\n"
            "TCP_STREAM send-128  1401.91  1495.05\n")
    got = {dict(c.condition).get("row") or dict(c.condition).get("case") for c in claims(tmp_path, body)}
    assert got == {"TCP_STREAM send-64", "TCP_STREAM send-128"}


CLOSING_VERDICT = """\
Sequential write:
| Threads | Without patch | With patch |
| 1       | 1000          | 1004       |
| 8       | 7400          | 7385       |

Random read:
| Threads | Without patch | With patch |
| 1       | 900           | 903        |
| 8       | 6100          | 6500       |

Note: the 8-thread random read runs vary from boot to boot.

Across the runs I cannot see much influence of the patch.
"""


def test_a_verdict_closing_several_tables_covers_each(tmp_path: Path) -> None:
    """The author's verdict after the results (past other tables and one note) makes the
    small changes of every table above it neutral; a large one stays as its figures say."""
    got = {c.baseline: c.direction for c in claims(tmp_path, CLOSING_VERDICT)}
    assert got == {1000: "neutral", 7400: "neutral", 900: "neutral", 6100: "improvement"}


def test_a_rows_iops_and_bandwidth_are_told_apart(tmp_path: Path) -> None:
    body = ("4k random read:\n\n"
            "Before:  IOPS=410k, BW=1601MiB/s\n"
            "After:   IOPS=455k, BW=1777MiB/s\n")
    got = {c.unit: c.condition for c in claims(tmp_path, body)}
    assert got == {"kIOPS": (("measure", "IOPS"),), "MiB/s": (("measure", "bandwidth"),)}


OUTLINE = (
    "Results, copy offload against a read and a write:\n"
    "\tSetup A: link 10 Gb/s\n"
    "\t\tHost: a desktop box\n"
    "\t\tblock size 4k:\n"
    "\t\t\t80% improvement in IO BW (100 MiB/s to 180 MiB/s).\n"
    "\t\t\tNetwork utilisation drops from  95% to 20%.\n"
    "\t\tblock-size 1M:\n"
    "\t\t\t900% improvement in IO BW (110 MiB/s to 1100 MiB/s).\n"
    "\tSetup B: link 100 Gb/s\n"
    "\t\tHost: a server\n"
    "\t\tblock-size 4k:\n"
    "\t\t\t5% improvement in IO BW (700 MiB/s to 735 MiB/s).\n"
    "\t\t\tNetwork utilisation drops from  7% to 0.2%.\n"
    "\t\tblock-size 1M:\n"
    "\t\t\t20% improvement in IO BW (1000 MiB/s to 1200 MiB/s).\n")


def test_an_outlines_levels_tell_its_cases_apart(tmp_path: Path) -> None:
    """Cases indented under setups: the case's label, and the setup's where two setups
    hold the same case (`block size 4k` and `block-size 4k` are one label typed twice); a
    double blank in a sentence hides no pair, and each line indented by tabs is its own."""
    got = {(c.baseline, c.patched): dict(c.condition) for c in claims(tmp_path, OUTLINE)}
    # (a caption right over the first setup is one heading with it, joined by ` / `)
    assert got[(100, 180)]["section"] == "block size 4k"
    assert got[(100, 180)]["heading"].endswith("Setup A: link 10 Gb/s")
    assert got[(700, 735)] == {"section": "block-size 4k", "heading": "Setup B: link 100 Gb/s"}
    assert "Setup A" in got[(110, 1100)]["heading"] and "Setup B" in got[(1000, 1200)]["heading"]
    assert (95, 20) in got and (7, 0.2) in got


SPACED_TABLE = """\
fio, queue depth 1, 4k blocks, 10 minutes a run:

                 buffered writes:
                 without patch                 with patch
  throughput:       310 MiB/s                    980 MiB/s
  iops:              79k                          250k
  clat (nsec)      9100                            70

  CPU util%:         41%                          80%


                 direct writes:
                 without patch                 with patch
  throughput:       290 MiB/s                    900 MiB/s
  iops:              74k                          230k
  clat (nsec)      9800                            65

  CPU util%:         55%                          86%
"""


def test_a_last_row_after_a_blank_is_still_the_table_and_rows_head_nothing(tmp_path: Path) -> None:
    """A row of the table's shape set off by one blank line (what a `=20` at a row's end
    decodes to) is the table's last row; the rows above a claim are no headings of it: each
    claim is named by the table's caption only."""
    got = {(c.line, c.baseline, c.patched): dict(c.condition) for c in claims(tmp_path, SPACED_TABLE)}
    assert got[(9, 41, 80)] == {"section": "buffered writes"}
    assert got[(18, 55, 86)] == {"section": "direct writes"}
    assert got[(6, 79, 250)] == {"measure": "IOPS", "section": "buffered writes"}
    assert len(got) == 8


def test_a_lone_row_after_a_blank_under_prose_is_no_row(tmp_path: Path) -> None:
    # (a row of a different shape, or text after it, ends the table at the blank)
    text = SPACED_TABLE.replace("  CPU util%:         41%                          80%",
                                "  CPU util%:         41%")
    got = {(c.baseline, c.patched) for c in claims(tmp_path, text)}
    assert (41, 80) not in got and (55, 86) in got


def test_a_side_label_with_a_note_mark_and_a_scale_the_run_names(tmp_path: Path) -> None:
    """`Before[1]: 5.10M` is a side label with a note's mark; the run under `[1]` prints the
    same figure as `IOPS=5.10M`, which says what the bare `M` counts."""
    body = ("With the change:\nBefore[1]: 5.10M\nAfter[2]: 5.92M\n\n"
            "[1]\n# t/io_uring -b512 -d128 /dev/nvme0n1\nIOPS=5.02M, BW=2.45GiB/s\n"
            "IOPS=5.10M, BW=2.49GiB/s\nExiting on timeout\n\n"
            "[2]\n# t/io_uring -b512 -d128 /dev/nvme0n1\nIOPS=5.90M, BW=2.88GiB/s\n"
            "IOPS=5.92M, BW=2.89GiB/s\nExiting on timeout\n")
    got = [(c.baseline, c.patched, c.unit, c.metric) for c in claims(tmp_path, body) if c.line == 2]
    assert got == [(5.10, 5.92, "MIOPS", "throughput")]


def test_a_note_under_a_table_says_its_figures_are_times(tmp_path: Path) -> None:
    """`Numbers are times so lower is better` under a table of bare figures: each is a time,
    and a fall is an improvement."""
    body = ("dbench on XFS, one disk behind a RAID card:\n\n"
            "      clients           base              patched\n"
            "Amean 1      40.10 (0.00%)       37.20 *   7.23%*\n"
            "Amean 8     612.40 (0.00%)      360.10 *  41.20%*\n\n"
            "Numbers are times so lower is better.\n")
    got = {(c.baseline, c.patched): (c.metric, c.direction) for c in claims(tmp_path, body)}
    assert got[(40.10, 37.20)] == ("time", "improvement")
    assert got[(612.40, 360.10)] == ("time", "improvement")


def test_a_sentence_over_a_tables_groups_gives_their_unit(tmp_path: Path) -> None:
    """The paragraph that introduces a table (`... in seconds is as follows.`) stands over
    its groups' line (`ext4  xfs`), not right over the header: its unit is the figures'."""
    body = ("Parallel lookup of 200k files per thread, with the thread count varied,\n"
            "in seconds is as follows. Ideal scaling keeps the time flat.\n\n"
            "\t\text4\t\t\txfs\n"
            "threads\t\tvanilla\t patched\tvanilla\tpatched\n"
            "4\t\t 8.150\t  7.530\t\t 9.100\t 8.500\n"
            "16\t\t24.600\t  9.540\t\t24.610\t13.990\n")
    got = {(c.baseline, c.patched): (c.metric, c.unit, c.direction) for c in claims(tmp_path, body)}
    assert got[(24.6, 9.54)] == ("time", "seconds", "improvement")


def test_a_caption_further_up_names_what_a_bare_scale_counts(tmp_path: Path) -> None:
    """`Test results (IOPS):` over setup lines and cases: the bare `M` of each `vs` pair is
    MIOPS; a pair whose percentage was cut rather than rounded (`2.54M vs. 2.6M, +2.3%`) is
    read, a gap after its comma is no table cell, and each case is named by its list label."""
    body = ("Test results (IOPS):\n\n- copy mode\n\nkublk add -t null -q 16\n\n"
            "- zero copy mode\nkublk add -t null -q 16 --zc\n\n"
            "- IO test\nt/io_uring -p0 -n $JOBS -r 30 /dev/ublkb0\n\n"
            "1) 8 jobs\n"
            "- copy mode:  \t\t\t2.54M vs. 2.6M(batched),   +2.3%\n"
            "- zero copy mode: 3.13M vs. 3.35M(batched),  +7%\n")
    got = {(c.baseline, c.patched): (c.unit, c.metric, dict(c.condition).get("for"))
           for c in claims(tmp_path, body)}
    assert got == {(2.54, 2.6): ("MIOPS", "throughput", "copy mode"),
                   (3.13, 3.35): ("MIOPS", "throughput", "zero copy mode")}


@pytest.mark.parametrize("body", [
    # an lspci dump whose long lines wrap
    "lspci -vvv:\n\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0\n\t\tDevCtl:\tReport errors\n"
    "\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x4, ASPM L1, Exit Latency L0s \n<512ns, L1 <16us\n"
    "\t\tLnkSta:\tSpeed 5GT/s, Width x4\n\t\tLnkCap:\tPort #1, Speed 5GT/s, Exit Latency L0s \n"
    "<2us, L1 <16us\n",
    # a structure's shape changed for performance's sake, and a field's place
    "Due to performance reasons the number of layers of the scheduler tree is changing "
    "from 9 to 5.\n",
    "Switching from 9 to 5 layers topology gives 512 leaves, which improves performance.\n",
    "It is described as a bitmap of the recipes, it is from 24 to 31 byte area in FW.\n",
])
def test_what_the_hardware_or_a_structure_is_is_no_claim(tmp_path: Path, body: str) -> None:
    assert claims(tmp_path, body) == []


def test_an_author_who_sees_no_difference_makes_small_changes_neutral(tmp_path: Path) -> None:
    body = ("When nothing is configured the hook is patched out and doesn't make a performance\n"
            "difference that is discernible from noise:\n\n"
            "Before:             1537 1538 1538 Mb/sec\n"
            "After:              1536 1534 1539 Mb/sec\n")
    assert [(c.baseline, c.patched, c.direction) for c in claims(tmp_path, body)] == [
        (1537, 1536, "neutral")]


def test_what_is_used_up_is_better_lower(tmp_path: Path) -> None:
    """Overhead is a cost (`cpu`), a utilisation falling is a gain, whatever else is named."""
    got = claims(tmp_path, "With the batching the submission overhead drops by 25%.\n")
    assert [(c.metric, c.direction) for c in got] == [("cpu", "improvement")]


def test_a_pair_in_brackets_after_the_sentence_that_states_its_gain(tmp_path: Path) -> None:
    """`showed ~5% performance gain. (7044 KIOPS vs 7423)`: the pair is the gain's; the
    unsigned percentage fits both orders, the gain orders them; the percentage is the
    pair's, no claim of its own."""
    body = ("A basic benchmark with submit and wait of 128 nops showed ~5%\n"
            "performance gain. (7044 KIOPS vs 7423)\n")
    got = [(c.baseline, c.patched, c.unit, c.stated_change_pct) for c in claims(tmp_path, body)]
    assert got == [(7044, 7423, "KIOPS", 5.0)]


def test_names_alone_with_their_percentages_and_ratios_alone_are_told_apart(tmp_path: Path) -> None:
    """A list of names each with its change (`XDP_PASS   -1,2%`) names each claim by its own
    name, not by the first row as a heading; ratios stated alone (`6x improvement in drop
    rate`, `4.5x improvement in l2fwd rate`) under headings that do not tell them apart are
    siblings, told apart by what each is of."""
    body = ("Numbers gathered with xdp_rxq_info on 1500 MTU:\n\n"
            "XDP_DROP      +1%\nXDP_PASS      -1,2%\nXDP_TX        -0,5%\n\n"
            "xdpsock rxdrop 2 cores (app and irq pinned to different cores)\n"
            "   default : taskset -c 3 ./xdpsock -i eth0 -r -q 1\n"
            "6x improvement in drop rate\n\n"
            "xdpsock rxdrop 2 cores (app and irq pinned to different cores)\n"
            "   default : taskset -c 3 ./xdpsock -i eth0 -l -q 1\n"
            "4.5x improvement in l2fwd rate\n")
    got = sorted(dict(c.condition).get("for") or "" for c in claims(tmp_path, body))
    assert got == ["XDP_DROP", "XDP_PASS", "XDP_TX", "drop rate", "l2fwd rate"]


def test_a_sentence_ending_in_a_side_captions_the_run_below_it(tmp_path: Path) -> None:
    """`or around 3.1M IOPS (single thread, single core), and after:` ends in the side of
    the run under it: the two t/io_uring runs pair, and the ~10% said after them is theirs."""
    run = ("host> sudo taskset -c 0 t/io_uring -b512 -d128 -s32 -c32 -p1 /dev/nvme3n1\n"
           "Added file /dev/nvme3n1 (submitter 0)\n"
           "polled=1, fixedbufs=1, register_files=1, buffered=0 QD=128\n"
           "IOPS={}, IOS/call=32/31, inflight=128 (128)\n")
    body = ("As a reference. Before the patch:\n\n" + run.format(3111520)
            + "\nor around 3.1M IOPS (single thread, single core), and after:\n\n"
            + run.format(3417120) + "\nwhich is about a ~10% increase in per-core IOPS.\n")
    got = [(c.baseline, c.patched, c.unit, c.stated_change_pct) for c in claims(tmp_path, body)]
    assert got == [(3111520, 3417120, "IOPS", 10.0)]


def test_a_header_of_statistics_over_time_rows_gives_the_mean(tmp_path: Path) -> None:
    """`avg min max stdev` over `real 0.205 0.190 0.266 0.011`: the mean is each side's
    figure (rule 4), in seconds, `time`'s wall clock; the other columns are its spread."""
    block = "        avg     min     max     stdev\nreal    {}\nuser    0.017   0.007   0.029   0.004\n"
    body = ("Tested with v6.1 and performance is much worse than with the test patch:\n\n"
            "test patch:\n" + block.format("0.205   0.190   0.266   0.011")
            + "\n6.1.0-rc3-00016-gb2534357:\n" + block.format("0.725   0.200   18.090  2.279"))
    got = [(c.baseline, c.patched, c.unit, c.metric, c.direction) for c in claims(tmp_path, body)]
    assert got == [(0.725, 0.205, "s", "time", "improvement")]


def test_shares_and_sizes_are_no_changes(tmp_path: Path) -> None:
    for body in ("This reduced the time spent waiting on the TX side from 3.12% to 0.3%.\n",
                 "The overhead taken by io_req_local_work_add() goes from 3% -> 0.5% here.\n",
                 "Things like blk-map grow ~6% more text, and bio ~3%.\n",
                 "Code size reduced by 24.913%.\n",
                 "-rw-rw-r-- 1 user users 5120 jan 3 13.52 xt_dscp.o\n"
                 "-rw-rw-r-- 1 user users 8000 jan 3 14.09 xt_dscp.o\n",
                 "Before:\nio_iopoll_complete: 5.29%\n\nAfter:\nio_iopoll_complete: 3.39%\n"):
        assert claims(tmp_path, body) == [], body
    # (a measure's own name in snake case is no function's)
    got = claims(tmp_path, "Before:\ncpu_util: 5.29%\n\nAfter:\ncpu_util: 3.39%\n")
    assert [(c.baseline, c.patched) for c in got] == [(5.29, 3.39)]


BOX = """\
Throughput against the tree back-end:

 ---------------.--------------------------.-------------------------.
 Box, 1 thread  |      baselines, Mpps     |   Mpps, % over tree     |
 type   entries |  drop  |  hash  |  tree  |   new      |  new AVX2  |
 ---------------|--------|--------|--------|------------|------------|
 port,proto     |        |        |        |            |            |
         10000  |   19.6 |   11.6 |    4.4 | 2.1   -52% | 5.6   +27% |
 ---------------|--------|--------|--------|------------|------------|
 port,proto     |        |        |        |            |            |
 4 threads 10000|   77.9 |   45.1 |   17.4 | 8.3   -52% |22.4   +29% |
 ---------------|--------|--------|--------|------------|------------|
 net,mac        |        |        |        |            |            |
          1000  |   19.0 |    8.4 |    3.9 | 6.0   +54% | 9.9  +154% |
 ---------------'--------'--------'--------'------------'------------'
"""


def test_a_label_cell_with_numbers_of_its_own_moves_no_column(tmp_path: Path) -> None:
    """`4 threads 10000|` holds two numbers where the other rows' label cells hold one: the
    baseline is still the cell the percentages are of (`tree`), and the label is the cell."""
    got = {(c.baseline, c.patched): dict(c.condition).get("case") for c in claims(tmp_path, BOX)}
    assert got[(17.4, 22.4)] == "port,proto 4 threads 10000"
    assert got[(17.4, 8.3)] == "port,proto 4 threads 10000"
    assert (45.1, 22.4) not in got and got[(4.4, 5.6)] == "port,proto 10000"


def test_a_functional_tests_log_and_a_drives_smart_log_are_no_results(tmp_path: Path) -> None:
    body = ("Before:\nxfs/288 1s ...  2s\ngeneric/001 12s ...  11s\n\n"
            "After:\nxfs/288 2s ...  1s\ngeneric/001 11s ...  12s\n")
    assert claims(tmp_path, body) == []
    body = ("Before:\nPercentage Used:                    4%\nData Units Read:   32,373,823 [16.5 TB]\n\n"
            "After:\nPercentage Used:                    5%\nData Units Read:   32,999,101 [16.8 TB]\n")
    assert claims(tmp_path, body) == []


def test_an_unqualified_verdict_covers_changes_of_a_few_percent(tmp_path: Path) -> None:
    """"I cannot see much influence" after the tables covers their changes up to 3 %; a
    verdict that singles out cases ("overall no noticeable differences, except ...")
    covers only the changes of noise."""
    table = ("As client (tx path):\n                     Before    After\n"
             "TCP_STREAM send-64   734.14    714.20\nTCP_STREAM send-128  1401.91   1395.05\n\n")
    got = claims(tmp_path, "Numbers before/after:\n\n" + table
                 + "Notice: the TCP_RR mode is unstable.\n\n"
                 "Though the result is not that accurate, I cannot see much influence of this patch.\n")
    assert {(c.baseline, c.direction) for c in got} == {(734.14, "neutral"), (1401.91, "neutral")}
    got = claims(tmp_path, "Numbers before/after:\n\n" + table
                 + "Overall no noticeable differences, except for the smallest sends.\n")
    assert {(c.baseline, c.direction) for c in got} == {(734.14, "regression"), (1401.91, "neutral")}


def test_a_change_of_a_spread_is_no_claim(tmp_path: Path) -> None:
    body = ("(3) Better stdev:\n    1 iodepth, 1 numjobs, randwrite bs=4K: new stdev=36.45 vs old\n"
            "stdev=937.81, about 30 times improvement.\n")
    assert claims(tmp_path, body) == []
