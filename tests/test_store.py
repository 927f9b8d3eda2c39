"""The store (SQLite, and PostgreSQL with PATCHPERF_TEST_BACKEND=postgresql): dedupe,
variants, migrations, refusals, batches, queries. What only a SQLite file has (pragmas, the
file's own faults, `sqlite:///`) is marked sqlite_only; tests/test_store_postgresql.py has
PostgreSQL's own."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import ON_POSTGRESQL, variants_of

from analyze.errors import StoreError
from analyze.mail.message import content_hash
from corpus import connection, schema
from corpus.location import resolve_store
from corpus.store import AnalysisRecord, SeriesRecord, Store


@pytest.fixture
def fresh_store(db):
    """A new store: a real temp file (WAL needs a file, not :memory:), or a new database."""
    with Store.open(db) as store:
        yield store


HOUR = 3600.0  # a batch's age limit that a test never reaches


def mail(mid: str | None, body: str = "hello") -> bytes:
    head = f"Message-ID: <{mid}>\n" if mid else ""
    return f"{head}Subject: test\nFrom: A <a@example.org>\n\n{body}\n".encode()


def add(store: Store, data: bytes, mid: str | None, origin: str = "test"):
    return store.add_raw(data, message_id=mid, fmt="eml", origin=origin)


# -- dedupe ----------------------------------------------------------------------------------


def test_same_bytes_twice_is_one_row(fresh_store):
    first = add(fresh_store, mail("a@x"), "<a@x>")
    before = fresh_store.dump()
    again = add(fresh_store, mail("a@x"), "<a@x>", origin="elsewhere")
    assert (first.status, again.status) == ("new", "duplicate")
    assert first.row == again.row and first.key == again.key == "a@x"
    assert fresh_store.dump() == before
    assert fresh_store.counts().messages == 1


def test_raw_bytes_are_kept_verbatim(fresh_store):
    data = b"Message-ID: <v@x>\r\n\r\n\x00\xff\xfe trailing  \r\n"
    add(fresh_store, data, "v@x")
    assert fresh_store.get_raw("<v@x>") == data
    assert [r.data for r in fresh_store.iter_raw()] == [data]


def test_other_bytes_under_a_known_message_id_are_a_variant(fresh_store):
    # lore serves several messages under one Message-ID (docs/sources.md)
    first = add(fresh_store, mail("m@x", "one"), "m@x")
    other = add(fresh_store, mail("m@x", "two"), "m@x", origin="lore")
    again = add(fresh_store, mail("m@x", "two"), "m@x")
    assert (first.status, other.status, again.status) == ("new", "variant", "duplicate")
    assert first.row == other.row == again.row
    counts = fresh_store.counts()
    assert (counts.messages, counts.variants) == (1, 1)
    assert fresh_store.get_raw("m@x") == mail("m@x", "one")
    assert variants_of(fresh_store, "m@x") == [mail("m@x", "two")]


def test_no_message_id_dedupes_by_content_hash(fresh_store):
    data = mail(None, "anonymous")
    first = add(fresh_store, data, None)
    again = add(fresh_store, data, None)
    other = add(fresh_store, mail(None, "other"), None)
    assert first.key == f"sha256:{content_hash(data)}"
    assert (first.status, again.status, other.status) == ("new", "duplicate", "new")
    assert fresh_store.counts().messages == 2
    assert fresh_store.get_raw(first.key) == data


def test_hostile_message_id_is_only_ever_a_parameter(fresh_store):
    mid = "x'); DROP TABLE messages; --@evil"
    assert add(fresh_store, mail(mid), mid).status == "new"
    assert fresh_store.get_raw(mid) == mail(mid)
    assert fresh_store.series_for(mid) == []


# -- opening, migrations, refusals ------------------------------------------------------------


@pytest.mark.sqlite_only("an empty file")
def test_migrates_an_empty_file_and_reopens(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with Store.open(path) as store:
        add(store, mail("a@x"), "a@x")
        dump = store.dump()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
    with Store.open(path) as store:
        assert store.dump() == dump
        assert dump["schema_version"] == schema.SCHEMA_VERSION


@pytest.mark.sqlite_only("the file's folders")
def test_open_creates_parent_folders(tmp_path):
    path = tmp_path / "a" / "b" / "c.db"
    with Store.open(path):
        pass
    assert path.is_file()


@pytest.mark.sqlite_only("SQLite's pragmas")
def test_connection_pragmas(fresh_store):
    conn = fresh_store._conn
    assert fresh_store.journal_mode() == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == connection.BUSY_TIMEOUT_MS
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    fresh_store.check()


@pytest.mark.sqlite_only("PRAGMA user_version (test_store_postgresql: patchperf_meta)")
def test_refuses_a_newer_schema(tmp_path):
    path = tmp_path / "new.db"
    with Store.open(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this patchperf") as err:
        Store.open(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.sqlite_only("a file that is no database")
def test_refuses_a_file_that_is_not_a_database_and_leaves_it(tmp_path):
    path = tmp_path / "mail.db"
    content = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" * 200
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not a SQLite database") as err:
        Store.open(path)
    assert str(path) in str(err.value)
    assert path.read_bytes() == content  # never silently recreated


@pytest.mark.sqlite_only("a SQLite file of another program (test_store_postgresql: a database)")
def test_refuses_another_programs_database(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE things (x)")
    with pytest.raises(StoreError, match="not a patchperf store"):
        Store.open(path)


@pytest.mark.sqlite_only("a SQLite file of another program, its journal mode")
@pytest.mark.parametrize("app_id", [0, 0x12345678])
def test_another_programs_database_is_not_written_before_it_is_refused(tmp_path, cli, app_id):
    """ingest, sync and tui switched another application's SQLite file to WAL before they
    refused it: nothing is written to a file before it is known to be a patchperf store."""
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA application_id = {app_id}")
        conn.execute("CREATE TABLE things (x)")
        conn.execute("INSERT INTO things VALUES (1)")
    conn.close()
    before = path.read_bytes()
    mail_file = tmp_path / "m.eml"
    mail_file.write_bytes(mail("a@x"))
    result = cli("ingest", str(mail_file), "--db", str(path))
    assert result.code == 2 and "not a patchperf store" in result.err
    with pytest.raises(StoreError, match="not a patchperf store"):
        Store.open(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.eml", "other.db"]
    synced = cli("sync", "lore:netdev", "--db", str(path))
    assert synced.code == 2 and "not a patchperf store" in synced.err
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.eml", "other.db"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


@pytest.mark.sqlite_only("a folder for a file")
def test_refuses_a_folder(tmp_path):
    with pytest.raises(StoreError, match="folder"):
        Store.open(tmp_path)


def test_read_only_store_refuses_writes_clearly(db):
    with Store.open(db) as store:
        add(store, mail("a@x"), "a@x")
    with Store.open(db, readonly=True) as store:
        assert store.get_raw("a@x") == mail("a@x")
        with pytest.raises(StoreError, match="read-only") as err:
            add(store, mail("b@x"), "b@x")
        assert str(store.location) in str(err.value)
        assert store.counts().messages == 1


@pytest.mark.sqlite_only("a missing file, sqlite:/// URLs")
@pytest.mark.parametrize("spell", [str, lambda p: f"sqlite:///{p}"])
def test_read_only_open_of_a_missing_store_creates_nothing(tmp_path, spell):
    # `patchperf report --db typo.db` must not leave an empty store behind
    path = tmp_path / "no" / "such.db"
    with pytest.raises(StoreError, match="no such store") as err:
        Store.open(spell(path), readonly=True)
    assert str(path) in str(err.value)
    assert not (tmp_path / "no").exists()


@pytest.mark.sqlite_only("an empty file")
def test_read_only_open_of_an_empty_file_says_so_and_leaves_it(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError, match="empty file, not a patchperf store"):
        Store.open(path, readonly=True)
    assert path.read_bytes() == b""


def test_read_only_reads_while_a_writer_has_the_store_open(fresh_store):
    # `patchperf report` while `patchperf ingest` runs: WAL lets the reader in
    add(fresh_store, mail("a@x"), "a@x")
    if not fresh_store.is_postgresql:
        assert fresh_store.path.with_name(fresh_store.path.name + "-wal").exists()
    with Store.open(fresh_store.location, readonly=True) as reader:
        assert reader.get_raw("a@x") == mail("a@x")
        add(fresh_store, mail("b@x"), "b@x")
        assert reader.counts().messages == 2  # a later commit is seen by the next read
        with fresh_store.batch(commit_seconds=HOUR):
            add(fresh_store, mail("c@x"), "c@x")
            assert reader.counts().messages == 2  # the open batch is not
            assert reader.get_raw("c@x") is None
    assert fresh_store.counts().messages == 3


def _make_unwritable(path):
    """Make `path` unwritable even for root (who ignores mode bits): `chattr +i` there,
    chmod elsewhere. Returns the undo function."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        path.parent.chmod(0o555)
        return lambda: (path.parent.chmod(0o755), path.chmod(0o644))
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.fail("running as root, the test needs `chattr +i` (e2fsprogs) on a filesystem that supports it")
    return lambda: subprocess.run([chattr, "-i", str(path)], check=True)


