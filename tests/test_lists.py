"""Lists → Measurements (issue 3, "Tables and lists"): seed 004 and altered copies of it,
each list format, negatives, and hostile input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tables import body_blocks, lines_of

from analyze.claims.lists.read import find_list_measurements

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers

SEED_004 = "004_19b1e878a2b8005e.txt"
BEFORE_004 = [494016, 612806, 673100, 696982, 710494, 716830, 714729, 713478, 711056]
AFTER_004 = [517159, 628382, 669688, 706181, 716660, 719581, 718738, 718904, 718344]
STATED_004 = [4.684733558, 2.541860742, -0.5069080835, 1.319833855, 0.8677995555,
              0.3838661811, 0.5609585358, 0.7605470482, 1.02509555]


def lists_of(text: str):
    return [m for block in body_blocks(text) for m in find_list_measurements(block)]


def signed(q) -> float:
    return abs(q.value) * (q.sign or 1)


def pairs(ms):
    return [(m.baseline.value, m.patched.value) for m in ms]


def _seed(seeds_dir: Path, replacements: list[tuple[str, str]]) -> str:
    text = (seeds_dir / SEED_004).read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return text


# -- seed 004 -----------------------------------------------------------------------------------

def test_seed_004(seeds_dir: Path):
    ms = lists_of((seeds_dir / SEED_004).read_text())
    assert pairs(ms) == list(zip(BEFORE_004, AFTER_004, strict=True))
    assert [signed(m.stated) for m in ms] == STATED_004
    assert [m.condition for m in ms] == [
        (("instances", v),) for v in ("35", "50", "65", "80", "95", "110", "125", "140", "155")]
    assert all(m.source == "list" and m.unit == "trans./sec" for m in ms)
    assert ms[0].patched.canonical_unit == "trans/s"
    regressions = [m.condition for m in ms if m.patched.value < m.baseline.value]
    assert regressions == [(("instances", "65"),)]


def test_seed_004_other_loop_values_numbers_and_unit(seeds_dir: Path):
    text = _seed(seeds_dir, [
        ("{35,50,65,80,95,110,125,140,155}", "{1,2,4,8,16,32,64,128,256}"),
        ("trans./sec (3.17)\n", "Mbit/s (3.17)\n"),
        ("trans./sec (3.17 + macvlan patch)", "Mbit/s (3.17 + macvlan patch)"),
        ("494016\n", "1000\n"),
        ("517159  +(4.684733558%)", "1100  +(10%)"),
    ])
    ms = lists_of(text)
    assert pairs(ms)[0] == (1000, 1100)
    assert signed(ms[0].stated) == 10
    assert [m.condition[0][1] for m in ms] == ["1", "2", "4", "8", "16", "32", "64", "128", "256"]
    assert ms[0].unit == "Mbit/s" and ms[0].patched.canonical_value == 1.1e9


def test_seed_004_patched_block_first(seeds_dir: Path):
    text = (seeds_dir / SEED_004).read_text()
    start = text.index("trans./sec (3.17)\n")
    middle = text.index("trans./sec (3.17 + macvlan patch)")
    end = text.index("\nOn the host")
    swapped = text[middle:end].rstrip("\n") + "\n\n" + text[start:middle].rstrip("\n") + "\n"
    ms = lists_of(text[:start] + swapped + text[end:])
    assert pairs(ms) == list(zip(BEFORE_004, AFTER_004, strict=True))


def test_seed_004_five_values_and_other_variable(seeds_dir: Path):
    before = "\n".join(str(v) for v in BEFORE_004[:5])
    after = "\n".join(f"{v}  +(1.0%)" for v in AFTER_004[:5])
    text = _seed(seeds_dir, [
        ("for i in {35,50,65,80,95,110,125,140,155};\ndo super_netperf $i netperf",
         "for n in 10 20 30 40 50;\ndo super_netperf $n netperf"),
        ("\n".join(str(v) for v in BEFORE_004), before),
        ("\n".join(f"{v}  +(" for v in AFTER_004[:1]), "PLACEHOLDER"),
    ])
    head, tail = text.split("PLACEHOLDER")
    tail = tail[tail.index("\n\nOn the host"):]
    ms = lists_of(head + after + tail)
    assert [(m.baseline.value, m.condition) for m in ms] == [
        (v, (("instances", c),)) for v, c in zip(BEFORE_004[:5], ("10", "20", "30", "40", "50"),
                                                 strict=True)]


def test_lists_without_role_words_give_nothing(seeds_dir: Path):
    text = _seed(seeds_dir, [("trans./sec (3.17 + macvlan patch)", "trans./sec (second run)")])
    assert lists_of(text) == []


# -- formats ------------------------------------------------------------------------------------

def test_arrows():
    ms = find_list_measurements(lines_of("""
