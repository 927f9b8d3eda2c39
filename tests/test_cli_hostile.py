"""Mail written by strangers, through the command line: shown inertly, bounded, one line per
rejected input, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from stores import ON_POSTGRESQL

HEAD = (
    "From: =?UTF-8?q?Mallory_=1B]0;pwned=07?= <m@example.org>\n"
    "Subject: [PATCH net] [bold red]boom[/] \x1b[2J\u202egnp.exe <script>alert(1)</script>\n"
    "Date: Mon, 02 Sep 2024 10:00:00 +0000\n"
    "Message-ID: <hostile@example.org>\n"
    "Content-Type: text/plain; charset=utf-8\n"
)
BODY = "Body with \x1b]8;;http://evil.example/\x07a link\x1b]8;;\x07 and [link=x]y[/link].\n"

ESC, BEL, RLO = "\x1b", "\x07", "\u202e"


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_markup_and_escapes_are_shown_literally(cli, tmp_path):
    path = _write(tmp_path, "hostile.eml", HEAD + "\n" + BODY)
    for fmt in ("table", "markdown", "json"):
        result = cli("analyze", path, "--format", fmt)
        assert result.code == 0, result.err
        for bad in (ESC, BEL, RLO):
            assert bad not in result.out and bad not in result.err, (fmt, bad)
    table = cli("analyze", path, "--format", "table").out
    assert "[bold red]boom[/]" in table  # rich markup stays text
    assert "\\x1b[2J" in table and "\\u202e" in table  # escapes shown, not obeyed
    markdown = cli("analyze", path, "--format", "markdown").out
    assert "\\<script\\>" in markdown  # no live HTML in a pasted report
    doc = cli("analyze", path, "--format", "json").json()
    assert doc["messages"][0]["subject"].startswith("[PATCH net] [bold red]boom[/] \x1b[2J\u202e")


def test_escape_in_a_file_name_is_inert_on_stderr(cli, tmp_path):
    path = tmp_path / "bad\x1b]0;pwned\x07name.eml"
    path.write_bytes(b"\x00\x01\x02 binary")
    result = cli("analyze", path)
    assert result.code == 2
    assert ESC not in result.err and BEL not in result.err
    assert "\\x1b]0;pwned\\x07name.eml" in result.err


def test_deeply_nested_multipart_is_one_line(cli, tmp_path):
    nested = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(1500)
    )
    path = _write(tmp_path, "nested.eml", HEAD.replace("Content-Type: text/plain; charset=utf-8\n", "") + "MIME-Version: 1.0\n" + nested)
    result = cli("analyze", path)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "multipart" in lines[0] and str(path) in lines[0]


def test_message_id_with_stray_brackets_is_keyed_by_content(cli, tmp_path):
    path = _write(tmp_path, "id.eml", HEAD.replace("<hostile@example.org>", "a<b@x") + "\nhi\n")
    doc = cli("analyze", path, "--format", "json").json()  # validated against the schema
    assert doc["messages"][0]["message_id"] is None
    assert doc["messages"][0]["key"].startswith("sha256:")


def test_lone_non_mail_given_to_ingest_is_not_stored(db, cli, tmp_path):
    path = _write(tmp_path, "t.eml", "To: x@example.org\n\nbody\n")
    result = cli("ingest", path, "--db", db)
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1 and str(path) in result.err
    report = cli("report", "--all", "--db", db, "--format", "json").json()
    assert report["messages"] == []


def test_huge_patch_is_kept_with_a_warning(cli, tmp_path):
    diff = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,120000 +1,120000 @@\n" + " x\n" * 120000
    path = _write(tmp_path, "big.eml", HEAD + "\n" + diff)
    result = cli("analyze", path, "--format", "json")
    assert result.code == 0
    assert "100,000 lines" in result.err
    assert result.json()["messages"][0]["kind"] == "patch"


def test_symlink_loop_is_named(cli, tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    result = cli("analyze", loop)
    assert result.code == 2 and "symbolic link loop" in result.err


def test_report_never_creates_a_store(db, cli, tmp_path):
    result = cli("report", "--all", "--db", db)
    assert result.code == 2
    if ON_POSTGRESQL:  # the database exists, empty: reading it makes no table
        assert "an empty database, not a patchperf store yet" in result.err
        assert "an empty database" in cli("report", "--all", "--db", db).err
    else:
        assert "no such store" in result.err
        assert not Path(db).exists()


def test_bad_report_values_are_one_line(db, cli, tmp_path):
    cli("ingest", _write(tmp_path, "ok.eml", HEAD + "\nhi\n"), "--db", db)
    for args in (("--since", "99999999999d"), ("--all", "-o", tmp_path / "missing" / "r.txt")):
        result = cli("report", *args, "--db", db)
        assert result.code == 2, args
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err


def test_a_terminal_that_cannot_show_unicode(tmp_path):
    path = _write(tmp_path, "u.eml", HEAD.replace("Mallory", "J=C3=B6rg") + "\nJ\u00f6rg \u2192 10 Mpps\n")
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run(
        [sys.executable, "-m", "reports.cli", "analyze", str(path)],
        capture_output=True, env=env, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr


TABLE = (
    "Throughput [bold]<b>x</b>\x1b[31m, before and after:\n\n"
    "threads   before      after\n"
    "1         1.10 Mpps   1.32 Mpps\n"
    "2         2.05 Mpps   2.61 Mpps\n"
    "4         3.90 Mpps   5.02 Mpps\n"
)


def test_reports_from_the_store_show_hostile_text_literally(db, cli, tmp_path):
    """The series report (table, Markdown) and the HTML page, with a hostile subject, sender,
    body and claim quote: nothing acts on the terminal, nothing becomes live HTML."""
    path = _write(tmp_path, "hostile.eml", HEAD + "\n" + BODY + "\n" + TABLE)
    assert cli("--db", db, "ingest", path).code == 0
    table = cli("report", "--all", "--db", db)
    markdown = cli("report", "--all", "--db", db, "--format", "markdown")
    html_file = tmp_path / "r.html"
    assert cli("report", "--all", "--db", db, "--format", "html", "-o", html_file).code == 0
    page = html_file.read_bytes().decode("utf-8")
    for text in (table.out, table.err, markdown.out, page):
        for bad in (ESC, BEL, RLO):
            assert bad not in text
    assert "[bold red]boom[/]" in table.out and "\\x1b[2J" in table.out
    assert "\\<script\\>" in markdown.out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script" not in page
    assert "\\x1b[2J" in page and "\\u202e" in page
    assert "<svg" in page  # the claimed thread sweep is drawn


def test_tui_without_a_terminal_refuses_in_one_line(tmp_path):
    """Issue 22: `tui` with no terminal spun at ~70 % CPU for ten minutes."""
    db = tmp_path / "s.db"
    command = Path(sys.executable).with_name("patchperf")  # the installed command
    done = subprocess.run([str(command), "--db", str(db), "tui"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATCHPERF_PURE": "1"})
    assert done.returncode == 2
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert len(lines) <= 3 and "needs a terminal" in done.stderr  # click's usage line, then ours


def test_tui_on_a_store_that_does_not_exist_says_so(cli, tmp_path, monkeypatch):
    """`tui --db PATH` made an empty store where `report` said "no such store"."""
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    missing = tmp_path / "typo.db"
    result = cli("--db", missing, "tui")
    assert result.code != 0 and "no such store" in result.err
    assert not missing.exists()
    assert "no such store" in cli("--db", missing, "report").err
