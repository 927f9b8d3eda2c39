"""Runs of a tool under each side's caption, paired line by line (analyze/claims/lists/
paired.py). The runs below are written for these tests in the shapes real mail has: iperf3
summaries, dmesg initcall times, t/io_uring's per-second lines, sockperf percentiles,
xdp-bench samples, `time` with decimal commas."""

from __future__ import annotations

import pytest

from analyze.claims.lists.paired import _template, find_paired_runs, side_caption
from analyze.claims.lists.read import find_list_measurements

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def pairs(text: str) -> list[tuple[float, float]]:
    return [(m.baseline.value, m.patched.value)
            for m in find_paired_runs(text.splitlines(), set())]


def test_iperf3_sections_pair_by_line_and_keep_the_bitrate() -> None:
    text = """\
Without this patch:
- TCP:
    [ ID] Interval           Transfer     Bitrate         Retr
    [  5]   0.00-30.00  sec  2.10 GBytes   601 Mbits/sec    0
- UDP at 1000Mbit/sec:
    [ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
    [  5]   0.00-30.00  sec  2.00 GBytes   572 Mbits/sec  0.000 ms  0/1011407 (0%)

With this patch:
- TCP:
    [ ID] Interval           Transfer     Bitrate         Retr
    [  5]   0.00-30.00  sec  3.25 GBytes   930 Mbits/sec    0
- UDP at 1000Mbit/sec:
    [ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
    [  5]   0.00-30.00  sec  3.30 GBytes   945 Mbits/sec  0.000 ms  0/1650226 (0%)
"""
    # the bitrate of each run, not its transfer, interval, jitter or loss
    assert pairs(text) == [(601, 930), (572, 945)]


def test_dmesg_initcall_times_of_two_machines() -> None:
    text = """\
Machine A:
Before:
[  101.000001] igb 0000:02:00.0: pci_pm_suspend+0x0/0x170 returned 0 after 250000 usecs
[  101.100002] igb 0000:02:00.0: pci_pm_resume+0x0/0x90 returned 0 after 0 usecs

After:
[   88.000001] igb 0000:02:00.0: pci_pm_suspend+0x0/0x170 returned 0 after 12 usecs
[   88.100002] igb 0000:02:00.0: pci_pm_resume+0x0/0x90 returned 0 after 0 usecs

Machine B:
Before:
[  40.500000] igb 0000:03:00.0: pci_pm_suspend+0x0/0x160 returned 0 after 9000 usecs
After:
[  70.500000] igb 0000:03:00.0: pci_pm_suspend+0x0/0x160 returned 0 after 7 usecs
"""
    # the durations (0 -> 0 too: no change is a result); never the timestamps or `returned 0`
    assert pairs(text) == [(250000, 12), (0, 0), (9000, 7)]


def test_a_run_printing_samples_is_read_at_its_first_sample() -> None:
    text = """\
Without the series -

# t/io_uring -r4 -b512 -d64 -c16 -s16 /dev/ng0n1
submitter=0, tid=1001, file=/dev/ng0n1, node=-1
IOPS=3.10M, BW=1512MiB/s, IOS/call=16/15
IOPS=3.09M, BW=1510MiB/s, IOS/call=16/16
Exiting on timeout
Maximum IOPS=3.10M

# t/io_uring -r4 -b512 -d64 -c16 -s16 -n2 /dev/ng0n1 /dev/ng1n1
IOPS=6.02M, BW=2.94GiB/s, IOS/call=16/15
IOPS=6.00M, BW=2.93GiB/s, IOS/call=16/16
Exiting on timeout Maximum IOPS=6.02M

With the series -

# t/io_uring -r4 -b512 -d64 -c16 -s16 /dev/ng0n1
submitter=0, tid=2001, file=/dev/ng0n1, node=-1
IOPS=3.40M, BW=1660MiB/s, IOS/call=16/15
IOPS=3.41M, BW=1665MiB/s, IOS/call=16/16
Exiting on timeout Maximum IOPS=3.41M

# t/io_uring -r4 -b512 -d64 -c16 -s16 -n2 /dev/ng0n1 /dev/ng1n1
IOPS=6.60M, BW=3.22GiB/s, IOS/call=16/15
IOPS=6.61M, BW=3.23GiB/s, IOS/call=16/16
Exiting on timeout Maximum IOPS=6.61M
"""
    # IOPS (a rate named by its key) and bandwidth of each run's first sample; the two
    # commands are two runs; `Maximum IOPS` lines differ in shape between the sides and
    # pair with nothing, and so does `IOS/call`
    assert pairs(text) == [(3.10, 3.40), (1512, 1660), (6.02, 6.60), (2.94, 3.22)]