@pytest.mark.sqlite_only("file permissions")
def test_unwritable_file_gives_store_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "perm.db"
    with Store.open(path) as store:
        add(store, mail("a@x"), "a@x")
    undo = _make_unwritable(path)
    try:
        with pytest.raises(StoreError, match=re.escape(str(path))), Store.open(path) as store:
            add(store, mail("b@x"), "b@x")
    finally:
        undo()
    with Store.open(path) as store:  # left consistent: the first message, nothing else
        assert store.counts().messages == 1


# -- batches ----------------------------------------------------------------------------------


def test_batch_commits_every_n_and_rolls_back_the_open_part(fresh_store, tmp_path):
    with pytest.raises(RuntimeError), fresh_store.batch(commit_every=3, commit_seconds=HOUR):
        for i in range(7):
            add(fresh_store, mail(f"{i}@x"), f"{i}@x")
        # a second connection (another process) already sees the committed chunks
        with Store.open(fresh_store.location, readonly=True) as other:
            assert other.counts().messages == 6
        raise RuntimeError("crash mid-batch")
    assert fresh_store.counts().messages == 6
    assert add(fresh_store, mail("6@x"), "6@x").status == "new"


def test_batch_commits_once_its_open_part_is_old_enough(fresh_store):
    # a slow run (a backfill analysing as it stores) keeps all but its last moments of mail
    with pytest.raises(RuntimeError), fresh_store.batch(commit_seconds=1.0):
        add(fresh_store, mail("a@x"), "a@x")  # too soon: still open
        with Store.open(fresh_store.location, readonly=True) as other:
            assert other.counts().messages == 0
            time.sleep(1.05)
            add(fresh_store, mail("b@x"), "b@x")  # the open part is old: both committed
            assert other.counts().messages == 2
            add(fresh_store, mail("c@x"), "c@x")  # the clock starts again at that commit
            assert other.counts().messages == 2
        raise RuntimeError("stopped")
    assert fresh_store.counts().messages == 2


