"""Patchwork's events across three pages (issue 5, acceptance 1): Link-header paging, the
series' mbox fetched once, check events counted, the cursor by event id."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from stores import patchwork_of
from werkzeug import Request, Response

from analyze.limits import Limits
from corpus.jobs.sync import sync_patchwork
from corpus.store import Store
from ingest.feeds import parse_feed
from ingest.http import PoliteClient
from ingest.patchwork import _next_link


def mbox(*ns: int) -> bytes:
    return b"".join(
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
        + (f"From: A <a@x>\nSubject: [PATCH net {k}/2] thing\nDate: Mon, 02 Sep 2024 10:00:00 +0000\n"
           f"Message-ID: <pw{k}@x>\n\nBody.\n\n").encode() for k in ns)


class Server:
    def __init__(self, base: str) -> None:
        self.base = base
        self.events = [
            {"id": 1, "category": "patch-created", "date": "2024-09-02T10:00:00",
             "payload": {"patch": {"id": 11, "msgid": "<pw1@x>", "mbox": f"{base}/patch/11/mbox/"},
                         "series": {"id": 7}}},
            {"id": 2, "category": "check-created", "date": "2024-09-02T10:01:00",
             "payload": {"check": {"state": "success", "context": "build_32bit",
                                   "target_url": "https://ci/1"},
                         "patch": {"id": 11, "msgid": "<pw1@x>"}}},
            {"id": 3, "category": "series-completed", "date": "2024-09-02T10:02:00",
             "payload": {"series": {"id": 7, "mbox": f"{base}/series/7/mbox/"}}},
            {"id": 4, "category": "series-completed", "date": "2024-09-02T10:02:00",
             "payload": {"series": {"id": 7, "mbox": f"{base}/series/7/mbox/"}}},
            {"id": 5, "category": "cover-created", "date": "2024-09-02T10:03:00", "payload": {}},
        ]
        self.requests: list[str] = []

    def handle(self, request: Request) -> Response:
        self.requests.append(request.path)
        if request.path == "/api/1.3/events/":
            since = request.args.get("since", "")
            page = int(request.args.get("page", "1"))
            chosen = [e for e in self.events if e["date"] >= since]
            rows = chosen[(page - 1) * 2: page * 2]  # two a page: three pages for five
            headers = {}
            if page * 2 < len(chosen):
                headers["Link"] = (f'<{self.base}/api/1.3/events/?since={since}&page={page + 1}>; '
                                   'rel="next"')
            return Response(json.dumps(rows), headers=headers, content_type="application/json")
        if request.path == "/patch/11/mbox/":
            return Response(mbox(1))
        if request.path == "/series/7/mbox/":
            return Response(mbox(1, 2))
        return Response(b"", status=404)


@pytest.fixture
def server(httpserver: HTTPServer) -> Server:
    found = Server(httpserver.url_for("/").rstrip("/"))
    httpserver.expect_request(re.compile(".*")).respond_with_handler(found.handle)
    return found


def test_events_across_three_pages(db, server: Server, tmp_path: Path) -> None:
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        result = sync_patchwork(store, feed, client, Limits(), since=datetime(2024, 9, 1))
        assert result.error is None
        assert (len(result.new_rows), result.duplicates, result.checks) == (2, 1, 1)
        assert server.requests.count("/api/1.3/events/") == 3
        assert server.requests.count("/series/7/mbox/") == 1  # two events, one fetch
        # Patchwork's ids and its CI check, beside our analysis
        assert patchwork_of(store, "pw1@x") == {"patch_id": 11, "series_id": 7, "checks": [
            {"state": "success", "context": "build_32bit", "target_url": "https://ci/1"}]}
        server.requests.clear()
        again = sync_patchwork(store, feed, client, Limits())
    assert again.new_rows == [] and again.threads == 0  # nothing after event 5
    assert "/series/7/mbox/" not in server.requests
    with Store.open(db, readonly=True) as check:
        assert sorted(check.dump()["messages"]) == ["pw1@x", "pw2@x"]
        cursor = check.get_cursor("patchwork:netdevbpf")
    assert json.loads(cursor) == {"since": "2024-09-02T10:03:00", "seen": [5]}


def test_link_header() -> None:
    assert _next_link('<https://p/a?page=2>; rel="next", <https://p/a?page=9>; rel="last"') == \
        "https://p/a?page=2"
    assert _next_link('<https://p/a?page=1>; rel="prev"') is None
    assert _next_link("") is None


@pytest.mark.parametrize("mbox", ["http://169.254.169.254/latest/meta-data/", "http://[::1/x",
                                  "file:///etc/passwd", "{base}/series/\x00/mbox/", "https:{rest}"])
def test_links_off_the_site_are_not_followed(db, server: Server, tmp_path: Path, mbox: str) -> None:
    # (the last: Patchwork's own host, but not its scheme)
    rest = server.base.removeprefix("http:") + "/series/7/mbox/"
    server.events[2]["payload"]["series"]["mbox"] = mbox.format(base=server.base, rest=rest)
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        result = sync_patchwork(store, feed, client, Limits(), since=datetime(2024, 9, 1))
    # that mbox is reported and skipped; the feed goes on with the other events
    assert result.error is None and result.checks == 1
    assert any("not followed" in p.reason for p in result.problems)
    assert len(result.new_rows) == 2  # the patch's mbox, and the series' from event 4


def test_ids_past_what_sqlite_holds_are_not_ids(db, server: Server, tmp_path: Path) -> None:
    """A JSON integer may be any size: a patch id of 2**63 made every sync overflow SQLite's
    INTEGER, on every run (found in review). Such an id is no id; the event goes on."""
    server.events[0]["payload"]["patch"]["id"] = 2**63
    server.events[2]["payload"]["series"]["id"] = 10**30
    server.events.append({**server.events[-1], "id": 2**64})  # no event at all
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        result = sync_patchwork(store, feed, client, Limits(), since=datetime(2024, 9, 1))
    assert result.error is None and len(result.new_rows) == 2 and not result.problems


def _later_events(server: Server, first_id: int) -> None:
    """Events 11 and 12, after the first run, each with a new patch's mbox."""
    for n, eid in enumerate((first_id, first_id + 1)):
        server.events.append(
            {"id": eid, "category": "patch-created", "date": f"2024-09-03T10:0{n}:00",
             "payload": {"patch": {"id": 20 + n, "msgid": f"<late{n}@x>",
                                   "mbox": f"{server.base}/patch/11/mbox/"}}})


