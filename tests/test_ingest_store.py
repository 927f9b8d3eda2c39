"""Ingest into a real SQLite store (issue 2, acceptance 4): twice is once; a broken file in a
folder is named and the others are stored."""

from __future__ import annotations

import gzip
import shutil

from corpus.bundled import bundled_threads
from corpus.store import Store


def _dump(path):
    with Store.open(path) as store:
        return store.dump()


def test_ingest_twice_leaves_the_store_unchanged(db, cli, tmp_path):
    with bundled_threads() as folder:
        first = cli("ingest", folder, "--db", db)
        assert first.code == 0, first.err
        before = _dump(db)
        assert before["messages"], "the bundled corpus stored nothing"
        second = cli("ingest", folder, "--db", db)
        assert second.code == 0, second.err
        assert "0 new" in second.out
    assert _dump(db) == before


def test_same_mail_from_two_formats_is_stored_once(db, cli, tmp_path):
    """The same bytes inside an mbox and inside a .gz of that mbox are one message."""
    with bundled_threads() as folder:
        mbox = sorted(folder.glob("*.mbox"))[0]
        gz = tmp_path / (mbox.name + ".gz")
        gz.write_bytes(gzip.compress(mbox.read_bytes()))
        assert cli("ingest", mbox, "--db", db).code == 0
        before = _dump(db)
        result = cli("ingest", gz, "--db", db)
    assert result.code == 0, result.err
    assert "0 new" in result.out
    assert _dump(db)["messages"] == before["messages"]


