"""Patchwork's REST API (patchwork.kernel.org, project `netdevbpf`): its events are the
cursor (docs/sources.md; netdev's own bot does the same; `since=` on series misses misdated mail).

`/api/1.3/events/?project=P&since=T` answers a bare JSON array, oldest first, with the next
page in the `Link` header. A `series-completed` event brings its series' mbox; a
`patch-created` event brings the patch's mbox (a series still arriving); `check-created`
events carry CI results, counted here. Events are deduplicated by id: `since` is inclusive,
so the last page of a run comes back at the start of the next.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from analyze.errors import BadInput
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .http import PoliteClient, url_problem
from .mboxrd import iter_mboxrd
from .raw import RawMail

MAX_PAGES = 1000  # a run's pages of events: 100,000 events, years of netdev


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    category: str
    date: str  # naive UTC, as Patchwork writes it
    mbox: str | None  # the series' or the patch's mbox URL
    msgid: str | None = None  # the patch's Message-ID, when the event names a patch
    patch_id: int | None = None
    series_id: int | None = None
    check: dict[str, str] | None = None  # state, context, target_url of a check


class Patchwork:
    def __init__(self, client: PoliteClient, base_url: str, project: str,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.client = client
        self.base = base_url.rstrip("/")
        self.project = project
        self.limits = limits

    def events(self, since: str | None) -> Iterator[Event]:
        """Events from `since` (inclusive), following the `Link: rel="next"` pages."""
        query = {"project": self.project, "per_page": "100", "order": "date"}
        if since:
            query["since"] = since
        url: str | None = f"{self.base}/api/1.3/events/?{urlencode(query)}"
        pages = 0
        while url and pages < MAX_PAGES:
            response = self.client.get(url, max_body=self.limits.page_bytes, conditional=False)
            yield from parse_events(response.body, url)
            url = _next_link(response.headers.get("link", ""))
            if url and not self._on_host(url):
                raise BadInput(f"{url[:200]}: a next page off {urlsplit(self.base).netloc}: not followed")
            pages += 1

    def mbox(self, url: str) -> list[RawMail | Problem]:
        """An mbox the events point to, on Patchwork's own host only: a URL taken from a
        response is never followed elsewhere."""
        if not self._on_host(url):
            raise BadInput(f"{url[:200]}: an mbox link off {urlsplit(self.base).netloc}: not followed")
        body = self.client.get(url, conditional=False).body
        return list(iter_mboxrd(io.BytesIO(body), url, self.limits))

    def _on_host(self, url: str) -> bool:
        """A usable URL on Patchwork's own host and scheme (an https API's links are not
        followed over http); a malformed one (`http://[::1`, a NUL) is not."""
        if url_problem(url) is not None:
            return False
        here, there = urlsplit(self.base), urlsplit(url)
        return (here.scheme, here.netloc) == (there.scheme, there.netloc)


def parse_events(body: bytes, url: str) -> list[Event]:
    """A page of `/api/1.3/events/`: a JSON array of events; items that are not events
    (no integer id) are skipped, anything not an array is BadInput."""
    try:
        items = json.loads(body)
    except (ValueError, RecursionError):  # `[[[[...` 100,000 deep: the server's fault
        raise BadInput(f"{url}: not JSON") from None
    if not isinstance(items, list):
        raise BadInput(f"{url}: not a list of events")
    return [event for item in items if (event := _event(item)) is not None]


def _row_id(value: Any) -> int | None:
    """An id as SQLite can keep it (a JSON integer may be any size: 2**63 overflowed)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63 else None


def _event(item: Any) -> Event | None:
    if not isinstance(item, dict) or _row_id(item.get("id")) is None:
        return None
    found = item.get("payload")
    payload: dict[str, Any] = found if isinstance(found, dict) else {}
    mbox = None
    def part(name: str) -> dict[str, Any]:
        found = payload.get(name)
        return found if isinstance(found, dict) else {}

    patch, series = part("patch"), part("series")
    check = part("check") or None
    for source in (series, patch):  # a series' mbox holds all its patches
        if isinstance(source.get("mbox"), str):
            mbox = source["mbox"]
            break
    msgid = patch.get("msgid") if isinstance(patch.get("msgid"), str) else None
    return Event(
        item["id"], str(item.get("category", "")), str(item.get("date", "")), mbox,
        msgid.strip().strip("<>")[:998] if msgid else None,
        _row_id(patch.get("id")),
        _row_id(series.get("id")),
        {k: str(check.get(k, ""))[:500] for k in ("state", "context", "target_url")} if check else None,
    )


def _next_link(header: str) -> str | None:
    """The `rel="next"` URL of a Link header (RFC 8288), if any."""
    for part in header.split(","):
        pieces = part.split(";")
        url = pieces[0].strip()
        if url.startswith("<") and url.endswith(">") and any(
                p.strip().replace(" ", "") in ('rel="next"', "rel=next") for p in pieces[1:]):
            return url[1:-1]
    return None
