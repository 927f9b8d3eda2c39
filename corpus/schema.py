"""The store's schema: ordered migrations and the connection factory.

Like b4's `SCHEMA_VERSION` plus ordered upgrades, and sqlite-utils' connection helpers. This is
the only module that writes DDL. The migrations are written once, in SQLite's dialect;
PostgreSQL runs them through `corpus.dialect.to_postgresql`. In a SQLite file `PRAGMA
user_version` holds the number of migrations applied and `PRAGMA application_id` marks the
file as a patchperf store, so we never add our tables to some other program's database; in a
PostgreSQL database the `patchperf_meta` table holds both.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from analyze.errors import StoreError

from . import connection
from .connection import (
    Database,
    PgDatabase,
    SqliteDatabase,
    connect_postgresql,
    describe_error,
    describe_pg_error,
)
from .dialect import to_postgresql
from .location import StoreLocation, resolve_store
from .records import fold

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SERIES_STATS", "connect", "describe_error",
           "stored_version"]

# 'pprf' in ASCII: `file(1)` and `PRAGMA application_id` show what the file is.
APPLICATION_ID = 0x70707266

# The claims of each series (read from, or first written in, one of its members): their count
# and the largest change they claim (each claim's `effect`, migration 8), on the series row.
# (`UPDATE ... FROM` needs SQLite 3.33, from 2020; Python 3.11's builds carry 3.40 and newer.)
SERIES_STATS = """
    UPDATE series SET claims = stats.n, effect = stats.effect
    FROM (
        SELECT member.series_id AS series_id, count(DISTINCT c.id) AS n,
               max(c.effect) AS effect
        FROM claims AS c
        JOIN series_members AS member ON member.message_key IN (c.origin, c.found_in)
        -- the robot's findings on a series are not its claims, read first-hand or quoted
        -- (migration 9)
        WHERE NOT EXISTS (SELECT 1 FROM robot_reports AS r
                          WHERE r.message_key IN (c.found_in, c.origin))
        GROUP BY member.series_id
    ) AS stats
    WHERE series.id = stats.series_id
