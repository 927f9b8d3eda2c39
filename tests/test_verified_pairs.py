"""Pairs told by the percentages written beside them (analyze/claims/tables/verified.py).
The tables are written for these tests in the shapes real mail has: a pipe table whose
patched cells carry their change, mmtests' compare output, a sweep against a `+0%` row, a
box table with a row of percentages over each row of figures, an `increase` row under two
side rows; and tables whose percentages are no changes."""

from __future__ import annotations

import pytest

from analyze.claims.tables.verified import find_verified_pairs

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def pairs(text: str) -> list[tuple[float, float, float | None]]:
    return [(m.baseline.value, m.patched.value, m.stated.value if m.stated else None)
            for m in find_verified_pairs(text.splitlines())]


def test_two_patched_columns_against_the_column_without_percentages() -> None:
    text = """\
loopback (msgs / second):
msg size | copy      | zerocopy       | zerocopy + notify
8192     | 310200    | 402900 (+30%)  | 371100 (+19%)
2048     | 355000    | 371100 (+4.5%) | 350100 (-1.4%)
"""
    assert pairs(text) == [(310200, 402900, 30), (310200, 371100, 19),
                           (355000, 371100, 4.5), (355000, 350100, -1.4)]
    m = find_verified_pairs(text.splitlines())[0]
    assert m.condition == (("case", "8192"), ("measure", "zerocopy")) and "msgs / second" in m.context


def test_compare_output_with_a_zero_reference_and_a_lower_is_better_row() -> None:
    # mmtests prints a gain of a time as a positive percentage although the time fell
    text = """\
                            base                patched
Hmean     tx-64        120.50 (   0.00%)     150.20 (  24.65%)
Hmean     tx-1500     2210.00 (   0.00%)    2650.40 (  19.93%)
Amean     lat-64         8.00 (   0.00%)       6.00 (  25.00%)
"""
    assert pairs(text) == [(120.5, 150.2, 24.65), (2210, 2650.4, 19.93), (8, 6, -25)]


def test_a_sweep_against_the_row_marked_plus_zero() -> None:
    text = """\
Kpps   +-%
batch = 0   412 +0%
batch = 8   450 +9.2%
batch = 32  497 +20.6%
"""
    assert pairs(text) == [(412, 450, 9.2), (412, 497, 20.6)]


def test_a_row_of_percentages_over_a_row_of_figures_in_a_box_table() -> None:
    """Baselines on the left, the series on the right, each change over its figure: the
    pairing most percentages agree with holds for the one a typo made wrong too."""
    text = """\
 ------------.--------------------------.--------------------------.
 Xeon 4314   |     baselines, Mpps      |       this series        |
 ------------|--------|--------|--------|--------|--------|--------|
 set   size  |  hash  |  tree  | bitmap |  hash  |  tree  | bitmap |
 ------------|--------|--------|--------|--------|--------|--------|
 addr        |        |        |        | +10%   |  +5%   |  +2%   |
        100  |    4.0 |    2.0 |    5.0 |    4.4 |    2.1 |    5.1 |
 ------------|--------|--------|--------|--------|--------|--------|
 addr,port   |        |        |        | +12%   |  +5%   |  +4%   |
       1000  |    5.0 |    4.0 |    2.5 |    9.6 |    4.2 |    2.6 |
 ------------'--------'--------'--------'--------'--------'--------'
"""
    assert pairs(text) == [(4.0, 4.4, 10), (2.0, 2.1, 5), (5.0, 5.1, 2),
                           (5.0, 9.6, 12), (4.0, 4.2, 5), (2.5, 2.6, 4)]


def test_an_increase_row_under_two_side_rows() -> None:
    text = """\
size/threads     64/40  256/10  1500/4
tree (Kpps)      40100  21000   4010
series           41300  21100   4090
increase         3.0%   0.48%   2.0%
"""
    assert pairs(text) == [(40100, 41300, 3.0), (21000, 21100, 0.48), (4010, 4090, 2.0)]


@pytest.mark.parametrize("text", [
    # df: a share of the size (used/size), which `avail - size` happens to compute
    """\
Filesystem      Size  Used Avail Use% Mounted on
/dev/sda1       100G   20G   80G  20% /
/dev/sdb1        50G   10G   40G  20% /data
""",
    # a profile: shares of samples
    """\
    12.50%  [k] tcp_sendmsg
     6.25%  [k] copy_user_enhanced
""",
    # percentages no pair of figures computes to
    """\
queues | Mpps  | cpu
1      | 3.1   | +40%
4      | 9.0   | +12%
""",
])
def test_percentages_that_are_no_changes_pair_nothing(text: str) -> None:
    assert pairs(text) == []


