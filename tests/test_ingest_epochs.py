"""public-inbox v2 git epochs (issue 5): additions, a deletion, a rewritten history, several
epochs; each message stored once, the cursor per epoch at its head."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from epoch_repo import fast_import

from corpus.store import Store


def mail(n: int) -> bytes:
    return (f"From: Ana Lopes <ana@example.org>\nSubject: [PATCH net] thing {n}\n"
            f"Date: Mon, 02 Sep 2024 10:{n % 60:02d}:00 +0000\nMessage-ID: <e{n}@example.org>\n"
            f"\nBody {n}.\n").encode()


def stored(db: str) -> list[str]:
    with Store.open(db, readonly=True) as store:
        return sorted(m["message_id"] for m in store.dump()["messages"].values())


def cursors(db: str) -> dict[str, str]:
    with Store.open(db, readonly=True) as store:
        return store.cursors()


def head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "master"], capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    root = tmp_path / "netdev"
    (root / "git").mkdir(parents=True)
    return root


def test_additions_deletion_and_more(db, cli, clone: Path, tmp_path: Path) -> None:
    epoch = clone / "git" / "0.git"
    fast_import(epoch, [("m", mail(1)), ("m", mail(2)), ("d", mail(2)), ("m", mail(3))])
    first = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert first.code == 0, first.err
    assert stored(db) == ["e1@example.org", "e2@example.org", "e3@example.org"]
    assert cursors(db) == {"lore:netdev#git/0.git": head(epoch)}

    fast_import(epoch, [("m", mail(4)), ("m", mail(5))])
    second = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert "2 new, 0 already stored" in second.out
    assert stored(db) == [f"e{n}@example.org" for n in range(1, 6)]


def test_a_rewritten_history_is_read_again(db, cli, clone: Path, tmp_path: Path) -> None:
    epoch = clone / "git" / "0.git"
    fast_import(epoch, [("m", mail(n)) for n in (1, 2, 3)])
    assert cli("sync", "lore:netdev", "--git", clone, "--db", db).code == 0
    # a purge: message 2 is gone from a history rebuilt from its root, and 4 arrived
    fast_import(epoch, [("m", mail(n)) for n in (1, 3, 4)], fresh_root=True)
    again = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert again.code == 0, again.err
    assert "history was rewritten" in again.err
    assert "1 new, 2 already stored" in again.out
    assert stored(db) == [f"e{n}@example.org" for n in (1, 2, 3, 4)]  # nothing stored is lost
    assert cursors(db)["lore:netdev#git/0.git"] == head(epoch)


def test_epochs_in_order(db, cli, clone: Path, tmp_path: Path) -> None:
    fast_import(clone / "git" / "1.git", [("m", mail(3))])
    fast_import(clone / "git" / "0.git", [("m", mail(1)), ("m", mail(2))])
    result = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert result.code == 0 and "3 new" in result.out
    assert set(cursors(db)) == {"lore:netdev#git/0.git", "lore:netdev#git/1.git"}


def test_not_an_epoch_clone(db, cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("sync", "lore:netdev", "--git", empty, "--db", db)
    assert result.code == 1 and "no public-inbox epochs" in result.err


def test_an_epoch_that_breaks_off_keeps_and_counts_what_it_stored(
        db, cli, clone: Path, monkeypatch) -> None:
    """git failing mid-walk (a damaged pack, a killed `git cat-file`): the mail stored before
    the break stays stored, analysed and counted; the epoch's cursor stays where it was, so
    the next run reads the epoch again and stores the rest."""
    from analyze.errors import BadInput
    from ingest import epochs

    epoch = clone / "git" / "0.git"
    fast_import(epoch, [("m", mail(n)) for n in range(1, 6)])
    real = epochs.read_epoch

    def breaking_after_three(*args, **kwargs):
        read, items = real(*args, **kwargs)

        def three_then_fail():
            for count, item in enumerate(items):
                if count == 3:
                    raise BadInput(f"{epoch}: git cat-file answered []")
                yield item
        return read, three_then_fail()

    monkeypatch.setattr(epochs, "read_epoch", breaking_after_three)
    broken = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert broken.code == 1 and "git cat-file answered" in broken.err
    assert "3 new" in broken.err  # the feed's line, said as an error
    assert stored(db) == ["e1@example.org", "e2@example.org", "e3@example.org"]
    with Store.open(db, readonly=True) as store:
        assert store.counts().analyses == 3
    assert cursors(db) == {}
    monkeypatch.setattr(epochs, "read_epoch", real)
    again = cli("sync", "lore:netdev", "--git", clone, "--db", db)
    assert again.code == 0, again.err
    assert stored(db) == [f"e{n}@example.org" for n in range(1, 6)]
    assert cursors(db) == {"lore:netdev#git/0.git": head(epoch)}
