"""The generated archive `make bench-scale` backfills (issue 8): N netdev-like messages as an
mboxrd file and as public-inbox v2 git epochs, built once and kept in tests/bench/out.

Dated over ten years (netdev's pace: about 100,000 messages a year), not the month the
smaller benchmarks use: series, threads and version links spread as they do in the real
archive. Epochs hold EPOCH_SIZE messages each, oldest first (lore rolls a new epoch at about
1 GB of mail; 250,000 of ours is 600 MB of raw mail).
"""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from gen_mbox import generate

from ingest.mboxrd import iter_mboxrd
from ingest.raw import RawMail

OUT = Path(__file__).resolve().parent / "out"
EPOCH_SIZE = 250_000
WINDOW = timedelta(days=3650)
SEED = 8


def build_archive(n: int) -> tuple[Path, Path]:
    """(the mbox, the folder holding `git/N.git`) of `n` generated messages, made if absent."""
    base = OUT / f"archive-{n}-s{SEED}"
    mbox, inbox = base / "all.mbox", base / "netdev"
    done = base / ".done"
    if done.exists():
        return mbox, inbox
    base.mkdir(parents=True, exist_ok=True)
    stats = generate(mbox, n=n, seed=SEED, window=WINDOW)
    print(f"generated {stats.messages:,} messages, {stats.bytes / 1e6:,.0f} MB in "
          f"{stats.seconds:.0f} s", file=sys.stderr)
    count = write_epochs(mbox, inbox / "git")
    print(f"wrote {count:,} messages into {(count + EPOCH_SIZE - 1) // EPOCH_SIZE} epochs",
          file=sys.stderr)
    done.touch()
    return mbox, inbox


def write_epochs(mbox: Path, git: Path) -> int:
    """Each mail of `mbox` as one commit of the file `m`, EPOCH_SIZE commits a repository."""
    count, epoch, importer = 0, -1, None
    try:
        with mbox.open("rb") as f:
            for item in iter_mboxrd(f, str(mbox)):
                if not isinstance(item, RawMail):
                    continue
                if count % EPOCH_SIZE == 0:
                    _finish(importer)
                    epoch += 1
                    importer = _start(git / f"{epoch}.git")
                assert importer is not None and importer.stdin is not None
                importer.stdin.write(b"commit refs/heads/master\ncommitter A <a@x> %d +0000\n"
                                     b"data 1\nm\ndeleteall\nM 100644 inline m\ndata %d\n%s\n"
                                     % (1700000000 + count, len(item.data), item.data))
                count += 1
    finally:
        _finish(importer)
    return count


def _start(repo: Path) -> subprocess.Popen[bytes]:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(repo)], check=True)
    return subprocess.Popen(["git", "-C", str(repo), "fast-import", "--quiet"],
                            stdin=subprocess.PIPE)


def _finish(importer: subprocess.Popen[bytes] | None) -> None:
    if importer is None:
        return
    assert importer.stdin is not None
    importer.stdin.close()
    if importer.wait() != 0:
        sys.exit("git fast-import failed")


if __name__ == "__main__":
    print(build_archive(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000))