def test_sockperf_percentiles_pair_by_their_label() -> None:
    text = """\
Prior:
sockperf: [Total Run] RunTime=60.000 sec; Warm up time=400 msec; SentMessages=1000; ReceivedMessages=999
sockperf: Summary: Latency is 20.100 usec
sockperf: ---> <MAX> observation = 80000.500
sockperf: ---> percentile 99.990 =   31.000
sockperf: ---> percentile 50.000 =   22.000
sockperf: ---> <MIN> observation =   10.000

After:
sockperf: [Total Run] RunTime=60.000 sec; Warm up time=400 msec; SentMessages=1100; ReceivedMessages=1099
sockperf: Summary: Latency is 20.400 usec
sockperf: ---> <MAX> observation =  150.000
sockperf: ---> percentile 99.990 =   32.500
sockperf: ---> percentile 50.000 =   22.100
sockperf: ---> <MIN> observation =   10.100
"""
    # the run's settings and message counts are no results
    assert pairs(text) == [(20.1, 20.4), (80000.5, 150.0), (31.0, 32.5), (22.0, 22.1),
                           (10.0, 10.1)]


def test_xdp_bench_samples_and_what_went_wrong() -> None:
    text = """\
* before:
eth1->eth2        9,100,000 rx/s     9,100,002 err,drop/s            0 xmit/s
   xmit eth1->eth2          0 xmit/s 9,100,002 drop/s     0 drv_err/s 16.00 bulk-avg
eth1->eth2        9,110,000 rx/s     9,110,001 err,drop/s            0 xmit/s
   xmit eth1->eth2          0 xmit/s 9,110,001 drop/s     0 drv_err/s 16.00 bulk-avg

* after:
eth1->eth2        8,900,000 rx/s     8,900,004 err,drop/s            0 xmit/s
   xmit eth1->eth2          0 xmit/s 8,900,004 drop/s     0 drv_err/s 16.00 bulk-avg
"""
    # the first sample of each side; the rate received, not what was dropped or sent (0)
    assert pairs(text) == [(9_100_000, 8_900_000)]


def test_time_output_keeps_real_with_decimal_commas() -> None:
    text = """\
before:
real    0m21,735s
user    0m12,020s
sys     0m1,384s
after:
real    0m2,412s
user    0m1,990s
sys     0m0,385s
"""
    assert pairs(text) == [(21.735, 2.412)]


def test_captions_and_what_is_not_one() -> None:
    assert side_caption("Without this patch:")[:2] == ("baseline", "Without this patch")
    assert side_caption("----- With this patch -----")[:2] == ("patched", "With this patch")
    assert side_caption("nvme io (with this): # t/io_uring -b512 /dev/ng0n1")[0] == "patched"
    assert side_caption("* Before:")[:2] == ("baseline", "Before")
    # a run on the caption's own line starts after the colon
    line = "* Before:       4730418pps 2270Mb/sec"
    assert side_caption(line) == ("baseline", "Before", line.index(":") + 1)
    assert side_caption("The numbers before and after this change were measured on a "
                        "machine with eight cores:") is None


def test_runs_on_their_captions_lines() -> None:
    """pktgen's result line under each side, twice (with and without tc); a rate printed
    twice in two units is one figure; an `After` with no `Before` pairs with nothing."""
    text = """* Before:       3100000pps 1488Mb/sec (1488000000bps)
* After:        3400000pps 1632Mb/sec (1632000000bps)

* Before + tc:  2900000pps 1392Mb/sec (1392000000bps)
* After  + tc:  2800000pps 1344Mb/sec (1344000000bps)

* After  + nft: 2500000pps 1200Mb/sec (1200000000bps)
"""
    assert pairs(text) == [(3_100_000, 3_400_000), (1488, 1632), (2_900_000, 2_800_000),
                           (1392, 1344)]


