"""Issue 3, acceptance 4: hostile text through claim extraction, timed at two sizes.

Each input is built at size n and 2n; the time ratio shows whether the work is linear in the
input (about 2) or worse. Printed by `make bench` beside the other figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from analyze.claims.extract import extract_claims
from analyze.claims.lexer.numbers import clear_cache
from analyze.mail.message import parse_message

HEAD = (
    "From: Bench <bench@example.org>\nSubject: [PATCH net-next 0/1] hostile\n"
    "Date: Mon, 02 Sep 2024 10:00:00 +0000\nMessage-ID: <hostile-{n}@example.org>\n"
    "Content-Type: text/plain; charset=utf-8\n\n"
)


def one_long_line(n: int) -> str:
    return ("went from 5 Mpps to 10 Mpps before the patch 1,234 " * (n // 50))[:n] + "\n"


def big_table(n: int) -> str:
    rows = "".join(f" {i:6d} | {1000 + i:9d} | {1100 + i:9d} | {10 + i % 7}%\n" for i in range(n))
    return "test results (pps):\n\n  $c | before patch | after patch | improvement\n ----+----+----+----\n" + rows


def long_numbers(n: int) -> str:
    return "throughput before: " + "9" * n + " pps, after: " + "8" * n + " pps\n"


def ragged_pipes(n: int) -> str:
    return "before | after\n" + "".join("|" * (i % 7) + f" {i} | {i + 1}" + "|" * (i % 3) + "\n" for i in range(n))


def iperf_headers(n: int) -> str:
    # report headers without a summary, each one a possible start of a report
    return "before the patch:\n" + "[ ID] Interval           Transfer     Bitrate\n" * n + "run 1\n"


def side_rows(n: int) -> str:
    return "latency (usec):\n" + "".join(
        f"before  {i}.5  {i + 1}.5\nafter  {i}.1  {i + 1}.1\n" for i in range(n // 2))


CASES: list[tuple[str, Callable[[int], str], int]] = [
    ("a 1 MB single line", one_long_line, 1_000_000),
    ("a 10,000-row table", big_table, 10_000),
    ("numbers of 5,000 digits", long_numbers, 5_000),
    ("unbalanced table pipes", ragged_pipes, 10_000),
    ("16,000 iperf3 header lines", iperf_headers, 16_000),
    ("10,000 side-named rows", side_rows, 10_000),
]


def _time(text: str, n: int) -> float:
    message = parse_message((HEAD.format(n=n) + text).encode("utf-8"))
    clear_cache()  # cold: what a line costs the first time it is read
    start = time.perf_counter()
    extract_claims(message)
    return time.perf_counter() - start


def run() -> list[tuple[str, str, str, bool]]:
    """Rows of (name, figure, target, ok) for the benchmark's table."""
    _time("warm up: went from 5 Mpps to 10 Mpps after the patch.\n", 1)  # loads spaCy once
    rows = []
    for name, build, n in CASES:
        small = min(_time(build(n // 2), n // 2) for _ in range(2))
        large = min(_time(build(n), n) for _ in range(2))
        ratio = large / small if small > 0 else 1.0
        if large < 0.05:  # bounded early (a length cap): a ratio of milliseconds is noise
            rows.append((f"(e) {name}", f"{large * 1000:.1f} ms (bounded)", "linear: <= x3.0", True))
            continue
        rows.append((f"(e) {name}", f"{large:.2f} s; x{ratio:.1f} for 2x the size", "linear: <= x3.0", ratio <= 3.0))
    return rows
