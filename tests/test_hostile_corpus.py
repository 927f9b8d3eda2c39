"""A corpus of hostile mail through the installed command (issue 7, acceptance 2): markup,
terminal escapes, bidi and NUL in headers and bodies, attachment names that climb out of a
folder, a 100 MB decompression bomb, 50,000 nested MIME parts and a 10 MB header. It is
processed in bounded time and memory, each problem is reported by name on one line, the
rest is stored, and no byte written to the terminal or the HTML page carries an escape."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus.store import Store

PATCHPERF = Path(sys.executable).with_name("patchperf")
UNSAFE = [b"\x1b", b"\x07", b"\x00", "\u202e".encode(), "\u2066".encode(), b"\x9b"]

HEADER = ("From: =?UTF-8?q?Mallory_=1B]0;pwned=07_=E2=80=AE?= <m@example.org>\n"
          "Subject: [PATCH net] [bold red]boom[/] \x1b[2J\u202egnp.exe <script>alert(1)</script>\x00\n"
          "Date: Mon, 02 Sep 2024 10:00:00 +0000\n"
          "Message-ID: <{mid}@example.org>\n")
TABLE = ("threads   before      after\n1         1.10 Mpps   1.32 Mpps\n2         2.05 Mpps   2.61 Mpps\n"
         "4         3.90 Mpps   5.02 Mpps\n")


def _write_corpus(folder: Path) -> dict[str, str]:
    """The hostile files; for each rejected one, what its error line must name."""
    folder.mkdir()
    # markup, escapes, bidi and NUL in headers and body, and a table of figures
    (folder / "escapes.eml").write_bytes((
        HEADER.format(mid="escapes") + "Content-Type: text/plain; charset=utf-8\n\n"
        "Body \x1b]8;;http://evil.example/\x07link\x1b]8;;\x07 [link=x]y[/link] \u2066isolate\u2069\n"
        "\x1b[31mred\x1b[0m \x9b2J and a NUL \x00 here\n\n" + TABLE).encode())
    # attachments named to climb out of a folder
    (folder / "traversal.eml").write_bytes((
        HEADER.format(mid="traversal") + "MIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nsee attached\n'
        '--b\nContent-Type: text/x-patch; name="../../../../tmp/pwned.patch"\n'
        'Content-Disposition: attachment; filename="../../../../tmp/pwned.patch"\n\n'
        "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n--b--\n").encode())
    # 100 MB once decompressed: a message far past the 64 MiB message limit
    with gzip.open(folder / "bomb.mbox.gz", "wb", compresslevel=9) as out:
        out.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + HEADER.format(mid="bomb").encode()
                  + b"\n")
        line = b"A" * 1023 + b"\n"
        for _ in range(100 * 1024):
            out.write(line)
    # 50,000 nested multiparts
    nested = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(50_000))
    (folder / "nested.eml").write_bytes(
        (HEADER.format(mid="nested") + "MIME-Version: 1.0\n" + nested).encode())
    # a 10 MB header (a References line of 500,000 ids)
    refs = " ".join(f"<r{i}@example.org>" for i in range(500_000))
    (folder / "header.eml").write_bytes(
        (HEADER.format(mid="header") + f"References: {refs}\n\nA body.\n").encode())
    return {"bomb.mbox.gz#1": "message exceeds the limit of 67,108,864 bytes",
            "nested.eml": "multipart and message/* parts exceeds the limit of 100 parts",
            "header.eml": "header exceeds the limit of 1,048,576 bytes"}


def _run(argv: list[str]) -> tuple[subprocess.CompletedProcess[bytes], float, int]:
    """The command's result, wall seconds and peak RSS (MB), read in a wrapper process."""
    wrapper = ("import resource, subprocess, sys, time;"
               "t=time.perf_counter(); p=subprocess.run(sys.argv[1:], capture_output=True);"
               "d=time.perf_counter()-t;"
               "sys.stdout.buffer.write(repr((p.returncode, p.stdout, p.stderr, d,"
               " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)).encode())")
    out = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, check=True)
    code, stdout, stderr, seconds, rss = eval(out.stdout)  # noqa: S307 - our own repr
    return subprocess.CompletedProcess(argv, code, stdout, stderr), seconds, rss // 1024


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, session_make_db):
    root = tmp_path_factory.mktemp("hostile")
    expected = _write_corpus(root / "mail")
    db = session_make_db()
    result, seconds, rss = _run([str(PATCHPERF), "--db", str(db), "ingest", str(root / "mail")])
    return root, db, expected, result, seconds, rss


def test_processed_in_bounded_time_and_memory(hostile) -> None:
    _, _, _, result, seconds, rss = hostile
    assert result.returncode == 1, result.stderr  # done, some inputs rejected
    assert seconds < 60, f"{seconds:.1f} s"
    assert rss < 600, f"peak RSS {rss} MB"


def test_each_problem_is_one_line_naming_the_file_and_the_limit(hostile) -> None:
    root, _, expected, result, _, _ = hostile
    errors = [line for line in result.stderr.decode().splitlines() if line.startswith("patchperf: ")]
    for name, limit in expected.items():
        lines = [e for e in errors if name in e]
        assert len(lines) == 1 and limit in lines[0], (name, errors)
    assert "Traceback" not in result.stderr.decode()


def test_the_rest_is_stored_and_nothing_climbs_out(hostile) -> None:
    root, db, _, _, _, _ = hostile
    report = subprocess.run([str(PATCHPERF), "--db", str(db), "report", "--all", "--format", "json"],
                            capture_output=True, check=True)
    stored = {m["message_id"] for m in json.loads(report.stdout)["messages"]}
    assert stored == {"escapes@example.org", "traversal@example.org"}
    # the mails analysis rejects are kept verbatim, their reason beside them (a higher
    # limit and `analyze --all` read them later); only the bomb was never a message
    with Store.open(db, readonly=True) as store:
        dump = store.dump()
    rejected = {dump["messages"][key]["origin"]: r["reason"]
                for key, r in dump["rejections"].items()}
    assert {Path(o).name: r for o, r in rejected.items()} == {
        "nested.eml": "multipart and message/* parts exceeds the limit of 100 parts",
        "header.eml": "header exceeds the limit of 1,048,576 bytes"}
    assert not Path("/tmp/pwned.patch").exists()
    assert sorted(p.name for p in root.iterdir()) == ["mail"]  # (the store lives elsewhere)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "html"])
def test_no_escape_reaches_the_output(hostile, fmt) -> None:
    _, db, _, ingest, _, _ = hostile
    started = time.perf_counter()
    out = subprocess.run([str(PATCHPERF), "--db", str(db), "report", "--all", "--format", fmt],
                         capture_output=True, check=True)
    assert time.perf_counter() - started < 60
    for stream in (out.stdout, out.stderr, ingest.stdout, ingest.stderr):
        for bad in UNSAFE:
            assert bad not in stream, (fmt, bad)
    text = out.stdout.decode()
    if fmt == "table":
        assert "[bold red]boom[/]" in text and "\\x1b[2J" in text
    if fmt == "html":
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script" not in text