tcp_rr: 512k -> 578k trans/s
4 threads: 3.1 Mpps -> 4.0 Mpps (+29%)
latency p99: 120us => 95us
UDP: 1.2 Gbps → 1.5 Gbps
"""))
    assert pairs(ms) == [(512, 578), (3.1, 4.0), (120, 95), (1.2, 1.5)]
    assert ms[0].unit == "trans/s" and ms[0].context == "tcp_rr"
    assert ms[1].condition == (("threads", "4"),) and signed(ms[1].stated) == 29
    assert ms[2].context == "latency p99"
    assert [m.line for m in ms] == [0, 1, 2, 3]


def test_before_after_one_line_and_two_lines():
    ms = find_list_measurements(lines_of("""
before: 3.1 Mpps, after: 4.0 Mpps
TCP_STREAM w/o patch: 9.2 Gbit/s, with patch: 9.4 Gbit/s (+2%)

before: 10 us
after: 8 us
"""))
    assert pairs(ms) == [(3.1, 4.0), (9.2, 9.4), (10, 8)]
    assert ms[1].context == "TCP_STREAM" and signed(ms[1].stated) == 2
    assert ms[2].line == 3


def test_key_value_runs():
    for text in ("before:\nthroughput=9.41Gbps latency=23us\nafter:\nthroughput=9.52Gbps latency=21us",
                 "before: throughput=9.41Gbps latency=23us\nafter:  throughput=9.52Gbps latency=21us"):
        ms = find_list_measurements(text.split("\n"))
        assert pairs(ms) == [(9.41, 9.52), (23, 21)]
        assert "throughput" in ms[0].context and "latency" in ms[1].context


def test_labelled_items_give_conditions():
    ms = find_list_measurements(lines_of("""
Without the patch:
  1 thread: 3.1 Mpps
  2 threads: 5.9 Mpps
With the patch:
  1 thread: 3.4 Mpps
  2 threads: 6.5 Mpps
"""))
    assert [(m.baseline.value, m.patched.value, m.condition) for m in ms] == [
        (3.1, 3.4, (("threads", "1"),)), (5.9, 6.5, (("threads", "2"),))]


NETPERF_STREAM = """
MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.0.0.2 () port 0 AF_INET
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    10^6bits/sec

 87380  16384  16384    10.00    {value}
"""

NETPERF_RR = """
MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.0.0.2 () port 0
Local /Remote
Socket Size   Request  Resp.   Elapsed  Trans.
Send   Recv   Size     Size    Time     Rate
bytes  Bytes  bytes    bytes   secs.    per sec

16384  87380  1        1       10.00    {value}
16384  87380
"""


def test_netperf_blocks():
    text = ("Before:" + NETPERF_STREAM.format(value="9412.34") + "\nAfter:"
            + NETPERF_STREAM.format(value="9512.34"))
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(9412.34, 9512.34)]
    assert ms[0].unit == "10^6bits/sec" and ms[0].patched.canonical_unit == "bit/s"
    text = ("w/o patch:" + NETPERF_RR.format(value="28012.34") + "\nwith patch:"
            + NETPERF_RR.format(value="29012.34"))
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(28012.34, 29012.34)]
    assert ms[0].patched.canonical_unit == "trans/s"


def test_netperf_runs_with_commands_and_two_tests_each():
    # `$ netperf ...` prompts before each banner, TCP_STREAM then TCP_RR in one run
    run = ("\n$ netperf -6 -H 2001:db8::2 -t TCP_STREAM -l 30" + NETPERF_STREAM.format(value="{s}")
           + "\n$ netperf -6 -H 2001:db8::2 -t TCP_RR -l 30" + NETPERF_RR.format(value="{r}"))
    text = ("base (v6.17-rc4):\n" + run.format(s="9402.18", r="19870.44") + "\npatched:\n"
            + run.format(s="9405.77", r="21344.90"))
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(9402.18, 9405.77), (19870.44, 21344.90)]
    assert [m.patched.canonical_unit for m in ms] == ["bit/s", "trans/s"]


def test_arrow_lines_take_unit_and_metric_from_their_caption():
    ms = find_list_measurements(lines_of("""
