"""From a message's figures to its claims (analyze/claims/extract.py): stated changes, ranges, lone
patched figures, and a summary sentence that restates a table row."""

from __future__ import annotations

import pytest

from analyze.claims.extract import claims_or_warning, extract_claims
from analyze.errors import LimitExceeded
from analyze.limits import Limits
from analyze.mail.message import parse_message

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def _mail(body: str, message_id: str = "<a1@example.org>", in_reply_to: str = "") -> bytes:
    head = (
        "From: Ana Example <ana@example.org>\n"
        "To: netdev@example.org\n"
        "Subject: [PATCH net-next] net: example change\n"
        "Date: Mon, 03 Mar 2025 10:00:00 +0000\n"
        f"Message-ID: {message_id}\n"
    )
    if in_reply_to:
        head += f"In-Reply-To: {in_reply_to}\nReferences: {in_reply_to}\n"
    return (head + "\n" + body).encode()


def _claims(body: str, **kw: str):
    return extract_claims(parse_message(_mail(body, **kw)))


@pytest.mark.parametrize("sentence,metric,stated,direction", [
    # the sign comes from the words, the metric from the sentence, never from the `%`
    ("Here I see a 3% regression in TCP_RR transactions.", "transactions", -3.0, "regression"),
    ("It cuts the latency by 20%.", "latency", -20.0, "improvement"),
    ("It improves latency by 15%.", "latency", -15.0, "improvement"),
    ("This improves throughput by 12%.", "throughput", 12.0, "improvement"),
    # a speed-up is throughput up, even beside the word CPU; halving a latency improves it.
    # A ratio is no percentage: kept as the `ratio` condition, no stated change to score
    ("Redirecting to a remote CPU is now 2x faster.", "throughput", None, "improvement"),
    ("This patch halves the latency.", "latency", None, "improvement"),
])
def test_stated_only_changes(sentence, metric, stated, direction):
    [c] = _claims(sentence + "\n")
    assert (c.metric, c.stated_change_pct, c.direction) == (metric, stated, direction)
    assert c.baseline is None and c.patched is None and c.unit is None
    assert c.source == "prose"
    if stated is None:
        assert dict(c.condition)["ratio"] in ("2x", "halves")


def test_a_range_is_its_midpoint_and_approximate():
    [c] = _claims("Reads ran at 40-50 MB/sec before this patch and at 90-110 MB/sec after it.\n")
    assert (c.baseline, c.patched, c.bound, c.metric) == (45.0, 100.0, "approx", "throughput")
    assert c.baseline_canonical == pytest.approx(45e6)
    assert c.patched_canonical == pytest.approx(100e6)
    assert c.change_pct == pytest.approx(100 * (100 - 45) / 45)


def test_a_patched_figure_alone():
    [c] = _claims("With this series the router now forwards more than 3 Mpps.\n")
    assert (c.baseline, c.patched, c.bound) == (None, 3.0, "lower")
    assert (c.metric, c.unit, c.direction, c.change_pct) == ("throughput", "Mpps",
                                                            "improvement", None)
    assert c.patched_canonical == pytest.approx(3e6)


# the kernel test robot's layout: a summary sentence, then the commits and `%change` rows
ROBOT = """\
kernel test robot noticed a -7.5% regression of example.throughput on:

commit:
  0a1b2c3d4e ("net: the parent")
  5f6a7b8c9d ("net: the patch")

0a1b2c3d4e5f6a7b 5f6a7b8c9d0e1f2a
---------------- ---------------------------
         %stddev     %change         %stddev
             \\          |                \\
     91234 \u00b1  1%      -7.5%      84391        example.throughput
"""


def test_a_summary_sentence_restating_a_row_is_that_row():
    claims = _claims(ROBOT)
    assert [c.source for c in claims] == ["table"]
    assert claims[0].stated_change_pct == -7.5


