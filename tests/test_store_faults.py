"""The store when the disk fails it (issue 7, acceptance 4): a full disk, a read-only store,
a corrupted file. Each is one line naming the file (exit 2), and what was stored before
stays readable and unchanged."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from corpus import schema

pytestmark = pytest.mark.sqlite_only("the SQLite file's own faults: full, read-only, damaged")


@pytest.fixture
def corpus_db(bundled_copy: str) -> Path:
    return Path(bundled_copy)


def _messages(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT count(*) FROM messages").fetchone()[0]


def _mbox(path: Path, n: int) -> Path:
    sep = "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
    path.write_text("".join(
        f"{sep}From: A <a@example.org>\nSubject: [PATCH net] change {k}\n"
        f"Date: Mon, 02 Sep 2024 10:00:00 +0000\nMessage-ID: <full{k}@example.org>\n\n"
        + ("A line of the commit message that fills the pages of the store.\n" * 40) + "\n"
        for k in range(n)))
    return path


def test_a_full_disk_is_one_line_and_the_store_stays_whole(cli, corpus_db, tmp_path, monkeypatch):
    before = _messages(corpus_db)
    configure = schema._configure

    def full_soon(conn, path, *, readonly):
        configure(conn, path, readonly=readonly)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 8}")  # SQLite's SQLITE_FULL, as a disk's

    monkeypatch.setattr(schema, "_configure", full_soon)
    big = _mbox(tmp_path / "big.mbox", 3000)
    result = cli("--db", corpus_db, "ingest", big)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and str(corpus_db) in lines[0] and "the disk is full" in lines[0]
    monkeypatch.setattr(schema, "_configure", configure)
    stored = _messages(corpus_db)  # whole, and no partial batch
    assert stored == before or (stored - before) % 1000 == 0
    again = cli("--db", corpus_db, "--quiet", "ingest", big)  # room again: the rest comes
    assert again.code == 0 and _messages(corpus_db) == before + 3000


def test_a_read_only_store_is_one_line_and_readable(cli, corpus_db, tmp_path, monkeypatch):
    before = hashlib.sha256(corpus_db.read_bytes()).hexdigest()
    uri_open = schema.connect

    def read_only_file(location, *, readonly=False):
        # as if the file were on a read-only mount: every write is refused by SQLite
        ours = location.path == corpus_db
        return uri_open(location, readonly=True) if ours else uri_open(location, readonly=readonly)

    cli("--db", corpus_db, "report", "--all")  # a first open moves the WAL into the file
    before = hashlib.sha256(corpus_db.read_bytes()).hexdigest()
    monkeypatch.setattr(schema, "connect", read_only_file)
    result = cli("--db", corpus_db, "ingest", _mbox(tmp_path / "m.mbox", 3))
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1 and "read-only" in result.err
    report = cli("--db", corpus_db, "report", "--all", "--format", "json")
    assert report.code == 0 and len(report.json()["messages"]) == 24
    assert hashlib.sha256(corpus_db.read_bytes()).hexdigest() == before


DAMAGE = b"\xa5" * 200


def _scramble(cli, db: Path, table: str) -> tuple[int, str]:
    """Overwrite the start of the table's root page: where, and the file's sha256 after."""
    cli("--db", db, "report", "--all")  # the WAL moved into the file
    with sqlite3.connect(db) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        root = 1 if table == "sqlite_master" else conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    data = bytearray(db.read_bytes())
    start = (root - 1) * page + (100 if root == 1 else 0)  # page 1 starts with the file header
    data[start: start + 200] = DAMAGE
    db.write_bytes(bytes(data))
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    return start, hashlib.sha256(db.read_bytes()).hexdigest()


def _damage_left(db: Path, start: int) -> bool:
    """The scrambled bytes still there: the damaged page was not rewritten (a WAL a command
    committed to counts: it is what the file will hold)."""
    conn = sqlite3.connect(db)
    try:  # (a damaged schema page stops even this; then nothing could be written either)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError:
        assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    finally:
        conn.close()
    return db.read_bytes()[start:start + 200] == DAMAGE


def _one_corruption_line(result, db: Path) -> None:
    assert result.code == 2, (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0], lines
    assert "corrupt" in lines[0] or "malformed" in lines[0], lines
    assert "Traceback" not in result.err


@pytest.mark.parametrize("table", ["sqlite_master", "analyses", "series"])
def test_a_corrupted_store_is_reported_and_left_as_it_is(cli, corpus_db, tmp_path, table):
    """A scrambled page where the schema, the analysed messages or the series live: every
    command that reads it stops with one line; the commands that only read leave the file
    as it was, and none rewrites the damaged page. (`ingest` may have stored the new raw
    mail first, in sound pages: it stores mail before analysing it.)"""
    start, digest = _scramble(cli, corpus_db, table)
    for args in (["report", "--all"], ["check"], ["check", "--full"]):
        _one_corruption_line(cli("--db", corpus_db, *args), corpus_db)
    assert hashlib.sha256(corpus_db.read_bytes()).hexdigest() == digest  # not written at all
    for args in (["ingest", _mbox(tmp_path / "m.mbox", 3)], ["analyze", "--all"]):
        _one_corruption_line(cli("--db", corpus_db, *args), corpus_db)
        assert _damage_left(corpus_db, start), args


@pytest.mark.parametrize("table", ["cursors", "verdicts"])
def test_check_reads_every_page(cli, corpus_db, table):
    """Damage where no command reads (the feeds' cursors, the kept verdicts): `report`
    does not see it, `patchperf check` does, with one line, and writes nothing."""
    sound = cli("--db", corpus_db, "check")
    assert sound.code == 0 and f"{corpus_db}: ok, " in sound.out, sound.err
    _, digest = _scramble(cli, corpus_db, table)  # on this test's own copy: one damage at a time
    assert cli("--db", corpus_db, "report", "--all").code == 0
    _one_corruption_line(cli("--db", corpus_db, "check"), corpus_db)
    _one_corruption_line(cli("--db", corpus_db, "check", "--full"), corpus_db)
    assert hashlib.sha256(corpus_db.read_bytes()).hexdigest() == digest


def test_many_problems_on_one_page_are_one_line(cli, corpus_db):
    """Cell pointers out of range on an index page no other query of `check` reads:
    integrity_check answers a row holding several problems, one a line, under a heading.
    `check --full` printed it over 5 lines; it is one line naming the first problem and
    counting the others."""
    table = "sqlite_autoindex_messages_1"
    cli("--db", corpus_db, "report", "--all")  # the WAL moved into the file
    with sqlite3.connect(corpus_db) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                            (table,)).fetchone()[0]
    conn.close()
    data = bytearray(corpus_db.read_bytes())
    start = (root - 1) * page
    header = 8 if data[start] in (0x0A, 0x0D) else 12  # a leaf page's header, or an interior's
    cells = int.from_bytes(data[start + 3:start + 5], "big")
    assert cells >= 2
    for k in range(min(cells, 4)):  # the first cells' pointers, into the page's header (where
        # no cell can start; pointers past the page's end had SQLite read beyond its buffer,
        # and the check answered "malformed" or the rows, by chance)
        data[start + header + 2 * k: start + header + 2 * k + 2] = (2 + k).to_bytes(2, "big")
    corpus_db.write_bytes(bytes(data))
    for extra in ("-wal", "-shm"):
        Path(f"{corpus_db}{extra}").unlink(missing_ok=True)
    result = cli("--db", corpus_db, "check", "--full")
    _one_corruption_line(result, corpus_db)
    assert "***" not in result.err
    assert "more problems" in result.err


def test_a_store_on_a_read_only_mount_is_readable(cli, corpus_db, tmp_path):
    """A real read-only bind mount of the store's folder (root only: the test skips, saying
    so, where mount is not allowed): reports read it; a write is one line, exit 2."""
    import subprocess

    cli("--db", corpus_db, "report", "--all")  # the WAL moved into the file on close
    mounted = tmp_path / "ro"
    mounted.mkdir()
    bind = subprocess.run(["mount", "--bind", str(corpus_db.parent), str(mounted)],
                          capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount here ({bind.stderr.strip()}): needs root")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mounted)], check=True)
        db = mounted / corpus_db.name
        report = cli("--db", db, "report", "--all", "--format", "json")
        assert report.code == 0, report.err
        assert len(report.json()["messages"]) == 24
        write = cli("--db", db, "ingest", _mbox(tmp_path / "m.mbox", 3))
        assert write.code == 2 and len(write.err.strip().splitlines()) == 1 and str(db) in write.err
    finally:
        subprocess.run(["umount", str(mounted)], check=False)