neper tcp_rr, 1 byte request/response, transactions per second:

  1 flow:     31245 -> 33510
  8 flows:   210455 -> 228170
"""))
    assert [(m.baseline.value, m.condition, m.patched.canonical_unit) for m in ms] == [
        (31245, (("flows", "1"),), "trans/s"), (210455, (("flows", "8"),), "trans/s")]
    # a caption far above, or a label that is a setting, gives nothing
    assert find_list_measurements(lines_of("""
throughput in Mpps:

some other paragraph

  1 flow:     31245 -> 33510
""")) == []
    assert find_list_measurements(lines_of("throughput in Mpps:\nqueues 1 -> 8")) == []


def test_key_value_units_in_key_names_and_bracketed_spread():
    ms = find_list_measurements(lines_of("""
base:    ops_per_sec=2318004 avg_ns=431
patched: ops_per_sec=3904112 avg_ns=256
"""))
    assert [(m.baseline.value, m.patched.canonical_unit) for m in ms] == [
        (2318004, "ops/s"), (431, "s")]
    ms = find_list_measurements(lines_of("""
net-next:
sockperf: ====> avg-latency=14.212 (std-dev=1.044, mean-ad=0.612, median-ad=0.398)

net-next + series:
sockperf: ====> avg-latency=14.358 (std-dev=1.101, mean-ad=0.640, median-ad=0.402)
"""))
    assert pairs(ms) == [(14.212, 14.358)]


# -- negatives ----------------------------------------------------------------------------------

def test_negatives_give_nothing():
    assert find_list_measurements(lines_of("""
 net/sched/act_police.c | 186 +++++++++++++++++++++++------------------
 1 file changed, 106 insertions(+), 80 deletions(-)
@@ -321,8 +321,8 @@ static rx_handler_result_t macvlan_handle_frame(struct sk_buff **pskb)
Changes v1 -> v2:
Linux 6.9 -> 6.10
queues 1 -> 8
	len = skb->len -> 5;
 # tc filter add dev eth1 egress matchall action police rate 2gbit burst 100k

results:
123
456

other results:
789
1011
""")) == []


def test_single_list_without_pair():
    assert find_list_measurements(lines_of("""
trans./sec (3.17 + macvlan patch)

517159  +(4.684733558%)
628382  +(2.541860742%)
""")) == []


# -- hostile input ------------------------------------------------------------------------------

def test_large_inputs():
    many = [str(i) for i in range(10_000)]
    ms = find_list_measurements(["before:", *many, "", "after:", *many])
    assert len(ms) == 10_000
    find_list_measurements(["before: 1 -> 2 " * 70_000])
    find_list_measurements(["9" * 5000 + " -> " + "8" * 5000 + " Mpps"])
    find_list_measurements(["before:", "1 " * 500_000, "after:", "2 " * 500_000])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("0123456789 .,|%+-\t:=>abefortw/()$→kM")),
                        max_size=60), max_size=12))
def test_never_raises(lines):
    find_list_measurements(lines)
    find_list_measurements(["before:", *lines, "after:", *lines])


IPERF3 = """[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-1.00   sec  3.95 GBytes  33.9 Gbits/sec    0
[  5]   1.00-2.00   sec  3.91 GBytes  33.6 Gbits/sec    0
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5]   0.00-10.00  sec  {tx} GBytes  {s} Gbits/sec   12             sender
[  5]   0.00-10.00  sec  {tx} GBytes  {r} Gbits/sec                  receiver"""


def test_iperf3_reports_give_the_receiver_bitrate():
    """iperf3's summary: the receiver's bitrate (what arrived); interval lines are progress
    and the `- - -` rule between them and the summary is part of the report."""
    text = ("Before the patch:\n" + IPERF3.format(tx="39.4", s="33.8", r="33.7")
            + "\n\nWith the patch:\n" + IPERF3.format(tx="44.3", s="38.1", r="38.0"))
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(33.7, 38.0)]
    assert ms[0].patched.canonical_unit == "bit/s" and ms[0].patched.unit == "Gbits/sec"


def test_iperf3_parallel_streams_give_the_sum():
    run = ("[  5]   0.00-20.00  sec  24.8 GBytes  {a} Gbits/sec   40   sender\n"
           "[  5]   0.00-20.00  sec  24.8 GBytes  {a} Gbits/sec        receiver\n"
           "[SUM]   0.00-20.00  sec   198 GBytes  {s} Gbits/sec  311   sender\n"
           "[SUM]   0.00-20.00  sec   198 GBytes  {r} Gbits/sec        receiver")
    text = ("net-next:\n" + run.format(a="10.6", s="85.1", r="85.0") + "\n\nnet-next + v2:\n"
            + run.format(a="11.5", s="92.4", r="92.3"))
    assert pairs(find_list_measurements(text.split("\n"))) == [(85.0, 92.3)]


def test_iperf3_progress_without_a_summary_is_no_result():
    text = "Before:\n" + IPERF3.split("- -")[0] + "\nAfter:\n" + IPERF3.split("- -")[0]
    assert find_list_measurements(text.split("\n")) == []


def test_side_named_rows_pair_column_by_column():
    text = """\
