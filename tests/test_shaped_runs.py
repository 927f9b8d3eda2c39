"""Runs paired by their shape first, their words second (issue 31): two fio reports of one
job, two captioned runs of one setting switched off and on, two groups of lines labelled by
the files they came from; and what is no comparison (one run written twice, a shell's
trace of its commands). Mail written for these tests, in the shapes linux-block mail has."""

from __future__ import annotations

import pytest

from analyze.claims.lists.fio_output import find_reports, pair_reports, read_report
from analyze.claims.lists.paired import find_paired_runs
from analyze.claims.tables.roles import BASELINE, PATCHED, contrast_roles

pytestmark = pytest.mark.readers


def pairs(text: str) -> list[tuple[float, float, dict[str, str]]]:
    return [(m.baseline.value, m.patched.value, dict(m.condition))
            for m in find_paired_runs(text.splitlines(), set())]


REPORT = """\
{label}:
bench: (groupid=0, jobs=1): err= 0: pid=4242: Mon Jan  6 10:00:00 2025
  write: IOPS={iops}, BW={bw}MiB/s ({mb}MB/s)(12.0GiB/60001msec)
    slat (usec): min=1200, max=3100, avg={slat}, stdev=30.10
    clat (msec): min=1, max=90, avg={clat}, stdev= 2.20
     lat (msec): min=2, max=91, avg={lat}, stdev= 2.21
    clat percentiles (msec):
     |  1.00th=[  {p1}],  5.00th=[  {p1}], 50.00th=[  {p50}], 99.00th=[  {p99}],
     | 99.99th=[  {p99}]
   bw (  KiB/s): min=200000, max=210000, per=99.70%, avg=204800.00, stdev=900.00, samples=120
   iops        : min=  195, max=  205, avg={iops}.10, stdev= 1.10, samples=120
  lat (msec)   : 50=0.10%, 100=99.90%
  cpu          : usr=3.10%, sys=90.20%, ctx=31, majf=0, minf=4
  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=0.1%, 32=0.1%, >=64=99.9%
     issued rwts: total=0,{total},0,0 short=0,0,0,0 dropped=0,0,0,0
     latency   : target=0, window=0, percentile=100.00%, depth=64

Run status group 0 (all jobs):
  WRITE: bw={bw}MiB/s ({mb}MB/s), {bw}MiB/s-{bw}MiB/s, io=12.0GiB (12.9GB), run=60001-60001msec
"""


def _report(label: str, iops: int, bw: int, slat: float, clat: float, lat: float,
            p1: int, p50: int, p99: int) -> str:
    return REPORT.format(label=label, iops=iops, bw=bw, mb=round(bw * 1.048576), slat=slat,
                         clat=clat, lat=lat, p1=p1, p50=p50, p99=p99, total=iops * 60)


def test_two_fio_reports_pair_result_by_result_and_leave_what_supports_them() -> None:
    text = _report("Before the series", 200, 201, 2401.5, 78.20, 79.90, 76, 78, 80) + "\n" + \
        _report("After the series", 215, 216, 2250.25, 72.40, 74.00, 70, 72, 75)
    got = pairs(text)
    measures = [c["measure"] for _, _, c in got]
    assert measures == ["write IOPS", "write BW", "slat avg", "clat avg", "lat avg",
                        "clat 1.00th", "clat 5.00th", "clat 50.00th", "clat 99.00th",
                        "clat 99.99th"]
    assert [(b, p) for b, p, _ in got][:5] == [(200, 215), (201, 216), (2401.5, 2250.25),
                                               (78.2, 72.4), (79.9, 74.0)]
    # the samples' statistics, the CPU's shares, the depths, the issued counts and the
    # group's summary are no claims
    assert not {204800.0, 3.1, 90.2, 12000.0} & {b for b, _, _ in got}


def test_fio_units_are_the_ones_the_report_names() -> None:
    lines = """\
job: (groupid=0, jobs=4): err= 0: pid=1: Mon Jan  6 10:00:00 2025
  read: IOPS=7504k, BW=28.6GiB/s (30.7GB/s)(1717GiB/60001msec)
    clat (nsec): min=400, max=90000, avg=1074.98, stdev=20.10
""".splitlines()
    iops, bw, clat = read_report(lines, 0, len(lines))
    assert (iops.quantity.value, iops.quantity.unit, iops.quantity.canonical_value) == (
        7504, "kIOPS", 7504000)
    assert (bw.quantity.unit, clat.quantity.unit, clat.quantity.value) == ("GiB/s", "nsec", 1074.98)