"""

# Each entry is one migration: statements applied in one transaction, after which
# user_version is its 1-based position. Append only; never edit an entry once released.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        # Raw bytes verbatim. A message is keyed by its Message-ID when it has one, else by the
        # sha256 of its bytes (content_hash is unique in any case).
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            message_id TEXT UNIQUE,
            content_hash TEXT NOT NULL UNIQUE,
            raw BLOB NOT NULL,
            fmt TEXT NOT NULL,
            origin TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        ) STRICT
        """,
        # lore serves several messages under one Message-ID: the first stored is the message,
        # the others are kept here as its variants.
        """
        CREATE TABLE variants (
            id INTEGER PRIMARY KEY,
            message_row INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL UNIQUE,
            raw BLOB NOT NULL,
            fmt TEXT NOT NULL,
            origin TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX variants_message_row ON variants(message_row)",
        # Derived, recomputable (`patchperf analyze --all`): a few columns to select and sort
        # by, and the analysed message as JSON for the renderers.
        """
        CREATE TABLE analyses (
            message_row INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            analyzer_version TEXT NOT NULL,
            kind TEXT NOT NULL,
            subject TEXT,
            from_display TEXT,
            date TEXT,
            date_utc TEXT,
            tree TEXT,
            doc TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX analyses_date_utc ON analyses(date_utc)",
        "CREATE INDEX analyses_kind ON analyses(kind)",
        """
        CREATE TABLE series (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            total INTEGER,
            tree TEXT,
            author TEXT,
            date_utc TEXT,
            complete INTEGER,
            doc TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX series_date_utc ON series(date_utc)",
        # message_key is not a foreign key: a series may name a patch that was never stored
        # (a thread fetched in part).
        """
        CREATE TABLE series_members (
            series_id TEXT NOT NULL REFERENCES series(id) ON DELETE CASCADE,
            message_key TEXT NOT NULL,
            role TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (series_id, message_key)
        ) STRICT
        """,
        "CREATE INDEX series_members_message_key ON series_members(message_key)",
    ),
    (
        # 2: stored mail that analysis could not read (a limit, not a mail after all), so a
        # later ingest does not retry it and warn again; `analyze --all` still does.
        """
        CREATE TABLE rejections (
            message_row INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            analyzer_version TEXT NOT NULL,
            reason TEXT NOT NULL
        ) STRICT
        """,
    ),
    (
        # 3: performance claims, as read from each stored message (`found_row`); a claim
        # quoted down a thread is read from each reply, and merged by id when shown.
        """
        CREATE TABLE claims (
            id TEXT NOT NULL,
            found_row INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            origin TEXT,
            found_in TEXT NOT NULL,
            quoted INTEGER NOT NULL,
            metric TEXT NOT NULL,
            direction TEXT NOT NULL,
            date_utc TEXT,
            doc TEXT NOT NULL,
            -- found_row first: claims are replaced per message (save_claims)
            PRIMARY KEY (found_row, id)
        ) STRICT
        """,
        "CREATE INDEX claims_id ON claims(id)",
        "CREATE INDEX claims_origin ON claims(origin)",
        "CREATE INDEX claims_found_in ON claims(found_in)",
        "CREATE INDEX claims_date_utc ON claims(date_utc)",
    ),
    (
        # 4: two indexes each claim paid for on every write and no query used: nothing looks
        # a claim up by its id (claims are merged by id in memory), and the claims found in
        # given messages are looked up by `found_row`, the primary key's first column.
        "DROP INDEX claims_id",
        "DROP INDEX claims_found_in",
    ),
    (
        # 5: where each feed's sync stopped (`patchperf sync`): lore's last received time,
        # openwall's (day, count), Patchwork's last event; advanced only after the mail it
        # covers is committed.
        """
        CREATE TABLE cursors (
            feed TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated TEXT NOT NULL
        ) STRICT
        """,
    ),
    (
        # 6: what Patchwork says of a patch, beside our analysis: its patch and series ids and
        # the CI checks run on it (state, context, url), by the patch's Message-ID.
        """
        CREATE TABLE patchwork (
            message_id TEXT PRIMARY KEY,
            patch_id INTEGER,
            series_id INTEGER,
            checks TEXT NOT NULL DEFAULT '[]'
        ) STRICT
        """,
    ),
    (
        # 7: what the series list of the TUI and the digest sort and filter by, kept on the
        # series row so a page of a 100,000-message store is one indexed query: how many
        # claims a series has and the largest claimed change (SERIES_STATS, redone whenever
        # the series are rebuilt); and the simulator's verdicts once a claim was judged.
        "ALTER TABLE series ADD COLUMN claims INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE series ADD COLUMN effect REAL",
        # the list's two orders, newest first and largest change first, read straight off
        # an index: a page at any depth of 16,000 series is under a millisecond (a sort of
        # the whole table was 27 ms a page)
        "CREATE INDEX series_date_id ON series(date_utc, id)",
        "CREATE INDEX series_effect_date ON series(effect, date_utc, id)",
        # origin and found_in: the messages the claim was written in and read from, so the
        # verdict filter finds a claim's series through series_members' index
        """
        CREATE TABLE verdicts (
            claim_id TEXT PRIMARY KEY,
            scenario_id TEXT NOT NULL,
            status TEXT NOT NULL,
            origin TEXT,
            found_in TEXT NOT NULL,
            doc TEXT NOT NULL,
            judged_at TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX verdicts_status ON verdicts(status)",
        # SERIES_STATS as it was when this migration was written (a released migration never
        # changes, even if the statement the store runs does)
        """
        UPDATE series SET claims = stats.n, effect = stats.effect
        FROM (
            SELECT member.series_id AS series_id, count(DISTINCT c.id) AS n,
                   max(abs(coalesce(json_extract(c.doc, '$.change_pct'),
                                    json_extract(c.doc, '$.stated_change_pct')))) AS effect
            FROM claims AS c
            JOIN series_members AS member ON member.message_key IN (c.origin, c.found_in)
            GROUP BY member.series_id
        ) AS stats
        WHERE series.id = stats.series_id
        """,
    ),
    (
        # 8: what the series list searches and ranks by, computed in Python when written,
        # so SQLite and PostgreSQL search and rank alike: the name and author folded with
        # str.casefold (`straße` finds `STRASSE`; PostgreSQL has no casefold, SQLite's
        # lower() folds ASCII only), and each claim's largest change, its computed change
        # else the stated one (SERIES_STATS read it out of the document with SQLite's
        # json_extract). Back-filled here for the stores made before.
        "ALTER TABLE series ADD COLUMN name_folded TEXT",
        "ALTER TABLE series ADD COLUMN author_folded TEXT",
        "ALTER TABLE claims ADD COLUMN effect REAL",
        "UPDATE series SET name_folded = casefold(name), author_folded = casefold(author)",
        """
        UPDATE claims SET effect = abs(coalesce(json_extract(doc, '$.change_pct'),
                                                json_extract(doc, '$.stated_change_pct')))
        """,
    ),
    (
        # 9: the kernel test robot's reports (issue 23), each with the series it was linked
        # to (series_id, rule) or why none was (reason), redone with every series rebuild.
        # Keyed by the report's message key, not its row: a rebuild rewrites them all.
        """
        CREATE TABLE robot_reports (
            message_key TEXT PRIMARY KEY,
            series_id TEXT,
            rule TEXT,
            reason TEXT NOT NULL,
            date_utc TEXT,
            doc TEXT NOT NULL
        ) STRICT
        """,
        "CREATE INDEX robot_reports_series_id ON robot_reports(series_id)",
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)


def connect(location: StoreLocation | Path, *, readonly: bool = False) -> Database:
    """Open the store at `location`, set the connection up and bring the schema up to date.

    Autocommit mode: the store opens its transactions explicitly. Raises StoreError naming
    the store when it is not a database (a SQLite file), not a patchperf store, newer than
    this version knows, or cannot be opened or migrated.
    """
    location = resolve_store(location)
    if location.is_postgresql:
        return _connect_postgresql(location, readonly=readonly)
    assert location.path is not None
    path = location.path
    try:
        conn = _connect(path, f"mode={'ro' if readonly else 'rwc'}", readonly=readonly)
    except StoreError:
        if not (readonly and path.exists() and not os.access(path.parent, os.W_OK)):
            raise
        # A store on a read-only mount (or in a folder this user cannot write): SQLite
        # cannot make the `-shm` file a WAL store is read through. Nothing can write the
        # file there, so it is opened as immutable: read without locks or shared memory.
        conn = _connect(path, "mode=ro&immutable=1", readonly=True)
    return SqliteDatabase(conn, location)


def _connect(path: Path, query: str, *, readonly: bool) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?{query}"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the store ({exc})") from exc
    try:
        _configure(conn, path, readonly=readonly)
        _migrate(conn, path, readonly=readonly)
    except BaseException:
        conn.close()
        raise
    return conn