TCP_RR latency (usec):

              p50     p90     p99
  before     24.6    29.8    47.1
  after      22.9    26.4    38.3"""
    ms = find_list_measurements(text.split("\n"))
    assert [(m.baseline.value, m.patched.value, m.condition) for m in ms] == [
        (24.6, 22.9, (("measure", "p50"),)), (29.8, 26.4, (("measure", "p90"),)),
        (47.1, 38.3, (("measure", "p99"),))]
    assert {m.unit for m in ms} == {"usec"}


def test_a_side_label_spaced_out_by_the_typist():
    # `w/  patch` aligned under `w/o patch`: the label is both words, not `w/`
    found = find_list_measurements([
        "[msg/sec]  run1     run2",
        "w/o patch  498,301  502,117",
        "w/  patch  505,930  509,002",
    ])
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (498301, 505930), (502117, 509002)]


def test_side_named_rows_with_a_counted_header():
    text = ("Forwarding, Mpps:\nthreads      1      2      4\nbase       3.1    6.0   11.2\n"
            "patched    3.5    6.9   12.8")
    ms = find_list_measurements(text.split("\n"))
    assert [m.condition for m in ms] == [(("threads", "1"),), (("threads", "2"),),
                                         (("threads", "4"),)]


@pytest.mark.parametrize("text", [
    # not the same template: other words between the figures
    "before: rx 5 Mpps tx 3 Mpps\nafter: tx 6 Mpps drops 2",
    # key=value output is read by key, elsewhere
    "base:    ops_per_sec=2318004 avg_ns=431\nother:   ops_per_sec=3904112 avg_ns=256",
    # one side only
    "before    24.6    29.8\nlater     22.9    26.4",
])
def test_rows_that_do_not_pair(text):
    assert find_list_measurements(text.split("\n")) == []


@pytest.mark.parametrize("text", [
    "old: 4096 87380 6291456\nnew: 4096 131072 16777216",  # tcp_rmem
    "before:  CPUs 0-3 and 8-11 isolated\nafter:   CPUs 0-7 and 8-15 isolated",
    "Old   queue count 4, ring size 1024\nNew   queue count 8, ring size 4096",
    "base: v6.8-rc1 + 3 fixes, 2 reverts\npatched: v6.8-rc1 + 5 fixes, 2 reverts",
    "ethtool -g before and after:\nbefore:  RX 512  TX 512\nafter:   RX 4096  TX 4096",
])
def test_side_named_rows_of_settings_are_no_claims(text):
    """Figures without a unit, under no caption or column naming what they measure."""
    assert find_list_measurements(text.split("\n")) == []


def test_pktgen_result_gives_its_packet_rate():
    run = ("Result: OK: 2164488(c2164101+d387) usec, 10000000 (64byte,0frags)\n"
           "  {pps}pps 2365Mb/sec (2365453824bps) errors: 0")
    text = "Before:\n" + run.format(pps="4620027") + "\n\nAfter:\n" + run.format(pps="5614186")
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(4620027, 5614186)] and ms[0].unit == "pps"


def test_a_run_of_iperf3_headers_is_read_once():
    """Thousands of `[ ID] Interval ...` lines under a caption: each line is read once,
    not once per line the run could start from (that was quadratic: 38 s for 8,000)."""
    from unittest import mock

    import analyze.claims.lists.read as lists

    n = 8_000
    lines = ["before the patch:", *["[ ID] Interval           Transfer     Bitrate"] * n, "run 1"]
    with mock.patch.object(lists, "_iperf_summary", wraps=lists._iperf_summary) as summary:
        assert find_list_measurements(lines) == []
    assert summary.call_count <= n


@pytest.mark.parametrize("line,found", [
    ("old: 1024 entries, new: 2048 entries", []),  # a setting
    ("tcp_rr before: 51234, after: 55870", [(51234, 55870)]),  # a measure named
    ("before: 1843 MB, after: 1127 MB", [(1843, 1127)]),  # a unit
])
def test_one_line_pairs_need_a_unit_or_a_measure(line, found):
    assert pairs(find_list_measurements([line])) == found


def test_bench_lines_with_a_spread_take_its_unit_and_their_key():
    text = ("Before:\ntrig-fentry         :   44.118 ± 0.052M/s\n"
            "trig-kprobe         :   25.306 ± 0.031M/s\n\nAfter:\n"
            "trig-fentry         :   51.907 ± 0.066M/s\ntrig-kprobe         :   27.840 ± 0.029M/s")
    ms = find_list_measurements(text.split("\n"))
    assert [(m.baseline.value, m.patched.value, m.unit, m.condition) for m in ms] == [
        (44.118, 51.907, "M/s", (("measure", "trig-fentry"),)),
        (25.306, 27.84, "M/s", (("measure", "trig-kprobe"),))]
    assert ms[0].patched.canonical_unit == "ops/s"


def test_xdp_bench_summary_gives_its_packet_rate():
    text = ("Before:\nSummary                      6,812,440 rx/s                  0 err,drop/s\n\n"
            "After:\nSummary                      8,105,377 rx/s                  0 err,drop/s")
    ms = find_list_measurements(text.split("\n"))
    assert pairs(ms) == [(6812440, 8105377)] and ms[0].patched.canonical_unit == "pps"


def test_spread_and_bookkeeping_keys_are_no_results():
    """fio's and t/io_uring's `min=`/`max=`/`io=`/`run=` and a `Stdev:` line support a
    result; only the result keys pair."""
    text = """\