def test_a_summary_sentence_quoted_with_its_row_is_that_row():
    quoted = "".join("> " + line + "\n" for line in ROBOT.splitlines())
    claims = _claims("Hi,\n\n" + quoted + "\nI will look into it.\n", message_id="<r1@example.org>",
                     in_reply_to="<robot@example.org>")
    assert [(c.source, c.message_id, c.quoted) for c in claims] == [
        ("table", "robot@example.org", True)]


def test_a_restating_sentence_goes_by_the_computed_change():
    body = ("before: 10.0 us\n"
            "after: 10.1 us\n"
            "\n"
            "So latency is about 1% worse.\n")
    claims = _claims(body)
    assert [c.source for c in claims] == ["list"]


def test_a_change_of_another_metric_is_kept():
    body = ("before: 10.0 us, after: 10.1 us\n"
            "\n"
            "Throughput also improves by 1%.\n")
    claims = _claims(body)
    assert sorted(c.source for c in claims) == ["list", "prose"]


def test_a_change_under_another_condition_is_kept():
    body = ("1 queue:  before: 3.0 Mpps, after: 3.3 Mpps\n"
            "\n"
            "Throughput improves by 10% with 8 queues as well.\n")
    claims = _claims(body)
    assert sorted((c.source, c.condition) for c in claims) == [
        ("list", (("queues", "1"),)), ("prose", (("queues", "8"),))]


def test_trailers_diffstats_and_attributions_give_no_claims():
    body = (
        "On Mon, 3 Mar 2025 at 10:00, Bo Example <bo2@example.org> wrote:\n"
        "\n"
        "Jane Doe (2):\n"
        "  net: one thing\n"
        "\n"
        " net/core/dev.c | 12 ++++++------\n"
        " 1 file changed, 6 insertions(+), 6 deletions(-)\n"
        "\n"
        "Fixes: 1234567890ab (\"net: from 5 to 10 queues\")\n"
        "Tested-by: Bo Example <bo2@example.org> # 5 Mpps before, 9 Mpps after\n"
        "Signed-off-by: Jane Doe <jane1@example.org>\n"
    )
    assert _claims(body) == ()


def test_a_table_ends_at_a_trailer_line():
    body = (
        "threads | before (pps) | after (pps)\n"
        "1       | 100          | 110\n"
        "2       | 200          | 230\n"
        "Tested-by: Bo Example <bo2@example.org>\n"
    )
    claims = _claims(body)
    assert [(c.baseline, c.patched) for c in claims] == [(100, 110), (200, 230)]


@pytest.mark.parametrize("line", [
    "With 8 queues throughput went from 5 Mpps to 9 Mpps, which is what Eric wrote:",
    "Link: the 100G link now runs at 9.4 Gbit/s, up from 8.7 Gbit/s",
])
def test_lines_shaped_like_trailers_or_attributions_that_hold_claims(line):
    """Only the real forms are skipped: an attribution starts with `On ...`, names an
    address or is a few words; `Link:` and `Closes:` trailers hold a URL."""
    assert len(_claims(line + "\n")) == 1


def test_stated_changes_listed_per_test():
    claims = _claims("Results:\n  TCP_RR:      +4.1%\n  - UDP_STREAM: -0.3% (noise)\n")
    assert [(c.metric, c.stated_change_pct, c.condition, c.source) for c in claims] == [
        ("transactions", 4.1, (("measure", "TCP_RR"),), "list"),
        ("throughput", -0.3, (("measure", "UDP_STREAM"),), "list")]


@pytest.mark.parametrize("line", [
    "CPU: 45%",  # a level, not a change
    "v2: +10% more tests",  # names nothing measured, and goes on
    "TCP_RR: +4% and then it crashed",  # more than a remark after the figure
    "Ring: +2",  # not a percentage
])
def test_lines_that_state_no_change_per_test(line):
    assert [c for c in _claims(line + "\n") if c.source == "list"] == []


