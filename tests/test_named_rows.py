"""Rows of the same shape under labels that name what each ran (analyze/claims/tables/named_rows.py),
read through the whole pipeline on mail written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.claims.extract import extract_claims
from analyze.claims.tables.named_rows import find_named_rows, introduced_words
from analyze.claims.tables.roles import BASELINE, PATCHED, switch_roles
from analyze.mail.message import parse_message

pytestmark = pytest.mark.readers


def analyze(mail: str):
    return extract_claims(parse_message(mail.encode()))


def _pairs(text: str, series: frozenset[str] = frozenset(), introduced: frozenset[str] = frozenset()):
    found = find_named_rows(text.splitlines(), set(), series, lambda: introduced)
    return [(dict(m.condition), m.baseline.value, m.patched.value, m.unit) for m in found]


MODES = """\
Results on one NVMe drive, fio 3.36
------------------------------------------------------------
                 seqwrite         seqread        randread
busy poll     BW=2100MiB/s    BW=5120MiB/s    IOPS=610K
interrupts    BW=2090MiB/s    BW=5000MiB/s    IOPS=240K
adaptive poll BW=2095MiB/s    BW=5100MiB/s    IOPS=480K(slower)
------------------------------------------------------------
CPU Utilization
------------------------------------------------------------
                 seqwrite   seqread   randread
busy poll        100%       100%      100%
interrupts       41%        47%       100%
adaptive poll    66%        30%       80%
"""


def test_the_row_a_mail_introduces_is_patched_against_the_first_row():
    """No label names a side; the mail introduces `adaptive` polling, so its row is the
    patched run and the first row the baseline; `interrupts` is a reference."""
    found = _pairs(MODES, introduced=frozenset({"adaptive"}))
    assert found == [
        ({"column": "seqwrite", "measure": "bw"}, 2100, 2095, "MiB/s"),
        ({"column": "seqread", "measure": "bw"}, 5120, 5100, "MiB/s"),
        ({"column": "randread", "measure": "iops"}, 610, 480, "K"),
        ({"column": "seqwrite"}, 100, 66, "%"),
        ({"column": "seqread"}, 100, 30, "%"),
        ({"column": "randread"}, 100, 80, "%"),
    ]
    # nothing says which row is the change: nothing is read
    assert _pairs(MODES) == []


def test_percentages_are_levels_only_under_a_share():
    shares = MODES.split("CPU Utilization")[1]
    assert _pairs("Change in throughput" + shares, introduced=frozenset({"adaptive"})) == []


def test_the_series_names_the_patched_label():
    text = "Creating a 4G file:\n\n    cp:               7.5s\n    BLKZEROOUT_FAST:  1.25s\n"
    assert _pairs(text, series=frozenset({"blkzeroout_fast", "flag"})) == [({}, 7.5, 1.25, "s")]
    assert _pairs(text) == []


def test_a_header_of_whole_numbers_names_the_columns():
    text = """\
    Latency (us):
      Nr of jobs        1     2     4     8
      stock kernel    120   180   350   700
      patched kernel  119   125   140   160
"""
    found = _pairs(text)
    assert found[0] == ({"instances": "1"}, 120, 119, "us")
    assert [f[0]["instances"] for f in found] == ["1", "2", "4", "8"]


def test_code_and_time_parts_are_no_rows():
    # a stack trace's file:line and `time`'s real/user lines are not runs of a benchmark
    trace = " kfree+0x1e/0x300 mm/slab.c:123\n io_free+0x9/0x40 io_uring/rw.c:77\n"
    assert _pairs(trace, series=frozenset({"io_free"})) == []
    times = "real   0m5.001s\nuser   0m0.010s\nsys    0m1.200s\n"
    assert _pairs(times, series=frozenset({"user"})) == []


def test_labels_of_different_things_are_not_sides():
    text = "total checksum bytes used: 1048576\nfile data blocks allocated here: 8388608\n"
    assert _pairs(text, series=frozenset({"checksum"})) == []


def test_a_switch_has_both_settings_named():
    assert switch_roles("coalesce 0", "coalesce 1") == (BASELINE, PATCHED)
    assert switch_roles("batching on", "batching off") == (PATCHED, BASELINE)
    assert switch_roles("proto 0", "proto 17") is None
    assert switch_roles("Max no snoop latency", "Max snoop latency") is None


def test_a_bracketed_unit_after_a_figure_is_its_unit():
    text = "    writeback off: BW=410.5(MB/s)\n    writeback on:  BW=432.0(MB/s)\n"
    assert _pairs(text) == [({"measure": "bw"}, 410.5, 432.0, "MB/s")]


def test_introduced_words():
    lines = ["This series adds a new hybrid poll mode.", "We introduce batching here."]
    assert {"hybrid", "batching"} <= introduced_words(lines)


MAIL = """\
From: A Developer <dev@example.org>
To: io-uring@vger.kernel.org
Subject: [PATCH v2] io_uring: sleep before polling
Message-ID: <named-rows-1@example.org>
Date: Mon, 7 Dec 2026 10:00:00 +0000

