"""`patchperf sync` against a public-inbox shaped server on 127.0.0.1 (issue 5): a first run
takes the newest page, a second fetches only what is new (requests counted) and stores
nothing twice, the cursor moves only past committed mail, one sync at a time."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from fake_lore import BASE, Archive
from pytest_httpserver import HTTPServer

from corpus.jobs.sync import sync_lock
from corpus.store import Store


@pytest.fixture
def archive(httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> Archive:
    found = Archive()
    httpserver.expect_request(re.compile(".*")).respond_with_handler(found.handle)
    monkeypatch.setenv("PATCHPERF_LORE_URL", httpserver.url_for("/").rstrip("/"))
    return found


def stored(db: str) -> list[str]:
    with Store.open(db, readonly=True) as store:
        return sorted(m["message_id"] for m in store.dump()["messages"].values())


def cursor(db: str) -> str | None:
    """The feed's cursor time (it also keeps the Message-IDs read at that second)."""
    with Store.open(db, readonly=True) as store:
        value = store.get_cursor("lore:netdev")
    return json.loads(value)["time"] if value else None


def test_sync_twice_fetches_only_what_is_new(db, cli, archive: Archive, tmp_path: Path) -> None:
    for k in range(30):  # 30 threads: a first run takes the newest 25
        archive.add(f"t{k}@x", k)
    first = cli("sync", "lore:netdev", "--db", db)
    assert first.code == 0, first.err
    assert stored(db) == sorted(f"t{k}@x" for k in range(5, 30))
    assert cursor(db) == (BASE + timedelta(minutes=29)).isoformat()
    assert "25 new, 0 already stored, 25 threads fetched" in first.out

    archive.requests.clear()
    second = cli("sync", "lore:netdev", "--db", db)
    assert second.code == 0 and "0 new" in second.out
    # one request, nothing else (a second early: entries of the cursor's second are checked)
    assert archive.requests == ["/netdev/new.atom?t=20240902102859-"]

    archive.add("t30@x", 30)
    archive.add("r1@x", 31, root="t12@x")  # a reply to an old thread brings that thread again
    archive.requests.clear()
    third = cli("sync", "lore:netdev", "--db", db)
    assert third.code == 0, third.err
    assert sorted(r for r in archive.requests if r.endswith("t.mbox.gz")) == [
        "/netdev/r1@x/t.mbox.gz", "/netdev/t30@x/t.mbox.gz"]
    assert stored(db) == sorted([f"t{k}@x" for k in range(5, 31)] + ["r1@x"])  # each once
    assert "2 new, 1 already stored" in third.out


def test_a_missing_thread_is_reported_and_the_feed_goes_on(db, cli, archive: Archive,
                                                            tmp_path: Path) -> None:
    for k in range(3):
        archive.add(f"t{k}@x", k)
    assert cli("sync", "lore:netdev", "--db", db).code == 0
    archive.add("t3@x", 3)
    archive.add("t4@x", 4)
    archive.missing.add("t3@x")  # gone from the archive: its own trouble, not the feed's
    partial = cli("sync", "lore:netdev", "--db", db)
    assert partial.code == 1 and "t3@x" in partial.err and "404" in partial.err
    assert "t4@x" in stored(db) and "t3@x" not in stored(db)
    assert cursor(db) == (BASE + timedelta(minutes=4)).isoformat()


def test_more_than_a_page_in_one_second_is_reported(db, cli, archive: Archive,
                                                    tmp_path: Path) -> None:
    """Thirty threads received in one second: lore's feed counts seconds and pages by 25,
    so it cannot show the last five; the run says so."""
    for k in range(30):
        archive.messages.append((f"s{k}@x", BASE, f"s{k}@x", (
            f"From: A <a@x>\nSubject: s{k}\nDate: Mon, 02 Sep 2024 10:00:00 +0000\n"
            f"Message-ID: <s{k}@x>\n\nBody.\n").encode()))
    first = cli("sync", "lore:netdev", "--db", db, "--since", "2024-09-01")
    # the Atom feed cannot page past 25 in one second: said, not hidden
    assert first.code == 1 and "messages received in one second" in first.err
    assert len(stored(db)) == 25


def test_one_sync_at_a_time(db, cli, archive: Archive, tmp_path: Path) -> None:
    archive.add("t0@x", 0)
    with sync_lock(db):
        other = cli("sync", "lore:netdev", "--db", db)
    assert other.code == 0 and "another patchperf sync holds" in other.err
    assert archive.requests == []