def test_reports_of_one_job_pair_under_the_settings_a_trace_names() -> None:
    """Each setting's reports under the shell's trace of what ran (`+ test default-off`):
    the reports pair by their job's name, the trace's words say which is which."""
    def block(setting: str, iops: int) -> str:
        return (f"+ run_test {setting}\n+ fio jobs/randread.fio --size=2G\n"
                f"fio-3.34\nStarting 1 process\n"
                + _report("", iops, iops * 4, 2.5, 60.1, 61.2, 48, 59, 76).split("\n", 1)[1]
                + "\nDisk stats (read/write):\n  zram0: ios=1/2, util=97.57%\n")
    text = block("default-nowait-off", 255) + block("nowait-on", 386)
    got = pairs(text)
    assert got[0][:2] == (255, 386) and got[1][:2] == (1020, 1544)
    assert len(find_reports(text.splitlines())) == 2


def test_runs_under_a_setting_switched_off_and_on() -> None:
    text = """\
Throughput with and without the new flag:

* Configfs mode:-

QUEUE_FLAG_NOWAIT disabled :-
---------------------------------------------
cfg-qmode-0-nowait-0-fio-1.log:  read: IOPS=1299k, BW=5076MiB/s
cfg-qmode-0-nowait-0-fio-2.log:  read: IOPS=1250k, BW=4884MiB/s

QUEUE_FLAG_NOWAIT enabled :-
---------------------------------------------
cfg-qmode-0-nowait-1-fio-1.log:  read: IOPS=5469k, BW=20.9GiB/s
cfg-qmode-0-nowait-1-fio-2.log:  read: IOPS=5525k, BW=21.1GiB/s

* Module parameter mode:-

QUEUE_FLAG_NOWAIT disabled :-
---------------------------------------------
qmode-0-nowait-0-fio-1.log:  read: IOPS=1261k, BW=4924MiB/s

QUEUE_FLAG_NOWAIT enabled :-
---------------------------------------------
qmode-0-nowait-1-fio-1.log:  read: IOPS=5521k, BW=21.1GiB/s
"""
    got = pairs(text)
    # each side's first run; the heading above each pair is its setup
    assert [(b, p) for b, p, _ in got] == [(1299, 5469), (5076, 20.9), (1261, 5521), (4924, 21.1)]
    assert [c["setup"] for _, _, c in got] == ["Configfs mode"] * 2 + ["Module parameter mode"] * 2


def test_lines_labelled_by_the_file_each_setting_wrote() -> None:
    text = """\
# grep IOPS zram*fio | column -t

default-nowait-off-1.fio:  read:  IOPS=792k,  BW=3095MiB/s
default-nowait-off-2.fio:  read:  IOPS=812k,  BW=3173MiB/s

nowait-on-1.fio:           read:  IOPS=864k,  BW=3374MiB/s
nowait-on-2.fio:           read:  IOPS=863k,  BW=3371MiB/s
"""
    assert [(b, p) for b, p, _ in pairs(text)] == [(792, 864), (3095, 3374)]


def test_two_labels_that_name_no_switch_are_no_comparison() -> None:
    text = """\
nvme0n1.fio:  read:  IOPS=792k,  BW=3095MiB/s

nvme1n1.fio:  read:  IOPS=864k,  BW=3374MiB/s
"""
    assert pairs(text) == []


def test_one_run_written_twice_is_no_comparison() -> None:
    """A cover's figures again in its commit message, under a shell's trace (`+ git log`):
    the trace's `+` names no patched side, and a run is never paired with itself."""
    run = "nowait-on-1.fio:  read:  IOPS=864k,  BW=3374MiB/s\nnowait-on-2.fio:  read:  IOPS=863k,  BW=3371MiB/s\n"
    text = run + "\n+ git log -4\ncommit 6f5b4f6dec19\n\n    " + run.replace("\n", "\n    ")
    assert pairs(text) == []


