"""The store: raw mail verbatim and what analysis made of it, in one SQLite file or a
PostgreSQL database.

All SQL lives here (DDL in `corpus.schema`); every value is a bound parameter. Each statement
is written once, in SQL both engines accept (`ON CONFLICT` upserts, `RETURNING`, explicit
`NULLS FIRST/LAST`); `corpus.connection` hides the rest. Writes happen in explicit
transactions: one per call, or one per chunk inside `Store.batch()` (a thousand mails or half
a second, whichever comes first), so a crash loses at most the open chunk and never leaves
half a message.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from analyze.errors import StoreError
from analyze.mail.message import content_hash

# The record types live in their own module; they are re-exported here because callers
# (corpus.jobs, reports) import them from the store.
from . import schema
from .connection import Database
from .location import StoreLocation, resolve_store
from .records import (
    AddResult,
    AddStatus,
    AnalysisRecord,
    SeriesRecord,
    SeriesRow,
    StoreCounts,
    StoredRaw,
    fold,
    normalize_message_id,
)
from .schema import SERIES_STATS

__all__ = [
    "DEFAULT_COMMIT_EVERY",
    "DEFAULT_COMMIT_SECONDS",
    "AddResult",
    "AddStatus",
    "AnalysisRecord",
    "SeriesRecord",
    "SeriesRow",
    "Store",
    "StoreCounts",
    "StoreLocation",
    "StoredRaw",
    "normalize_message_id",
]

DEFAULT_COMMIT_EVERY = 1000
# A batch also commits once its open part is this old: a stopped backfill keeps all but its
# last half second of mail however slowly it goes (it analyses as it stores), and another
# writer waiting for the store's lock waits about that long, not a whole chunk's worth.
DEFAULT_COMMIT_SECONDS = 0.5
_CHUNK = 500  # rows per `IN (...)` query: far below SQLite's 32,766 bound variables

_MESSAGE_KEY = "coalesce(m.message_id, 'sha256:' || m.content_hash)"


def _upsert(table: str, columns: Sequence[str], key: Sequence[str]) -> str:
    """INSERT of one row replacing the row with the same `key` (SQLite's INSERT OR REPLACE,
    in the form both engines take; no table references the ones written this way, so an
    update is the same as SQLite's delete-and-insert)."""
    rest = [c for c in columns if c not in key]
    return (f"INSERT INTO {table} ({', '.join(columns)})"
            f" VALUES ({', '.join('?' * len(columns))})"
            f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in rest))


_SAVE_REJECTION = _upsert("rejections", ("message_row", "analyzer_version", "reason"),
                          ("message_row",))
_SAVE_ANALYSIS = _upsert(
    "analyses", ("message_row", "analyzer_version", "kind", "subject", "from_display", "date",
                 "date_utc", "tree", "doc"), ("message_row",))
_SAVE_CLAIM = _upsert(
    "claims", ("id", "found_row", "origin", "found_in", "quoted", "metric", "direction",
               "date_utc", "doc", "effect"), ("found_row", "id"))
_SAVE_VERDICT = _upsert(
    "verdicts", ("claim_id", "scenario_id", "status", "origin", "found_in", "doc", "judged_at"),
    ("claim_id",))
# every table, for `check` on PostgreSQL
_TABLES = ("messages", "variants", "analyses", "rejections", "claims", "series",
           "series_members", "cursors", "patchwork", "verdicts", "robot_reports")


