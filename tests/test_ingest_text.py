"""`patchperf analyze` reads any text (ingest/text.py): a commit message, a page saved from a
git web viewer, a robot's report that starts at "Hello,", standard input. Only empty and
binary input are refused. The posts here are written for these tests, in those shapes."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

COMMIT = """\
net: veth: batch GRO flushes per NAPI poll

Flushing GRO once per poll instead of once per packet saves a cache miss.

Before: ~1.7Mpps
After:  ~2.3Mpps

Signed-off-by: Alice Moreau <alice@example.org>
"""


def _claims(result) -> list[tuple[float, float, str]]:
    return [(c["baseline"], c["patched"], c["unit"]) for c in result.json()["claims"]]


def test_a_commit_message_is_one_message_body(cli, tmp_path: Path) -> None:
    post = tmp_path / "commit.txt"
    post.write_text(COMMIT)
    result = cli("analyze", post, "--format", "json")
    assert result.code == 0, result.err
    (message,) = result.json()["messages"]
    assert message["message_id"] is None and message["key"].startswith("sha256:")
    assert message["subject"] == "" and message["trailers"][0]["key"] == "Signed-off-by"
    assert _claims(result) == [(1.7, 2.3, "Mpps")]


def test_standard_input(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    report = "Hello,\n\nthroughput improved from 5.1 Mpps to 7.9 Mpps with this series.\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(report.encode())))
    result = cli("analyze", "-", "--format", "json")
    assert result.code == 0, result.err
    assert _claims(result) == [(5.1, 7.9, "Mpps")]
    assert result.json()["messages"][0]["origin"] == "<stdin>"


@pytest.mark.parametrize("charset", ["latin-1", "windows-1252", "utf-8"])
def test_text_in_any_8bit_charset(cli, tmp_path: Path, charset: str) -> None:
    post = tmp_path / "post.txt"
    post.write_bytes("Résultats – before: 10 Gbit/s, after: 12 Gbit/s\n".encode(
        charset, "replace"))
    result = cli("analyze", post, "--format", "json")
    assert result.code == 0, result.err
    assert _claims(result) == [(10, 12, "Gbit/s")]
    assert result.json()["claims"][0]["quote"].startswith("R")


def test_an_html_page_from_elsewhere_comes_down_to_its_text(cli, tmp_path: Path) -> None:
    page = tmp_path / "commit.html"
    page.write_text("<!DOCTYPE html><html><head><title>x</title><script>var a = 1;</script>"
                    "</head><body><div class=commit-msg><pre>" + COMMIT.replace("<", "&lt;")
                    + "</pre></div></body></html>")
    result = cli("analyze", page, "--format", "json")
    assert result.code == 0, result.err
    assert _claims(result) == [(1.7, 2.3, "Mpps")]


@pytest.mark.parametrize(("data", "said"), [(b"", "empty"), (b"\n \n", "empty"),
                                             (b"abc\x00def" * 10, "binary")])
def test_only_empty_and_binary_input_are_refused(cli, tmp_path: Path, data: bytes,
                                                 said: str) -> None:
    post = tmp_path / "post.txt"
    post.write_bytes(data)
    result = cli("analyze", post, "--format", "json")
    assert result.code == 2 and said in result.err and result.out == ""


def test_in_a_folder_text_that_is_no_mail_is_still_skipped(cli, tmp_path: Path) -> None:
    """A folder holds mail and other files (READMEs, scripts): those are not read as posts."""
    (tmp_path / "notes.txt").write_text(COMMIT)
    result = cli("analyze", tmp_path, "--format", "json")
    assert result.code == 2 and "no mail in this folder" in result.err


def test_ingest_still_stores_mail_only(cli, db, tmp_path: Path) -> None:
    post = tmp_path / "commit.txt"
    post.write_text(COMMIT)
    result = cli("ingest", post, "--db", db)
    assert result.code == 2 and "not a mail" in result.err


def test_ingest_reads_mail_on_standard_input(cli, db, monkeypatch: pytest.MonkeyPatch) -> None:
    mail = ("From: Alice <alice@example.org>\nSubject: [PATCH] x\nMessage-ID: <stdin@x>\n"
            "Date: Mon, 4 Mar 2024 10:00:00 +0000\n\nbody\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(mail.encode())))
    result = cli("ingest", "-", "--db", db)
    assert result.code == 0 and "1 new" in result.out, result.err
