"""Percentages of change written without their figures (analyze/claims/prose/percent.py), in
the ways real mail writes them; the sentences are written for these tests."""

from __future__ import annotations

import pytest

from analyze.claims.prose.percent import find_percent_changes

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def changes(text: str) -> list[float]:
    """The signed percentages found, in order."""
    return [c.stated.sign * c.stated.value if c.stated.sign and c.stated.value >= 0
            else c.stated.value for c in find_percent_changes(text.splitlines())]


@pytest.mark.parametrize(("text", "found"), [
    ("With this set I see an improvement of the throughput by around 12%.", [12]),
    ("The series increases throughput with above 15% for Rx.", [15]),
    ("It gives an improvement in throughput of 3% for the l2fwd benchmark in zero copy mode "
     "and 2% for copy mode.", [3, 2]),
    ("Some gain for redirect (~2% for XDP_TX, ~4% for XDP_DROP) on 64B packets.", [2, 4]),
    ("This gives up to 3% of perf bump on Tx.", [3]),
    ("Overall the forwarding rate of the router improves with around 6% here.", [6]),
    ("We see a 9% regression in TCP_RR transactions.", [-9]),
    ("Latency got ~1% worse with the series, within noise.", [1]),  # latency went up
    ("Per-packet cost drops by 7% on the receive side.", [-7]),
])
def test_sentences_of_change(text: str, found: list[float]) -> None:
    assert changes(text) == found


def test_a_caption_of_change_over_a_list() -> None:
    text = "performance reduction for the fio jobs:\n  read 0.71% write 0.82% randwrite 0%\n"
    assert changes(text) == [-0.71, -0.82, 0]


def test_a_caption_of_change_over_an_aligned_row() -> None:
    # aligned like a table, one name per percentage; the row of levels above it (no word of
    # change in its caption) states nothing
    text = ("Results, 4 poll queues, 4 CPU VM:\n\n"
            "CPU usage per job:\n"
            "    seqread(64k, QD32)    41%    seqwrite(64k, QD32)    38%\n"
            "throughput reduction:\n"
            "    seqread  0.57%     seqwrite  0.57%    rndread  2.10%    rndwrite  0%\n")
    found = find_percent_changes(text.splitlines())
    assert [(dict(c.condition)["test"], c.stated.sign * c.stated.value) for c in found] == [
        ("seqread", -0.57), ("seqwrite", -0.57), ("rndread", -2.10), ("rndwrite", 0)]


def test_an_aligned_row_with_other_figures_is_no_list_of_changes() -> None:
    text = "throughput reduction:\n    seqread  0.57%   4.1 GB/s    rndread  2.10%\n"
    assert changes(text) == []


def test_signed_changes_named_one_per_line() -> None:
    text = ("Numbers from xdp_rxq_info at 1500 MTU:\n\n"
            "XDP_DROP      +2%\nXDP_PASS      -0,8%\nXDP_TX        -1,1%\n\n"
            "(+11% on XDP_REDIRECT :>)\n")
    assert changes(text) == [2, -0.8, -1.1, 11]


@pytest.mark.parametrize("text", [
    "The NIC reaches 70% of full speed in this mode.",  # a share
    "perf top shows 14% in memcpy before and 4% after.",  # a profile's shares
    "perf report: 2.31% ksoftirqd/3 [kernel.vmlinux] [k] __slab_free",
    "Tx processing is improved by 30% to 35% in this mode.",  # a range: no figure to score
    "The gain is 10%-23% depending on the queue count.",
    "CPU utilization is 45% on the receiving core.",  # a level, no change
    "nr_threads: 50%",  # a setting
    "|--62.10%--pipapo_insert",  # perf's call graph
    "Packet loss is 0% in both runs of the throughput test.",
    "Is the 5% speedup real for the throughput test?",  # a question asks, it claims nothing
    "row = 0  0.91 Mpps  +0%",  # a row of figures: the table readers' business
    # how far runs scatter, not a change
    "The benchmark is noisy: results go up and down by 8% between reruns.",
    "We measured a run-to-run variance of about 3% on the throughput test.",
    # one end of a range, a counter beside the result, a size, a sentence that is no name
    "With the old flag I saw a 10%~30% regression on the ramdisk.",
    "The echo test runs with 9% fewer context switches.",
    "Each ring entry is now 2x larger than before for the throughput test.",
    "Can we skip the rare cases for now? This should cover +90%",
    # levels side by side and a profile's shares
    "Much better CPU util (17% vs 8%) on the receive side.",
    "There is still a lot of tsc overhead (> 10%) in the profile.",
    # another report's title, quoted
    'we reported "[linux-next:master] [foo]  abc123: stress-ng.foo.ops_per_sec 32.5% '
    'improvement" on that tree, please ignore it.',
])
def test_what_is_no_change(text: str) -> None:
    assert changes(text) == []