_FRAGMENTS = ["Reviewed-by: ", "Cc: ", "Jane Doe ", "<jane@example.org>", "Link: ", "https://",
              "lore.kernel.org/x", "Fixes: ", "1234abcd5678", " net/core/dev.c ", "| ", "12 ",
              "+++--", "3 files changed", ", 10 insertions(+)", "Jane Doe (3):", "):", " (",
              "On Thu, 2 Jul 2015, Eric wrote:", " wrote:", ": ", "before: 5 Mpps", "\t", " ",
              "x", "("]


def _not_content_by_the_pattern_alone(line: str) -> bool:
    import analyze.claims.extract as claims

    if ":" not in line and "|" not in line and "changed" not in line:
        return False
    text = line.strip()
    if len(text) <= 300 and text.endswith((" wrote:", " writes:")) and (
            text.startswith(claims._ATTRIBUTION_START) or "@" in text
            or claims._is_name(text.split()[:-1])):
        return True
    return claims._NOT_CONTENT.match(line) is not None


def test_lines_that_are_no_content_are_told_without_the_pattern_when_they_can_be():
    """The literal tests in front of `_NOT_CONTENT` never change what it says of a line."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from analyze.claims.extract import _not_content

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(st.sampled_from(_FRAGMENTS), max_size=8))
    def check(parts):
        line = "".join(parts)
        assert _not_content(line) == _not_content_by_the_pattern_alone(line), line

    check()


# -- the table limit (Limits.table_lines, PATCHPERF_LIMIT_TABLE_LINES) ----------------------------

_LIST = "Before:\n" + "".join(f"  size {i}: {i + 1}.0 Mpps\n" for i in range(30)) \
    + "\nAfter:\n" + "".join(f"  size {i}: {i + 2}.0 Mpps\n" for i in range(30))
_LKP = ("       base    patched\n---------------- ---------------------------\n"
        "         %stddev     %change         %stddev\n"
        + "".join(f"      {1000 + i}           +12.3%       {1123 + i}        hackbench.throughput{i}\n"
                  for i in range(30)))
_PIPES = "size | before | after\n" + "".join(f"{i} | {i + 1}.0 Mpps | {i + 2}.0 Mpps\n" for i in range(30))


@pytest.mark.parametrize("body", [_LIST, _LKP, _PIPES], ids=["list", "lkp", "pipes"])
def test_a_table_past_the_limit_is_named_and_its_claims_not_read(body):
    message = parse_message(_mail("Numbers:\n\n" + body + "\nThanks.\n"))
    assert len(extract_claims(message, Limits(table_lines=30))) >= 30  # at the limit: read
    with pytest.raises(LimitExceeded, match="table exceeds the limit of 29 lines"):
        extract_claims(message, Limits(table_lines=29))
    claims, warning = claims_or_warning(message, Limits(table_lines=29))
    assert claims == () and warning == "table exceeds the limit of 29 lines; its claims are not read"


def test_the_limit_is_per_table():
    """Two robot tables of 20 rows under a limit of 30: each is within it (rows were counted
    across the block, found in review); 31 rows that end the block are past it."""
    table = _LKP.split("\n")
    head, rows = table[:3], table[3:-1]
    body = "\n".join(head + rows[:20]) + "\n\nand\n\n" + "\n".join(head + rows[10:30]) + "\n"
    assert extract_claims(parse_message(_mail(body)), Limits(table_lines=20))
    ending = "\n".join(head + rows[:30])  # the block's last line is the table's last row
    with pytest.raises(LimitExceeded, match="table exceeds the limit of 29 lines"):
        extract_claims(parse_message(_mail(ending)), Limits(table_lines=29))


def test_a_change_stated_on_a_caption_belongs_to_the_pair_below_it():
    body = """\
The redirect test shows ~28.5% improvement:

Before: ~2.1Mpps
After:  ~2.7Mpps

Tested on a 2-socket box.
"""
    claims = _claims(body)
    assert len(claims) == 1  # the caption's percentage is that pair's, not a claim of its own
    c = claims[0]
    assert (c.baseline, c.patched) == (2.1, 2.7)
    assert c.stated_change_pct == 28.5


def test_a_caption_change_does_not_replace_a_pair_own_stated_change():
    body = """\