Before:
  read: IOPS=512k, BW=2000MiB/s (2097MB/s)(117GiB/60001msec)
    clat (usec): min=12, max=9012, avg=61.20, stdev=20.11
   READ: bw=2000MiB/s (2097MB/s), io=117GiB (126GB), run=60001-60001msec
Stdev: 2.10 msec
After:
  read: IOPS=601k, BW=2348MiB/s (2462MB/s)(138GiB/60001msec)
    clat (usec): min=10, max=8120, avg=52.00, stdev=18.40
   READ: bw=2348MiB/s (2462MB/s), io=138GiB (148GB), run=60001-60001msec
Stdev: 1.90 msec
"""
    ms = find_list_measurements(text.splitlines())
    values = pairs(ms)
    assert (512, 601) in values or (512000, 601000) in values
    assert not any(b in (12, 9012, 20.11, 117, 2.10) for b, _ in values)


def test_a_key_printed_again_is_the_next_sample_and_the_first_stands_for_the_run():
    text = """\
Without the series:
IOPS=2.31M, BW=9.02GiB/s
IOPS=2.33M, BW=9.10GiB/s
With the series:
IOPS=2.80M, BW=10.9GiB/s
IOPS=2.79M, BW=10.9GiB/s
"""
    values = pairs(find_list_measurements(text.splitlines()))
    assert values[0] == (2.31, 2.80) or values[0] == (2310000, 2800000)
    assert len(values) == 2  # one IOPS pair and one bandwidth pair


@pytest.mark.parametrize("text", [
    # a setting and a line of prose are no run's name beside a caption naming a side
    "5.19 + this series:\nQD=64, Batch=16\nMaximum IOPS=3953K\n\n"
    "| 99.9500th=[ 9357], 99.9900th=[32289]\nQD=1, Batch=1\nMaximum IOPS=246K\n",
    "[  265.872777] lock held at\n[  265.874334]\nwhich lock already depends on the new lock.\n"
    "[  265.875474]\n",
])
def test_a_side_beside_a_line_that_names_no_run_pairs_nothing(text):
    assert pairs(find_list_measurements(text.splitlines())) == []


def test_a_run_pairs_with_the_caption_right_after_it_not_one_far_above():
    text = """\