@pytest.mark.sqlite_only("a SQLite file's links")
@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_one_sync_at_a_time_through_a_link_to_the_store(db, cli, archive: Archive, tmp_path: Path,
                                                       link: str) -> None:
    """The lock was a file named after the store's path: a sync through a symlink or a hard
    link to the store took a lock of its own and ran beside the first."""
    archive.add("t0@x", 0)
    Store.open(db).close()
    other = tmp_path / "elsewhere" / "same.db"
    other.parent.mkdir()
    if link == "symlink":
        other.symlink_to(db)
    else:
        os.link(db, other)
    with sync_lock(db):
        second = cli("sync", "lore:netdev", "--db", str(other))
    assert second.code == 0 and "another patchperf sync holds the sync lock" in second.err
    assert archive.requests == []
    with sync_lock(other):
        third = cli("sync", "lore:netdev", "--db", db)
    assert third.code == 0 and "another patchperf sync holds the sync lock" in third.err
    assert archive.requests == []
    assert cli("sync", "lore:netdev", "--db", str(other)).code == 0  # free again
    assert stored(db) == ["t0@x"]


@pytest.mark.parametrize("feed", ["lore", "lore:", "gmane:netdev", "lore:../etc"])
def test_a_bad_feed_is_a_usage_error(db, cli, tmp_path: Path, feed: str) -> None:
    result = cli("sync", feed, "--db", db)
    assert result.code == 2 and "not a feed" in result.err


def test_a_table_past_the_limit_is_a_warning_in_sync(db, cli, archive: Archive, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The table limit's warning reaches sync's output, as ingest's and analyze's (it was
    dropped, found in review)."""
    monkeypatch.setenv("PATCHPERF_LIMIT_TABLE_LINES", "2")
    archive.add("tab@x", 1, body="size | before | after\n1 | 1 Mpps | 2 Mpps\n2 | 2 Mpps | 3 Mpps\n"
                                 "3 | 3 Mpps | 4 Mpps\n")
    result = cli("sync", "lore:netdev", "--db", db)
    assert result.code == 0 and "1 new" in result.out
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1 and "table exceeds the limit of 2 lines; its claims are not read" in lines[0]


def test_a_page_of_thousands_is_read_a_bounded_part_at_a_time(db, cli, archive: Archive,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A mirror whose Atom page lists 5,000 entries made 5,002 requests in one go: a page is
    read `PATCHPERF_LIMIT_FEED_ENTRIES` entries at a time (oldest first), the cursor moving
    past each part, and the run says so."""
    monkeypatch.setenv("PATCHPERF_LIMIT_FEED_ENTRIES", "40")
    archive.page = 5_000
    for k in range(100):
        archive.add(f"t{k}@x", k)
    result = cli("sync", "lore:netdev", "--db", db, "--since", "2024-09-01")
    assert result.code == 0, result.err
    assert stored(db) == sorted(f"t{k}@x" for k in range(100))
    pages = [r for r in archive.requests if "new.atom" in r]
    assert len(pages) == 4  # 40 + 40 + 20, then nothing new
    assert "a feed page listed 100 entries: read 40 at a time" in result.err
    assert len(archive.requests) == 4 + 100


def test_a_run_stops_at_its_requests_and_the_next_goes_on(db, cli, archive: Archive,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`PATCHPERF_LIMIT_REQUESTS` bounds one run's requests, retries and pages included; the
    run says where it stopped (a warning: exit 0) and the next run takes the rest."""
    monkeypatch.setenv("PATCHPERF_LIMIT_REQUESTS", "30")
    archive.page = 5_000
    for k in range(70):
        archive.add(f"t{k}@x", k)
    first = cli("sync", "lore:netdev", "--db", db, "--since", "2024-09-01")
    assert first.code == 0, first.err
    assert len(archive.requests) == 30
    assert "stopped after the run's 30 requests (PATCHPERF_LIMIT_REQUESTS)" in first.err
    assert stored(db) == sorted(f"t{k}@x" for k in range(29))  # a page, then 29 threads
    assert cursor(db) == (BASE + timedelta(minutes=28)).isoformat()

    runs = 1
    while len(stored(db)) < 70:
        archive.requests.clear()
        again = cli("sync", "lore:netdev", "--db", db)
        assert again.code == 0, again.err
        assert len(archive.requests) <= 30
        runs += 1
    assert stored(db) == sorted(f"t{k}@x" for k in range(70))  # each once, none lost
    assert runs == 3


@pytest.mark.parametrize("budget", [1, 2, 3])
def test_a_budget_too_small_for_a_page_and_a_thread_asks_for_no_page(db, cli, archive: Archive,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      budget: int) -> None:
    """With fewer than two requests left a page is not asked for at all (it could bring no
    thread): a budget of 3 reads one page and two threads, and asks for no second page."""
    monkeypatch.setenv("PATCHPERF_LIMIT_REQUESTS", str(budget))
    for k in range(5):
        archive.add(f"t{k}@x", k)
    result = cli("sync", "lore:netdev", "--db", db, "--since", "2024-09-01")
    assert result.code == 0, result.err
    assert "stopped after the run's" in result.err
    pages = [r for r in archive.requests if "new.atom" in r]
    assert len(pages) == (0 if budget < 2 else 1)
    assert len(archive.requests) == (0 if budget < 2 else budget)
    assert len(stored(db)) == (0 if budget < 2 else budget - 1)
