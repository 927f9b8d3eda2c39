"""What only a PostgreSQL store has: patchperf_meta instead of SQLite's pragmas, refusals of
a database that is not ours, migrations under the writers' lock, writers taking turns, errors
that name the URL without its password. Run in the PostgreSQL pass of `make test` (the rest
of the store's tests run there too, through the `db` fixture)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import psycopg
import pytest
from stores import ON_POSTGRESQL

from analyze.errors import StoreError
from corpus import connection, schema
from corpus.dialect import to_postgresql
from corpus.store import Store

pytestmark = [
    pytest.mark.store,
    pytest.mark.skipif(not ON_POSTGRESQL, reason="runs in the PostgreSQL pass "
                       "(PATCHPERF_TEST_BACKEND=postgresql)"),
]


def mail(mid: str) -> bytes:
    return f"Message-ID: <{mid}>\nSubject: test\nFrom: A <a@example.org>\n\nhello\n".encode()


def sql(url: str, statement: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


def test_a_fresh_database_gets_the_schema_and_its_meta(db) -> None:
    with Store.open(db) as store:
        store.add_raw(mail("a@x"), message_id="a@x", fmt="eml", origin="t")
        assert store.dump()["schema_version"] == schema.SCHEMA_VERSION
        store.check(full=True)
    meta = dict(sql(db, "SELECT key, value FROM patchperf_meta"))
    assert meta == {"application": "pprf", "schema_version": str(schema.SCHEMA_VERSION)}
    # every text column sorts bytewise, whatever the database's own collation
    collations = sql(db, "SELECT DISTINCT collation_name FROM information_schema.columns"
                         " WHERE table_schema = 'public' AND data_type = 'text'")
    assert collations == [("C",)]
    assert sql(db, "SELECT is_identity FROM information_schema.columns"
                   " WHERE table_name = 'messages' AND column_name = 'id'") == [("YES",)]


def test_refuses_a_database_with_other_tables_and_leaves_it(db) -> None:
    sql(db, "CREATE TABLE things (x int)")
    with pytest.raises(StoreError, match="not a patchperf store") as err:
        Store.open(db)
    assert str(err.value).startswith(db) and "\n" not in str(err.value)
    assert sql(db, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == [("things",)]


def test_refuses_a_newer_schema_and_another_application(db) -> None:
    Store.open(db).close()
    sql(db, "UPDATE patchperf_meta SET value = %s WHERE key = 'schema_version'",
        (str(schema.SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match="newer than this patchperf"):
        Store.open(db)
    sql(db, "UPDATE patchperf_meta SET value = 'xyzw' WHERE key = 'application'")
    with pytest.raises(StoreError, match="not a patchperf store"):
        Store.open(db, readonly=True)


def test_reading_an_empty_database_makes_nothing(db) -> None:
    with pytest.raises(StoreError, match="an empty database, not a patchperf store yet"):
        Store.open(db, readonly=True)
    assert sql(db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]


def test_migrates_a_version_1_database_keeping_its_mail(db) -> None:
    for statement in schema.MIGRATIONS[0]:
        sql(db, to_postgresql(statement))
    sql(db, schema.META_TABLE)
    sql(db, "INSERT INTO patchperf_meta VALUES ('application', 'pprf'), ('schema_version', '1')")
    sql(db, "INSERT INTO messages (message_id, content_hash, raw, fmt, origin, ingested_at)"
            " VALUES ('a@x', 'h', %s, 'eml', 'old', '2024-01-01T00:00:00+00:00')", (mail("a@x"),))
    with Store.open(db) as store:
        assert store.get_raw("a@x") == mail("a@x")
        assert store.unanalyzed_rows() == [1]
        # the identity goes on after the row the old schema numbered
        assert store.add_raw(mail("b@x"), message_id="b@x", fmt="eml", origin="t").row == 2
    assert sql(db, "SELECT value FROM patchperf_meta WHERE key = 'schema_version'") == [
        (str(schema.SCHEMA_VERSION),)]


def test_processes_opening_a_fresh_database_at_once_migrate_it_once(db) -> None:
    code = "import sys; from corpus.store import Store; Store.open(sys.argv[1]).close()"
    runs = [subprocess.Popen([sys.executable, "-c", code, db], stderr=subprocess.PIPE)
            for _ in range(4)]
    errors = [run.communicate()[1].decode() for run in runs]
    assert [run.returncode for run in runs] == [0] * 4, errors
    with Store.open(db) as store:
        assert store.dump()["schema_version"] == schema.SCHEMA_VERSION


def test_writers_take_turns_and_readers_do_not_wait(db) -> None:
    done: list[str] = []
    with Store.open(db) as first, Store.open(db) as second:
        with first.batch():
            first.add_raw(mail("a@x"), message_id="a@x", fmt="eml", origin="first")

            def write() -> None:
                second.add_raw(mail("b@x"), message_id="b@x", fmt="eml", origin="second")
                done.append("second")

            writer = threading.Thread(target=write)
            writer.start()
            time.sleep(0.5)
            assert done == []  # waiting for the first writer's transaction
            with Store.open(db, readonly=True) as reader:  # a reader does not wait
                assert reader.counts().messages == 0
            done.append("first")
        writer.join(10)
    assert done == ["first", "second"]
    with Store.open(db) as store:
        assert store.counts().messages == 2


def test_a_writer_that_waits_too_long_says_the_store_is_locked(db, monkeypatch) -> None:
    monkeypatch.setattr(connection, "PG_WRITE_WAIT_MS", 100)
    with Store.open(db) as holder, Store.open(db) as waiter, holder.batch(), \
            pytest.raises(StoreError, match="locked by another process") as err:
        waiter.add_raw(mail("a@x"), message_id="a@x", fmt="eml", origin="t")
    assert "\n" not in str(err.value)


def test_errors_name_the_url_without_its_password(db) -> None:
    refused = "postgresql://ana:s3cret@127.0.0.1:1/patchperf"  # nothing listens on port 1
    with pytest.raises(StoreError, match="cannot open the store") as err:
        Store.open(refused)
    assert "s3cret" not in str(err.value) and "ana:***@127.0.0.1:1" in str(err.value)
    assert "\n" not in str(err.value)
    missing = db.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(missing)


def test_without_the_driver_says_what_to_install(db, monkeypatch) -> None:
    with monkeypatch.context() as patched:
        patched.setitem(sys.modules, "psycopg", None)  # as if it were not installed
        with pytest.raises(StoreError, match=r"install patchperf\[postgresql\]"):
            Store.open(db)


def test_check_and_its_command(db, cli) -> None:
    with Store.open(db) as store:
        store.add_raw(mail("a@x"), message_id="a@x", fmt="eml", origin="t")
        with pytest.raises(StoreError, match="own write-ahead log"):
            store.journal_mode()
    result = cli("check", "--full", "--db", db)
    assert result.code == 0 and result.out.startswith(f"{db}: ok, 1 messages")


def test_the_same_mail_gives_the_same_store_on_both_engines(db, tmp_path, seeds_dir) -> None:
    """The bundled corpus and the seeds (claims, verdicts, series stats) ingested into a
    SQLite file and into PostgreSQL: equal dumps, the same series list pages."""
    from stores import ingest_into

    from corpus.bundled import bundled_threads

    sqlite_file = tmp_path / "same.db"
    with bundled_threads() as folder:
        mail = [*sorted(folder.glob("*.mbox")), *sorted(seeds_dir.glob("*.txt"))]
        for store in (sqlite_file, db):
            ingest_into(store, *mail)
            assert cli_ok(store, "report", "--all", "--verdicts", "--format", "json")
    with Store.open(sqlite_file) as lite, Store.open(db) as pg:
        assert pg.dump() == lite.dump()
        for sort in ("date", "effect"):
            assert pg.series_page(sort=sort) == lite.series_page(sort=sort)
            assert pg.series_page(sort=sort, search="NET") == lite.series_page(sort=sort, search="net")
        assert pg.trees() == lite.trees()
        assert pg.claim_docs() == lite.claim_docs()


def cli_ok(store, *args: str) -> bool:
    from reports.cli import main

    return main(["--db", str(store), "--quiet", *args, "-o", "/dev/null"]) == 0
