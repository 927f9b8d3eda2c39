"""The store's connection to SQLite or PostgreSQL, behind one small interface.

`corpus.store` writes its statements once, with `?` placeholders, in SQL both engines accept;
what still differs lives here: the placeholder style, how a write transaction starts, and
which failures are the user's (a locked, full or unreachable store: one line) and which are
ours (a bug, left to surface).

Writers take the store one at a time on both engines. SQLite does it itself (`BEGIN
IMMEDIATE`); on PostgreSQL a write transaction first takes one advisory lock, so a second
writer waits for the first to commit exactly as on SQLite, and each transaction sees all
that was committed before it (READ COMMITTED: every statement reads the latest commits, and
all of ours run after the lock is held). Readers never wait.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from analyze.errors import StoreError

from .dialect import pyformat
from .location import StoreLocation

if TYPE_CHECKING:
    import psycopg

# The key of the advisory lock every PostgreSQL write transaction holds ('pprf' 'wr'); an
# advisory lock is scoped to its database, so stores on one server do not wait for each other.
WRITE_LOCK = 0x7070726677720001
# Held for a whole `patchperf sync` (session-level): the file lock a SQLite store uses.
SYNC_LOCK = 0x7070726677720002
CONNECT_TIMEOUT_S = 10
# How long a SQLite writer waits for another's lock before it says the store is locked.
BUSY_TIMEOUT_MS = 5000
# How long a PostgreSQL writer waits for another's transaction (SQLite's busy timeout, 5 s,
# is far shorter: there a long `analyze --all` makes a second writer give up; here writers
# take turns a transaction at a time, so they queue, and only a stuck writer is an error).
PG_WRITE_WAIT_MS = 600_000


class SqliteDatabase:
    """A sqlite3 connection in autocommit mode; `execute` is sqlite3's own (no wrapper cost
    on the ingest and analysis paths)."""

    kind = "sqlite"
    Error: type[Exception] = sqlite3.Error

    def __init__(self, conn: sqlite3.Connection, location: StoreLocation) -> None:
        self.raw = conn
        self.location = location
        self.execute = conn.execute
        self.executemany = conn.executemany

    def stream(self, sql: str, params: Sequence[Any], size: int) -> Iterator[Any]:
        """The rows of a query as they are read, `size` at a time, never all at once."""
        cursor = self.raw.execute(sql, params)
        while chunk := cursor.fetchmany(size):
            yield from chunk

    def begin_write(self) -> None:
        # IMMEDIATE: the write lock now, not at the first write (no deadlock between two
        # transactions that each read first)
        self.raw.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.raw.execute("COMMIT")

    def rollback(self) -> None:
        self.raw.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self.raw.in_transaction

    def close(self) -> None:
        self.raw.close()

    def describe(self, exc: Exception) -> str | None:
        """The user-facing reason for a failure, or None for a bug of ours."""
        if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError
                      | sqlite3.InterfaceError):
            return None
        return describe_error(exc) if isinstance(exc, sqlite3.Error) else None


class PgDatabase:
    """A psycopg 3 connection in autocommit mode: a statement alone is its own transaction,
    `begin_write` opens one explicitly (like the SQLite connection)."""

    kind = "postgresql"

    def __init__(self, conn: psycopg.Connection[Any], location: StoreLocation) -> None:
        import psycopg

        self.raw = conn
        self.location = location
        self.Error: type[Exception] = psycopg.Error

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Any:
        return self.raw.execute(pyformat(sql), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(pyformat(sql), rows)

    def stream(self, sql: str, params: Sequence[Any], size: int) -> Iterator[Any]:
        """The rows of a query as they arrive, `size` at a time (psycopg's chunked mode):
        a client cursor would hold the whole result, a million documents in a rebuild.
        The connection runs nothing else until the rows are all read."""
        from psycopg import capabilities

        # rows `size` at a time need libpq 17 (psycopg's binary wheels carry it); an older
        # libpq streams them one at a time, slower but in as little memory
        size = size if capabilities.has_stream_chunked() else 1
        with self.raw.cursor() as cursor:
            yield from cursor.stream(pyformat(sql), tuple(params), size=size)

    def begin_write(self) -> None:
        self.raw.execute("BEGIN")
        self.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))

    def commit(self) -> None:
        self.raw.execute("COMMIT")

    def rollback(self) -> None:
        try:
            self.raw.execute("ROLLBACK")
        except self.Error:
            # Ctrl-C while a statement ran: the connection cannot take another command
            # ("another command is already in progress"). Closing it ends the session,
            # which rolls the transaction back all the same.
            self.raw.close()

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        self.raw.close()

    def describe(self, exc: Exception) -> str | None:
        return describe_pg_error(exc)


class Database(Protocol):
    """What the store asks of a connection (SqliteDatabase, PgDatabase)."""

    kind: str
    location: StoreLocation
    Error: type[Exception]

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Any: ...  # a DB-API cursor
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...
    def stream(self, sql: str, params: Sequence[Any], size: int) -> Iterator[Any]: ...
    def begin_write(self) -> None: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    @property
    def in_transaction(self) -> bool: ...
    def close(self) -> None: ...
    def describe(self, exc: Exception) -> str | None: ...


def connect_postgresql(location: StoreLocation, *, readonly: bool) -> PgDatabase:
    """Connect to the database at `location.url` (autocommit; read-only sessions refuse
    writes). StoreError naming the URL, without its password, when it cannot."""
    try:
        import psycopg
    except ImportError:
        raise StoreError(f"{location}: a PostgreSQL store needs the driver: "
                         "install patchperf[postgresql]") from None
    options = f"-c lock_timeout={PG_WRITE_WAIT_MS}"
    if readonly:
        options += " -c default_transaction_read_only=on"
    settings: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S,
                                "application_name": "patchperf", "options": options}
    try:
        conn = psycopg.connect(location.url or "", autocommit=True, **settings)
    except psycopg.Error as exc:
        raise StoreError(f"{location}: cannot open the store ({_first_line(exc)})") from exc
    conn.adapters.register_dumper(str, _nul_safe_dumper())
    return PgDatabase(conn, location)


def _nul_safe_dumper() -> type:
    """psycopg's text dumper, with NUL as U+FFFD: PostgreSQL's text cannot hold a NUL, which
    SQLite's can, and hostile mail puts one in a subject or a search (`--author $'\\0'`).
    Writes and searches are both replaced, so a search still finds what it would have."""
    from psycopg.types.string import StrDumperUnknown

    class NulSafeStrDumper(StrDumperUnknown):
        def dump(self, obj: str) -> Any:
            return super().dump(obj.replace("\x00", "\ufffd"))

    return NulSafeStrDumper


@contextmanager
def session_lock(location: StoreLocation, key: int, *, wait: bool) -> Iterator[bool]:
    """Hold PostgreSQL's advisory lock `key` on a connection of its own for the block (a
    lock of the session: held across the transactions of the command's other connection,
    freed when this one closes, even when the process dies). Yields False, holding nothing,
    when another session holds it and not `wait`."""
    db = connect_postgresql(location, readonly=False)
    try:
        try:
            if wait:
                db.raw.execute("SELECT pg_advisory_lock(%s)", (key,))
                held = True
            else:
                row = db.raw.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                held = bool(row and row[0])
        except db.Error as exc:
            raise StoreError(f"{location}: {describe_pg_error(exc) or _first_line(exc)}") from exc
        yield held
    finally:
        db.close()


def describe_pg_error(exc: Exception) -> str | None:
    """A one-line reason for a PostgreSQL failure the user can act on; None for our bugs
    (syntax, a missing table or column, a broken constraint)."""
    from psycopg import errors

    if isinstance(exc, errors.ReadOnlySqlTransaction):
        return "the store is read-only (opened for reading)"
    if isinstance(exc, errors.InsufficientPrivilege):
        return f"permission denied ({_first_line(exc)}): grant the role rights on the database"
    if isinstance(exc, errors.DiskFull):
        return ("the server's disk is full: nothing past the last commit was written, and "
                "what was stored before is intact")
    if isinstance(exc, errors.LockNotAvailable):
        return (f"the store is locked by another process (waited {PG_WRITE_WAIT_MS} ms for "
                "its write to end)")
    if isinstance(exc, errors.DeadlockDetected | errors.SerializationFailure):
        return f"a concurrent write conflicted ({_first_line(exc)}); run the command again"
    if isinstance(exc, errors.OperationalError):
        return _first_line(exc) or type(exc).__name__
    return None


def _first_line(exc: Exception) -> str:
    # libpq's messages run over several lines ("Is the server running...?"); they never
    # carry the password
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), "")


def describe_error(exc: sqlite3.Error) -> str:
    """A one-line, user-facing reason for a SQLite failure."""
    text = str(exc)
    if "not a database" in text:
        return "not a SQLite database, or corrupt (left untouched)"
    if "readonly" in text or "read-only" in text:
        return "the store is read-only (check the file's and its folder's permissions)"
    if "locked" in text or "busy" in text:
        return f"the store is locked by another process (waited {BUSY_TIMEOUT_MS} ms)"
    if "malformed" in text or "corrupt" in text:
        return ("the store file is corrupted (left as it is; `sqlite3 FILE .recover` saves "
                "what can still be read)")
    if "full" in text:
        return ("the disk is full: nothing past the last commit was written, and what was "
                "stored before is intact")
    return text