class Store:
    """A patchperf store. Use `Store.open(path_or_url)`; a context manager that closes it."""

    def __init__(self, conn: Database) -> None:
        self._conn = conn
        self.location = conn.location
        self._batch_depth = 0
        self._commit_every = DEFAULT_COMMIT_EVERY
        self._commit_seconds = DEFAULT_COMMIT_SECONDS
        self._pending = 0
        self._opened = 0.0  # when the batch's open transaction began (time.monotonic)

    @classmethod
    def open(cls, path: str | os.PathLike[str] | StoreLocation, *, readonly: bool = False
             ) -> Store:
        """Open (creating it and its folders if needed) the store at `path`.

        `path` may also be a `sqlite:///` URL, or a `postgresql://` URL of a database that
        exists (its tables are made on first open). With `readonly`, nothing is ever created
        or migrated (a mistyped `--db` gives "no such store"), writes raise StoreError, and
        reading works while another process writes the store (WAL). Raises StoreError naming
        the store (a URL without its password).
        """
        location = resolve_store(path)
        if location.is_postgresql:
            return cls(schema.connect(location, readonly=readonly))
        assert location.path is not None
        file = location.path
        if not readonly:
            try:
                file.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{file}: cannot create its folder ({exc.strerror})") from exc
        elif not file.exists():
            raise StoreError(f"{file}: no such store")
        if file.is_dir():
            raise StoreError(f"{file}: is a folder, not a store file")
        return cls(schema.connect(location, readonly=readonly))

    @property
    def path(self) -> Path:
        """The store's file (a SQLite store; StoreError for PostgreSQL, which has none)."""
        if self.location.path is None:
            raise StoreError(f"{self.location}: a PostgreSQL store has no file")
        return self.location.path

    @property
    def is_postgresql(self) -> bool:
        return self.location.is_postgresql

    def close(self) -> None:
        """Close the store; an open batch is rolled back."""
        try:
            if self._conn.in_transaction:
                self._conn.rollback()
        finally:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn the database's operational failures into a StoreError naming the store."""
        try:
            yield
        except self._conn.Error as exc:
            reason = self._conn.describe(exc)
            if reason is None:
                raise  # our own SQL is wrong: a bug, let it surface
            raise StoreError(f"{self.location}: {reason}") from exc

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One transaction, or a part of the open batch's."""
        if self._batch_depth:
            yield
            return
        with self._guard():
            self._conn.begin_write()
            try:
                yield
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.rollback()
                raise
            self._conn.commit()

    @contextmanager
    def batch(self, commit_every: int = DEFAULT_COMMIT_EVERY,
              commit_seconds: float = DEFAULT_COMMIT_SECONDS) -> Iterator[Store]:
        """Group writes: commit every `commit_every` messages, or at the first write once the
        open part is `commit_seconds` old; roll back the open part on error.

        What was committed stays; the rows written since the last commit are all undone, so
        nothing is ever half-stored. Nested batches join the outer one.
        """
        if commit_every < 1:
            raise ValueError("commit_every must be at least 1")
        if self._batch_depth:
            self._batch_depth += 1
            try:
                yield self
            finally:
                self._batch_depth -= 1
            return
        with self._guard():
            self._conn.begin_write()
        self._batch_depth, self._commit_every, self._pending = 1, commit_every, 0
        self._commit_seconds, self._opened = commit_seconds, time.monotonic()
        try:
            yield self
        except BaseException:
            self._batch_depth = 0
            if self._conn.in_transaction:
                with self._guard():
                    self._conn.rollback()
            raise
        self._batch_depth = 0
        with self._guard():
            self._conn.commit()

    def _tick(self, count: int = 1) -> None:
        """Count writes inside a batch; commit and start a new transaction every N, or
        once the open one is old enough."""
        if not self._batch_depth:
            return
        self._pending += count
        if (self._pending >= self._commit_every
                or time.monotonic() - self._opened >= self._commit_seconds):
            with self._guard():
                self._conn.commit()
                self._conn.begin_write()
            self._pending, self._opened = 0, time.monotonic()

    def commit_pending(self) -> None:
        """Inside a batch, commit what was written so far now, and go on in a new
        transaction (outside one, every write is already committed)."""
        if self._batch_depth and self._pending:
            self._tick(self._commit_every)

    # -- raw mail ---------------------------------------------------------------------------

    def add_raw(
        self, data: bytes, *, message_id: str | None, fmt: str, origin: str
    ) -> AddResult:
        """Store one mail's bytes verbatim, once.

        Same bytes as a stored message or variant → `duplicate`; a known Message-ID with other
        bytes → `variant` (kept once under the first message); else → `new`. A mail without a
        Message-ID is deduplicated by the sha256 of its bytes.
        """
        digest = content_hash(data)
        mid = normalize_message_id(message_id)
        with self._write(), self._guard():
            result = self._add(data, digest, mid, fmt, origin)
        self._tick()
        return result

    def _add(self, data: bytes, digest: str, mid: str | None, fmt: str, origin: str) -> AddResult:
        conn = self._conn
        hit = conn.execute(
            f"SELECT m.id, {_MESSAGE_KEY} FROM messages m WHERE m.content_hash = ?"
            f" UNION ALL SELECT m.id, {_MESSAGE_KEY} FROM variants v"
            " JOIN messages m ON m.id = v.message_row WHERE v.content_hash = ? LIMIT 1",
            (digest, digest),
        ).fetchone()
        if hit:
            return AddResult("duplicate", hit[0], hit[1])
        now = _now()
        if mid is not None:
            first = conn.execute("SELECT id FROM messages WHERE message_id = ?", (mid,)).fetchone()
            if first:
                conn.execute(
                    "INSERT INTO variants (message_row, content_hash, raw, fmt, origin,"
                    " ingested_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (first[0], digest, data, fmt, origin, now),
                )
                return AddResult("variant", first[0], mid)
        row = conn.execute(
            "INSERT INTO messages (message_id, content_hash, raw, fmt, origin, ingested_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (mid, digest, data, fmt, origin, now),
        ).fetchone()[0]
        return AddResult("new", row, mid if mid is not None else f"sha256:{digest}")

    def iter_raw(self, rows: Iterable[int] | None = None) -> Iterator[StoredRaw]:
        """Stream the stored messages (all, or the given rows) in row order, a chunk at a time."""
        if rows is None:
            yield from self._raw_pages("", ())
            return
        wanted = sorted(set(rows))
        for ids in _chunks(wanted):
            with self._guard():
                chunk = self._conn.execute(
                    f"SELECT m.id, m.raw, m.origin, m.fmt FROM messages m"
                    f" WHERE m.id IN ({_marks(ids)}) ORDER BY m.id", ids
                ).fetchall()
            for row in chunk:
                yield StoredRaw(row[0], row[1], row[2], row[3])

    def iter_unanalyzed(self, analyzer_version: str) -> Iterator[StoredRaw]:
        """Stream the messages `unanalyzed_rows(analyzer_version)` names, in row order, a
        chunk at a time (rows analysed meanwhile are simply passed)."""
        yield from self._raw_pages(
            " AND NOT EXISTS (SELECT 1 FROM analyses a"
            " WHERE a.message_row = m.id AND a.analyzer_version = ?)"
            " AND NOT EXISTS (SELECT 1 FROM rejections r"
            " WHERE r.message_row = m.id AND r.analyzer_version = ?)",
            (analyzer_version, analyzer_version))

    def _raw_pages(self, where: str, params: tuple[object, ...]) -> Iterator[StoredRaw]:
        """The messages `where` (an `AND ...` on `m`) keeps, by keyset pages in row order:
        each page starts after the last row of the one before, so rows written or analysed
        meanwhile neither shift nor repeat a page."""
        last = 0
        while True:
            with self._guard():
                chunk = self._conn.execute(
                    f"SELECT m.id, m.raw, m.origin, m.fmt FROM messages m WHERE m.id > ?{where}"
                    f" ORDER BY m.id LIMIT {_CHUNK}", (last, *params)
                ).fetchall()
            if not chunk:
                return
            for row in chunk:
                yield StoredRaw(row[0], row[1], row[2], row[3])
            last = chunk[-1][0]

    def get_raw(self, key: str) -> bytes | None:
        """The bytes of the message with this key (Message-ID or `sha256:<hash>`)."""
        row = self._row_for(key, "m.raw")
        return row[0] if row else None

    def unanalyzed_rows(self, analyzer_version: str | None = None) -> list[int]:
        """Rows with neither an analysis nor a rejection; given a version, rows with neither
        made by that analyzer version."""
        version = "" if analyzer_version is None else " AND {}.analyzer_version = ?"
        sql = (
            "SELECT m.id FROM messages m WHERE NOT EXISTS (SELECT 1 FROM analyses a"
            f" WHERE a.message_row = m.id{version.format('a')})"
            " AND NOT EXISTS (SELECT 1 FROM rejections r"
            f" WHERE r.message_row = m.id{version.format('r')})"
            " ORDER BY m.id"
        )
        params = () if analyzer_version is None else (analyzer_version, analyzer_version)
        with self._guard():
            return [r[0] for r in self._conn.execute(sql, params)]

    def save_rejection(self, message_row: int, analyzer_version: str, reason: str) -> None:
        """Record that analysis could not read a stored mail (its raw bytes stay); an older
        analysis of it is dropped, since it no longer holds."""
        with self._write(), self._guard():
            self._conn.execute("DELETE FROM analyses WHERE message_row = ?", (message_row,))
            self._conn.execute(_SAVE_REJECTION, (message_row, analyzer_version, reason))
        self._tick()

    # -- analyses ---------------------------------------------------------------------------

    def save_analyses(self, items: Iterable[AnalysisRecord]) -> int:
        """Store (replacing) the analyses of the given message rows; returns how many. A few
        hundred at a time, two statements for all of them, where a mail at a time paid the
        database's per-statement cost twice for every mail."""
        count = 0
        with self.batch():
            it = iter(items)
            while chunk := list(islice(it, _CHUNK)):
                with self._guard():
                    self._conn.executemany("DELETE FROM rejections WHERE message_row = ?",
                                           [(item.message_row,) for item in chunk])
                    self._conn.executemany(_SAVE_ANALYSIS, [_analysis_row(item) for item in chunk])
                self._tick(len(chunk))
                count += len(chunk)
        return count

    def get_message_doc(self, key: str) -> dict[str, Any] | None:
        """The analysed message with this key (Message-ID or `sha256:<hash>`), or None."""
        row = self._row_for(key, "a.doc", join_analysis=True)
        return json.loads(row[0]) if row else None

    def senders(self, keys: Iterable[str]) -> dict[str, str]:
        """The From (as displayed) of each analysed message among `keys`, by key: one query
        per chunk of keys, where `get_message_doc` would read each whole document."""
        by_id: dict[str, list[str]] = {}
        by_hash: dict[str, list[str]] = {}
        for key in set(keys):
            if key.startswith("sha256:"):
                by_hash.setdefault(key[len("sha256:"):], []).append(key)
            else:
                by_id.setdefault(normalize_message_id(key) or key, []).append(key)
        out: dict[str, str] = {}
        wanted: dict[str, list[str]]
        for column, wanted in (("m.message_id", by_id), ("m.content_hash", by_hash)):
            for chunk in _chunks(list(wanted)):
                with self._guard():
                    rows = self._conn.execute(
                        f"SELECT {column}, a.from_display FROM messages m"
                        f" JOIN analyses a ON a.message_row = m.id"
                        f" WHERE {column} IN ({_marks(chunk)})", chunk,
                    ).fetchall()
                out.update((key, frm or "") for value, frm in rows for key in wanted[value])
        return out

    def messages_since(self, since: datetime) -> list[dict[str, Any]]:
        """Analysed messages dated at or after `since`, oldest first."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT doc FROM analyses WHERE date_utc >= ? ORDER BY date_utc, message_row",
                (_utc_text(since),),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def iter_message_docs(self) -> Iterator[dict[str, Any]]:
        """Every analysed message, by date (undated last), a chunk at a time. One query
        sorted once, read in chunks: keyset pages on the unindexed order sorted the whole
        table for each page (23 of the 36 s a series rebuild of 100,000 messages took).
        Read it whole before writing through this store."""
        rows = self._conn.stream(  # '~': after any date
            "SELECT doc FROM analyses ORDER BY coalesce(date_utc, '~'), message_row", (), _CHUNK)
        while True:
            with self._guard():
                chunk = list(islice(rows, _CHUNK))
            if not chunk:
                return
            for (doc,) in chunk:
                yield json.loads(doc)

    # -- claims ---------------------------------------------------------------------------

    def save_claims(self, message_row: int, docs: Sequence[Mapping[str, Any]]) -> None:
        """Replace the claims read from one stored message (docs in the JSON contract's shape)."""
        self.save_claims_many([(message_row, docs)])

    def save_claims_many(self, items: Iterable[tuple[int, Sequence[Mapping[str, Any]]]]) -> None:
        """Replace the claims of several stored messages at once: (message row, docs) each.
        One statement for all of them, where a message at a time would pay SQLite's
        per-statement cost for every mail without a claim. Inside a batch, the claims ride
        with their messages' analyses, which count the messages towards the next commit:
        counted here too, a batch would commit twice as often and write its pages twice."""
        items = list(items)
        if not items:
            return
        with self._write(), self._guard():
            self._conn.executemany("DELETE FROM claims WHERE found_row = ?",
                                   [(row,) for row, _ in items])
            self._conn.executemany(
                _SAVE_CLAIM,
                [
                    (
                        d["id"], row, d["message_id"], d["found_in"], int(d["quoted"]),
                        d["metric"],
                        d["direction"],
                        _utc_of_iso(d["date"]) if d.get("date") else None,
                        _compact_json(d),
                        _effect(d),
                    )
                    for row, docs in items
                    for d in docs
                ],
            )

    def claim_docs(
        self, *, metric: str | None = None, direction: str | None = None,
        since: datetime | None = None, keys: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Stored claims, one per id (read first-hand where a reply only quoted it), oldest
        first; filtered by metric, direction, date (of the message they were found in) and
        message keys (claims first written in, or read from, those messages)."""
        filters = _Where().equals("metric", metric).equals("direction", direction)
        filters.since("date_utc", since)
        docs: dict[str, dict[str, Any]] = {}
        chunks: list[list[Any] | None] = list(_chunks(list(keys))) if keys is not None else [None]
        for chunk in chunks:
            where = filters.sql
            args = list(filters.params)
            if chunk is not None:
                # found in one of them: by found_row (the primary key's first column), from
                # the messages those keys name (`_MESSAGE_KEY`: a Message-ID, else `sha256:`)
                ids = [k for k in chunk if not k.startswith("sha256:")]
                hashes = [k[len("sha256:"):] for k in chunk if k.startswith("sha256:")]
                where += (f" AND (origin IN ({_marks(chunk)}) OR found_row IN ("
                          f"SELECT id FROM messages WHERE message_id IN ({_marks(ids)})"
                          f" UNION ALL SELECT id FROM messages WHERE message_id IS NULL"
                          f" AND content_hash IN ({_marks(hashes)})))")
                args += chunk + ids + hashes
            with self._guard():
                # `where` is built from this function's literals; values travel as parameters
                rows = self._conn.execute(
                    f"SELECT id, doc FROM claims WHERE {where}"
                    " ORDER BY quoted, coalesce(date_utc, '~'), found_row",
                    args,
                ).fetchall()
            for cid, doc in rows:
                docs.setdefault(cid, json.loads(doc))
        # oldest first by the instant, not by the text: `10:00+01:00` is before `09:30+00:00`;
        # one message's claims in the order its lines give them (an id is a hash: no order)
        return sorted(docs.values(), key=lambda d: (
            d.get("date") is None, (_utc_of_iso(d["date"]) or "") if d.get("date") else "",
            str(d.get("found_in") or ""), d.get("line") or 0, d["id"]))

    def claim_docs_by_id(self, claim_id: str) -> list[dict[str, Any]]:
        """Every stored copy of one claim (first-hand first): where it was read and where
        quoted. A scan of the claims table: asked once per `simulate CLAIM_ID`, not per row
        (migration 4 dropped the id index every write paid for)."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT doc FROM claims WHERE id = ? ORDER BY quoted, found_row", (claim_id,)
            ).fetchall()
        return [json.loads(doc) for (doc,) in rows]

    # -- feed cursors --------------------------------------------------------------------------

    def get_cursor(self, feed: str) -> str | None:
        with self._guard():
            row = self._conn.execute("SELECT value FROM cursors WHERE feed = ?", (feed,)).fetchone()
        return row[0] if row else None

    def cursors(self) -> dict[str, str]:
        """Every feed's cursor, by feed."""
        with self._guard():
            return dict(self._conn.execute("SELECT feed, value FROM cursors").fetchall())

    def set_cursor(self, feed: str, value: str) -> None:
        """Record where a feed stopped; call it only once the mail it covers is committed."""
        with self._write():
            self._conn.execute(
                "INSERT INTO cursors (feed, value, updated) VALUES (?, ?, ?)"
                " ON CONFLICT(feed) DO UPDATE SET value = excluded.value, updated = excluded.updated",
                (feed, value, _now()),
            )

    # -- Patchwork's view ----------------------------------------------------------------------

    def save_patchwork(self, message_id: str, *, patch_id: int | None = None,
                       series_id: int | None = None, check: Mapping[str, Any] | None = None
                       ) -> None:
        """Record Patchwork's ids for a patch, and add a CI check (each check once)."""
        with self._write():
            row = self._conn.execute("SELECT checks FROM patchwork WHERE message_id = ?",
                                     (message_id,)).fetchone()
            checks = json.loads(row[0]) if row else []
            if check is not None and dict(check) not in checks:
                checks.append(dict(check))
            self._conn.execute(
                "INSERT INTO patchwork (message_id, patch_id, series_id, checks) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(message_id) DO UPDATE SET"
                " patch_id = coalesce(excluded.patch_id, patchwork.patch_id),"
                " series_id = coalesce(excluded.series_id, patchwork.series_id),"
                " checks = excluded.checks",
                (message_id, patch_id, series_id, json.dumps(checks, ensure_ascii=False)),
            )

    # -- series -----------------------------------------------------------------------------

    def save_series(self, items: Iterable[SeriesRecord], *, replace_all: bool = False) -> int:
        """Store the given series, replacing each one's row and members.

        With `replace_all`, every other stored series is dropped first (after a full
        `analyze --all`, grouping may have changed). Returns how many were saved.
        """
        count = 0
        with self._write(), self._guard():
            if replace_all:
                self._conn.execute("DELETE FROM series")
            for item in items:
                self._save_one_series(item)
                count += 1
            self._conn.execute(SERIES_STATS)
        self._tick(max(count, 1))
        return count

    def _save_one_series(self, item: SeriesRecord) -> None:
        conn = self._conn
        conn.execute("DELETE FROM series WHERE id = ?", (item.id,))  # cascades to members
        conn.execute(
            "INSERT INTO series (id, name, version, total, tree, author, date_utc, complete,"
            " doc, name_folded, author_folded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item.id, item.name, item.version, item.total, item.tree, item.author,
                _utc_text(item.date), None if item.complete is None else int(item.complete),
                _json(item.doc), fold(item.name),
                None if item.author is None else fold(item.author),
            ),
        )
        members = []
        if item.cover:
            members.append((item.id, item.cover, "cover", 0))
        members += [(item.id, k, "patch", i) for i, k in enumerate(item.patches, 1)]
        base = len(members)
        members += [(item.id, k, "reply", base + i) for i, k in enumerate(item.replies)]
        # DO NOTHING: a key listed twice (a patch re-sent inside its own thread) is one member.
        conn.executemany(
            "INSERT INTO series_members (series_id, message_key, role, position)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            members,
        )

    # -- the kernel test robot's reports (issue 23) ------------------------------------------

    def save_robot_reports(self, items: Iterable[tuple[str, str | None, str | None, str,
                                                       Mapping[str, Any]]]) -> int:
        """Replace every stored robot report: (message key, series id, rule, reason, the
        report's object) each. They are linked again with every series rebuild, so the
        whole set is written at once; save them before the series (SERIES_STATS leaves
        the robot's findings out of a series' claims)."""
        rows = [(key, sid, rule, reason,
                 _utc_of_iso(doc["date"]) if doc.get("date") else None, _compact_json(doc))
                for key, sid, rule, reason, doc in items]
        with self._write(), self._guard():
            self._conn.execute("DELETE FROM robot_reports")
            self._conn.executemany(
                "INSERT INTO robot_reports (message_key, series_id, rule, reason, date_utc, doc)"
                " VALUES (?, ?, ?, ?, ?, ?)", rows)
        self._tick(max(len(rows), 1))
        return len(rows)

    def robot_series_ids(self) -> list[str]:
        """The series a stored robot report is linked to, each once."""
        with self._guard():
            rows = self._conn.execute("SELECT DISTINCT series_id FROM robot_reports"
                                      " WHERE series_id IS NOT NULL ORDER BY series_id").fetchall()
        return [r[0] for r in rows]

    def robot_reports(self, *, linked: bool | None = None) -> list[dict[str, Any]]:
        """The stored robot reports, oldest first, each with its `series_id` (None when no
        series was found): all of them, or only the linked (True) or unlinked (False)."""
        where = {None: "TRUE", True: "series_id IS NOT NULL", False: "series_id IS NULL"}[linked]
        with self._guard():
            rows = self._conn.execute(
                f"SELECT message_key, series_id, doc FROM robot_reports WHERE {where}"
                " ORDER BY date_utc NULLS FIRST, message_key").fetchall()
        return [{"key": key, "series_id": sid, **json.loads(doc)} for key, sid, doc in rows]

    def load_series(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The series with these ids that are stored, in the order asked."""
        found: dict[str, dict[str, Any]] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            with self._guard():
                for sid, doc in self._conn.execute(
                    f"SELECT id, doc FROM series WHERE id IN ({_marks(chunk)})", chunk
                ):
                    found[sid] = json.loads(doc)
        return [found[i] for i in ids if i in found]

    def all_series(self) -> list[dict[str, Any]]:
        """Every stored series, by date then id."""
        return self._series_where("TRUE", ())

    def series_since(self, since: datetime) -> list[dict[str, Any]]:
        """Series dated at or after `since`, by date then id."""
        return self._series_where("date_utc >= ?", (_utc_text(since),))

    def find_series(self, *, since: datetime | None = None, tree: str | None = None,
                    author: str | None = None) -> list[dict[str, Any]]:
        """Series dated at or after `since`, of a tree, by an author (a case-insensitive part
        of the From), each filter optional; by date then id."""
        where = _Where().since("date_utc", since).equals("tree", tree)
        where.contains("author_folded", author)
        return self._series_where(where.sql, tuple(where.params))

    def series_for(self, ident: str) -> list[dict[str, Any]]:
        """The series with this id, else the series a message (Message-ID or key) belongs to."""
        by_id = self._series_where("id = ?", (ident,))
        if by_id:
            return by_id
        key = normalize_message_id(ident) or ident
        return self._series_where(
            "id IN (SELECT series_id FROM series_members WHERE message_key = ?)", (key,)
        )

    def _series_where(self, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        # `where` is always one of this module's literals; user text only travels in params.
        with self._guard():
            rows = self._conn.execute(
                f"SELECT doc FROM series WHERE {where} ORDER BY date_utc NULLS FIRST, id", params
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def series_page(self, *, search: str | None = None, tree: str | None = None,
                    has_claims: bool = False, verdict: str | None = None, sort: str = "date",
                    after: SeriesRow | None = None, limit: int = 100) -> list[SeriesRow]:
        """One page of the series list (the TUI): newest first, or largest claimed change
        first (`sort="effect"`), filtered by a part of the name, a tree, having claims, or a
        kept verdict of a claim. `after` is the last row of the page before: pages follow
        rows, not positions, so mail arriving while the list is read shifts nothing. One
        indexed query whatever the size of the store."""
        where, params = self._page_filter(search, tree, has_claims, verdict)
        columns = ("effect", "date_utc", "id") if sort == "effect" else ("date_utc", "id")
        if after is not None:
            below, more = _after_clause(columns, [getattr(after, c) for c in columns])
            where += f" AND {below}"
            params += tuple(more)
        # series with no claim (or no date) come last: SQLite's DESC does so by itself (and
        # reads the index for it all the same), PostgreSQL's puts NULLs first unless told
        order = ", ".join(f"{c} DESC NULLS LAST" for c in columns)
        with self._guard():
            # `where` and `order` are this module's literals; user text travels in params
            rows = self._conn.execute(
                f"SELECT id, name, version, total, tree, author, date_utc, complete, claims,"
                f" effect FROM series WHERE {where} ORDER BY {order} LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [SeriesRow(*r) for r in rows]

    def series_count(self, *, search: str | None = None, tree: str | None = None,
                     has_claims: bool = False, verdict: str | None = None) -> int:
        where, params = self._page_filter(search, tree, has_claims, verdict)
        with self._guard():
            return int(self._conn.execute(f"SELECT count(*) FROM series WHERE {where}",
                                          params).fetchone()[0])

    @staticmethod
    def _page_filter(search: str | None, tree: str | None, has_claims: bool,
                     verdict: str | None) -> tuple[str, tuple[Any, ...]]:
        where = _Where().contains("name_folded", search or None).equals("tree", tree or None)
        if has_claims:
            where.add("claims > 0")
        if verdict:
            where.add("id IN (SELECT member.series_id FROM verdicts AS v"
                      " JOIN series_members AS member ON member.message_key IN (v.origin, v.found_in)"
                      " WHERE v.status = ?)", verdict)
        return where.sql, tuple(where.params)

    def trees(self) -> list[str]:
        """The trees series are sent for, most used first."""
        with self._guard():
            rows = self._conn.execute(
                "SELECT tree FROM series WHERE tree IS NOT NULL GROUP BY tree"
                " ORDER BY count(*) DESC, tree").fetchall()
        return [r[0] for r in rows]

    def save_verdicts(self, claims: Iterable[Mapping[str, Any]]) -> int:
        """Keep the simulator's verdicts of these claim documents (those judged: with a
        `verdict`; a claim in no scenario has `scenario_id` None, kept as ''); how many were
        kept."""
        rows = [(c["id"], c.get("scenario_id") or "", str(c["verdict"].get("status")),
                 c.get("message_id"), c["found_in"], _json(c["verdict"]), _now())
                for c in claims if c.get("verdict")]
        with self._write(), self._guard():
            self._conn.executemany(_SAVE_VERDICT, rows)
        return len(rows)

    def claim_of_scenario(self, scenario_id: str) -> str | None:
        """A claim whose kept verdict names this scenario (`auto-...`), or None."""
        with self._guard():
            row = self._conn.execute("SELECT claim_id FROM verdicts WHERE scenario_id = ?"
                                     " ORDER BY claim_id LIMIT 1", (scenario_id,)).fetchone()
        return row[0] if row else None

    def stored_verdicts(self, claim_ids: Sequence[str]
                        ) -> dict[str, tuple[str | None, dict[str, Any]]]:
        """The kept verdicts of these claims: claim id → (scenario id or None, verdict)."""
        out: dict[str, tuple[str | None, dict[str, Any]]] = {}
        for chunk in _chunks(list(dict.fromkeys(claim_ids))):
            with self._guard():
                for cid, sid, doc in self._conn.execute(
                    f"SELECT claim_id, scenario_id, doc FROM verdicts"
                    f" WHERE claim_id IN ({_marks(chunk)})", chunk):
                    out[cid] = (sid or None, json.loads(doc))
        return out

    # -- whole-store views ------------------------------------------------------------------

    def counts(self) -> StoreCounts:
        """How many messages, variants, analyses and series are stored."""
        with self._guard():
            values = [
                self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("messages", "variants", "analyses", "series")
            ]
        return StoreCounts(*values)

    def check(self, *, full: bool = False) -> None:
        """Read every page of the file (SQLite's quick_check; with `full`, integrity_check,
        which also matches each index to its table); StoreError naming the first damage.
        Commands find damage only in the pages they read: this finds it anywhere.

        PostgreSQL checks its own pages (checksums, when the cluster has them) as it reads
        them: here every table is counted through, and with `full` every value of every row
        is read (TOASTed documents and mail too), after the schema version was checked on
        open. A damaged page is then the server's error, one line."""
        if self.is_postgresql:
            with self._guard():
                for table in _TABLES:
                    # `table` is one of this module's literals
                    where = f" WHERE ({table}.*)::text IS NOT NULL" if full else ""
                    self._conn.execute(f"SELECT count(*) FROM {table}{where}").fetchone()
            return
        pragma = "integrity_check(20)" if full else "quick_check(20)"
        with self._guard():
            result = [str(r[0]) for r in self._conn.execute(f"PRAGMA {pragma}")]
        if result != ["ok"]:
            # A row may hold several problems, one a line, under a "*** in database main ***"
            # heading: each problem is counted, and the first is said on the one line.
            problems = [" ".join(line.split()) for row in result for line in row.splitlines()
                        if line.strip() and not line.startswith("*** ")] or ["unknown damage"]
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            raise StoreError(f"{self.path}: the store file is corrupted: {problems[0][:200]}{more}; "
                             "left as it is (`sqlite3 FILE .recover` saves what can still be read)")

    def size_bytes(self) -> int:
        """How much the store takes on disk: the file, or the database."""
        if self.is_postgresql:
            with self._guard():
                return int(self._conn.execute(
                    "SELECT pg_database_size(current_database())").fetchone()[0])
        return self.path.stat().st_size

    def journal_mode(self) -> str:
        """The SQLite journal mode (`wal` for a writable store); a SQLite store's only."""
        if self.is_postgresql:
            raise StoreError(f"{self.location}: PostgreSQL keeps its own write-ahead log")
        with self._guard():
            return str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])

    def dump(self) -> dict[str, Any]:
        """Everything stored, keyed by content rather than row ids, minus ingest times.

        Two stores holding the same mail and results give equal dumps, whatever the order
        things were added in (except which of several variants came first).
        """
        conn = self._conn
        with self._guard():
            variants: dict[int, list[dict[str, Any]]] = {}
            for row, digest, fmt, origin, raw in conn.execute(
                "SELECT message_row, content_hash, fmt, origin, raw FROM variants"
            ):
                variants.setdefault(row, []).append(
                    {"content_hash": digest, "raw_sha256": content_hash(raw), "fmt": fmt,
                     "origin": origin}
                )
            messages: dict[str, Any] = {}
            for row, key, mid, digest, fmt, origin, raw in conn.execute(
                f"SELECT m.id, {_MESSAGE_KEY}, m.message_id, m.content_hash, m.fmt, m.origin,"
                " m.raw FROM messages m ORDER BY m.id"
            ):
                messages[key] = {
                    "message_id": mid, "content_hash": digest, "raw_sha256": content_hash(raw),
                    "fmt": fmt, "origin": origin,
                    "variants": sorted(variants.get(row, []), key=lambda v: v["content_hash"]),
                }
            analyses = {
                key: {"analyzer_version": ver, "kind": kind, "subject": subj,
                      "from_display": frm, "date": date, "date_utc": utc, "tree": tree,
                      "doc": json.loads(doc)}
                for key, ver, kind, subj, frm, date, utc, tree, doc in conn.execute(
                    f"SELECT {_MESSAGE_KEY}, a.analyzer_version, a.kind, a.subject,"
                    " a.from_display, a.date, a.date_utc, a.tree, a.doc"
                    " FROM analyses a JOIN messages m ON m.id = a.message_row"
                )
            }
            members: dict[str, list[list[Any]]] = {}
            for sid, key, role, pos in conn.execute(
                "SELECT series_id, message_key, role, position FROM series_members"
                " ORDER BY series_id, position, message_key"
            ):
                members.setdefault(sid, []).append([key, role, pos])
            series = {
                sid: {"name": name, "version": ver, "total": total, "tree": tree,
                      "author": author, "date_utc": utc, "complete": complete,
                      "doc": json.loads(doc), "members": members.get(sid, []),
                      "claims": claims, "effect": effect}
                for sid, name, ver, total, tree, author, utc, complete, doc, claims, effect
                in conn.execute(
                    "SELECT id, name, version, total, tree, author, date_utc, complete, doc,"
                    " claims, effect FROM series"
                )
            }
            rejections = {
                key: {"analyzer_version": ver, "reason": reason}
                for key, ver, reason in conn.execute(
                    f"SELECT {_MESSAGE_KEY}, r.analyzer_version, r.reason"
                    " FROM rejections r JOIN messages m ON m.id = r.message_row"
                )
            }
            claims: dict[str, dict[str, Any]] = {}
            for key, cid, doc in conn.execute(
                f"SELECT {_MESSAGE_KEY}, c.id, c.doc FROM claims c"
                " JOIN messages m ON m.id = c.found_row"
            ):
                claims.setdefault(key, {})[cid] = json.loads(doc)
            robot = {
                key: {"series_id": sid, "rule": rule, "reason": reason, "date_utc": utc,
                      "doc": json.loads(doc)}
                for key, sid, rule, reason, utc, doc in conn.execute(
                    "SELECT message_key, series_id, rule, reason, date_utc, doc FROM robot_reports")
            }
            version = schema.stored_version(conn)
        return {"schema_version": version, "messages": messages, "analyses": analyses,
                "series": series, "rejections": rejections, "claims": claims,
                "robot_reports": robot}

    def _row_for(self, key: str, columns: str, *, join_analysis: bool = False) -> Any:
        join = " JOIN analyses a ON a.message_row = m.id" if join_analysis else ""
        if key.startswith("sha256:"):
            where, value = "m.content_hash = ?", key[len("sha256:"):]
        else:
            where, value = "m.message_id = ?", normalize_message_id(key) or key
        with self._guard():
            return self._conn.execute(
                f"SELECT {columns} FROM messages m{join} WHERE {where}", (value,)
            ).fetchone()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@lru_cache(maxsize=4096)
