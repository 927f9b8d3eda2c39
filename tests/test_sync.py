"""`patchperf sync` against a public-inbox shaped server on 127.0.0.1 (issue 5): a first run
takes the newest page, a second fetches only what is new (requests counted) and stores
nothing twice, the cursor moves only past committed mail, one sync at a time."""

from __future__ import annotations

import gzip
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from ingest.sync import sync_lock

BASE = datetime(2024, 9, 2, 10, 0, tzinfo=UTC)


@dataclass
class Archive:
    """An inbox: messages with their received time and thread root."""

    messages: list[tuple[str, datetime, str, bytes]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    missing: set[str] = field(default_factory=set)  # threads answering 404

    def add(self, mid: str, minutes: int, root: str | None = None) -> None:
        raw = (f"From: Ana Lopes <ana@example.org>\nSubject: [PATCH net] thing {mid}\n"
               f"Date: Mon, 02 Sep 2024 10:00:00 +0000\nMessage-ID: <{mid}>\n"
               + (f"In-Reply-To: <{root}>\n" if root else "") + "\nA body.\n").encode()
        self.messages.append((mid, BASE + timedelta(minutes=minutes), root or mid, raw))

    def handle(self, request: Request) -> Response:
        query = request.query_string.decode()
        self.requests.append(request.path + (f"?{query}" if query else ""))
        path = request.path
        if path == "/netdev/new.atom":
            return Response(self._atom(request.args.get("t")), content_type="application/atom+xml")
        m = re.fullmatch(r"/netdev/(.+)/t\.mbox\.gz", path)
        if m:
            mid = m.group(1)
            root = next((r for x, _, r, _ in self.messages if x == mid), None)
            if root is None or root in self.missing:
                return Response(b"", status=404)
            thread = [raw for _, _, r, raw in self.messages if r == root]
            body = b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + raw + b"\n" for raw in thread)
            return Response(gzip.compress(body), content_type="application/gzip")
        return Response(b"", status=404)

    def _atom(self, t: str | None) -> bytes:
        ordered = sorted(self.messages, key=lambda m: m[1])
        newest = list(reversed(ordered))[:25]
        page = newest
        if t:
            after = datetime.strptime(t.rstrip("-"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            later = [m for m in ordered if m[1] > after][:25]
            page = later if len(later) == 25 else newest  # lore's silent fall-back
        entries = "".join(
            f"<entry><title>{mid}</title><updated>{when.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>"
            f"<link href=\"http://x/netdev/{mid}/\"/><id>urn:uuid:{mid}</id></entry>"
            for mid, when, _, _ in page)
        return (f'<feed xmlns="http://www.w3.org/2005/Atom"><title>netdev</title>{entries}'
                "</feed>").encode()


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
