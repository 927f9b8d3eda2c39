"""lists.openwall.net: month → day → message pages (docs/sources.md), each message rebuilt from
its page (headers in the page's fixed order, the body, attachments fetched by their links).

Day and N are delivery order, not the Date header, so a day can grow after it was read: the
cursor keeps the last N read for the last two days read, and every run lists those days
again and reads only their new N. Openwall pages carry no In-Reply-To; the store joins them
to lore's copies by Message-ID.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any
from urllib.parse import urljoin

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .http import NotFound, PoliteClient
from .page_html import html_soup, parse_openwall_html
from .page_text import PageMail
from .pages import render_mail
from .raw import RawMail

_DAY_LINK = re.compile(r"(\d{1,2})/")
_MESSAGE_LINK = re.compile(r"\d{1,6}")
_ATTACHMENT = re.compile(r'(?:View|Download) attachment "([^"]*)"')
MAX_ATTACHMENTS = 20


class Openwall:
    def __init__(self, client: PoliteClient, base_url: str, name: str,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.client = client
        self.base = base_url.rstrip("/")
        self.name = name
        self.limits = limits

    def _page(self, url: str) -> bytes:
        return self.client.get(url, max_body=self.limits.page_bytes).body

    def days(self, year: int, month: int) -> list[int]:
        """The days of a month that have messages."""
        return month_days(self._page(f"{self.base}/{self.name}/{year:04d}/{month:02d}/"))

    def messages(self, day: date) -> list[int]:
        """The message numbers of a day, in delivery order."""
        return day_messages(self._page(self._day_url(day)))

    def message(self, day: date, n: int) -> RawMail:
        """A message rebuilt from its page, with the attachments its links lead to."""
        url = f"{self._day_url(day)}{n}"
        body = self._page(url)
        page = parse_openwall_html(body)
        links = attachment_links(body, url)
        if not links:
            return RawMail(render_mail(page), url, "openwall-html")
        return RawMail(self._with_attachments(page, links[:MAX_ATTACHMENTS]), url, "openwall-html")

    def _with_attachments(self, page: PageMail, links: list[tuple[str, str]]) -> bytes:
        """The page's text as the first part of a multipart/mixed message, each attachment
        (bounded like a message) after it. Headers are written as the page shows them
        (the text part is rebuilt by render_mail, so they need no parsing here)."""
        text = render_mail(PageMail(page.headers, page.body, ()))
        head, _, body = text.partition(b"\n\n")
        boundary = "patchperf-" + hashlib.sha256(text).hexdigest()[:24]
        kept = [line for line in head.split(b"\n") if not line.lower().startswith(
            (b"mime-version:", b"content-type:", b"content-transfer-encoding:"))]
        parts = [b"\n".join(kept), b"MIME-Version: 1.0",
                 f'Content-Type: multipart/mixed; boundary="{boundary}"'.encode(), b"",
                 f"--{boundary}".encode(),
                 b"Content-Type: text/plain; charset=utf-8", b"Content-Transfer-Encoding: 8bit", b"",
                 body]
        size = len(text)
        for name, link in links:
            # the message being rebuilt is bounded like any: each attachment may take only
            # what the ones before it left (base64 writes 4 bytes for 3)
            room = (self.limits.message_bytes - size) * 3 // 4
            try:
                if room <= 0:
                    raise LimitExceeded("message", self.limits.message_bytes)
                data = self.client.get(link, max_body=room).body
            except LimitExceeded:
                raise LimitExceeded("message with its attachments", self.limits.message_bytes) from None
            size += len(data) * 4 // 3 + 200
            safe = re.sub(r"[^\w.+-]", "_", name)[:100].lstrip(".") or "attachment"  # never a path
            encoded = base64.encodebytes(data)
            parts += [f"--{boundary}".encode(), b"Content-Type: application/octet-stream",
                      b"Content-Transfer-Encoding: base64",
                      f'Content-Disposition: attachment; filename="{safe}"'.encode(), b"",
                      encoded.rstrip(b"\n")]
        parts += [f"--{boundary}--".encode(), b""]
        return b"\n".join(parts)

    def _day_url(self, day: date) -> str:
        return f"{self.base}/{self.name}/{day.year:04d}/{day.month:02d}/{day.day:02d}/"


def _links(body: bytes) -> list[Any]:
    return html_soup(body).find_all("a", href=True)


def month_days(body: bytes) -> list[int]:
    """The days a month's index page links to (`05/`), sorted."""
    return sorted({int(m.group(1)) for a in _links(body) if (m := _DAY_LINK.fullmatch(a["href"]))})


def day_messages(body: bytes) -> list[int]:
    """The message numbers a day's index page links to (`3`), in delivery order."""
    return sorted({int(a["href"]) for a in _links(body) if _MESSAGE_LINK.fullmatch(a["href"])})


def attachment_links(body: bytes, url: str) -> list[tuple[str, str]]:
    """A message page's attachments as (name, URL): the `Download attachment "NAME"` links
    under the message's own URL, never another site's or another message's."""
    return [(m.group(1), link) for a in _links(body)
            if (m := _ATTACHMENT.search(a.get_text(" ", strip=True)))
            and a.get_text(strip=True).startswith("Download")
            and (link := _join(url, a["href"])).startswith(url + "/")]


def _join(url: str, href: str) -> str:
    """`href` read against `url`; "" when malformed (`http://[::1`), which nothing follows."""
    try:
        return urljoin(url, href)
    except ValueError:
        return ""


def read_days(openwall: Openwall, seen: dict[str, int], first: date, today: date
              ) -> Iterator[tuple[date, list[RawMail | Problem]]]:
    """Each day from `first` to `today` with its messages not yet read (`seen`: the last N
    read on a day), a day at a time so the caller commits before moving the cursor."""
    months: dict[tuple[int, int], list[int]] = {}
    day = first
    while day <= today:
        key = (day.year, day.month)
        if key not in months:
            months[key] = openwall.days(*key)
        if day.day in months[key]:
            last = seen.get(day.isoformat(), 0)
            items: list[RawMail | Problem] = []
            for n in openwall.messages(day):
                if n <= last:
                    continue
                try:
                    items.append(openwall.message(day, n))
                except (NotFound, BadInput) as exc:  # this message's trouble, not the feed's
                    items.append(Problem(f"{openwall._day_url(day)}{n}", str(exc)))
            yield day, items
        day += timedelta(days=1)


def parse_cursor(value: str | None) -> dict[str, int]:
    if not value:
        return {}
    try:
        found = json.loads(value)
    except ValueError:
        return {}
    return {k: int(v) for k, v in found.items() if isinstance(v, int)} if isinstance(found, dict) else {}


def next_cursor(seen: dict[str, int], day: date, items: list[RawMail | Problem]) -> str:
    """The last two days read, each with the last N read (from the message URLs)."""
    numbers = [int(i.origin.rsplit("/", 1)[1]) for i in items if i.origin.rsplit("/", 1)[1].isdigit()]
    seen = dict(seen)
    seen[day.isoformat()] = max([seen.get(day.isoformat(), 0), *numbers])
    kept = dict(sorted(seen.items())[-2:])
    return json.dumps(kept, sort_keys=True)