def test_a_change_takes_the_metric_its_own_clause_names() -> None:
    found = find_percent_changes(
        ["We see IOPS go from 2.1M to 2.4M and 7% less CPU utilization."])
    assert [(c.stated.value, "cpu" in c.context.lower()) for c in found] == [(7, True)]
    assert "IOPS" not in found[0].context


def test_the_result_beside_a_counter_is_kept() -> None:
    assert changes("The echo test gives 4% more throughput, with 9% fewer context switches.") == [4]


def test_two_gains_side_by_side_are_two_changes() -> None:
    assert changes("v2 shows bigger throughput gains than v1 (~30% vs ~14%).") == [30, 14]


def test_a_change_stated_for_the_tests_listed_under_it() -> None:
    from analyze.claims.prose.listed import spread_over_list
    lines = ["All of the tests below have seen around ~30% regression with the commit.",
             "pts-fio-RandomRead-EngineIO_uring-DirectYes-4KB",
             "pts-fio-SequentialRead-EngineIO_uring-DirectYes-4KB",
             "",
             "We see it on 4KB block sizes only."]
    found = spread_over_list(lines, find_percent_changes(lines))
    assert [(dict(c.condition)["benchmark"], c.stated.value) for c in found] == [
        ("pts-fio-RandomRead-EngineIO_uring-DirectYes-4KB", 30),
        ("pts-fio-SequentialRead-EngineIO_uring-DirectYes-4KB", 30)]
    # a sentence that points at no list keeps its one change
    plain = ["The tests have seen around ~30% regression with the commit.", *lines[1:]]
    assert len(spread_over_list(plain, find_percent_changes(plain))) == 1


@pytest.mark.parametrize("sentence", [
    "The table grows when the load doubles (above 12.5% with lfactor=-3) and shrinks when "
    "it falls 16 times (below 0.78%).",
    "Resizing starts once the fill level goes over 75%.",
])
def test_a_level_that_sets_something_off_is_no_change(sentence: str) -> None:
    assert find_percent_changes([sentence]) == []


def test_a_bound_after_a_condition_is_still_a_change():
    found = find_percent_changes(["If we only look at the Rx side, the series raises throughput by above 20% there."])
    assert [q.stated.value for q in found] == [20]


@pytest.mark.parametrize("sentence", [
    "A simple pattern can match every existing line with 100% accuracy, a small gain.",
    "The new tests raise the coverage to 90% coverage of the code, a nice improvement.",
])
def test_a_level_of_rightness_is_no_change(sentence: str) -> None:
    assert find_percent_changes([sentence]) == []


@pytest.mark.parametrize("sentence", [
    "A quick test on a loop target shows the improvement is 100% ~ 200%.",
    "Others report a 5% - 35% improvement on this path.",
])
def test_the_ends_of_a_range_are_no_change(sentence: str) -> None:
    """Rule 6 of docs/claims.md: a range keeps no figure, whichever reader reads it."""
    from analyze.claims.prose.read import find_prose_changes
    assert find_percent_changes([sentence]) == [] and find_prose_changes([sentence]) == []


def test_what_would_be_is_no_change():
    assert find_percent_changes(["Fix the cast and gain 100% performance in ideal cases."]) == []
