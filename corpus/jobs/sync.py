"""`patchperf sync`: bring each feed's new mail into the store, from where it stopped, and
analyse it (the cron job, and the TUI's `r`).

A feed (ingest/feeds.py) is a lore list, an openwall list or a Patchwork project, each with a
cursor in the store; `--git` reads a list's public-inbox git epochs instead (a backfill). A
lore feed's cursor is the received time of the newest Atom entry whose thread is
committed: mail is stored a page of entries at a time, and the cursor moves only after that
page's threads are committed. A run killed anywhere leaves the cursor at or before what is
stored; the next run fetches from there and the store keeps each message once (by
Message-ID), so nothing is lost and nothing is stored twice.

One sync at a time per store: for a SQLite store, an exclusive flock on the store file
(released by the kernel when a process dies, so a killed run never leaves it held);
for a PostgreSQL store, an advisory lock in the database, held by a connection of its own.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from analyze.errors import BadInput, PatchperfError, StoreError
from analyze.limits import DEFAULT_LIMITS, Limits
from analyze.model import Problem
from corpus.connection import SYNC_LOCK, session_lock
from corpus.location import StoreLocation, resolve_store
from corpus.store import Store, StoredRaw
from ingest.feeds import Feed
from ingest.http import BudgetSpent, FetchFailed, NotFound, PoliteClient
from ingest.lore import Lore, thread_items

from .ingest import IngestResult, store_mails, storing
from .refresh import RefreshResult, analyze_rows


class SyncLocked(PatchperfError):
    """Another sync holds the store's sync lock."""


@dataclass
class FeedResult:
    feed: str
    new_rows: list[int] = field(default_factory=list)
    duplicates: int = 0
    threads: int = 0
    checks: int = 0  # Patchwork's CI results seen (kept in the store's patchwork table)
    problems: list[Problem] = field(default_factory=list)
    error: str | None = None  # the feed stopped here; its cursor is where it was committed

    def summary(self, requests: int, cached: int) -> str:
        text = (f"{self.feed}: {len(self.new_rows)} new, {self.duplicates} already stored, "
                f"{self.threads} threads fetched, {requests} requests ({cached} answered from "
                "the cache)")
        return text + (f"; stopped: {self.error}" if self.error else "")


MAX_PAGES = 10_000  # Atom pages of one run: 250,000 messages; a backfill is `--git`'s job


def sync_feed(store: Store, feed: Feed, client: PoliteClient, limits: Limits = DEFAULT_LIMITS,
              since: datetime | None = None,
              progress: Callable[[int], None] | None = None) -> FeedResult:
    result = FeedResult(feed.key)
    after, read_at = _lore_cursor(store.get_cursor(feed.key))
    after = after or since
    lore = Lore(client, feed.base_url, feed.name, limits)
    long_page = 0  # the longest page cut to `limits.feed_entries`, said once
    try:
        for _ in range(MAX_PAGES):
            left = client.requests_left()
            if left is not None and left < 2:  # not even a page and one thread
                raise BudgetSpent(f"the run's {client.max_requests:,} requests are spent")
            entries = lore.new_since(after, frozenset(read_at))
            if not entries:
                break
            # the oldest entries the page's bound and the run's requests allow (a thread a
            # request at most); the cursor moves past those only, the next page has the rest
            left = client.requests_left()
            room = min(limits.feed_entries, left if left is not None else len(entries))
            if len(entries) > limits.feed_entries:
                long_page = max(long_page, len(entries))
            if room < 1:
                raise BudgetSpent(f"the run's {client.max_requests:,} requests are spent")
            entries = entries[:room]
            # the page's threads, then the cursor: committed mail first, always
            stored = store_mails(store, thread_items(lore, entries), progress)
            result.new_rows += stored.new_rows
            result.duplicates += stored.duplicates + stored.variants
            result.problems += stored.problems
            result.threads += len({e.message_id for e in entries})
            newest = max(e.received for e in entries)
            read_at = ({e.message_id for e in entries if e.received == newest}
                       | (read_at if newest == after else set()))
            after = newest
            store.set_cursor(feed.key, json.dumps({"time": after.isoformat(),
                                                   "ids": sorted(read_at)}))
    except BudgetSpent:
        result.problems.append(_spent(feed.key, client))
    except (FetchFailed, BadInput) as exc:
        result.error = str(exc)
    if long_page:
        result.problems.append(Problem(feed.key, (
            f"a feed page listed {long_page:,} entries: read {limits.feed_entries:,} at a time "
            "(PATCHPERF_LIMIT_FEED_ENTRIES), the rest on the pages after"), skipped=True))
    if len(read_at) >= 25 and after is not None:
        # lore's feed counts time in seconds and pages by 25: past 25 in one second it
        # cannot show the rest (a bulk import; `--git` reads them all)
        result.problems.append(Problem(f"{feed.key} at {after.isoformat()}", (
            f"{len(read_at)} or more messages received in one second: the Atom feed cannot "
            "page past them; some may be missing (a --git backfill reads them all)")))
    return result


