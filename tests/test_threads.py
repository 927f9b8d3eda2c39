"""Threading and series assembly stay near-linear on hostile threading headers.

The bounds are generous (these machines are shared and noisy); what they catch is a return
to walking a whole chain per message, which took 2.6 s for one mail with 10,000 References
and 16 s for a chain of 10,000 replies. Where a count can be taken, it is asserted instead.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone

from test_series import mail

from analyze.mail.series import assemble_series
from analyze.mail.threads import REFERENCES_CONSULTED, Threads, build_threads, consulted_references

N = 10_000
BOUND = 2.0  # seconds; the near-linear code takes under 0.6 s for each case


@contextmanager
def _no_collections() -> Iterator[None]:
    """Time the code, not the collector: late in the suite, a full collection walks what
    every earlier test left alive, and took the 10,000-resend flood from 0.6 s to 2.8 s."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _chain(n: int, *, all_ancestors: bool) -> list:
    """A patch, then `n - 1` replies each answering the one before."""
    keys = tuple(f"c{i}@example.org" for i in range(n))
    out = [mail(keys[0], index=1, total=1)]
    for i in range(1, n):
        refs = keys[:i] if all_ancestors else keys[:1] + keys[max(1, i - 5) : i]
        out.append(mail(keys[i], reply=True, minutes=i, irt=keys[i - 1], refs=refs))
    return out


def _timed(messages: list) -> tuple[float, Threads, tuple]:
    with _no_collections():
        start = time.perf_counter()
        threads = build_threads(messages)
        series = assemble_series(messages, threads)
        return time.perf_counter() - start, threads, series


def test_one_mail_with_ten_thousand_references():
    refs = ("p@x", *(f"missing{i}@x" for i in range(N)))
    reply = mail("r@x", reply=True, minutes=1, irt="p@x", refs=refs)
    elapsed, threads, (series,) = _timed([mail("p@x", index=1, total=1), reply])
    assert elapsed < BOUND
    assert reply.references == refs  # the stored field stays complete
    assert threads.parent["r@x"] == "p@x" and threads.root["r@x"] == "p@x"
    assert series.replies == ("r@x",)
    # Only the root and the last ids are looked at; the cut is bridged to the root.
    assert consulted_references(reply) == refs[:1] + refs[-REFERENCES_CONSULTED:]
    assert len(threads.above_missing) == REFERENCES_CONSULTED
    assert threads.above_missing[refs[-REFERENCES_CONSULTED]] == "p@x"


def test_long_references_without_in_reply_to_still_find_the_root():
    refs = ("p@x", *(f"missing{i}@x" for i in range(500)))
    msgs = [mail("p@x", index=1, total=1), mail("r@x", reply=True, minutes=1, refs=refs)]
    threads = build_threads(msgs)
    assert threads.parent["r@x"] == "p@x"  # the nearest consulted entry in the input
    assert threads.root["r@x"] == "p@x"


def test_chain_of_ten_thousand_replies_citing_the_last_few(monkeypatch):
    calls = 0
    up = Threads.up

    def counting_up(self: Threads, key: str) -> str | None:
        nonlocal calls
        calls += 1
        return up(self, key)

    monkeypatch.setattr(Threads, "up", counting_up)
    elapsed, threads, (series,) = _timed(_chain(N, all_ancestors=False))
    assert elapsed < BOUND
    assert set(threads.root.values()) == {"c0@example.org"}
    assert len(series.replies) == N - 1
    assert calls <= 2 * N  # each reply's nearest patch is found once, not by a walk each


def test_chain_of_replies_citing_every_ancestor():
    # 3,000 rather than 10,000: the References alone would be 50 million entries in memory.
    n = 3_000
    elapsed, threads, (series,) = _timed(_chain(n, all_ancestors=True))
    assert elapsed < BOUND
    assert threads.root[f"c{n - 1}@example.org"] == "c0@example.org"
    assert len(series.replies) == n - 1


def test_a_flood_of_resends_links_each_to_the_one_before():
    # Same name, same change-id, 13 hours apart: each its own series, superseding the last.
    msgs = [
        mail(f"p{i}@x", index=1, total=1, minutes=i * 780, change_id="20240301-x-1")
        for i in range(N)
    ]
    with _no_collections():
        start = time.perf_counter()
        series = assemble_series(msgs)
        elapsed = time.perf_counter() - start
    assert elapsed < BOUND
    assert len(series) == N
    assert series[0].previous_version is None
    assert all(b.previous_version == a.id for a, b in zip(series, series[1:], strict=False))


def test_a_loop_spread_over_long_references_is_cut():
    ids = [f"m{i}@x" for i in range(200)]
    msgs = [
        mail("a@x", reply=True, refs=(*ids, "b@x")),
        mail("b@x", reply=True, minutes=1, refs=("a@x", *ids)),
    ]
    threads = build_threads(msgs)
    assert threads.parent["a@x"] == "b@x" and threads.parent["b@x"] is None
    for key in ("a@x", "b@x", *threads.above_missing):
        assert len(list(threads.ancestors(key))) < len(ids) + 2  # ends: no loop


def test_order_is_by_instant_across_offsets():
    east = timezone(timedelta(hours=9))
    msgs = [
        mail("late@x", index=1, total=1, date=datetime(2024, 3, 1, 12, 0, tzinfo=UTC)),
        mail("early@x", index=1, total=1, date=datetime(2024, 3, 1, 20, 0, tzinfo=east)),
        mail("undated@x", index=1, total=1, date=None),
        mail("ancient@x", index=1, total=1, date=datetime(1, 1, 1, 0, 0, tzinfo=east)),
    ]
    keys = [s.patches[0] for s in assemble_series(msgs)]
    assert keys == ["ancient@x", "early@x", "late@x", "undated@x"]