def test_batch_rollback_leaves_nothing_partial(fresh_store):
    before = fresh_store.dump()
    with pytest.raises(RuntimeError), fresh_store.batch(commit_seconds=HOUR):
        add(fresh_store, mail("a@x", "one"), "a@x")
        add(fresh_store, mail("a@x", "two"), "a@x")  # a variant row
        raise RuntimeError("crash")
    assert fresh_store.dump() == before
    assert fresh_store.counts() == fresh_store.counts().__class__(0, 0, 0, 0)


def test_batch_reports_each_mail(fresh_store):
    with fresh_store.batch(commit_every=2):
        results = [
            fresh_store.add_raw(mail("a@x"), message_id="a@x", fmt="mbox", origin="f#1"),
            fresh_store.add_raw(mail("a@x"), message_id="a@x", fmt="mbox", origin="f#2"),
            fresh_store.add_raw(mail("a@x", "x"), message_id="a@x", fmt="mbox", origin="f#3"),
            fresh_store.add_raw(mail(None), message_id=None, fmt="mbox", origin="f#4"),
        ]
    assert [r.status for r in results] == ["new", "duplicate", "variant", "new"]
    assert [r.row for r in fresh_store.iter_raw([results[3].row, 999])] == [results[3].row]
    assert [r.origin for r in fresh_store.iter_raw()] == ["f#1", "f#4"]