def test_time_in_its_one_line_forms() -> None:
    zsh = ("Before: nft -f ruleset 0.05s user 0.01s system 0% cpu 1:12.50 total\n"
           "After: nft -f ruleset 0.05s user 0.01s system 0% cpu 20.250 total\n")
    gnu = ("before: 7.10user 6.00system 9.80elapsed 133%CPU\n"
           " after: 4.00user 3.50system 1.40elapsed 520%CPU\n")
    assert pairs(zsh) == [(72.5, 20.25)]
    assert pairs(gnu) == [(9.8, 1.4)]


def test_an_after_with_no_before_pairs_with_the_run_above() -> None:
    text = """Loading 500k elements takes:

time nft -f big_set
real    12m10.500s
user    0m1.900s
sys     12m0.100s

After:
time nft -f big_set
real    1m20.250s
user    0m2.000s
sys     1m18.000s
"""
    assert pairs(text) == [(730.5, 80.25)]


def test_runs_that_are_no_performance_pair_with_nothing() -> None:
    """Counters and settings without a unit under before/after captions: /proc/interrupts,
    an RSS indirection table, ethtool settings."""
    text = """\
Before this patch:
 57:      12034          0   IR-PCI-MSI 1048576-edge      eth0-TxRx-0
 58:          0       8812   IR-PCI-MSI 1048577-edge      eth0-TxRx-1
RX flow hash indirection table for eth0 with 4 RX ring(s):
    0:      0     1     2     3
After this patch:
 57:      12101          0   IR-PCI-MSI 1048576-edge      ens1-TxRx-0
 58:          0       8920   IR-PCI-MSI 1048577-edge      ens1-TxRx-1
RX flow hash indirection table for eth0 with 4 RX ring(s):
    0:      0     1     2     3
"""
    assert pairs(text) == []


def test_the_list_reader_reads_each_pair_once() -> None:
    """A caption over bare figures is the list reader's own group: the paired reader does
    not read those lines again."""
    text = "before:\n  3.1 Mpps\nafter:\n  4.0 Mpps\n"
    found = find_list_measurements(text.splitlines())
    assert [(m.baseline.value, m.patched.value) for m in found] == [(3.1, 4.0)]


def test_runs_of_one_setup_and_the_same_setup_with_an_addition() -> None:
    """Captions that name a setup and the setup plus something (`..., JIT on`): the longer
    caption is the patched run, paired line by line with the shorter one's."""
    text = """\
Results on a 2-core VM, single flow:

MITIGATIONS=off, Audit: Off
fwd: 910 Mb/s  1778000 pps
ft:  2450 Mb/s 4785000 pps

MITIGATIONS=off, Audit: Off, JIT on:
fwd: 905 Mb/s  1770000 pps
ft:  2610 Mb/s 5097000 pps   (+6.5%)
"""
    found = find_paired_runs(text.splitlines(), set())
    # bit rate and packet rate are two results; the percentage written on the patched line
    # only is the stated change of the figure before it
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (910, 905), (1778000, 1770000), (2450, 2610), (4785000, 5097000)]
    assert [m.stated.value if m.stated else None for m in found] == [None, None, None, 6.5]


def test_a_caption_that_removes_something_is_the_baseline() -> None:
    text = """\
net-next:
ping: 41.0 usec

net-next without the fix:
ping: 55.5 usec
"""
    assert pairs(text) == [(55.5, 41.0)]


def test_captions_that_do_not_extend_each_other_pair_nothing() -> None:
    text = """\
Machine one:
ping: 41.0 usec

Second box, other NIC:
ping: 55.5 usec
"""
    assert pairs(text) == []