def _spent(key: str, client: PoliteClient) -> Problem:
    """The warning of a run that used all its requests: not a failure, and nothing is
    lost (the cursor is at what was committed)."""
    return Problem(key, f"stopped after the run's {client.max_requests:,} requests "
                        "(PATCHPERF_LIMIT_REQUESTS): the next run goes on from here", skipped=True)


def _lore_cursor(value: str | None) -> tuple[datetime | None, set[str]]:
    """(received time, Message-IDs read at that very second); an older cursor is the time."""
    if not value:
        return None, set()
    try:
        found = json.loads(value)
        return datetime.fromisoformat(found["time"]), set(found.get("ids", []))
    except (ValueError, TypeError, KeyError):
        try:
            return datetime.fromisoformat(value), set()
        except ValueError:
            return None, set()


def sync_openwall(store: Store, feed: Feed, client: PoliteClient,
                  limits: Limits = DEFAULT_LIMITS, since: datetime | None = None,
                  today: date | None = None,
                  progress: Callable[[int], None] | None = None) -> FeedResult:
    """Openwall's days from the cursor's (yesterday's at the latest: a day grows after it
    was read) to today, a day at a time: its new messages committed, then the cursor."""
    from ingest.openwall import Openwall, next_cursor, parse_cursor, read_days

    result = FeedResult(feed.key)
    today = today or datetime.now(UTC).date()
    seen = parse_cursor(store.get_cursor(feed.key))
    first = min([date.fromisoformat(d) for d in seen] or [since.date() if since else today])
    first = min(first, today - timedelta(days=1)) if seen else first
    site = Openwall(client, feed.base_url, feed.name, limits)
    try:
        for day, items in read_days(site, seen, first, today):
            stored = store_mails(store, items, progress)
            result.new_rows += stored.new_rows
            result.duplicates += stored.duplicates + stored.variants
            result.problems += stored.problems
            result.threads += len(items)
            value = next_cursor(seen, day, items)
            store.set_cursor(feed.key, value)
            seen = parse_cursor(value)
    except BudgetSpent:
        result.problems.append(_spent(feed.key, client))
    except (FetchFailed, BadInput) as exc:
        result.error = str(exc)
    return result


def sync_patchwork(store: Store, feed: Feed, client: PoliteClient,
                   limits: Limits = DEFAULT_LIMITS, since: datetime | None = None,
                   progress: Callable[[int], None] | None = None) -> FeedResult:
    """Patchwork's events from the cursor: each series-completed or patch-created event's
    mbox stored, then the cursor (the last event's date and id) moved past it. A first run
    without --since starts from now (Patchwork's history is lore's too)."""
    from ingest.patchwork import Patchwork

    result = FeedResult(feed.key)
    cursor = _patchwork_cursor(store.get_cursor(feed.key))
    start = cursor.get("since") or (since or datetime.now(UTC)).astimezone(UTC).strftime(
        "%Y-%m-%dT%H:%M:%S")
    # the events already handled at the cursor's date (`since` is inclusive, so they come
    # back): ids, not a largest id, so no id however large hides the events after it
    seen: set[int] = set(cursor.get("seen") or ())
    legacy = cursor.get("last_id")  # a cursor written before: the largest id at its date
    site = Patchwork(client, feed.base_url, feed.name, limits)
    fetched: set[str] = set()
    try:
        for event in site.events(start):
            problem = _bad_event(event)
            if problem is not None:  # one line; the feed goes on, the cursor stays
                result.problems.append(Problem(f"{feed.key} event {event.id}", problem))
                continue
            if event.date < start or (event.date == start and (
                    event.id in seen or (isinstance(legacy, int) and event.id <= legacy))):
                continue  # `since` is inclusive: the last run's last events come back
            if event.category in ("series-completed", "patch-created") and event.mbox \
                    and event.mbox not in fetched:
                try:
                    items = site.mbox(event.mbox)
                except (NotFound, BadInput) as exc:  # this mbox's trouble, not the feed's
                    items = [Problem(event.mbox, str(exc))]
                stored = store_mails(store, items, progress)
                result.new_rows += stored.new_rows
                result.duplicates += stored.duplicates + stored.variants
                result.problems += stored.problems
                result.threads += 1
                fetched.add(event.mbox)
            elif event.category == "check-created":
                result.checks += 1
            if event.msgid:  # Patchwork's ids and checks, kept beside our analysis
                store.save_patchwork(event.msgid, patch_id=event.patch_id,
                                     series_id=event.series_id, check=event.check)
            if event.date != start:
                start, seen, legacy = event.date, set(), None
            seen.add(event.id)
            store.set_cursor(feed.key, json.dumps({"since": start, "seen": sorted(seen)[-1000:]}))
    except BudgetSpent:
        result.problems.append(_spent(feed.key, client))
    except (FetchFailed, BadInput) as exc:
        result.error = str(exc)
    return result


