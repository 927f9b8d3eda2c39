"""Local files and folders: every format, the seeds, broken files, the peer corpora."""

from __future__ import annotations

import email.parser
import email.policy
import gzip
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem
from ingest.local import read_sources
from ingest.raw import RawMail

DATA = Path(__file__).parent / "data" / "ingest"
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
_parser = email.parser.BytesParser(policy=email.policy.compat32)


def mail(n: int, body: bytes = b"hello\n") -> bytes:
    return b"From: a@example.org\nSubject: m%d\nMessage-ID: <%d@example.org>\n\n" % (n, n) + body


def mbox(*messages: bytes) -> bytes:
    return b"".join(SEP + m + b"\n" for m in messages)


def read(*paths, limits: Limits = DEFAULT_LIMITS) -> list[RawMail | Problem]:
    return list(read_sources(paths, limits))


def mails(items) -> list[RawMail]:
    return [i for i in items if isinstance(i, RawMail)]


def problems(items) -> list[Problem]:
    return [i for i in items if isinstance(i, Problem)]


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# the seeds


def test_seed_000_mbox(seeds_dir):
    (item,) = read(next(seeds_dir.glob("000_*")))
    assert isinstance(item, RawMail) and item.fmt == "mbox" and item.origin.endswith("#1")
    msg = _parser.parsebytes(item.data)
    assert msg["Message-ID"] == "<55966CEF.3000406@mojatatu.com>"
    assert not item.data.startswith(b"From mboxrd@z")


def test_seed_001_openwall_text(seeds_dir):
    (item,) = read(next(seeds_dir.glob("001_*")))
    assert isinstance(item, RawMail) and item.fmt == "openwall-text"
    msg = _parser.parsebytes(item.data)
    assert msg["From"] == "Davide Caratti <dcaratti@...hat.com>"
    assert msg["Date"] == "Thu, 13 Sep 2018 19:29:11 +0200"
    assert msg["Subject"] == "[PATCH net-next 0/2] net/sched: act_police: lockless data path"
    assert msg["To"].startswith("Jamal Hadi Salim <jhs@...atatu.com>, Cong Wang")
    assert msg["To"].endswith('"David S. Miller" <davem@...emloft.net>')
    assert msg["Message-ID"] is None
    text = msg.get_payload(decode=True).decode()
    assert text.startswith("the data path of 'police' action")
    assert text.endswith("\n-- \n2.17.1\n")
    assert "[<prev]" not in text and "Hash Suite" not in text


def test_seed_004_lore_text(seeds_dir):
    (item,) = read(next(seeds_dir.glob("004_*")))
    assert isinstance(item, RawMail) and item.fmt == "lore-text"
    msg = _parser.parsebytes(item.data)
    assert msg["Message-ID"] == "<5434246E.1000403@akamai.com>"
    assert msg["In-Reply-To"] == "<5432936D.7010906@gmail.com>"
    assert msg["Date"] == "Tue, 07 Oct 2014 13:35:42 -0400"
    assert b"kaber@trash\xe2\x80\xa2net" in item.data  # the tab-folded Cc, unfolded, as shown
    assert b"\nCc: " in item.data and b"\n\t" not in item.data.split(b"\n\n", 1)[0]
    text = msg.get_payload(decode=True).decode()
    assert text.startswith("On 10/06/2014 09:04 AM")
    assert text.endswith("\n-Jason\n")
    assert "Thread overview" not in text and "next prev parent" not in text


# formats


def test_eml_with_bom_crlf_and_leading_blank_lines(tmp_path):
    raw = b"\xef\xbb\xbf\r\n" + mail(1).replace(b"\n", b"\r\n")
    (item,) = read(write(tmp_path / "x.txt", raw))
    assert item.fmt == "eml" and item.data == mail(1).replace(b"\n", b"\r\n")