def test_iter_raw_streams_past_one_chunk(fresh_store):
    with fresh_store.batch():
        rows = [add(fresh_store, mail(f"{i}@x"), f"{i}@x", origin=f"f#{i}").row
                for i in range(1200)]
    assert [r.row for r in fresh_store.iter_raw()] == rows
    assert [r.row for r in fresh_store.iter_raw(rows[::-2])] == sorted(rows[::-2])


# -- analyses and series ----------------------------------------------------------------------

PARIS = timezone(timedelta(hours=2))


def test_unanalyzed_mail_is_streamed(fresh_store, monkeypatch):
    monkeypatch.setattr("corpus.store._CHUNK", 2)  # pages of two rows: keyset paging runs
    rows = [add(fresh_store, mail(f"{i}@x"), f"{i}@x").row for i in range(5)]
    fresh_store.save_analyses([AnalysisRecord(rows[1], "1", "patch", {})])
    fresh_store.save_rejection(rows[3], "2", "too big")
    assert [r.row for r in fresh_store.iter_unanalyzed("1")] == [rows[0], *rows[2:]]
    assert [r.row for r in fresh_store.iter_unanalyzed("2")] == [rows[0], rows[1], rows[2], rows[4]]
    assert [r.data for r in fresh_store.iter_unanalyzed("2")][0] == mail("0@x")
    # analysed while they are read (what analyze_rows does): every row still comes once
    seen = []
    for raw in fresh_store.iter_unanalyzed("3"):
        seen.append(raw.row)
        fresh_store.save_analyses([AnalysisRecord(raw.row, "3", "patch", {})])
    assert seen == rows
    assert list(fresh_store.iter_unanalyzed("3")) == []


def test_analyses_and_queries(fresh_store):
    rows = [add(fresh_store, mail(f"{i}@x"), f"{i}@x").row for i in range(3)]
    anon = add(fresh_store, mail(None), None)
    assert fresh_store.unanalyzed_rows() == [*rows, anon.row]
    dates = [datetime(2024, 1, 1, 1, 0, tzinfo=PARIS), datetime(2024, 1, 3, tzinfo=UTC), None]
    fresh_store.save_analyses(
        AnalysisRecord(row, "1", "patch", {"message_id": f"{i}@x"}, date=dates[i])
        for i, row in enumerate(rows)
    )
    assert fresh_store.unanalyzed_rows() == [anon.row]
    assert fresh_store.unanalyzed_rows("2") == [*rows, anon.row]
    assert fresh_store.get_message_doc("<1@x>") == {"message_id": "1@x"}
    assert fresh_store.get_message_doc(anon.key) is None
    # 01:00 in Paris is 23:00 UTC the day before: sorting is by UTC
    since = fresh_store.messages_since(datetime(2023, 12, 31, 22, tzinfo=UTC))
    assert [d["message_id"] for d in since] == ["0@x", "1@x"]
    assert [d["message_id"] for d in fresh_store.iter_message_docs()] == ["0@x", "1@x", "2@x"]
    # a hostile Date (year 1, east of UTC) has no UTC time; it is stored, just not dated
    fresh_store.save_analyses(
        [AnalysisRecord(anon.row, "1", "other", "{}", date=datetime(1, 1, 1, tzinfo=PARIS))]
    )
    assert fresh_store.dump()["analyses"][anon.key]["date_utc"] is None
    dump = fresh_store.dump()
    assert dump["analyses"]["0@x"]["date_utc"] == "2023-12-31T23:00:00"
    assert dump["analyses"]["0@x"]["date"] == "2024-01-01T01:00:00+02:00"


