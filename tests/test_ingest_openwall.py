"""openwall month/day/message pages against a local server (issue 5, acceptance 1): hidden
addresses, attachments fetched by their links, the cursor per day, days re-read as they grow."""

from __future__ import annotations

import email
import re
from datetime import date
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from analyze.limits import Limits
from corpus.jobs.sync import sync_openwall
from corpus.store import Store
from ingest.feeds import parse_feed
from ingest.http import PoliteClient

TEMPLATE = """<html><head><title>netdev - {subject}</title></head><body>
<div class="banner">lists.openwall.net ... ads ...</div>
<a href="../../../../">[&lt;prev]</a> [next&gt;] [day] [month] [year] [list]
<pre style="white-space: pre-wrap">
Message-ID: &lt;{mid}&#64;example.org&gt;
Date: Mon, 19 Apr 2024 10:0{n}:00 +0200
From: Dave Miller &lt;davem@...emloft.net&gt;
To: netdev@...r.kernel.org
Subject: {subject}

Body of message {n}.
With 8 queues this goes from 5.1 Mpps to 7.3 Mpps.
</pre>
{attachments}
<p>Powered by blists - more mailing lists</p></body></html>"""


class Site:
    def __init__(self) -> None:
        self.days: dict[date, list[int]] = {date(2024, 4, 18): [1], date(2024, 4, 19): [1, 2]}
        self.requests: list[str] = []

    def handle(self, request: Request) -> Response:
        self.requests.append(request.path)
        parts = [p for p in request.path.split("/") if p]  # netdev YYYY MM [DD [N [A]]]
        if len(parts) == 3:
            year, month = int(parts[1]), int(parts[2])
            links = "".join(f'<b>April {d.day}</b> (<a href="{d.day:02d}/">{len(ns)} messages</a>)<br>'
                            for d, ns in sorted(self.days.items()) if (d.year, d.month) == (year, month))
            return Response(f"<html><body>{links}</body></html>", content_type="text/html")
        day = date(int(parts[1]), int(parts[2]), int(parts[3]))
        if len(parts) == 4:
            items = "".join(f'<li><a href="{n}">Subject {n} (Dave)</a>' for n in self.days.get(day, []))
            return Response(f"<html><h2>netdev mailing list - {day:%Y/%m/%d}</h2><ul>{items}</ul></html>",
                            content_type="text/html")
        n = int(parts[4])
        if len(parts) == 6:
            return Response(b"perf.data\x00\x01 binary", content_type="application/octet-stream")
        attachments = ('<a href="2/1">View attachment "perf.txt"</a> '
                       '<a href="2/1">Download attachment "perf.txt"</a> '
                       # a link off the message, and off the site: never followed
                       '<a href="http://127.0.0.2:9/x">Download attachment "../../evil"</a>'
                       ) if n == 2 else ""
        subject = f"[PATCH net] thing {day.day}-{n}" + (" — café ✓" if n == 2 else "")
        page = TEMPLATE.format(subject=subject, mid=f"ow{day.day}-{n}",
                               n=n, attachments=attachments)
        return Response(page, content_type="text/html; charset=utf-8")


@pytest.fixture
def site(httpserver: HTTPServer) -> Site:
    found = Site()
    httpserver.expect_request(re.compile(".*")).respond_with_handler(found.handle)
    return found


def stored(db: str) -> dict[str, bytes]:
    with Store.open(db, readonly=True) as store:
        return {key: store.get_raw(key) or b"" for key in store.dump()["messages"]}


def test_days_messages_and_attachments(db, site: Site, httpserver: HTTPServer, tmp_path: Path) -> None:
    feed = parse_feed("openwall:netdev", {"PATCHPERF_OPENWALL_URL": httpserver.url_for("/")})
    with Store.open(db) as store, PoliteClient() as client:
        first = sync_openwall(store, feed, client, Limits(), today=date(2024, 4, 19))
        assert first.error is None and len(first.new_rows) == 2  # a first run: today
        assert set(stored(db)) == {"ow19-1@example.org", "ow19-2@example.org"}
        # the next run reads yesterday too (a day grows after it was read), today's new only
        again = sync_openwall(store, feed, client, Limits(), today=date(2024, 4, 19))
        assert len(again.new_rows) == 1 and again.duplicates == 0
    raws = stored(db)
    assert set(raws) == {"ow18-1@example.org", "ow19-1@example.org", "ow19-2@example.org"}
    mail = email.message_from_bytes(raws["ow19-2@example.org"])
    assert mail.get_content_type() == "multipart/mixed"
    (attachment,) = [p for p in mail.walk() if p.get_filename()]
    assert attachment.get_filename() == "perf.txt"
    assert attachment.get_payload(decode=True) == b"perf.data\x00\x01 binary"
    assert "davem@...emloft.net" in mail["From"]  # shortened by the archive, kept as shown
    # a non-ASCII subject beside an attachment: kept as the page shows it (UTF-8)
    from analyze.mail.message import parse_message
    assert "café ✓" in parse_message(raws["ow19-2@example.org"]).subject.raw
    assert again.error is None