def test_a_sweep_under_each_caption_pairs_row_by_row_with_its_key() -> None:
    """Lines of one shape that differ in a figure both sides print in the same order are the
    rows of a sweep, not samples of one run; a spread printed after a figure is that
    figure's, and gives it its unit."""
    text = """\
Before (spinlock):

Queue, many producers
=====================
q-bench nr_prod 1  9.120 ± 0.011M/s (drops 0.000 ± 0.000M/s)
q-bench nr_prod 2  3.400 ± 0.020M/s (drops 0.000 ± 0.000M/s)
q-bench nr_prod 8  2.050 ± 0.001M/s (drops 0.000 ± 0.000M/s)

After (qspinlock):

Queue, many producers
=====================
q-bench nr_prod 1  9.010 ± 0.013M/s (drops 0.000 ± 0.000M/s) (-1.21%)
q-bench nr_prod 2  3.610 ± 0.008M/s (drops 0.000 ± 0.000M/s) (6.18%)
q-bench nr_prod 8  2.300 ± 0.002M/s (drops 0.000 ± 0.000M/s) (12.20%)
"""
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (9.12, 9.01), (3.4, 3.61), (2.05, 2.3)]
    assert [m.stated.value for m in found] == [-1.21, 6.18, 12.2]
    assert [m.condition for m in found] == [
        (("q-bench nr_prod", "1"),), (("q-bench nr_prod", "2"),), (("q-bench nr_prod", "8"),)]
    assert found[0].unit == "M/s"


def test_samples_of_one_run_still_count_at_their_first() -> None:
    text = """\
Before:
IOPS=2.10M, BW=8.20GiB/s, IOS/call=32/31
IOPS=2.12M, BW=8.28GiB/s, IOS/call=32/32
After:
IOPS=2.40M, BW=9.37GiB/s, IOS/call=32/31
IOPS=2.41M, BW=9.41GiB/s, IOS/call=32/32
"""
    assert pairs(text) == [(2.10, 2.40), (8.20, 9.37)]


def test_the_caption_that_names_the_series_is_the_patched_run() -> None:
    """Two captions with no side word; the subject of the series names one of them. The
    runs are sweeps keyed by their first figure (iodepth); fio's latency line gives its
    mean, in the unit it names in brackets."""
    text = """\
  plain async writes:
  iodepth
     1      write: IOPS=300k, BW=293MiB/s (307MB/s)(51.4GiB/180000msec);
     4      write: IOPS=280k, BW=273MiB/s (287MB/s)(48.1GiB/180001msec);

     1      lat (nsec): min=500, max=3100.1k, avg=1200.50, stdev=5400.10
     4      lat (nsec): min=640, max=98000k, avg=8800.25, stdev=190000.71

  workerpool:
  iodepth
     1      write: IOPS=150k, BW=146MiB/s (154MB/s)(25.7GiB/180004msec);
     4      write: IOPS=310k, BW=303MiB/s (317MB/s)(53.2GiB/180002msec);

     1      lat (nsec): min=700, max=9000k, avg=5600.00, stdev=9000.69
     4      lat (nsec): min=780, max=70000k, avg=9900.04, stdev=200000.52
"""
    lines = text.splitlines()
    assert find_paired_runs(lines, set()) == []  # no side named: nothing to pair
    found = find_paired_runs(lines, set(), frozenset({"workerpool"}))
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (300, 150), (293, 146), (280, 310), (273, 303), (1200.5, 5600.0), (8800.25, 9900.04)]
    assert [m.condition for m in found] == [
        (("iodepth", "1"),), (("iodepth", "1"),), (("iodepth", "4"),), (("iodepth", "4"),),
        (("iodepth", "1"),), (("iodepth", "4"),)]
    assert found[-1].unit == "nsec"


def test_bracketed_labels_start_the_runs_they_name() -> None:
    """A label in brackets at the start of each run's first line; the series names the
    patched one (in another spelling: `passthru` of `passthrough`), printed first. fio's lines are typed with and without blanks after `,` and `=`."""
    text = """\
(passthru) read: IOPS=21.4k, BW=83.6MiB/s (87.7MB/s)
clat (usec): min=31, max=190,avg=44.10, stdev= 6.02
(plain) read: IOPS=18.9k, BW=73.8MiB/s (77.4MB/s)
clat (usec): min=33, max=251, avg=50.85, stdev=11.40

(passthru) taskset -c 1 t/io_uring -b4096 -d16 -u1 /dev/ngX
IOPS=210.50K, BW=822MiB/s, IOS/call=8/8
(plain) taskset -c 1 t/io_uring -b4096 -d16 -u0 /dev/nvmeX
IOPS=120.25K, BW=469MiB/s, IOS/call=8/7
"""
    lines = text.splitlines()
    assert find_paired_runs(lines, set(), frozenset({"nvme"})) == []  # names neither run
    found = find_paired_runs(lines, set(), frozenset({"passthrough", "uring_cmd"}))
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (18.9, 21.4), (73.8, 83.6), (50.85, 44.10), (120.25, 210.50), (469, 822)]