def _utc_of_iso(text: str) -> str | None:
    # a message's claims share its date: parsed once; a damaged stored date sorts last
    try:
        return _utc_text(datetime.fromisoformat(text))
    except (TypeError, ValueError):
        return None


def _utc_text(when: datetime | None) -> str | None:
    """A sortable UTC timestamp `YYYY-MM-DDTHH:MM:SS`; a naive time is taken as UTC."""
    if when is None:
        return None
    try:
        if when.tzinfo is not None:
            when = when.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        return None  # year 1 with a western offset: a hostile Date header, not a date
    # isoformat pads the year to 4 digits (strftime's %Y does not on glibc for years < 1000).
    return when.replace(microsecond=0).isoformat()


# One encoder each, made once: json.dumps with options builds a new one per call, which is
# a fifth of the time of encoding a claim's document.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
_SORTED = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode


def _compact_json(doc: Mapping[str, Any]) -> str:
    """A claim's document as stored: built in one fixed key order (serialize.claim_to_dict)
    and read back as JSON, so neither sorted nor spaced; a store holds tens of thousands."""
    return _COMPACT(doc)


def _analysis_row(item: AnalysisRecord) -> tuple[Any, ...]:
    return (item.message_row, item.analyzer_version, item.kind, item.subject, item.from_display,
            item.date.isoformat() if item.date else None, _utc_text(item.date), item.tree,
            _json(item.doc))