With your patch:

IOPS=121.69M, BW=59.42GiB/s

Some discussion of the profile, which goes on for a while, and then the
other setup, each poller driving two devices; the stock kernel gets:

IOPS=60.95M, BW=29.76GiB/s

and with the patch:

IOPS=59.64M, BW=29.12GiB/s
"""
    assert pairs(find_list_measurements(text.splitlines())) == [(60.95, 59.64), (29.76, 29.12)]


def test_an_arrow_pair_takes_the_change_written_before_it():
    [m] = find_list_measurements(["buffered reads: ~25% increase (~1900 MB/s -> 2400 MB/s)"])
    assert (m.baseline.value, m.patched.value, m.stated.value) == (1900, 2400, 25)


def test_a_chain_of_arrows_is_a_path_not_a_pair():
    # a figure followed patch by patch across a series: no one before and after
    assert find_list_measurements(["roughly 28 MIOPS -> 26 -> 27 -> 29 over the series"]) == []
    [m] = find_list_measurements(["randread: 28 MIOPS -> 31 MIOPS"])
    assert (m.baseline.value, m.patched.value, m.unit) == (28, 31, "MIOPS")


def test_two_lines_of_one_setup_and_the_same_setup_with_an_addition():
    found = find_list_measurements([
        "XDP_TX (driver path): 6.1Mpps",
        "XDP_TX (driver path + bulk free): 7.3Mpps",
        "",
        "TCP_RR (baseline): 51000 trans/s",
        "TCP_RR (baseline + revert): 49500 trans/s",
    ])
    assert [(m.baseline.value, m.patched.value) for m in found] == [(6.1, 7.3), (51000, 49500)]
    # a label adding a different test, not something to the same setup, pairs nothing
    assert find_list_measurements(["rx: 5.1 Mpps", "rx drop: 3.2 Mpps"]) == []
    # nor do lines far apart, or of different quantities
    assert find_list_measurements(["net-next: 5.1 Mpps", "net-next with series: 12 us"]) == []


def test_a_runs_maximum_after_its_samples_is_not_its_figure():
    text = """\
queue pairs (before):
IOPS=3.10M, BW=1513MiB/s, IOS/call=2/1
IOPS=3.14M, BW=1533MiB/s, IOS/call=2/2
Exiting on timeout
Maximum IOPS=3.14M

queue pairs (after):
IOPS=4.41M, BW=2.15GiB/s, IOS/call=2/1
IOPS=4.45M, BW=2.17GiB/s, IOS/call=2/1
Exiting on timeout
Maximum IOPS=4.45M
"""
    found = find_list_measurements(text.splitlines())
    assert [(m.baseline.text, m.patched.text) for m in found] == [
        ("3.10M", "4.41M"), ("1513MiB/s", "2.15GiB/s")]


def test_a_label_with_no_before_it_is_the_baseline_and_reruns_count_once():
    text = """\
