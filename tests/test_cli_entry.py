"""The installed `patchperf` command (reports.entry:run, then reports.cli:run) as a real process: the exit codes of
main(), everything written reaches the store and the terminal although the collector's
last passes are skipped at exit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from stores import ON_POSTGRESQL

from analyze.errors import StoreError
from corpus.store import Store

COMMAND = Path(sys.executable).with_name("patchperf")

MAIL = (
    b"From: Ana Lopes <ana@example.org>\n"
    b"Subject: [PATCH net] tcp: batch the refill\n"
    b"Date: Mon, 02 Sep 2024 10:00:00 +0000\n"
    b"Message-ID: <entry-1@example.org>\n"
    b"\n"
    b"With the patch the box went from 5.1 Mpps to 7.3 Mpps with 8 RX queues.\n"
)


@pytest.fixture
def command() -> Path:
    if not COMMAND.exists():
        pytest.skip(f"{COMMAND} is not installed (make test installs it)")
    return COMMAND


def test_run_stores_everything_and_exits_with_mains_code(db, command: Path, tmp_path: Path) -> None:
    mail = tmp_path / "one.eml"
    mail.write_bytes(MAIL)
    done = subprocess.run([command, "ingest", mail, "--db", db], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 new" in done.stdout + done.stderr
    with Store.open(db, readonly=True) as store:
        assert len(store.claim_docs()) == 1

    shown = subprocess.run([command, "claims", "--db", db, "--format", "json"],
                           capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert '"baseline": 5.1' in shown.stdout and shown.stdout.rstrip().endswith(("}", "]"))


def test_run_exit_code_for_unusable_input(command: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.eml"
    bad.write_bytes(b"\x00\x01 no text at all\n")  # (any text is read: ingest/text.py)
    done = subprocess.run([command, "analyze", bad], capture_output=True, text=True)
    assert done.returncode == 2
    assert str(bad) in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("after", [0.05, 0.1, 0.2, 0.4, 0.8])
def test_ctrl_c_at_any_moment_is_one_line(db, command: Path, tmp_path: Path, after: float) -> None:
    """SIGINT while the command loads, opens the store, stores or analyses: `interrupted`
    (exit 130) or a finished run, never a traceback, and the store stays whole."""
    import signal
    import time

    mbox = tmp_path / "m.mbox"
    mbox.write_bytes(b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
                              + MAIL.replace(b"entry-1", b"entry-%d" % k) + b"\n" for k in range(300)))
    process = subprocess.Popen([str(command), "--db", str(db), "ingest", str(mbox)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate()
    if b"init_import_site" in err:
        # the interpreter itself was still starting (Python's `site`), before any code of
        # ours ran: its own fatal-error report, nothing patchperf can change
        return
    assert b"Traceback" not in err, err.decode()
    assert process.returncode in (0, 130)
    if process.returncode == 130:
        assert err.strip().splitlines()[-1] == b"patchperf: interrupted"
    if ON_POSTGRESQL or Path(db).exists():
        try:
            store = Store.open(db, readonly=True)
        except StoreError as exc:  # stopped before the schema was made: nothing stored
            assert "not a patchperf store yet" in str(exc) or "no such" in str(exc)
            return
        with store:
            store.check(full=True)


def test_a_report_to_a_full_disk_is_one_line(command: Path, tmp_path: Path) -> None:
    mail = tmp_path / "m.eml"
    mail.write_bytes(MAIL)
    with open("/dev/full", "wb") as full:
        result = subprocess.run([str(command), "analyze", str(mail), "--format", "json"],
                                stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 2
    assert result.stderr.decode().strip().splitlines() == [
        "patchperf: error: cannot write the report to standard output (No space left on device)"]
