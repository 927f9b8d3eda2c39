"""Two writers on one store at once (issue 8): `patchperf sync` from a lore-shaped server on
127.0.0.1 and `patchperf analyze --all`, real processes side by side, leave the store a run of
one after the other leaves: every message stored once and analysed, the series those of a
rebuild from everything, the cursor advanced. PostgreSQL's writers take turns on an advisory
lock and wait for each other; SQLite's give up after its 5 s busy timeout, which a batch of
`analyze --all` can outlast on a loaded machine, so there this is not promised."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_lore import Archive
from pytest_httpserver import HTTPServer
from stores import ON_POSTGRESQL, gen_mbox

from corpus.store import Store

COMMAND = Path(sys.executable).with_name("patchperf")

pytestmark = pytest.mark.skipif(not ON_POSTGRESQL, reason="concurrent writers are PostgreSQL's "
                                "(runs in the PostgreSQL pass)")


@pytest.fixture
def world(httpserver: HTTPServer, tmp_path: Path, pg_server) -> tuple[Path, dict[str, str]]:
    """Mail already stored (a generated archive, not analysed yet) and a lore server with
    threads of its own, some of them replies to the stored mail."""
    if not COMMAND.exists():
        pytest.skip(f"{COMMAND} is not installed (make test installs it)")
    mbox = tmp_path / "stored.mbox"
    gen_mbox().generate(mbox, n=1200, seed=8)
    stored_ids = re.findall(rb"(?m)^Message-ID: <([^>]+)>", mbox.read_bytes())
    archive = Archive(delay=0.01)
    for k in range(60):
        archive.add(f"t{k}@x", 3 * k)
        archive.add(f"r{k}a@x", 3 * k + 1, root=f"t{k}@x")
        # a review of a stored patch: its series gains a member from the other writer
        archive.add(f"rev{k}@x", 3 * k + 2, root=stored_ids[k * 7].decode(),
                    body="Reviewed-by: Bo <bo@example.org>\n")
    httpserver.expect_request(re.compile(".*")).respond_with_handler(archive.handle)
    env = {**os.environ, "PATCHPERF_LORE_URL": httpserver.url_for("/").rstrip("/")}
    return mbox, env


def _run(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(COMMAND), "--quiet", *argv], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(process: subprocess.Popen[bytes]) -> float:
    _, err = process.communicate(timeout=600)
    assert process.returncode == 0, err.decode()
    return time.monotonic()


def _state(db: str) -> tuple[dict[str, object], dict[str, str], list[int]]:
    with Store.open(db, readonly=True) as store:
        store.check(full=True)
        return store.dump(), store.cursors(), store.unanalyzed_rows()


def test_sync_and_analyze_at_once_leave_what_one_after_the_other_leaves(world, make_db) -> None:
    mbox, env = world
    sync = ["sync", "lore:netdev", "--since", "2024-09-01"]
    together, apart = make_db(), make_db()
    for db in (together, apart):
        assert _finish(_run(["--db", db, "ingest", "--no-analyze", str(mbox)], env))

    analyze = _run(["--db", together, "analyze", "--all"], env)
    time.sleep(1.0)  # analyze has started on the stored mail when the sync begins writing
    started = time.monotonic()
    syncing = _run(["--db", together, *sync], env)
    sync_done = _finish(syncing)
    analyze_done = _finish(analyze)
    assert started < analyze_done, "analyze ended before the sync started: no overlap"

    _finish(_run(["--db", apart, *sync], env))
    _finish(_run(["--db", apart, "analyze", "--all"], env))

    dump, cursors, unanalysed = _state(together)
    expected, expected_cursors, _ = _state(apart)
    assert unanalysed == []  # every message analysed (or its rejection kept)
    assert len(dump["messages"]) == 1200 + 180  # each once
    assert cursors == expected_cursors and cursors["lore:netdev"]
    assert dump == expected  # messages, analyses, claims, series: as one after the other
    # the series rebuilt from everything: the reviews read by the sync joined their series
    members = {k for s in dump["series"].values() for k, _, _ in s["members"]}
    assert {f"rev{k}@x" for k in range(60)} <= members
    assert sync_done and analyze_done