# ./bench.sh
no-batching:    1.204 ± 0.021M/s (drops 0.000 ± 0.000M/s)
batching:       1.377 ± 0.012M/s (drops 0.000 ± 0.000M/s)
# ./bench.sh
no-batching:    1.199 ± 0.030M/s (drops 0.000 ± 0.000M/s)
batching:       1.381 ± 0.009M/s (drops 0.000 ± 0.000M/s)
"""
    found = find_list_measurements(text.splitlines())
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [(1.204, 1.377, "M/s")]
    # a different test named beside it is no pair
    assert find_list_measurements(["no-batching: 1.2 Mpps", "batching-tx: 1.3 Mpps"]) == []


def test_a_label_naming_the_baseline_beside_one_of_the_same_test():
    found = find_list_measurements([
        "Forwarding original kernel path: 410 Kpps",
        "",
        "Forwarding XDP redirect (xdp_fwd): 1.52 Mpps",
        "XDP drop: 1.55 Mpps",
    ])
    assert [(m.baseline.text, m.patched.text) for m in found] == [("410 Kpps", "1.52 Mpps")]
    # another test beside the baseline's line is no pair
    assert find_list_measurements(["Forwarding original kernel path: 410 Kpps",
                                   "XDP drop: 1.55 Mpps"]) == []


def test_a_numbered_source_listing_has_no_figures():
    # a checker's report quotes the source by line number; C's `current` names no side
    lines = [
        "drivers/example/core.c",
        "  5120  static int example_worker(void *data)",
        "  5121  {",
        "  5122          struct example_ctx *ctx = data;",
        "  5123  ",
        "  5124          lock_task(current);",
        "  5125          current->owner = NULL;",
        "  5126          current->flags = 0;",
        "  5127          unlock_task(current);",
        "  5128  ",
        "  5129          while (!worker_should_stop()) {",
        "  5130                  int ret;",
        "  5131                  bool spin, resched;",
        "  5132  ",
        "  5133                  /*",
        "  5134                   * changes to the lists are synchronised",
        "  5135                   */",
    ]
    text = "\n".join(lines)
    assert find_list_measurements(text.splitlines()) == []


def test_the_line_over_both_runs_names_their_unit():
    [m] = find_list_measurements(["Benchmarked on a 64-core box calling stat() (ops/s):",
                                  "before: 4810322", "after:\t4991208 (+3.8%)"])
    assert (m.baseline.value, m.patched.value, m.unit) == (4810322, 4991208, "ops/s")


def test_a_percentage_further_on_is_the_pairs_change_only_when_the_figures_give_it():
    [m] = find_list_measurements(["QD1 nops went 11.204 -> 11.690 MIOPS, which is more than "
                                  "9.2% of the submission overhead"])
    assert (m.baseline.value, m.patched.value, m.stated) == (11.204, 11.69, None)
    [m] = find_list_measurements(["4 threads: 3.1 Mpps -> 4.0 Mpps, that is +29% here"])
    assert m.stated.value == 29


def test_netperf_with_cpu_columns_gives_the_rate_and_each_cpu_column():
    """`-c -C` adds CPU utilisation and service demand columns: each is a claim beside the
    transaction rate; the commands between the caption and the output are skipped."""
    run = """\
ip link set dev eth1 gso_max_size {size} gro_max_size {size}

netperf -H host2 -t TCP_RR -l 10 -Cc -- -r 60000,60000
MIGRATED TCP REQUEST/RESPONSE TEST from ::0 (::) port 0 AF_INET6 to host2 () port 0 AF_INET6
Local /Remote
Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem
Send   Recv   Size    Size   Time    Rate     local  remote local   remote
bytes  bytes  bytes   bytes  secs.   per sec  % S    % S    us/Tr   us/Tr

262144 540000 60000   60000  10.00   {rate}  {cpu}   1.20   60.100  90.250
262144 540000
"""
    text = ("Before: (small packets)\n\n" + run.format(size=65536, rate="7001.10", cpu="0.80")
            + "\nAfter: (big packets)\n\n" + run.format(size=185000, rate="8805.40", cpu="0.90"))
    ms = find_list_measurements(text.splitlines())
    assert pairs(ms) == [(7001.10, 8805.40), (0.80, 0.90), (1.20, 1.20), (60.1, 60.1), (90.25, 90.25)]
    assert ms[1].unit == "% S" and ms[3].unit == "us/Tr"


def test_a_call_arguments_under_side_labels_are_no_results():
    text = "ops/sec of the test:\n     Before: in_range(10, 40)\n     After: in_range(1, -1)\n"
    assert pairs(find_list_measurements(text.splitlines())) == []


def test_a_tool_settings_printed_under_each_side_are_no_results():
    text = """\
without this:
submitter=0, tid=2201, file=/dev/nvme0n1, node=-1
polled=1, fixedbufs=1, register_files=1, buffered=0, QD=128
IOPS=9.80M, BW=4.79GiB/s