def test_a_huge_event_id_hides_no_later_event(db, server: Server) -> None:
    """Issue 22, item 5: an event with id 2**63 - 1 became the cursor's largest id, and
    events 11 and 12 after it were never fetched, in that run and every later one."""
    server.events.append({"id": 2**63 - 1, "category": "cover-created",
                          "date": "2024-09-02T10:04:00", "payload": {}})
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        sync_patchwork(store, feed, client, Limits(), since=datetime(2024, 9, 1))
        _later_events(server, 11)
        server.requests.clear()
        again = sync_patchwork(store, feed, client, Limits())
        assert again.error is None and again.threads == 1  # event 11's mbox (12's is the same)
        assert json.loads(store.get_cursor(feed.key)) == {"since": "2024-09-03T10:01:00",
                                                          "seen": [12]}


@pytest.mark.parametrize("bad", ["9" * 100_000, "2024-13-45T99:99:99", "2999-01-01T00:00:00",
                                 "2024-09-02T10:05:00Z; DROP", "yesterday"])
def test_an_event_with_a_bad_date_is_one_line_and_moves_no_cursor(db, server: Server,
                                                                  bad: str) -> None:
    """Issue 22, item 6: an event dated with 100,000 characters became the cursor's `since`,
    and every later sync failed "URL too long". A bad event is one line; the feed goes on."""
    server.events.append({"id": 6, "category": "cover-created", "date": bad, "payload": {}})
    server.events.sort(key=lambda e: str(e["date"]))  # (the fake serves from `since` on)
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        result = sync_patchwork(store, feed, client, Limits(), since=datetime(2024, 9, 1))
        assert result.error is None and len(result.problems) == 1
        line = str(result.problems[0])
        assert "event 6" in line and "\n" not in line and len(line) < 200
        assert json.loads(store.get_cursor(feed.key))["since"] == "2024-09-02T10:03:00"
        _later_events(server, 11)
        again = sync_patchwork(store, feed, client, Limits())
        assert again.error is None and again.threads == 1


def test_a_cursor_written_before_keeps_working(db, server: Server) -> None:
    """A cursor of an older patchperf (`last_id`) still skips the events it handled."""
    feed = parse_feed("patchwork:netdevbpf", {"PATCHPERF_PATCHWORK_URL": server.base})
    with Store.open(db) as store, PoliteClient() as client:
        store.set_cursor(feed.key, json.dumps({"since": "2024-09-02T10:02:00", "last_id": 4}))
        result = sync_patchwork(store, feed, client, Limits())
    assert result.error is None and result.threads == 0  # events 3 and 4 were handled