def test_folder_with_one_broken_file(db, make_db, cli, tmp_path):
    folder = tmp_path / "mail"
    with bundled_threads() as bundled:
        shutil.copytree(bundled, folder, ignore=shutil.ignore_patterns("*.md"))
    broken = folder / "broken.mbox.gz"
    broken.write_bytes(gzip.compress(b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: x\n\nbody\n" * 200)[:-30])
    result = cli("ingest", folder, "--db", db)
    assert result.code == 1
    warnings = [line for line in result.err.splitlines() if line.strip()]
    assert len(warnings) == 1 and str(broken) in warnings[0], result.err

    clean = make_db()
    with bundled_threads() as bundled:
        assert cli("ingest", bundled, "--db", clean).code == 0
    assert _dump(db)["messages"].keys() == _dump(clean)["messages"].keys()


def test_no_analyze_then_analyze_all(db, cli, tmp_path):
    with bundled_threads() as folder:
        stored = cli("ingest", folder, "--no-analyze", "--db", db)
        assert stored.code == 0, stored.err
        empty = cli("report", "--all", "--db", db, "--format", "json")
        assert empty.json()["messages"] == []
        analyzed = cli("analyze", "--all", "--db", db)
        assert analyzed.code == 0, analyzed.err
        direct = cli("analyze", folder, "--format", "json").json()
    report = cli("report", "--all", "--db", db, "--format", "json").json()
    assert sorted(m["key"] for m in report["messages"]) == sorted(m["key"] for m in direct["messages"])
    assert sorted(s["id"] for s in report["series"]) == sorted(s["id"] for s in direct["series"])


def test_ingest_analyzes_what_an_earlier_run_left_unanalyzed(db, cli, tmp_path):
    """An interrupted run (or --no-analyze) leaves stored, unanalyzed mail: the next ingest,
    even of nothing new, analyzes it."""
    with bundled_threads() as folder:
        mboxes = sorted(folder.glob("*.mbox"))
        assert cli("ingest", *mboxes, "--no-analyze", "--db", db).code == 0
        again = cli("ingest", *mboxes, "--db", db)
    assert again.code == 0, again.err
    assert "0 new" in again.out
    report = cli("report", "--all", "--db", db, "--format", "json").json()
    assert report["messages"] and report["series"]


def test_a_stored_mail_analysis_rejects_is_not_retried_by_every_ingest(db, cli, tmp_path):
    """A mail that passes as mail but analysis cannot read (here: over the MIME parts limit)
    stays stored; the next ingest does not warn about it again; `analyze --all` does."""
    head = b"From: a <a@example.org>\nSubject: parts\nMessage-ID: <parts@example.org>\n"
    parts = b"".join(b"--B\nContent-Type: text/plain\n\nx\n" for _ in range(1200))
    bad = tmp_path / "parts.eml"
    bad.write_bytes(head + b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n' + parts + b"--B--\n")
    first = cli("ingest", bad, "--db", db)
    assert first.code == 2 and "MIME parts" in first.err
    with bundled_threads() as folder:
        later = cli("ingest", sorted(folder.glob("*.mbox"))[0], "--db", db)
    assert later.code == 0 and later.err == ""
    everything = cli("analyze", "--all", "--db", db)
    assert everything.code == 1 and "MIME parts" in everything.err
    assert _dump(db)["messages"]  # nothing stored was lost


def test_stored_mail_is_committed_before_it_is_analysed(tmp_path, monkeypatch):
    """A backfill stopped while it analyses keeps the mail it had read, as when storing came
    first: each chunk is committed before its analysis starts (the first one waits a second
    for spaCy to load, and a thousand mails' analyses are written at once)."""
    from corpus.jobs import refresh
    from corpus.jobs.ingest import IngestResult, storing
    from ingest.local import read_sources
    from ingest.raw import RawMail

    monkeypatch.setattr(refresh, "STAGE_CHUNK", 3)
    path = tmp_path / "s.db"
    kept_when_analysed: list[bool] = []
    analyse = refresh.analyse_chunk

    def looking_first(chunk, *args):
        with Store.open(path, readonly=True) as other:  # another process's view
            rows = [raw.row for raw in chunk]
            kept_when_analysed.append([r.row for r in other.iter_raw(rows)] == rows)
        return analyse(chunk, *args)

    monkeypatch.setattr(refresh, "analyse_chunk", looking_first)
    with bundled_threads() as folder, Store.open(path) as store:
        mails = [m for m in read_sources(sorted(folder.glob("*.mbox"))) if isinstance(m, RawMail)]
        with store.batch(commit_seconds=3600):  # as ingest: the store's batch, then analysis
            refresh.analyze_rows(store, None, arriving=storing(store, mails, IngestResult()))
    assert len(kept_when_analysed) == -(-len(mails) // 3) and all(kept_when_analysed)


def test_mail_is_analysed_as_it_is_stored(tmp_path, monkeypatch):
    """A backfill's analysis does not wait for its last mail: each chunk is analysed and
    written while later mail is still being read and stored, after the mail stored earlier
    and never analysed; nothing is analysed twice."""
    from corpus.jobs import refresh
    from corpus.jobs.ingest import IngestResult, storing
    from ingest.local import read_sources
    from ingest.raw import RawMail

    monkeypatch.setattr(refresh, "STAGE_CHUNK", 2)
    monkeypatch.setattr(refresh, "BATCH", 1)
    with bundled_threads() as folder, Store.open(tmp_path / "s.db") as store:
        mails = [m for m in read_sources(sorted(folder.glob("*.mbox"))) if isinstance(m, RawMail)]
        assert len(mails) > 10
        earlier, store_result = IngestResult(), IngestResult()
        with store.batch():
            list(storing(store, mails[:4], earlier))  # stored by an interrupted run
        analysed_when_stored: list[int] = []

        def arriving():
            for raw in storing(store, mails[4:], store_result):
                analysed_when_stored.append(store.counts().analyses)
                yield raw

        result = refresh.analyze_rows(store, None, arriving=arriving())
        assert result.analyzed + len(result.problems) == len(mails)
        assert store.counts().analyses == result.analyzed
        # the four earlier mails (two chunks) were analysed before the first new one was
        # stored...
        assert analysed_when_stored[0] == 4
        # ...and the first new ones long before the last was stored
        assert analysed_when_stored[-1] >= len(mails) - 6
