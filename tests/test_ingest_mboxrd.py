"""The streaming mboxrd splitter and the bounded gunzip under it."""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ingest.gz
import ingest.mboxrd
from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem
from ingest.gz import open_gunzip
from ingest.mboxrd import escape, iter_mboxrd, unescape
from ingest.raw import RawMail

SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"


def mail(n: int, body: bytes = b"hello\n") -> bytes:
    return b"From: a@example.org\nSubject: m%d\nMessage-ID: <%d@example.org>\n\n" % (n, n) + body


def mbox(*messages: bytes) -> bytes:
    return b"".join(SEP + escape(m) + b"\n" for m in messages)


def split(data: bytes, limits: Limits = DEFAULT_LIMITS) -> list[RawMail | Problem]:
    return list(iter_mboxrd(io.BytesIO(data), "t.mbox", limits))


def test_splits_and_names_each_message():
    items = split(mbox(mail(1), mail(2), mail(3)))
    assert [i.origin for i in items] == ["t.mbox#1", "t.mbox#2", "t.mbox#3"]
    assert all(isinstance(i, RawMail) and i.fmt == "mbox" for i in items)
    assert items[1].data == mail(2)  # separator and the blank line before the next one dropped


def test_unescapes_exactly_one_level():
    body = b">From a\n>>From b\n>>>From c\n> From d\nx>From e\n"
    raw = SEP + mail(1).replace(b"hello\n", body)
    (item,) = split(raw)
    assert item.data.endswith(b"From a\n>From b\n>>From c\n> From d\nx>From e\n")


def test_from_line_without_blank_line_before_is_body():
    # plain mbox writers leave such lines alone; only `From ` after a blank line separates
    raw = SEP + mail(1, b"text\nFrom here on it is faster\n") + b"\n" + SEP + mail(2)
    items = split(raw)
    assert len(items) == 2 and b"From here on" in items[0].data


def test_crlf_mbox():
    raw = mbox(mail(1), mail(2)).replace(b"\n", b"\r\n")
    items = split(raw)
    assert [i.data for i in items] == [
        mail(1).replace(b"\n", b"\r\n"),
        mail(2).replace(b"\n", b"\r\n"),
    ]


def test_leading_blank_lines_and_bom():
    items = split(b"\xef\xbb\xbf\n\n" + mbox(mail(1)))
    assert [i.data for i in items] == [mail(1)]


def test_truncated_last_message_is_a_problem_others_delivered():
    raw = mbox(mail(1), mail(2)) + SEP + b"From: a@example.org\nSubj"
    items = split(raw)
    assert [type(i) for i in items] == [RawMail, RawMail, Problem]
    assert items[2].origin == "t.mbox#3" and "truncated" in items[2].reason


def test_headers_only_last_message_is_not_truncated():
    items = split(mbox(mail(1)) + SEP + b"From: a@example.org\nSubject: x\n")
    assert all(isinstance(i, RawMail) for i in items)


def test_oversize_message_is_skipped_not_buffered(monkeypatch):
    monkeypatch.setattr(ingest.mboxrd, "CHUNK", 64)
    big = mail(2, b"x" * 5000 + b"\n")
    items = split(mbox(mail(1), big, mail(3)), Limits(message_bytes=1000))
    assert [type(i) for i in items] == [RawMail, Problem, RawMail]
    assert items[1].origin == "t.mbox#2"
    assert items[1].reason == "message exceeds the limit of 1,000 bytes"
    assert items[2].data == mail(3)


def test_empty_message_is_a_problem():
    items = split(SEP + b"\n" + mbox(mail(2)))
    assert isinstance(items[0], Problem) and items[0].reason == "empty message"
    assert items[1].data == mail(2)


def test_not_an_mbox():
    with pytest.raises(BadInput, match="not an mbox"):
        split(b"From: someone\n\nbody\n")


def test_empty_stream_yields_nothing():
    assert split(b"") == [] and split(b"\n\n") == []


def test_benchmark_sized_input_streams_quickly():
    """20,000 messages (~60 MB) must split in well under two seconds (0.4 s measured)."""
    one = mbox(mail(1, b"a body line of ordinary length, nothing special\n" * 60))
    data = one * 2000  # 6 MB here: keeps the suite fast; /tmp/bench_mboxrd.py did 60 MB
    import time

    start = time.perf_counter()
    assert sum(1 for _ in split(data)) == 2000
    assert time.perf_counter() - start < 1.0


# line pieces that stress the escaping: `From ` at line starts, quote runs, both line ends
_pieces = st.sampled_from([b"From ", b">From ", b">>From ", b"\n", b"\r\n", b"x", b">", b" "])
_texts = st.lists(_pieces, max_size=40).map(b"".join)


@settings(max_examples=300)
@given(st.lists(_texts, min_size=1, max_size=5))
def test_escape_then_split_round_trips(texts):
    bodies = [b"Subject: s\n\n" + t + b"\n" for t in texts]
    items = split(mbox(*bodies))
    assert [i.data for i in items] == bodies


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.booleans(), st.sampled_from([16, 64, 1 << 20]))
def test_arbitrary_bytes_only_ever_raise_bad_input(data, as_mbox, chunk):
    if as_mbox:
        data = b"From x\n" + data
    old = ingest.mboxrd.CHUNK
    ingest.mboxrd.CHUNK = chunk
    try:
        items = split(data, Limits(message_bytes=500))
    except BadInput:
        return
    finally:
        ingest.mboxrd.CHUNK = old
    assert all(isinstance(i, RawMail | Problem) for i in items)


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=6), st.sampled_from([8, 13, 64]))
def test_chunk_size_does_not_change_the_result(texts, chunk):
    data = mbox(*[b"Subject: s\n\n" + t.replace(b"\r", b"") + b"\n" for t in texts])
    whole = split(data)
    old = ingest.mboxrd.CHUNK
    ingest.mboxrd.CHUNK = chunk
    try:
        assert split(data) == whole
    finally:
        ingest.mboxrd.CHUNK = old


def test_unescape_escape_inverse():
    text = b"From a\n>From b\n x\n"
    assert unescape(escape(text)) == text


# gzip


def test_gunzip_multi_member_and_padding():
    data = mbox(mail(1), mail(2), mail(3))
    gz = gzip.compress(data[:50]) + gzip.compress(data[50:]) + b"\0" * 32
    assert open_gunzip(io.BytesIO(gz), "t.mbox.gz", 10**6).read() == data


def test_gunzip_bomb_stops_at_the_limit(monkeypatch):
    monkeypatch.setattr(ingest.gz, "OUT_CHUNK", 4096)
    gz = gzip.compress(b"\0" * 10_000_000)
    with pytest.raises(LimitExceeded, match="decompressed t.gz exceeds the limit of 100,000"):
        open_gunzip(io.BytesIO(gz), "t.gz", 100_000).read()


@pytest.mark.parametrize("cut", [3, 15, -9, -1])
def test_gunzip_truncated(cut):
    gz = gzip.compress(mbox(mail(1), mail(2)) * 50)
    with pytest.raises(BadInput, match="truncated gzip stream"):
        open_gunzip(io.BytesIO(gz[:cut]), "t.gz", 10**6).read()


def test_gunzip_corrupt():
    gz = bytearray(gzip.compress(b"hello world " * 100))
    gz[20:30] = b"\xff" * 10
    with pytest.raises(BadInput):
        open_gunzip(io.BytesIO(bytes(gz)), "t.gz", 10**6).read()
