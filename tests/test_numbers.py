"""The number/unit lexer: every format netdev mail writes figures in, and the look-alikes."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyze.claims.lexer.numbers import MAX_DIGITS, find_quantities

# run again on the compiled build: `make test-compiled`
pytestmark = pytest.mark.readers


def _fields(q, keys):
    return {k: getattr(q, k) for k in keys}


# (line, [expected figure as a dict of the fields to check, in order])
CASES = [
    # plain numbers, as in pktgen result tables (seed 001's shape)
    ("| 1 | 3518448 | 3591240 | irrelevant |",
     [dict(text="1", value=1.0, kind="number", unit=None),
      dict(text="3518448", value=3518448.0),
      dict(text="3591240", value=3591240.0)]),
    # thousands separators
    ("got 1,234,567 pps", [dict(text="1,234,567 pps", value=1234567.0, unit="pps",
                                canonical_unit="pps", canonical_value=1234567.0)]),
    ("1,234", [dict(value=1234.0)]),
    ("1,234.5 Mpps", [dict(value=1234.5, unit="Mpps", canonical_value=1234.5e6)]),
    ("rx 1.341.700 pps", [dict(text="1.341.700 pps", value=1341700.0)]),
    ("1.341.700,5", [dict(value=1341700.5)]),
    ("1.341 Mpps", [dict(value=1.341, canonical_value=1341000.0)]),
    ("1 234 567 pps", [dict(text="1 234 567 pps", value=1234567.0)]),
    ("1\u202f234\u202f567", [dict(value=1234567.0)]),
    # plain spaces also separate columns: packet sizes stay apart
    ("64 128 256 512", [dict(value=64.0), dict(value=128.0), dict(value=256.0),
                        dict(value=512.0)]),
    # decimal commas, and the locale they set for the rest of the line
    ("35,5 Mpps", [dict(text="35,5 Mpps", value=35.5, canonical_value=35.5e6)]),
    ("35,5 Mpps vs 1,234 Mpps", [dict(value=35.5), dict(value=1.234)]),
    ("1,2345", [dict(value=1.2345)]),
    # comma lists are elements, not decimals (seed 004's loop)
    ("for i in {35,50,65,80,95,110,125,140,155}",
     [dict(value=v) for v in (35.0, 50.0, 65.0, 80.0, 95.0, 110.0, 125.0, 140.0, 155.0)]),
    ("{1,2}", [dict(value=1.0), dict(value=2.0)]),
    ("a,10,20", [dict(value=10.0), dict(value=20.0)]),
    # SI prefixes
    ("863Kpps", [dict(value=863.0, unit="Kpps", canonical_unit="pps", canonical_value=863e3)]),
    ("1.3Mpps", [dict(value=1.3, unit="Mpps", canonical_value=1.3e6)]),
    ("10 mpps", [dict(unit="mpps", canonical_value=10e6)]),
    ("10G", [dict(value=10.0, unit="G", canonical_unit=None, canonical_value=10e9)]),
    ("2.2K", [dict(value=2.2, unit="K", canonical_value=2200.0)]),
    (".5 Mpps", [dict(text=".5 Mpps", value=0.5)]),
    # rates
    ("14.88 Mpps", [dict(canonical_unit="pps")]),
    ("100 fps", [dict(canonical_unit="pps")]),
    ("9.41 Gbits/sec", [dict(unit="Gbits/sec", canonical_unit="bit/s", canonical_value=9.41e9)]),
    ("940 Mbit/s", [dict(canonical_unit="bit/s", canonical_value=940e6)]),
    ("25Gbps", [dict(unit="Gbps", canonical_value=25e9)]),
    ("100 Mbps", [dict(canonical_value=100e6)]),
    ("10 Mb/s", [dict(unit="Mb/s", canonical_unit="bit/s", canonical_value=10e6)]),
    ("10 MB/s", [dict(unit="MB/s", canonical_unit="B/s", canonical_value=10e6)]),
    ("110MB/sec", [dict(unit="MB/sec", canonical_unit="B/s")]),
    ("512 KB/s", [dict(canonical_unit="B/s", canonical_value=512e3)]),
    ("rate 2gbit burst", [dict(unit="gbit", canonical_unit="bit/s", canonical_value=2e9)]),
    ("28000 trans/s", [dict(canonical_unit="trans/s")]),
    ("28000 trans./sec", [dict(unit="trans./sec", canonical_unit="trans/s")]),
    ("28000 trans/sec", [dict(canonical_unit="trans/s")]),
    ("28000 Trans/s", [dict(canonical_unit="trans/s")]),
    ("1200 TPS and 1300 tps", [dict(canonical_unit="trans/s"), dict(canonical_unit="trans/s")]),
    ("5000 ops/s", [dict(canonical_unit="ops/s")]),
    ("5000 req/s", [dict(canonical_unit="req/s")]),
    ("5000 requests/sec", [dict(canonical_unit="req/s")]),
    # time
    ("12 ns", [dict(kind="duration", canonical_unit="s", canonical_value=pytest.approx(12e-9))]),
    ("12us", [dict(unit="us", canonical_value=pytest.approx(12e-6))]),
    ("12 usec", [dict(unit="usec", canonical_value=pytest.approx(12e-6))]),
    ("12 µs", [dict(unit="µs", canonical_value=pytest.approx(12e-6))]),
    ("3.5 ms", [dict(canonical_value=pytest.approx(3.5e-3))]),
    ("took 5 s", [dict(unit="s", canonical_value=5.0)]),
    ("took 5 sec.", [dict(text="5 sec", unit="sec")]),
    ("real\t0m19.695s", [dict(text="0m19.695s", value=19.695, unit="s", kind="duration")]),
    ("1m2.5s", [dict(value=62.5, canonical_value=62.5)]),
    ("5 sockets", [dict(value=5.0, unit=None)]),
    # cycles, CPU, memory
    ("1,204 cycles", [dict(value=1204.0, canonical_unit="cycles")]),
    ("85 cycles/pkt", [dict(unit="cycles/pkt", canonical_unit="cycles")]),
    ("45% CPU", [dict(text="45%", unit="%", kind="percent")]),
    ("4 KiB", [dict(canonical_unit="B", canonical_value=4096.0)]),
    ("64 bytes", [dict(canonical_unit="B", canonical_value=64.0)]),
    ("2 GB", [dict(canonical_value=2e9)]),
    ("64-byte packets", [dict(text="64-byte", unit="B", canonical_value=64.0)]),
    # percentages: signed, bracketed, spaced
    ("+(4.684733558%)", [dict(text="+(4.684733558%)", value=4.684733558, sign=1,
                              kind="percent", canonical_unit="%")]),
    ("-(0.5069080835%)", [dict(text="-(0.5069080835%)", value=-0.5069080835, sign=-1)]),
    ("a - 8.4% drop", [dict(text="- 8.4%", value=-8.4, sign=-1)]),
    ("110%", [dict(value=110.0, sign=None)]),
    ("up +4.6 %", [dict(text="+4.6 %", value=4.6, sign=1)]),
    ("(+4.6%)", [dict(text="+4.6%", sign=1)]),
    ("-3.2%", [dict(value=-3.2, sign=-1)]),
    ("−3.2%", [dict(value=-3.2, sign=-1)]),
    ("10 percent", [dict(unit="percent", canonical_unit="%")]),
    ("3518448 ± 2%", [dict(value=3518448.0), dict(text="± 2%", value=2.0, sign=None)]),
    # a bullet is not a minus
    ("- 8.4% better", [dict(text="8.4%", value=8.4, sign=None)]),
    # ranges
    ("97-110MB/sec", [dict(text="97-110MB/sec", kind="range", value=97.0, high=110.0,
                           unit="MB/sec", canonical_value=97e6)]),
    ("~2.2K-8.7K", [dict(text="~2.2K-8.7K", kind="range", value=2.2, high=8.7, unit="K",
                         bound="approx")]),
    ("5 to 7 Mpps", [dict(text="5 to 7 Mpps", kind="range", value=5.0, high=7.0,
                          unit="Mpps")]),
    ("10-20%", [dict(kind="range", unit="%", value=10.0, high=20.0)]),
    ("3 Mpps-4 Mpps", [dict(kind="range", value=3.0, high=4.0, unit="Mpps")]),
    ("from 5 to 10 Mpps", [dict(text="5", kind="number"), dict(text="10 Mpps")]),
    ("5 -> 10 Mpps", [dict(text="5", bound=None), dict(text="10 Mpps", bound=None)]),
    # bounds and approximations
    ("more than 10 Mpps", [dict(text="10 Mpps", bound="lower")]),
    ("over 10 Mpps", [dict(bound="lower")]),
    ("above 10 Mpps", [dict(bound="lower")]),
    ("at least 10 Mpps", [dict(bound="lower")]),
    (">10 Mpps", [dict(text=">10 Mpps", bound="lower")]),
    (">= 10 Mpps", [dict(text=">= 10 Mpps", bound="lower")]),
    ("up to 10 Mpps", [dict(bound="upper")]),
    ("at most 10 Mpps", [dict(bound="upper")]),
    ("under 10 us", [dict(bound="upper")]),
    ("below 10 us", [dict(bound="upper")]),
    ("less than 10 us", [dict(bound="upper")]),
    ("<10 us", [dict(text="<10 us", bound="upper")]),
    ("no more than 10 us", [dict(bound="upper")]),
    ("~10 Mpps", [dict(text="~10 Mpps", bound="approx")]),
    ("≈10 Mpps", [dict(bound="approx")]),
    ("about 10 Mpps", [dict(bound="approx")]),
    ("around 10 Mpps", [dict(bound="approx")]),
    ("roughly 10 Mpps", [dict(bound="approx")]),
    ("approximately 10 Mpps", [dict(bound="approx")]),
    ("up to about 10 Mpps", [dict(bound="upper")]),
    ("more than ~10 Mpps", [dict(text="~10 Mpps", bound="lower")]),
    ("10 Mpps", [dict(bound=None)]),
    # ratios
    ("2x", [dict(kind="ratio", unit="x", canonical_unit="x", value=2.0)]),
    ("2.5× faster", [dict(kind="ratio", value=2.5, canonical_unit="x")]),
    ("x2", [dict(text="x2", kind="ratio", value=2.0)]),
    ("by a factor of 32", [dict(text="factor of 32", kind="ratio", value=32.0)]),
    ("32-fold", [dict(text="32-fold", kind="ratio", value=32.0)]),
    ("twice as fast", [dict(text="twice", kind="ratio", value=2.0)]),
    ("3 times faster", [dict(kind="ratio", unit="times")]),
    ("2 x 10G ports", [dict(text="2", unit=None), dict(text="10G")]),
    # spreads: the test robot's `± 2%`, perf stat's `( +-  0.12% )`
    ("     40838 ±  2%     +12.5%      45943 ±  3%  netperf.Throughput_tps",
     [dict(value=40838.0), dict(text="±  2%", value=2.0, sign=None),
      dict(text="+12.5%", sign=1), dict(value=45943.0), dict(text="±  3%", sign=None)]),
    ("  1,234,567,890      cycles    #    3.200 GHz     ( +-  0.12% )",
     [dict(value=1234567890.0), dict(unit="GHz", canonical_unit="Hz"),
      dict(text="+-  0.12%", value=0.12, sign=None)]),
    ("+-0.5%", [dict(value=0.5, sign=None)]),
    # iperf3
    ("[  5]   0.00-10.00  sec  10.9 GBytes  9.41 Gbits/sec    0   sender",
     [dict(value=5.0), dict(kind="range", high=10.0), dict(unit="GBytes", canonical_unit="B"),
      dict(canonical_unit="bit/s"), dict(value=0.0)]),
    ("a 10Gb NIC, 100GbE", [dict(unit="Gb", canonical_unit="bit/s"), dict(unit="GbE")]),
    ("       5,012.34 msec task-clock", [dict(value=5012.34, unit="msec")]),
    ("between 10 and 20 Mpps", [dict(text="10 and 20 Mpps", kind="range", high=20.0)]),
    ("10 and 20 Mpps", [dict(text="10", kind="number"), dict(text="20 Mpps")]),
    ("rx_packets: 14880000/s", [dict(value=14880000.0, unit="/s", canonical_unit="/s")]),
    # a scale alone after the figure, or on it, before what it counts
    ("12419 K req/s", [dict(text="12419 K req/s", unit="Kreq/s", canonical_unit="req/s",
                            canonical_value=12419000.0)]),
    ("3.2 M IOPS", [dict(unit="MIOPS", canonical_unit="ops/s", canonical_value=3200000.0)]),
    ("11720K req/s", [dict(unit="Kreq/s", canonical_value=11720000.0)]),
    ("10 K packets", [dict(text="10", unit=None)]),  # (`packets` is no rate: no unit)
    ("BW(MB/S) 1199 MB/S", [dict(text="1199 MB/S", canonical_unit="B/s", canonical_value=1.199e9)]),
    ("100 K", [dict(text="100", unit=None)]),
    # key=value output
    ("rx_packets=12345", [dict(value=12345.0)]),
    ("before: 5, after: 10", [dict(value=5.0), dict(value=10.0)]),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[c[0] for c in CASES])
def test_formats(line, expected):
    found = find_quantities(line)
    assert len(found) == len(expected), found
    for q, want in zip(found, expected, strict=True):
        assert _fields(q, want) == want, q
        assert line[q.start:q.end] == q.text


# Lines whose digits are not figures at all.
NEGATIVES = [
    "Message-Id: <1435842455-30501-7-git-send-email-edumazet@google.com>",
    "In-Reply-To: <55966CEF.3000406@mojatatu.com>",
    "Eric Dumazet <edumazet@google.com>",
    "commit b5f1a7c2",
    "Fixes: 1234567890ab (\"net: foo\")",
    "Date: Fri, 3 Jul 2015 07:07:27 +0200",
    "On 2015-07-03 07:07, Jamal wrote:",
    "Jul 2015",
    "July 3, 2015",
    "07:07:27",
    "v6.9",
    "Linux 3.17",
    "kernel 5.10.0",
    "4.19.0-rc1",
    "6.9-rc1",
    "10.0.0.1",
    "192.168.1.1/24",
    "00:1b:21:3a:4f:5c",
    "fe80::1",
    "@@ -321,8 +321,8 @@ static int tcf_police_init(struct net *net)",
    "act_police.c",
    "0001-net-sched-foo.patch",
    "test_bpf2.c",
    "eth0 cpu0 x86_64 ens1f0 TCP_RR2",
    "super_netperf $i netperf -H $ip -t TCP_RR",
    "[PATCH net-next 3/7]",
    " 3 files changed, 10 insertions(+), 2 deletions(-)",
    " net/sched/act_police.c | 12 ++++++------",
    "https://lore.kernel.org/netdev/20150703.123456@example.org/",
    "see https://example.com/page2 for details",
    "sha1 3cab4f0 and 0x1f",
    "#3 and issue #12",
    "1.2.3.4.5",
    "From mboxrd@z Thu Jan  1 00:00:00 1970",
    "On 07/02/15 09:07, Eric Dumazet wrote:",
    "On 10/06/2014 09:04 AM, Vlad Yasevich wrote:",
    "$TC qdisc del dev $dev ingress 2>/dev/null",
    "cmd 2>&1",
    "on 4.19 + this series",
    "5.x kernels",
    "3.17 kernel",
    "p99 99th 1st 2nd",
    "x86_64-rhel-8.3 gcc-12 lkp-icl-2sp9",
]


@pytest.mark.parametrize("line", NEGATIVES)
def test_not_figures(line):
    assert find_quantities(line) == []


def test_figures_beside_lookalikes():
    line = "On Fri, 3 Jul 2015 07:07:27 +0200, eth0 did 5 Mpps with v6.9 (was 4 Mpps)"
    assert [q.text for q in find_quantities(line)] == ["5 Mpps", "4 Mpps"]


def test_seed_like_lines():
    # a tree plus patches is a version; a bare `(3.17)` is left to the table reader
    assert find_quantities("trans./sec (3.17 + macvlan patch)") == []
    assert [q.value for q in find_quantities("trans./sec (3.17)")] == [3.17]
    row = "3518448 +(4.684733558%)"
    found = find_quantities(row)
    assert [(q.value, q.kind, q.sign) for q in found] == [
        (3518448.0, "number", None), (4.684733558, "percent", 1)]


def test_not_a_string_gives_nothing():
    assert find_quantities(None) == []  # type: ignore[arg-type]
    assert find_quantities("") == []


def test_long_digit_runs_are_skipped():
    assert find_quantities("9" * 5000) == []
    assert find_quantities("9" * (MAX_DIGITS + 1) + " and 5 Mpps")[0].text == "5 Mpps"
    assert find_quantities("9" * MAX_DIGITS)[0].kind == "number"


@pytest.mark.parametrize(
    "line",
    [
        "1" * 1_000_000,
        "1," * 500_000,
        "1." * 500_000,
        "a1" * 500_000,
        "1 " * 500_000,
        "1-" * 500_000,
        "@" * 1_000_000,
        "a@" * 500_000,
        "x" * 1_000_000,
        "| 1 " * 250_000,
        "more than " * 100_000,
        "1:" * 500_000,
        "a." * 500_000 + "c",
        "123 456 " * 125_000,
        "~1K-2K " * 140_000,
        "1|" * 500_000,  # a numeric row: the one-pass read too stops at MAX_FIGURES
    ],
    ids=lambda s: repr(s[:6]),
)
def test_one_megabyte_line_is_linear(line):
    started = time.perf_counter()
    find_quantities(line)
    # generous: a quadratic scan would take minutes; the real budget is in `make bench`
    assert time.perf_counter() - started < 20


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.,- +()%~x<>@:/|KMGpsfold tobyte")),
               max_size=80))
def test_any_figure_soup_gives_ordered_spans(line):
    _check_spans(line, find_quantities(line))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_ordered_spans(line):
    _check_spans(line, find_quantities(line))


def _check_spans(line, found):
    last = 0
    for q in found:
        assert 0 <= last <= q.start < q.end <= len(line)
        assert line[q.start:q.end] == q.text
        assert q.kind in ("number", "percent", "ratio", "range", "duration")
        last = q.end


def test_exponent_notation_of_the_robot():
    # the kernel test robot prints large counts with printf's %e: `5.926e+08 ±  2%`
    qs = find_quantities(" 5.926e+08 ±  2%     +12.3%  6.654e+08 ±  1%  netperf.workload")
    assert [q.value for q in qs if q.kind == "number"] == [592600000.0, 665400000.0]
    assert find_quantities("deadbeef3e+08x 0x3e+08") == []


# --- the cheap gates before the look-behind regexes change nothing ------------------------

_GATES = ("_may_end_in_symbol", "_may_end_in_bound", "_may_end_in_factor")


def _lex_without_gates(line: str, monkeypatch) -> list:
    """The long way: every look-behind regex run, no bare table cell or plain decimal read by
    a fast path."""
    import analyze.claims.lexer.numbers as numbers

    with monkeypatch.context() as m:
        for name in _GATES:
            m.setattr(numbers, name, lambda _window: True)
        m.setattr(numbers._Scanner, "_plain_cell", lambda _self, _i: None)
        m.setattr(numbers, "_PLAIN_DECIMAL", re.compile(r"(?!)"))  # no decimal fast path
        return list(numbers._Scanner(line).scan())


_BOUND_PIECES = [*"0123456789 .,~≈<>=≥≤-+()%x|\n", "more than ", "at least ", "up to ",
                 "about ", "approx. ", "ca. ", "factor of ", "factor ", "no more than ", "the ",
                 "Mpps", "us", "x.about ", "5about ", "(about ", "not less than ", "over ", "~=",
                 ">= ", "ofx ", "roughly", "Over", "ABOUT ", " | ", "\t", "±", "+-", "+/-",
                 "1,234", "1.341.700", "35,5", "4.19", " 234", "x", "e+08", "_", "$", "12345678901234567890123456789012",
                 "%", "rx-", "a+", "(", "−", "9.9%", "+(", "% |", "1,262,001", ".5",
                 "at moſt ", "ABOUT ", "ıf ", "İ", "K", "13.8", " kernel", "kernel", "+x", "-rc1",
                 "4.19", ".0", "e", "E", "\u00a0"]
_BOUND_TEXT = st.lists(st.sampled_from(_BOUND_PIECES), max_size=24).map("".join)


@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_BOUND_TEXT)
def test_gates_give_what_the_regexes_give(monkeypatch, line):
    assert list(__import__("analyze.claims.lexer.numbers", fromlist=["_Scanner"])._Scanner(line).scan()) \
        == _lex_without_gates(line, monkeypatch)


def test_gates_give_what_the_regexes_give_on_the_evaluation_set(monkeypatch):
    from analyze.claims.lexer.numbers import _Scanner

    folder = Path(__file__).parent / "data" / "claims"
    lines = [x for p in sorted(folder.iterdir()) if p.suffix in (".eml", ".mbox")
             for x in p.read_text(errors="replace").splitlines()]
    assert len(lines) > 1000
    for line in lines:
        assert list(_Scanner(line).scan()) == _lex_without_gates(line, monkeypatch), line


@pytest.mark.parametrize("line,text,unit,canonical", [
    ("     Total time: 1.284 [sec]", "1.284 [sec]", "sec", "s"),  # perf bench
    ("  took 3 [ms]", "3 [ms]", "ms", "s"),
    ("       5.131015 [usec/op]", "5.131015 [usec/op]", "usec/op", "s"),
])
def test_a_unit_in_brackets(line, text, unit, canonical):
    [q] = find_quantities(line)
    assert (q.text, q.unit, q.canonical_unit) == (text, unit, canonical)


@pytest.mark.parametrize("line", ["see [1] and 5 [2]", "3 [x] faster", "[PATCH 1/3] net"])
def test_brackets_that_hold_no_unit(line):
    assert all(q.unit is None for q in find_quantities(line))


# --- the lexer's cheap prefilters agree with the patterns they stand in front of ----------

_SPAN_PIECES = [*"0123456789.,-/:|@ \n\t", "±", "+-", "+/-", "2015-07-02", "07/02/15",
                "00:1b:21", "fe80::1", "09:07", "Jul 3, 2015", "Linux 3.17", "commit 1a2b3c4d",
                "[PATCH 3/7]", "3 files changed", "10 insertions(+)", "| 12 ++-", "a.c",
                "0001-x.patch", "10.0.0.1", "1.341.700", "35,5", "a@b.org", "http://x/1"]
_SPAN_TEXT = st.lists(st.sampled_from(_SPAN_PIECES), max_size=20).map("".join)


@settings(max_examples=800, deadline=None)
@given(_SPAN_TEXT)
def test_excluded_spans_gates_change_no_span(line):
    """Each excluded-span pattern is skipped when its literal is missing (or too rare):
    running every pattern on every line gives the same spans."""
    import analyze.claims.lexer.number_spans as ns

    spans = []
    for _needles, pattern, _at_least in ns._EXCLUDED:
        for m in pattern.finditer(line):
            if ns._ANY_DIGIT.search(line, m.start(), m.end()) is None:
                continue
            if pattern is ns._IPV4 and not ns._is_ipv4(m.group()):
                continue
            spans.append(m.span())
    if "@" in line:
        spans.extend(m.span() for m in ns._ADDRESS.finditer(line))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    assert ns.excluded_spans(line) == merged


@settings(max_examples=800, deadline=None)
@given(_SPAN_TEXT)
def test_decimal_comma_prefilter_changes_nothing(line):
    import analyze.claims.lexer.numbers as numbers

    expected = bool(numbers._DOT_THOUSANDS.search(line)
                    or numbers._COMMA_DECIMAL_ANYWHERE.search(line))
    assert numbers._uses_decimal_comma(line) == expected


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from([*"±+-/ \n\t\u00a05x", "+/-", "+-"]), max_size=10).map("".join),
       st.integers(0, 14), st.integers(0, 14))
def test_spread_read_backwards_is_the_regex(text, lo, end):
    """`_spread_start` reads `(?:±|\\+-|\\+/-)\\s{0,3}$` backwards from the figure."""
    import analyze.claims.lexer.numbers as numbers

    end = min(end, len(text))
    lo = min(lo, end)
    m = re.compile(r"(?:±|\+-|\+/-)\s{0,3}$").search(text, lo, end)
    assert numbers._spread_start(text, lo, end) == (m.start() if m else None)


_ROW_PIECES = [*"0123456789.,|+- \t%", "3,518,448", "12,5", "1.341.700", "  |  ", "7569.6", "+10.3%", "-0.5%", "12345678901234567890123456789012",
               "1,234", "x", "Mpps", "±", "−", "\u00a0", "(", ")"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_ROW_PIECES), max_size=16).map("".join))
def test_numeric_rows_read_in_one_pass_as_the_scanner_reads_them(line):
    import analyze.claims.lexer.numbers as numbers

    row = numbers._numeric_row(line)
    if row is not None:
        assert list(row) == list(numbers._Scanner(line).scan())


@pytest.mark.parametrize("line", [
    "        64 |        7569.6 |       8349.4 | +10.3%",
    "| 1 | 2 | -0.51% |", "\t3518448\t|\t3591240 | +2.1%", "  4 | 3,518,448 | 3,591,240.5 | +2.1%",
])
def test_numeric_rows_take_the_one_pass(line):
    import analyze.claims.lexer.numbers as numbers

    assert numbers._numeric_row(line) is not None
    assert list(numbers._numeric_row(line)) == list(numbers._Scanner(line).scan())


def test_a_numeric_row_gives_at_most_max_figures():
    from analyze.claims.lexer.numbers import MAX_FIGURES

    assert len(find_quantities("1|" * 500_000)) == MAX_FIGURES
    assert [q.text for q in find_quantities("1 | 2 | 3", max_figures=2)] == ["1", "2"]


@pytest.mark.parametrize("line, figures", [
    ("[2]", []),
    ("as the report [3] and patches[1] say", []),
    ("| 99.00th=[157], 99.50th=[  203]", ["157", "203"]),
    ("latency 5 us [1]", ["5 us"]),
])
def test_a_references_number_in_brackets_is_no_figure(line: str, figures: list[str]) -> None:
    assert [q.text for q in find_quantities(line)] == figures


def test_a_power_is_no_figure_of_its_own():
    assert [q.text for q in find_quantities("sqrt of every value from 1 to 10^6")] == ["1"]