def test_mbox_file_streams_every_message(tmp_path):
    path = write(tmp_path / "whatever.bin", mbox(mail(1), mail(2, b">From x\n>>From y\n")))
    items = read(path)
    assert [i.origin for i in items] == [f"{path}#1", f"{path}#2"]
    assert items[1].data.endswith(b"\nFrom x\n>From y\n")


def test_gz_mbox_multi_member(tmp_path):
    data = mbox(mail(1), mail(2), mail(3))
    path = write(tmp_path / "t.mbox.gz", gzip.compress(data[:70]) + gzip.compress(data[70:]))
    items = read(path)
    assert [i.data for i in items] == [mail(1), mail(2), mail(3)]
    assert {i.fmt for i in items} == {"mbox"}


def test_gz_eml_and_gz_page(tmp_path):
    eml = write(tmp_path / "a", gzip.compress(mail(1)))
    page = write(tmp_path / "b", gzip.compress((DATA / "lore-page.html").read_bytes()))
    items = read(eml, page)
    assert [i.fmt for i in items] == ["eml", "lore-html"]


def test_gz_bomb(tmp_path):
    path = write(tmp_path / "bomb.gz", gzip.compress(mbox(mail(1, b"x" * 200_000))))
    (item,) = read(path, limits=Limits(decompressed_bytes=10_000))
    assert item == Problem(str(path), "decompressed size exceeds the limit of 10,000 bytes")


