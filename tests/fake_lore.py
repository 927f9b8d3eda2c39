"""A public-inbox shaped inbox served by pytest-httpserver: `new.atom` by received time with
lore's silent fall-back to the newest 25, and `t.mbox.gz` per thread (tests/test_sync.py,
tests/test_sync_kill.py)."""

from __future__ import annotations

import gzip
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from werkzeug import Request, Response

BASE = datetime(2024, 9, 2, 10, 0, tzinfo=UTC)


@dataclass
class Archive:
    """An inbox: messages with their received time and thread root."""

    messages: list[tuple[str, datetime, str, bytes]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    missing: set[str] = field(default_factory=set)  # threads answering 404
    delay: float = 0.0  # seconds each thread takes to serve, as over a network
    page: int = 25  # entries per Atom page (lore's 25; a hostile mirror's thousands)

    def add(self, mid: str, minutes: int, root: str | None = None, body: str = "A body.\n") -> None:
        raw = (f"From: Ana Lopes <ana@example.org>\nSubject: [PATCH net] thing {mid}\n"
               f"Date: Mon, 02 Sep 2024 10:00:00 +0000\nMessage-ID: <{mid}>\n"
               + (f"In-Reply-To: <{root}>\n" if root else "") + "\n" + body).encode()
        self.messages.append((mid, BASE + timedelta(minutes=minutes), root or mid, raw))

    def handle(self, request: Request) -> Response:
        query = request.query_string.decode()
        self.requests.append(request.path + (f"?{query}" if query else ""))
        path = request.path
        if path == "/netdev/new.atom":
            return Response(self._atom(request.args.get("t")), content_type="application/atom+xml")
        m = re.fullmatch(r"/netdev/(.+)/t\.mbox\.gz", path)
        if m:
            time.sleep(self.delay)
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
        newest = list(reversed(ordered))[:self.page]
        page = newest
        if t:
            after = datetime.strptime(t.rstrip("-"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            later = [m for m in ordered if m[1] > after][:self.page]
            page = later if len(later) == self.page else newest  # lore's silent fall-back
        entries = "".join(
            f"<entry><title>{mid}</title><updated>{when.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>"
            f"<link href=\"http://x/netdev/{mid}/\"/><id>urn:uuid:{mid}</id></entry>"
            for mid, when, _, _ in page)
        return (f'<feed xmlns="http://www.w3.org/2005/Atom"><title>netdev</title>{entries}'
                "</feed>").encode()