with this:
submitter=0, tid=2305, file=/dev/nvme0n1, node=-1
polled=1, fixedbufs=1, register_files=1, buffered=0, QD=128
IOPS=10.10M, BW=4.93GiB/s
"""
    assert pairs(find_list_measurements(text.splitlines())) == [(9.80, 10.10), (4.79, 4.93)]


@pytest.mark.parametrize(("line", "condition"), [
    ("a similar gain on a 2x16 core box (10.4 Mpps -> 11.6 Mpps at 8 threads).", {"threads": "8"}),
    ("udp_stream: 9.1 Gbps -> 9.6 Gbps with 4 flows", {"flows": "4"}),
    ("XDP_TX 5 Mpps → 7 Mpps using 16 RX queues, as before", {"queues": "16"}),
    ("XDP_TX 5 Mpps → 7 Mpps at 64 byte packets", {}),  # (not a count: no condition read)
])
def test_an_arrow_pair_takes_the_count_written_after_it(line: str, condition: dict) -> None:
    """`(10.4 Mpps -> 11.6 Mpps at 8 threads)` got no condition: only a label before the
    pair was read."""
    (m,) = find_list_measurements([line])
    assert dict(m.condition) == condition


def test_offsets_and_lengths_moved_by_arrows_are_no_pair():
    # a bio's offset+length as it is split: sums, not a figure before and after
    assert find_list_measurements(["issued as 0+256k -> 512k+256k -> 256k+256k"]) == []


def test_a_link_names_no_side():
    """Lines under links whose paths hold `patch` are no runs of a patched side."""
    text = """\
[1]
https://patches.example.org/project/netdev/patch/20250101-1-dev@example.org/
[2]
https://git.example.org/netdev/testing/commit/0123456789abcdef
[3]
https://patches.example.org/project/netdev/patch/20250102-2-dev@example.org/
"""
    assert find_list_measurements(text.splitlines()) == []


RUNS_OVER_A_BASELINE = """\
The poll test queues 32 requests a round and fires them with one write.

baseline (patches 1-4):
    8200 K req/s
base + 5 (+ completion cache)
    8610 K req/s, ~+5%
base + 5-9 (+ lock sharding):
    9020 K req/s, +10% from the baseline, or +4.8% relative to patch 5.
"""


def test_each_run_named_as_the_baseline_with_more_added_pairs_with_the_baseline():
    """`base + 5 (...)` is the baseline with something added: a patched run, as is each run
    after it; each is paired with the baseline, named by its caption, with the change it
    states (the words after the change say what it is from, not another figure)."""
    ms = find_list_measurements(RUNS_OVER_A_BASELINE.splitlines())
    assert [(m.baseline.value, m.patched.value, m.stated and m.stated.value, m.unit,
             dict(m.condition)) for m in ms] == [
        (8200, 8610, 5, "Kreq/s", {"variant": "base + 5 (+ completion cache)"}),
        (8200, 9020, 10, "Kreq/s", {"variant": "base + 5-9 (+ lock sharding)"}),
    ]


@pytest.mark.parametrize(("labels", "roles"), [
    (["vanilla", "vanilla + patch"], ["baseline", "patched"]),
    (["Before + tc", "After + tc"], ["baseline", "patched"]),  # (a setting on both sides)
    (["base", "base +5%"], ["baseline", "baseline"]),  # (a change, no addition)
    (["baseline (+/- 2%)", "base"], ["baseline", "baseline"]),
])
def test_a_baseline_with_something_added_beside_the_baseline_is_patched(labels, roles):
    from analyze.claims.tables.roles import resolve_roles
    assert resolve_roles(labels) == roles


def test_numbered_runs_of_each_side_are_not_paired_run_by_run():
    """`nvme-orig-N.fio:` and `nvme-new-N.fio:` are each side's repeats (rule 4): the
    averages written above them are the claims, never the last `orig` run against each
    `new` run."""
    text = ["IOPS :-", "nvme-orig:  Average IOPS: 72,690", "nvme-new:   Average IOPS: 72,580", ""]
    text += [f"nvme-orig-{k}.fio:  read: IOPS=72.{k}k, BW=28{k}MiB/s" for k in range(1, 4)]
    text += [f"nvme-new-{k}.fio:  read: IOPS=73.{k}k, BW=28{k}MiB/s" for k in range(1, 4)]
    assert pairs(find_list_measurements(text)) == [(72690, 72580)]
