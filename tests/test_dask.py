"""Analysis on a Dask distributed cluster (issue 8): `--scheduler ADDRESS` writes exactly what
`--jobs 1` writes, and prints the same; the cluster is the user's (Ctrl-C cancels our work,
never the cluster); an address that is wrong, unreachable or served by workers running other
code is one line, exit 2. The cluster is a LocalCluster on loopback with two worker processes
importing patchperf from this virtual environment, as a real cluster's workers would."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from distributed import Client, LocalCluster
from epoch_repo import fast_import
from stores import gen_mbox, unanalysed_store

from corpus.store import Store

COMMAND = Path(sys.executable).with_name("patchperf")
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cluster():
    # (the scheduler serves HTTP even without a dashboard: on a free port, not 8787, which
    # another cluster on the machine may hold)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as running:
        yield running


@pytest.fixture(scope="module")
def unanalysed(tmp_path_factory) -> Path:
    return unanalysed_store(tmp_path_factory.mktemp("dask"))


def patchperf(*args: object, env: dict[str, str] | None = None, **popen: object):
    """The installed command, as a user runs it (its stderr is what a user would see)."""
    return subprocess.run([str(COMMAND), *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120, **popen)


def _analyse(base: Path, copy: Path, *how: object):
    shutil.copyfile(base, copy)
    result = patchperf("--db", copy, "analyze", "--all", *how,
                       env={"PATCHPERF_LIMIT_TABLE_LINES": "30"})
    with Store.open(copy) as store:
        return result, store.dump()


def test_the_cluster_writes_what_one_process_writes(cluster, unanalysed, tmp_path) -> None:
    here, alone = _analyse(unanalysed, tmp_path / "one.db", "--jobs", 1)
    there, distributed = _analyse(unanalysed, tmp_path / "dask.db",
                                  "--scheduler", cluster.scheduler_address)
    assert here.returncode == there.returncode == 1  # done, one mail refused
    assert here.stdout == there.stdout and "analyzed" in here.stdout
    # the same problems and warnings in the same order, and nothing from Dask
    assert here.stderr == there.stderr
    assert "MIME parts exceeds the limit of 1,000 parts" in here.stderr
    assert "table exceeds the limit of 30 lines" in here.stderr
    assert alone == distributed
    assert len(alone["analyses"]) > 900 and alone["claims"] and alone["rejections"]


def test_the_workers_run_the_compiled_readers_when_this_process_does(cluster) -> None:
    """A worker imports patchperf as any process of this venv does: the mypyc build when it
    is fresh (analyze/compiled.py), the same modules either way."""
    import analyze.claims.lexer.quantity

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        files = client.run(lambda: __import__("analyze.claims.lexer.quantity", fromlist=["_"]).__file__)
    assert len(files) == 2
    assert {Path(f).suffix for f in files.values()} == {Path(analyze.claims.lexer.quantity.__file__).suffix}


def test_an_ingest_backfill_on_the_cluster(cluster, tmp_path) -> None:
    mbox = tmp_path / "gen.mbox"
    gen_mbox().generate(mbox, n=300, seed=7)
    results = {}
    for how in (("--jobs", 1), ("--scheduler", cluster.scheduler_address)):
        db = tmp_path / f"{how[0][2:]}.db"
        run = patchperf("--db", db, "ingest", mbox, *how)
        with Store.open(db) as store:
            results[how[0]] = (run.returncode, run.stdout, run.stderr, store.dump())
    assert results["--jobs"] == results["--scheduler"]
    assert results["--jobs"][0] == 0 and "300 new" in results["--jobs"][1]


def test_a_git_epoch_backfill_on_the_cluster(cluster, tmp_path) -> None:
    """`sync --git` (lore's public-inbox epochs): each message a commit, as lore stores it."""
    mbox = tmp_path / "gen.mbox"
    gen_mbox().generate(mbox, n=120, seed=8)
    mails = [re.sub(rb"(?m)^>(>*From )", rb"\1", m) for m in mbox.read_bytes().split(gen_mbox().SEP) if m]
    fast_import(tmp_path / "netdev" / "git" / "0.git", [("m", m) for m in mails])
    results = {}
    for how in (("--jobs", 1), ("--scheduler", cluster.scheduler_address)):
        db = tmp_path / f"{how[0][2:]}.db"
        run = patchperf("--db", db, "sync", "lore:netdev", "--git", tmp_path / "netdev", *how)
        with Store.open(db) as store:
            results[how[0]] = (run.returncode, run.stdout, run.stderr, store.dump())
    assert results["--jobs"] == results["--scheduler"]
    code, _out, err, dump = results["--jobs"]
    assert code == 0, err
    assert len(dump["analyses"]) == len(mails) == 120


def test_ctrl_c_cancels_our_work_and_leaves_the_cluster_running(cluster, unanalysed,
                                                                 tmp_path) -> None:
    db = tmp_path / "s.db"
    shutil.copyfile(unanalysed, db)
    scheduler = cluster.scheduler  # in this process: what it holds can be read directly
    run = subprocess.Popen([str(COMMAND), "--db", str(db), "analyze", "--all", "--scheduler",
                            cluster.scheduler_address],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 30
    while not scheduler.tasks and time.monotonic() < deadline:  # chunks submitted
        time.sleep(0.01)
    assert scheduler.tasks, "no chunk reached the cluster"
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, (run.returncode, err)
    assert err.decode().strip().splitlines() == ["patchperf: interrupted"], err
    deadline = time.monotonic() + 10
    while scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not scheduler.tasks, "the cluster kept working for a command that was stopped"
    assert len(scheduler.workers) == 2  # the user's cluster, untouched
    rerun = patchperf("--db", db, "--quiet", "analyze", "--all", "--scheduler",
                      cluster.scheduler_address)
    assert rerun.returncode == 1, rerun.stderr  # done, one mail refused


def test_no_scheduler_or_no_worker_is_one_line_after_the_timeout(tmp_path) -> None:
    """A port nothing listens on, and a scheduler without workers: both waited for 10 s (run
    side by side), then one line naming the address; nothing is analysed."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        nobody = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    db = unanalysed_store(tmp_path, n=10)
    with LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as empty:
        started = time.monotonic()
        # one store: the command waits for the cluster before it takes the store's lock
        runs = [subprocess.Popen([str(COMMAND), "--db", str(db), "analyze", "--all",
                                  "--scheduler", address], stderr=subprocess.PIPE, text=True)
                for address in (nobody, empty.scheduler_address)]
        errors = [run.communicate(timeout=60)[1] for run in runs]
        assert time.monotonic() - started < 25
    assert [run.returncode for run in runs] == [2, 2]
    assert errors == [
        f"patchperf: error: {nobody}: no Dask scheduler answered within 10 s\n",
        f"patchperf: error: {empty.scheduler_address}: the scheduler has no worker (none joined "
        f"within 10 s)\n"]
    with Store.open(db) as store:
        assert not store.dump()["analyses"]  # the mail stays stored, for the next run


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "http://h:8786", "tcp://h", "tcp://h:0",
                                     "tcp://h:99999", "tcp://:8786", "tcp://h:8786/x",
                                     "tcp://-h:8786"])
def test_a_bad_address_is_a_usage_error(cli, tmp_path, address) -> None:
    result = cli("--db", tmp_path / "s.db", "analyze", "--all", "--scheduler", address)
    assert result.code == 2
    assert result.err.splitlines() == [f"patchperf: error: {address}: not a Dask scheduler "
                                       f"address (tcp://HOST:PORT, or tls://HOST:PORT with "
                                       f"certificates)"]
    assert not (tmp_path / "s.db").exists()  # refused before anything is opened


def test_tls_without_certificates_is_one_line(cli, tmp_path) -> None:
    result = cli("--db", tmp_path / "s.db", "analyze", "--all", "--scheduler",
                 "tls://127.0.0.1:8786")
    assert result.code == 2
    assert result.err.splitlines() == [
        "patchperf: error: tls://127.0.0.1:8786: tls:// needs the client's certificates in "
        "Dask's configuration (distributed.comm.tls.ca-file, .client.cert, .client.key)"]


def test_scheduler_and_jobs_exclude_each_other(cli, tmp_path, monkeypatch) -> None:
    both = cli("--db", tmp_path / "s.db", "analyze", "--all", "--jobs", 2,
               "--scheduler", "tcp://127.0.0.1:8786")
    assert both.code == 2 and "not with --jobs N" in both.err
    in_memory = cli("analyze", REPO / "corpus" / "threads" / "lockless-stats.mbox", "--scheduler", "tcp://127.0.0.1:8786")
    assert in_memory.code == 2 and "with --all" in in_memory.err
    # $PATCHPERF_SCHEDULER is a default: an explicit --jobs wins, and in-memory analysis
    # (which reads no store) ignores it
    monkeypatch.setenv("PATCHPERF_SCHEDULER", "tcp://127.0.0.1:1")
    db = unanalysed_store(tmp_path, n=10)
    assert cli("--db", db, "--quiet", "analyze", "--all", "--jobs", 2).code == 1
    assert cli("analyze", "--format", "json", REPO / "corpus" / "threads" / "lockless-stats.mbox").code == 0


def test_without_dask_installed_the_command_says_what_to_install(cli, tmp_path,
                                                                  monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import` sees when absent
    result = cli("--db", tmp_path / "s.db", "analyze", "--all",
                 "--scheduler", "tcp://127.0.0.1:8786")
    assert result.code == 2
    assert result.err.splitlines() == ["patchperf: error: --scheduler needs Dask's distributed "
                                       "package: install patchperf[cluster]"]


def test_dask_is_imported_only_for_scheduler(tmp_path) -> None:
    db = unanalysed_store(tmp_path, n=10)
    code = ("import sys\nfrom reports.cli import main\n"
            f"code = main(['--db', {str(db)!r}, '--quiet', 'analyze', '--all'])\n"
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'}))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines()[-1] == "1 []"  # done (one mail refused), no Dask


def test_a_worker_running_other_sources_is_refused(tmp_path) -> None:
    """A worker on another checkout (here: one comment more in a module the analysis runs)
    would write other documents: refused, naming the worker, before any mail is sent."""
    other = tmp_path / "other"
    for package in ("analyze", "corpus"):
        shutil.copytree(REPO / package, other / package,
                        ignore=shutil.ignore_patterns("__pycache__", "threads"))
    with (other / "analyze" / "claims" / "tables" / "read.py").open("a") as module:
        module.write("# another commit\n")
    db = unanalysed_store(tmp_path, n=10)
    with LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as empty:
        # the checkout's modules come first on the worker's path, before the editable install
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                   empty.scheduler_address, "--nthreads", "1", "--no-nanny",
                                   "--host", "127.0.0.1", "--no-dashboard"],
                                  cwd=other, env={**os.environ, "PYTHONPATH": str(other)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with Client(empty.scheduler_address, set_as_default=False) as client:
                client.wait_for_workers(1, timeout=30)
                (address,) = client.scheduler_info()["workers"]
            run = patchperf("--db", db, "analyze", "--all", "--scheduler",
                            empty.scheduler_address)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert run.returncode == 2
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"patchperf: error: {empty.scheduler_address}: worker {address} "
                           f"runs patchperf "), line
    assert line.endswith(": install the same patchperf on every worker"), line
    assert "this command runs patchperf" in line
    with Store.open(db) as store:
        assert not store.dump()["analyses"]