def test_series_save_replace_and_lookup(fresh_store):
    doc = {"id": "s1", "patches": ["p1@x", "p2@x"]}
    s1 = SeriesRecord("s1", "net: thing", 2, doc, total=2, cover="c@x",
                      patches=("p1@x", "p2@x"), date=datetime(2024, 2, 1, tzinfo=UTC),
                      complete=True)
    s2 = SeriesRecord("s2", "tcp: other", 1, {"id": "s2"}, patches=("q@x",),
                      date=datetime(2024, 1, 1, tzinfo=UTC))
    assert fresh_store.save_series([s1, s2]) == 2
    assert fresh_store.series_for("s1") == [doc]
    assert fresh_store.series_for("<p2@x>") == [doc]
    assert fresh_store.series_for("nothing") == []
    assert [d["id"] for d in fresh_store.all_series()] == ["s2", "s1"]
    assert fresh_store.load_series(["s1", "zz", "s2"]) == [doc, {"id": "s2"}]
    assert fresh_store.series_since(datetime(2024, 1, 15, tzinfo=UTC)) == [doc]
    assert fresh_store.dump()["series"]["s1"]["members"] == [
        ["c@x", "cover", 0], ["p1@x", "patch", 1], ["p2@x", "patch", 2]]

    # saving s1 again replaces its members; replace_all drops the others
    fresh_store.save_series([SeriesRecord("s1", "net: thing", 2, doc, patches=("p3@x",))])
    assert fresh_store.series_for("p1@x") == []
    assert fresh_store.series_for("p3@x") == [doc]
    fresh_store.save_series([], replace_all=True)
    assert fresh_store.counts().series == 0
    assert fresh_store.dump()["series"] == {}


# -- paths ------------------------------------------------------------------------------------


def test_default_db_path_is_in_the_user_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_store(None).path == tmp_path / "xdg" / "patchperf" / "patchperf.db"


def test_patchperf_db_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("PATCHPERF_DB", str(tmp_path / "x.db"))
    assert resolve_store(None).path == tmp_path / "x.db"
    monkeypatch.setenv("PATCHPERF_DB", f"sqlite:///{tmp_path}/y.db")
    assert resolve_store(None).path == tmp_path / "y.db"
    assert resolve_store("sqlite:///rel.db").path == Path("rel.db")
    with pytest.raises(StoreError, match="unsupported store URL"):
        resolve_store("mysql://db/x")
    postgresql = resolve_store("postgresql://db/x")
    assert postgresql.is_postgresql and postgresql.path is None


# -- property: order does not matter ----------------------------------------------------------

mids = st.one_of(st.none(), st.sampled_from(["a@x", "b@x", "c@x", "d@x", "e@x", "f@x"]))
bodies = st.text(alphabet="abc\n>", max_size=20)


# a new store costs a quarter second on PostgreSQL (four an example): fewer examples there
@settings(max_examples=8 if ON_POSTGRESQL else 30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(mids, bodies), max_size=12).flatmap(
        lambda xs: st.tuples(st.just(xs), st.permutations(xs))
    )
)
def test_any_permutation_gives_the_same_dump(make_db, pair):
    mails, shuffled = pair

    # one body per Message-ID, so no variants: which variant comes first depends on order
    body_of: dict[str, str] = {}
    for mid, body in mails:
        if mid:
            body_of.setdefault(mid, body)

    def stored(items):
        with Store.open(make_db()) as store:
            for mid, body in items:
                data = mail(mid, body_of[mid] if mid else body)
                store.add_raw(data, message_id=mid, fmt="eml", origin=content_hash(data))
            return store.dump()

    # with variants allowed, the same set of bytes ends up under each key
    def groups(items):
        with Store.open(make_db()) as store:
            for mid, body in items:
                store.add_raw(mail(mid, body), message_id=mid, fmt="eml", origin="o")
            return {
                key: sorted([m["content_hash"], *(v["content_hash"] for v in m["variants"])])
                for key, m in store.dump()["messages"].items()
            }

    assert stored(mails) == stored(shuffled)
    assert groups(mails) == groups(shuffled)