def test_a_hyphenated_caption_is_named_by_the_series() -> None:
    text = """\
4k randread:
 Copying:
  IOPS=301.20K, BW=1176MiB/s, IOS/call=32/32
  IOPS=305.91K, BW=1194MiB/s, IOS/call=32/32

 Zero-copy:
  IOPS=350.02K, BW=1367MiB/s, IOS/call=32/31
"""
    found = find_paired_runs(text.splitlines(), set(), frozenset({"zero-copy", "ublk"}))
    assert [(m.baseline.value, m.patched.value) for m in found] == [(301.20, 350.02), (1176, 1367)]


def test_fish_time_gives_the_executed_in_line() -> None:
    text = """\
Without the patch:

________________________________________________________
Executed in  230.10 millis    fish           external
   usr time    9.32 millis  150.00 micros    9.17 millis
   sys time  120.06 millis   67.00 micros  119.99 millis

With the patch:

________________________________________________________
Executed in  199.04 millis    fish           external
   usr time   11.86 millis  159.00 micros   11.71 millis
   sys time   98.71 millis   70.00 micros   98.64 millis
"""
    assert pairs(text) == [(230.10, 199.04)]


def test_histogram_buckets_and_a_peak_are_no_results() -> None:
    """redis-benchmark's latency histogram bounds, and t/io_uring's `Maximum IOPS=` after
    its samples, pair with nothing; the run's rate line still pairs."""
    text = """\
stock kernel:
0.01% <= 0.1 milliseconds
97.10% <= 0.2 milliseconds
100.00% <= 0.5 milliseconds
1210000.00 requests per second

patched kernel:
0.01% <= 0.1 milliseconds
99.20% <= 0.2 milliseconds
100.00% <= 0.4 milliseconds
1502000.50 requests per second
"""
    assert pairs(text) == [(1210000.0, 1502000.5)]
    runs = """\
Before:
IOPS=6.10M, BW=2.98GiB/s, IOS/call=32/31
IOPS=6.12M, BW=2.99GiB/s, IOS/call=32/32
Maximum IOPS=6.12M
After:
IOPS=6.40M, BW=3.13GiB/s, IOS/call=32/31
IOPS=6.41M, BW=3.13GiB/s, IOS/call=32/31
Maximum IOPS=6.41M
"""
    assert pairs(runs) == [(6.10, 6.40), (2.98, 3.13)]


def test_a_stray_bracket_does_not_change_a_lines_shape():
    text = """\
CONFIG_FOO=n, tracing off
fwd: 901 Mb/s  1760311 pps  (100%)
nf:  844 Mb/s  1650229 pps  ( 93.7%))

CONFIG_FOO=n, tracing off, JIT ON:
fwd: 899 Mb/s  1755120 pps  (100%)
nf:  850 Mb/s  1660013 pps  ( 94.5%)
"""
    assert pairs(text) == [(901, 899), (1760311, 1755120), (844, 850), (1650229, 1660013)]


def test_fio_latency_lines_in_different_units_pair_in_their_own_units():
    text = """\
Before:
  write: IOPS=41.2k, BW=40.2MiB/s (42.2MB/s)(7236MiB/180001msec)
     lat (nsec): min=702, max=80211k, avg=81240.55, stdev=610221.11
After:
  write: IOPS=44.0k, BW=43.0MiB/s (45.1MB/s)(7738MiB/180002msec)
     lat (usec): min=5, max=99012, avg=77.31, stdev=701.52
"""
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (41.2, 44.0), (40.2, 43.0), (81240.55, 77.31)]
    lat = found[-1]
    assert (lat.baseline.unit, lat.patched.unit) == ("nsec", "usec")
    assert lat.patched.canonical_value < lat.baseline.canonical_value  # 77.31 us < 81.24 us


