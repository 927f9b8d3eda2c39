"""`patchperf sync` as real processes (issue 5, acceptances 3 and 4): killed with SIGKILL at
random points and run again, every message is stored exactly once and the cursor never
runs ahead of what is stored; two syncs started together, one runs and the other reports
the lock."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from fake_lore import Archive
from pytest_httpserver import HTTPServer
from stores import ON_POSTGRESQL

from analyze.errors import StoreError
from corpus.store import Store

COMMAND = Path(sys.executable).with_name("patchperf")

# fewer on PostgreSQL (the second pass of `make test`), to keep the pass within its time
RUNS = 8 if ON_POSTGRESQL else 20


@pytest.fixture
def served(httpserver: HTTPServer) -> tuple[Archive, dict[str, str]]:
    if not COMMAND.exists():
        pytest.skip(f"{COMMAND} is not installed (make test installs it)")
    archive = Archive(delay=0.015)  # 15 ms a thread, as over a network
    for k in range(60):  # 60 threads of 2 messages
        archive.add(f"t{k}@x", 2 * k)
        archive.add(f"r{k}a@x", 2 * k + 1, root=f"t{k}@x")
    httpserver.expect_request(re.compile(".*")).respond_with_handler(archive.handle)
    env = {**os.environ, "PATCHPERF_LORE_URL": httpserver.url_for("/").rstrip("/")}
    return archive, env


def sync(db: str, env: dict[str, str], *more: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([COMMAND, "--quiet", "sync", "lore:netdev", "--db", str(db),
                             "--since", "2024-09-01", *more], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def state(db: str) -> tuple[list[str], str | None]:
    with Store.open(db, readonly=True) as store:
        ids = [m["message_id"] for m in store.dump()["messages"].values()]
        assert len(ids) == store.counts().messages
        value = store.get_cursor("lore:netdev")
    return ids, json.loads(value)["time"] if value else None


def made(db: str) -> bool:
    """Whether a run got as far as making the store (its schema, in one transaction)."""
    try:
        Store.open(db, readonly=True).close()
    except StoreError as exc:
        assert "no such store" in str(exc) or "not a patchperf store yet" in str(exc), exc
        return False
    return True


def derived(db: str) -> tuple[dict[str, object], dict[str, object], dict[str, object]]:
    with Store.open(db, readonly=True) as store:
        dump = store.dump()
    return ({k: a["doc"] for k, a in dump["analyses"].items()}, dump["claims"],
            {k: s["doc"] for k, s in dump["series"].items()})


@pytest.mark.slow
def test_killed_syncs_lose_and_duplicate_nothing(db, make_db, served, tmp_path: Path) -> None:
    archive, env = served
    received = {mid: when for mid, when, _, _ in archive.messages}
    rng = random.Random(5)
    kills = 0
    for run in range(RUNS):  # random points, every third a SIGINT (Ctrl-C) instead
        for k in range(80):  # mail keeps arriving: each run has threads to fetch
            n = 1000 + 80 * run + k
            archive.add(f"t{n}@x", 2 * n)
            archive.add(f"r{n}a@x", 2 * n + 1, root=f"t{n}@x")
        received = {mid: when for mid, when, _, _ in archive.messages}
        process = sync(db, env)
        time.sleep(rng.uniform(0.4, 1.4))  # (the process needs about 0.4 s to start)
        if process.poll() is None:
            process.send_signal(signal.SIGINT if run % 3 == 2 else signal.SIGKILL)
            kills += 1
        _, err = process.communicate()
        assert b"Traceback" not in err, err.decode()
        if made(db):
            ids, cursor = state(db)
            assert len(ids) == len(set(ids))
            if cursor is not None:  # everything received up to the cursor is stored
                upto = datetime.fromisoformat(cursor)
                assert {m for m, when in received.items() if when <= upto} <= set(ids)
    assert kills >= RUNS * 4 // 5, "the runs ended before they could be killed: give them more to do"
    final = sync(db, env)
    assert final.wait() == 0, final.stderr.read() if final.stderr else ""
    ids, cursor = state(db)
    assert sorted(ids) == sorted(received) and len(ids) == len(set(ids))
    assert cursor == max(received.values()).isoformat()
    # and what was derived is what one uninterrupted sync derives
    clean = make_db()
    assert sync(clean, env).wait() == 0
    assert derived(db) == derived(clean)


def test_two_syncs_at_once(db, served, tmp_path: Path) -> None:
    archive, env = served
    first, second = sync(db, env), sync(db, env)
    codes = [first.wait(), second.wait()]
    errors = [p.stderr.read().decode() if p.stderr else "" for p in (first, second)]
    assert codes == [0, 0], errors
    assert sum("another patchperf sync holds" in e for e in errors) == 1
    ids, cursor = state(db)
    assert len(ids) == len(set(ids)) == len(archive.messages)
    assert cursor == max(w for _, w, _, _ in archive.messages).isoformat()
