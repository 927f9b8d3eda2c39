"""lore.kernel.org (public-inbox) over HTTP: one message (`/raw`), a thread (`t.mbox.gz`),
and what arrived since a time (`new.atom?t=`), for any public-inbox mirror's base URL.

Their shapes (docs/sources.md): `/raw` is mboxrd; `t.mbox.gz` is gzip'd mboxrd with no
Content-Encoding, possibly several gzip members, unknown ids answer 404; `new.atom?t=T-`
lists the 25 received right after T, oldest first, but when fewer exist it silently gives
the newest 25 instead, so entries are deduplicated by Message-ID and only those received
after T are new.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, unquote, urlencode, urlsplit

from analyze.errors import BadInput, LimitExceeded
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .gz import open_gunzip
from .http import NotFound, PoliteClient
from .mboxrd import iter_mboxrd
from .raw import RawMail

# public-inbox leaves these unescaped in a Message-ID's path segment (`/` becomes %2F)
_SAFE = "-._~!$&'()*+,;=:@"
_ATOM = "{http://www.w3.org/2005/Atom}"


@dataclass(frozen=True, slots=True)
class AtomEntry:
    message_id: str
    received: datetime  # the entry's <updated>: lore's received time
    title: str


class Lore:
    def __init__(self, client: PoliteClient, base_url: str, inbox: str,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.client = client
        self.base = base_url.rstrip("/")
        self.inbox = inbox
        self.limits = limits

    def message_url(self, message_id: str) -> str:
        mid = message_id.strip().removeprefix("<").removesuffix(">")
        return f"{self.base}/{self.inbox}/{quote(mid, safe=_SAFE)}/"

    def raw(self, message_id: str) -> list[RawMail | Problem]:
        """The message(s) stored under this Message-ID."""
        url = self.message_url(message_id) + "raw"
        body = self.client.get(url, max_body=self.limits.message_bytes).body
        return list(iter_mboxrd(io.BytesIO(body), url, self.limits))

    def thread(self, message_id: str) -> list[RawMail | Problem]:
        """The whole thread the message is in, from `t.mbox.gz`."""
        url = self.message_url(message_id) + "t.mbox.gz"
        response = self.client.get(url)
        try:
            return self._mails(url, response.body, response.headers)
        except BadInput:
            self.client.forget(url)  # a rejected body is not kept to be served again
            raise

    def _mails(self, url: str, body: bytes, headers: Mapping[str, str]) -> list[RawMail | Problem]:
        _expect_gzip(url, body, headers)
        stream = open_gunzip(io.BytesIO(body), url, self.limits.decompressed_bytes)
        try:
            return list(iter_mboxrd(stream, url, self.limits))
        except LimitExceeded:
            raise  # (it names the URL and the limit)
        except BadInput as exc:  # a truncated or corrupt gzip: the file's fault, said once
            raise BadInput(f"{url}: {exc}") from None

    def search(self, query: str, whole_threads: bool = False) -> list[RawMail | Problem]:
        """The messages a public-inbox search finds (`POST ?q=QUERY&x=m`: gzip'd mboxrd;
        `x=full` in the body brings their whole threads). No results: an empty list."""
        url = f"{self.base}/{self.inbox}/?{urlencode({'q': query, 'x': 'm'})}"
        try:
            response = self.client.post(url, {"x": "full"} if whole_threads else {})
        except NotFound:
            return []  # "No results found"
        return self._mails(url, response.body, response.headers)

    def new_since(self, after: datetime | None, read_at: frozenset[str] = frozenset()
                  ) -> list[AtomEntry]:
        """Entries received after `after` (the newest page when None), oldest first. The
        feed's times are to the second: the query starts a second early, and entries of
        that very second are new unless `read_at` (the ids already read at `after`) has them."""
        url = f"{self.base}/{self.inbox}/new.atom"
        if after is not None:
            start = max(after, _EARLIEST + timedelta(seconds=1))  # (a cursor stored before the check)
            url += "?t=" + (start - timedelta(seconds=1)).astimezone(UTC).strftime("%Y%m%d%H%M%S") + "-"
        try:
            entries = parse_atom(self.client.get(url, conditional=after is None).body, url,
                                 self.inbox)
        except BadInput:
            self.client.forget(url)
            raise
        seen: set[str] = set()
        fresh = []
        for entry in sorted(entries, key=lambda e: e.received):
            if entry.message_id in seen:
                continue
            if after is not None and (entry.received < after or (
                    entry.received == after and entry.message_id in read_at)):
                continue  # the fall-back to the newest 25 repeats what we have
            seen.add(entry.message_id)
            fresh.append(entry)
        return fresh


# Times an archive can have received a message at: after the list began, and not later
# than a day past this machine's clock.
_EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
_CLOCK_SKEW = timedelta(days=1)


def parse_atom(body: bytes, origin: str, inbox: str = "") -> list[AtomEntry]:
    """The entries of a public-inbox Atom feed: Message-ID from each entry's link."""
    from lxml import etree

    try:
        root = etree.fromstring(body, parser=etree.XMLParser(resolve_entities=False,
                                                             no_network=True, huge_tree=False))
    except etree.XMLSyntaxError as exc:
        raise BadInput(f"{origin}: not an Atom feed ({exc})") from None
    out = []
    for entry in root.iter(f"{_ATOM}entry"):
        link = entry.find(f"{_ATOM}link")
        updated = entry.findtext(f"{_ATOM}updated") or ""
        mid = _message_id_of(link.get("href", "") if link is not None else "", inbox)
        try:
            received = datetime.fromisoformat(updated.replace("Z", "+00:00"))
            if received.tzinfo is None:
                received = received.replace(tzinfo=UTC)  # public-inbox writes UTC
            received = received.astimezone(UTC)
        except (ValueError, OverflowError):
            continue  # an entry without a usable time cannot be placed: skipped
        if not _EARLIEST <= received <= datetime.now(UTC) + _CLOCK_SKEW:
            # the feed's time becomes the cursor: year 1 made the next query overflow, and
            # year 9999 would have skipped every later message, silently
            continue
        if mid:
            out.append(AtomEntry(mid, received, entry.findtext(f"{_ATOM}title") or ""))
    return out