def test_nstat_counters_over_one_second():
    """`nstat -n; sleep 1; nstat` prints a second's worth of each counter: a rate. A counter
    that counts the same as another on both sides is one claim."""
    text = """\
Before:

nstat -n ; sleep 1 ; nstat | grep Tcp
TcpInSegs                       912034             0.0
TcpExtTCPRcvQDrop               41022              0.0
TcpExtTCPBacklogDrop            41022              0.0

After:

nstat -n ; sleep 1 ; nstat | grep Tcp
TcpInSegs                       1120451            0.0
TcpExtTCPRcvQDrop               120                0.0
TcpExtTCPBacklogDrop            120                0.0
"""
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [
        (912034, 1120451, "/s"), (41022, 120, "/s")]
    # without the second between two reads, the counters are totals: no rates
    assert find_paired_runs(text.replace("sleep 1 ; ", "").splitlines(), set()) == []


def test_numbered_runs_against_the_one_that_names_the_baseline():
    text = """\
Test 1: current code
# ./xdp1 eth1
proto 17:     501210 pkt/s
proto 17:     501198 pkt/s

Test 2: prefetch in the poll loop
# ./xdp1 eth1
proto 17:     522384 pkt/s

Test 3: prefetch and bulk refill
# ./xdp1 eth1
proto 17:     548003 pkt/s
"""
    # a claim for each variant against the current code, the first sample of each run
    assert pairs(text) == [(501210, 522384), (501210, 548003)]
    # no caption naming a side among three: nothing to compare with
    assert pairs(text.replace("current code", "plain loop")) == []


def test_a_tab_tables_row_of_means_gives_each_named_column():
    """Runs pasted from a spreadsheet: a tab-separated header, rows of runs, a row of
    means. The means are the runs' figures (rule 4), one claim per named column."""
    table = ("\tTransactions\tLatency P50 (s)\t\t\tThroughput (Mbit/s)\n"
             "Run 1\t{r1}\t{l1}\t\tRun 1\t{t1}\n"
             "Run 2\t{r2}\t{l2}\t\tRun 2\t{t2}\n"
             "Average\t{ra}\t{la}\t\tAverage\t{ta}\n")
    text = ("Baseline\n\n" + table.format(r1=1910442, l1=0.0000912, t1=14810.2, r2=1950020,
                                          l2=0.0000898, t2=14902.8, ra=1930231, la=0.0000905,
                                          ta=14856.5)
            + "\nWith the series\n\n" + table.format(r1=1990731, l1=0.0000871, t1=18201.0,
                                                   r2=2001846, l2=0.0000866, t2=18333.4,
                                                   ra=1996288.5, la=0.00008685, ta=18267.2))
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value) for m in found] == [
        (1930231, 1996288.5), (0.0000905, 0.00008685), (14856.5, 18267.2)]
    assert [dict(m.condition).get("measure") for m in found] == [
        "Transactions", "Latency P50 (s)", "Throughput (Mbit/s)"]


def test_a_caption_adding_something_is_the_patched_run():
    text = """\
With 16 drives and registered buffers I get:

IOPS=30.12M, BW=14.71GiB/s, IOS/call=1/1
IOPS=30.40M, BW=14.84GiB/s, IOS/call=2/2

and adding -R1 I get:

IOPS=32.05M, BW=15.65GiB/s, IOS/call=1/1
IOPS=32.11M, BW=15.68GiB/s, IOS/call=1/1
"""
    assert pairs(text) == [(30.12, 32.05), (14.71, 15.65)]


def test_a_bare_figure_in_brackets_is_a_remark_not_a_result():
    text = """\
CONFIG_FOO=n, tracing off
ct:  629 Mb/s  1230907 pps  ( 71.72)   ( 71.7%)

CONFIG_FOO=n, tracing off, JIT ON:
ct:  617 Mb/s  1207447 pps  ( 70.5%)   ( 70.3%)
"""
    assert pairs(text) == [(629, 617), (1230907, 1207447)]