Overall about 10% better:

Before: 100 Kpps
After:  125 Kpps (+25%)
"""
    claims = _claims(body)
    pairs = [c for c in claims if c.baseline is not None]
    assert [(c.baseline, c.patched, c.stated_change_pct) for c in pairs] == [
        (100, 125, 25)]
    # the caption's own figure is kept as a claim stated alone
    assert any(c.baseline is None and c.stated_change_pct == 10 for c in claims)


def test_a_caption_ending_in_writes_is_no_attribution():
    """`Jane Doe writes:` introduces a quote; `random writes:` captions a run."""
    from analyze.claims.extract import _not_content
    assert _not_content("random writes:") is False
    assert _not_content("Jane Doe writes:") is True
    assert _not_content("On Mon, 3 Mar 2025, Jane Doe wrote:") is True


def test_the_series_named_by_its_subject_is_the_patched_run():
    mail = _mail("""\
Some numbers, buffered writes on xfs:

  sync writes:
  depth
     1   write: IOPS=200k, BW=195MiB/s
     8   write: IOPS=210k, BW=205MiB/s

  workerpool:
  depth
     1   write: IOPS=150k, BW=146MiB/s
     8   write: IOPS=330k, BW=322MiB/s
""").replace(b"Subject: [PATCH net-next] net: example change",
             b"Subject: [RFC PATCH 00/12] io_uring: workerpool")
    claims = extract_claims(parse_message(mail))
    assert sorted((c.baseline, c.patched) for c in claims) == [
        (195, 146), (200, 150), (205, 322), (210, 330)]
    assert {dict(c.condition).get("depth") for c in claims} == {"1", "8"}


def test_a_quote_trimmed_to_lines_of_code_gives_no_claims():
    body = """\
> +	/*
> +	 * Each step up needs more wakeups:
> +	 * level 0->1:   25ms -> 200 wakeups per second increase
> +	 * level 1->2:   50ms -> 125 wakeups per second increase
> +	 */

I would rather keep this in the governor.
"""
    assert _claims(body, in_reply_to="<a0@example.org>") == ()


def test_a_quote_of_signed_results_is_no_code():
    body = """\
> TCP_RR:     +4.1%
> TCP_STREAM: +2.0%
> UDP_RR:     -0.5%

Nice.
"""
    assert len(_claims(body, in_reply_to="<a0@example.org>")) == 3


def test_a_sentence_summing_up_a_pair_is_its_stated_change():
    body = """\
Before:
IOPS=4.10M, BW=2.00GiB/s, IOS/call=31/32

After:
IOPS=5.20M, BW=2.54GiB/s, IOS/call=31/31

which is about a 27% improvement.
"""
    claims = _claims(body)
    # the figures compute to the sentence's change: it is theirs, not a claim of its own
    assert sorted((c.baseline, c.patched, c.stated_change_pct) for c in claims) == [
        (2.0, 2.54, 27), (4.1, 5.2, 27)]


def test_a_sentence_whose_change_no_pair_computes_to_stays_a_claim():
    body = """\
Before:
IOPS=4.10M

After:
IOPS=5.20M

