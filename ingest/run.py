"""`patchperf ingest`: read sources, store what is new, verbatim; and `patchperf analyze
PATH...`: read sources and analyze them in memory.

Interpreting stored mail is analysis's job (corpus.refresh); storing reads only whether the
bytes are a mail and their Message-ID, to store each mail once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Analysis, Problem
from analyze.pipeline import analyze_messages, parse_all
from corpus.store import Store, StoredRaw

from .identity import identify
from .local import read_sources
from .raw import RawMail


@dataclass
class IngestResult:
    new_rows: list[int] = field(default_factory=list)
    duplicates: int = 0
    variants: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def stored(self) -> int:
        return len(self.new_rows)

    @property
    def read(self) -> int:
        return self.stored + self.duplicates + self.variants


def store_mails(
    store: Store,
    items: Iterable[RawMail | Problem],
    progress: Callable[[int], None] | None = None,
) -> IngestResult:
    """Store each mail once; Problems are collected, the rest of the batch goes on."""
    result = IngestResult()
    with store.batch():
        for _ in storing(store, items, result, progress):
            pass
    return result


def storing(
    store: Store,
    items: Iterable[RawMail | Problem],
    result: IngestResult,
    progress: Callable[[int], None] | None = None,
) -> Iterator[StoredRaw]:
    """`store_mails` as a stream: each mail stored once, counted in `result`, and each new
    one yielded as it is stored, so a backfill's analysis runs on the first mail while the
    rest is still being read and stored (`analyze_rows(arriving=...)`). Call it inside
    `store.batch()`."""
    for item in items:
        if isinstance(item, Problem):
            result.problems.append(item)
            continue
        identity = identify(item.data)
        if not identity.is_mail:
            result.problems.append(
                Problem(item.origin, "not a mail: no From, Subject, Date or Message-ID header")
            )
            continue
        added = store.add_raw(
            item.data, message_id=identity.message_id, fmt=item.fmt, origin=item.origin
        )
        if added.status == "new":
            result.new_rows.append(added.row)
            yield StoredRaw(added.row, item.data, item.origin, item.fmt)
        elif added.status == "variant":
            result.variants += 1
        else:
            result.duplicates += 1
        if progress:
            progress(1)


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
) -> IngestResult:
    """Files, folders, and lore message URLs (each brings its whole thread)."""
    return store_mails(store, read_any(paths, limits), progress)


def search_lore(feed_spec: str, query: str, limits: Limits = DEFAULT_LIMITS,
                whole_threads: bool = False) -> list[RawMail | Problem]:
    """`patchperf ingest lore:LIST --query Q`: what the list's search finds."""
    from .http import PoliteClient
    from .lore import Lore
    from .sync import parse_feed

    feed = parse_feed(feed_spec)
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


def analyze_files(paths: Iterable[str | Path], limits: Limits = DEFAULT_LIMITS) -> Analysis:
    """`patchperf analyze PATH...`: read and analyze in memory; the store is not touched.
    Inputs that could not be read are the Analysis's problems."""
    read_problems: list[Problem] = []

    def mails() -> Iterator[tuple[bytes, str]]:
        for item in read_sources(paths, limits):
            if isinstance(item, Problem):
                read_problems.append(item)
            else:
                yield item.data, item.origin

    messages, parse_problems = parse_all(mails(), limits)
    return analyze_messages(messages, read_problems + parse_problems, limits)