def _message_id_of(href: str, inbox: str = "") -> str:
    """`https://lore.kernel.org/netdev/20240101.123-1-a@b.c/` → `20240101.123-1-a@b.c`: the
    segment after the list's name (a mirror may serve lists under a sub-path); "" for a
    malformed link (`http://[`: urllib raises), whose entry is then skipped."""
    try:
        parts = [p for p in urlsplit(href).path.split("/") if p]
    except ValueError:
        return ""
    if inbox in parts and parts.index(inbox) + 1 < len(parts):
        return unquote(parts[parts.index(inbox) + 1])
    return unquote(parts[-1]) if parts else ""


def _expect_gzip(url: str, body: bytes, headers: Mapping[str, str]) -> None:
    """A proxy's error page or a changed site answers with HTML where gzip'd mail was asked
    for: say so, rather than "incorrect header check"."""
    if body and not body.startswith(b"\x1f\x8b"):
        kind = headers.get("content-type", "no content type").split(";")[0]
        raise BadInput(f"{url}: not a gzip'd mbox (the server sent {len(body):,} bytes of {kind})")


def thread_items(lore: Lore, entries: list[AtomEntry]) -> Iterator[RawMail | Problem]:
    """Each new entry's thread, each thread once: an entry whose message came in a thread
    already fetched (a reply on the same page as its parent) costs no request."""
    from .identity import identify

    have: set[str] = set()
    for entry in entries:
        if entry.message_id in have:
            continue
        try:
            thread = lore.thread(entry.message_id)
        except (NotFound, BadInput) as exc:
            # this message's trouble (gone, too big, a broken gzip), not the feed's: reported,
            # and the feed goes on (transport errors, 5xx and the bot wall stop it)
            yield Problem(lore.message_url(entry.message_id), str(exc))
            have.add(entry.message_id)
            continue
        for item in thread:
            if isinstance(item, RawMail):
                mid = identify(item.data).message_id
                if mid:
                    have.add(mid.strip("<>"))
            yield item
        have.add(entry.message_id)


def thread_of_url(url: str, client: PoliteClient, limits: Limits = DEFAULT_LIMITS
                  ) -> list[RawMail | Problem]:
    """`patchperf ingest https://lore.kernel.org/netdev/<mid>/`: the message's whole thread
    (any page of it: the message, `raw`, `T/`, `t.mbox.gz`), on that URL's own site."""
    parts = urlsplit(url)
    segments = [p for p in parts.path.split("/") if p]
    if parts.scheme not in ("http", "https") or len(segments) < 2:
        raise BadInput(f"{url}: not a lore message URL (https://HOST/LIST/MESSAGE-ID/)")
    lore = Lore(client, f"{parts.scheme}://{parts.netloc}", segments[0], limits)
    return lore.thread(unquote(segments[1]))