_PATCHWORK_DATE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?")


def _bad_event(event: Any) -> str | None:
    """Why a Patchwork event cannot move the cursor, or None. Its date becomes the next
    request's `since`: one of 100,000 characters made every later sync fail "URL too long"."""
    if not _PATCHWORK_DATE.fullmatch(event.date or ""):
        return f"a date that is not Patchwork's ({event.date[:40]!r}): skipped"
    try:
        when = datetime.fromisoformat(event.date).replace(tzinfo=UTC)
    except ValueError:
        return f"a date that is no date ({event.date!r}): skipped"
    if not datetime(1990, 1, 1, tzinfo=UTC) <= when <= datetime.now(UTC) + timedelta(days=1):
        return f"a date out of range ({event.date}): skipped"
    return None


def _patchwork_cursor(text: str | None) -> dict[str, Any]:
    """The stored cursor, or {} when there is none or it is not one (a hand edit)."""
    try:
        cursor = json.loads(text or "{}")
    except ValueError:
        return {}
    if not isinstance(cursor, dict):
        return {}
    if not (isinstance(cursor.get("since"), str) and _PATCHWORK_DATE.fullmatch(cursor["since"])):
        cursor.pop("since", None)
    if not all(isinstance(i, int) for i in cursor.get("seen") or ()):
        cursor.pop("seen", None)
    return cursor


def sync_git(store: Store, feed: Feed, path: Path, limits: Limits = DEFAULT_LIMITS,
             progress: Callable[[int], None] | None = None) -> FeedResult:
    """A backfill from a clone of the list's public-inbox epochs: each epoch from its last
    commit read (cursor `lore:LIST#git/N.git`), moved to the epoch's head once its messages
    are committed."""
    result = FeedResult(f"{feed.key} --git {path}")
    with store.batch():
        for _ in git_storing(store, feed, path, result, limits, progress):
            pass
    return result


def git_storing(store: Store, feed: Feed, path: Path, result: FeedResult,
                limits: Limits = DEFAULT_LIMITS,
                progress: Callable[[int], None] | None = None) -> Iterator[StoredRaw]:
    """`sync_git` as a stream, yielding each new mail as it is stored (`corpus.jobs.ingest.storing`):
    the backfill's analysis runs while the epochs are read. Call it inside `store.batch()`;
    an epoch's cursor is written after its mail, so it is committed with it or later. An
    epoch that breaks off (git fails mid-walk) keeps the mail stored before the break,
    counted, and its cursor where it was: the next run reads it again and stores the rest."""
    from ingest.epochs import epochs, read_epoch

    try:
        for repo in epochs(path):
            key = f"{feed.key}#git/{repo.name}"
            read, items = read_epoch(repo, store.get_cursor(key), limits)
            stored = IngestResult()
            try:
                yield from storing(store, items, stored, progress)
            finally:
                result.new_rows += stored.new_rows
                result.duplicates += stored.duplicates + stored.variants
                result.problems += stored.problems + read.problems
            if read.head:
                store.set_cursor(key, read.head)
            if read.rewritten:
                result.problems.append(Problem(str(repo), "history was rewritten (a purge): "
                                               "the epoch was read again from its start",
                                               skipped=True))  # (a warning: nothing rejected)
    except BadInput as exc:
        result.error = str(exc)


def sync_one(store: Store, feed: Feed, client: PoliteClient, limits: Limits = DEFAULT_LIMITS,
             since: datetime | None = None, progress: Callable[[int], None] | None = None,
             git_path: Path | None = None) -> FeedResult:
    """One feed's new mail into the store, by its kind (or from git epochs with `git_path`):
    what `patchperf sync` and the TUI's `r` run for each feed."""
    if git_path is not None:
        return sync_git(store, feed, git_path, limits, progress=progress)
    if feed.kind == "openwall":
        return sync_openwall(store, feed, client, limits, since, progress=progress)
    if feed.kind == "patchwork":
        return sync_patchwork(store, feed, client, limits, since, progress=progress)
    return sync_feed(store, feed, client, limits, since, progress=progress)