@pytest.mark.sqlite_only("a version 1 file made with sqlite3 (test_store_postgresql: a version 1 database)")
def test_migrates_a_version_1_store_keeping_its_mail(tmp_path):
    """A store made by the first schema opens under the current one with its rows intact."""
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    for statement in schema.MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO messages (message_id, content_hash, raw, fmt, origin, ingested_at)"
        " VALUES ('a@x', ?, ?, 'eml', 'old', '2024-01-01T00:00:00+00:00')",
        (content_hash(mail("a@x")), mail("a@x")),
    )
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        assert store.get_raw("a@x") == mail("a@x")
        assert store.unanalyzed_rows() == [1]
        store.save_rejection(1, "1", "too many MIME parts")
        assert store.unanalyzed_rows("1") == []
        assert store.unanalyzed_rows("2") == [1]  # a newer analyzer tries again
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION


# -- claims ----------------------------------------------------------------------------------


def _claim_doc(cid: str, found_in: str, metric: str = "throughput") -> dict:
    return {"id": cid, "message_id": found_in, "found_in": found_in, "quoted": False,
            "metric": metric, "direction": "improvement", "date": "2025-03-03T10:00:00+01:00"}


def test_claims_of_many_messages_replace_each_message_own(fresh_store):
    """save_claims_many replaces each listed message's claims, and only those."""
    a = add(fresh_store, mail("a@x"), "<a@x>").row
    b = add(fresh_store, mail("b@x"), "<b@x>").row
    fresh_store.save_claims_many([(a, [_claim_doc("c1", "a@x"), _claim_doc("c2", "a@x")]),
                                  (b, [_claim_doc("c3", "b@x")])])
    assert sorted(d["id"] for d in fresh_store.claim_docs()) == ["c1", "c2", "c3"]
    fresh_store.save_claims_many([(a, [_claim_doc("c4", "a@x", "latency")]), (b, [])])
    docs = fresh_store.claim_docs()
    assert [(d["id"], d["metric"]) for d in docs] == [("c4", "latency")]
    fresh_store.save_claims(a, [])
    assert fresh_store.claim_docs() == []


def test_claims_of_given_messages_by_where_found_or_first_written(fresh_store):
    """`keys` selects the claims found in those messages (a Message-ID, or `sha256:` for a
    mail without one) and the claims first written in them, wherever they were read."""
    a = add(fresh_store, mail("a@x"), "<a@x>")
    anon = add(fresh_store, mail(None, "no id"), None)
    reply = add(fresh_store, mail("r@x"), "<r@x>")
    quoted = dict(_claim_doc("c-quoted", "r@x"), message_id="a@x", quoted=True)
    fresh_store.save_claims_many([(a.row, [_claim_doc("c-a", "a@x")]),
                                  (anon.row, [_claim_doc("c-anon", anon.key)]),
                                  (reply.row, [quoted, _claim_doc("c-r", "r@x")])])

    def ids(keys):
        return sorted(d["id"] for d in fresh_store.claim_docs(keys=keys))

    assert ids(["a@x"]) == ["c-a", "c-quoted"]  # written in a@x, one read in the reply
    assert ids([anon.key]) == ["c-anon"]
    assert ids(["r@x"]) == ["c-quoted", "c-r"]
    assert ids(["missing@x", "sha256:" + "0" * 64]) == []
    assert ids([]) == []


@pytest.mark.sqlite_only("sqlite_master's indexes")
def test_version_3_store_loses_the_unused_claim_indexes_keeping_its_claims(tmp_path):
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    for migration in schema.MIGRATIONS[:3]:
        for statement in migration:
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        row = add(store, mail("a@x"), "<a@x>").row
        store.save_claims(row, [_claim_doc("c1", "a@x")])
        assert [d["id"] for d in store.claim_docs(keys=["a@x"])] == ["c1"]
    with sqlite3.connect(path) as check:
        indexes = {r[0] for r in check.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'claims'"
            " AND sql IS NOT NULL")}
    assert indexes == {"claims_origin", "claims_date_utc"}