def test_enabling_a_feature_after_a_run_captioned_in_a_sentence():
    """The patched run's caption starts with a sentence about the run above it; the
    baseline is that run, not an earlier one further up."""
    text = """\
On the small box:

IOPS=9.10M, BW=4.44GiB/s, IOS/call=32/31

On the big box we get:

IOPS=80.02M, BW=39.07GiB/s, IOS/call=31/31
IOPS=80.11M, BW=39.12GiB/s, IOS/call=31/31

using 2400% CPU (24 drives, 24 threads polling) with plain polling,
and enabling adaptive polling:

IOPS=61.35M, BW=29.96GiB/s, IOS/call=32/32
"""
    assert pairs(text) == [(80.02, 61.35), (39.07, 29.96)]


def test_a_switch_turned_on_is_the_patched_run():
    text = """\
Same test, -d16 -s4 -c4, polled:

-R0 -B1
IOPS=51.20M, BW=25.00GiB/s, IOS/call=2/2
IOPS=51.31M, BW=25.05GiB/s, IOS/call=2/2

-R1 -B1
IOPS=53.02M, BW=25.89GiB/s, IOS/call=2/2
"""
    assert pairs(text) == [(51.20, 53.02), (25.00, 25.89)]
    # settings with other values are conditions, not sides
    assert pairs(text.replace("-R0", "-d8").replace("-R1", "-d16")) == []


def test_time_parts_when_the_words_above_claim_them():
    text = """\
Loading a ruleset of a few thousand rules, this cuts the system time by half:

Before: 0,05s user 0,42s system 96% cpu 0,488 total
After:  0,05s user 0,21s system 95% cpu 0,272 total
"""
    found = find_paired_runs(text.splitlines(), set())
    # the total as always, and the system time the sentence claims; `96% cpu` is a share,
    # no stated change
    assert sorted((m.baseline.value, m.patched.value) for m in found) == [(0.42, 0.21), (0.488, 0.272)]
    assert all(m.stated is None for m in found)
    plain = text.replace("cuts the system time by half", "is faster")
    assert [(m.baseline.value, m.patched.value) for m in find_paired_runs(plain.splitlines(), set())] == [
        (0.488, 0.272)]


def test_a_figures_key_names_its_unit():
    text = """\
Before:
        time spent: 10211400 usecs      IOPS: 1958210
After:
        time spent: 17001230 usecs      IOPS: 1176385
"""
    found = find_paired_runs(text.splitlines(), set())
    # (the line's rate is its result, not how long the run took)
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [
        (1958210, 1176385, "IOPS")]


def test_a_kernel_logs_bare_numbers_are_no_results():
    """Two boots' logs under before/after: `port 2`, `supports 0-3,6-7` are ids and
    states; a line's timed figure is a result."""
    text = """\
Log before this patch is applied:
[    9.220149] fakenic 10000.ethernet eth1:  port 2 (mii) speed match none supports 0-3,6-7
[    9.229758] fakenic 10000.ethernet eth1:  port 3 (gmii) speed match none supports 0-3,5-7
[    9.301000] fakenic 10000.ethernet eth1: link up after 812 ms

Log after this patch is applied:
[    9.220150] fakenic 10000.ethernet eth1:  port 2 (mii) speed match none supports 0-3,6-7
[    9.229759] fakenic 10000.ethernet eth1:  port 3 (gmii) speed match none supports 0-3,5-7
[    9.250013] fakenic 10000.ethernet eth1: link up after 95 ms
"""
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [(812, 95, "ms")]
    # (each log line's figures as the pairing sees them: none but the timed one)
    assert [line for line in text.splitlines() if _template(0, line) is not None] == [
        text.splitlines()[3], text.splitlines()[8]]


def test_values_named_in_slashes_give_their_mean():
    """ping's `min/avg/max/mdev = a/b/c/d us`: the mean is the result, the rest spread."""
    text = """\
Without the series:
rtt min/avg/max/mdev = 40.100/45.500/60.250/1.700 us

With the series:
rtt min/avg/max/mdev = 33.900/38.200/50.125/0.800 us
"""
    found = find_paired_runs(text.splitlines(), set())
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [(45.5, 38.2, "us")]