@contextmanager
def sync_lock(db: StoreLocation | str | Path, wait: bool = False) -> Iterator[None]:
    """Hold the store's sync lock; SyncLocked at once when another sync holds it (unless
    `wait`). A file beside a SQLite store; for a PostgreSQL store, an advisory lock in the
    database, so syncs on other machines wait for it too."""
    location = resolve_store(db)
    if location.is_postgresql:
        with session_lock(location, SYNC_LOCK, wait=wait) as held:
            if not held:
                raise SyncLocked(f"another patchperf sync holds the sync lock of {location}; "
                                 "this one does nothing")
            yield
        return
    # The lock is on the store file itself: a flock belongs to the file (its inode), so a
    # sync through a symlink or a hard link to the store meets it, where a lock file named
    # after the path let both run. (SQLite locks with fcntl's byte ranges, which a flock
    # does not touch on a local file system.)
    assert location.path is not None
    path = location.path
    path.parent.mkdir(parents=True, exist_ok=True)  # (as opening the store would)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)  # (created empty: a new store)
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the store ({exc.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise SyncLocked(f"another patchperf sync holds the sync lock of {path}; "
                             "this one does nothing") from None
        yield
    finally:
        os.close(fd)  # (closing releases the lock)


@contextmanager
def syncing(location: StoreLocation, wait: bool = False, limits: Limits = DEFAULT_LIMITS
            ) -> Iterator[tuple[Store, PoliteClient]]:
    """What a sync run holds: the store's sync lock, the store, and a polite HTTP client
    whose cache lives beside the store, with the run's requests (`limits.requests`)."""
    with sync_lock(location, wait=wait), Store.open(location) as store, \
            PoliteClient(cache_dir=location.side_file(".http-cache"),
                         max_requests=limits.requests) as client:
        yield store, client


@dataclass(frozen=True)
class FeedSynced:
    """One feed's run: what arrived, its analysis (None when not analysed), and the HTTP
    requests it took."""

    result: FeedResult
    analysed: RefreshResult | None
    requests: int
    cached: int

    @property
    def summary(self) -> str:
        return self.result.summary(self.requests, self.cached)

    @property
    def rejected(self) -> bool:
        """Done, but some mail was rejected (the command exits 1)."""
        return any(not p.skipped for p in self.result.problems)


def _quiet(_label: str) -> AbstractContextManager[Callable[[int], None]]:
    return nullcontext(lambda _n: None)


def sync_feeds(store: Store, client: PoliteClient, feeds: Sequence[Feed],
               limits: Limits = DEFAULT_LIMITS, *, since: datetime | None = None,
               git_path: Path | None = None, analyse: bool = True, jobs: int = 1,
               scheduler: str | None = None,
               progress: Callable[[str], AbstractContextManager[Callable[[int], None]]] = _quiet,
               warn: Callable[[Sequence[Problem]], None] = lambda _problems: None,
               ) -> Iterator[FeedSynced]:
    """Each feed's new mail into the store, then analysed, one feed after the other; each
    feed's outcome is yielded when it is done. `progress(label)` gives a counter for the
    feed's mail; `warn` is told each feed's problems as soon as they are known (before a
    long analysis, which may fail). With `git_path`, a backfill: each mail is analysed as
    it is stored, while the epochs are read."""
    for feed in feeds:
        before = (client.stats.requests, client.stats.cached)
        analysed: RefreshResult | None = None
        if git_path is not None and analyse:
            result = FeedResult(f"{feed.key} --git {git_path}")
            with progress(feed.key) as tick:
                analysed = analyze_rows(
                    store, None, limits, jobs=jobs, scheduler=scheduler,
                    arriving=git_storing(store, feed, git_path, result, limits, tick))
            warn(result.problems)
        else:
            with progress(feed.key) as tick:
                result = sync_one(store, feed, client, limits, since, progress=tick,
                                  git_path=git_path)
            warn(result.problems)
            if analyse:
                # what arrived, and what an interrupted run stored but did not analyse
                analysed = analyze_rows(store, None, limits, jobs=jobs, scheduler=scheduler)
        if analysed is not None:
            warn(analysed.problems)
            warn(analysed.warnings)
        yield FeedSynced(result, analysed, client.stats.requests - before[0],
                         client.stats.cached - before[1])
