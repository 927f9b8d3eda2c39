"""Which benchmark a claim's figures came from (analyze/claims/benchmark.py): what a claim and a
robot finding are compared by (issue 23)."""

from __future__ import annotations

import pytest

from analyze.claims.benchmark import benchmark_named, family
from analyze.claims.extract import claims_or_warning
from analyze.mail.message import parse_message


def _benchmarks(subject: str, body: str) -> list[str | None]:
    mail = (f"From: Ana Lopes <ana@example.org>\nSubject: {subject}\nMessage-ID: <b@x>\n"
            f"Date: Mon, 30 Nov 2026 12:00:00 +0000\n\n{body}").encode()
    claims, _ = claims_or_warning(parse_message(mail))
    return [c.benchmark for c in claims]


@pytest.mark.parametrize(("text", "named"), [
    ("super_netperf 200 -H 10.0.0.2 -t TCP_RR", "netperf"),
    ("TCP_STREAM went up", "netperf"),
    ("neper tcp_rr, 100 flows", "neper"),
    ("tcp_rr alone, 100 flows", None),  # neper's test name: netperf writes TCP_RR
    ("will_it_scale per_process_ops", "will-it-scale"),
    ("iperf3 -c host -P 8", "iperf"),
    ("stress-ng --sock 8", "stress-ng"),
    ("a fiord and a portfolio", None),
    ("prefio and fio-like words", None),
])
def test_names_fold_to_one_family(text: str, named: str | None) -> None:
    assert benchmark_named(text) == named


def test_the_robots_row_names_fold_alike() -> None:
    assert [family(n) for n in ("netperf", "will-it-scale", "stress-ng", "vm_scalability",
                                "Phoronix")] == [
        "netperf", "will-it-scale", "stress-ng", "vm-scalability", "phoronix"]


def test_the_line_above_names_the_benchmark_of_a_list() -> None:
    body = ("Results with netperf TCP_STREAM over veth:\n\n  before: 21.4 Gbit/s\n"
            "  after:  24.9 Gbit/s\n")
    assert _benchmarks("[PATCH net-next] net: veth: batch", body) == ["netperf"]


def test_the_claims_own_line_comes_first() -> None:
    body = ("netperf numbers are below, and sockperf was used for the other.\n\n"
            "sockperf latency went from 12.1 us to 10.4 us\n")
    assert _benchmarks("[PATCH net-next] net: x", body) == ["sockperf"]


def test_else_the_subject() -> None:
    body = "Throughput went from 10.0 Gbit/s to 12.0 Gbit/s.\n"
    assert _benchmarks("[PATCH net-next] selftests: fix the iperf3 run", body) == ["iperf"]


def test_else_the_body_when_it_names_one_benchmark_only() -> None:
    top = "All figures are from fio.\n" + "\n".join(f"Note {i}." for i in range(20)) + "\n"
    figures = "IOPS went from 100000 IOPS to 120000 IOPS.\n"
    assert _benchmarks("[PATCH] io_uring: x", top + figures) == ["fio"]
    two = top.replace("fio.", "fio, and t/io_uring under hackbench load.")
    assert _benchmarks("[PATCH] io_uring: x", two + figures) == [None]