def test_truncated_gz(tmp_path):
    rng = random.Random(1)
    body = bytes(rng.choice(b"abcdefgh \n") for _ in range(100_000))
    gz = gzip.compress(mbox(mail(1, body), mail(2)))
    items = read(write(tmp_path / "t.gz", gz[: len(gz) // 2]))
    assert problems(items)[-1].reason == "truncated gzip stream"


def test_truncated_mbox(tmp_path):
    path = write(tmp_path / "t.mbox", mbox(mail(1)) + SEP + b"From: a@example.org\nSubj")
    items = read(path)
    assert isinstance(items[0], RawMail)
    assert items[1].origin == f"{path}#2" and "truncated" in items[1].reason


def test_empty_and_blank_files(tmp_path):
    items = read(write(tmp_path / "empty", b""), write(tmp_path / "blank", b"\n\r\n  \n"))
    assert [i.reason for i in items] == ["empty file", "empty file"]


def test_binary_garbage(tmp_path):
    data = b"\x00\x01" + random.Random(7).randbytes(5000)
    (item,) = read(write(tmp_path / "garbage.mbox", data))
    assert item.reason == "not a mail: binary data"


def test_text_that_is_no_mail(tmp_path):
    (item,) = read(write(tmp_path / "notes.txt", b"Just some notes.\nNothing else.\n"))
    assert item.reason == "not a mail"


def test_missing_path(tmp_path):
    missing = tmp_path / "nope"
    assert read(missing) == [Problem(str(missing), "no such file or directory")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_not_opened(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert read(fifo) == [Problem(str(fifo), "not a regular file")]


def test_size_limits(tmp_path):
    eml = write(tmp_path / "a.eml", mail(1, b"x" * 5000))
    page = write(tmp_path / "p.html", (DATA / "openwall-page.html").read_bytes())
    items = read(eml, page, limits=Limits(message_bytes=1000, page_bytes=1000))
    assert [i.reason for i in items] == [
        "message exceeds the limit of 1,000 bytes",
        "page exceeds the limit of 1,000 bytes",
    ]


def test_page_files(tmp_path):
    items = read(DATA / "lore-page.html", DATA / "openwall-page.html")
    assert [i.fmt for i in items] == ["lore-html", "openwall-html"]


# folders


def test_folder_with_one_broken_file(tmp_path):
    write(tmp_path / "a.mbox", mbox(mail(1), mail(2)))
    gz = gzip.compress(mbox(mail(3)) * 100)
    write(tmp_path / "b" / "broken.gz", gz[: len(gz) // 2])
    write(tmp_path / "b" / "c.eml", mail(4))
    write(tmp_path / "notes.txt", b"nothing to see\n")
    write(tmp_path / ".hidden.eml", mail(5))
    write(tmp_path / ".venv" / "lib" / "x.eml", mail(6))
    write(tmp_path / "venv" / "x.eml", mail(7))
    items = read(tmp_path)
    assert [_parser.parsebytes(i.data)["Subject"] for i in mails(items)] == ["m1", "m2", "m4"]
    reasons = {Path(p.origin).name: p.reason for p in problems(items)}
    assert reasons == {"broken.gz": "truncated gzip stream", "notes.txt": "not a mail (skipped)"}
    assert [p.skipped for p in problems(items)] == [False, True]  # the CLI warns, exit stays 0


def test_folder_with_no_mail(tmp_path):
    write(tmp_path / "README", b"A readme.\n")
    write(tmp_path / "blob.bin", b"\x00" * 100)
    items = read(tmp_path)
    assert not mails(items)
    assert [p.reason for p in items] == [
        "not a mail (skipped)",
        "not a mail: binary data (skipped)",
        "no mail in this folder",
    ]


def test_maildir(tmp_path):
    box = tmp_path / "Mail"
    write(box / "cur" / "1700000001.1.host:2,S", mail(1))
    write(box / "new" / "1700000002.2.host", mail(2))
    write(box / "tmp" / "1700000003.3.host", mail(3))  # still being delivered
    write(box / "cur" / ".dovecot-keywords", b"0 $Junk\n")
    items = read(tmp_path)
    assert [(i.fmt, i.data) for i in items] == [("maildir", mail(1)), ("maildir", mail(2))]


def test_symlinked_folder_loop_is_not_followed(tmp_path):
    write(tmp_path / "a.eml", mail(1))
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    assert len(mails(read(tmp_path))) == 1


# the peer corpora: every file reads without an exception


@pytest.mark.peer
def test_patchwork_mails_read_cleanly(peer_dir):
    root = peer_dir / "patchwork-mails"
    for sub in ("mail", "series", "fuzz"):
        files = sorted((root / sub).iterdir())
        assert files
        for path in files:
            items = read(path)
            assert items and all(isinstance(i, RawMail | Problem) for i in items), path
            assert mails(items), f"{path}: {problems(items)}"


@pytest.mark.peer
def test_b4_samples_read_cleanly(peer_dir):
    files = sorted(p for p in (peer_dir / "b4-samples").iterdir() if p.suffix in (".mbox", ".txt"))
    assert files
    for path in files:
        items = read(path)
        assert mails(items) and not problems(items), path


@pytest.mark.peer
def test_peer_folder_as_one_source(peer_dir, tmp_path):
    # the whole corpus, gzipped, as a folder: non-mail files are warnings, never errors
    for path in sorted((peer_dir / "patchwork-mails" / "series").glob("*.mbox")):
        with open(path, "rb") as src, gzip.open(tmp_path / (path.name + ".gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    items = read(tmp_path)
    assert len(mails(items)) > 50 and not problems(items)


# hostile bytes behind every sniffable start: never an exception, only mail or problems

_STARTS = [
    b"",
    b"From x\n",
    b"Subject: x\nFrom: y\n",
    b"public inbox for x\n help / color / mirror / Atom feed\n",
    b"[<prev] [next>] [day] [month]\nDate: x\n",
    b"<html><pre id=b>public inbox",
    b'<html><pre style="white-space: pre-wrap">blists',
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_STARTS), st.binary(max_size=600), st.booleans())
def test_hostile_files_never_raise(start, rest, gzipped):
    data = start + rest
    if gzipped:
        data = gzip.compress(data)[: len(data) // 2 + 10]
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "f", data)
        items = list(read_sources([path], Limits(message_bytes=300, page_bytes=300)))
    assert items and all(isinstance(i, RawMail | Problem) for i in items)