def test_attachments_count_against_the_message_limit(site: Site, httpserver: HTTPServer,
                                                    tmp_path: Path) -> None:
    """The message rebuilt from a page and its attachments is bounded like a mail: 20
    attachments of 64 MiB each were fetched and joined before any check (found in review)."""
    from analyze.errors import LimitExceeded
    from ingest.openwall import Openwall

    base = httpserver.url_for("/").rstrip("/")
    with PoliteClient() as client:
        page_only = len(Openwall(client, base, "netdev", Limits()).message(date(2024, 4, 19), 1).data)
        tight = Openwall(client, base, "netdev", Limits(message_bytes=page_only))  # no room left
        with pytest.raises(LimitExceeded, match=f"with its attachments exceeds the limit of {page_only:,}"):
            tight.message(date(2024, 4, 19), 2)  # its page and a 19-byte attachment
        roomy = Openwall(client, base, "netdev", Limits(message_bytes=page_only + 1_000))
        assert b"perf.txt" in roomy.message(date(2024, 4, 19), 2).data


def test_a_day_that_grows_is_read_again(db, site: Site, httpserver: HTTPServer, tmp_path: Path) -> None:
    feed = parse_feed("openwall:netdev", {"PATCHPERF_OPENWALL_URL": httpserver.url_for("/")})
    from datetime import datetime
    with Store.open(db) as store, PoliteClient() as client:
        sync_openwall(store, feed, client, Limits(), since=datetime(2024, 4, 18),
                      today=date(2024, 4, 19))
        assert len(stored(db)) == 3
        site.days[date(2024, 4, 18)].append(2)  # a late delivery, numbered on yesterday
        site.days[date(2024, 4, 20)] = [1]
        site.requests.clear()
        later = sync_openwall(store, feed, client, Limits(), today=date(2024, 4, 20))
    assert later.error is None and len(later.new_rows) == 2
    assert set(stored(db)) >= {"ow18-2@example.org", "ow20-1@example.org"}
    # only the new pages were fetched: 18/2 and 20/1, no message read twice
    messages = [p for p in site.requests if re.fullmatch(r"/netdev/\d+/\d+/\d+/\d+", p)]
    assert sorted(messages) == ["/netdev/2024/04/18/2", "/netdev/2024/04/20/1"]


def test_ingest_one_openwall_message_url(db, cli, site: Site, httpserver: HTTPServer,
                                         tmp_path: Path) -> None:
    result = cli("ingest", httpserver.url_for("/netdev/2024/04/19/2"), "--db", db)
    assert result.code == 0 and "1 new" in result.out, result.err
    assert set(stored(db)) == {"ow19-2@example.org"}
    bad = cli("ingest", httpserver.url_for("/netdev/2024/13/40/2"), "--db", db)
    assert bad.code == 2 and "not a date" in bad.err


def test_feeds_from_the_config_file(db, cli, site: Site, httpserver: HTTPServer, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'feeds = ["openwall:netdev"]\n[urls]\nopenwall = "{httpserver.url_for("/")}"\n')
    monkeypatch.setenv("PATCHPERF_CONFIG", str(config))
    monkeypatch.delenv("PATCHPERF_OPENWALL_URL", raising=False)
    result = cli("sync", "--db", db)
    assert result.code == 0, result.err
    assert result.out.startswith("openwall:netdev:")
    config.write_text("feeds = 3\n")
    broken = cli("sync", "--db", db)
    assert broken.code == 2 and "config.toml" in broken.err and "feeds" in broken.err