@pytest.mark.parametrize(("first", "second", "roles"), [
    ("QUEUE_FLAG_NOWAIT disabled", "QUEUE_FLAG_NOWAIT enabled", (BASELINE, PATCHED)),
    ("nowait-on", "default-nowait-off", (PATCHED, BASELINE)),
    ("coalesce 0", "coalesce 1", (BASELINE, PATCHED)),
    ("Without patch", "With patch", (BASELINE, PATCHED)),
    ("nvme0", "nvme1", None),
    ("read", "write", None),
    ("regular poll", "hybrid poll", None),
])
def test_contrast_roles(first: str, second: str, roles: tuple[str, str] | None) -> None:
    assert contrast_roles(first, second) == roles


def test_pair_reports_takes_the_kth_of_each_name() -> None:
    lines = (_report("a", 1, 2, 1.0, 1.0, 1.0, 1, 1, 1) + _report("b", 3, 4, 1.0, 1.0, 1.0, 1, 1, 1)
             ).splitlines()
    first, second = find_reports(lines)
    paired = pair_reports(read_report(lines, first.start, first.end),
                          read_report(lines, second.start, second.end))
    assert [(b.quantity.value, p.quantity.value) for b, p in paired][:2] == [(1, 3), (2, 4)]


def test_rows_paired_by_a_column_switched_off_and_on() -> None:
    from analyze.claims.tables.flag_rows import find_flag_rows

    text = """\
Receiving over a 100G link, bundles coalesced or not:

size      batching    jobs     bw           cpu usage    bw diff
================================================================
64           0          1     20GB/sec        100%
64           1          1     41GB/sec         81%        +105%
64           0          4     70GB/sec        350%
64           1          4     88GB/sec        170%        + 26%
"""
    got = [(m.baseline.value, m.patched.value, m.stated.value if m.stated else None,
            dict(m.condition)) for m in find_flag_rows(text.splitlines())]
    assert got == [
        (20, 41, 105, {"size": "64", "jobs": "1", "measure": "bw"}),
        (100, 81, None, {"size": "64", "jobs": "1", "measure": "cpu usage"}),
        (70, 88, 26, {"size": "64", "jobs": "4", "measure": "bw"}),
        (350, 170, None, {"size": "64", "jobs": "4", "measure": "cpu usage"})]


def test_a_column_of_two_devices_is_no_side() -> None:
    from analyze.claims.tables.flag_rows import find_flag_rows

    text = """\
size      disk     bw
64        sda     20GB/sec
64        sdb     41GB/sec
"""
    assert find_flag_rows(text.splitlines()) == []


def test_two_runs_joined_as_the_ends_of_one_change() -> None:
    text = """\
On a peak IOPS run with iostats on, this takes the performance from:

IOPS=98.40M, BW=48.05GiB/s, IOS/call=31/31
IOPS=98.43M, BW=48.06GiB/s, IOS/call=32/32

to

IOPS=107.70M, BW=52.59GiB/s, IOS/call=31/32
IOPS=107.62M, BW=52.55GiB/s, IOS/call=31/31
"""
    # each side's first sample (rule 4)
    assert [(b, p) for b, p, _ in pairs(text)] == [(98.40, 107.70), (48.05, 52.59)]
    # `to` with no `from` above is a word, not a join
    assert pairs(text.replace("from:", "like this:")) == []


def test_fio_lines_that_support_a_result_are_never_paired() -> None:
    text = """\
Before:
  cpu          : usr=2.02%, sys=8.88%, ctx=424486, majf=0, minf=3905
     issued rwts: total=165854,262144,0,0 short=0,0,0,0 dropped=0,0,0,0
   bw (  KiB/s): min= 3008, max=19248, per=100.00%, avg=12709.96, stdev=3287.35, samples=165

After:
  cpu          : usr=2.05%, sys=9.14%, ctx=422964, majf=0, minf=3899
     issued rwts: total=165557,262144,0,0 short=0,0,0,0 dropped=0,0,0,0
   bw (  KiB/s): min= 3100, max=19000, per=100.00%, avg=12900.10, stdev=3000.00, samples=165
"""
    assert pairs(text) == []
