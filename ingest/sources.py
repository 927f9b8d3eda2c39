"""Every source `patchperf ingest` takes, read into raw mail: local files and folders
(local.py), lore message URLs (each brings its whole thread), openwall message URLs, and a lore
list's search."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem

from .local import read_sources
from .raw import RawMail


def search_lore(feed_spec: str, query: str, limits: Limits = DEFAULT_LIMITS,
                whole_threads: bool = False,
                environ: Mapping[str, str] | None = None) -> list[RawMail | Problem]:
    """`patchperf ingest lore:LIST --query Q`: what the list's search finds, on the lore base
    URL `environ` gives (docs/sync.md: the config file's, overridden by the variable)."""
    from .feeds import parse_feed
    from .http import PoliteClient
    from .lore import Lore

    feed = parse_feed(feed_spec, environ)
    if feed.kind != "lore":
        from analyze.errors import UsageError

        raise UsageError(f"--query searches a lore list (lore:LIST), not {feed_spec!r}")
    with PoliteClient() as client:
        return Lore(client, feed.base_url, feed.name, limits).search(query, whole_threads)


def read_any(sources: Iterable[str | Path], limits: Limits = DEFAULT_LIMITS
             ) -> Iterator[RawMail | Problem]:
    """Local sources as `read_sources` reads them; an http(s) URL is a lore message whose
    thread is fetched (one polite client for all of them). A URL that fails is a Problem
    naming it; the other sources go on."""
    sources = list(sources)
    urls = [str(s) for s in sources if str(s).startswith(("http://", "https://"))]
    yield from read_sources([s for s in sources if str(s) not in urls], limits)
    if not urls:
        return
    from analyze.errors import PatchperfError

    from .http import PoliteClient
    from .lore import thread_of_url

    with PoliteClient() as client:
        for url in urls:
            try:
                if _OPENWALL_MESSAGE.search(url):
                    yield _openwall_message(url, client, limits)
                else:
                    yield from thread_of_url(url, client, limits)
            except PatchperfError as exc:
                yield Problem(url, str(exc).removeprefix(f"{url}: "))


# an openwall message page: /LIST/YYYY/MM/DD/N
_OPENWALL_MESSAGE = re.compile(r"^https?://[^/]+/([\w.-]+)/(\d{4})/(\d{2})/(\d{2})/(\d{1,6})/?$")


def _openwall_message(url: str, client: Any, limits: Limits) -> RawMail:
    from datetime import date

    from .openwall import Openwall

    m = _OPENWALL_MESSAGE.search(url)
    assert m is not None
    base = url[: m.start(1) - 1]
    try:
        day = date(int(m.group(2)), int(m.group(3)), int(m.group(4)))
    except ValueError:
        from analyze.errors import BadInput

        raise BadInput(f"{url}: not a date in an openwall URL") from None
    return Openwall(client, base, m.group(1), limits).message(day, int(m.group(5)))