This adds a new adaptive poll: the task sleeps for half of the expected
completion time before it starts to poll.

""" + MODES + """
Signed-off-by: A Developer <dev@example.org>
"""


def test_through_the_pipeline():
    claims = analyze(MAIL)
    read = sorted((c.metric, c.baseline, c.patched) for c in claims)
    assert ("throughput", 610, 480) in read and ("cpu", 100, 30) in read
    assert all(c.baseline != 2090 and c.baseline != 41 for c in claims)  # the reference row


def test_a_label_aligned_after_its_colon_is_a_sentence():
    """`- label:<tabs>X vs. Y, +N%`: the gap after a label's colon aligns a list, it does
    not make the line a table row the prose readers leave alone."""
    text = MAIL.replace(MODES, "Requests per second:\n\n- small reads:\t\t\t12.5M vs. 14.0M, +12%\n"
                        "- large reads (64k):   3.10M vs. 3.20M, +3.2%\n")
    read = sorted((c.baseline, c.patched, c.stated_change_pct) for c in analyze(text))
    assert (12.5, 14.0, 12.0) in read and (3.1, 3.2, 3.2) in read


def test_a_header_over_one_row_is_no_run():
    text = "  threads        1     2     4\n  hybrid poll   10    20    40\n"
    assert _pairs(text, introduced=frozenset({"hybrid"})) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "  threads        1     2     4", "  hybrid poll   10    20    40", "  regular poll  11 21 41",
    "dd: 0.5s", "FALLOC_FL_X: 0.2s", "CPU Utilization", "base   5%  6%", "", "-----",
    "  none sched:  12K IOPS", "  mq-deadline sched:  13K IOPS", "No of jobs  1  2",
]), max_size=8))
def test_any_arrangement_of_rows_reads_without_error(lines):
    find_named_rows(lines, set(), frozenset({"falloc_fl_x", "deadline"}), lambda: frozenset({"hybrid"}))


TWO_LINE_ROWS = """\
Polling modes, fio randread 4k QD64, one job:

interrupts:
    240 KIOPS
busy poll:
    610 KIOPS
adaptive poll:
    590 KIOPS, -3%
"""


def test_a_label_on_the_line_above_its_figures_is_its_row():
    """Each label stands alone above its indented figure: rows of two lines, of one shape;
    the series names `adaptive`, the first row is the baseline, and the change the row
    states after its figure is kept."""
    found = find_named_rows(TWO_LINE_ROWS.splitlines(), set(), frozenset({"adaptive"}),
                            lambda: frozenset())
    assert [(m.baseline.value, m.patched.value, m.unit, m.stated and m.stated.value)
            for m in found] == [(240, 590, "KIOPS", -3)]
    assert found[0].quote == "interrupts: 240 KIOPS [...] adaptive poll: 590 KIOPS, -3%"
    # a label no more indented than its figure is a line of its own
    flat = TWO_LINE_ROWS.replace("\n    ", "\n")
    assert find_named_rows(flat.splitlines(), set(), frozenset({"adaptive"}), lambda: frozenset()) == []


def test_a_label_with_one_thing_added_that_the_series_names_pairs_with_its_stem():
    """`polled` and `polled+fixed` under a series on fixed buffers: the pair is the
    addition, the other rows (`bdev`, `irq driven`) references; gaps a mailer could not
    encode (`???`) still part label and figure. A series that names nothing added reads
    nothing."""
    rows = ["bdev (non pt)??? 122M IOPS", "irq driven??? 51M IOPS",
            "polled??????? 71M IOPS", "polled+fixed??? 78M IOPS"]
    found = find_named_rows(rows, set(), frozenset({"fixed-buffer"}), lambda: frozenset())
    assert [(m.baseline.value, m.patched.value, m.unit) for m in found] == [(71, 78, "MIOPS")]
    assert find_named_rows(rows, set(), frozenset({"polling"}), lambda: frozenset()) == []
