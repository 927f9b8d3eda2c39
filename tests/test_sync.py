"""`patchperf sync` against a public-inbox shaped server on 127.0.0.1 (issue 5): a first run
takes the newest page, a second fetches only what is new (requests counted) and stores
nothing twice, the cursor moves only past committed mail, one sync at a time."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from fake_lore import BASE, Archive
from pytest_httpserver import HTTPServer

from ingest.sync import sync_lock


@pytest.fixture
def archive(httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> Archive:
    found = Archive()
    httpserver.expect_request(re.compile(".*")).respond_with_handler(found.handle)
    monkeypatch.setenv("PATCHPERF_LORE_URL", httpserver.url_for("/").rstrip("/"))
    return found


def stored(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return sorted(r[0] for r in conn.execute("SELECT message_id FROM messages"))


def cursor(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM cursors WHERE feed = 'lore:netdev'").fetchone()
    return row[0] if row else None


def test_sync_twice_fetches_only_what_is_new(cli, archive: Archive, tmp_path: Path) -> None:
    for k in range(30):  # 30 threads: a first run takes the newest 25
        archive.add(f"t{k}@x", k)
    db = tmp_path / "s.db"
    first = cli("sync", "lore:netdev", "--db", db)
    assert first.code == 0, first.err
    assert stored(db) == sorted(f"t{k}@x" for k in range(5, 30))
    assert cursor(db) == (BASE + timedelta(minutes=29)).isoformat()
    assert "25 new, 0 already stored, 25 threads fetched" in first.out

    archive.requests.clear()
    second = cli("sync", "lore:netdev", "--db", db)
    assert second.code == 0 and "0 new" in second.out
    assert archive.requests == ["/netdev/new.atom?t=20240902102900-"]  # one request, nothing else

    archive.add("t30@x", 30)
    archive.add("r1@x", 31, root="t12@x")  # a reply to an old thread brings that thread again
    archive.requests.clear()
    third = cli("sync", "lore:netdev", "--db", db)
    assert third.code == 0, third.err
    assert sorted(r for r in archive.requests if r.endswith("t.mbox.gz")) == [
        "/netdev/r1@x/t.mbox.gz", "/netdev/t30@x/t.mbox.gz"]
    assert stored(db) == sorted([f"t{k}@x" for k in range(5, 31)] + ["r1@x"])  # each once
    assert "2 new, 1 already stored" in third.out


def test_a_failed_thread_keeps_the_cursor_before_it(cli, archive: Archive, tmp_path: Path) -> None:
    for k in range(3):
        archive.add(f"t{k}@x", k)
    db = tmp_path / "s.db"
    assert cli("sync", "lore:netdev", "--db", db).code == 0
    archive.add("t3@x", 3)
    archive.missing.add("t3@x")
    failed = cli("sync", "lore:netdev", "--db", db)
    assert failed.code == 1 and "404" in failed.err and "lore:netdev" in failed.err
    assert cursor(db) == (BASE + timedelta(minutes=2)).isoformat()  # not past t3
    archive.missing.clear()
    assert cli("sync", "lore:netdev", "--db", db).code == 0
    assert "t3@x" in stored(db)


def test_one_sync_at_a_time(cli, archive: Archive, tmp_path: Path) -> None:
    archive.add("t0@x", 0)
    db = tmp_path / "s.db"
    with sync_lock(db):
        other = cli("sync", "lore:netdev", "--db", db)
    assert other.code == 0 and "another patchperf sync holds" in other.err
    assert archive.requests == []


@pytest.mark.parametrize("feed", ["lore", "lore:", "gmane:netdev", "lore:../etc"])
def test_a_bad_feed_is_a_usage_error(cli, tmp_path: Path, feed: str) -> None:
    result = cli("sync", feed, "--db", tmp_path / "s.db")
    assert result.code == 2 and "not a feed" in result.err