def encode_doc(doc: Mapping[str, Any]) -> str:
    """A message's or series' document as the store writes it (keys sorted). Public so a
    worker process can encode it, and the process that writes only writes."""
    return _SORTED(doc)


def _json(doc: Mapping[str, Any] | str) -> str:
    return doc if isinstance(doc, str) else encode_doc(doc)


def _effect(claim: Mapping[str, Any]) -> float | None:
    """The change a claim claims, absolute, percent: computed, else as stated (what the
    series list ranks by, SERIES_STATS)."""
    change = claim.get("change_pct")
    if change is None:
        change = claim.get("stated_change_pct")
    return None if change is None else abs(float(change))


# A part of the text, anywhere in a folded column: LIKE with the user's `%`, `_` and `\`
# escaped, the one substring test SQLite and PostgreSQL spell alike (instr/strpos differ).
# Both sides are casefolded, so SQLite's ASCII-blind LIKE changes nothing.
_CONTAINS = "{} LIKE ? ESCAPE '\\'"


class _Where:
    """A WHERE clause of the store's filters. The SQL is this module's literals only; what the
    user gave travels as parameters. A filter given None is left out."""

    def __init__(self) -> None:
        self.clauses: list[str] = ["TRUE"]
        self.params: list[Any] = []

    @property
    def sql(self) -> str:
        return " AND ".join(self.clauses)

    def add(self, clause: str, *params: Any) -> _Where:
        self.clauses.append(clause)
        self.params.extend(params)
        return self

    def equals(self, column: str, value: Any) -> _Where:
        return self if value is None else self.add(f"{column} = ?", value)

    def since(self, column: str, when: datetime | None) -> _Where:
        """Rows dated at or after `when` (UTC text compares as time)."""
        return self if when is None else self.add(f"{column} >= ?", _utc_text(when))

    def contains(self, column: str, text: str | None) -> _Where:
        """Rows whose folded `column` holds `text` anywhere, folded the same way."""
        return self if text is None else self.add(_CONTAINS.format(column), _like_part(fold(text)))


def _like_part(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _after_clause(columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
    """Rows after (values) in `ORDER BY c1 DESC NULLS LAST, c2 DESC NULLS LAST, ...`; the
    last column is never NULL (the id)."""
    column, value = columns[0], values[0]
    if len(columns) == 1:
        return f"{column} < ?", [value]
    rest, more = _after_clause(columns[1:], values[1:])
    if value is None:  # within the NULLs, which come last
        return f"({column} IS NULL AND {rest})", more
    return (f"({column} < ? OR {column} IS NULL OR ({column} = ? AND {rest}))",
            [value, value, *more])


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start:start + _CHUNK]


def _marks(values: Sequence[Any]) -> str:
    # `IN ()` is SQLite's alone; `IN (NULL)` matches nothing in both
    return ", ".join("?" * len(values)) if values else "NULL"
