"""`make bench-scale`, issue 8 acceptance 2: the backfill of a whole list into SQLite.

One generated archive of N netdev-like messages (tests/bench/archive.py: public-inbox git
epochs, and the same mail as one mbox), backfilled into a fresh store each way with analysis
and claims, `--jobs 2` (one worker a core): `patchperf sync lore:netdev --git EPOCHS` and
`patchperf ingest ARCHIVE.mbox`. Wall time, throughput and peak RSS (the largest of the
command, its workers and git), and whether every message was analysed and both stores hold
the same series. Targets: under 15 minutes and 1 GB for 1,000,000 messages.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from archive import OUT, build_archive  # noqa: E402
from run_bench import timed_with_rss  # noqa: E402

PATCHPERF = Path(sys.executable).with_name("patchperf")
TARGET_SECONDS = 15 * 60
TARGET_RSS_MB = 1024


def backfill(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one backfill command."""
    seconds, peak_kib, _ = timed_with_rss([str(PATCHPERF), "--quiet", *argv])
    return seconds, peak_kib // 1024


def contents(db: Path) -> tuple[int, int, int, str]:
    """Messages, analysed or refused messages, series, and a digest of the series."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        done = conn.execute("SELECT (SELECT count(*) FROM analyses)"
                            " + (SELECT count(*) FROM rejections)").fetchone()[0]
        digest, series = hashlib.sha256(), 0
        for row in conn.execute("SELECT id, doc, claims, effect FROM series ORDER BY id"):
            digest.update(repr(row).encode())
            series += 1
    return messages, done, series, digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="messages in the archive")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", choices=("git", "mbox"), default=None,
                        help="one of the two backfills")
    args = parser.parse_args(argv)
    mbox, inbox = build_archive(args.n)
    runs = {"git": ["sync", "lore:netdev", "--git", str(inbox)], "mbox": ["ingest", str(mbox)]}
    rows, seen = [], []
    ok = True
    with tempfile.TemporaryDirectory(dir=OUT, prefix="backfill-") as tmp:
        for name, command in runs.items():
            if args.only and name != args.only:
                continue
            db = Path(tmp) / f"{name}.db"
            seconds, rss = backfill(["--db", str(db), *command, "--jobs", str(args.jobs)])
            messages, done, series, digest = contents(db)
            seen.append(digest)
            fast = seconds < TARGET_SECONDS * args.n / 1_000_000 and rss < TARGET_RSS_MB
            ok = ok and fast and messages == done == args.n
            rows.append((f"backfill of {args.n:,} messages from {'git epochs' if name == 'git' else 'one mbox'}, --jobs {args.jobs}",
                         f"{seconds:,.0f} s = {messages / seconds:,.0f} msg/s, peak {rss:,} MB",
                         "< 15 min and < 1 GB a million"))
            rows.append(("  messages stored, analysed or refused, series",
                         f"{messages:,}, {done:,}, {series:,}", f"{args.n:,} analysed"))
    if len(seen) == 2:
        same = seen[0] == seen[1]
        ok = ok and same
        rows.append(("same series from either backfill", "yes" if same else "NO", "yes"))
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<44} {target}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