def test_the_robot_rows_are_left_to_their_reader() -> None:
    text = """\
     15432 ±  2%     +12.3%      17330 ±  1%  netperf.Throughput_Mbps
      1000           +12.3%       1123        netperf.workload
"""
    assert pairs(text) == []


def test_compare_output_marking_significant_changes_with_stars() -> None:
    text = """\
Hmean     16    3510.04 (   0.00%)     3405.16 *  -2.99%*     3462.12 (  -1.37%)
Hmean     32    4120.00 (   0.00%)     4222.10 *   2.48%*     4100.02 (  -0.48%)
"""
    assert pairs(text) == [(3510.04, 3405.16, -2.99), (3510.04, 3462.12, -1.37),
                           (4120.0, 4222.1, 2.48), (4120.0, 4100.02, -0.48)]


def test_a_column_the_legend_names_as_the_first_reruns_the_baseline() -> None:
    """Its distance from the first column is the test's noise, not a change."""
    text = """\
The columns: gov A + boost, gov A - boost, gov B + boost, gov A + boost
The last column is the first one run again.

pgbench Transactions
Hmean     1       700.00 (   0.00%)      690.00 (  -1.43%)      735.00 (   5.00%)      704.20 (   0.60%)
Hmean     4      2200.00 (   0.00%)     2288.00 (   4.00%)     2145.00 (  -2.50%)     2190.10 (  -0.45%)
"""
    assert pairs(text) == [(700, 690, -1.43), (700, 735, 5.0), (2200, 2288, 4.0),
                           (2200, 2145, -2.5)]


def test_the_pairing_that_keeps_the_printed_sign_wins() -> None:
    """`612.4k (+0.7%)` is up from the mean above it; the run beside it (616,950) is a
    change of about -0.7 %, the printed size with the other sign: not the pair meant."""
    text = """\
[pkts/sec]  run1     run2     run3     mean
before      601,337  608,004  615,702  608.3k
after       603,118  616,950  617,260  612.4k (+0.7%)
"""
    assert pairs(text) == [(608.3, 612.4, 0.7)]


def test_identical_pairs_of_other_rows_and_columns_stay_apart() -> None:
    """Pairs with the same figures in other columns or under other row names are other
    claims: their condition names the column (the header's words) and the row."""
    text = """\
                |      baseline, Mpps      |       this series        |
type   entries  |  hash  | rbtree | pipapo |  hash  | rbtree | pipapo |
----------------|--------|--------|--------|--------|--------|--------|
net,port        |        |        |        |  +4%   |  +4%   |  +4%   |
         1000   |    2.5 |    2.5 |    5.0 |    2.6 |    2.6 |    5.2 |
----------------|--------|--------|--------|--------|--------|--------|
net,mac         |        |        |        |  +4%   |  +4%   |  +4%   |
         1000   |    2.5 |    4.1 |    5.0 |    2.6 |    4.3 |    5.2 |
"""
    found = find_verified_pairs(text.splitlines())
    assert len({m.condition for m in found}) == len(found) == 6
    assert found[0].condition == (("case", "net,port 1000"), ("measure", "hash"))


def test_the_unit_a_column_names() -> None:
    text = """\
dummy:
IO size | copy (tx/s)   | zerocopy (tx/s)
8000    | 1310200       | 2401000 (+83%)
"""
    [m] = find_verified_pairs(text.splitlines())
    assert (m.baseline.value, m.patched.value, m.unit) == (1310200, 2401000, "tx/s")


def test_a_printed_sign_that_is_not_the_change_stays_as_written() -> None:
    """Rule 10 of docs/claims.md: a percentage that contradicts its figures is kept as
    written; only a percentage that is the change with its sign turned (a lower-is-better
    gain) is signed as the figure moved."""
    text = """\
loopback (msgs / second):
msg size | copy      | zerocopy       | zerocopy + notify
8192     | 310200    | 402900 (+30%)  | 301100 (+1%)
2048     | 355000    | 371100 (+4.5%) | 350100 (-1.4%)
"""
    assert (310200, 301100, 1) in pairs(text)
