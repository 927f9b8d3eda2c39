"""Analysis in worker processes (issue 8): `--jobs N` writes exactly what one process writes,
in the same order, and Ctrl-C stops the workers with the parent (one line, exit 130)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stores import gen_mbox, unanalysed_store

from corpus.store import Store
from reports.cli import main

COMMAND = Path(sys.executable).with_name("patchperf")


@pytest.fixture(scope="module")
def unanalysed(tmp_path_factory, session_make_db) -> str:
    """900 generated mails, the bundled threads, one mail analysis refuses and one whose
    table is past the limit, stored but not analysed (in a SQLite file or a PostgreSQL
    database, by the test backend)."""
    return str(unanalysed_store(tmp_path_factory.mktemp("jobs"), db=session_make_db()))


def _analyse(cli, base: str, copy: str, jobs: int):
    result = cli("--db", copy, "analyze", "--all", "--jobs", jobs)
    with Store.open(copy) as store:
        return result, store.dump()


def test_two_workers_write_what_one_process_writes(cli, unanalysed, make_db, monkeypatch) -> None:
    monkeypatch.setenv("PATCHPERF_LIMIT_TABLE_LINES", "30")
    one, alone = _analyse(cli, unanalysed, make_db(copy_of=unanalysed), 1)
    two, shared = _analyse(cli, unanalysed, make_db(copy_of=unanalysed), 2)
    assert one.code == two.code == 1  # done, one mail refused
    assert one.out == two.out and "analyzed" in one.out
    # the same problems and warnings, in the same order
    assert one.err == two.err
    assert "MIME parts exceeds the limit of 1,000 parts" in one.err
    assert "table exceeds the limit of 30 lines" in one.err
    assert alone == shared
    assert len(alone["analyses"]) > 900 and alone["claims"] and alone["rejections"]


def test_ctrl_c_stops_the_workers_with_the_parent(db, tmp_path) -> None:
    """Ctrl-C in a terminal reaches the whole process group: the workers ignore it, the
    parent cancels what is not started and says one line; a rerun completes."""
    mbox = tmp_path / "gen.mbox"
    gen_mbox().generate(mbox, n=5000, seed=6)  # about 4 s of analysis for two workers
    assert main(["--db", str(db), "--quiet", "ingest", "--no-analyze", str(mbox)]) == 0
    run = subprocess.Popen([str(COMMAND), "--db", str(db), "analyze", "--all", "--jobs", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_group(run.pid)) < 3 and time.monotonic() < deadline:  # the parent and 2 workers
        time.sleep(0.05)
    time.sleep(1.0)  # the workers have spawned, imported and started on the mail
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, (run.returncode, err)
    assert err.decode().strip().splitlines() == ["patchperf: interrupted"], err
    deadline = time.monotonic() + 10  # (multiprocessing's resource tracker exits just after)
    while _group(run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group(run.pid) == [], "a worker outlived its parent"
    rerun = subprocess.run([str(COMMAND), "--db", str(db), "--quiet", "analyze", "--all", "--jobs", "2"],
                           capture_output=True)
    assert rerun.returncode == 0, rerun.stderr


def _group(sid: int) -> list[int]:
    """The live processes of the session the run leads (it and its workers; a zombie
    waiting to be reaped by init is no longer running), read from /proc."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after `pid (name)`
        except OSError:
            continue  # exited while we looked
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            alive.append(int(stat.parent.name))
    return alive