def test_claims_come_oldest_first_by_the_instant(fresh_store):
    a = add(fresh_store, mail("a@x"), "<a@x>").row
    late = dict(_claim_doc("c-late", "a@x"), date="2025-03-03T09:30:00+00:00")
    early = dict(_claim_doc("c-early", "a@x"), date="2025-03-03T10:00:00+01:00")  # 09:00 UTC
    fresh_store.save_claims(a, [late, early])
    assert [d["id"] for d in fresh_store.claim_docs()] == ["c-early", "c-late"]


def test_senders_of_many_messages_in_one_query(fresh_store):
    a = add(fresh_store, mail("a@x"), "<a@x>")
    anon = add(fresh_store, mail(None, "no id"), None)
    add(fresh_store, mail("unanalysed@x"), "<unanalysed@x>")
    fresh_store.save_analyses([
        AnalysisRecord(a.row, "1", "patch", "{}", from_display="Ana <ana@example.org>"),
        AnalysisRecord(anon.row, "1", "other", "{}", from_display="Bo <bo@example.org>"),
    ])
    assert fresh_store.senders(["a@x", "<a@x>", anon.key, "unanalysed@x", "missing@x"]) == {
        "a@x": "Ana <ana@example.org>", "<a@x>": "Ana <ana@example.org>",
        anon.key: "Bo <bo@example.org>"}


def test_dump_holds_claims_and_rejections(fresh_store):
    """What analysis stored is part of the dump, so 'the same store' means the same claims."""
    a = add(fresh_store, mail("a@x"), "<a@x>").row
    b = add(fresh_store, mail("b@x"), "<b@x>").row
    fresh_store.save_claims(a, [_claim_doc("c1", "a@x")])
    fresh_store.save_rejection(b, "2", "not a mail: no header block")
    dump = fresh_store.dump()
    assert dump["claims"] == {"a@x": {"c1": _claim_doc("c1", "a@x")}}
    assert dump["rejections"] == {"b@x": {"analyzer_version": "2",
                                          "reason": "not a mail: no header block"}}


def test_series_list_orders_nulls_last_and_searches_folded_text(fresh_store):
    """The TUI's list on either engine: newest first and largest change first with undated
    and claimless series last (PostgreSQL's DESC puts NULLs first unless told), pages
    after a row, and a search that folds case beyond ASCII and takes `%` literally."""
    a = add(fresh_store, mail("a@x"), "<a@x>").row
    fresh_store.save_claims(a, [dict(_claim_doc("c1", "a@x"), change_pct=-12.5)])
    fresh_store.save_series([
        SeriesRecord("s1", "net: Straße offload", 1, {"id": "s1"}, patches=("a@x",),
                     author="Łukasz <l@x>", date=datetime(2024, 1, 1, tzinfo=UTC)),
        SeriesRecord("s2", "tcp: 100% less", 1, {"id": "s2"}, patches=("b@x",),
                     date=datetime(2024, 2, 1, tzinfo=UTC)),
        SeriesRecord("s3", "udp: undated", 1, {"id": "s3"}, patches=("c@x",)),
    ])
    by_date = fresh_store.series_page()
    assert [r.id for r in by_date] == ["s2", "s1", "s3"]
    by_effect = fresh_store.series_page(sort="effect")
    assert [(r.id, r.effect, r.claims) for r in by_effect] == [
        ("s1", 12.5, 1), ("s2", None, 0), ("s3", None, 0)]
    assert [r.id for r in fresh_store.series_page(sort="effect", after=by_effect[0])] == ["s2", "s3"]
    assert [r.id for r in fresh_store.series_page(after=by_date[1])] == ["s3"]
    assert [r.id for r in fresh_store.series_page(search="STRASSE")] == ["s1"]
    assert [r.id for r in fresh_store.series_page(search="0% l")] == ["s2"]
    assert fresh_store.series_page(search="_") == [] and fresh_store.series_count(search="%") == 1
    assert [d["id"] for d in fresh_store.find_series(author="ŁUKASZ")] == ["s1"]
    assert [d["id"] for d in fresh_store.all_series()] == ["s3", "s1", "s2"]  # undated first