Latency is 10% better too.
"""
    claims = _claims(body)
    assert sorted((c.baseline is None, c.stated_change_pct) for c in claims) == [
        (False, None), (True, -10)]


def test_a_ratio_the_pair_beside_it_computes_to_is_no_claim_of_its_own():
    body = "Each entry now uses 4 times as much memory (8 bytes -> 32 bytes), sadly.\n"
    claims = _claims(body)
    assert [(c.baseline, c.patched) for c in claims] == [(8, 32)]


@pytest.mark.parametrize(("sentence", "metric", "direction"), [
    # far-off words do not name the change's metric
    ("It helped a lot (>40% improvement for file creates), but thread and core utilization "
     "went up.", "other", "improvement"),
    # a cut of something no metric names is of a cost
    ("The hints give only a small part (~10% extra write amp reduction).", "other",
     "improvement"),
    ("It does use 12% less CPU on the receive side.", "cpu", "improvement"),
])
def test_a_stated_change_takes_its_metric_from_the_words_by_it(sentence, metric, direction):
    [c] = _claims(sentence + "\n")
    assert (c.metric, c.direction) == (metric, direction)


def test_cpu_pinning_is_a_setup_not_the_metric_of_a_gain():
    [c] = _claims("Without patch 1, i.e. to leverage CPU pinning, there is only ~13% "
                  "performance gain of polling.\n")
    # (a gain of "performance" with no quantity named is of a rate, as the corpus annotates it)
    assert (c.metric, c.stated_change_pct, c.direction) == ("throughput", 13, "improvement")


def test_a_whole_quoted_patch_keeps_the_claim_of_its_commit_message():
    """A reply quoting a whole patch: the diff's figures are code, the commit message's
    pair above it is a claim (attributed to the message quoted)."""
    body = """\
Jane Doe <jane@example.org> writes:

> > Use the bulk free API in the Tx completion path.
> >
> > XDP_TX (current code): 6.1Mpps
> > XDP_TX (current code + bulk free): 7.3Mpps
> >
> > Signed-off-by: Jane Doe <jane@example.org>
> > ---
> >  drivers/net/ethernet/acme/tx.c | 5 ++++-
> >  1 file changed, 4 insertions(+), 1 deletion(-)
> >
> > diff --git a/drivers/net/ethernet/acme/tx.c b/drivers/net/ethernet/acme/tx.c
> > @@ -120,7 +120,8 @@ static int acme_clean_tx(struct acme_ring *ring, int budget)
> > -\tfor (i = 0; i < 64; i++)
> > +\tfor (i = 0; i < 128; i++)
> > +\t\tcount += 2;

Have you measured the cache pressure this adds?
"""
    claims = _claims(body)
    assert [(c.baseline, c.patched, c.unit) for c in claims] == [(6.1, 7.3, "Mpps")]
    assert claims[0].quoted


def test_an_approximate_change_beside_its_pair_is_no_claim_of_its_own():
    # "~20%" rounds the pair's +22 %: the sentence's change is the pair's, not another claim
    # (the sentence wrapped: the change and the pair on lines of their own)
    claims = _claims("It gives ~20% improvements when redirecting from ixgbe to a tap\n"
                     "device (from 2.50Mpps to 3.05Mpps).\n")
    assert [(c.baseline, c.patched) for c in claims] == [(2.5, 3.05)]
    # a change no pair comes near stays its own claim
    claims = _claims("It gives ~50% improvements when redirecting from ixgbe to a tap\n"
                     "device (from 2.50Mpps to 3.05Mpps).\n")
    assert sorted((c.baseline is None, c.stated_change_pct) for c in claims) == [
        (False, None), (True, 50.0)]


def test_a_quoted_table_typed_out_again_is_one_claim():
    """A reply quotes the patch's figures and then pastes them again unquoted: an
    identical restatement (rule 7), credited to the quoted message alone."""
    body = ("On Mon, Ana wrote:\n"
            "> Before: 1401.91 Mb/s\n"
            "> After:  1395.05 Mb/s\n"
            "\n"
            "The full result, again:\n"
            "\n"
            "Before: 1401.91 Mb/s\n"
            "After:  1395.05 Mb/s\n")
    found = _claims(body, message_id="<r1@example.org>", in_reply_to="<p1@example.org>")
    assert [(c.baseline, c.patched, c.quoted) for c in found] == [(1401.91, 1395.05, True)]


def test_no_percentage_moves_a_figure_across_zero():
    (c,) = _claims("Mean offset, before: -1.12 ns\nMean offset, after: 0.14 ns\n")
    assert (c.baseline, c.patched, c.change_pct) == (-1.12, 0.14, None)