def _casefold(text: object) -> str | None:
    return fold(text) if isinstance(text, str) else None


def _configure(conn: sqlite3.Connection, path: Path, *, readonly: bool) -> None:
    # SQLite's lower() folds ASCII letters only: searches by name fold with Python's
    # casefold, so `Łukasz` finds `ŁUKASZ` and `straße` finds `STRASSE`
    conn.create_function("casefold", 1, _casefold, deterministic=True)
    try:
        conn.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_MS}")
        # The first read of the file: "file is not a database" surfaces here.
        conn.execute("PRAGMA schema_version").fetchone()
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            # Known to be ours (or empty) before anything is written: switching to WAL
            # rewrites the file's header, and another program's database is left as it was.
            _check_identity(conn, path)
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{path}: cannot switch the store to WAL mode (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: {describe_error(exc)}") from exc


def _migrate(conn: sqlite3.Connection, path: Path, *, readonly: bool) -> None:
    try:
        version = _check_identity(conn, path)
        if version == SCHEMA_VERSION:
            return
        if readonly and version == 0:
            # An empty file (or one `sqlite3` made and left): say so, not "upgrade from 0".
            raise StoreError(f"{path}: an empty file, not a patchperf store yet")
        if readonly:
            raise StoreError(
                f"{path}: the store has schema version {version}, this patchperf needs "
                f"{SCHEMA_VERSION}; open it once for writing to upgrade it"
            )
        # IMMEDIATE: two processes opening a fresh file at once migrate it one after the other.
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = _check_identity(conn, path)
            for number in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[number - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot prepare the store ({describe_error(exc)})") from exc


def _check_identity(conn: sqlite3.Connection, path: Path) -> int:
    """Return the schema version, refusing files that are not ours or are too new."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id not in (0, APPLICATION_ID):
        raise StoreError(f"{path}: not a patchperf store (application_id {app_id:#x})")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: the store has schema version {version}, newer than this patchperf "
            f"knows ({SCHEMA_VERSION}); upgrade patchperf"
        )
    if version == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise StoreError(f"{path}: a SQLite database, but not a patchperf store")
    return version


def stored_version(db: Database) -> int:
    """How many migrations the open store has had."""
    if isinstance(db, PgDatabase):
        return int(_pg_meta(db).get("schema_version", "0"))
    return int(db.execute("PRAGMA user_version").fetchone()[0])


# -- PostgreSQL ----------------------------------------------------------------------------

APPLICATION = "pprf"
META_TABLE = """
    CREATE TABLE patchperf_meta (
        key TEXT COLLATE "C" PRIMARY KEY,
        value TEXT COLLATE "C" NOT NULL
    )
"""


def _connect_postgresql(location: StoreLocation, *, readonly: bool) -> PgDatabase:
    db = connect_postgresql(location, readonly=readonly)
    try:
        _migrate_postgresql(db, readonly=readonly)
    except BaseException:
        db.close()
        raise
    return db


def _migrate_postgresql(db: PgDatabase, *, readonly: bool) -> None:
    location = db.location
    try:
        version = _check_pg_identity(db)
        if version == SCHEMA_VERSION:
            return
        if readonly and version == 0:
            raise StoreError(f"{location}: an empty database, not a patchperf store yet")
        if readonly:
            raise StoreError(
                f"{location}: the store has schema version {version}, this patchperf needs "
                f"{SCHEMA_VERSION}; open it once for writing to upgrade it"
            )
        # The writers' advisory lock: two processes opening a fresh database migrate it one
        # after the other (the second finds it done). DDL is transactional in PostgreSQL:
        # a failed migration leaves nothing behind.
        db.begin_write()
        try:
            version = _check_pg_identity(db)
            if version == 0 and not _pg_meta(db):
                db.execute(META_TABLE)
                db.execute("INSERT INTO patchperf_meta (key, value) VALUES (?, ?), (?, ?)",
                           ("application", APPLICATION, "schema_version", "0"))
            for number in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[number - 1]:
                    db.execute(to_postgresql(statement))
                db.execute("UPDATE patchperf_meta SET value = ? WHERE key = 'schema_version'",
                           (str(number),))
            db.commit()
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise
    except db.Error as exc:
        reason = describe_pg_error(exc) or _one_line(exc)
        raise StoreError(f"{location}: cannot prepare the store ({reason})") from exc


def _pg_meta(db: PgDatabase) -> dict[str, str]:
    """patchperf_meta as a dict; empty when the table is not there."""
    # a query of the catalog, not to_regclass(): that reads the session's catalog cache,
    # which still says "no such table" after another process made it meanwhile (taking an
    # advisory lock does not refresh it)
    found = db.execute("SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
                       " 'patchperf_meta' AND schemaname = current_schema()").fetchone()[0]
    if not found:
        return {}
    return {str(k): str(v) for k, v in db.execute("SELECT key, value FROM patchperf_meta")}


def _check_pg_identity(db: PgDatabase) -> int:
    """The schema version; refuses a database holding other tables, or a newer schema."""
    location = db.location
    meta = _pg_meta(db)
    if not meta:
        tables = db.execute("SELECT count(*) FROM information_schema.tables"
                            " WHERE table_schema = current_schema()").fetchone()[0]
        if tables:
            raise StoreError(f"{location}: a PostgreSQL database, but not a patchperf store "
                             "(it has tables and no patchperf_meta)")
        return 0
    if meta.get("application") != APPLICATION:
        raise StoreError(f"{location}: not a patchperf store "
                         f"(patchperf_meta names {meta.get('application')!r})")
    version = int(meta.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{location}: the store has schema version {version}, newer than this patchperf "
            f"knows ({SCHEMA_VERSION}); upgrade patchperf"
        )
    return version


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
